"""Write an SVG of every app screen to screenshots/ from the deterministic demo home.

Usage: ``.venv/bin/python scripts/screenshots.py [--out screenshots]``

The demo home is built (once per demo-code version) at a fixed path by the same helper the
snapshot tests use (tests/tui_support.py), so these SVGs match tests/tui/__snapshots__/. Each
screen is reached with real key presses through ``App.run_test`` and saved with
``App.save_screenshot``: the browser, a session, the rewind dialog and the checkpoints at
160×48 and 80×24 (``-80``), the other screens at 120×40; then the Claude Code screens
(``claude-*``) with the demo's Claude Code home beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))

WIDE, NARROW, MID = (160, 48), (80, 24), (120, 40)

#: (file name, demo case to open or None for the browser, keys, theme, size)
SCENES: list[tuple[str, str | None, tuple[str, ...], str, tuple[int, int]]] = [
    ("browser", None, (), "dark", WIDE),
    ("browser-80", None, (), "dark", NARROW),
    ("browser-light", None, (), "light", MID),
    ("conversation", "interrupted_turn", (), "dark", WIDE),
    ("conversation-dropped", "killed", (), "dark", NARROW),
    ("find", "checkpoints", ("slash", *"threshold", "enter"), "dark", MID),
    ("chain", "concurrent", ("2",), "dark", MID),
    ("checkpoints", "checkpoints", ("3",), "dark", WIDE),
    ("checkpoints-80", "checkpoints", ("3",), "dark", NARROW),
    ("state", "clean", ("4",), "dark", MID),
    ("sidechains", "sidechains", ("5",), "dark", MID),
    ("rewind", "checkpoints", ("r", "m", "m"), "dark", WIDE),
    ("rewind-80", "checkpoints", ("r", "m", "m"), "dark", NARROW),
    ("undo-preview", "checkpoints", ("3", "u"), "dark", MID),
    ("fork", "clean", ("f",), "dark", MID),
    ("salvage", "torn_glued", ("f",), "dark", MID),
    ("help", "clean", ("question_mark",), "dark", MID),
    ("search", None, ("slash", *"threshold", "enter"), "dark", MID),
]
#: The same with the demo's Claude Code home beside it (cases of ``sidtui.demo.claude``).
CLAUDE_SCENES: list[tuple[str, str | None, tuple[str, ...], str, tuple[int, int]]] = [
    ("claude-browser", None, (), "dark", WIDE),
    ("claude-browser-80", None, (), "dark", NARROW),
    ("claude-session", "interrupted", (), "dark", WIDE),
    ("claude-session-80", "interrupted", (), "dark", NARROW),
    ("claude-tips", "rewind", ("2",), "dark", WIDE),
    ("claude-checkpoints", "checkpoints", ("3",), "dark", WIDE),
    ("claude-checkpoints-80", "checkpoints", ("3",), "dark", NARROW),
    ("claude-rewind", "checkpoints", ("r", "up", "up", "m"), "dark", WIDE),
    ("claude-rewind-80", "checkpoints", ("r", "up", "up", "m"), "dark", NARROW),
    ("claude-repair", "checkpoints", ("M",), "dark", MID),
    ("usage", None, ("ctrl+u",), "dark", WIDE),
    ("usage-80", None, ("ctrl+u",), "dark", NARROW),
]


async def shoot(out: Path) -> list[Path]:
    import os

    from tui_support import SNAP_DEMO, claude_demo_fixed, demo_home_fixed, settle

    from sidtui.core.base.resolve import resolve_session
    from sidtui.core.claude.layout import ClaudeHome
    from sidtui.core.sources import ClaudeSource
    from sidtui.tui.app import make_app

    # As in the snapshot tests: the demo's projects are inside the user's home, or every
    # restore preview would refuse them as outside it.
    os.environ["HOME"] = str(SNAP_DEMO)
    home, cases = demo_home_fixed()
    claude, claude_cases = claude_demo_fixed()
    out.mkdir(parents=True, exist_ok=True)
    written = []
    scenes = [(s, False) for s in SCENES] + [(s, True) for s in CLAUDE_SCENES]
    for (name, case, keys, theme, size), both in scenes:
        app = make_app(
            home,
            poll_interval=0,
            home_label="~/.sid-code + ~/.claude" if both else "~/.sid-code",
            catalog_path=":memory:",
            theme=theme,
            claude_home=claude if both else None,
        )
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            if case is not None and both:
                src = ClaudeSource(ClaudeHome(claude))
                app.open_session(src.resolve(claude_cases[case]))
                await settle(app, pilot)
            elif case is not None:
                app.open_session(resolve_session(app.home, cases[case]))
                await settle(app, pilot)
            for k in keys:
                await pilot.press(k)
                await settle(app, pilot)
            path = out / f"{name}.svg"
            app.save_screenshot(str(path))
            written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(REPO / "screenshots"), help="output folder")
    args = ap.parse_args(argv)
    for p in asyncio.run(shoot(Path(args.out))):
        print(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""SVG snapshots of a Codex CLI home in the app, on the fixed demo (its three homes): the
browser with the three agents' sessions, a Codex session on the one session screen, its
rewind dialog (the conversation only: Codex keeps no file states) and its Checkpoints tab
(saying so), each at 80×24 and 160×48.

The demo is built at a fixed path (tests/tui_support.py); the header shows fixed labels.
Update with ``pytest tests/tui/test_codex_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import pytest

from sidtui.core.sources import CodexSource
from sidtui.tui.app import make_app
from tests.tui_support import SNAP_DEMO, claude_demo_fixed, demo_home_fixed, settle

# every screen drawn and compared with its SVG (~5 s each): the slow set
pytestmark = pytest.mark.slow

NARROW, WIDE = (80, 24), (160, 48)
SIZES = pytest.mark.parametrize("size", [NARROW, WIDE], ids=["80x24", "160x48"])


@pytest.fixture(scope="module")
def demo():
    home, _ = demo_home_fixed()
    claude, _ = claude_demo_fixed()
    codex = CodexSource.resolve_home(home.parent / "codex", {})
    # the demo's interrupted turn (the one session that ends on calls without output)
    rows = codex.list_sessions()[0]
    sid = next(r.session_id for r in rows if r.interruption == "interrupted_turn")
    # and the first one (by id) with two typed prompts or more: a rewind point to preview
    multi = next(
        r.session_id
        for r in sorted(rows, key=lambda r: r.session_id)
        if len(codex.open(codex.resolve(r.session_id)).prompts) >= 2
    )
    return home, claude, codex.home, sid, multi


@pytest.fixture(autouse=True)
def _demo_in_home(monkeypatch):
    monkeypatch.setenv("HOME", str(SNAP_DEMO))


def make(demo):
    home, claude, codex, _sid, _multi = demo
    return make_app(
        home,
        poll_interval=0,
        home_label="~/.sid-code + ~/.claude + ~/.codex",
        catalog_path=":memory:",
        claude_home=claude,
        codex_home=codex,
    )


def opener(demo, *keys: str, sid: str | None = None):
    async def run_before(pilot):
        app = pilot.app
        await settle(app, pilot)
        src = CodexSource(demo[2])
        app.open_session(src.resolve(sid or demo[3]))
        await settle(app, pilot)
        for k in keys:
            await pilot.press(k)
            await settle(app, pilot)

    return run_before


@SIZES
def test_browser_with_three_agents(snap_compare, demo, size):
    async def run_before(pilot):
        await settle(pilot.app, pilot)

    assert snap_compare(make(demo), terminal_size=size, run_before=run_before)


@SIZES
def test_codex_session(snap_compare, demo, size):
    assert snap_compare(make(demo), terminal_size=size, run_before=opener(demo))


@SIZES
def test_codex_rewind(snap_compare, demo, size):
    assert snap_compare(make(demo), terminal_size=size, run_before=opener(demo, "r", sid=demo[4]))


@SIZES
def test_codex_checkpoints(snap_compare, demo, size):
    assert snap_compare(make(demo), terminal_size=size, run_before=opener(demo, "3"))

"""`sidtui demo`: build a realistic agent home (and optionally a live agent), then open it.

Without ``--dir`` the demo goes to a fresh folder under the user's cache directory
(platformdirs) and says where. ``--no-open`` only builds and prints the home path on stdout.
``--live`` also starts the simulated agent in the background: the app says so (a toast
and a line in its help) and stops the agent when it quits, unless ``--keep-live`` asks to
leave it running (its PID and how to stop it are printed after the app). Without the app
(``--no-open``, no terminal) the agent keeps running and the PID line is printed. ``--scale N`` / ``--huge`` write benchmark-sized homes instead of the case
catalogue. When stdout is not a terminal the app cannot run full screen, so the listing is
printed instead (docs/DECISIONS.md, "Demo").
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

#: The most sessions ``--scale`` writes: 10× the largest benchmark home (10,000 sessions),
#: about 15 GB at the mean of 146 KB a session.
SCALE_MAX = 100_000


def register(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "demo",
        parents=parents,
        help="build a demo home with every case sidtui shows, then open the app",
        description="Build a realistic agent home (several projects; clean, interrupted, "
        "killed, resumed, forked, concurrent, rewound, corrupt and legacy sessions; "
        "sidechains; checkpoints) with a simulated agent, then open the app on it.",
    )
    p.add_argument(
        "--dir", metavar="DIR", help="where to build (default: a new folder in the user cache dir)"
    )
    p.add_argument("--seed", type=int, default=0, help="same seed, same bytes (default 0)")
    p.add_argument("--no-open", action="store_true", help="build and print the home path only")
    p.add_argument(
        "--live",
        action="store_true",
        help="also run a simulated agent in the background until stopped",
    )
    p.add_argument(
        "--keep-live",
        action="store_true",
        help="with --live: leave the simulated agent running after the app quits",
    )
    p.add_argument(
        "--scale",
        type=int,
        metavar="N",
        help=f"write N sessions with the real size distribution instead (1 to "
        f"{SCALE_MAX:,}: about 146 KB each, so {SCALE_MAX:,} is about 15 GB)",
    )
    p.add_argument("--huge", action="store_true", help="write one ~100 MB session (~142k records)")
    p.add_argument("--rate", type=float, default=3.0, help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def _fresh_dir() -> Path:
    import tempfile

    import platformdirs

    from sidtui.core.base.errors import UsageError

    base = Path(platformdirs.user_cache_dir("sidtui")) / "demos"
    try:
        base.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix="demo-", dir=base))
    except OSError as exc:
        raise UsageError(
            f"cannot create a demo folder under {base} ({exc.strerror or exc}); pass --dir DIR"
        ) from None


def _err(msg: str) -> None:
    print(msg, file=sys.stderr)


def start_live(root: Path, home: Path, seed: int, rate: float = 3.0):
    """Create ``projects/live-app`` (if missing) and start the live agent.

    Returns:
        The ``subprocess.Popen`` of the background agent (it runs until SIGTERM/SIGINT).
    """
    import os
    import subprocess

    from sidtui.demo.clock import DEMO_EPOCH_MS
    from sidtui.demo.live import LIVE_FILES
    from sidtui.demo.projects import create_project

    proj = root / "projects" / "live-app"
    if not proj.exists():
        create_project(root / "projects", "live-app", LIVE_FILES, when_ms=DEMO_EPOCH_MS)
    log = open(root / "live-agent.log", "ab")
    kwargs: dict = {}
    if os.name == "posix":
        kwargs["start_new_session"] = True  # survives the terminal closing the app
    else:  # pragma: no cover - Windows
        kwargs["creationflags"] = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sidtui.demo.live",
            "--home",
            str(home),
            "--project",
            str(proj),
            "--seed",
            str(seed),
            "--rate",
            str(rate),
        ],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        **kwargs,
    )
    log.close()
    (root / "live-agent.pid").write_text(f"{proc.pid}\n")
    return proc


def run(args: argparse.Namespace) -> int:
    from sidtui.core.base.errors import SidtuiError, UsageError

    if getattr(args, "home", None) is not None:  # the demo builds a home; it reads none
        raise UsageError(
            "demo builds its own home: give the folder to build in with --dir DIR "
            "(the home is DIR/home), not --home"
        )
    if args.scale is not None and not 1 <= args.scale <= SCALE_MAX:
        raise UsageError(
            f"--scale needs a number of sessions from 1 to {SCALE_MAX:,} (got {args.scale:,})"
        )
    root = Path(args.dir).expanduser().absolute() if args.dir else _fresh_dir()
    if (args.scale is None and not args.huge) or args.live:  # --scale/--huge: fixed paths
        from sidtui.demo.scenarios import check_demo_root

        check_demo_root(root)  # before anything is made: a refusal leaves nothing behind
    _make_root(root)
    try:
        return _build_and_open(args, root)
    except OSError as exc:  # the disk refused a write half-way (full, read-only, ...)
        raise SidtuiError(
            f"cannot build the demo in {root}: {exc.strerror or exc}"
            + (f": {exc.filename}" if exc.filename and exc.strerror else "")
        ) from None


def _make_root(root: Path) -> None:
    """Create the empty folder ``root`` (or accept it empty).

    Raises:
        UsageError: ``root`` is a file or a folder that is not empty (exit 2).
        SidtuiError: ``root`` cannot be made or read (no permission, a file in its path,
            a read-only file system): one line with the system's reason (exit 1).
    """
    from sidtui.core.base.errors import SidtuiError, UsageError

    try:
        if root.exists() and not root.is_dir():
            raise UsageError(f"--dir {root} exists and is not a folder")
        root.mkdir(parents=True, exist_ok=True)
        if any(root.iterdir()):
            raise UsageError(f"--dir {root} is not empty: give a new or empty folder")
    except OSError as exc:
        raise SidtuiError(f"cannot create {root}: {exc.strerror or exc}") from None
    if not os.access(root, os.W_OK | os.X_OK):
        raise SidtuiError(f"cannot create files in {root}: permission denied")


def _build_and_open(args: argparse.Namespace, root: Path) -> int:
    from sidtui.core.base.home import Home

    home = root / "home"
    claude_home = None
    homes: list = []  # the demo's further homes (its Codex CLI one)
    if args.scale is not None or args.huge:
        from sidtui.demo.scale import huge_session_path, write_huge_session, write_scale_home

        if args.scale:
            s = write_scale_home(home, args.scale, args.seed)
            _err(f"wrote {s.sessions} sessions, {s.records} records, {s.bytes / 1e6:.1f} MB")
        if args.huge:
            s = write_huge_session(huge_session_path(home, args.seed), seed=args.seed)
            _err(f"wrote 1 session of {s.records} records, {s.bytes / 1e6:.1f} MB")
    else:
        from sidtui.core.base.discover import discover
        from sidtui.demo.scenarios import build_demo_home

        demo = build_demo_home(root, args.seed)
        claude_home = demo.claude_home
        n = sum(1 for f in discover(Home(demo.home)) if f.kind == "main")
        _err(
            f"demo home with {n} sessions ({len(set(demo.cases.values()))} planned cases) in {root}"
        )
        _err(f"  agent home:  {demo.home}")
        _err(f"  projects:    {root / 'projects'}")
        if claude_home is not None:
            _err(
                f"  Claude Code: {claude_home} ({len(demo.claude_cases)} sessions; projects in "
                f"{root / 'claude-projects'})"
            )
        if demo.codex_home is not None:
            from sidtui.core.sources import CodexSource

            homes.append(CodexSource.resolve_home(demo.codex_home, {}))
            _err(f"  Codex CLI:   {demo.codex_home} ({len(demo.codex_cases)} sessions)")
    live = start_live(root, home, args.seed, args.rate) if args.live else None
    both = f" --claude-home {shlex.quote(str(claude_home))}" if claude_home is not None else ""
    both += "".join(f" {s.home_flag} {shlex.quote(str(s.root))}" for s in homes)
    _err(f"open it any time with: sidtui --home {shlex.quote(str(home))}{both}")
    from sidtui.cli.app import has_terminal

    if args.no_open or not has_terminal():
        if live is not None:  # no app to say it in: said here, and the agent keeps running
            _err(live_line(live.pid, root, running=True))
        if args.no_open:
            print(home)
            return 0
    h = Home(home)
    theme = getattr(args, "theme", None)
    if live is None or not has_terminal():
        return _open(h, theme, claude_home, homes, ())
    return run_with_live(
        live,
        root,
        args.keep_live,
        lambda notices: _open(h, theme, claude_home, homes, notices),
    )


def _open(h, theme: str | None, claude_home, homes: list, notices: tuple[str, ...]) -> int:
    """The app on ``h`` (the listing when there is no terminal or no app): the demo's own
    Claude Code home and ``homes`` (further sources) only, never the user's."""
    from sidtui.cli.app import has_terminal, listing_instead
    from sidtui.core.sources import ClaudeSource

    others = [ClaudeSource.resolve_home(claude_home, {})] if claude_home is not None else []
    others += homes
    if not has_terminal():
        return listing_instead(h, "the app needs a terminal (stdin/stdout is not one)", others)
    try:
        from sidtui.tui.app import run as run_tui
    except ImportError:
        return listing_instead(h, "the app is not available", others)
    return run_tui(h, theme=theme, others=others, notices=notices)


def live_line(pid: int, root: Path, *, running: bool, keep: bool = True) -> str:
    """What is said of the live agent: running and how to stop it, or stopped with the app."""
    log = root / "live-agent.log"
    if not running:
        return f"the simulated agent (pid {pid}) stopped with the app (log: {log})"
    if keep:
        return f"live agent running (pid {pid}); stop it with: kill {pid}   (log: {log})"
    return (
        f"a simulated agent (pid {pid}) writes the live-app session; it stops when the app "
        f"quits (demo --live --keep-live leaves it running). Log: {log}"
    )


def run_with_live(proc, root: Path, keep: bool, open_app) -> int:
    """Run ``open_app(notices)`` (the app) while the live agent ``proc`` runs; the app says
    it (a toast, its help), and the agent is stopped when the app returns unless ``keep``
    (then the way to stop it is printed, where it can be read: after the app)."""
    import subprocess

    notice = live_line(proc.pid, root, running=True, keep=False)
    if keep:
        notice = (
            f"a simulated agent (pid {proc.pid}) writes the live-app session and keeps "
            f"running after the app (stop it with: kill {proc.pid})"
        )
    try:
        return open_app((notice,))
    finally:
        if keep:
            _err(live_line(proc.pid, root, running=True))
        else:
            proc.terminate()  # SIGTERM: the agent ends its turn cleanly (demo/live.py)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            (root / "live-agent.pid").unlink(missing_ok=True)
            _err(live_line(proc.pid, root, running=False))

"""`sidtui` with no subcommand: open the full-screen app on the home."""

from __future__ import annotations

import argparse
import sys

from sidtui.cli.common import home_from_args


def has_terminal() -> bool:
    """Whether stdin and stdout are both terminals (the full-screen app needs both)."""
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):  # closed or replaced streams
        return False


def listing_instead(home, why: str, others=()) -> int:
    """Say on stderr why the app does not open, then print the home and its ``ls``
    (with the home flag of each other source that goes with it)."""
    from sidtui.cli import main as cli_main

    print(f"sidtui: {why}: printing the session list instead", file=sys.stderr)
    print(home.root)
    sys.stdout.flush()
    extra = [w for s in others for w in (s.home_flag, str(s.root))]
    if extra and not home.root.exists():  # other homes alone: list them alone
        return cli_main([*extra, "ls"])
    return cli_main(["--home", str(home.root), *extra, "ls"])


def other_sources(args: argparse.Namespace) -> list:
    """The sources the app lists beside sid-code's: each whose home flag was given, else
    each whose home (its variable, else its default place) exists and that is read
    without being named."""
    import os

    from sidtui.core.sources import SOURCES, flag_dest

    out = []
    for cls in SOURCES[1:]:
        flag = getattr(args, flag_dest(cls.home_flag), None)
        if flag is None and not getattr(cls, "found_unnamed", True):
            continue
        src = cls.resolve_home(flag, os.environ)
        if flag is not None or src.exists():
            out.append(src)
    return out


def run_app(args: argparse.Namespace) -> int:
    """Open the Textual app on the resolved home; return its exit code.

    Without a terminal on stdin and stdout (piped, redirected, cron) the app would write
    escape codes nowhere and wait for keys that never come, so the ``ls`` listing is
    printed instead (exit code of ``ls``), with a note on stderr.
    """
    home = home_from_args(args)
    others = other_sources(args)
    if not has_terminal():
        return listing_instead(home, "the app needs a terminal (stdin/stdout is not one)", others)
    try:
        from sidtui.tui.app import run as run_tui
    except ImportError:  # app not installed: show the listing instead
        return listing_instead(home, "the app is not available", others)
    return run_tui(home, theme=getattr(args, "theme", None), others=others)

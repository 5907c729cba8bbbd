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


def listing_instead(home, why: str, claude_home=None) -> int:
    """Say on stderr why the app does not open, then print the home and its ``ls``
    (with ``--claude-home`` when a Claude Code home goes with it)."""
    from sidtui.cli import main as cli_main

    print(f"sidtui: {why}: printing the session list instead", file=sys.stderr)
    print(home.root)
    sys.stdout.flush()
    extra = ["--claude-home", str(claude_home)] if claude_home is not None else []
    return cli_main(["--home", str(home.root), *extra, "ls"])


def run_app(args: argparse.Namespace) -> int:
    """Open the Textual app on the resolved home; return its exit code.

    Without a terminal on stdin and stdout (piped, redirected, cron) the app would write
    escape codes nowhere and wait for keys that never come, so the ``ls`` listing is
    printed instead (exit code of ``ls``), with a note on stderr.
    """
    home = home_from_args(args)
    if not has_terminal():
        return listing_instead(home, "the app needs a terminal (stdin/stdout is not one)")
    try:
        from sidtui.tui.app import run as run_tui
    except ImportError:  # app not installed: show the listing instead
        return listing_instead(home, "the app is not available")
    return run_tui(home, theme=getattr(args, "theme", None))

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


def listing_instead(home, why: str, claude_home=None, homes=()) -> int:
    """Say on stderr why the app does not open, then print the home and its ``ls``
    (with ``--claude-home`` when a Claude Code home goes with it, and the home flag of
    each of ``homes``)."""
    from sidtui.cli import main as cli_main
    from sidtui.core.sources import source_of_home

    print(f"sidtui: {why}: printing the session list instead", file=sys.stderr)
    print(home.root)
    sys.stdout.flush()
    extra = ["--claude-home", str(claude_home)] if claude_home is not None else []
    for h in homes:
        extra += [source_of_home(h).home_flag, str(h.root)]
    if extra and not home.root.exists():  # a Claude Code home alone: list it alone
        return cli_main([*extra, "ls"])
    return cli_main(["--home", str(home.root), *extra, "ls"])


def claude_home_for_app(args: argparse.Namespace):
    """The Claude Code home the app lists beside sid-code's: ``--claude-home``, else ``$CLAUDE_CONFIG_DIR`` or ``~/.claude`` when it exists; None
    when there is none."""
    import os

    from sidtui.core.claude.layout import ClaudeHome

    flag = getattr(args, "claude_home", None)
    home = ClaudeHome.resolve(flag, os.environ)
    if flag is None and not home.exists:
        return None
    return home


def homes_for_app(args: argparse.Namespace) -> list:
    """The homes of the further sources the app lists (every source but sid-code's and
    Claude Code's, which have their own): each one its flag names, else the one at its
    ``$VAR`` or default place when it exists."""
    import os

    from sidtui.core.sources import DEFAULT, SOURCES, ClaudeSource

    out = []
    for cls in SOURCES:
        if cls is DEFAULT or cls is ClaudeSource:
            continue
        flag = getattr(args, cls.home_flag.lstrip("-").replace("-", "_"), None)
        src = cls.resolve_home(flag, os.environ)
        if flag is not None or src.exists():
            out.append(src.home)
    return out


def run_app(args: argparse.Namespace) -> int:
    """Open the Textual app on the resolved home; return its exit code.

    Without a terminal on stdin and stdout (piped, redirected, cron) the app would write
    escape codes nowhere and wait for keys that never come, so the ``ls`` listing is
    printed instead (exit code of ``ls``), with a note on stderr.
    """
    home = home_from_args(args)
    claude = claude_home_for_app(args)
    given = claude.root if claude is not None else None
    homes = homes_for_app(args)
    if not has_terminal():
        why = "the app needs a terminal (stdin/stdout is not one)"
        return listing_instead(home, why, given, homes)
    try:
        from sidtui.tui.app import run as run_tui
    except ImportError:  # app not installed: show the listing instead
        return listing_instead(home, "the app is not available", given, homes)
    return run_tui(home, theme=getattr(args, "theme", None), claude_home=claude, homes=homes)

"""`sidtui` with no subcommand: open the full-screen app on the home."""

from __future__ import annotations

import argparse

from sidtui.cli.common import home_from_args


def run_app(args: argparse.Namespace) -> int:
    """Open the Textual app on the resolved home; return its exit code."""
    home = home_from_args(args)
    try:
        from sidtui.tui.app import run as run_tui
    except ImportError:  # app not built yet: show the listing instead
        from sidtui.cli import ls

        ns = argparse.Namespace(home=str(home.root), project=None, json=False)
        return ls.run(ns)
    return run_tui(home, theme=getattr(args, "theme", None))

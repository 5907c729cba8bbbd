"""`sidtui redo SESSION`: take back the latest undo/restore (FORMAT.md §10.13)."""

from __future__ import annotations

import argparse

from sidtui.cli.checkpoint_args import add_session_args, prepare, report


def register(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "redo",
        parents=parents,
        help="take back the latest sidtui undo/restore",
        description="Revert the latest sidtui-restore snapshot still in effect: files go "
        "back to how they were just before that undo/restore (itself saved first, so "
        "nothing is lost).",
    )
    add_session_args(p, writes=True)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    st, done = prepare(args, "redo")
    if done is not None:
        return done
    res = st.redo(dry_run=args.dry_run, force=args.force)
    return report(args, res, "redo", st)

"""`sidtui undo SESSION [--file PATH] [--dry-run] [--json]` (FORMAT.md §10.13)."""

from __future__ import annotations

import argparse

from sidtui.cli.checkpoint_args import add_session_args, prepare, report


def register(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "undo",
        parents=parents,
        help="put files back to before the agent's latest batch not yet undone",
        description="Undo the agent's latest file-changing batch that is not rolled back "
        "yet (run again to step further back). The current contents are saved first as a "
        "sidtui-restore snapshot, so `sidtui redo` takes it back. --dry-run prints unified "
        "diffs (current → restored) and writes nothing.",
    )
    add_session_args(p, writes=True)
    p.add_argument("--file", metavar="PATH", default=None, help="undo only this file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    st, done = prepare(args, "undo")
    if done is not None:
        return done
    path = st.match_path(args.file) if args.file else None
    res = st.undo(dry_run=args.dry_run, force=args.force, path=path)
    return report(args, res, "undo", st)

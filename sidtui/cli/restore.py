"""`sidtui restore SESSION --before SNAPSHOT [--dry-run] [--json]` (FORMAT.md §10.13)."""

from __future__ import annotations

import argparse

from sidtui.cli.checkpoint_args import add_session_args, prepare, report


def register(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "restore",
        parents=parents,
        help="put every file back to how it was before a checkpoint",
        description="Roll back every file changed in SNAPSHOT and after it to its content "
        "before SNAPSHOT's batch (rollback_from). The current contents are saved first as "
        "a sidtui-restore snapshot (`sidtui redo` takes it back); --dry-run prints unified "
        "diffs and writes nothing.",
    )
    add_session_args(p, writes=True)
    p.add_argument("--before", metavar="SNAPSHOT", required=True, help="snapshot id, e.g. s3")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    st, done = prepare(args, "restore")
    if done is not None:
        return done
    res = st.restore_before(args.before, dry_run=args.dry_run, force=args.force)
    return report(args, res, "restore", st)

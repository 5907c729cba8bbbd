"""`sidtui repair SESSION`: a new session the agent resumes whole; the source is untouched.

The session's source repairs it (:meth:`sidtui.core.sources.base.Source.repair`); a source
without a repair gets ``salvage`` (the same idea: a loadable copy of what is on disk).
"""

from __future__ import annotations

import argparse
from typing import Any

from sidtui.cli.common import finish_verb, print_json, stdout_console


def register(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "repair",
        parents=parents,
        help="write a new session the agent resumes whole (every complete record on disk); "
        "the source is untouched",
        description="Write a new session in the same project folder holding every complete "
        "record of SESSION's conversation, one per line, so that the agent resumes all of it: "
        "for Claude Code, parents never written are bridged, torn and glued lines split and "
        "their complete records kept, replies hidden behind an API-error sibling put back, "
        "file-history backups and subagent files carried over. For a sid-code session this is "
        "`sidtui salvage`. The source file is unchanged.",
    )
    p.add_argument("session", metavar="SESSION")
    finish_verb(p, run, dry_run="show what would be written")


def run(args: argparse.Namespace) -> int:
    from sidtui.cli.target import write_target

    t = write_target(args)
    src = t.source
    if not src.supports("repair"):  # its salvage is the same idea: a loadable copy
        from sidtui.cli import salvage

        return salvage.run(args, t)
    view = t.open()
    res = src.repair(view, dry_run=args.dry_run)
    if args.json:
        print_json(res.to_json())
        return 0
    render(args, res, src.resume_command(res.fork.session_id))
    return 0


def render(args: argparse.Namespace, rr: Any, resume: str | None) -> None:
    """Print a repair: the new session, what it mends, how to resume and read it."""
    from rich.text import Text

    from sidtui.cli.common import followup
    from sidtui.cli.fork import render as render_fork

    res = rr.fork
    render_fork(
        res,
        "repaired into",
        copied=f"{res.blobs_copied} file-history backups, {rr.files_copied} subagent and "
        "tool-result files copied",
        resume=resume,
    )
    c = stdout_console()
    for f in rr.fixes:
        c.print(Text(f"  {f['what']} line {f['line']}: {f['detail']}"))
    for b in rr.lost:
        c.print(Text(f"  lost: line {b['line']} ({b['reason']}): nothing complete in it"))
    if not res.dry_run:
        c.print(Text(f"  read it with: {followup(args, 'show', res.session_id)}", style="dim"))

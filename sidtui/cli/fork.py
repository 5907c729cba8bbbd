"""`sidtui fork SESSION [--at N]`: a new session with the history up to prompt N."""

from __future__ import annotations

import argparse

from sidtui.cli.common import finish_verb, print_json, stdout_console
from sidtui.fmt import messages_said, plural


def register(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "fork",
        parents=parents,
        help="copy a session (up to a prompt) into a new session; the source is untouched",
        description="Write a new session in the same project folder holding SESSION's "
        "history (up to just before prompt N with --at), in the agent's own fork shape. "
        "Checkpoints are inherited. The source file and its checkpoints are unchanged.",
    )
    p.add_argument("session", metavar="SESSION")
    p.add_argument("--at", type=int, metavar="N", help="end just before rewind point N")
    finish_verb(p, run, dry_run="show what would be written")


def run(args: argparse.Namespace) -> int:
    from sidtui.cli.target import opened

    src, view = opened(args)
    res = src.fork(view, args.at, dry_run=args.dry_run)
    if args.json:
        print_json(res.to_json())
        return 0
    render(res, "fork", copied=src.fork_copied(res), resume=src.resume_command(res.session_id))
    return 0


def render(res, verb: str, *, copied: str | None = None, resume: str | None = None) -> None:
    """Print a fork's result (every source's has the same attributes).

    Args:
        res: the fork (or salvage) result.
        verb: what was done (``fork``, ``salvaged``, ``forked the branch into``).
        copied: what else was copied, in words (default: the checkpoint snapshots
            inherited).
        resume: the command that resumes the new session, printed when given.
    """
    from rich.text import Text

    c = stdout_console()
    warnings = res.warnings
    if res.dry_run and res.resumed:  # a real run only finishes an interrupted copy
        c.print(Text(f"dry run: {warnings[0]}", style="bold"))
        warnings = warnings[1:]
    elif res.dry_run:
        c.print(
            Text(
                f"would write {messages_said(res)} "
                f"in {plural(res.records_copied, 'record')} "
                f"from {res.source_session_id} into a new session (dry run: nothing written)"
            )
        )
    else:
        if copied is None:
            copied = f"{plural(res.checkpoints_inherited, 'checkpoint snapshot')} inherited"
        c.print(Text(f"{verb}: {res.session_id}", style="bold"))
        c.print(Text(f"  {res.path}"))
        c.print(
            Text(
                f"  {messages_said(res)}, "
                f"{plural(res.records_copied, 'record')} copied from "
                f"{res.source_session_id}; {copied}"
            )
        )
        if resume is not None:
            c.print(Text(f"  resume it with: {resume}"))
    for w in warnings:
        c.print(Text(f"warning: {w}", style="yellow"))

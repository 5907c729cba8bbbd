"""`sidtui rename SESSION TITLE`: name a session as the agent's own rename does (append-only)."""

from __future__ import annotations

import argparse

from sidtui.cli.common import finish_verb, print_json, stdout_console


def register(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "rename",
        parents=parents,
        help="give a session a title, as the agent's own /rename does",
        description="Append the record the agent itself writes when a session is renamed "
        "(sid-code: a session_name metadata record on the chain; Claude Code: custom-title "
        "and agent-name records, so `claude --resume TITLE` finds it). Nothing already in "
        "the file changes and the conversation a resume loads stays the same. A session a "
        "running agent is writing is refused unless --force.",
    )
    p.add_argument("session", metavar="SESSION")
    p.add_argument("title", metavar="TITLE", help="the new title (one line)")
    finish_verb(p, run, force="rename even while the agent runs")


def run(args: argparse.Namespace) -> int:
    from rich.text import Text

    from sidtui.cli.common import read_session

    src, ref = read_session(args)
    res = src.rename(ref, args.title, force=args.force)
    if args.json:
        print_json(res.to_json())
        return 0
    c = stdout_console()
    if not res.records:
        c.print(Text(f"{res.session_id} is already titled “{res.title}”; nothing was written"))
        return 0
    was = f" (was “{res.previous}”)" if res.previous else ""
    c.print(Text(f"renamed {res.session_id} to “{res.title}”{was}"))
    c.print(Text(f"  appended {res.records} record{'s' if res.records != 1 else ''} to {res.file}"))
    return 0

"""`sidtui salvage SESSION`: a loadable copy of a session the agent cannot load or resume."""

from __future__ import annotations

import argparse

from sidtui.cli.common import finish_verb, print_json, stdout_console


def register(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "salvage",
        parents=parents,
        help="rescue a session the agent cannot load into a new, resumable session",
        description="For a file whose chain never reaches session_start (a torn line glued "
        "to the next record, a lost parent, a cycle), write a new session from the longest "
        "readable history, with fresh uuids and a forked_from record naming what was left "
        "out; for one the agent loads but cannot resume (a message its resume pipeline "
        "throws on), a copy with those messages repaired or left out. The source stays "
        "untouched.",
    )
    p.add_argument("session", metavar="SESSION")
    finish_verb(p, run, dry_run="show what would be written")


def run(args: argparse.Namespace, target=None) -> int:
    from rich.text import Text

    from sidtui.cli.fork import render
    from sidtui.cli.target import write_target
    from sidtui.core.base.errors import UsageError

    t = target if target is not None else write_target(args)
    if not t.source.supports("salvage"):  # never a file of one agent written into another's home
        raise UsageError(t.source.unsupported("salvage", args.session))
    view = t.open()
    res = t.source.salvage(view, dry_run=args.dry_run)
    if args.json:
        print_json(res.to_json())
        return 0
    render(res, "salvaged")
    c = stdout_console()
    lo = res.left_out
    for b in lo.get("bad_lines", []):
        c.print(Text(f"  left out: line {b['line']} ({b['reason']})"))
    if lo.get("records_not_copied"):
        c.print(f"  left out: {lo['records_not_copied']} records off the salvaged chain")
    for j in lo.get("joins", []):
        c.print(Text(f"  joined line {j['line']} after line {j['after_line']}: {j['reason']}"))
    for r in res.repairs:
        c.print(Text(f"  repaired line {r['line']}: {r['what']}"))
    return 0

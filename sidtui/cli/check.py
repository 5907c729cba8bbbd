"""`sidtui check`: count what is on disk (FORMAT.md §13) as one command.

Exit codes: 0 nothing wrong, 1 a structural fault (a main file without exactly one
``session_start``, a chained file without exactly one head, an unreadable file or index, a
checkpoint entry that cannot be rebuilt), 2 bad arguments. Progress goes to stderr, and only
when stderr is a terminal; stdout carries the report (``--json``: one JSON object).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from sidtui.cli.common import (
    home_from_args,
    print_json,
    require_project,
    session_home,
    stdout_console,
)
from sidtui.fmt import pct


def register(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "check",
        parents=parents,
        help="count what is on disk and report structural faults (FORMAT.md §13)",
        description="Count sessions, records, metadata keys, bad lines, fields that never "
        "landed, checkpoints; report structural faults. Exit 0 nothing wrong, 1 a "
        "structural fault, 2 bad arguments.",
    )
    p.add_argument("--project", metavar="KEY", help="only this project folder under sessions/")
    p.add_argument("--session", metavar="S", help="only this session (id, id prefix or path)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


class _Progress:
    """``checking 1234/10000 files`` on stderr, redrawn at most ~10 times a second."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.last = 0.0
        self.drawn = False

    def __call__(self, done: int, total: int, path: str) -> None:
        now = time.monotonic()
        if done != total and now - self.last < 0.1:
            return
        self.last = now
        self.stream.write(f"\rsidtui check: {done}/{total} files")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def run(args: argparse.Namespace) -> int:
    from sidtui.core.base.errors import UsageError
    from sidtui.core.base.home import resolve_session
    from sidtui.core.views.check import run_check

    home = session_home(args) if args.session is not None else home_from_args(args).require()
    require_project(home, args.project)
    session = None
    if args.session is not None:
        session = resolve_session(home, args.session)
        if args.project is not None and session.project != args.project:
            raise UsageError(f"session {args.session!r} is not in project {args.project!r}")
    progress = _Progress(sys.stderr) if sys.stderr.isatty() else None
    try:
        workers = min(4, os.cpu_count() or 1)  # the CLI has no threads: forking is safe
        report = run_check(
            home, project=args.project, session=session, progress=progress, workers=workers
        )
    finally:
        if progress is not None:
            progress.close()
    if args.json:
        print_json(report.to_json())
    else:
        _print(report)
    return report.exit_code


def _print(report) -> None:
    from rich.markup import escape as esc
    from rich.table import Table
    from rich.text import Text

    c = stdout_console()
    j = report.to_json()
    files, lines = j["files"], j["lines"]
    scope = report.scope["session"] or (
        f"project {report.scope['project']}"
        if report.scope["project"] is not None
        else "all projects"
    )
    c.print(f"[bold]sidtui check[/] {esc(str(report.home))} ({esc(scope)})")
    c.print(
        f"files         {files['main']} main JSONL ({files['main_linear']} linear v2), "
        f"{files['sidechain']} sidechain, {files['v1_json']} v1 JSON"
    )
    c.print(
        f"lines         {lines['non_blank']} non-blank, {lines['blank']} blank, "
        f"{lines['bad']} bad (JSON.parse rejects); a strict parser (jq/orjson) would also "
        f"reject {lines['strict_only']} more"
    )
    ok = j["session_start"] == files["main"] and not any(
        f["kind"].startswith("session_start") for f in j["faults"]
    )
    c.print(
        f"session_start {j['session_start']} records in {files['main']} main files "
        + ("[green]✓ one each[/]" if ok else "[red]✗ see faults[/]")
    )
    c.print(
        f"heads         {j['heads']['null_parent']} null parent, {j['heads']['forked']} forked "
        f"start; records without uuid: {j['records_without_uuid']}"
    )
    p = j["prompts"]
    c.print(
        f"user records  {p['human']} human prompts, {p['tool_result_records']} tool-result "
        f"records ({p['tool_result_blocks']} tool_result blocks, at most "
        f"{p['max_tool_results_per_record']} in one)"
    )
    s = j["sizes"]
    c.print(
        f"sizes         n={s['n']} min={s['min']} p50={s['p50']} p95={s['p95']} max={s['max']} "
        "bytes"
    )
    e = j["session_end"]
    c.print(
        f"session_end   {e['files_with']}/{e['files']} files ({pct(e['share'])}); last record "
        f"in {esc(str(e['last_record']))}"
    )
    t = Table(title="record types", title_justify="left")
    t.add_column("type")
    t.add_column("count", justify="right")
    for k, v in j["record_types"].items():
        t.add_row(Text(str(k)), str(v))
    m = Table(title="metadata keys", title_justify="left")
    m.add_column("key")
    m.add_column("count", justify="right")
    for k, v in j["metadata_keys"].items():
        m.add_row(Text(str(k)), str(v))
    from rich.columns import Columns

    c.print(Columns([t, m]))
    if j["zero_landing"]:
        z = Table(
            title="fields that landed zero times — dead code / not triggered / broken wiring? "
            "Only the call chain tells (FORMAT.md §13.3)",
            title_justify="left",
        )
        z.add_column("field")
        z.add_column("landed", justify="right")
        z.add_column("seed's finding for sid-code", overflow="fold")
        for f in j["zero_landing"]:
            z.add_row(f["field"], f"0 of {f['out_of']} {f['of']}", f["seed_note"] or "")
        c.print(z)
    ck = j["checkpoints"]
    c.print(
        f"checkpoints   {ck['indexes']} indexes ({ck['bytes'] / 1048576:.1f} MB), "
        f"{ck['snapshots']} snapshots, largest {ck['largest']['snapshots']} "
        f"({esc(ck['largest']['session'] or '—')}); full={ck['full']} (compressed "
        f"{ck['compressed']}) diff={ck['diff']} diff share={pct(ck['diff_share'])}; "
        f"unrecoverable entries: {ck['unrecoverable']}"
    )
    cov = j["coverage"]
    ss, ii = cov["sessions"], cov["indexes"]
    c.print(
        f"sessions      {ss['count']}: {ss['with_index']} with a checkpoint index, {ss['without_index']} without"
    )
    for reason, n in ss["reasons"].items():
        c.print(f"                {n} × {esc(reason)}")
    c.print(
        f"indexes       {ii['count']}: {ii['with_session']} with a session file, {ii['without_session']} without"
    )
    for reason, n in ii["reasons"].items():
        c.print(f"                {n} × {esc(reason)}")
    if not ii["complete"]:
        c.print("                (indexes without a session are only counted for the whole home)")
    for b in j["bad_lines"]:
        c.print(
            f"[yellow]bad line[/] {esc(b['file'])}:{b['line']} (byte {b['offset']}): {esc(b['reason'])}"
        )
    for b in j["strict_parser_only"]:
        c.print(
            f"[dim]strict-only[/] {esc(b['file'])}:{b['line']} (byte {b['offset']}): not bad — "
            f"{esc(b['reason'])}"
        )
    for w in j["warnings"]:
        if w["kind"] != "bad_lines":
            c.print(f"[yellow]warning[/] {w['kind']}: {esc(w['file'])}: {esc(w['detail'])}")
    if j["faults"]:
        c.print(f"[bold red]{len(j['faults'])} structural fault(s)[/]")
        for f in j["faults"]:
            c.print(f"[red]fault[/] {f['kind']}: {esc(f['file'])}: {esc(f['detail'])}")
    else:
        c.print("[green]no structural faults[/]")

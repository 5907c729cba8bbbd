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
    has_project_folder,
    no_project_in_any,
    print_json,
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
    from sidtui.cli.common import read_session, sources_from_args

    if args.session is not None:
        source, ref = read_session(args)
        pairs = [(source, ref)]
    else:
        sources, _named = sources_from_args(args)
        pairs = [(s, None) for s in sources]
        if len(sources) > 1 and args.project is not None:
            # as ls and search: --project names a folder of one home; the others are skipped
            pairs = [(s, None) for s in sources if has_project_folder(s.require(), args.project)]
            if not pairs:
                no_project_in_any(sources, args.project)
    reports = []
    names: list[str] = []  # per report: its source's name
    pending: list[list] = []  # per report: the journals killed sidtui writes left
    for source, ref in pairs:
        if source.name == "sid-code":
            rep = _sid_code(args, source, ref)
        else:
            rep = _claude(args, source, ref, len(pairs) > 1)
        if rep is not None:
            reports.append(rep)
            names.append(source.name)
            pending.append(_pending(source, ref, args.project))
    code = max((r.exit_code for r in reports), default=0)
    args.exit_code = code  # kept when stdout is closed early (`| head -1`)
    if args.json:
        docs = [_with_pending(r.to_json(), p) for r, p in zip(reports, pending, strict=True)]
        if len(reports) == 1:
            print_json(docs[0])
        else:  # several homes: one object per source
            print_json(dict(zip(names, docs, strict=True)))
    else:
        from rich.text import Text

        for r, name, p in zip(reports, names, pending, strict=True):
            PRINTERS.get(name, _print_counts)(r)
            c = stdout_console()
            for x in p:  # not a fault of the transcripts: the exit code stays
                c.print(Text(f"pending       {x.describe()}", style="yellow"))
    return code


def _pending(source, ref, project: str | None) -> list:
    """The pending journals of the check's scope: the session, the project's sessions (a
    fork's: its source's), or the whole home."""
    if ref is not None:
        return source.pending_journals([ref.session_id])
    found = source.pending_journals()
    if project is None or not found:
        return found
    folder = source.home.sessions_dir if source.name == "sid-code" else source.home.projects_dir
    folder = folder / project
    return [
        p
        for p in found
        if any((folder / f"{p.session}{ext}").exists() for ext in (".jsonl", ".json"))
    ]


def _with_pending(doc: dict, pending: list) -> dict:
    """``doc`` with ``pending_journals`` when there are some (else unchanged)."""
    if pending:
        doc["pending_journals"] = [p.to_json() for p in pending]
    return doc


def _print_counts(report) -> None:
    """The human output of a source's counts that has no printer of its own: each count
    of its ``--json`` object on a line (nested counts joined), then its faults."""
    from rich.markup import escape as esc

    c = stdout_console()
    j = report.to_json()
    c.print(
        f"[bold]sidtui check[/] {esc(str(getattr(report, 'home', '')))} ({esc(str(j.get('source', '')))})"
    )
    faults = j.get("faults") or []
    for k, v in j.items():
        if k in ("source", "faults", "exit_code"):
            continue
        if isinstance(v, dict):
            v = ", ".join(f"{a} {b}" for a, b in v.items()) or "—"
        elif isinstance(v, list):
            v = len(v)
        c.print(f"{k.replace('_', ' '):<17} {esc(str(v))}")
    if faults:
        c.print(f"[bold red]{len(faults)} structural fault(s)[/]")
        for x in faults:
            c.print(f"[red]fault[/] {esc(str(x))}")
    else:
        c.print("[green]no structural faults[/]")


def _sid_code(args: argparse.Namespace, source, session):
    from sidtui.core.base.discover import require_project
    from sidtui.core.base.errors import UsageError
    from sidtui.core.views.check import run_check

    home = source.home if session is not None else source.home.require()
    require_project(home, args.project)
    if session is not None and args.project is not None and session.project != args.project:
        raise UsageError(f"session {args.session!r} is not in project {args.project!r}")
    progress = _Progress(sys.stderr) if sys.stderr.isatty() else None
    try:
        workers = min(4, os.cpu_count() or 1)  # the CLI has no threads: forking is safe
        return run_check(
            home, project=args.project, session=session, progress=progress, workers=workers
        )
    finally:
        if progress is not None:
            progress.close()


def _claude(args: argparse.Namespace, source, session, several: bool):
    """A Claude Code home's counts (None: ``--project`` names a folder of the other home)."""
    from sidtui.core.base.errors import UsageError

    source.require()
    if args.project is not None and not has_project_folder(source, args.project):
        if several:
            return None
        raise UsageError(f"no project folder {args.project!r} under {source.projects_dir}")
    if session is not None and args.project is not None and session.project != args.project:
        raise UsageError(f"session {args.session!r} is not in project {args.project!r}")
    progress = _Progress(sys.stderr) if sys.stderr.isatty() else None
    try:
        return source.check(project=args.project, session=session, progress=progress)
    finally:
        if progress is not None:
            progress.close()


def _print_claude(report) -> None:
    """The human output of a Claude Code home's counts."""
    from rich.markup import escape as esc
    from rich.table import Table
    from rich.text import Text

    c = stdout_console()
    j = report.to_json()
    f = j["files"]
    c.print(f"[bold]sidtui check[/] {esc(j['home'])} (Claude Code, {esc(j['scope'])})")
    c.print(
        f"files         {f['main']} sessions, {f['sidechain']} subagent transcripts; "
        f"{f['zero_bytes']} zero-byte, {f['without_messages']} sessions without messages"
    )
    c.print(
        f"records       {j['records']} (recovered from damaged lines: {j['recovered_records']})"
    )
    leaves = ", ".join(f"{n} file(s) with {k}" for k, n in j["leaves_per_file"].items())
    c.print(f"leaves        {leaves or '—'}")
    b = j["branches"]
    c.print(
        f"branches      {b['branches']} branches resume will not show ({b['rewinds']} rewinds) in "
        f"{b['files_with_branches']} files; {b['parallel_tool_leaves']} parallel-tool side leaves "
        "(part of their conversation)"
    )
    d = j["dangling_parents"]
    c.print(
        f"dangling      {d['records']} records name a parent not in their file ({d['files']} files; "
        "normal: joined to the nearest earlier record)"
    )
    c.print(f"duplicates    {j['duplicate_uuids']} repeated uuids; compactions {j['compactions']}")
    c.print("interruption  " + ", ".join(f"{k} {v}" for k, v in j["interruption"].items()))
    c.print("subagents     " + (", ".join(f"{k} {v}" for k, v in j["subagents"].items()) or "—"))
    p = j["processes"]
    c.print(
        f"processes     {p['registered']} registered ({p['live']} live, {p['stale']} stale); "
        f"{p['legacy_ignored']} legacy pid-*.json ignored"
    )
    bk = j["backups"]
    c.print(
        "backups       "
        + (
            ", ".join(f"{k} {v}" for k, v in bk.items() if k != "checked")
            if bk.get("checked")
            else "not checked"
        )
    )
    t = Table(title="record types", title_justify="left")
    t.add_column("type")
    t.add_column("count", justify="right")
    for k, v in j["record_types"].items():
        t.add_row(Text(str(k)), str(v))
    u = Table(title="user records", title_justify="left")
    u.add_column("kind")
    u.add_column("count", justify="right")
    for k, v in j["user_records"].items():
        u.add_row(Text(str(k)), str(v))
    from rich.columns import Columns

    c.print(Columns([t, u]))
    if j["unknown_types"]:
        c.print(
            "[yellow]unknown record types[/] (kept as opaque records): "
            + esc(", ".join(j["unknown_types"]))
        )
    for x in j["damaged_lines"]:
        c.print(
            f"[yellow]damaged line[/] {esc(x['file'])}:{x['line']} (byte {x['offset']}): "
            f"{esc(x['reason'])}; {x['recovered']} recovered, {x['lost_bytes']} bytes lost"
        )
    if j["faults"]:
        c.print(f"[bold red]{len(j['faults'])} structural fault(s)[/]")
        for x in j["faults"]:
            c.print(f"[red]fault[/] {x['kind']}: {esc(x['file'])}: {esc(x['detail'])}")
    else:
        c.print("[green]no structural faults[/]")


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
        z.add_column("known in sid-code's code", overflow="fold")
        for f in j["zero_landing"]:
            z.add_row(f["field"], f"0 of {f['out_of']} {f['of']}", f["known_cause"] or "")
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


#: The human output of each source's counts (any other: :func:`_print_counts`).
PRINTERS = {"sid-code": _print, "claude-code": _print_claude}

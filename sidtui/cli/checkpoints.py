"""`sidtui checkpoints SESSION [--json]` and `--show PATH@SNAPSHOT` (FORMAT.md §10)."""

from __future__ import annotations

import argparse
import sys

from sidtui.cli.checkpoint_args import add_session_args, fmt_time, manager, match_path


def register(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "checkpoints",
        parents=parents,
        help="a session's file checkpoints and the health of each file's chain",
        description="List a session's file checkpoints (snapshots taken before each tool "
        "batch): id, time, tools, summary, files with type/compression/size, and each "
        "file's chain (full·gz → diff → diff) with whether every entry rebuilds. "
        "--show PATH@SNAPSHOT prints that file's stored pre-image: raw and whole to a pipe "
        "or a file; to a terminal with control characters shown as \\xNN, lines cut at "
        "1,000 characters, and nothing above the preview limit (SIDTUI_MAX_DIFF_BYTES, "
        "8 MiB / SIDTUI_MAX_DIFF_LINES, 200,000 lines) unless --full.",
    )
    add_session_args(p, writes=False)
    p.add_argument(
        "--show",
        metavar="PATH@SNAPSHOT",
        default=None,
        help="print the content PATH had before batch SNAPSHOT (exit 1 when unrecoverable)",
    )
    p.add_argument(
        "--full",
        action="store_true",
        help="with --show on a terminal: print it whole (no line cut, no size limit)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from sidtui.cli.claude_dispatch import claude_target

    target = claude_target(args)
    if target is not None:
        from sidtui.cli import claude_verbs

        return claude_verbs.checkpoints(args, target)
    mgr = manager(args)
    from sidtui.cli.common import warn_pending
    from sidtui.core.checkpoints.journal import pending_journals

    # a killed sidtui undo/restore of this session: its files may be half restored
    pending = warn_pending(pending_journals(mgr.index_path.parent.parent, [mgr.session_id]))
    if args.show:
        return _show(mgr, args.show, args.full)
    if args.json:
        from sidtui.cli.common import print_json

        doc = to_json(mgr)
        if pending:
            doc["pendingJournal"] = pending[0].to_json()
        print_json(doc)
        return 0
    render(mgr)
    return 0


def _show(mgr, spec: str, full: bool = False) -> int:
    from sidtui.core.base.errors import UsageError

    path, sep, sid = spec.rpartition("@")
    if not sep or not path or not sid:
        raise UsageError("--show takes PATH@SNAPSHOT, e.g. src/login.ts@s3")
    r = mgr.rebuild_at(match_path(mgr, path), sid)
    if not r.recoverable:
        what = "unknown" if r.uncertain else "unrecoverable"
        print(f"sidtui: {what}: {r.file_path} at {r.snapshot_id}: {r.reason}", file=sys.stderr)
        return 1
    if not r.exists:
        print(f"sidtui: {r.file_path} did not exist before {r.snapshot_id}", file=sys.stderr)
        return 1
    from sidtui.cli.common import write_stored

    content = r.content if r.content is not None else b""
    return write_stored(content, f"{r.file_path} at {r.snapshot_id}", full=full)


def to_json(mgr) -> dict:
    """The machine-readable listing (snapshots + chain health)."""
    health = {c.file_path: c for c in mgr.chain_health()}
    rebuilds = {(link.snapshot_id, c.file_path): link for c in health.values() for link in c.links}
    snaps = []
    for s in mgr.list_snapshots():
        files = []
        for e in s.files:
            link = rebuilds.get((s.id, e.get("filePath")))
            files.append(
                {
                    "filePath": e.get("filePath"),
                    "type": e.get("type"),
                    "existedBefore": e.get("existedBefore") is not False,
                    "compressed": bool(e.get("compressed")),
                    "binary": bool(e.get("binary")),
                    "storedChars": link.stored_chars if link else None,
                    "rebuilds": link.rebuilds if link else None,
                    "reason": link.reason if link else None,
                }
            )
        snaps.append(
            {
                "id": s.id,
                "timestamp": s.timestamp,
                "toolName": s.tool_name,
                "toolSummary": s.tool_summary,
                "reverts": list(s.reverts),
                "reverted": s.reverted,
                "files": files,
            }
        )
    idx = mgr.index
    return {
        "sessionId": idx.session_id,
        "index": str(mgr.index_path),
        "legacyMigrated": idx.migrated,
        "nextId": idx.data.get("nextId"),
        "projectRoot": str(mgr.project_root) if mgr.project_root else None,
        "snapshots": snaps,
        "files": [c.to_json() for c in health.values()],
    }


def render(mgr) -> None:
    from rich.table import Table
    from rich.text import Text

    from sidtui.cli.common import stdout_console
    from sidtui.fmt import project_relative

    c = stdout_console()
    doc = to_json(mgr)
    root = doc["projectRoot"]

    def short(p: str | None) -> str:
        if not isinstance(p, str):
            return "(entry without filePath)"
        return project_relative(p, root)

    t = Table(title=f"checkpoints of {doc['sessionId']}", title_justify="left", show_lines=False)
    t.add_column("id", style="bold")
    t.add_column("time")
    t.add_column("tools")
    t.add_column("files")
    for s in doc["snapshots"]:
        parts = []
        for f in s["files"]:
            kind = f["type"] if f["existedBefore"] else "absent"
            if f["compressed"]:
                kind += "·gz"
            bad = "" if f["rebuilds"] in (True, None) else " ✗"
            parts.append(f"{short(f['filePath'])} ({kind}, {f['storedChars']}){bad}")
        tools = s["toolName"]
        if s["reverts"]:
            tools += f" ↶ {', '.join(s['reverts'][:4])}"
        sid = Text(s["id"], style="dim strike" if s["reverted"] else "bold")
        t.add_row(sid, fmt_time(s["timestamp"]), Text(tools), Text("\n".join(parts)))
    c.print(t)
    c.print(Text("chains", style="bold"))
    for f in doc["files"]:
        style = "green" if f["healthy"] else "red"
        c.print(Text(f"  {short(f['filePath'])}: ", style="bold"), Text(f["drawing"], style=style))
        for e in f["entries"]:
            if not e["rebuilds"]:
                c.print(Text(f"      {e['reason']}", style="red"))
    if doc["legacyMigrated"]:
        c.print(Text("(legacy index format, read through the migration)", style="dim"))

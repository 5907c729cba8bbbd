"""`sidtui checkpoints SESSION [--json]` and `--show PATH@SNAPSHOT` (FORMAT.md §10)."""

from __future__ import annotations

import argparse
import sys

from sidtui.cli.checkpoint_args import add_session_args, fmt_time, store


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
    from sidtui.cli.common import warn_pending
    from sidtui.cli.target import write_target
    from sidtui.core.sources.writes import PROMPT

    t = write_target(args)
    st = store(args, target=t)
    # a killed sidtui undo/restore of this session: its files may be half restored
    pending = warn_pending(st.pending())
    if args.show:
        return _show(st, args.show, args.full)
    doc = {**st.listing()}
    if args.json:
        from sidtui.cli.common import print_json

        if pending:
            doc["pending_journal"] = pending[0].to_json()
        print_json(doc)
        return 0
    if t.source.checkpoint_unit == PROMPT:
        render_prompt_checkpoints(doc)
    else:
        render(doc)
    return 0


def _show(st, spec: str, full: bool = False) -> int:
    shown = st.show(spec)
    if shown.error is not None:
        print(f"sidtui: {shown.error}", file=sys.stderr)
        return 1
    from sidtui.cli.common import write_stored

    return write_stored(shown.content, shown.what, full=full)


def render(doc: dict) -> None:
    """The listing of a store whose checkpoints are snapshots before each tool batch:
    each with its tools, the batches it reverts, and each file's stored type and size."""
    from rich.table import Table
    from rich.text import Text

    from sidtui.cli.common import stdout_console
    from sidtui.fmt import project_relative

    c = stdout_console()
    root = doc["project_root"]

    def short(p: str | None) -> str:
        if not isinstance(p, str):
            return "(entry without filePath)"
        return project_relative(p, root)

    t = Table(title=f"checkpoints of {doc['session_id']}", title_justify="left", show_lines=False)
    t.add_column("id", style="bold")
    t.add_column("time")
    t.add_column("tools")
    t.add_column("files")
    for s in doc["snapshots"]:
        parts = []
        for f in s["files"]:
            kind = f["type"] if f["existed_before"] else "absent"
            if f["compressed"]:
                kind += "·gz"
            bad = "" if f["rebuilds"] in (True, None) else " ✗"
            parts.append(f"{short(f['file_path'])} ({kind}, {f['stored_chars']}){bad}")
        tools = s["tool_name"]
        if s["reverts"]:
            tools += f" ↶ {', '.join(s['reverts'][:4])}"
        sid = Text(s["id"], style="dim strike" if s["reverted"] else "bold")
        t.add_row(sid, fmt_time(s["timestamp"]), Text(tools), Text("\n".join(parts)))
    c.print(t)
    render_chains(c, doc, short)
    if doc["legacy_migrated"]:
        c.print(Text("(legacy index format, read through the migration)", style="dim"))


def render_chains(c, doc: dict, short) -> None:
    """Each file's chain (its drawing, green when every entry rebuilds) and each entry
    that does not, with why."""
    from rich.text import Text

    c.print(Text("chains", style="bold"))
    for f in doc["files"]:
        style = "green" if f["healthy"] else "red"
        c.print(Text(f"  {short(f['file_path'])}: ", style="bold"), Text(f["drawing"], style=style))
        for e in f["entries"]:
            if not e["rebuilds"]:
                c.print(Text(f"      {e['reason']}", style="red"))


def render_prompt_checkpoints(doc: dict) -> None:
    """The listing of a store whose checkpoints are the files before each typed prompt:
    each with its rewind point and the version of each file (``✗``: its backup does not
    rebuild)."""
    from rich.table import Table
    from rich.text import Text

    from sidtui.cli.common import stdout_console
    from sidtui.fmt import local_time

    c = stdout_console()
    root = doc["project_root"]

    def short(p: str) -> str:
        if root and p.startswith(root.rstrip("/") + "/"):
            return p[len(root.rstrip("/")) + 1 :]
        return p

    t = Table(title=f"checkpoints of {doc['session_id']}", title_justify="left")
    for col in ("id", "time", "prompt", "files"):
        t.add_column(col, style="bold" if col == "id" else None)
    for s in doc["snapshots"]:
        parts = []
        for f in s["files"]:
            kind = "absent" if not f["existed_before"] else f"v{f['version']}"
            bad = "" if f["rebuilds"] else " ✗"
            parts.append(f"{short(f['abs_path'] or f['file_path'])} ({kind}){bad}")
        prompt = f"#{s['point']}" if s["point"] else ("—" if s["prompt_in_file"] else "(not here)")
        extra = []
        if s["updates"]:
            extra.append(f"{s['updates']} update{'s' * (s['updates'] != 1)}")
        if s["deltas"]:
            extra.append(f"{s['deltas']} delta{'s' * (s['deltas'] != 1)}")
        if extra:
            prompt += f" ({', '.join(extra)})"
        t.add_row(
            s["id"],
            local_time(s["timestamp"], seconds=True) or "—",
            Text(prompt),
            Text("\n".join(parts) or "(no files)"),
        )
    c.print(t)
    render_chains(c, doc, short)
    if not doc["folder_exists"] and doc["snapshots"]:
        c.print(
            Text(f"(no blob folder {doc['index']}: every backup is unrecoverable)", style="dim")
        )

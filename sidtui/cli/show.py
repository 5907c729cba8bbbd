"""`sidtui show SESSION`: one session exactly as the agent will resume it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sidtui.cli.common import session_home, stdout_console

#: Resumed messages ``show`` lists by default (the tail a resume continues from).
DEFAULT_MESSAGES = 50
#: Bad lines and drops listed before "… N more".
MAX_LISTED = 50

def register(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "show",
        parents=parents,
        help="one session as the agent will see it on resume",
        description="Show one session as the agent will resume it: the chain and skipped "
        "branches, what recovery cleaning drops and why, the interruption state and the "
        "restored state. SESSION is a full id, a unique id prefix, a path, or `latest` (the latest session of the current project).",
    )
    p.add_argument("session", metavar="SESSION")
    p.add_argument("--json", action="store_true", help="print the machine-readable object")
    p.add_argument(
        "--messages",
        metavar="N",
        default=str(DEFAULT_MESSAGES),
        help=f"how many of the last resumed messages to list, or 'all' (default {DEFAULT_MESSAGES}; "
        "--json always has every message)",
    )
    p.add_argument(
        "--terminal-tools",
        metavar="NAMES",
        default=None,
        help="comma-separated TERMINAL_TOOL_NAMES (default: none, as in sid-code)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from sidtui.core.home import resolve_session
    from sidtui.core.recovery import TERMINAL_TOOL_NAMES
    from sidtui.core.session import open_session

    if args.messages == "all":
        max_messages = None
    elif args.messages.isdigit():
        max_messages = int(args.messages)
    else:
        print(f"sidtui: error: --messages takes a number or 'all', not {args.messages!r}",
              file=sys.stderr)
        return 2
    home = session_home(args)
    sf = resolve_session(home, args.session)
    terminal = (
        frozenset(t.strip() for t in args.terminal_tools.split(",") if t.strip())
        if args.terminal_tools is not None
        else TERMINAL_TOOL_NAMES
    )
    view = open_session(home, sf, current_cwd=Path.cwd(), terminal_tool_names=terminal)
    args.keep = view  # read-only: the process exit frees it (sidtui.cli.entry)
    if args.json:
        from sidtui.core.session import session_to_json, write_json_stream

        write_json_stream(session_to_json(view, lazy=True), sys.stdout.buffer)
        sys.stdout.flush()
        return 0
    render(view, max_messages)
    return 0


def render(view, max_messages: int | None = DEFAULT_MESSAGES) -> None:
    """Human output of a session view (Rich).

    Args:
        view: the :class:`sidtui.core.session.SessionView`.
        max_messages: how many of the last resumed messages to list (None: all). A long
            session's tail is what a resume continues from; listing 100k rows would take
            minutes (``--json`` has every message).

    Text that comes from the session (previews, paths, reasons, values) is printed as
    text, never read as Rich markup.
    """
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    from sidtui.core.session import session_to_json
    from sidtui.core.show_rows import resumed_rows

    c = stdout_console()
    j = session_to_json(view, lazy=True)
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column()
    head.add_row("session", Text(j["session_id"] or ""))
    head.add_row("path", Text(j["path"]))
    head.add_row("format", Text(f"{j['format_version']}  ({j['kind']})"))
    head.add_row("model", Text(f"{j['model'] or '—'}  {j['provider'] or ''}"))
    head.add_row("cwd", Text(j["cwd"] or "—"))
    if j["loadable"]:
        kind = j["interruption"]["kind"]
        tools = j["interruption"]["tool_names"]
        colour = {"none": "green", "interrupted_prompt": "yellow"}.get(kind, "red")
        label = {
            "none": "clean: the agent continues with a resume note",
            "interrupted_prompt": "interrupted prompt: the last prompt is re-sent to the agent",
            "interrupted_turn": "interrupted turn: tools ran but were never answered ("
            + ", ".join(tools) + ")",
        }.get(kind, kind)
        head.add_row("on resume", Text(label, style=colour))
    else:
        head.add_row("on resume", Text(f"the agent sees NOTHING: {j['load_failure']}", style="bold red"))
    live = "live (a running process writes it)" if j["live"] else "stale registration" if j["stale"] else "not running"
    head.add_row("process", live)
    c.print(Panel(head, title="sidtui show", title_align="left"))

    br = j["branches"]
    n_records = view.rf.count if view.rf is not None else 0
    n_chain = len(view.chain.chain) if view.chain is not None else 0
    chain_t = Table.grid(padding=(0, 2))
    chain_t.add_column(style="bold")
    chain_t.add_column()
    chain_t.add_row("records", f"{n_records} good lines, {len(j['bad_lines'])} bad, chain {n_chain}" + (" (linear legacy parse)" if j["chain"]["linear"] else ""))
    if not j["chain"]["linear"]:
        chain_t.add_row("heads", ", ".join(f"line {h['line']}" for h in br["heads"]) or "—")
        if br["forked_heads"]:
            chain_t.add_row("forked from", Text(", ".join(h["source"] for h in br["forked_heads"])))
        tips = [
            f"line {t['line']} (live)" if t["live"] else f"line {t['line']} ({t['skipped']} skipped)"
            for t in br["tips"]
        ]
        chain_t.add_row("tips", ", ".join(tips))
        chain_t.add_row("skipped", str(br["skipped_records"]))
        if j["cycle"]:
            chain_t.add_row("cycle", Text("yes: the chain was truncated", style="red"))
    for b in j["bad_lines"][:MAX_LISTED]:
        chain_t.add_row(f"bad line {b['line']}", Text(f"byte {b['offset']}: {b['reason']}"))
    if len(j["bad_lines"]) > MAX_LISTED:
        chain_t.add_row("", Text(f"… {len(j['bad_lines']) - MAX_LISTED} more bad lines (--json lists all)", style="dim"))
    c.print(Panel(chain_t, title="chain", title_align="left"))

    if j["loadable"] and view.recovery is not None:
        cms = view.recovery.messages
        total = len(cms)
        shown = cms if max_messages is None or total <= max_messages else cms[total - max_messages :]
        rows = [row for chunk in resumed_rows(shown) for row in chunk]
        title = "what the agent sends on resume"
        if len(rows) < total:
            title += f" (the last {len(rows)} of {total:,} messages; --messages all lists every one)"
        t = Table(title=title, title_justify="left")
        for col in ("#", "line", "role", "blocks", "preview"):
            t.add_column(col, overflow="ellipsis", no_wrap=col != "preview")
        msgs = view.loaded.messages
        for r in rows:
            m = msgs[r["src_index"]]
            blocks = Text(", ".join(_compress(r["blocks"])))
            if r["changed"]:
                blocks.append(" (changed)", style="yellow")
            t.add_row(
                str(r["src_index"]),
                str(r["line"] or ""),
                Text(r["role"] or ""),
                blocks,
                Text(m.preview(70).replace("\n", " ")),
            )
        c.print(t)
        dropped = j["dropped"]
        if dropped:
            d = Table(title="dropped by recovery cleaning", title_justify="left")
            for col in ("layer", "message", "line", "reason"):
                d.add_column(col)
            for x in dropped[:MAX_LISTED]:
                line = msgs[x["index"]].line
                where = f"{x['index']}" + (f" block {x['block']}" if x["block"] is not None else "")
                d.add_row(x["layer"], where, str(line or ""), Text(x["reason"]))
            c.print(d)
            if len(dropped) > MAX_LISTED:
                c.print(Text(f"… {len(dropped) - MAX_LISTED} more drops (--json lists all)", style="dim"))
        im = j["interruption"].get("message")
        if im:
            c.print(Text.assemble(("re-queued prompt", "yellow"), f" (line {im['line']}): {im['text'][:100]}"))
        if j["resume_note"]:
            c.print(Panel(Text(j["resume_note"]), title="resume note the agent injects", title_align="left"))

    s = Table(title="restored state", title_justify="left")
    for col in ("#", "item", "value", "source"):
        s.add_column(col, overflow="fold")
    for it in j["state"]:
        val = (
            Text(_short(it["value"]))
            if it["restored"]
            else Text(it["note"] or "not restored", style="dim")
        )
        if it["warning"]:
            val.append("\n" + it["warning"], style="red")
        s.add_row(str(it["number"] or "—"), Text(it["name"]), val, Text(str(it["source"] or "")))
    c.print(s)
    for w in j["warnings"]:
        c.print(Text.assemble(("warning:", "yellow"), " ", w))


def _compress(types: list) -> list[str]:
    out: list[str] = []
    for t in types:
        t = t or "?"
        if out and out[-1].split(" ×")[0] == t:
            base, _, n = out[-1].partition(" ×")
            out[-1] = f"{base} ×{int(n or 1) + 1}"
        else:
            out.append(t)
    return out


def _short(v, width: int = 90) -> str:
    from sidtui.core.jsonout import dumps_lenient

    if v is None:
        return "—"
    if isinstance(v, str):
        s = v
    else:
        s = dumps_lenient(v, default=str).decode()
    return s if len(s) <= width else s[: width - 1] + "…"

"""`sidtui show` of a Claude Code session: the human output (``--json`` is the view's own)."""

from __future__ import annotations

from typing import Any

#: More listed messages than this are printed as aligned lines, not a boxed table.
TABLE_MAX_ROWS = 200
#: Damaged lines and branches listed before "… N more".
MAX_LISTED = 20

INTERRUPTION = {
    "none": ("clean: the last turn finished", "green"),
    "interrupted_prompt": ("interrupted prompt: the last prompt got no answer", "yellow"),
    "interrupted_turn": ("interrupted turn: the turn stopped before it finished", "red"),
}


def render(view: Any, max_messages: int | None = 50) -> None:
    """Print a :class:`~sidtui.core.claude.session.ClaudeSessionView` for people.

    Session text is printed as text, never read as Rich markup.
    """
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    from sidtui.cli.common import stdout_console

    c = stdout_console()
    tr = view.transcript
    sc, tree = tr.scan, tr.tree
    lines = sc.lines
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column(overflow="fold")  # a long path is folded, never cut
    head.add_row("session", Text(view.session_id))
    head.add_row("path", Text(str(view.file.path)))
    what = "main" if view.file.kind == "main" else f"subagent ({view.file.layout} layout)"
    head.add_row("format", Text(f"Claude Code {view.version or '?'}  ({what})"))
    if view.title:
        head.add_row("title", Text(f"{view.title[:120]}  [{view.title_source}]"))
    head.add_row("model", Text(view.model or "—"))
    head.add_row(
        "cwd",
        Text(f"{view.cwd or '—'}" + (f"  (branch {view.git_branch})" if view.git_branch else "")),
    )
    it = view.interruption
    if not view.messages:
        head.add_row("on resume", Text("no messages: nothing to resume", style="dim"))
    else:
        label, colour = INTERRUPTION.get(it.kind, (it.kind, "dim"))
        if it.tool_names:
            label += " (" + ", ".join(it.tool_names) + ")"
        if it.marker is not None:
            label += f"; stopped by the user at line {view.messages[it.marker].line}"
        head.add_row("on resume", Text(label, style=colour))
    pred = view.resume
    if pred is not None:
        head.add_row("Claude Code", _resume_line(pred))
    lv = view.liveness
    head.add_row(
        "process",
        "possibly live (a registration sidtui cannot read)"
        if lv.live and all(r.possibly for r in lv.registrations if r.live)
        else "live (a running process writes it)"
        if lv.live
        else "stale registration"
        if lv.stale
        else "not running",
    )
    c.print(Panel(head, title="sidtui show (Claude Code)", title_align="left"))

    t = Table.grid(padding=(0, 2))
    t.add_column(style="bold")
    t.add_column()
    t.add_row(
        "records",
        f"{len(sc):,} records on {sc.line_count:,} lines, {len(sc.bad_lines)} damaged"
        + (f" ({sc.recovered} records recovered from them)" if sc.recovered else ""),
    )
    t.add_row(
        "chain",
        f"{len(tree.chain):,} records from the leaf resume picks"
        + (f" (line {lines[tree.leaf]})" if tree.leaf is not None else "")
        + f"; {len(tree.conversation):,} with parallel tool calls",
    )
    if tree.compactions:
        t.add_row("compactions", ", ".join(f"line {lines[i]}" for i in tree.compactions))
    kinds: dict[str, int] = {}
    for tip in tree.tips:
        kinds[tip.kind] = kinds.get(tip.kind, 0) + 1
    t.add_row("leaves", ", ".join(f"{n} {k}" for k, n in kinds.items()) or "—")
    branches = [x for x in tree.tips if x.kind == "branch"]
    for b in branches[:MAX_LISTED]:
        where = f"off line {lines[b.joins_at]}" if b.joins_at is not None else "a root of its own"
        t.add_row(
            "branch" + (" (rewind)" if b.rewind else ""),
            Text(f"line {lines[b.index]}: {len(b.records)} records, {where}"),
        )
    if len(branches) > MAX_LISTED:
        t.add_row(
            "",
            Text(f"… {len(branches) - MAX_LISTED} more branches (--json lists all)", style="dim"),
        )
    if tree.bridges:
        t.add_row(
            "dangling",
            f"{len(tree.bridges)} parents not in the file (joined for display; "
            "Claude Code's walk stops there)",
        )
    for b in sc.bad_lines[:MAX_LISTED]:
        t.add_row(f"damaged line {b.line}", Text(f"byte {b.offset}: {b.reason}"))
    c.print(Panel(t, title="records and leaves", title_align="left"))

    _print_messages(c, view.messages, max_messages, pred)
    _print_subagents(c, view.subagents)
    for w in view.warnings:
        c.print(Text.assemble(("warning:", "yellow"), " ", w))


def _resume_line(pred: Any) -> Any:
    """The head row: what Claude Code sends on ``--resume``, or its refusal."""
    from rich.text import Text

    from sidtui.core.claude.resume import AGENT_VERSION, COMPACTED

    if pred.error:
        return Text(f"refuses to resume: {pred.error}", style="red")
    text = f"--resume sends {len(pred.messages):,} turns (as Claude Code {AGENT_VERSION} does)"
    lost = sum(g.messages for g in pred.lost if g.reason != COMPACTED)
    if pred.added:
        text += f"; it adds {len(pred.added)} of its own"
    if lost:
        return Text(text + f"; it will not load {lost:,} messages on disk (see below)", style="red")
    return Text(text)


def _print_messages(c: Any, msgs: list[Any], max_messages: int | None, pred: Any = None) -> None:
    """The conversation resume loads: the last ``max_messages`` (None: all), one row each,
    with Claude Code's own view: messages it will not send marked, each lost group's
    notice below it, its own additions at their place."""
    from rich.table import Table
    from rich.text import Text

    if msgs:
        shown = msgs if max_messages is None or len(msgs) <= max_messages else msgs[-max_messages:]
        title = "the conversation on disk, as Claude Code resumes it"
        if len(shown) < len(msgs):
            title += f" (the last {len(shown)} of {len(msgs):,} messages; --messages all lists every one)"
        rows = _rows(shown, pred)
        if len(rows) > TABLE_MAX_ROWS:
            c.print(Text(title, style="italic"))
            for r, style in rows:
                c.print(Text("  ".join(r[:5]) + "  " + r[5], style=style), no_wrap=True, crop=True)
        else:
            mt = Table(title=title, title_justify="left")
            for col in ("#", "line", "role", "kind", "blocks", "preview"):
                mt.add_column(col, overflow="ellipsis", no_wrap=col != "preview")
            for r, style in rows:
                mt.add_row(*(Text(x) for x in r), style=style)
            c.print(mt)


def _rows(shown: list[Any], pred: Any) -> list[tuple[tuple[str, ...], str]]:
    """Table rows (cells, style): each message, then each lost group's notice after its
    last message, and Claude Code's additions after the message they follow."""
    from sidtui.core.claude.resume import lost_notice

    if pred is None:
        return [(_cells(m), "") for m in shown]
    after: dict[int, list[str]] = {}
    for g in pred.lost:
        after.setdefault(g.records[-1], []).append(lost_notice(g))
    sent = pred.sent
    adds = _added_after(shown, pred)
    out: list[tuple[tuple[str, ...], str]] = []
    for m in shown:
        mine = any(r in sent for r in m.records)
        cells = _cells(m)
        if not mine:
            cells = (*cells[:3], cells[3] + " (not sent)", *cells[4:])
        out.append((cells, "" if mine else "dim"))
        for r in m.records:
            for note in after.get(r, []):
                out.append((("", "", "", "", "", note), "bold red"))
        for a in adds.get(m.index, []):
            out.append(
                (
                    (
                        "+",
                        "",
                        a["role"],
                        "added",
                        ", ".join(dict.fromkeys(b["type"] for b in a["blocks"])),
                        _added_text(a) + "  (Claude Code's own)",
                    ),
                    "italic cyan",
                )
            )
    return out


def _added_text(a: dict[str, Any]) -> str:
    """What an addition says: its text, or the tool uses it answers with an error."""
    texts = [b["text"] for b in a["blocks"] if b["type"] == "text"]
    if texts:
        return texts[0]
    n = sum(1 for b in a["blocks"] if b["type"] == "tool_result")
    return f"an error result for {n} tool use{'s' if n != 1 else ''} nothing answered"


def _added_after(shown: list[Any], pred: Any) -> dict[int, list[dict[str, Any]]]:
    """Claude Code's own turns, keyed by the message of the record they follow."""
    out: dict[int, list[dict[str, Any]]] = {}
    for rec, add in zip(pred.added_after, pred.added, strict=False):
        m = next((m for m in shown if rec in m.records), None)
        if m is not None:
            out.setdefault(m.index, []).append(add)
    return out


def _cells(m: Any) -> tuple[str, str, str, str, str, str]:
    from sidtui.cli.show import compress_block_types

    kind = m.kind + (" (compacted)" if m.compacted else "")
    return (
        str(m.index),
        str(m.line),
        m.role,
        kind,
        ", ".join(compress_block_types(m.block_types)),
        m.preview(70).replace("\n", " "),
    )


def _print_subagents(c: Any, subagents: list[Any]) -> None:
    from rich.table import Table
    from rich.text import Text

    if subagents:
        st = Table(title="subagents", title_justify="left")
        for col in ("agent", "type", "depth", "status", "spawned by", "messages"):
            st.add_column(col, overflow="ellipsis")
        for a in subagents:
            sp = a.spawn
            st.add_row(
                Text(a.label),
                Text(a.agent_type or ""),
                str(a.depth),
                a.status,
                Text(f"{sp.tool} at {sp.owner[:14]} line {sp.line}" if sp else "—"),
                str(a.messages),
            )
        c.print(st)

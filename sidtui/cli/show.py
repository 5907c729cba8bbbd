"""`sidtui show SESSION`: one session of any source exactly as the agent will resume it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sidtui.cli.common import read_session, stdout_console
from sidtui.fmt import plural, short_value

if TYPE_CHECKING:
    from rich.table import Table

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
        "restored state. SESSION is a full id, a unique id prefix, a path, or `latest` (the latest session of the current project). "
        "A Claude Code transcript (recognised by its content, wherever it is) is shown as "
        "Claude Code resumes it: the leaf it picks, every other leaf, the conversation.",
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
        "--subagent",
        metavar="ID",
        default=None,
        help="show one of the session's sub-agents instead (its id or a unique prefix, as "
        "the subagents table lists it; nested ones too)",
    )
    p.add_argument(
        "--terminal-tools",
        metavar="NAMES",
        default=None,
        help="comma-separated TERMINAL_TOOL_NAMES (default: none, as in sid-code)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from sidtui.core.resume.interruption import TERMINAL_TOOL_NAMES

    if args.messages == "all":
        max_messages = None
    elif args.messages.isdigit():
        max_messages = int(args.messages)
    else:
        print(
            f"sidtui: error: --messages takes a number or 'all', not {args.messages!r}",
            file=sys.stderr,
        )
        return 2
    source, sf = read_session(args)
    from sidtui.cli.common import pending_journals_warned

    # a killed sidtui undo/restore of this session: its files may be half restored
    args.pending = next(iter(pending_journals_warned([source], [sf.session_id]).values()), None)
    terminal = (
        frozenset(t.strip() for t in args.terminal_tools.split(",") if t.strip())
        if args.terminal_tools is not None
        else TERMINAL_TOOL_NAMES
    )
    view = source.open(
        sf,
        current_cwd=Path.cwd(),
        terminal_tool_names=terminal,
        warn=lambda line: print(f"sidtui: warning: {line}", file=sys.stderr),
    )
    if args.subagent is not None:
        ref = subagent_ref(view, args.subagent)
        view = source.open(
            ref,
            current_cwd=Path.cwd(),
            terminal_tool_names=terminal,
            warn=lambda line: print(f"sidtui: warning: {line}", file=sys.stderr),
        )
    args.keep = view  # read-only: the process exit frees it (sidtui.cli.entry)
    if args.json:
        from sidtui.core.views.show_json import write_json_stream

        write_json_stream(_with_pending(view.to_json(lazy=True), args), sys.stdout.buffer)
        sys.stdout.flush()
        return 0
    renderer = next((fn for kind, fn in RENDERERS if kind in source.views), render_reading)
    renderer(view, max_messages, source)
    return 0


def subagent_ref(view: Any, wanted: str) -> Any:
    """The transcript of ``view``'s sub-agent ``wanted`` (``SessionModel.subagent_links``):
    its label or agent id, whole or a unique prefix.

    Raises:
        UsageError: no sub-agent or several match, or its transcript is not on disk.
    """
    from sidtui.core.base.errors import UsageError

    links = list(view.subagent_links())

    def names(x: Any) -> list[str]:
        ids = [x.label, getattr(x.ref, "agent_id", None), getattr(x.ref, "session_id", None)]
        return [n for n in ids if isinstance(n, str) and n]

    exact = [x for x in links if wanted in names(x)]
    hits = exact or [x for x in links if any(n.startswith(wanted) for n in names(x))]
    if not hits:
        have = ", ".join(x.label for x in links) or "none"
        raise UsageError(f"no sub-agent {wanted!r} in this session (have: {have})")
    if len(hits) > 1:
        raise UsageError(
            f"{wanted!r} names {len(hits)} sub-agents: "
            + ", ".join(x.label for x in hits)
            + " (give more of the id)"
        )
    if hits[0].ref is None:
        raise UsageError(f"sub-agent {hits[0].label}: its transcript is not on disk")
    return hits[0].ref


def _with_pending(doc: dict, args: argparse.Namespace) -> dict:
    """``doc`` with ``pending_journal`` when a killed sidtui write of it is pending."""
    if args.pending is not None:
        doc["pending_journal"] = args.pending.to_json()
    return doc


def render(view, max_messages: int | None = DEFAULT_MESSAGES, source: Any = None) -> None:
    """Human output of a session view (Rich).

    Args:
        view: the :class:`sidtui.core.views.session.SessionView`.
        max_messages: how many of the last resumed messages to list (None: all). A long
            session's tail is what a resume continues from; listing 100k rows would take
            minutes (``--json`` has every message).

    Text that comes from the session (previews, paths, reasons, values) is printed as
    text, never read as Rich markup.
    """
    from rich.table import Table
    from rich.text import Text

    from sidtui.core.views.show_json import session_to_json

    c = stdout_console()
    j = session_to_json(view, lazy=True)
    c.print(_head_panel(j))
    c.print(_chain_panel(view, j))
    if j["resume_fails"]:
        c.print(
            Text(
                "`sidtui salvage` writes a copy the agent can resume (the file is never changed).",
                style="yellow",
            )
        )
    elif j["loadable"] and view.recovery is not None:
        _print_resume(c, view, j, max_messages)
    s = Table(title="restored state", title_justify="left")
    for col in ("#", "item", "value", "source"):
        s.add_column(col, overflow="fold")
    for it in j["state"]:
        val = (
            Text(short_value(it["value"], 90))
            if it["restored"]
            else Text(it["note"] or "not restored", style="dim")
        )
        if it["warning"]:
            val.append("\n" + it["warning"], style="red")
        s.add_row(str(it["number"] or "—"), Text(it["name"]), val, Text(str(it["source"] or "")))
    c.print(s)
    for w in j["warnings"]:
        c.print(Text.assemble(("warning:", "yellow"), " ", w))
    for n in j.get("notes") or []:
        c.print(Text.assemble(("note:", "dim"), " ", n))


def _head_panel(j: dict):
    """The session, its format and model, and what a resume does."""
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column(overflow="fold")  # a long path is folded, never cut
    head.add_row("session", Text(j["session_id"] or ""))
    head.add_row("path", Text(j["path"]))
    head.add_row("format", Text(f"{j['format_version']}  ({j['kind']})"))
    head.add_row("model", Text(f"{j['model'] or '—'}  {j['provider'] or ''}"))
    head.add_row("cwd", Text(j["cwd"] or "—"))
    if j["resume_fails"]:
        head.add_row(
            "on resume",
            Text(f"the agent cannot resume this session: {j['resume_failure']}", style="bold red"),
        )
    elif j["loadable"]:
        kind = j["interruption"]["kind"]
        tools = j["interruption"]["tool_names"]
        colour = {"none": "green", "interrupted_prompt": "yellow"}.get(kind, "red")
        label = {
            "none": "clean: the agent continues with a resume note"
            if j["resume_note"]  # none only when no message is resumed
            else "empty: no messages yet (a resume starts from nothing; no resume note)",
            "interrupted_prompt": "interrupted prompt: the last prompt is re-sent to the agent",
            "interrupted_turn": "interrupted turn: tools ran but were never answered ("
            + ", ".join(tools)
            + ")",
        }.get(kind, kind)
        head.add_row("on resume", Text(label, style=colour))
        early = j["integrity"].get("agent_counts_paired") or []
        if early:
            head.add_row(
                "tool pairs",
                Text(
                    f"{len(early)} tool_result(s) come before their tool_use ("
                    + ", ".join(map(str, early[:5]))
                    + "): the agent's integrity check counts them paired and sends them so; "
                    "the API rejects a result before its use",
                    style="yellow",
                ),
            )
    else:
        head.add_row(
            "on resume", Text(f"the agent sees NOTHING: {j['load_failure']}", style="bold red")
        )
    live = (
        "live (a running process writes it)"
        if j["live"]
        else "stale registration"
        if j["stale"]
        else "not running"
    )
    head.add_row("process", live)
    return Panel(head, title="sidtui show", title_align="left")


def _chain_panel(view, j: dict):
    """Records, heads, tips, skipped records and bad lines."""
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    br = j["branches"]
    n_records = view.rf.count if view.rf is not None else 0
    n_chain = len(view.chain.chain) if view.chain is not None else 0
    chain_t = Table.grid(padding=(0, 2))
    chain_t.add_column(style="bold")
    chain_t.add_column()
    chain_t.add_row(
        "records",
        f"{n_records} good lines, {len(j['bad_lines'])} bad, chain {n_chain}"
        + (" (linear legacy parse)" if j["chain"]["linear"] else ""),
    )
    if not j["chain"]["linear"]:
        chain_t.add_row("heads", ", ".join(f"line {h['line']}" for h in br["heads"]) or "—")
        if br["forked_heads"]:
            chain_t.add_row("forked from", Text(", ".join(h["source"] for h in br["forked_heads"])))
        tips = [
            f"line {t['line']} (live)"
            if t["live"]
            else f"line {t['line']} ({t['skipped']} skipped)"
            for t in br["tips"]
        ]
        chain_t.add_row("tips", ", ".join(tips))
        chain_t.add_row("skipped", str(br["skipped_records"]))
        if j["cycle"]:
            chain_t.add_row("cycle", Text("yes: the chain was truncated", style="red"))
    for b in j["bad_lines"][:MAX_LISTED]:
        chain_t.add_row(f"bad line {b['line']}", Text(f"byte {b['offset']}: {b['reason']}"))
    if len(j["bad_lines"]) > MAX_LISTED:
        chain_t.add_row(
            "",
            Text(
                f"… {len(j['bad_lines']) - MAX_LISTED} more bad lines (--json lists all)",
                style="dim",
            ),
        )
    return Panel(chain_t, title="chain", title_align="left")


def _print_resume(c, view, j: dict, max_messages: int | None) -> None:
    """What the agent sends on resume, what recovery dropped, the re-queued prompt and the
    resume note."""
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    cms = view.recovery.messages
    total = len(cms)
    shown = cms if max_messages is None or total <= max_messages else cms[total - max_messages :]
    title = "what the agent sends on resume"
    if len(shown) < total:
        title += f" (the last {len(shown)} of {total:,} messages; --messages all lists every one)"
    msgs = view.loaded.messages
    if len(shown) > STREAM_MIN_ROWS:
        print_resumed_streamed(c, title, shown, msgs)
    else:
        c.print(_resumed_table(title, _resumed_cells(shown, msgs)))
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
            c.print(
                Text(f"… {len(dropped) - MAX_LISTED} more drops (--json lists all)", style="dim")
            )
    im = j["interruption"].get("message")
    if im:
        c.print(
            Text.assemble(
                ("re-queued prompt", "yellow"), f" (line {im['line']}): {im['text'][:100]}"
            )
        )
    if j["resume_note"]:
        c.print(
            Panel(
                Text(j["resume_note"]),
                title="resume note the agent injects",
                title_align="left",
            )
        )


#: More listed messages than this are printed by :func:`print_resumed_streamed` (same look
#: as one Rich table, which measures and keeps every cell: 123k rows took 77 s and 750 MB).
STREAM_MIN_ROWS = 200
#: Rows per print of the streamed listing.
STREAM_BATCH = 2000
_RESUMED_COLUMNS = ("#", "line", "role", "blocks", "preview")


def _resumed_cells(shown, msgs) -> Iterator[tuple[str, str, str, str, str, bool]]:
    """``(#, line, role, blocks, preview, changed)`` per listed message, as plain strings
    (``blocks`` then gets `` (changed)`` in yellow when ``changed``)."""
    from sidtui.core.views.show_rows import resumed_rows

    joined: dict[tuple, str] = {}  # a few dozen distinct block lists in a session
    for chunk in resumed_rows(shown):
        for r in chunk:
            changed = r["changed"]
            try:
                key: tuple | None = tuple(r["blocks"])
                blocks = joined.get(key)  # type: ignore[arg-type]
            except TypeError:  # a block type that is an object or a list (JSON allows it)
                key = blocks = None
            if blocks is None:
                blocks = ", ".join(compress_block_types(r["blocks"]))
                if key is not None:
                    joined[key] = blocks
            yield (
                str(r["src_index"]),
                str(r["line"] or ""),
                r["role"] or "",
                blocks + " (changed)" if changed else blocks,
                msgs[r["src_index"]].preview(70).replace("\n", " "),
                changed,
            )


def _resumed_table(title: str, rows) -> Table:
    """The Rich table of the listed messages (``rows``: :func:`_resumed_cells` tuples)."""
    from rich.table import Table

    t = Table(title=title, title_justify="left")
    for col in _RESUMED_COLUMNS:
        t.add_column(col, overflow="ellipsis", no_wrap=col != "preview")
    for *cells, changed in rows:
        t.add_row(*(_cell_text(i, v, changed) for i, v in enumerate(cells)))
    return t


def _cell_text(i: int, value: str, changed: bool):
    from rich.text import Text

    text = Text(value)
    if i == 3 and changed:
        text.stylize("yellow", len(value) - len(" (changed)"))
    return text


def _measure(s: str) -> tuple[int, int]:
    """``(min, max)`` of ``Text(s)`` as Rich measures it (longest word, longest line)."""
    from rich.cells import cell_len

    if s.isascii() and s.isprintable():
        longest = len(s)
        if " " not in s:
            return longest, longest
        return max(map(len, s.split()), default=longest), longest
    lines = s.splitlines()
    longest = max(map(cell_len, lines), default=0)
    return max(map(cell_len, s.split()), default=longest), longest


def _measure_column(col: tuple[str, ...]) -> Iterator[tuple[str, int, int]]:
    """``(cell, min, max)`` candidates for the widest cell and longest word of ``col``
    (:func:`_measure` per cell, or over the whole column at once when it is printable
    ASCII: then the longest word stands for its cell, which measures no less)."""
    text = " ".join(col)
    if text.isascii() and text.isprintable():
        wide = max(col, key=len)
        yield wide, 0, len(wide)
        if " " not in text:
            yield wide, len(wide), 0
            return
        word = max(text.split(), key=len, default="")
        yield word, len(word), 0
        for s in col:  # a cell of spaces only measures its length as its minimum
            if s and s.isspace():
                yield s, len(s), 0
        return
    for s in col:
        lo, hi = _measure(s)
        yield s, lo, hi


def print_resumed_streamed(console, title: str, shown, msgs) -> None:
    """Print the listed messages as :func:`_resumed_table` would, in batches.

    Two passes over the rows, nothing kept between them: the first measures every cell
    (what Rich's table does) and keeps only each column's widest cell and longest word,
    so a two-row probe table gets the very column widths the whole table would; the
    second prints :data:`STREAM_BATCH` rows at a time. A row whose cells are printable
    and fit their columns is one joined line; any other is wrapped or cut per cell with
    Rich's own ``Text.wrap``, as the table does. Title, header and bottom border come
    from Rich. (123k rows: seconds and a few MB instead of 77 s and 750 MB.)
    """
    from rich.segment import Segments
    from rich.table import Table

    ncol = len(_RESUMED_COLUMNS)
    widest = [("", 0)] * ncol
    wordiest = [("", 0)] * ncol
    rows = _resumed_cells(shown, msgs)
    while chunk := list(islice(rows, 4096)):
        for i, col in enumerate(list(zip(*chunk, strict=True))[:ncol]):
            for s, lo, hi in _measure_column(col):
                if hi > widest[i][1]:
                    widest[i] = (s, hi)
                if lo > wordiest[i][1]:
                    wordiest[i] = (s, lo)
    probe = _resumed_table(
        title, [(*(v for v, _ in widest), False), (*(v for v, _ in wordiest), False)]
    )
    options = console.options
    # Rich's own width pass (private, but the one source of truth for the table's look;
    # tests compare the streamed output with the table's, byte for byte)
    measure = getattr(probe, "_calculate_column_widths", None)
    extra = getattr(probe, "_extra_width", None)
    try:
        widths = (
            None
            if measure is None or extra is None
            else measure(console, options.update_width(options.max_width - extra))
        )
    except Exception:  # noqa: BLE001 - a Rich whose private pass changed: the plain table
        widths = None
    inner = [w - 2 for w in widths] if widths else [0]  # cells are padded by one space a side
    if min(inner) < 1:  # too narrow for the columns (or no width pass): Rich's own table
        console.print(_resumed_table(title, _resumed_cells(shown, msgs)))
        return
    head = Table(title=title, title_justify="left")
    for col, w in zip(_RESUMED_COLUMNS, inner, strict=True):
        head.add_column(col, overflow="ellipsis", no_wrap=col != "preview", width=w)
    head.add_row(*([""] * ncol))
    frame = console.render_lines(head, options, pad=False, new_lines=True)
    box = head.box.substitute(options, safe=console.safe_box)
    left, mid, right = box.mid_left, box.mid_vertical, box.mid_right

    # title, top border, header, header rule
    console.print(Segments([seg for seg_line in frame[:-2] for seg in seg_line]), end="")
    batch = _StreamedRows(left, mid, right, inner, widths)
    for row in _resumed_cells(shown, msgs):
        batch.rows.append(row)
        if len(batch.rows) >= STREAM_BATCH:
            console.print(batch, end="")
            batch.rows = []
    if batch.rows:
        console.print(batch, end="")
    console.print(Segments(frame[-1]), end="")  # bottom border


class _StreamedRows:
    """A batch of listed rows drawn as :func:`_resumed_table` draws them (see
    :func:`print_resumed_streamed`): borders and column widths given, no measuring."""

    def __init__(
        self, left: str, mid: str, right: str, inner: list[int], widths: list[int]
    ) -> None:
        self.left, self.mid, self.right, self.inner = left, mid, right, inner
        self.blank = [" " * w for w in widths]
        self.rows: list = []

    def __rich_console__(self, con, opts):
        from rich.cells import cell_len
        from rich.segment import Segment

        left, mid, right, inner, blank = self.left, self.mid, self.right, self.inner, self.blank
        line = Segment.line()
        for *cells, changed in self.rows:
            if not changed:
                # the usual row: printable cells that fit, one joined line
                lens = [len(c) if c.isascii() else cell_len(c) for c in cells]
                if all(n <= w for n, w in zip(lens, inner, strict=True)) and all(
                    c.isprintable() for c in cells
                ):
                    yield Segment(
                        left
                        + mid.join(
                            [
                                f" {c}{' ' * (w - n)} "
                                for c, n, w in zip(cells, lens, inner, strict=True)
                            ]
                        )
                        + right
                    )
                    yield line
                    continue
            # else each cell as the table draws it: a plain one that fits is one
            # padded line, any other is wrapped or cut by Rich
            parts = [
                [f" {c}{' ' * (w - cell_len(c))} "]
                if (i != 3 or not changed) and c.isprintable() and cell_len(c) <= w
                else _cell_text(i, c, changed).wrap(
                    con,
                    w,
                    justify="left",
                    overflow="ellipsis",
                    tab_size=8,
                    no_wrap=_RESUMED_COLUMNS[i] != "preview",
                )
                for i, (c, w) in enumerate(zip(cells, inner, strict=True))
            ]
            for k in range(max(len(p) for p in parts)):
                yield Segment(left)
                for i, p in enumerate(parts):
                    if i:
                        yield Segment(mid)
                    if k >= len(p):
                        yield Segment(blank[i])
                    elif isinstance(p[k], str):
                        yield Segment(p[k])
                    else:
                        yield Segment(" ")
                        yield from p[k].render(con)
                        yield Segment(" " * (inner[i] - p[k].cell_len + 1))
                yield Segment(right)
                yield line


def compress_block_types(types: list) -> list[str]:
    from sidtui.core.transcript.messages import tool_name_text

    out: list[str] = []
    for t in types:
        # a type that is no string (JSON allows `"type": 5`) is shown as its JSON text
        t = tool_name_text(t) or "?"
        if out and out[-1].split(" ×")[0] == t:
            base, _, n = out[-1].partition(" ×")
            out[-1] = f"{base} ×{int(n or 1) + 1}"
        else:
            out.append(t)
    return out


# ---------------------------------------------------------------- a tree of leaves

#: More listed messages than this are printed by :func:`_print_long_rows` (one header,
#: rows in batches), not one boxed table.
TABLE_MAX_ROWS = 200
#: Damaged lines and branches listed before "… N more".
TREE_LISTED = 20

INTERRUPTION = {
    "none": ("clean: the last turn finished", "green"),
    "interrupted_prompt": ("interrupted prompt: the last prompt got no answer", "yellow"),
    "interrupted_turn": ("interrupted turn: the turn stopped before it finished", "red"),
}


def render_tree(view: Any, max_messages: int | None = 50, source: Any = None) -> None:
    """Print a session whose reader gives every leaf (``leaves`` in
    :attr:`~sidtui.core.sources.base.Source.views`: Claude Code's
    ``ClaudeSessionView``) for people; ``source`` (its source, by default the view's)
    names the resume it predicts and words what that resume loses.

    Session text is printed as text, never read as Rich markup.
    """
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    from sidtui.cli.common import stdout_console

    if source is None:
        from sidtui.core.sources import source_for

        source = source_for(view)
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
        head.add_row(source.label, _resume_line(pred, source))
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
    for b in branches[:TREE_LISTED]:
        where = f"off line {lines[b.joins_at]}" if b.joins_at is not None else "a root of its own"
        t.add_row(
            "branch" + (" (rewind)" if b.rewind else ""),
            Text(f"line {lines[b.index]}: {plural(len(b.records), 'record')}, {where}"),
        )
    if len(branches) > TREE_LISTED:
        t.add_row(
            "",
            Text(f"… {len(branches) - TREE_LISTED} more branches (--json lists all)", style="dim"),
        )
    if tree.bridges:
        t.add_row(
            "dangling",
            f"{len(tree.bridges)} parents not in the file (joined for display; "
            "Claude Code's walk stops there)",
        )
    for b in sc.bad_lines[:TREE_LISTED]:
        t.add_row(f"damaged line {b.line}", Text(f"byte {b.offset}: {b.reason}"))
    c.print(Panel(t, title="records and leaves", title_align="left"))

    _print_messages(c, view.messages, max_messages, pred, source)
    _print_subagents(c, view.subagents)
    for w in view.warnings:
        c.print(Text.assemble(("warning:", "yellow"), " ", w))


def _resume_line(pred: Any, source: Any) -> Any:
    """The head row: what the agent sends on ``--resume``, or its refusal."""
    from rich.text import Text

    if pred.error:
        return Text(f"refuses to resume: {pred.error}", style="red")
    text = f"--resume sends {len(pred.messages):,} turns (as {source.resume_agent()} does)"
    lost = sum(g.messages for g in pred.lost if source.lost_counts(g))
    if pred.added:
        text += f"; it adds {len(pred.added)} of its own"
    if lost:
        return Text(text + f"; it will not load {lost:,} messages on disk (see below)", style="red")
    return Text(text)


def _print_messages(
    c: Any, msgs: list[Any], max_messages: int | None, pred: Any = None, source: Any = None
) -> None:
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
        rows = _rows(shown, pred, source)
        if len(rows) > TABLE_MAX_ROWS:
            _print_long_rows(c, title, rows)
        else:
            mt = Table(title=title, title_justify="left")
            for col in ("#", "line", "role", "kind", "blocks", "preview"):
                mt.add_column(col, overflow="ellipsis", no_wrap=col != "preview")
            for r, style in rows:
                mt.add_row(*(Text(x) for x in r), style=style)
            c.print(mt)


def _print_long_rows(c: Any, title: str, rows: list[tuple[tuple[str, ...], str]]) -> None:
    """More rows than a Rich table measures quickly: the same columns under one header,
    printed :data:`STREAM_BATCH` rows at a time. The first five columns get the width of
    their widest cell (capped so the preview keeps at least a third of the line), the
    preview the rest; so every batch lines up with the header, without measuring a cell
    twice."""
    from rich import box
    from rich.cells import cell_len
    from rich.table import Table
    from rich.text import Text

    cols = ("#", "line", "role", "kind", "blocks", "preview")
    widths = [cell_len(col) for col in cols[:5]]
    for r, _ in rows:
        for i in range(5):
            if (n := cell_len(r[i])) > widths[i]:
                widths[i] = n
    room = max(20, c.width * 2 // 3 - 2 * len(cols))  # what the five may take together
    while sum(widths) > room and max(widths) > 8:
        widths[widths.index(max(widths))] -= 1
    for start in range(0, len(rows), STREAM_BATCH):
        t = Table(
            title=title if not start else None,
            title_justify="left",
            box=box.SIMPLE_HEAD,
            show_edge=False,
            show_header=not start,
            expand=True,
        )
        for col, w in zip(cols, [*widths, None], strict=True):
            t.add_column(
                col, no_wrap=True, overflow="ellipsis", width=w, ratio=1 if w is None else None
            )
        for r, style in rows[start : start + STREAM_BATCH]:
            t.add_row(*(Text(x) for x in r), style=style)
        c.print(t)


def _rows(shown: list[Any], pred: Any, source: Any) -> list[tuple[tuple[str, ...], str]]:
    """Table rows (cells, style): each message, then each lost group's notice after its
    last message, and Claude Code's additions after the message they follow."""
    if pred is None:
        return [(_cells(m), "") for m in shown]
    after: dict[int, list[str]] = {}
    for g in pred.lost:
        after.setdefault(g.records[-1], []).append(source.lost_notice(g))
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


def render_reading(
    view: Any, max_messages: int | None = DEFAULT_MESSAGES, source: Any = None
) -> None:
    """Print a session from its :meth:`~sidtui.core.sources.base.SessionModel.reading`
    alone (a source whose reader gives neither the record chain nor a record tree): the
    screen's header, the conversation a resume sends with each message's note, the banner
    and the warnings. Session text is printed as text, never read as Rich markup."""
    from rich.table import Table
    from rich.text import Text

    c = stdout_console()
    r = view.reading()
    title, facts = r.head
    c.print(Text("".join(t for t, _tone in title).strip(), style="bold"))
    said = []
    for f in facts:
        if isinstance(f, str):
            said.append(f)
        elif f[0] == "started":
            said.append(f"started {f[1]}")
        elif f[0] == "warnings":
            said.append(f"{f[1]} warnings")
    c.print(Text("  " + " · ".join(said)))
    c.print(Text(f"  {view.file.path}"))
    msgs = r.messages
    shown = range(len(msgs))
    if max_messages is not None and len(msgs) > max_messages:
        shown = range(len(msgs) - max_messages, len(msgs))
    t = Table(
        title="the conversation a resume sends"
        + (
            f" (the last {len(shown)} of {len(msgs):,} messages; --messages all lists every one)"
            if len(shown) < len(msgs)
            else ""
        ),
        title_justify="left",
    )
    for col in ("#", "line", "role", "blocks", "preview"):
        t.add_column(col, overflow="ellipsis", no_wrap=col != "preview")
    for i in shown:
        m = msgs[i]
        preview = m.preview(70).replace("\n", " ")
        note = r.notes.get(i)
        dropped = r.dropped.get(i)
        t.add_row(
            str(i),
            str(m.line) if m.line is not None else "—",
            Text(m.role or "?"),
            ", ".join(compress_block_types(m.block_types)),
            Text(preview + (f"  [{note}]" if note else "")),
            style="dim" if dropped else "",
        )
    c.print(t)
    for line in r.banner:
        c.print(Text(line))
    for w in view.warnings:
        c.print(Text.assemble(("warning:", "yellow"), " ", w))


#: The human output by what the source's reader gives (:attr:`Source.views`): the record
#: chain with its skipped branches and cleaning, or every leaf of the tree and the one a
#: resume picks; else the conversation as the session screen reads it.
RENDERERS = (("records", render), ("leaves", render_tree))

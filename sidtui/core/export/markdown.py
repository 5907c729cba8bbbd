"""A session as Markdown readable in any viewer, written as it is read.

Prompts and replies are their own text (Markdown already, as agents write it); everything
else — tool inputs and results, thinking, edits as diffs, sub-agents — sits in a
``<details>`` block whose body is a fenced code block. A fence is one backtick longer than
the longest run of backticks in what it holds (at least three), so no content closes it
(:func:`fence_for`); text sidtui puts in a ``<summary>`` is HTML-escaped. What the agent
will not load on resume is set apart in a quoted note before it; the turns it adds are
marked.
"""

from __future__ import annotations

import re
from html import escape
from typing import Any, BinaryIO

from sidtui.core.export.blocks import (
    IMAGE,
    TEXT,
    THINKING,
    TOOL_RESULT,
    TOOL_USE,
    edits_of,
    input_summary,
    json_text,
    kind_of,
    one_line,
    result_text,
    text_of,
    tool_name,
)
from sidtui.core.export.document import Document, Tally
from sidtui.core.export.sink import Sink

_TICKS = re.compile(r"`+")
#: A character :func:`html.escape` changes (most short texts have none: no call then).
_SPECIAL = re.compile("[<>&\"']").search


def fence_for(text: str) -> str:
    """The backtick fence for ``text``: longer than any backtick run in it, at least 3."""
    if "``" not in text:  # the usual case: no run of two or more
        return "```"
    longest = max((len(m) for m in _TICKS.findall(text)), default=0)
    return "`" * max(3, longest + 1)


def fenced(text: str, info: str = "") -> str:
    """``text`` as a fenced code block (ends with a newline)."""
    f = fence_for(text)
    body = text if text.endswith("\n") else text + "\n"
    return f"{f}{info}\n{body}{f}\n"


def s(text: Any) -> str:
    """Text for a ``<summary>`` or a heading (HTML: escaped, one line)."""
    if type(text) is not str:
        text = json_text(text)
    if len(text) > 160 or not text.isprintable() or "  " in text:
        text = one_line(text, 160)
    return escape(text) if _SPECIAL(text) else text


def write_markdown(doc: Document, out: BinaryIO) -> Tally:
    """Write ``doc`` as Markdown to ``out``; returns what was counted."""
    sink = Sink(out)
    w = sink.write
    h = doc.head
    f = h.facts
    w(f"# {s(f.title or h.session_id)}\n\n")
    facts = [("Agent", h.source_label), ("Session", h.session_id)]
    for label, v in (
        ("Project", f.project),
        ("Folder", f.cwd),
        ("Model", f.model),
        ("Started", f.created_at),
        ("Last activity", f.updated_at),
        ("Agent version", f.agent_version),
    ):
        if v:
            facts.append((label, v))
    end = (h.interruption or "—") + (
        f" ({', '.join(h.interruption_tools)})" if h.interruption_tools else ""
    )
    facts.append(("On resume", end))
    if f.resume_error:
        facts.append(("Resume fails", f.resume_error))
    u = h.usage
    if u is not None:
        facts.append(
            (
                "Tokens",
                f"{u.total_tokens:,} (input {u.input_tokens:,}, output {u.output_tokens:,}, "
                f"cache write {u.cache_creation_tokens:,}, cache read {u.cache_read_tokens:,})",
            )
        )
        cost = f"${u.cost_usd:,.2f}" if u.cost_usd is not None else "unknown"
        facts.append(("Cost", f"{cost} (prices of {u.prices_date})"))
    for k, v in facts:
        w(f"- **{k}:** {s(v)}\n")
    w("\n")
    tally = Tally()
    _conversation(sink, doc, tally, 2)
    w(
        f"\n---\n\n{tally.messages:,} messages: {tally.loaded:,} loaded on resume, "
        f"{tally.lost:,} not loaded, {tally.added:,} added by the agent on resume; "
        f"{tally.tool_uses:,} tool calls, {tally.subagents:,} sub-agents.\n"
    )
    sink.close()
    return tally


def _conversation(sink: Sink, doc: Document, tally: Tally, level: int) -> None:
    w = sink.write
    names: dict[Any, str] = {}
    spawns = doc.spawn_ids()
    lost: str | None = None
    hashes = "#" * min(level, 6)
    for item in doc.items():
        tally.count(item)
        if item.status == "lost" and lost != (item.reason or ""):
            lost = item.reason or ""
            w(f"> **Not loaded on resume:** {s(lost)}\n\n")
        elif item.status != "lost" and lost is not None:
            w("> *(what follows is loaded on resume)*\n\n")
            lost = None
        role = item.role if isinstance(item.role, str) else "context"
        bits = [f"{hashes} {s(role)}"]
        if item.line is not None:
            bits.append(f"line {int(item.line)}")
        if item.timestamp:
            bits.append(s(item.timestamp))
        if item.status == "lost":
            bits.append("*(not loaded)*")
        if item.status == "added":
            bits.append(f"*(added on resume: {s(item.reason or '')})*")
        if item.note:
            bits.append(f"*({s(item.note)})*")
        w(" · ".join(bits) + "\n\n")
        for b in item.blocks:
            _block(sink, doc, b, names, spawns, tally, level)
        sink.maybe_flush()
    rest = doc.unlinked()
    for link, sub in rest:
        _subagent(sink, link, sub, tally, level)
    for err in doc.errors:
        w(f"> {s(err)}\n\n")


def _details(w, summary: str, body: str, info: str = "") -> None:
    f = fence_for(body)  # the body is written as it is: never copied into a bigger string
    w(f"<details><summary>{summary}</summary>\n\n{f}{info}\n")
    w(body)
    w(f"\n{f}\n\n</details>\n\n" if not body.endswith("\n") else f"{f}\n\n</details>\n\n")


def _block(sink: Sink, doc: Document, b: Any, names, spawns, tally: Tally, level: int) -> None:
    w = sink.write
    k = kind_of(b)
    if k == TEXT:
        t = text_of(b)
        if t.strip():  # an empty part of a reply says nothing
            w(t + ("\n\n" if not t.endswith("\n") else "\n"))
    elif k == THINKING:
        _details(w, "thinking", text_of(b))
    elif k == TOOL_USE:
        tally.tool_uses += 1
        name = tool_name(b)
        names[b.get("id")] = name
        inp = b.get("input")
        edits = edits_of(inp)
        summary = f"call <b>{s(name)}</b> <code>{s(input_summary(inp))}</code>"
        if edits:
            lines = []
            for ed in edits:
                if ed.path:
                    lines.append(f"@@ {ed.path}")
                lines += [("" if t == "@" else t) + x for t, x in ed.lines]
            _details(w, summary, "\n".join(lines), "diff")
        else:
            _details(w, summary, json_text(inp), "json")
        tid = b.get("id")
        if isinstance(tid, str) and tid in spawns:
            for link, sub in doc.subagents_of(tid):
                _subagent(sink, link, sub, tally, level)
    elif k == TOOL_RESULT:
        err = b.get("is_error") is True
        name = names.get(b.get("tool_use_id"), "a tool")
        _details(w, f"{'error from' if err else 'result of'} <b>{s(name)}</b>", result_text(b))
    elif k == IMAGE:
        w("*[image]*\n\n")
    else:
        bt = b.get("type") if isinstance(b, dict) else None
        _details(w, s(bt if isinstance(bt, str) else "value"), json_text(b), "json")


def _subagent(sink: Sink, link, sub: Document | None, tally: Tally, level: int) -> None:
    w = sink.write
    tally.subagents += 1
    what = " ".join(x for x in (link.agent_type, link.description) if isinstance(x, str))
    status = f" — {link.status}" if link.status else ""
    w(f"<details><summary>sub-agent <b>{s(link.label)}</b> {s(what)}{s(status)}</summary>\n\n")
    if sub is None:
        w("*its transcript is not read here (not on disk, or nested too deep)*\n\n")
    else:
        _conversation(sink, sub, Tally(), level + 1)
    w("</details>\n\n")

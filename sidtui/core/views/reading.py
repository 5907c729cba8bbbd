"""A sid-code session as the conversation view reads it (the common model's
:class:`~sidtui.core.sources.base.ConversationReading`, no Textual).

:func:`reading` turns a :class:`~sidtui.core.views.session.SessionView` into what any
screen needs to draw its conversation: the messages the loader returns (a sub-agent
transcript's own messages for a sidechain file), recovery's verdicts attached (a message
or block that cleaning drops, with its layer and reason; the prompt an
``interrupted_prompt`` re-queues), ``context_compact`` markers where they sit, the final
banner (interruption state and the resume note), and the raw blocks of a message decoded
from its record only when asked (:meth:`SidCodeReading.content`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sidtui.core.base.model_views import ReadingFields
from sidtui.core.base.words import plural
from sidtui.core.views.export_items import record_content


@dataclass(repr=False)
class SidCodeReading(ReadingFields):
    """See the module docstring and :class:`~sidtui.core.sources.base.ConversationReading`."""

    def __post_init__(self) -> None:
        self.content = _content_reader(self)

    def span(self) -> tuple[Any, int] | None:
        """``(path, bytes read)`` of the transcript whose lines :meth:`lines_of` names."""
        rf = self.view.rf
        return (self.view.file.path, rf.size) if rf is not None else None

    def lines_of(self, msg: int) -> tuple[int, ...]:
        line = getattr(self.messages[msg], "line", None)
        return (line,) if line is not None else ()

    def record_of(self, msg: int) -> int | None:
        """The record index message ``msg`` is read from (None: none, a v1 file)."""
        rf = self.view.rf
        if rf is None:
            return None
        m = self.messages[msg]
        rec = getattr(m, "record", None)
        if rec is not None:
            return rec
        line = getattr(m, "line", None)
        return next((r.index for r in rf.records if r.line == line), None)

    def record_text(self, index: int) -> tuple[int, str]:
        """``(line, JSON text)`` of record ``index``, its bytes as in the file."""
        rf = self.view.rf
        rec = rf.records[index]
        return rec.line, rf.raw(rec).decode("utf-8", errors="replace")

    def compact_text(self, rec_index: int) -> str:
        """The line a ``context_compact`` marker is drawn as."""
        rf = self.view.rf
        rec = rf.decode(rf.records[rec_index]) if rf is not None else {}
        removed = rec.get("removedCount") if isinstance(rec, dict) else None
        return (
            f"── context compacted here (line {rf.records[rec_index].line}, removedCount "
            f"{removed}): a marker only, the agent still restores every message above ──"
        )


def reading(view: Any) -> SidCodeReading:
    """Read ``view`` (a ``SessionView``) for the conversation: O(messages), no decoding."""
    if view.sidechain is not None:
        sc = view.sidechain
        status = sc.status or ("unfinished" if sc.unfinished else "")
        return SidCodeReading(
            view,
            list(sc.messages),
            banner=[f"Sub-agent {sc.agent_type or ''}: {status or 'no end record'}"],
            banner_kind="none" if sc.ended else "interrupted_turn",
            head=head(view),
            where=where(view),
        )
    r = SidCodeReading(view, list(view.loaded.messages))
    rec = view.recovery
    if rec is not None:
        for d in rec.dropped:
            text = f"{d.layer}: {d.reason}"
            if d.block is None:
                r.dropped.setdefault(d.index, text)
            else:
                r.block_dropped.setdefault((d.index, d.block), text)
        for c in rec.messages:
            if c.changed:
                r.notes[c.src_index] = "changed by cleaning"
        if rec.interruption.message is not None:
            r.notes[rec.interruption.message.src_index] = (
                "re-queued as the next prompt on resume (interrupted prompt)"
            )
    r.compacts = _compact_positions(view, r.messages)
    r.banner, r.banner_kind = _banner(view)
    r.head = head(view)
    r.where = where(view)
    return r


def _compact_positions(view: Any, messages: list[Any]) -> dict[int, list[int]]:
    """``context_compact`` records on the chain, keyed by the message they come before."""
    compacts = getattr(view.loaded, "compacts", None) or []
    if not compacts or view.rf is None:
        return {}
    pos = {ri: p for p, ri in enumerate(view.chain.chain)}
    msg_pos = [
        (pos.get(m.record, -1), i)
        for i, m in enumerate(messages)
        if getattr(m, "record", None) is not None
    ]
    out: dict[int, list[int]] = {}
    for c in compacts:
        cp = pos.get(c)
        if cp is None:
            continue
        after = next((i for p, i in msg_pos if p > cp), None)
        if after is not None:
            out.setdefault(after, []).append(c)
    return out


def first_line(text: str | None, width: int) -> str:
    """The first non-empty line of ``text`` (tabs as spaces), cut to ``width`` with ``…``."""
    for line in str(text or "").splitlines():
        line = line.strip().expandtabs(4)
        if line:
            return line if len(line) <= width else line[: width - 1] + "…"
    return ""


def _banner(view: Any) -> tuple[list[str], str]:
    if view.file.kind == "main" and not view.loaded.loadable:
        return (
            [
                "On resume: the agent sees NOTHING",
                view.loaded.load_failure or "the chain never reaches session_start",
                "Press f to salvage a loadable copy (the file itself is never changed).",
            ],
            "unloadable",
        )
    rec = view.recovery
    if rec is None:
        return (["On resume: —"], "none")
    if rec.failure is not None:
        return (
            [
                "On resume: the agent cannot resume this session",
                rec.failure,
                "Press f to salvage a copy it can resume (the file itself is never changed).",
            ],
            "unloadable",
        )
    kind = rec.interruption.kind
    tools = ", ".join(rec.interruption.tool_names)
    head = f"On resume: {kind}" + (f" ({tools})" if tools and kind != "none" else "")
    lines = [
        head,
        f"{plural(len(rec.messages), 'message')} {'is' if len(rec.messages) == 1 else 'are'} sent; "
        f"{plural(len(rec.dropped), 'removal')} by cleaning",
    ]
    if rec.interruption.message is not None:
        preview = rec.interruption.message.message.preview(200)
        lines.append("Re-queued prompt: " + first_line(preview, 200))
    if rec.resume_note:
        lines.append("Resume note the agent injects:")
        lines.append(rec.resume_note)
    return lines, kind


def _content_reader(r: SidCodeReading):
    """``content(msg)``: message ``msg``'s content as in its record (decoded on demand)."""
    view = r.view
    rf = view.rf
    by_line: dict[int, Any] = {}
    if rf is not None and view.sidechain is not None:
        by_line = {rec.line: rec for rec in rf.records}

    @lru_cache(maxsize=512)
    def content(msg: int) -> Any:
        m = r.messages[msg]
        raw = getattr(m, "raw", None)
        if raw is not None:
            return raw.get("content")
        if rf is None:
            return None
        rec_index = getattr(m, "record", None)
        if rec_index is not None:
            ref = rf.records[rec_index]
        else:
            ref = by_line.get(getattr(m, "line", -1))
            if ref is None:
                return None
        return record_content(rf, ref)

    return content


def head(view: Any) -> tuple[list[tuple[str, str | None]], list[Any]]:
    """The screen header of a sid-code session: ``(title, facts)``
    (``head`` of :class:`~sidtui.core.sources.base.ConversationReading`)."""
    v = view
    if v.file.kind == "sidechain":
        state, tone = "sidechain", "side"
    elif not v.loaded.loadable:
        state, tone = "the agent cannot load it", "fatal"
    elif v.recovery is not None:
        state = v.recovery.interruption.kind
        state = "clean" if state == "none" else state.replace("_", " ")
        tone = {"clean": "ok", "interrupted prompt": "warn"}.get(state, "bad")
    else:
        state, tone = "—", "muted"
    if v.liveness.live:
        state, tone = "live: " + state, "live"
    elif v.liveness.stale:
        state += " (stale)"  # a dead process left its registration, as `ls` says
    records = len(v.rf.records) if v.rf is not None else len(v.loaded.messages)
    model = v.loaded.model
    if v.sidechain is not None:
        messages = len(v.sidechain.messages)
        started = v.sidechain.started_at
        model = model or v.sidechain.model
    else:
        messages, started = len(v.loaded.messages), v.loaded.created_at
    title = [
        (f" {v.session_id}", "strong"),
        (f"  {v.format_version or ''}  {model or ''}  ", None),
        (state, tone),
    ]
    facts: list[Any] = [("count", records, "record"), ("size",), ("count", messages, "message")]
    if started:
        facts.append(("started", started))
    facts.append(("warnings", len(v.warnings)))
    return title, facts


def where(view: Any) -> str:
    """The session's place, for a screen's title: ``project / id``."""
    return f"{view.file.project or '(flat)'} / {view.file.session_id}"

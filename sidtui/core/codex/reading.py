"""A Codex CLI session as the screens and export read it (the common model's
:class:`~sidtui.core.sources.base.ConversationReading` and export items, docs/CODEX.md §3-4).

The messages are the conversation a resume sends (:mod:`.conversation`); a message's
blocks are given in the shapes every screen and exporter draws (``text``, ``thinking``,
``tool_use`` with ``id``/``name``/``input``, ``tool_result`` with ``tool_use_id``/
``content``), made from the history items Codex writes (``message``, ``reasoning``,
``function_call``…). What a resume leaves out (an output without its call) is not a
message: the banner and export say it; the ``aborted`` outputs Codex adds are drawn as
added. Context Codex writes itself (environment, AGENTS.md) is a note, not a prompt.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from sidtui.core.base.conversation import ConversationItem, SessionFacts, SubagentLink

CONTEXT_NOTE = "context Codex writes itself, not typed"
ADDED_NOTE = "Codex adds it on resume: the call has no output (sent as aborted)"
COMPACTED_NOTE = "from a compaction's replacement history (what Codex sends instead)"
#: How a conversation ended, in words (the ``ls`` badges' labels).
ENDED = {
    "none": "clean",
    "interrupted_prompt": "interrupted prompt",
    "interrupted_turn": "interrupted turn",
}


def raw_block(b: Any) -> dict[str, Any]:
    """One :class:`~.conversation.Block` in the shape screens and exporters draw."""
    if b.type == "text":
        return {"type": "text", "text": b.text or ""}
    if b.type == "thinking":
        return {"type": "thinking", "thinking": b.text or ""}
    if b.type == "tool_use":
        return {"type": "tool_use", "id": b.call_id, "name": b.name, "input": b.input}
    if b.type == "tool_result":
        return {"type": "tool_result", "tool_use_id": b.call_id, "content": b.text or ""}
    d: dict[str, Any] = {"type": b.type}
    if b.text is not None:
        d["text"] = b.text
    return d


def note_of(view: Any, m: Any) -> str | None:
    """What to say about message ``m`` beside its role (None: nothing)."""
    notes = []
    if m.context:
        notes.append(CONTEXT_NOTE)
    if m.base:
        notes.append(f"from session {m.base}, which this one was forked from")
    if m.compacted:
        notes.append(COMPACTED_NOTE)
    if any(view.resume.items[i].added for i in m.items):
        notes.append(ADDED_NOTE)
    return "; ".join(notes) or None


@dataclass(repr=False)
class CodexReading:
    """See the module docstring and :class:`~sidtui.core.sources.base.ConversationReading`."""

    view: Any
    messages: list[Any] = field(default_factory=list)
    dropped: dict[int, str] = field(default_factory=dict)
    block_dropped: dict[tuple[int, int], str] = field(default_factory=dict)
    notes: dict[int, str] = field(default_factory=dict)
    compacts: dict[int, list[int]] = field(default_factory=dict)
    banner: list[str] = field(default_factory=list)
    banner_kind: str = "none"
    head: tuple[list[tuple[str, str | None]], list[Any]] = ([], [])
    where: str = ""

    def span(self) -> tuple[Any, int] | None:
        return self.view.file.path, self.view.rollout.size

    def lines_of(self, msg: int) -> tuple[int, ...]:
        """The lines of the message's items that this rollout holds."""
        view = self.view
        items = view.resume.items
        recs = view.rollout.records
        lines = [
            recs[items[i].record].line
            for i in self.messages[msg].items
            if items[i].record is not None and not items[i].base
        ]
        return tuple(dict.fromkeys(lines))

    def record_of(self, msg: int) -> int | None:
        m = self.messages[msg]
        return None if m.base else m.record

    def record_text(self, index: int) -> tuple[int, str]:
        """``(line, JSON text)`` of record ``index`` (decoded and written again)."""
        from sidtui.core.base.jsonout import dumps_lenient

        text = dumps_lenient(self.view.full_record(index)).decode("utf-8", errors="replace")
        return self.view.rollout.records[index].line, text

    def compact_text(self, rec_index: int) -> str:
        rec = self.view.rollout.records[rec_index]
        return (
            f"── compacted here (line {rec.line}): Codex sends the replacement history "
            "below instead of what came before ──"
        )

    def content(self, msg: int) -> list[Any]:
        return [raw_block(b) for b in self.messages[msg].blocks]


def ended_words(kind: str | None) -> str:
    kind = kind or "none"
    return ENDED.get(kind, kind)


def reading(view: Any) -> CodexReading:
    """Read ``view`` (a :class:`~.session.CodexSessionView`) for the conversation."""
    r = CodexReading(view, list(view.messages))
    seen_compaction: set[int] = set()
    for i, m in enumerate(r.messages):
        note = note_of(view, m)
        if note:
            r.notes[i] = note
        if m.compacted and m.record is not None and m.record not in seen_compaction:
            seen_compaction.add(m.record)
            if not m.base:
                r.compacts[i] = [m.record]
    r.banner, r.banner_kind = banner(view)
    r.head = head(view)
    r.where = f"{view.session_id} (Codex CLI)"
    return r


def banner(view: Any) -> tuple[list[str], str]:
    """What ``codex resume`` continues from and how the conversation ended."""
    kind = view.interruption_kind or "none"
    tools = ", ".join(view.interruption_tools)
    lines = [f"On resume: {ended_words(kind)}" + (f" ({tools})" if tools else "")]
    pred = view.resume
    if pred.items:
        last = next((m.line for m in reversed(view.messages) if m.line is not None), None)
        where = f"line {last}" if last is not None else "its base session"
        lines.append(f"codex resume sends {len(pred.items)} history items, the last at {where}")
    else:
        lines.append("nothing to resume: a resume starts a new conversation")
    if pred.lost:
        lines.append(f"{len(pred.lost)} output(s) without their call are not sent")
    if pred.added:
        lines.append(f"{len(pred.added)} call(s) without an output: Codex sends them as aborted")
    if pred.compactions:
        lines.append(
            f"{pred.replaced} items before the last compaction are replaced by its history"
        )
    lines.append("Codex keeps no file states: no code rewind (a fork keeps the original)")
    return lines, kind


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def head(view: Any) -> tuple[list[tuple[str, str | None]], list[Any]]:
    """The screen header: ``(title, facts)`` (see ConversationReading.head)."""
    ended = ended_words(view.interruption_kind)
    if view.interruption_tools:
        ended += " (" + ", ".join(view.interruption_tools) + ")"
    lv = view.liveness
    tone: str | None = None
    if lv.live:
        ended, tone = "live: " + ended, "live"
    elif lv.stale:
        ended += " (stale lock)"
    title: list[tuple[str, str | None]] = [
        (f" Codex CLI session {view.session_id} · {_count(len(view.messages), 'message')}", None)
    ]
    if tone:
        title.append(("  live", tone))
    facts: list[Any] = [f"{_count(len(view.prompts), 'prompt')} · {ended}", ("size",)]
    if view.started:
        facts.append(("started", view.started))
    if view.warnings:
        facts.append(("warnings", len(view.warnings)))
    return title, facts


def conversation_items(view: Any) -> Iterator[ConversationItem]:
    """The conversation as export items: what a resume sends (``loaded``), the items
    Codex adds (``added``), then the outputs it drops (``lost``) after the rest."""
    items = view.resume.items
    for m in view.messages:
        added = [i for i in m.items if items[i].added]
        own = [b for b, i in zip(m.blocks, m.items, strict=False) if not items[i].added]
        if own or not added:
            yield ConversationItem(
                m.role,
                [raw_block(b) for b in own] if added else [raw_block(b) for b in m.blocks],
                note=note_of(view, m) if not added else _no_added(view, m),
                prompt=m.prompt,
                line=m.line,
                uuid=m.uuid,
                timestamp=m.timestamp,
                model=view.model if m.role == "assistant" else None,
            )
        if added:
            blocks = [b for b, i in zip(m.blocks, m.items, strict=False) if items[i].added]
            yield ConversationItem(
                "tool", [raw_block(b) for b in blocks], "added", ADDED_NOTE.split(": ", 1)[1]
            )
    recs = view.rollout.records
    for lost in view.resume.lost:
        rec = recs[lost["record"]] if lost["record"] is not None and not lost["base"] else None
        from sidtui.core.codex.conversation import blocks_of

        role, blocks = blocks_of(rec.payload) if rec is not None else ("tool", [])
        yield ConversationItem(
            role,
            [raw_block(b) for b in blocks],
            "lost",
            f"{lost['reason']}: Codex's resume does not send it",
            line=rec.line if rec is not None else None,
            timestamp=rec.timestamp if rec is not None else None,
        )


def _no_added(view: Any, m: Any) -> str | None:
    note = note_of(view, m)
    if note is None:
        return None
    rest = [n for n in note.split("; ") if n != ADDED_NOTE]
    return "; ".join(rest) or None


def subagent_links(view: Any) -> list[SubagentLink]:
    """Codex keeps no sub-agent transcripts (docs/CODEX.md)."""
    return []


def facts(view: Any) -> SessionFacts:
    """The session's own account of itself."""
    extra: dict[str, Any] = {}
    if view.provider:
        extra["model_provider"] = view.provider
    if view.originator:
        extra["originator"] = view.originator
    return SessionFacts(
        title=view.title,
        project=view.file.project,
        cwd=view.cwd,
        model=view.model,
        created_at=view.started,
        updated_at=view.last_activity,
        agent_version=view.version,
        resume_error=None if view.rollout.meta else "no session_meta record",
        extra=extra,
    )

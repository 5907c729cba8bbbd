"""A Claude Code session in the common export model (:class:`~sidtui.core.base.conversation.ConversationItem`).

The conversation on the display tree, message by message, each with its content decoded
whole from its records (a response written over several lines is merged by the reader's
own rule: a repeated block kept once), and what ``claude --resume`` does with it
(:mod:`.resume`): ``loaded`` when it sends the message, ``lost`` (with the lost group's
notice, or ``compacted``) when not, and the turns it adds itself as ``added`` after the
message they follow. Read one message at a time: nothing is held beyond the view.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sidtui.core.base.conversation import ConversationItem, SessionFacts, SubagentLink

#: What a user message that is no typed prompt is (kinds of :mod:`.kinds`).
KIND_NOTES = {
    "meta": "added by Claude Code (meta), not typed",
    "command": "a local command, not a prompt",
    "interrupt": "interruption marker",
    "compact_summary": "compaction summary Claude Code wrote",
    "api_error": "API error",
}
#: Why Claude Code adds a turn of its own (:mod:`.resume`'s ``why``), in words.
ADDED_WHY = {
    "ends_on_user_turn": "the conversation ends on a user turn",
    "pending_tool_use": "a tool use has no result",
}
COMPACTED_REASON = "before the last compaction: Claude Code sends the compaction's summary instead"


def blocks_of(view: Any, m: Any) -> list[Any]:
    """Message ``m``'s content blocks decoded whole (dicts as written)."""
    if m.string_content:
        return [{"type": "text", "text": m.blocks[0].text if m.blocks else ""}]
    if len(m.records) == 1:  # the usual message: its record's content as written
        rec = view.full_record(m.records[0])
        message = rec.get("message") if isinstance(rec, dict) else None
        raws = message.get("content") if isinstance(message, dict) else None
        return raws if isinstance(raws, list) else []
    return merged_blocks(view, m.records)


def merged_blocks(view: Any, records: Any) -> list[Any]:
    """The decoded blocks of a response written as one record per block (``records``),
    merged by the reader's rule (:func:`~sidtui.core.claude.conversation.build_messages`:
    a block equal to one already taken is the same block)."""
    objs = view.scan.objs
    seen: list[Any] = []
    out: list[Any] = []
    for ri in records:
        rec = view.full_record(ri)
        message = rec.get("message") if isinstance(rec, dict) else None
        raws = message.get("content") if isinstance(message, dict) else None
        scanned = objs[ri].message.content if objs[ri].message is not None else None
        if not isinstance(raws, list) or not isinstance(scanned, list):
            continue
        for b, raw in zip(scanned, raws, strict=False):
            if b not in seen:
                seen.append(b)
                out.append(raw)
    return out


def conversation_items(view: Any) -> Iterator[ConversationItem]:
    """The view's conversation as export items (see the module docstring)."""
    from sidtui.core.claude.resume import lost_notice

    pred = view.resume
    sent = pred.sent if pred is not None and pred.error is None else None
    why: dict[int, str] = {}
    added: dict[int, list[dict[str, Any]]] = {}
    if pred is not None and pred.error is None:
        for g in pred.lost:
            notice = lost_notice(g)
            for r in g.records:
                why[r] = notice
        for rec, add in zip(pred.added_after, pred.added, strict=False):
            added.setdefault(rec, []).append(add)
    for m in view.conversation:
        status, reason = "loaded", None
        if pred is not None and pred.error is not None:
            status, reason = "lost", pred.error
        elif m.compacted:
            status, reason = "lost", COMPACTED_REASON
        elif sent is not None and not any(r in sent for r in m.records):
            status = "lost"
            reason = next(
                (why[r] for r in m.records if r in why), "Claude Code's resume does not send it"
            )
        yield ConversationItem(
            m.role,
            blocks_of(view, m),
            status,
            reason,
            KIND_NOTES.get(m.kind),
            m.is_human_prompt,
            m.line,
            m.uuid,
            m.timestamp,
            m.model if isinstance(m.model, str) else None,
        )
        for r in m.records:
            for a in added.pop(r, ()):
                yield ConversationItem(
                    a.get("role"),
                    list(a.get("blocks") or []),
                    "added",
                    _added_reason(a),
                )
    for rest in added.values():  # after a record no message holds (never seen): at the end
        for a in rest:
            yield ConversationItem(
                a.get("role"), list(a.get("blocks") or []), "added", _added_reason(a)
            )


def _added_reason(a: dict[str, Any]) -> str:
    why = a.get("why")
    return f"Claude Code adds it on resume: {ADDED_WHY.get(why, why) if isinstance(why, str) else 'its own turn'}"


def subagent_links(view: Any) -> list[SubagentLink]:
    """The session's sub-agents, each with the tool use that spawned it; an inline
    sidechain (before 2.0) is a transcript of its own made of its records in the file."""
    return [
        SubagentLink(
            a.spawn.tool_use_id if a.spawn is not None else None,
            a.file if a.file is not None else _inline_ref(view, a),
            a.label,
            a.agent_type,
            a.description,
            a.status,
        )
        for a in view.subagents
    ]


def _inline_ref(view: Any, a: Any) -> Any:
    """The :class:`ClaudeFile` of inline sidechain ``a`` (None: no inline records)."""
    from dataclasses import replace

    if not a.inline:
        return None
    f = view.file
    lines = tuple(view.transcript.scan.lines[i] for i in a.inline)
    name = f"agent-{a.agent_id}" if a.agent_id else f"inline-{a.inline_line}"
    return replace(
        f,
        session_id=name,
        kind="sidechain",
        parent_session_id=f.session_id,
        agent_id=a.agent_id,
        layout="inline",
        inline_lines=lines,
    )


def facts(view: Any) -> SessionFacts:
    """The view's own account of the session."""
    pred = view.resume
    return SessionFacts(
        title=view.title,
        project=view.file.project,
        cwd=view.cwd,
        model=view.model,
        created_at=view.created_at,
        updated_at=view.updated_at,
        agent_version=view.version,
        git_branch=view.git_branch,
        resume_error=pred.error if pred is not None else None,
    )

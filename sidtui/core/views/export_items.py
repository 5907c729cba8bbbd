"""A sid-code session in the common export model (:class:`~sidtui.core.base.conversation.ConversationItem`).

A main session: the loader's messages in order (FORMAT.md §4), each with its content
decoded whole from its record, and what the agent's resume does with it (§6): ``loaded``
when recovery keeps it, ``lost`` with the cleaning layer and its reason when a layer drops
it (or every message, with the reason, when the agent cannot load or resume the session);
the resume note it adds (§6.10, in sidtui's words) is an ``added`` item at the end. A
sidechain file: its ``message`` records in file order (§9). One message at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sidtui.core.base.conversation import ConversationItem, SessionFacts, SubagentLink

REQUEUED = "re-queued as the next prompt on resume (interrupted prompt)"


def _content_blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return content
    return [] if content is None else [content]


def record_content(rf: Any, ref: Any) -> Any:
    """The ``content`` of the record ``ref`` (its ``message``'s, else its own)."""
    rec = rf.decode(ref)
    if not isinstance(rec, dict):
        return None
    message = rec.get("message")
    if isinstance(message, dict):
        return message.get("content")
    return rec.get("content")


def blocks_of(view: Any, m: Any) -> list[Any]:
    """Loader message ``m``'s content blocks decoded whole (dicts as written)."""
    raw = getattr(m, "raw", None)
    if raw is not None:
        return _content_blocks(raw.get("content"))
    rf = view.rf
    if rf is None or m.record is None:
        return [{"type": b.type, "text": b.text} for b in m.blocks]
    return _content_blocks(record_content(rf, rf.records[m.record]))


def _model(m: Any) -> str | None:
    try:
        v = m.meta.get("model")
    except (AttributeError, ValueError, TypeError):
        return None
    return v if isinstance(v, str) else None


def conversation_items(view: Any) -> Iterator[ConversationItem]:
    """The view's conversation as export items (see the module docstring)."""
    if view.sidechain is not None:
        yield from _sidechain_items(view)
        return
    rec = view.recovery
    failure: str | None = None
    if not view.loaded.loadable:
        failure = f"the agent will see nothing in this file: {view.loaded.load_failure}"
    elif rec is not None and rec.failure is not None:
        failure = f"the agent cannot resume this session: {rec.failure}"
    whole: dict[int, str] = {}
    parts: dict[int, list[str]] = {}
    changed: set[int] = set()
    requeued = None
    if rec is not None and failure is None:
        for d in rec.dropped:
            text = f"dropped by cleaning ({d.layer}): {d.reason}"
            if d.block is None:
                whole.setdefault(d.index, text)
            else:
                parts.setdefault(d.index, []).append(f"block {d.block} {text}")
        changed = {c.src_index for c in rec.messages if c.changed}
        if rec.interruption.message is not None:
            requeued = rec.interruption.message.src_index
    for i, m in enumerate(view.loaded.messages):
        status, reason = "loaded", None
        if failure is not None:
            status, reason = "lost", failure
        elif i in whole:
            status, reason = "lost", whole[i]
        notes = list(parts.get(i, ()))
        if i == requeued:
            notes.insert(0, REQUEUED)
        elif i in changed and not notes:
            notes.append("changed by cleaning")
        yield ConversationItem(
            m.role,
            blocks_of(view, m),
            status,
            reason,
            "; ".join(notes) or None,
            m.is_human_prompt,
            m.line,
            m.uuid,
            m.timestamp,
            _model(m) if m.role == "assistant" else None,
        )
    if rec is not None and failure is None and rec.resume_note:
        yield ConversationItem(
            None,
            [{"type": "text", "text": rec.resume_note}],
            "added",
            "the agent adds a note with this meaning on resume (in sidtui's words)",
        )


def _sidechain_items(view: Any) -> Iterator[ConversationItem]:
    rf = view.rf
    by_line = {r.line: r for r in rf.records} if rf is not None else {}
    for m in view.sidechain.messages:
        ref = by_line.get(m.line)
        content = record_content(rf, ref) if ref is not None else None
        blocks = (
            _content_blocks(content)
            if content is not None
            else [{"type": b.type, "text": b.text} for b in m.blocks]
        )
        yield ConversationItem(
            m.role,
            blocks,
            prompt=m.role == "user" and not any(b.type == "tool_result" for b in m.blocks),
            line=m.line,
            timestamp=m.timestamp,
        )


def subagent_links(view: Any) -> list[SubagentLink]:
    """The session's sidechains (sid-code records no spawning tool use id for them)."""
    from sidtui.core.base.home import SessionFile

    out = []
    for s in view.sidechains:
        ref = SessionFile(
            s.path,
            s.path.stem,
            view.file.project,
            "sidechain",
            "jsonl",
            s.parent_session_id,
            s.agent_id,
        )
        status = s.status or ("unfinished" if s.unfinished else None)
        out.append(
            SubagentLink(None, ref, s.agent_id or s.path.stem, s.agent_type, s.description, status)
        )
    return out


def facts(view: Any) -> SessionFacts:
    """The view's own account of the session."""
    agent = view.loaded.agent_fields
    title = None
    for m in view.loaded.messages:
        if m.is_human_prompt and m.preview(200).strip():
            title = m.preview(200)
            break
    rec = view.recovery

    def s(v: Any) -> str | None:
        return v if isinstance(v, str) else None

    resume_error = None
    if view.file.kind == "main" and not view.loaded.loadable:
        resume_error = view.loaded.load_failure
    elif rec is not None and rec.failure is not None:
        resume_error = rec.failure
    return SessionFacts(
        title=title,
        project=view.file.project,
        cwd=s(agent.get("cwd", view.loaded.cwd)),
        model=s(agent.get("model", view.loaded.model)),
        created_at=s(agent.get("createdAt", view.loaded.created_at)),
        updated_at=s(agent.get("updatedAt", view.loaded.updated_at)),
        agent_version=s(view.format_version),
        resume_error=resume_error,
    )

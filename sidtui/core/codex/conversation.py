"""A rollout's history as messages with blocks, its turns, and how it ended (docs/CODEX.md §3).

Messages are built from the resume prediction's items (what a resume loads): a user or
developer ``message`` is one message; the items the model answered with in a row
(``reasoning`` → a ``thinking`` block, an assistant ``message`` → ``text``, a call →
``tool_use``) are one assistant message; the outputs that follow, one ``tool`` message of
``tool_result`` blocks, each paired to its call by ``call_id``.

A user message is a prompt the user typed unless its text is one of the context blocks
Codex writes itself (``<environment_context>``, ``<turn_aborted>``, AGENTS.md
instructions…) or its metadata says so (``content_item_kinds``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from sidtui.core.codex.history import CALLS, OUTPUTS, Item
from sidtui.core.codex.rollout import Rollout

#: User-role texts Codex writes itself (context, not prompts).
CONTEXT_PREFIXES = (
    "<environment_context>",
    "<turn_aborted>",
    "<user_instructions>",
    "<user_shell_command>",
    "# AGENTS.md",
    "<permissions",
    "<skills_instructions>",
    "<collaboration_mode>",
    "Another language model started to solve this problem",
)
INTERRUPTED_MARK = "<turn_aborted>"


@dataclass
class Block:
    """One content block: ``text``, ``thinking``, ``tool_use`` (``name``, ``call_id``,
    ``input``), ``tool_result`` (``call_id``, ``text``), ``image``, or the item's own type."""

    type: str
    text: str | None = None
    name: str | None = None
    call_id: str | None = None
    input: Any = None

    # the names screens read a block by (core/transcript/structs.Block's)
    @property
    def id(self) -> str | None:
        return self.call_id if self.type == "tool_use" else None

    @property
    def tool_use_id(self) -> str | None:
        return self.call_id if self.type == "tool_result" else None

    @property
    def is_error(self) -> None:
        return None  # Codex's outputs carry no error flag

    @property
    def text_like(self) -> str | None:
        return self.text if self.type in ("text", "thinking") else None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": self.type}
        for k in ("text", "name", "call_id", "input"):
            v = getattr(self, k)
            if v is not None:
                d[k] = v
        return d


@dataclass
class CodexMessage:
    """One message of the conversation (the :class:`~sidtui.core.sources.base.MessageLike`
    of Codex). ``items``: indices into the prediction's items; ``record``/``line``: the
    first item's record (None for an item Codex adds or one from a fork's base);
    ``compacted``: from a compaction's replacement history; ``base``: the session whose
    rollout holds it when this one is a fork of it ("": this rollout)."""

    index: int
    role: str
    blocks: list[Block]
    items: list[int]
    uuid: str | None = None
    record: int | None = None
    line: int | None = None
    timestamp: str | None = None
    prompt: bool = False
    context: bool = False
    compacted: bool = False
    base: str = ""

    @property
    def is_human_prompt(self) -> bool:
        return self.prompt

    @property
    def block_types(self) -> list[Any]:
        return [b.type for b in self.blocks]

    @property
    def tool_names(self) -> list[str]:
        return [b.name or "?" for b in self.blocks if b.type == "tool_use"]

    def preview(self, width: int = 60) -> str:
        texts = [b.text for b in self.blocks if b.type == "text" and b.text and b.text.strip()]
        if not texts:
            texts = [b.text for b in self.blocks if b.text and b.text.strip()]
        if not texts and self.tool_names:
            return ", ".join(self.tool_names)[:width]
        return " ".join(texts[0].split())[:width] if texts else ""

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "role": self.role,
            "uuid": self.uuid,
            "line": self.line,
            "timestamp": self.timestamp,
            "prompt": self.prompt,
            "context": self.context,
            "compacted": self.compacted,
            "base": self.base or None,
            "blocks": [b.to_json() for b in self.blocks],
        }


def _texts(content: Any) -> list[Block]:
    out: list[Block] = []
    if isinstance(content, str):
        return [Block("text", content)]
    if not isinstance(content, list):
        return out
    for c in content:
        if not isinstance(c, dict):
            continue
        t = c.get("type")
        if t in ("input_text", "output_text", "text"):
            out.append(Block("text", str(c.get("text") or "")))
        elif t in ("input_image", "image"):
            out.append(Block("image"))
        else:
            out.append(
                Block(str(t or "?"), c.get("text") if isinstance(c.get("text"), str) else None)
            )
    return out


def _output_text(p: dict[str, Any]) -> str:
    o = p.get("output")
    if isinstance(o, str):
        return o
    if isinstance(o, dict) and isinstance(o.get("content"), str):
        return o["content"]
    if isinstance(o, list):
        return "\n".join(b.text or "" for b in _texts(o))
    return "" if o is None else json.dumps(o)


def blocks_of(p: dict[str, Any]) -> tuple[str, list[Block]]:
    """``(role, blocks)`` of one history item."""
    t = p.get("type")
    if t == "message":
        role = p.get("role")
        return (role if isinstance(role, str) else "user"), _texts(p.get("content"))
    if t == "reasoning":
        parts = [s.get("text") for s in p.get("summary") or [] if isinstance(s, dict)]
        parts += [s.get("text") for s in p.get("content") or [] if isinstance(s, dict)]
        return "assistant", [Block("thinking", "\n".join(x for x in parts if isinstance(x, str)))]
    if t in CALLS or t in ("web_search_call", "tool_search_call"):
        name = p.get("name") if isinstance(p.get("name"), str) else t
        raw = p.get("arguments", p.get("input", p.get("action")))
        inp: Any = raw
        if isinstance(raw, str) and t == "function_call":
            try:
                inp = json.loads(raw)
            except ValueError:
                inp = raw
        cid = p.get("call_id") if isinstance(p.get("call_id"), str) else None
        return "assistant", [Block("tool_use", name=str(name), call_id=cid, input=inp)]
    if t in OUTPUTS:
        cid = p.get("call_id") if isinstance(p.get("call_id"), str) else None
        return "tool", [Block("tool_result", _output_text(p), call_id=cid)]
    return "assistant", [Block(str(t or "?"))]


def is_context(p: dict[str, Any], raw: dict[str, Any] | None) -> bool:
    """A user/developer message Codex wrote itself (see the module docstring)."""
    if p.get("role") == "developer":
        return True
    meta = (raw or {}).get("internal_chat_message_metadata_passthrough")
    kinds = meta.get("content_item_kinds") if isinstance(meta, dict) else None
    if isinstance(kinds, list) and kinds and all(k == "user.text" for k in kinds):
        return False
    texts = [b.text or "" for b in _texts(p.get("content"))]
    return bool(texts) and all(t.lstrip().startswith(CONTEXT_PREFIXES) for t in texts)


def build_messages(rollout: Rollout, items: list[Item]) -> list[CodexMessage]:
    """The conversation of ``items`` (see the module docstring)."""
    out: list[CodexMessage] = []
    recs = rollout.records
    for i, it in enumerate(items):
        role, blocks = blocks_of(it.payload)
        rec = recs[it.record] if it.record is not None and not it.base else None
        raw = rec.payload if rec is not None and not it.compacted else None
        merge = out and out[-1].role == role and role in ("assistant", "tool")
        if merge:
            m = out[-1]
            m.blocks += blocks
            m.items.append(i)
            continue
        ctx = role in ("user", "developer") and is_context(it.payload, raw)
        iid = it.payload.get("id")
        out.append(
            CodexMessage(
                index=len(out),
                role=role,
                blocks=blocks,
                items=[i],
                uuid=iid if isinstance(iid, str) else None,
                record=it.record,
                line=rec.line if rec is not None else None,
                timestamp=rec.timestamp if rec is not None else None,
                prompt=role == "user" and not ctx,
                context=ctx,
                compacted=it.compacted,
                base=it.base,
            )
        )
    return out


@dataclass
class Turn:
    """One turn (``task_started`` … ``task_complete``/``turn_aborted``).

    ``state``: ``complete``, ``aborted`` (Codex recorded the interruption, with its
    ``reason``) or ``unfinished`` (no end recorded: the process died mid-turn).
    """

    turn_id: str
    record: int
    line: int
    state: str = "unfinished"
    reason: str | None = None
    end_line: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "turn_id": self.turn_id,
            "line": self.line,
            "state": self.state,
            "reason": self.reason,
            "end_line": self.end_line,
        }


def read_turns(rollout: Rollout) -> list[Turn]:
    turns: list[Turn] = []
    by_id: dict[str, Turn] = {}
    for r in rollout.records:
        if r.type != "event_msg":
            continue
        sub = r.sub
        if sub not in ("task_started", "task_complete", "turn_aborted"):
            continue
        tid = r.payload.get("turn_id")
        if not isinstance(tid, str):
            continue
        if sub == "task_started":
            t = Turn(tid, r.index, r.line)
            turns.append(t)
            by_id[tid] = t
        elif sub in ("task_complete", "turn_aborted") and tid in by_id:
            t = by_id[tid]
            t.state = "complete" if sub == "task_complete" else "aborted"
            reason = r.payload.get("reason")
            t.reason = reason if isinstance(reason, str) else None
            t.end_line = r.line
    return turns


@dataclass
class Interruption:
    """How the conversation ended, by its shape (the kinds of the other sources).

    ``kind``: ``none``; ``interrupted_prompt`` (the last prompt got no answer);
    ``interrupted_turn`` (the model's last step was calls: their results never reached it,
    or they never ran). ``recorded``: Codex wrote ``<turn_aborted>`` for it;
    ``unfinished``: the last turn has no end record (the process died).
    """

    kind: str = "none"
    tool_names: list[str] = field(default_factory=list)
    message: int | None = None
    recorded: bool = False
    unfinished: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "tool_names": self.tool_names,
            "message": self.message,
            "recorded": self.recorded,
            "unfinished": self.unfinished,
        }


def interruption(messages: list[CodexMessage], turns: list[Turn]) -> Interruption:
    out = Interruption(unfinished=bool(turns) and turns[-1].state == "unfinished")
    msgs = [m for m in messages if not m.context or _aborted(m)]
    if msgs and _aborted(msgs[-1]):
        out.recorded = True
        msgs = msgs[:-1]
    if not msgs:
        return out
    last = msgs[-1]
    out.message = last.index
    if last.prompt:
        out.kind = "interrupted_prompt"
    elif last.role == "tool":
        out.kind = "interrupted_turn"
        calls = {b.call_id: b.name for m in msgs for b in m.blocks if b.type == "tool_use"}
        out.tool_names = [calls.get(b.call_id) or "?" for b in last.blocks]
    elif last.role == "assistant" and "text" not in last.block_types:
        out.kind = "interrupted_turn"
        out.tool_names = last.tool_names
    return out


def _aborted(m: CodexMessage) -> bool:
    return m.role == "user" and any(
        (b.text or "").lstrip().startswith(INTERRUPTED_MARK) for b in m.blocks
    )


def first_prompt(messages: list[CodexMessage]) -> str | None:
    for m in messages:
        if m.prompt:
            p = m.preview(200)
            if p:
                return p
    return None


def search_documents(rec: dict[str, Any]) -> list[tuple[str, str]]:
    """``(kind, text)`` search documents of one rollout record: a typed prompt
    (``prompt``), the model's text (``assistant``), a call with its arguments (``tool``);
    context Codex writes itself is not indexed."""
    p = rec.get("payload")
    if rec.get("type") != "response_item" or not isinstance(p, dict):
        return []
    role, blocks = blocks_of(p)
    if p.get("type") == "message" and role in ("user", "assistant"):
        if role == "user" and is_context(p, p):
            return []
        text = "\n".join(b.text for b in blocks if b.type == "text" and b.text and b.text.strip())
        return [("assistant" if role == "assistant" else "prompt", text)] if text else []
    calls = [b for b in blocks if b.type == "tool_use"]
    if calls:
        b = calls[0]
        inp = b.input if isinstance(b.input, str) else json.dumps(b.input, ensure_ascii=False)
        return [("tool", f"{b.name} {inp}")]
    return []

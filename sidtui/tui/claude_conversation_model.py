"""The Conversation tab's rows for a Claude Code session: sid-code's
:class:`~sidtui.tui.conversation_model.ConversationModel` built from a ``ClaudeSessionView``.

One header entry per message and one per content block (the virtualised
:class:`~sidtui.tui.widgets.conversation_view.ConversationView` draws only what is on
screen); messages before the last compaction are dimmed (not sent on resume), prompts that
are no human input (meta, commands, markers) say so, and the banner says what resume does.
Tool inputs and results are decoded from their records only when drawn: a response split
over several records (one ``message.id``) maps its merged blocks back to each record's
content with the reader's own rule (a repeated block is kept once).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from sidtui.fmt import BADGES, plural
from sidtui.tui.conversation_model import ConversationModel, Entry

#: Messages whose decoded content is kept (the view draws a screenful at a time).
CONTENT_CACHE = 512
COMPACTED = "compaction: before the last compact boundary, not sent on resume"
NOT_LOADED = "Claude Code's --resume does not load it (the banner says why)"
#: What a user message that is no typed prompt is (kinds of ``sidtui.core.claude.kinds``).
KIND_NOTES = {
    "meta": "added by Claude Code (meta), not typed",
    "command": "a local command, not a prompt",
    "interrupt": "interruption marker",
    "compact_summary": "compaction summary Claude Code wrote",
    "api_error": "API error",
}


@dataclass(repr=False)
class ClaudeConversationModel(ConversationModel):
    """Entries of a Claude Code conversation (see the module docstring)."""

    _contents: OrderedDict = field(default_factory=OrderedDict)

    @classmethod
    def from_view(cls, view) -> ClaudeConversationModel:
        """Lay out ``view`` (a ClaudeSessionView): O(messages + blocks), no decoding."""
        model = cls(view=view)
        model.messages = list(view.conversation)
        pred = view.resume
        sent = pred.sent if pred is not None and pred.error is None else None
        for i, m in enumerate(model.messages):
            note = KIND_NOTES.get(m.kind)
            dim = COMPACTED if m.compacted else None
            if dim is None and sent is not None and not any(r in sent for r in m.records):
                dim = NOT_LOADED
            model.add_message(i, m, dim, {}, note)
        model.banner, model.banner_kind = banner(view)
        model.entries.append(Entry("banner", None))
        return model

    def source(self) -> tuple[Any, int] | None:
        return self.view.file.path, self.view.scan.size

    def lines_of(self, msg: int) -> tuple[int, ...]:
        """Every line of the message: a response is merged from one record per block."""
        lines = self.view.scan.lines
        return tuple(lines[ri] for ri in self.messages[msg].records)

    def raw_block(self, msg: int, block: int) -> dict[str, Any] | None:
        content = self._content(msg)
        if 0 <= block < len(content):
            b = content[block]
            return b if isinstance(b, dict) else None
        return None

    def _content(self, msg: int) -> list[Any]:
        """The decoded blocks of message ``msg``, in the order of its merged ``blocks``."""
        cache = self._contents
        if msg in cache:
            cache.move_to_end(msg)
            return cache[msg]
        m = self.messages[msg]
        out: list[Any] = []
        if not m.string_content:
            objs = self.view.scan.objs
            seen: list[Any] = []
            for ri in m.records:
                rec = self.view.full_record(ri)
                message = rec.get("message") if isinstance(rec, dict) else None
                raws = message.get("content") if isinstance(message, dict) else None
                scanned = objs[ri].message.content if objs[ri].message is not None else None
                if not isinstance(raws, list) or not isinstance(scanned, list):
                    continue
                for b, raw in zip(scanned, raws, strict=False):
                    if b not in seen:  # the reader's merge rule (conversation.build_messages)
                        seen.append(b)
                        out.append(raw)
        cache[msg] = out
        if len(cache) > CONTENT_CACHE:
            cache.popitem(last=False)
        return out


def banner(view) -> tuple[list[str], str]:
    """The final banner: what resume continues from and how the conversation ended."""
    tips = view.tip_rows
    resume = next((t for t in tips if t["resume"]), None)
    kind = view.interruption_kind or "none"
    tools = ", ".join(view.interruption_tools)
    head = f"On resume: {BADGES.get(kind, (kind, ''))[0]}" + (f" ({tools})" if tools else "")
    lines = [head]
    if resume is not None:
        lines.append(
            f"claude --resume continues from line {resume['line']}; "
            f"{plural(len(tips), 'leaf', 'leaves')} in the file (the Tips tab lists them)"
        )
    else:
        lines.append("nothing to resume: a resume starts a new conversation")
    compacted = sum(1 for m in view.conversation if m.compacted)
    if compacted:
        lines.append(f"{compacted} messages before the last compaction are not sent (dimmed)")
    lines += _resume_lines(view.resume)
    return lines, kind


def _resume_lines(pred) -> list[str]:
    """What Claude Code's own --resume leaves out (docs/CLAUDE-CODE.md §11), for the banner."""
    if pred is None:
        return []
    if pred.error:
        return [f"Claude Code refuses to resume it: {pred.error}"]
    from sidtui.core.claude.resume import COMPACTED as LOST_COMPACTED
    from sidtui.core.claude.resume import lost_notice

    return [f"{lost_notice(g)} (dimmed)" for g in pred.lost if g.reason != LOST_COMPACTED]

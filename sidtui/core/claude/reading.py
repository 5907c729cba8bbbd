"""A Claude Code session as the conversation view reads it (the common model's
:class:`~sidtui.core.sources.base.ConversationReading`, no Textual).

:func:`reading` turns a :class:`~sidtui.core.claude.session.ClaudeSessionView` into what
any screen needs to draw its conversation: the messages of the conversation; messages
before the last compaction, and those ``--resume`` leaves out, marked as not sent (drawn
dimmed); prompts that are no human input (meta, commands, markers) saying so; the banner
(what resume continues from and how the conversation ended). A message's blocks are
decoded from its records only when asked (:meth:`ClaudeReading.content`): a response
split over several records (one ``message.id``) maps its merged blocks back to each
record's content with the reader's own rule (a repeated block is kept once).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from sidtui.core.base.model_views import ReadingFields
from sidtui.core.base.words import plural

#: Messages whose decoded content is kept (a screen draws a screenful at a time).
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
#: How a conversation ended, in words (the ``ls`` badges' labels).
ENDED = {
    "none": "clean",
    "interrupted_prompt": "interrupted prompt",
    "interrupted_turn": "interrupted turn",
}


@dataclass(repr=False)
class ClaudeReading(ReadingFields):
    """See the module docstring and :class:`~sidtui.core.sources.base.ConversationReading`."""

    _contents: OrderedDict = field(default_factory=OrderedDict)

    def span(self) -> tuple[Any, int] | None:
        return self.view.file.path, self.view.scan.size

    def lines_of(self, msg: int) -> tuple[int, ...]:
        """Every line of the message: a response is merged from one record per block."""
        lines = self.view.scan.lines
        return tuple(lines[ri] for ri in self.messages[msg].records)

    def record_of(self, msg: int) -> int | None:
        """The (first) record index message ``msg`` is read from."""
        return self.messages[msg].record

    def record_text(self, index: int) -> tuple[int, str]:
        """``(line, JSON text)`` of record ``index`` (decoded and written again)."""
        from sidtui.core.base.jsonout import dumps_lenient

        text = dumps_lenient(self.view.full_record(index)).decode("utf-8", errors="replace")
        return self.view.scan.lines[index], text

    def compact_text(self, rec_index: int) -> str:
        return ""  # compactions are said on the messages they hide (dimmed)

    def text_shown(self, msg: int, text: str) -> str:
        """A text block as the conversation draws it: a user's command record as typed
        (``/name args``), not the tags Claude Code wraps it in."""
        if self.messages[msg].role == "user" and text.lstrip().startswith("<command-"):
            from sidtui.core.claude.conversation import command_line

            return command_line(text)
        return text

    def content(self, msg: int) -> list[Any]:
        """The decoded blocks of message ``msg``, in the order of its merged ``blocks``."""
        cache = self._contents
        if msg in cache:
            cache.move_to_end(msg)
            return cache[msg]
        m = self.messages[msg]
        out: list[Any] = []
        if not m.string_content:
            from sidtui.core.claude.export_items import merged_blocks

            out = merged_blocks(self.view, m.records)
        cache[msg] = out
        if len(cache) > CONTENT_CACHE:
            cache.popitem(last=False)
        return out


def reading(view: Any) -> ClaudeReading:
    """Read ``view`` for the conversation: O(messages + blocks), no decoding."""
    r = ClaudeReading(view, list(view.conversation))
    pred = view.resume
    sent = pred.sent if pred is not None and pred.error is None else None
    for i, m in enumerate(r.messages):
        note = KIND_NOTES.get(m.kind)
        if note is not None:
            r.notes[i] = note
        if m.compacted:
            r.dropped[i] = COMPACTED
        elif sent is not None and not any(ri in sent for ri in m.records):
            r.dropped[i] = NOT_LOADED
    r.banner, r.banner_kind = banner(view)
    r.head = head(view)
    r.where = f"{view.file.session_id} (Claude Code)"
    return r


def ended_words(kind: str | None) -> str:
    """How a conversation ended (``clean``, ``interrupted prompt``…)."""
    kind = kind or "none"
    return ENDED.get(kind, kind)


def banner(view: Any) -> tuple[list[str], str]:
    """The final banner: what resume continues from and how the conversation ended."""
    tips = view.tip_rows
    resume = next((t for t in tips if t["resume"]), None)
    kind = view.interruption_kind or "none"
    tools = ", ".join(view.interruption_tools)
    head = f"On resume: {ended_words(kind)}" + (f" ({tools})" if tools else "")
    lines = [head]
    if resume is not None:
        leaves = f"{len(tips)} {'leaf' if len(tips) == 1 else 'leaves'}"
        lines.append(
            f"claude --resume continues from line {resume['line']}; "
            f"{leaves} in the file (the Tips tab lists them)"
        )
    else:
        lines.append("nothing to resume: a resume starts a new conversation")
    compacted = sum(1 for m in view.conversation if m.compacted)
    if compacted:
        lines.append(
            f"{plural(compacted, 'message')} before the last compaction "
            f"{'is' if compacted == 1 else 'are'} not sent (dimmed)"
        )
    lines += _resume_lines(view.resume)
    return lines, kind


def _resume_lines(pred: Any) -> list[str]:
    """What Claude Code's own --resume leaves out (docs/CLAUDE-CODE.md §11), for the banner."""
    if pred is None:
        return []
    if pred.error:
        return [f"Claude Code refuses to resume it: {pred.error}"]
    from sidtui.core.claude.resume import COMPACTED as LOST_COMPACTED
    from sidtui.core.claude.resume import lost_notice

    return [f"{lost_notice(g)} (dimmed)" for g in pred.lost if g.reason != LOST_COMPACTED]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def head(view: Any) -> tuple[list[tuple[str, str | None]], list[Any]]:
    """The screen header of a Claude Code session: ``(title, facts)``
    (``head`` of :class:`~sidtui.core.sources.base.ConversationReading`): the leaf a resume
    picks, how many leaves there are, how the conversation ended — ``live: …`` while a
    Claude Code process writes it, ``… (stale)`` when a dead one left its registration."""
    tips = view.tip_rows
    resume = next((t for t in tips if t["resume"]), None)
    kinds: dict[str, int] = {}
    for t in tips:
        kinds[t["kind"]] = kinds.get(t["kind"], 0) + 1
    leaves = ", ".join(f"{n} {k}" for k, n in kinds.items()) or "none"
    on_resume = f"resume continues from line {resume['line']}" if resume else "nothing to resume"
    ended = ended_words(view.interruption_kind)
    if view.interruption_tools:
        ended += " (" + ", ".join(view.interruption_tools) + ")"
    lv = view.liveness
    if lv.live:
        possibly = all(r.possibly for r in lv.registrations if r.live)
        ended = ("possibly live: " if possibly else "live: ") + ended
    elif lv.stale:
        ended += " (stale)"
    title: list[tuple[str, str | None]] = [
        (
            f" Claude Code session {view.session_id} · {_count(len(view.conversation), 'message')}",
            None,
        )
    ]
    return title, [f"{on_resume} · {_count(len(tips), 'tip')}: {leaves} · {ended}"]

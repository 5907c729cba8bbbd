"""The resumed conversation as messages, and how it ended (docs/CLAUDE-CODE.md §5.9, §6).

:func:`build_messages` turns the tree's conversation records into messages: a ``user``
record is one message (its :mod:`kind <sidtui.core.claude.kinds>` says whether it is a
typed prompt); the ``assistant`` lines of one API response (one line per content block,
sharing ``message.id``) are merged into one message, wherever their parts sit (parallel
tool calls put parts on side branches). ``system``/``attachment``/``progress`` records are
not messages. Messages before the last compaction on the chain are ``compacted``: shown,
but not what the model is sent on resume.

:func:`detect_interruption` reads the end of the conversation by its shape, since
``stop_reason`` is usually null: ``none`` (a finished reply), ``interrupted_prompt`` (a
typed prompt nothing answered), ``interrupted_turn`` (tool results the model never saw, a
tool use without a result, or a reply the user cut with ``[Request interrupted by user…]``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import msgspec

from sidtui.core.claude.kinds import (
    COMMAND,
    COMPACT_SUMMARY,
    INTERRUPT,
    META,
    PROMPT,
    TOOL_RESULTS,
    user_kind,
)
from sidtui.core.claude.scan import CRecord
from sidtui.core.claude.tree import ClaudeTree
from sidtui.core.transcript.messages import tool_name_text
from sidtui.core.transcript.structs import Block

#: Text blocks Claude Code adds around a prompt (not what the user typed).
CONTEXT_PREFIXES = (
    "<ide_opened_file>",
    "<ide_selection>",
    "<system-reminder>",
    "<ide_diagnostics>",
)
#: Assistant message kinds.
REPLY = "reply"
API_ERROR = "api_error"


class ClaudeMessage(msgspec.Struct, gc=False):
    """One message of the conversation.

    Attributes:
        index: position in the message list.
        record: the first record it was read from (scan index); records: every record
            merged into it (an assistant response's parts), first first.
        uuid: the first record's uuid; line: its physical line.
        role: ``user`` or ``assistant``.
        kind: for user messages a :mod:`~sidtui.core.claude.kinds` kind (``prompt``,
            ``tool_results``, ``meta``, ``compact_summary``, ``command``, ``interrupt``);
            for assistant messages ``reply`` or ``api_error``.
        blocks: the content blocks (a string content is one text block,
            ``string_content`` True).
        timestamp: the first record's; message_id: ``message.id``; model: the model.
        sidechain: the record has ``isSidechain: true``.
        compacted: before the last compaction on the chain (not sent on resume).
    """

    index: int
    record: int
    records: list[int]
    uuid: str | None
    line: int
    role: str
    kind: str
    blocks: list[Block]
    string_content: bool = False
    timestamp: str | None = None
    message_id: Any = None
    model: Any = None
    sidechain: bool = False
    compacted: bool = False

    @property
    def is_human_prompt(self) -> bool:
        """A prompt the user typed (not a tool result, command, caveat or marker)."""
        return self.role == "user" and self.kind == PROMPT

    @property
    def block_types(self) -> list[Any]:
        return [b.type for b in self.blocks]

    @property
    def tool_names(self) -> list[str]:
        return [tool_name_text(b.name) for b in self.blocks if b.type == "tool_use"]

    def preview(self, width: int = 60) -> str:
        """The first ``width`` characters of the first text block (a reply's thinking only
        when it has no text: the reply is what was said); a prompt's context wrappers
        (``<ide_opened_file>``, ``<system-reminder>``…) are passed over when more text
        follows."""
        texts = [t for b in self.blocks if (t := b.text) and isinstance(t, str) and not t.isspace()]
        if not texts:
            texts = [t for b in self.blocks if (t := b.text_like) and not t.isspace()]
        if self.role == "user" and len(texts) > 1:
            plain = [t for t in texts if not t.lstrip().startswith(CONTEXT_PREFIXES)]
            texts = plain or texts
        if self.role == "user" and texts and texts[0].lstrip().startswith("<command-"):
            return command_line(texts[0])[:width]
        return texts[0][:width] if texts else ""


_COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.S)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)


def command_line(text: str) -> str:
    """A command record as the user typed it (``/name args``); the text itself when it
    names no command."""
    name = _COMMAND_NAME.search(text)
    if name is None:
        return text
    args = _COMMAND_ARGS.search(text)
    return " ".join(x for x in (name.group(1).strip(), args.group(1).strip() if args else "") if x)


def build_messages(objs: list[CRecord], lines: Any, tree: ClaudeTree) -> list[ClaudeMessage]:
    """The messages of ``tree.conversation``, in order (see the module docstring).

    A message's ``blocks`` is its record's own list until a second part is merged into
    it (then a copy): the scan's structs are never changed.
    """
    out: list[ClaudeMessage] = []
    append = out.append
    by_id: dict[Any, ClaudeMessage] = {}
    last_compaction = tree.compactions[-1] if tree.compactions else None
    compacted = last_compaction is not None
    Msg = ClaudeMessage
    for i in tree.conversation:
        if i == last_compaction:
            compacted = False
        o = objs[i]
        t = o.type
        if t != "user" and t != "assistant":
            continue
        m = o.message
        c = m.content if m is not None else None
        blocks: list[Block]
        if isinstance(c, str):
            blocks, string = [Block(type="text", text=c)], True
        else:
            blocks, string = (c if c else []), False
        if t == "assistant":
            mid = m.id if m is not None else None
            prev = by_id.get(mid) if mid is not None else None
            if prev is not None:
                have = prev.blocks
                if len(prev.records) == 1:  # first merge: stop sharing the record's list
                    have = prev.blocks = list(have)
                for b in blocks:
                    if b not in have:  # a part may repeat a block already merged
                        have.append(b)
                prev.records.append(i)
                continue
            msg = Msg(
                len(out),
                i,
                [i],
                o.uuid,
                lines[i],
                "assistant",
                API_ERROR if o.isApiErrorMessage is True else REPLY,
                blocks,
                string,
                o.timestamp,
                mid,
                m.model if m is not None else None,
                o.isSidechain is True,
                compacted,
            )
            if mid is not None:
                by_id[mid] = msg
            append(msg)
        else:
            append(
                Msg(
                    len(out),
                    i,
                    [i],
                    o.uuid,
                    lines[i],
                    "user",
                    user_kind(o),
                    blocks,
                    string,
                    o.timestamp,
                    None,
                    None,
                    o.isSidechain is True,
                    compacted,
                )
            )
    _expanded_commands(out)
    return out


def _expanded_commands(out: list[ClaudeMessage]) -> None:
    """A ``<command-name>`` record the model is prompted by — the next message is the
    command's expanded prompt (``isMeta`` text, no tag) — is a prompt (a custom command
    written ``<command-name>`` first)."""
    for k in range(len(out) - 1):
        m, nxt = out[k], out[k + 1]
        if m.kind != COMMAND or nxt.kind != META or nxt.role != "user":
            continue
        t = next((b.text for b in m.blocks if b.type == "text" and isinstance(b.text, str)), "")
        body = next(
            (b.text for b in nxt.blocks if b.type == "text" and isinstance(b.text, str)), ""
        )
        if t.lstrip().startswith("<command-name>") and body and not body.lstrip().startswith("<"):
            m.kind = PROMPT


@dataclass
class Interruption:
    """How the conversation ended (the same kinds as a sid-code session's).

    Attributes:
        kind: ``none``, ``interrupted_prompt`` or ``interrupted_turn``.
        tool_names: for ``interrupted_turn``, the tools whose results the model never saw
            or that never got a result.
        message: index of the message that decided it (None: no messages).
        marker: index of the ``[Request interrupted by user…]`` message that ends the
            conversation, if one does.
        pending: ids of tool uses without a result (a turn cut before its tools ran).
    """

    kind: str = "none"
    tool_names: list[str] = field(default_factory=list)
    message: int | None = None
    marker: int | None = None
    pending: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "tool_names": self.tool_names,
            "message": self.message,
            "marker": self.marker,
            "pending": self.pending,
        }


#: User message kinds that say nothing about how the turn ended (skipped from the end).
_NEUTRAL = frozenset({META, COMMAND, COMPACT_SUMMARY})


def detect_interruption(messages: list[ClaudeMessage]) -> Interruption:
    """Judge the end of the conversation by its content (see the module docstring)."""
    k = len(messages) - 1
    marker = None
    while k >= 0:
        m = messages[k]
        if m.role == "user" and m.kind in _NEUTRAL:
            k -= 1
        elif m.role == "assistant" and m.kind == API_ERROR:
            k -= 1  # an error shown as a reply answers nothing
        elif m.role == "user" and m.kind == INTERRUPT and marker is None:
            marker = k
            k -= 1
        else:
            break
    if k < 0:
        return Interruption("none", marker=marker)
    last = messages[k]
    if last.role == "user" and last.kind == TOOL_RESULTS:
        # every result since the last reply: parallel tool calls end in several
        ids: list[Any] = []
        j = k
        while j >= 0 and messages[j].role == "user" and messages[j].kind in (TOOL_RESULTS, META):
            ids[:0] = [b.tool_use_id for b in messages[j].blocks if b.type == "tool_result"]
            j -= 1
        return Interruption("interrupted_turn", _names(ids, messages, k), k, marker)
    if last.role == "user":
        return Interruption("interrupted_prompt", [], k, marker)
    pending = [b.id for b in last.blocks if b.type in ("tool_use", "server_tool_use")]
    if pending:
        return Interruption(
            "interrupted_turn", _names(pending, messages, k + 1), k, marker, pending
        )
    if marker is not None:
        return Interruption("interrupted_turn", [], k, marker)
    return Interruption("none", [], k)


def _names(ids: list[Any], messages: list[ClaudeMessage], before: int) -> list[str]:
    """The tool names of ``ids``, from the tool uses of the replies before ``before``
    (searched backwards: the uses are near the end; an unknown id is ``?``)."""
    want = {i for i in ids if isinstance(i, str)}
    names: dict[Any, str] = {}
    k = before - 1
    while want and k >= 0:
        m = messages[k]
        if m.role == "assistant":
            for b in m.blocks:
                if b.id in want and b.type in ("tool_use", "server_tool_use"):
                    names[b.id] = tool_name_text(b.name)
                    want.discard(b.id)
        k -= 1
    return [names.get(i, "?") if isinstance(i, str) else "?" for i in ids]


def first_prompt(messages: list[ClaudeMessage]) -> ClaudeMessage | None:
    """The first typed prompt (a session's fallback title)."""
    return next((m for m in messages if m.is_human_prompt), None)

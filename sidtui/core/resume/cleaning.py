"""The agent's six cleaning layers over the loaded messages (FORMAT.md §6.1–§6.8).

1. :func:`migrate_legacy_formats` — the agent's reserved migration point;
2. :func:`strip_invalid_permission_modes` — ``_meta.permissionMode`` values no longer valid;
3. :func:`filter_unresolved_tool_uses` — tool_use blocks without a tool_result (orphans);
4. :func:`filter_orphaned_thinking_only_messages` — assistant messages left with only thinking;
5. :func:`filter_whitespace_only_assistant_messages` — empty assistant shells;
6. :func:`validate_content_block_integrity` — blocks missing ``id``/``name``/``tool_use_id``.

Layers 4 and 5 clean up what 3 leaves behind; every drop is a :class:`Drop`. :func:`clean`
runs each layer only on the messages a pre-pass finds it could touch (same drops, same order).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import compress
from operator import attrgetter
from typing import overload

import msgspec
from msgspec.structs import replace

from sidtui.core.base.jsonparse import js_falsy
from sidtui.core.resume.integrity import ToolBlocks, hashable
from sidtui.core.transcript.messages import THINKING_TYPES, Message, MessageScan
from sidtui.core.transcript.structs import Block

#: Permission modes a current agent accepts; anything else is stripped by layer 2.
#: (FORMAT.md §6.3; the fixtures hold "default" and "acceptEdits".)
VALID_PERMISSION_MODES: frozenset[str] = frozenset(
    {"default", "acceptEdits", "plan", "bypassPermissions"}
)

LAYERS = (
    "migrate_legacy_formats",
    "strip_invalid_permission_modes",
    "filter_unresolved_tool_uses",
    "filter_orphaned_thinking_only_messages",
    "filter_whitespace_only_assistant_messages",
    "validate_content_block_integrity",
)


@dataclass
class Drop:
    """One removal by a cleaning layer.

    Attributes:
        layer: the layer's name (one of :data:`LAYERS`).
        index: the message's index in the loader's list.
        uuid: the message's record uuid (None for legacy records).
        reason: why, in words.
        block: for a block-level drop, the block's position in the original message;
            None when the whole message was dropped.
    """

    layer: str
    index: int
    uuid: str | None
    reason: str
    block: int | None = None


class CleanMessage(msgspec.Struct, gc=False):
    """A message after cleaning.

    Attributes:
        message: the loader's message, or a modified copy when a layer rewrote it
            (copy-on-write: unchanged messages are shared, never copied).
        src_index: its index in the loader's list.
        changed: True when a layer rewrote it (a block stripped, a meta key removed).
        kept: positions (in the original message) of the blocks still present, or None
            when all are.
    """

    message: Message
    src_index: int
    changed: bool = False
    kept: list[int] | None = None

    @property
    def kept_blocks(self) -> list[int]:
        """Positions (in the original message) of the blocks still present."""
        return list(range(len(self.message.blocks))) if self.kept is None else self.kept


_INDEX = attrgetter("index")


class CleanMessages(Sequence[CleanMessage]):
    """The cleaned messages as a read-only sequence of :class:`CleanMessage`.

    Holds the loader's messages that survived cleaning plus the few that a layer rewrote;
    an unchanged message is wrapped (``CleanMessage(message, message.index)``) only when
    read, so a 140k-message session does not build 140k wrappers nobody looks at.
    Iterating builds the whole list once and keeps it. Compares equal to a list holding
    the same :class:`CleanMessage` values.

    Args:
        messages: the surviving loader messages, in order.
        changed: position (in ``messages``) → the rewritten :class:`CleanMessage`.
    """

    __slots__ = ("_msgs", "_changed", "_list")

    def __init__(self, messages: list[Message], changed: dict[int, CleanMessage] | None = None):
        self._msgs = messages
        self._changed = changed or {}
        self._list: list[CleanMessage] | None = None

    def __len__(self) -> int:
        return len(self._msgs)

    def unwrapped(self) -> tuple[list[Message], dict[int, CleanMessage]] | None:
        """``(messages, changed)`` as given, while no wrapper was built (read rows from
        them without making one per message); None once the whole list exists."""
        if self._list is not None:
            return None
        return self._msgs, self._changed

    def plain(self) -> tuple[list[Message], int | None]:
        """The messages as sent (rewritten ones swapped in, no wrapper built) and the
        position of the first rewritten one (None: none was rewritten)."""
        plain = self._msgs
        if self._changed:
            plain = list(plain)
            for p, cm in self._changed.items():
                plain[p] = cm.message
        return plain, (min(self._changed) if self._changed else None)

    def _materialize(self) -> list[CleanMessage]:
        if self._list is None:
            msgs = self._msgs
            out = list(map(CleanMessage, msgs, map(_INDEX, msgs)))
            for pos, cm in self._changed.items():
                out[pos] = cm
            self._list = out
        return self._list

    @overload
    def __getitem__(self, i: int) -> CleanMessage: ...
    @overload
    def __getitem__(self, i: slice) -> CleanMessages: ...
    def __getitem__(self, i):
        if isinstance(i, slice):
            r = range(len(self._msgs))[i]
            if r.step != 1:
                return CleanMessages(
                    [cm.message for cm in self._materialize()[i]],
                    dict(enumerate(self._materialize()[i])),
                )
            ch = {p - r.start: cm for p, cm in self._changed.items() if p in r}
            return CleanMessages(self._msgs[i], ch)
        if self._list is not None:
            return self._list[i]
        m = self._msgs[i]  # IndexError as a list gives it
        cm = self._changed.get(i if i >= 0 else i + len(self._msgs))
        return cm if cm is not None else CleanMessage(m, m.index)

    def __iter__(self) -> Iterator[CleanMessage]:
        return iter(self._materialize())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (CleanMessages, list, tuple)):
            return len(self) == len(other) and self._materialize() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"CleanMessages({self._materialize()!r})"


Log = Callable[[Drop], None]


def _wrap(m: Message) -> CleanMessage:
    return CleanMessage(m, m.index)


def migrate_legacy_formats(msgs: list[CleanMessage], log: Log) -> list[CleanMessage]:
    """Layer 1: the agent's reserved migration point (FORMAT.md §6.2).

    sid-code's current version changes nothing here; we mirror it so the layer numbering
    and drop attribution match the agent's logs. Returns ``msgs`` unchanged.
    """
    return msgs


def strip_invalid_permission_modes(
    msgs: list[CleanMessage], log: Log, valid: Iterable[str] = VALID_PERMISSION_MODES
) -> list[CleanMessage]:
    """Layer 2: remove ``_meta.permissionMode`` values that are no longer valid (FORMAT.md §6.3).

    A value that is not a string (JSON allows anything there) is never a valid mode; a
    falsy one is no mode at all and stays. The mode is the message's ``_meta`` one or its
    record's own, on any record type (as the agent's layer reads it).
    """
    valid = frozenset(valid)
    for cm in msgs:
        mode = cm.message.permission_mode
        # a falsy mode ("", 0, false, null) is no mode to the agent: kept as it is
        if not js_falsy(mode) and not (isinstance(mode, str) and mode in valid):
            meta = dict(cm.message.meta)
            meta.pop("permissionMode", None)
            cm.message = replace(cm.message, meta_=meta)
            cm.changed = True
            log(
                Drop(
                    LAYERS[1],
                    cm.src_index,
                    cm.message.uuid,
                    f"permissionMode {mode!r} is not a valid mode any more",
                )
            )
    return msgs


def _remove_blocks(cm: CleanMessage, keep: list[bool]) -> None:
    positions = cm.kept_blocks
    blocks = [b for b, k in zip(cm.message.blocks, keep, strict=True) if k]
    cm.kept = [p for p, k in zip(positions, keep, strict=True) if k]
    cm.message = replace(cm.message, blocks=blocks)
    cm.changed = True


def answered_tool_use_ids(msgs: Iterable[CleanMessage]) -> set:
    """The ``tool_use_id`` of every tool_result block (hashable values only; an empty or
    missing id is in the set too, as in the agent's ``Set``: it answers a tool_use whose id
    is empty or missing, and layer 6 then drops both)."""
    return {
        b.tool_use_id
        for cm in msgs
        for b in cm.message.blocks
        if b.type == "tool_result" and hashable(b.tool_use_id)
    }


def _unanswered(b: Block, answered: set) -> bool:
    if b.type != "tool_use":
        return False
    i = b.id
    return not hashable(i) or i not in answered


def filter_unresolved_tool_uses(
    msgs: list[CleanMessage], log: Log, answered: set | None = None
) -> list[CleanMessage]:
    """Layer 3: strip tool_use blocks no tool_result answers (orphans, FORMAT.md §6.4).

    Args:
        msgs: the messages to clean (changed in place, returned).
        log: receives each :class:`Drop`.
        answered: the answered tool_use ids of the *whole* history
            (:func:`answered_tool_use_ids`), when ``msgs`` is only part of it; by default
            computed from ``msgs``.
    """
    if answered is None:
        answered = answered_tool_use_ids(msgs)
    for cm in msgs:
        if cm.message.role != "assistant":
            continue
        blocks = cm.message.blocks
        keep = [not _unanswered(b, answered) for b in blocks]
        if all(keep):
            continue  # every tool_use answered: nothing to strip (the common case)
        for pos, (b, k) in enumerate(zip(blocks, keep, strict=True)):
            if not k:
                log(
                    Drop(
                        LAYERS[2],
                        cm.src_index,
                        cm.message.uuid,
                        f"tool_use {b.id} ({b.name}) has no tool_result",
                        cm.kept_blocks[pos],
                    )
                )
        _remove_blocks(cm, keep)
    return msgs


def filter_orphaned_thinking_only_messages(
    msgs: list[CleanMessage], log: Log
) -> list[CleanMessage]:
    """Layer 4: drop assistant messages whose blocks are all thinking/redacted_thinking."""
    out = []
    for cm in msgs:
        blocks = cm.message.blocks
        if (
            blocks
            and cm.message.role == "assistant"
            and all(hashable(b.type) and b.type in THINKING_TYPES for b in blocks)
        ):
            log(
                Drop(
                    LAYERS[3],
                    cm.src_index,
                    cm.message.uuid,
                    "assistant message holds only thinking (stream interrupted before text)",
                )
            )
            continue
        out.append(cm)
    return out


def filter_whitespace_only_assistant_messages(
    msgs: list[CleanMessage], log: Log
) -> list[CleanMessage]:
    """Layer 5: drop assistant messages with no content blocks at all.

    Despite the agent's name for it, a message whose text is only whitespace stays: the
    agent drops only an empty content list (tests/fixtures/oracle-cases/whitespace-only-
    assistant).
    """
    out = []
    for cm in msgs:
        if cm.message.role == "assistant" and not cm.message.blocks:
            log(
                Drop(
                    LAYERS[4],
                    cm.src_index,
                    cm.message.uuid,
                    "assistant message has no content blocks",
                )
            )
            continue
        out.append(cm)
    return out


def _block_missing_field(b: Block) -> str | None:
    """The agent's ``!block.id`` / ``!block.name`` / ``!block.tool_use_id`` (JavaScript
    truthiness: ``[]`` and ``{}`` are present)."""
    if b.type == "tool_use":
        if js_falsy(b.id):
            return "tool_use block without id"
        if js_falsy(b.name):
            return "tool_use block without name"
    elif b.type == "tool_result" and js_falsy(b.tool_use_id):
        return "tool_result block without tool_use_id"
    return None


def validate_content_block_integrity(msgs: list[CleanMessage], log: Log) -> list[CleanMessage]:
    """Layer 6: drop every message holding a tool_use without ``id``/``name`` or a
    tool_result without ``tool_use_id`` (JavaScript falsiness: empty strings too).

    The whole message goes, as in the agent, not only the block (one :class:`Drop` per
    message, naming its invalid blocks).
    """
    out = []
    for cm in msgs:
        reasons = [r for r in map(_block_missing_field, cm.message.blocks) if r]
        if reasons:
            log(
                Drop(
                    LAYERS[5],
                    cm.src_index,
                    cm.message.uuid,
                    "message dropped: " + ", ".join(dict.fromkeys(reasons)),
                )
            )
            continue
        out.append(cm)
    return out


@dataclass
class _Plan:
    """Positions (in the loader's list, ascending) of the messages each layer could touch.

    Each list is a superset of what the layer acts on; the layers themselves decide.
    """

    modes: list[int]  # layer 2: may carry a permissionMode
    answered: set | None  # layer 3: the answered tool_use ids (None when all are answered)
    tools: list[int]  # layer 3: hold a tool_use whose id no tool_result answers
    shells: list[int]  # layers 4–5: assistant messages with only thinking/blank text, or none
    invalid: list[int]  # layer 6: hold a tool block without its id/name/tool_use_id
    blocks: ToolBlocks | None = None  # the tool ids and their messages (for integrity)


def _prescan(msgs: list[Message], scan: MessageScan | None = None) -> _Plan | None:
    """Find the messages any layer could touch, so the layers skip the rest.

    The per-message pass is :class:`sidtui.core.transcript.messages.MessageScan` (the loader fills
    one while it builds the messages; else it runs here). The usual file answers every
    tool_use in turn, so comparing the list of tool_use ids with the list of tool_result
    ids settles layers 3 and 6 at once.

    Args:
        msgs: the messages.
        scan: a scan of exactly ``msgs`` (None: scan now).

    Returns:
        A :class:`_Plan`, or None when the messages hold values the pre-pass does not
        classify (an unhashable block ``type`` or tool id, or a message without a
        scanned record's fields): then every layer runs on every message.
    """
    if scan is None or scan.count != len(msgs):
        scan = MessageScan.of(msgs)
    if not scan.ok:
        return None
    use_ids, use_pos, result_ids, result_pos = (
        scan.uses,
        scan.use_pos,
        scan.results,
        scan.result_pos,
    )
    modes, shells, names_ok = scan.modes, scan.shells, scan.names_ok
    if not set(map(type, use_ids)).isdisjoint((list, dict)):
        return None
    blocks = ToolBlocks(use_ids, use_pos, result_ids, result_pos)
    ids_ok = all(use_ids)
    if ids_ok and use_ids == result_ids:  # the usual file: each tool_use answered in turn
        if names_ok:
            return _Plan(modes, None, [], shells, [], blocks)
        answered = None
    else:
        try:
            answered = set(result_ids)
            if answered.issuperset(use_ids):
                answered = None
        except TypeError:
            return None
        if answered is None and ids_ok and names_ok and all(result_ids):
            return _Plan(modes, None, [], shells, [], blocks)
    tools: list[int] = []
    invalid: list[int] = []
    for i, m in enumerate(msgs):  # the rare file: find the messages, in a second pass
        for b in m.blocks:
            t = b.type
            if t == "tool_use":
                if answered is not None and b.id not in answered:
                    if not tools or tools[-1] != i:
                        tools.append(i)
                if not (b.id and b.name) and (not invalid or invalid[-1] != i):
                    invalid.append(i)
            elif t == "tool_result" and not b.tool_use_id:
                if not invalid or invalid[-1] != i:
                    invalid.append(i)
    return _Plan(modes, answered, tools, shells, invalid, blocks)


def _take(
    messages: list[Message], wrapped: dict[int, CleanMessage], positions: Iterable[int]
) -> list[CleanMessage]:
    """The :class:`CleanMessage` of each position, made on first use and then shared."""
    out = []
    for i in positions:
        cm = wrapped.get(i)
        if cm is None:
            m = messages[i]
            cm = wrapped[i] = CleanMessage(m, m.index)
        out.append(cm)
    return out


def _lost(
    positions: list[int], wrapped: dict[int, CleanMessage], kept: list[CleanMessage]
) -> set[int]:
    kept_ids = set(map(id, kept))
    return {i for i in positions if id(wrapped[i]) not in kept_ids}


def _clean_all(messages: list[Message], log: Log, valid: Iterable[str]) -> CleanMessages:
    """Every layer on every message (input the pre-pass cannot classify)."""
    msgs = [_wrap(m) for m in messages]
    msgs = migrate_legacy_formats(msgs, log)
    msgs = strip_invalid_permission_modes(msgs, log, valid)
    msgs = filter_unresolved_tool_uses(msgs, log)
    msgs = filter_orphaned_thinking_only_messages(msgs, log)
    msgs = filter_whitespace_only_assistant_messages(msgs, log)
    msgs = validate_content_block_integrity(msgs, log)
    changed = {i: cm for i, cm in enumerate(msgs) if cm.changed}
    return CleanMessages([cm.message for cm in msgs], changed)


def _clean_candidates(
    messages: list[Message], plan: _Plan, log: Log, valid: Iterable[str]
) -> CleanMessages:
    """The six layers, each on the messages the pre-pass found it could touch.

    Each layer acts on one message at a time (layer 3 with the whole history's answered
    ids), in message order, so running it on a superset of what it acts on, in order,
    logs the same drops in the same order as running it on every message.
    """
    wrapped: dict[int, CleanMessage] = {}
    migrate_legacy_formats([], log)  # changes nothing in the agent today: no candidates
    strip_invalid_permission_modes(_take(messages, wrapped, plan.modes), log, valid)
    filter_unresolved_tool_uses(_take(messages, wrapped, plan.tools), log, plan.answered or set())
    # what layer 3 rewrote may now be a thinking-only or empty shell
    pos = sorted(set(plan.shells).union(plan.tools))
    kept = filter_orphaned_thinking_only_messages(_take(messages, wrapped, pos), log)
    kept = filter_whitespace_only_assistant_messages(kept, log)
    gone = _lost(pos, wrapped, kept)
    pos = [i for i in plan.invalid if i not in gone]
    kept = validate_content_block_integrity(_take(messages, wrapped, pos), log)
    gone |= _lost(pos, wrapped, kept)
    # the survivors: the loader's list minus what was dropped, rewritten ones swapped in
    changed = {i: cm for i, cm in wrapped.items() if cm.changed and i not in gone}
    if not gone:
        sent = list(messages)
        for i, cm in changed.items():
            sent[i] = cm.message
        return CleanMessages(sent, changed)
    keep = bytearray(b"\x01") * len(messages)
    for i in gone:
        keep[i] = 0
    sent = list(compress(messages, keep))
    order = sorted(gone)
    moved = {i - bisect_right(order, i): cm for i, cm in changed.items()}
    for i, cm in moved.items():
        sent[i] = cm.message
    return CleanMessages(sent, moved)


def clean(
    messages: list[Message], log: Log, valid: Iterable[str], scan: MessageScan | None = None
) -> tuple[CleanMessages, ToolBlocks | None]:
    """The six layers on ``messages`` (not modified), each drop given to ``log``.

    The layers run only on the messages :func:`_prescan` finds they could touch (every
    message when it cannot tell); the result is the same either way.

    Args:
        messages: the loader's messages.
        log: receives each :class:`Drop`, in layer order.
        valid: the permission modes layer 2 keeps.
        scan: the loader's scan of exactly ``messages`` (None: the pre-pass scans).

    Returns:
        The cleaned messages and the loaded messages' tool blocks as the pre-pass
        collected them (None when it ran no pre-pass).
    """
    plan = _prescan(messages, scan) if messages else None
    if plan is None:
        return _clean_all(messages, log, valid), None
    return _clean_candidates(messages, plan, log, valid), plan.blocks

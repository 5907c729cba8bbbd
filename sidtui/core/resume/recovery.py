"""Recovery cleaning, integrity and interruption state (FORMAT.md §6).

The agent cleans loaded messages with six layers, in this order, each doing one thing so a
missing message can be traced to the layer that dropped it (FORMAT.md §6.1):

1. :func:`migrate_legacy_formats` — the agent's reserved migration point;
2. :func:`strip_invalid_permission_modes` — ``_meta.permissionMode`` values no longer valid;
3. :func:`filter_unresolved_tool_uses` — tool_use blocks without a tool_result (orphans);
4. :func:`filter_orphaned_thinking_only_messages` — assistant messages left with only
   thinking (a stream interrupted between thinking and text, or layer 3's remnant);
5. :func:`filter_whitespace_only_assistant_messages` — empty/whitespace assistant shells;
6. :func:`validate_content_block_integrity` — blocks missing ``id``/``name``/``tool_use_id``.

Layer order matters: 4 and 5 clean up what 3 leaves behind. Every drop is recorded as a
:class:`Drop` ``(layer, index, uuid, reason)``. Then :func:`detect_interruption` reads the
shape of the last message (FORMAT.md §6.9): assistant ⇒ ``none``; a user message without
tool_result ⇒ ``interrupted_prompt`` (taken off and re-queued last); a user message with
tool_results ⇒ ``interrupted_turn`` with the tool names, unless every tool is in
``terminal_tool_names`` (empty in sid-code; configurable here).

Speed: every layer is a function of one message at a time (layer 3 also needs the
set of answered tool_use ids), so :func:`recover` first finds, with a few C-level passes
over the block types and tool ids (:func:`_prescan`), the few messages any layer could
touch, and runs each layer only on those; the others are passed through without a wrapper
(:class:`CleanMessages` wraps them when read). Input the pre-pass cannot classify (a block
``type`` or tool id that is not hashable) runs every layer on every message instead. Both
ways give the same drops, in the same order, and the same messages.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import compress, count, filterfalse, repeat
from operator import attrgetter, eq, is_not, lt, not_
from typing import NamedTuple, overload

import msgspec
from msgspec.structs import replace

from sidtui.core.base.jsonparse import js_falsy
from sidtui.core.transcript.loader import (
    STRING_CONTENT,
    THINKING_TYPES,
    Block,
    Message,
    MessageScan,
    tool_name_text,
)

#: Tools whose result ends a turn by itself (FORMAT.md §6.9). sid-code ships this empty, so a
#: trailing tool result always means ``interrupted_turn``; users may configure it.
TERMINAL_TOOL_NAMES: frozenset[str] = frozenset()

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


@dataclass
class Integrity:
    """Tool pairing problems (FORMAT.md §6.11).

    Attributes:
        orphans: ``(tool_use_id, name, message index, uuid)`` — a tool_use with no later
            tool_result (the API rejects the history with a 400).
        dangling: ``(tool_use_id, message index, uuid)`` — a tool_result with no earlier
            tool_use (made by slicing history in the middle of a pair).
    """

    orphans: list[tuple[str, str | None, int, str | None]] = field(default_factory=list)
    dangling: list[tuple[str, int, str | None]] = field(default_factory=list)

    @property
    def intact(self) -> bool:
        return not self.orphans and not self.dangling


@dataclass
class Interruption:
    """How the last run ended, read from the last cleaned message (FORMAT.md §6.9).

    Attributes:
        kind: ``none``, ``interrupted_prompt`` or ``interrupted_turn``.
        tool_names: for ``interrupted_turn``, the tools whose results ended the history
            (strings: a name that is not one is shown as its JSON text).
        message: for ``interrupted_prompt``, the prompt taken off to be re-queued last.
    """

    kind: str = "none"
    tool_names: list[str] = field(default_factory=list)
    message: CleanMessage | None = None


@dataclass
class RecoveryResult:
    """The recovery pipeline's output: exactly what the agent would send on resume.

    Attributes:
        messages: cleaned messages without the re-queued interrupted prompt (a
            :class:`CleanMessages` sequence from :func:`recover`; any sequence of
            :class:`CleanMessage` works).
        dropped: every removal, in layer order.
        interruption: the interruption state.
        integrity_before: pairing problems in the loaded messages (computed on first use).
        integrity_after: pairing problems after cleaning (computed on first use).
        resume_note: the note the agent would inject for this state (our wording).
    """

    messages: Sequence[CleanMessage]
    dropped: list[Drop]
    interruption: Interruption
    loaded: list[Message]
    resume_note: str | None
    #: why the agent's resume pipeline throws on these messages (its resume crashes; then
    #: ``messages`` and ``dropped`` are empty), else None (:func:`resume_failure`)
    failure: str | None = None
    _integrity: dict[str, Integrity] = field(default_factory=dict, repr=False)
    #: the loaded messages' tool blocks, as the pre-pass collected them (None: collect)
    _tool_blocks: _ToolBlocks | None = field(default=None, repr=False)

    def _before_blocks(self) -> _ToolBlocks | None:
        tb = self._tool_blocks
        if tb is None or not _roles_fit(tb, self.loaded):  # the scan's take every role
            self._tool_blocks = tb = _collect_tool_blocks(self.loaded)
        return tb

    @property
    def integrity_before(self) -> Integrity:
        """Pairing problems in the loaded messages (FORMAT.md §6.11).

        Paired from the tool ids the pre-pass already collected (C-level set and map
        operations); the block-by-block walk only for input that needs it.
        """
        if "before" not in self._integrity:
            tb = self._before_blocks()
            integ = _pair(tb, self.loaded) if tb is not None else None
            self._integrity["before"] = (
                integ if integ is not None else _check_integrity_walk(self.loaded)
            )
        return self._integrity["before"]

    @property
    def integrity_after(self) -> Integrity:
        """Pairing problems in what the agent would send (should be none).

        The sent messages are the loaded ones up to the first message cleaning removed or
        rewrote (the same objects, in the same places), so the loaded messages' tool ids
        are reused for that prefix and only the rest is collected again. When nothing was
        touched, this is :attr:`integrity_before`.
        """
        if "after" not in self._integrity:
            self._integrity["after"] = self._integrity_after()
        return self._integrity["after"]

    def _integrity_after(self) -> Integrity:
        msgs = self.messages
        if isinstance(msgs, CleanMessages):
            plain = msgs._msgs
            if msgs._changed:
                plain = list(plain)
                for p, cm in msgs._changed.items():
                    plain[p] = cm.message
        else:
            plain = [cm.message for cm in msgs]
        loaded = self.loaded
        # first position where the sent message is not the loaded one
        n = min(len(plain), len(loaded))
        same = next(compress(count(), map(is_not, plain, loaded)), n)
        if isinstance(msgs, CleanMessages) and msgs._changed:
            same = min(same, min(msgs._changed))
        tb = self._before_blocks() if same else None
        if tb is None:
            return check_integrity(plain)
        if same == len(plain) == len(loaded):
            b = self.integrity_before
            return Integrity(list(b.orphans), list(b.dangling))
        k = bisect_left(tb.use_pos, same)
        j = bisect_left(tb.result_pos, same)
        tail = _collect_tool_blocks(plain, same)
        if tail is None:
            return _check_integrity_walk(plain)
        sent = _ToolBlocks(
            tb.uses[:k] + tail.uses,
            tb.use_pos[:k] + tail.use_pos,
            tb.results[:j] + tail.results,
            tb.result_pos[:j] + tail.result_pos,
        )
        integ = _pair(sent, plain)
        return integ if integ is not None else _check_integrity_walk(plain)


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


def _hashable(v: object) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def answered_tool_use_ids(msgs: Iterable[CleanMessage]) -> set:
    """The ``tool_use_id`` of every tool_result block (hashable values only; an empty or
    missing id is in the set too, as in the agent's ``Set``: it answers a tool_use whose id
    is empty or missing, and layer 6 then drops both)."""
    return {
        b.tool_use_id
        for cm in msgs
        for b in cm.message.blocks
        if b.type == "tool_result" and _hashable(b.tool_use_id)
    }


def _unanswered(b: Block, answered: set) -> bool:
    if b.type != "tool_use":
        return False
    i = b.id
    return not _hashable(i) or i not in answered


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
            and all(_hashable(b.type) and b.type in THINKING_TYPES for b in blocks)
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


# --- the pre-pass: which messages could a layer touch? -------------------------------


class _ToolBlocks(NamedTuple):
    """Every tool_use and tool_result block of a message list, in block order.

    ``uses``/``results`` hold the ``id``/``tool_use_id`` values as written (any JSON
    value); ``use_pos``/``result_pos`` the position of each block's message in the list
    (ascending).
    """

    uses: list
    use_pos: list[int]
    results: list
    result_pos: list[int]


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
    blocks: _ToolBlocks | None = None  # the tool ids and their messages (for integrity)


def _prescan(msgs: list[Message], scan: MessageScan | None = None) -> _Plan | None:
    """Find the messages any layer could touch, so the layers skip the rest.

    The per-message pass is :class:`sidtui.core.transcript.loader.MessageScan` (the loader fills
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
    blocks = _ToolBlocks(use_ids, use_pos, result_ids, result_pos)
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


def check_integrity(messages: Iterable[Message]) -> Integrity:
    """Find orphan tool_uses and dangling tool_results (FORMAT.md §6.11).

    Args:
        messages: messages in order.

    Returns:
        An :class:`Integrity`. A tool_result pairs with a tool_use that appears earlier;
        a tool_use pairs with a tool_result that appears later. Tool ids that are not
        hashable are ignored; empty or missing ones count, as the agent counts them.
        Orphans in order of their first tool_use, dangling results in block order.

    One plain pass collects the tool ids; the pairing is C-level map and set work
    (:func:`_pair`); a block-by-block walk only when a message holds both halves of a pair
    (block order then decides) or an id is not hashable.
    """
    msgs = messages if isinstance(messages, list) else list(messages)
    tb = _collect_tool_blocks(msgs)
    integ = _pair(tb, msgs) if tb is not None else None
    return integ if integ is not None else _check_integrity_walk(msgs)


def _roles_fit(tb: _ToolBlocks, msgs: Sequence[Message]) -> bool:
    """Every tool_use of ``tb`` is in an assistant message and every tool_result in a
    user message (the usual history: then ``tb`` is what integrity counts)."""
    try:
        return {msgs[i].role for i in set(tb.use_pos)} <= {"assistant"} and {
            msgs[i].role for i in set(tb.result_pos)
        } <= {"user"}
    except (IndexError, TypeError):
        return False


def _collect_tool_blocks(msgs: Sequence[Message], start: int = 0) -> _ToolBlocks | None:
    """The tool blocks integrity counts in ``msgs[start:]`` (positions counted in
    ``msgs``): tool_use blocks of assistant messages and tool_result blocks of user
    messages, as the agent's check counts them. None when a message or block is not
    shaped like one (the walk decides then)."""
    uses: list = []
    use_pos: list[int] = []
    results: list = []
    result_pos: list[int] = []
    add_use, add_use_pos = uses.append, use_pos.append
    add_result, add_result_pos = results.append, result_pos.append
    i = start - 1
    try:
        for m in msgs[start:] if start else msgs:
            i += 1
            role = m.role
            if role != "assistant" and role != "user":
                continue
            for b in m.blocks:
                t = b.type
                if t == "tool_use":
                    if role == "assistant":
                        add_use(b.id)
                        add_use_pos(i)
                elif t == "tool_result" and role == "user":
                    add_result(b.tool_use_id)
                    add_result_pos(i)
    except (AttributeError, TypeError):
        return None
    return _ToolBlocks(uses, use_pos, results, result_pos)


#: a position after every message (an id no tool_use carries "first appears" here)
_NEVER = float("inf")


def _pair(tb: _ToolBlocks, msgs: Sequence[Message]) -> Integrity | None:
    """Pair tool_results with earlier tool_uses from the collected ids (C-level passes).

    Exactly :func:`_check_integrity_walk`'s answer, or None when it cannot tell without
    the walk: a tool_result in the same message as the first tool_use of its id (the
    block order inside the message decides) or an id that is not hashable.

    A result pairs when its id's first tool_use is in an earlier message; a tool_use id is
    an orphan when no result paired with it.
    """
    uses, use_pos, results, result_pos = tb
    # the usual file answers each tool_use in turn, in a later message
    if uses == results and all(map(lt, use_pos, result_pos)):
        return Integrity()
    try:
        first = dict.fromkeys(uses)  # ids in order of first appearance
        first.update(zip(reversed(uses), reversed(use_pos), strict=True))  # -> the first position
        first_pos = list(map(first.get, results, repeat(_NEVER)))
    except TypeError:  # an id that is not hashable: the walk skips it
        return None
    if any(map(eq, first_pos, result_pos)):
        return None
    paired = list(map(lt, first_pos, result_pos))
    answered = set(compress(results, paired))
    integ = Integrity()
    for j in compress(range(len(results)), map(not_, paired)):
        pos = result_pos[j]
        integ.dangling.append((results[j], pos, msgs[pos].uuid))
    for i in filterfalse(answered.__contains__, first):
        pos = first[i]
        m = msgs[pos]
        name = next(b.name for b in m.blocks if b.type == "tool_use" and (b.id is i or b.id == i))
        integ.orphans.append((i, name, pos, m.uuid))
    return integ


def _check_integrity_walk(messages: Iterable[Message]) -> Integrity:
    """:func:`check_integrity` block by block (the definition; any input)."""
    integ = Integrity()
    uses: dict[str, tuple] = {}  # id -> (name, pos, uuid), in order of appearance
    answered: set[str] = set()
    for pos, m in enumerate(messages):
        for b in m.blocks:
            t = b.type
            if (t == "tool_use" and m.role != "assistant") or (
                t == "tool_result" and m.role != "user"
            ):
                continue  # the agent counts tool_uses of assistants, results of users
            if t == "tool_use":
                if _hashable(b.id):  # an empty or missing id too, as the agent counts it
                    uses.setdefault(b.id, (b.name, pos, m.uuid))
            elif t == "tool_result" and _hashable(b.tool_use_id):
                if b.tool_use_id in uses:
                    answered.add(b.tool_use_id)
                else:
                    integ.dangling.append((b.tool_use_id, pos, m.uuid))
    integ.orphans = [(i, *v) for i, v in uses.items() if i not in answered]
    return integ


def safe_slice_tail(messages: list[Message], n: int, max_expand: int = 5) -> list[Message]:
    """The last ``n`` messages, never starting on a dangling tool_result (FORMAT.md §6.12).

    First widen the window by up to ``max_expand`` earlier messages to bring the
    tool_use in (keep information); if still dangling, shrink from the front until the
    window is clean (keep legality). Legality beats completeness.

    Args:
        messages: the full history.
        n: how many trailing messages are wanted (n <= 0 gives an empty list).
        max_expand: how many extra earlier messages may be taken.

    Returns:
        A new list (a suffix of ``messages``).
    """
    if n <= 0:
        return []
    if len(messages) <= n:
        return list(messages)
    start = len(messages) - n
    min_start = max(0, start - max_expand)
    while start > min_start:
        if not check_integrity(messages[start:]).dangling:
            break
        start -= 1
    while start < len(messages):
        if not check_integrity(messages[start:]).dangling:
            break
        start += 1
    return list(messages[start:])


def _tool_names_for_results(msgs: Sequence[CleanMessage], last: CleanMessage) -> list[str]:
    """The tool names of ``last``'s tool_results, as the agent finds them: each result
    whose ``tool_use_id`` names a tool_use of the message just before ``last`` (in the
    cleaned list, and an assistant's; an id used twice there gives the later use's name),
    in the results' order. A result answering an older message's tool_use names nothing."""
    if len(msgs) < 2 or msgs[-2].message.role != "assistant":
        return []
    names_by_id: dict = {}
    for b in msgs[-2].message.blocks:
        if b.type == "tool_use" and _hashable(b.id):
            names_by_id[b.id] = tool_name_text(b.name)
    return [
        names_by_id[b.tool_use_id]
        for b in last.message.blocks
        if b.type == "tool_result" and _hashable(b.tool_use_id) and b.tool_use_id in names_by_id
    ]


def detect_interruption(
    msgs: Sequence[CleanMessage], terminal_tool_names: Iterable[str] = TERMINAL_TOOL_NAMES
) -> tuple[Sequence[CleanMessage], Interruption]:
    """Read the interruption state from the last cleaned message (FORMAT.md §6.9).

    Returns:
        (messages to send — without a re-queued prompt —, the :class:`Interruption`).
    """
    if not msgs:
        return msgs, Interruption("none")
    last = msgs[-1]
    if last.message.role != "user":
        return msgs, Interruption("none")
    if not any(b.type == "tool_result" for b in last.message.blocks):
        return msgs[:-1], Interruption("interrupted_prompt", [], last)
    names = _tool_names_for_results(msgs, last)
    terminal = frozenset(terminal_tool_names)
    if names and all(n in terminal for n in names):
        return msgs, Interruption("none", names)
    return msgs, Interruption("interrupted_turn", names)


def _failed(messages: list[Message], failure: str) -> RecoveryResult:
    """The result when the agent's resume would crash: nothing is sent."""
    return RecoveryResult(
        messages=CleanMessages([]),
        dropped=[],
        interruption=Interruption("none"),
        loaded=messages,
        resume_note=None,
        failure=failure,
    )


def resume_note(interruption: Interruption) -> str | None:
    """The note the agent injects on resume for this state (FORMAT.md §6.10; our wording).

    ``none`` gets a general continuation note, ``interrupted_turn`` names the tools and
    asks not to call them again, ``interrupted_prompt`` gets no note: the user's own
    re-queued prompt is the strongest signal.
    """
    if interruption.kind == "interrupted_prompt":
        return None
    if interruption.kind == "interrupted_turn":
        tools = ", ".join(interruption.tool_names) or "tools"
        return (
            f"In the previous run you called {tools}. They finished (their results are "
            "above), but the process stopped before you answered. Continue from those "
            "results; do not call the same tools again and do not greet the user anew."
        )
    return (
        "This session continues an earlier conversation (the messages above are its "
        "history). Carry on from where it stopped; don't greet the user again or re-ask "
        "what was already settled. (Do not mention this note to the user.)"
    )


def resume_failure(messages: Sequence[Message]) -> str | None:
    """Why the agent's resume pipeline would throw on the loaded ``messages``, or None.

    Its layers read every message's ``_meta`` and iterate its content, so a message that
    is not an object, content that is no list (a string is iterable, but an assistant
    message's content is also filtered as a list) and a null block each make it throw:
    the agent's resume crashes (tests/fixtures/oracle-cases/resume-fails).
    """
    for m in messages:
        shape = m.shape
        if shape is None or (shape == STRING_CONTENT and m.role != "assistant"):
            continue
        where = f"line {m.line}" if m.line is not None else f"message {m.index}"
        kind = (m.record_type or "message").replace("_", " ")
        return f"{where} ({kind}): {shape}, and the agent's resume pipeline throws on it"
    return None


def recover(
    messages: list[Message],
    *,
    terminal_tool_names: Iterable[str] = TERMINAL_TOOL_NAMES,
    valid_permission_modes: Iterable[str] = VALID_PERMISSION_MODES,
    scan: MessageScan | None = None,
) -> RecoveryResult:
    """Run the six layers, then integrity and interruption detection (FORMAT.md §6.1, §6.9).

    The layers run only on the messages :func:`_prescan` finds they could touch (every
    message when it cannot tell); the result is the same either way.

    Args:
        messages: the loader's messages (not modified).
        terminal_tool_names: tools whose trailing results do not mean an interruption.
        valid_permission_modes: modes layer 2 keeps.
        scan: the loader's :class:`~sidtui.core.transcript.loader.MessageScan` of exactly
            ``messages`` (``LoadedSession.scan``), which saves the pre-pass a walk.

    Returns:
        A :class:`RecoveryResult`; its ``messages`` is a :class:`CleanMessages`.
    """
    failure = resume_failure(messages) if scan is None or scan.odd else None
    if failure is not None:
        return _failed(messages, failure)
    dropped: list[Drop] = []
    log = dropped.append
    plan = _prescan(messages, scan) if messages else None
    if plan is None:
        msgs = _clean_all(messages, log, valid_permission_modes)
    else:
        msgs = _clean_candidates(messages, plan, log, valid_permission_modes)
    if msgs and msgs[-1].message.role == "user" and msgs[-1].message.string_content:
        last = msgs[-1].message
        where = f"line {last.line}" if last.line is not None else f"message {last.index}"
        return _failed(
            messages,
            f"{where} (the last message, a user's): {STRING_CONTENT}, and the agent's "
            "interruption check throws on it",
        )
    sent, interruption = detect_interruption(msgs, terminal_tool_names)
    return RecoveryResult(
        messages=sent,
        dropped=dropped,
        interruption=interruption,
        loaded=messages,
        resume_note=resume_note(interruption) if sent else None,  # nothing to continue
        _tool_blocks=plan.blocks if plan is not None else None,
    )

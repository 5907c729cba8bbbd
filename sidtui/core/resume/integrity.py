"""Tool pairing: orphan tool_uses and dangling tool_results (FORMAT.md §6.11), and a
tail slice that never starts on a dangling result (FORMAT.md §6.12).

The tool ids are collected in one plain pass (:class:`ToolBlocks`) and paired with C-level
map and set work; a block-by-block walk only when block order inside a message decides
or an id is not hashable.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import compress, filterfalse, repeat
from operator import eq, lt, not_
from typing import NamedTuple

from sidtui.core.transcript.messages import Message


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


def hashable(v: object) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


class ToolBlocks(NamedTuple):
    """Every tool_use and tool_result block of a message list, in block order.

    ``uses``/``results`` hold the ``id``/``tool_use_id`` values as written (any JSON
    value); ``use_pos``/``result_pos`` the position of each block's message in the list
    (ascending).
    """

    uses: list
    use_pos: list[int]
    results: list
    result_pos: list[int]


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
    (:func:`pair_tool_blocks`); a block-by-block walk only when a message holds both halves of a pair
    (block order then decides) or an id is not hashable.
    """
    msgs = messages if isinstance(messages, list) else list(messages)
    return integrity_of(collect_tool_blocks(msgs), msgs)


def integrity_of(tb: ToolBlocks | None, msgs: Sequence[Message]) -> Integrity:
    """:func:`check_integrity` of ``msgs`` whose tool blocks are ``tb`` (None: they could
    not be collected): paired from the ids, block by block only when that cannot tell."""
    integ = pair_tool_blocks(tb, msgs) if tb is not None else None
    return integ if integ is not None else check_integrity_walk(msgs)


def integrity_after_prefix(plain: Sequence[Message], same: int, tb: ToolBlocks) -> Integrity:
    """:func:`check_integrity` of ``plain`` whose first ``same`` messages are those whose
    tool blocks ``tb`` holds (``tb`` may hold more): only the rest is collected again."""
    k = bisect_left(tb.use_pos, same)
    j = bisect_left(tb.result_pos, same)
    tail = collect_tool_blocks(plain, same)
    if tail is None:
        return check_integrity_walk(plain)
    sent = ToolBlocks(
        tb.uses[:k] + tail.uses,
        tb.use_pos[:k] + tail.use_pos,
        tb.results[:j] + tail.results,
        tb.result_pos[:j] + tail.result_pos,
    )
    return integrity_of(sent, plain)


def roles_fit(tb: ToolBlocks, msgs: Sequence[Message]) -> bool:
    """Every tool_use of ``tb`` is in an assistant message and every tool_result in a
    user message (the usual history: then ``tb`` is what integrity counts)."""
    try:
        return {msgs[i].role for i in set(tb.use_pos)} <= {"assistant"} and {
            msgs[i].role for i in set(tb.result_pos)
        } <= {"user"}
    except (IndexError, TypeError):
        return False


def collect_tool_blocks(msgs: Sequence[Message], start: int = 0) -> ToolBlocks | None:
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
    return ToolBlocks(uses, use_pos, results, result_pos)


#: a position after every message (an id no tool_use carries "first appears" here)
_NEVER = float("inf")


def pair_tool_blocks(tb: ToolBlocks, msgs: Sequence[Message]) -> Integrity | None:
    """Pair tool_results with earlier tool_uses from the collected ids (C-level passes).

    Exactly :func:`check_integrity_walk`'s answer, or None when it cannot tell without
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
        first: dict = dict.fromkeys(uses)  # ids in order of first appearance
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


def check_integrity_walk(messages: Iterable[Message]) -> Integrity:
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
                if hashable(b.id):  # an empty or missing id too, as the agent counts it
                    uses.setdefault(b.id, (b.name, pos, m.uuid))
            elif t == "tool_result" and hashable(b.tool_use_id):
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

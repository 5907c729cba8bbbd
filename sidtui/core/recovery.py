"""Recovery cleaning, integrity and interruption state (seed §7.2, §7.5, §11.2–11.3).

The agent cleans loaded messages with six layers, in this order, each doing one thing so a
missing message can be traced to the layer that dropped it (seed §7.5):

1. :func:`migrate_legacy_formats` — the agent's reserved migration point;
2. :func:`strip_invalid_permission_modes` — ``_meta.permissionMode`` values no longer valid;
3. :func:`filter_unresolved_tool_uses` — tool_use blocks without a tool_result (orphans);
4. :func:`filter_orphaned_thinking_only_messages` — assistant messages left with only
   thinking (a stream interrupted between thinking and text, or layer 3's remnant);
5. :func:`filter_whitespace_only_assistant_messages` — empty/whitespace assistant shells;
6. :func:`validate_content_block_integrity` — blocks missing ``id``/``name``/``tool_use_id``.

Layer order matters: 4 and 5 clean up what 3 leaves behind. Every drop is recorded as a
:class:`Drop` ``(layer, index, uuid, reason)``. Then :func:`detect_interruption` reads the
shape of the last message (seed §11.2): assistant ⇒ ``none``; a user message without
tool_result ⇒ ``interrupted_prompt`` (taken off and re-queued last); a user message with
tool_results ⇒ ``interrupted_turn`` with the tool names, unless every tool is in
``terminal_tool_names`` (empty in sid-code; configurable here).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import msgspec
from msgspec.structs import replace

from sidtui.core.loader import Block, Message

#: Tools whose result ends a turn by itself (seed §11.2). sid-code ships this empty, so a
#: trailing tool result always means ``interrupted_turn``; users may configure it.
TERMINAL_TOOL_NAMES: frozenset[str] = frozenset()

#: Permission modes a current agent accepts; anything else is stripped by layer 2.
#: (seed §8.2; the fixtures hold "default" and "acceptEdits".)
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

THINKING_TYPES = frozenset({"thinking", "redacted_thinking"})


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


@dataclass
class Integrity:
    """Tool pairing problems (seed §7.2).

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
    """How the last run ended, read from the last cleaned message (seed §11.2).

    Attributes:
        kind: ``none``, ``interrupted_prompt`` or ``interrupted_turn``.
        tool_names: for ``interrupted_turn``, the tools whose results ended the history.
        message: for ``interrupted_prompt``, the prompt taken off to be re-queued last.
    """

    kind: str = "none"
    tool_names: list[str] = field(default_factory=list)
    message: CleanMessage | None = None


@dataclass
class RecoveryResult:
    """The recovery pipeline's output: exactly what the agent would send on resume.

    Attributes:
        messages: cleaned messages without the re-queued interrupted prompt.
        dropped: every removal, in layer order.
        interruption: the interruption state.
        integrity_before: pairing problems in the loaded messages (computed on first use).
        integrity_after: pairing problems after cleaning (computed on first use).
        resume_note: the note the agent would inject for this state (our wording).
    """

    messages: list[CleanMessage]
    dropped: list[Drop]
    interruption: Interruption
    loaded: list[Message]
    resume_note: str | None
    _integrity: dict[str, Integrity] = field(default_factory=dict, repr=False)

    @property
    def integrity_before(self) -> Integrity:
        """Pairing problems in the loaded messages (seed §7.2)."""
        if "before" not in self._integrity:
            self._integrity["before"] = check_integrity(self.loaded)
        return self._integrity["before"]

    @property
    def integrity_after(self) -> Integrity:
        """Pairing problems in what the agent would send (should be none)."""
        if "after" not in self._integrity:
            self._integrity["after"] = check_integrity(cm.message for cm in self.messages)
        return self._integrity["after"]


Log = Callable[[Drop], None]


def _wrap(m: Message) -> CleanMessage:
    return CleanMessage(m, m.index)


def migrate_legacy_formats(msgs: list[CleanMessage], log: Log) -> list[CleanMessage]:
    """Layer 1: the agent's reserved migration point (seed §7.5 "格式迁移预留点").

    sid-code's current version changes nothing here; we mirror it so the layer numbering
    and drop attribution match the agent's logs. Returns ``msgs`` unchanged.
    """
    return msgs


def strip_invalid_permission_modes(
    msgs: list[CleanMessage], log: Log, valid: Iterable[str] = VALID_PERMISSION_MODES
) -> list[CleanMessage]:
    """Layer 2: remove ``_meta.permissionMode`` values that are no longer valid (seed §8.2)."""
    valid = frozenset(valid)
    for cm in msgs:
        mode = cm.message.meta.get("permissionMode")
        if mode is not None and mode not in valid:
            meta = dict(cm.message.meta)
            del meta["permissionMode"]
            cm.message = replace(cm.message, meta=meta)
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


def filter_unresolved_tool_uses(msgs: list[CleanMessage], log: Log) -> list[CleanMessage]:
    """Layer 3: strip tool_use blocks no tool_result answers (orphans, seed §7.2)."""
    answered = {
        b.tool_use_id
        for cm in msgs
        for b in cm.message.blocks
        if b.type == "tool_result" and b.tool_use_id
    }
    for cm in msgs:
        if cm.message.role != "assistant":
            continue
        blocks = cm.message.blocks
        for b in blocks:
            if b.type == "tool_use" and b.id not in answered:
                break
        else:
            continue  # every tool_use answered: nothing to strip (the common case)
        keep = [not (b.type == "tool_use" and b.id not in answered) for b in blocks]
        for pos, (b, k) in enumerate(zip(cm.message.blocks, keep, strict=True)):
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
            and blocks[0].type in THINKING_TYPES  # cheap first test: most start with text
            and cm.message.role == "assistant"
            and all(b.type in THINKING_TYPES for b in blocks)
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


def _is_whitespace_only(blocks: list[Block]) -> bool:
    for b in blocks:
        if b.type != "text":
            return False
        if b.text and b.text.strip():
            return False
    return True


def filter_whitespace_only_assistant_messages(
    msgs: list[CleanMessage], log: Log
) -> list[CleanMessage]:
    """Layer 5: drop assistant messages with no content or only whitespace text."""
    out = []
    for cm in msgs:
        if cm.message.role == "assistant" and _is_whitespace_only(cm.message.blocks):
            log(
                Drop(
                    LAYERS[4],
                    cm.src_index,
                    cm.message.uuid,
                    "assistant message is empty or whitespace only",
                )
            )
            continue
        out.append(cm)
    return out


def _block_missing_field(b: Block) -> str | None:
    if b.type == "tool_use":
        if not b.id:
            return "tool_use block without id"
        if not b.name:
            return "tool_use block without name"
    elif b.type == "tool_result" and not b.tool_use_id:
        return "tool_result block without tool_use_id"
    return None


def validate_content_block_integrity(msgs: list[CleanMessage], log: Log) -> list[CleanMessage]:
    """Layer 6: strip blocks missing ``id``/``name`` (tool_use) or ``tool_use_id`` (tool_result).

    [sidtui decision] A message left with no blocks is dropped too (an empty message is
    itself invalid for the API); see docs/DECISIONS.md.
    """
    out = []
    for cm in msgs:
        blocks = cm.message.blocks
        # the common case in one cheap pass: every tool block carries its ids
        ok = True
        for b in blocks:
            t = b.type
            if (t == "tool_use" and not (b.id and b.name)) or (
                t == "tool_result" and not b.tool_use_id
            ):
                ok = False
                break
        if ok:
            out.append(cm)
            continue
        reasons = [_block_missing_field(b) for b in blocks]
        if any(reasons):
            for pos, r in enumerate(reasons):
                if r:
                    log(Drop(LAYERS[5], cm.src_index, cm.message.uuid, r, cm.kept_blocks[pos]))
            _remove_blocks(cm, [r is None for r in reasons])
            if not cm.message.blocks:
                log(
                    Drop(
                        LAYERS[5],
                        cm.src_index,
                        cm.message.uuid,
                        "no valid block left in the message",
                    )
                )
                continue
        out.append(cm)
    return out


def check_integrity(messages: Iterable[Message]) -> Integrity:
    """Find orphan tool_uses and dangling tool_results (seed §7.2).

    Args:
        messages: messages in order.

    Returns:
        An :class:`Integrity`. A tool_result pairs with a tool_use that appears earlier;
        a tool_use pairs with a tool_result that appears later. One pass over the blocks.
    """
    integ = Integrity()
    uses: dict[str, tuple] = {}  # id -> (name, pos, uuid), in order of appearance
    answered: set[str] = set()
    for pos, m in enumerate(messages):
        for b in m.blocks:
            t = b.type
            if t == "tool_use":
                if b.id:
                    uses.setdefault(b.id, (b.name, pos, m.uuid))
            elif t == "tool_result" and b.tool_use_id:
                if b.tool_use_id in uses:
                    answered.add(b.tool_use_id)
                else:
                    integ.dangling.append((b.tool_use_id, pos, m.uuid))
    integ.orphans = [(i, *v) for i, v in uses.items() if i not in answered]
    return integ


def safe_slice_tail(messages: list[Message], n: int, max_expand: int = 5) -> list[Message]:
    """The last ``n`` messages, never starting on a dangling tool_result (seed §7.2).

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


def _tool_names_for_results(msgs: list[CleanMessage], last: CleanMessage) -> list[str]:
    names_by_id: dict[str, str] = {}
    for cm in msgs:
        for b in cm.message.blocks:
            if b.type == "tool_use" and b.id:
                names_by_id[b.id] = b.name or ""
    out = []
    for b in last.message.blocks:
        if b.type == "tool_result" and b.tool_use_id in names_by_id:
            out.append(names_by_id[b.tool_use_id])
    return out


def detect_interruption(
    msgs: list[CleanMessage], terminal_tool_names: Iterable[str] = TERMINAL_TOOL_NAMES
) -> tuple[list[CleanMessage], Interruption]:
    """Read the interruption state from the last cleaned message (seed §11.2).

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


def resume_note(interruption: Interruption) -> str | None:
    """The note the agent injects on resume for this state (seed §11.3; our wording).

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


def recover(
    messages: list[Message],
    *,
    terminal_tool_names: Iterable[str] = TERMINAL_TOOL_NAMES,
    valid_permission_modes: Iterable[str] = VALID_PERMISSION_MODES,
) -> RecoveryResult:
    """Run the six layers, then integrity and interruption detection (seed §7.5, §11.2).

    Args:
        messages: the loader's messages (not modified).
        terminal_tool_names: tools whose trailing results do not mean an interruption.
        valid_permission_modes: modes layer 2 keeps.

    Returns:
        A :class:`RecoveryResult`.
    """
    dropped: list[Drop] = []
    log = dropped.append
    msgs = [_wrap(m) for m in messages]
    msgs = migrate_legacy_formats(msgs, log)
    msgs = strip_invalid_permission_modes(msgs, log, valid_permission_modes)
    msgs = filter_unresolved_tool_uses(msgs, log)
    msgs = filter_orphaned_thinking_only_messages(msgs, log)
    msgs = filter_whitespace_only_assistant_messages(msgs, log)
    msgs = validate_content_block_integrity(msgs, log)
    sent, interruption = detect_interruption(msgs, terminal_tool_names)
    return RecoveryResult(
        messages=sent,
        dropped=dropped,
        interruption=interruption,
        loaded=messages,
        resume_note=resume_note(interruption),
    )

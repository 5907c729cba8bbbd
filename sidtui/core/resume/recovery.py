"""The agent's resume pipeline on the loaded messages: exactly what it would send (FORMAT.md §6).

:func:`recover` runs the six cleaning layers (``resume.cleaning``), then reads the
interruption state of the last message and the resume note (``resume.interruption``);
tool pairing before and after cleaning (``resume.integrity``) is computed on first use.
Messages the agent's pipeline would throw on give a :class:`RecoveryResult` with a
``failure`` and nothing sent (:func:`resume_failure`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import compress, count
from operator import is_not

from sidtui.core.resume.cleaning import (
    VALID_PERMISSION_MODES,
    CleanMessage,
    CleanMessages,
    Drop,
    clean,
)
from sidtui.core.resume.integrity import (
    Integrity,
    ToolBlocks,
    check_integrity,
    collect_tool_blocks,
    integrity_after_prefix,
    integrity_of,
    roles_fit,
)
from sidtui.core.resume.interruption import (
    TERMINAL_TOOL_NAMES,
    Interruption,
    detect_interruption,
    resume_note,
)
from sidtui.core.transcript.messages import STRING_CONTENT, Message, MessageScan


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
    _tool_blocks: ToolBlocks | None = field(default=None, repr=False)

    def _before_blocks(self) -> ToolBlocks | None:
        tb = self._tool_blocks
        if tb is None or not roles_fit(tb, self.loaded):  # the scan's take every role
            self._tool_blocks = tb = collect_tool_blocks(self.loaded)
        return tb

    @property
    def integrity_before(self) -> Integrity:
        """Pairing problems in the loaded messages (FORMAT.md §6.11).

        Paired from the tool ids the pre-pass already collected (C-level set and map
        operations); the block-by-block walk only for input that needs it.
        """
        if "before" not in self._integrity:
            self._integrity["before"] = integrity_of(self._before_blocks(), self.loaded)
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
        first_changed = None
        if isinstance(msgs, CleanMessages):
            plain, first_changed = msgs.plain()
        else:
            plain = [cm.message for cm in msgs]
        loaded = self.loaded
        # first position where the sent message is not the loaded one
        n = min(len(plain), len(loaded))
        same = next(compress(count(), map(is_not, plain, loaded)), n)
        if first_changed is not None:
            same = min(same, first_changed)
        tb = self._before_blocks() if same else None
        if tb is None:
            return check_integrity(plain)
        if same == len(plain) == len(loaded):
            b = self.integrity_before
            return Integrity(list(b.orphans), list(b.dangling))
        return integrity_after_prefix(plain, same, tb)


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

    The layers run only on the messages they could touch (``resume.cleaning.clean``);
    the result is the same as running each on every message.

    Args:
        messages: the loader's messages (not modified).
        terminal_tool_names: tools whose trailing results do not mean an interruption.
        valid_permission_modes: modes layer 2 keeps.
        scan: the loader's :class:`~sidtui.core.transcript.messages.MessageScan` of exactly
            ``messages`` (``LoadedSession.scan``), which saves the pre-pass a walk.

    Returns:
        A :class:`RecoveryResult`; its ``messages`` is a :class:`CleanMessages`.
    """
    failure = resume_failure(messages) if scan is None or scan.odd else None
    if failure is not None:
        return _failed(messages, failure)
    dropped: list[Drop] = []
    msgs, blocks = clean(messages, dropped.append, valid_permission_modes, scan)
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
        _tool_blocks=blocks,
    )

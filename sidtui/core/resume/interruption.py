"""How the last run ended, read from the last cleaned message (FORMAT.md §6.9), and the
note the agent injects on resume for it (FORMAT.md §6.10).

Assistant last: ``none``; a user message without tool_result: ``interrupted_prompt`` (taken
off and re-queued last); a user message with tool_results: ``interrupted_turn`` with the
tool names, unless every tool is in ``terminal_tool_names`` (empty in sid-code).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sidtui.core.resume.cleaning import CleanMessage
from sidtui.core.resume.integrity import hashable
from sidtui.core.transcript.messages import tool_name_text

#: Tools whose result ends a turn by itself (FORMAT.md §6.9). sid-code ships this empty, so a
#: trailing tool result always means ``interrupted_turn``; users may configure it.
TERMINAL_TOOL_NAMES: frozenset[str] = frozenset()


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


def _tool_names_for_results(msgs: Sequence[CleanMessage], last: CleanMessage) -> list[str]:
    """The tool names of ``last``'s tool_results, as the agent finds them: each result
    whose ``tool_use_id`` names a tool_use of the message just before ``last`` (in the
    cleaned list, and an assistant's; an id used twice there gives the later use's name),
    in the results' order. A result answering an older message's tool_use names nothing."""
    if len(msgs) < 2 or msgs[-2].message.role != "assistant":
        return []
    names_by_id: dict = {}
    for b in msgs[-2].message.blocks:
        if b.type == "tool_use" and hashable(b.id):
            names_by_id[b.id] = tool_name_text(b.name)
    return [
        names_by_id[b.tool_use_id]
        for b in last.message.blocks
        if b.type == "tool_result" and hashable(b.tool_use_id) and b.tool_use_id in names_by_id
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

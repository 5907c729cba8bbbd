"""What one Claude Code record is, from its content (docs/CLAUDE-CODE.md §4.2).

A ``user`` record is a typed prompt only when it is none of the other things Claude Code
writes as ``user``: tool results, injected text (``isMeta``: caveats, system reminders),
the summary after a compaction (``isCompactSummary``), local commands and their output
(``<command-name>``, ``<local-command-stdout>``, bash mode's ``<bash-input>``…), and the
``[Request interrupted by user…]`` markers. A command that prompts the model (a user's own
``/name``: ``<command-message>`` first, its expanded prompt after it as ``isMeta`` text) is a
prompt: the model answers it. Each test reads the scanned skeleton only.
"""

from __future__ import annotations

from typing import Any

from sidtui.core.claude.scan import CRecord

#: Tag prefixes of local-command and bash-mode records (not prompts to the model).
COMMAND_PREFIXES = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
)
#: How a command that prompts the model opens (a custom ``/name``, a plugin's, ``/init``):
#: Claude Code sends it and the expanded prompt after it as the user's turn (lab, 2.1.332).
PROMPT_COMMAND_PREFIX = "<command-message>"
#: What Claude Code writes when the user stops a turn (Esc).
INTERRUPT_PREFIX = "[Request interrupted by user"
#: Tool names that spawn a subagent (renamed from ``Task`` to ``Agent`` in 2.1.x).
SPAWN_TOOLS = frozenset({"Task", "Agent"})

PROMPT = "prompt"
TOOL_RESULTS = "tool_results"
META = "meta"
COMPACT_SUMMARY = "compact_summary"
COMMAND = "command"
INTERRUPT = "interrupt"


def first_text(rec: CRecord) -> str | None:
    """The text a user record opens with: its string content, or its first text block."""
    m = rec.message
    if m is None:
        return None
    c = m.content
    if isinstance(c, str):
        return c
    if c:
        for b in c:
            if b.type == "text" and isinstance(b.text, str):
                return b.text
    return None


def is_tool_results(rec: CRecord) -> bool:
    """A user record whose content is only ``tool_result`` blocks (at least one)."""
    m = rec.message
    c = m.content if m is not None else None
    return isinstance(c, list) and bool(c) and all(b.type == "tool_result" for b in c)


def user_kind(rec: CRecord) -> str:
    """One of :data:`PROMPT`, :data:`TOOL_RESULTS`, :data:`META`, :data:`COMPACT_SUMMARY`,
    :data:`COMMAND`, :data:`INTERRUPT` for a ``user`` record."""
    if rec.isCompactSummary is True:
        return COMPACT_SUMMARY
    if rec.isMeta is True:
        return META
    m = rec.message
    c = m.content if m is not None else None
    if c.__class__ is str:
        text: str | None = c
    elif c:
        if c[0].type == "tool_result" or any(b.type == "tool_result" for b in c):  # type: ignore[union-attr]
            return TOOL_RESULTS
        text = next((b.text for b in c if b.type == "text" and isinstance(b.text, str)), None)  # type: ignore[union-attr]
    else:
        text = None
    if text is not None:
        t = text.lstrip() if text[:1].isspace() else text
        if t.startswith(INTERRUPT_PREFIX):
            return INTERRUPT
        if t[:1] == "<" and t.startswith(COMMAND_PREFIXES):
            # a command that prompts the model (a user's own ``/name``, a plugin's, ``/init``)
            # opens with ``<command-message>``; a built-in local command (``/model``,
            # ``/clear``) with ``<command-name>`` (Claude Code 1.0–2.1)
            return PROMPT if t.startswith(PROMPT_COMMAND_PREFIX) else COMMAND
    return PROMPT


def tool_use_ids(rec: CRecord) -> list[Any]:
    """``id`` of each ``tool_use`` block of an assistant record."""
    m = rec.message
    c = m.content if m is not None else None
    if not isinstance(c, list):
        return []
    return [b.id for b in c if b.type in ("tool_use", "server_tool_use")]


def tool_result_ids(rec: CRecord) -> list[Any]:
    """``tool_use_id`` of each ``tool_result`` block of a user record."""
    m = rec.message
    c = m.content if m is not None else None
    if not isinstance(c, list):
        return []
    return [b.tool_use_id for b in c if b.type == "tool_result"]


def message_id(rec: CRecord) -> Any:
    """``message.id`` (the API response an assistant line belongs to), or None."""
    m = rec.message
    return m.id if m is not None else None


def checkpoint_prompt(rec: CRecord) -> str | None:
    """The prompt (user record uuid) a file-history record belongs to, or None: the one rule
    of docs/CLAUDE-CODE.md §10.1 for the reading and the rewind side.

    A ``file-history-snapshot`` names it in ``snapshot.messageId``: in an update
    (``isSnapshotUpdate``) the top-level ``messageId`` is the assistant record that made the
    edit, so it counts only when the nested one is missing. A ``file-history-delta`` names it
    in ``snapshotMessageId`` (its ``messageId`` is the editing record too).
    """
    if rec.type == "file-history-snapshot":
        nested = rec.snapshot.messageId if rec.snapshot is not None else None
        key = nested if isinstance(nested, str) and nested else rec.messageId
    elif rec.type == "file-history-delta":
        key = rec.snapshotMessageId
        if not (isinstance(key, str) and key):
            key = rec.messageId
    else:
        return None
    return key if isinstance(key, str) and key else None


def is_compact_boundary(rec: CRecord) -> bool:
    return rec.type == "system" and rec.subtype == "compact_boundary"

"""The shapes of the common session model that every source fills for export
(:meth:`~sidtui.core.sources.base.SessionModel.conversation_items`, ``subagent_links``,
``facts``): plain data, whatever agent wrote the session. They live in the lowest layer so
each adapter (``core.views`` for sid-code, ``core.claude``) can build them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class ConversationItem:
    """One message of a session as a reader is shown it (export), whatever the agent.

    Attributes:
        role: ``user`` / ``assistant`` (as written; ``tool`` in some sub-agent files).
        blocks: its content blocks decoded whole, as written (dicts; a string content is
            one ``{"type": "text", "text": ...}``; a value that is no dict is kept).
        status: ``loaded`` (the agent's resume sends it), ``lost`` (on disk, not sent) or
            ``added`` (the agent adds it itself on resume: not on disk).
        reason: for ``lost``/``added``, why, in words (None otherwise).
        note: what else to say about it (a meta prompt, a command, changed by cleaning…).
        prompt: a prompt the user typed.
        line, uuid, timestamp, model: where and when it was written, and the reply's model.
    """

    role: str | None
    blocks: list[Any]
    status: str = "loaded"
    reason: str | None = None
    note: str | None = None
    prompt: bool = False
    line: int | None = None
    uuid: str | None = None
    timestamp: str | None = None
    model: str | None = None


@dataclass(slots=True)
class SubagentLink:
    """A sub-agent of a session: the tool use that spawned it (None: not known) and its
    transcript (None: not on disk), with what is known of it for people."""

    spawn_id: str | None
    ref: Any
    label: str
    agent_type: str | None = None
    description: str | None = None
    status: str | None = None


@dataclass(slots=True)
class SessionFacts:
    """What a session says about itself (the head of an export)."""

    title: str | None = None
    project: str | None = None
    cwd: str | None = None
    model: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    agent_version: str | None = None
    git_branch: str | None = None
    #: the agent refuses to resume it (why), else None
    resume_error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

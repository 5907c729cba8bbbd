"""The document an export writes: one session read through its source, walked in order.

:class:`Document` wraps a :class:`~sidtui.core.sources.base.Source` and the
:class:`~sidtui.core.sources.base.SessionModel` it opened, and gives every writer (HTML,
Markdown, JSON) the same things: the session's facts and usage (:class:`Head`), its
conversation as :class:`~sidtui.core.base.conversation.ConversationItem` s one at a time
(:meth:`Document.items`, decoded as they are read: a 100 MB session is never held as
output), and its sub-agents opened on demand as documents of their own, nested under the
tool use that spawned them (:meth:`Document.subagents_of`) or listed after the
conversation when nothing links them (:meth:`Document.unlinked`). Nothing here knows which
agent wrote the session.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sidtui.core.base.conversation import ConversationItem, SessionFacts, SubagentLink
from sidtui.core.sources.base import Source

#: How deep sub-agents are nested (an agent that spawns agents...); deeper ones are named only.
MAX_DEPTH = 4


@dataclass
class Usage:
    """A session's tokens and cost (its sub-agents' included), as ``sidtui usage`` counts
    them. ``cost_usd`` None: a model has no price in the table (``unpriced``)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_tokens: int = 0
    cache_read_tokens: int = 0
    cost_usd: float | None = 0.0
    models: list[str] = field(default_factory=list)
    unpriced: list[str] = field(default_factory=list)
    prices_date: str = ""

    @property
    def total_tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_creation_tokens
            + self.cache_read_tokens
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_creation_tokens": self.cache_creation_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cost_usd": self.cost_usd,
            "models": self.models,
            "unpriced_models": self.unpriced,
            "prices_date": self.prices_date,
        }


def session_usages(
    source: Source, project: str | None, errors: list[str] | None = None
) -> dict[str, Usage]:
    """Every session's :class:`Usage` in ``source`` (one project, or all), by session id,
    from the usage engine (:func:`~sidtui.core.usage.aggregate.aggregate_files`)."""
    from sidtui.core.usage.aggregate import aggregate_files

    files = source.usage_events(project, errors=errors)
    report = aggregate_files(files, "session", project=project)
    return {
        r.key: Usage(
            r.input_tokens,
            r.output_tokens,
            r.cache_creation_tokens,
            r.cache_read_tokens,
            r.cost,
            sorted(r.models),
            sorted(r.unpriced),
            report.prices_date,
        )
        for r in report.rows
    }


def usage_later(source: Source, project: str | None, session_id: str) -> Callable[[], Usage | None]:
    """One session's :class:`Usage`, counted in a forked child while the caller reads the
    session (the usage engine reads the transcript again: on a 100 MB file that is half a
    second the two cores share); in-process where forking is not safe (a process with
    threads: the app). Call the result once to get it (None: nothing recorded).
    """
    from sidtui.core.base.pool import can_fork

    if not can_fork():
        u = session_usages(source, project).get(session_id)
        return lambda: u
    import os
    import pickle
    import signal

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: count, send, exit without running the parent's handlers
        code = 1
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            os.close(r)
            data = memoryview(pickle.dumps(session_usages(source, project).get(session_id)))
            while data:
                data = data[os.write(w, data) :]
            code = 0
        finally:
            os._exit(code)
    os.close(w)

    def result() -> Usage | None:
        with os.fdopen(r, "rb") as f:
            data = f.read()
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) == 0 and data:
            got = pickle.loads(data)  # our own child's
            return got if isinstance(got, Usage) or got is None else None
        return session_usages(source, project).get(session_id)  # the child failed: here

    return result


@dataclass
class Head:
    """What the top of an export says: the session, its facts, how it ends, its usage."""

    source: str
    source_label: str
    session_id: str
    path: str
    kind: str
    facts: SessionFacts
    interruption: str | None
    interruption_tools: list[str]
    usage: Usage | None
    usage_gaps: str | None
    warnings: list[str]
    live: bool

    def to_json(self) -> dict[str, Any]:
        f = self.facts
        return {
            "source": self.source,
            "session_id": self.session_id,
            "path": self.path,
            "kind": self.kind,
            "title": f.title,
            "project": f.project,
            "cwd": f.cwd,
            "model": f.model,
            "created_at": f.created_at,
            "updated_at": f.updated_at,
            "agent_version": f.agent_version,
            "git_branch": f.git_branch,
            "resume_error": f.resume_error,
            "interruption": {"kind": self.interruption, "tool_names": self.interruption_tools},
            "usage": self.usage.to_json() if self.usage is not None else None,
            "usage_gaps": self.usage_gaps,
            "warnings": self.warnings,
            "live": self.live,
        }


class Document:
    """One session to export (see the module docstring).

    Args:
        source: the source that read it.
        model: the session (``source.open(ref)``).
        usage: its usage (:func:`session_usages`), None when not counted (a sub-agent's
            is in its parent's).
        depth: 0 for the session exported, 1 for its sub-agents…
        seen: transcript paths already open above this one (a link cycle stops there).
    """

    def __init__(
        self,
        source: Source,
        model: Any,
        usage: Usage | None = None,
        *,
        depth: int = 0,
        seen: frozenset[str] = frozenset(),
    ) -> None:
        self.source = source
        self.model = model
        self.depth = depth
        self.seen = seen | {str(model.file.path)}
        self.errors: list[str] = []
        self._links: list[SubagentLink] | None = None
        self.head = Head(
            source=source.name,
            source_label=source.label,
            session_id=model.session_id,
            path=str(model.file.path),
            kind=model.file.kind,
            facts=model.facts(),
            interruption=model.interruption_kind,
            interruption_tools=list(model.interruption_tools),
            usage=usage,
            usage_gaps=source.usage_gaps,
            warnings=list(model.warnings),
            live=bool(model.liveness.live),
        )

    def items(self) -> Iterator[ConversationItem]:
        """The conversation, one message at a time (decoded as read)."""
        return iter(self.model.conversation_items())

    @property
    def links(self) -> list[SubagentLink]:
        if self._links is None:
            self._links = list(self.model.subagent_links())
        return self._links

    def spawn_ids(self) -> frozenset[str]:
        """The tool use ids that spawned a sub-agent of this session."""
        return frozenset(x.spawn_id for x in self.links if x.spawn_id)

    def subagents_of(self, tool_use_id: str) -> list[tuple[SubagentLink, Document | None]]:
        """The sub-agents ``tool_use_id`` spawned, each opened (None: not on disk, too deep,
        a cycle, or unreadable: see :attr:`errors`)."""
        return [(x, self._open(x)) for x in self.links if x.spawn_id == tool_use_id]

    def unlinked(self) -> list[tuple[SubagentLink, Document | None]]:
        """The sub-agents no tool use of the conversation is known to have spawned."""
        return [(x, self._open(x)) for x in self.links if not x.spawn_id]

    def _open(self, link: SubagentLink) -> Document | None:
        from sidtui.core.base.errors import SidtuiError

        if link.ref is None or self.depth + 1 > MAX_DEPTH:
            return None
        if str(link.ref.path) in self.seen:
            return None
        try:
            model = self.source.open(link.ref)
        except (SidtuiError, OSError) as exc:
            self.errors.append(f"sub-agent {link.label}: {exc}")
            return None
        return Document(self.source, model, depth=self.depth + 1, seen=self.seen)


@dataclass
class Tally:
    """What a writer counted while it wrote (the footer and ``--all``'s index)."""

    messages: int = 0
    loaded: int = 0
    lost: int = 0
    added: int = 0
    prompts: int = 0
    tool_uses: int = 0
    subagents: int = 0
    first_prompt: str | None = None

    def count(self, item: ConversationItem) -> None:
        if item.status == "added":
            self.added += 1
            return
        self.messages += 1
        if item.status == "lost":
            self.lost += 1
        else:
            self.loaded += 1
        if item.prompt:
            self.prompts += 1
            if self.first_prompt is None:
                self.first_prompt = first_text(item.blocks)

    def to_json(self) -> dict[str, Any]:
        return {
            "messages": self.messages,
            "loaded": self.loaded,
            "lost": self.lost,
            "added": self.added,
            "prompts": self.prompts,
            "tool_uses": self.tool_uses,
            "subagents": self.subagents,
        }


def first_text(blocks: Sequence[Any]) -> str | None:
    """The first text block's text."""
    for b in blocks:
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str):
            return b["text"]
    return None

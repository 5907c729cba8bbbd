"""The common model's shapes every source's reader fills (docs/ARCHITECTURE.md "Sources"):
:class:`SessionRef` (a transcript file), :class:`SessionModel` (one session read whole),
:class:`ConversationReading` (its conversation as a screen draws it), :class:`MessageLike`
and :class:`CheckResult`. Protocols only: each source's own classes satisfy them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from sidtui.core.base.conversation import ConversationItem, SessionFacts, SubagentLink
from sidtui.core.resume.process import Liveness


@runtime_checkable
class SessionRef(Protocol):
    """One transcript file of a source (sid-code's ``SessionFile``, ``ClaudeFile``)."""

    @property
    def path(self) -> Path: ...

    @property
    def session_id(self) -> str: ...

    @property
    def project(self) -> str: ...

    @property
    def kind(self) -> str:  # "main" | "sidechain"
        ...

    @property
    def container(self) -> str:  # "jsonl" | "json"
        ...


class MessageLike(Protocol):
    """One message of a resumed conversation, as both sources give it."""

    uuid: str | None
    line: int | None
    role: str | None
    timestamp: str | None

    @property
    def block_types(self) -> list[Any]: ...

    @property
    def tool_names(self) -> list[str]: ...

    @property
    def is_human_prompt(self) -> bool: ...

    def preview(self, width: int = 60) -> str: ...


class ConversationReading(Protocol):
    """A session's conversation as a screen draws it (``SessionModel.reading()``).

    Attributes:
        messages: the messages drawn, in order (each with ``role``, ``blocks``…).
        dropped: message index → why it is not sent on resume (drawn dimmed).
        block_dropped: ``(message, block)`` → why that block is not sent.
        notes: message index → words for its header (a re-queued prompt, a command…).
        compacts: message index → compaction marker records drawn before it.
        banner, banner_kind: the final banner's lines and the interruption kind.
        head: the screen header, ``(title, facts)``: ``title`` is ``(text, tone)`` pieces
            (tone: ``strong``, ``ok``, ``warn``, ``bad``, ``fatal``, ``live``, ``side``,
            ``muted`` or None), ``facts`` the second line's items: a string, or
            ``("count", n, noun)``, ``("size",)`` (the file's size), ``("started", iso)``,
            ``("warnings", n)``.
        where: the session's place in words, for the screen's title.
    """

    messages: list[Any]
    dropped: dict[int, str]
    block_dropped: dict[tuple[int, int], str]
    notes: dict[int, str]
    compacts: dict[int, list[int]]
    banner: list[str]
    banner_kind: str
    head: tuple[list[tuple[str, str | None]], list[Any]]
    where: str

    def content(self, msg: int) -> Any:
        """Message ``msg``'s content blocks as in its record(s), decoded on demand."""
        ...

    def lines_of(self, msg: int) -> tuple[int, ...]:
        """The file lines message ``msg`` is read from (empty: unknown)."""
        ...

    def span(self) -> tuple[Any, int] | None:
        """``(path, bytes read)`` of the transcript (None: lines unknown)."""
        ...

    def compact_text(self, rec_index: int) -> str:
        """The line a compaction marker record is drawn as."""
        ...

    def record_of(self, msg: int) -> int | None:
        """The record index message ``msg`` is read from (None: none)."""
        ...

    def record_text(self, index: int) -> tuple[int, str]:
        """``(line, JSON text)`` of record ``index`` (copy, ``$PAGER``)."""
        ...


class SessionModel(Protocol):
    """One session read into the common model (``show``, ``--json``, the app's screens).

    Attributes:
        source: the source's :attr:`Source.name`.
        session_id, file: the session and its transcript.
        conversation: the messages a resume loads, in order.
        tip_rows: every leaf of the record tree as rows (``uuid``, ``line``, ``kind``,
            ``resume``: the one a resume picks, ``joins_at_line``, ``records``).
        resume_leaf: the uuid of the record a resume continues from (None: nothing).
        interruption_kind, interruption_tools: how the conversation ended
            (``none`` / ``interrupted_prompt`` / ``interrupted_turn``) and the tools.
        warnings: every warning, worded for users.
        bad_lines: lines the agent cannot parse (``line``, ``offset``, ``reason``…).
        liveness: which registrations match.
    """

    @property
    def source(self) -> str: ...

    @property
    def session_id(self) -> str: ...

    @property
    def file(self) -> Any: ...

    @property
    def conversation(self) -> Sequence[Any]: ...

    @property
    def tip_rows(self) -> list[dict[str, Any]]: ...

    @property
    def resume_leaf(self) -> str | None: ...

    @property
    def interruption_kind(self) -> str | None: ...

    @property
    def interruption_tools(self) -> list[str]: ...

    @property
    def warnings(self) -> list[str]: ...

    @property
    def bad_lines(self) -> list[Any]: ...

    @property
    def liveness(self) -> Liveness: ...

    def full_record(self, index: int) -> Any: ...

    def to_json(self, lazy: bool = False) -> dict[str, Any]:
        """The ``show --json`` object (``lazy``: long lists as iterators, streamed)."""
        ...

    def reading(self) -> ConversationReading: ...

    # export (sidtui.core.export): the conversation on disk in order, what resume does with it
    def conversation_items(self) -> Iterator[ConversationItem]: ...

    def subagent_links(self) -> list[SubagentLink]: ...

    def facts(self) -> SessionFacts: ...


class CheckResult(Protocol):
    """What :meth:`Source.check` returns."""

    @property
    def exit_code(self) -> int: ...

    def to_json(self) -> dict[str, Any]: ...

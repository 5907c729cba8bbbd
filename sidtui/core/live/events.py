"""Watcher events: plain frozen dataclasses named as past-tense facts (STYLE.md).

A watcher delivers them in batches (``list[Event]`` in arrival order). Every event that
concerns a file carries ``session_id`` and ``path``; :func:`event_to_json` gives the
``sidtui watch --json`` form (``{"event": "RecordsAppended", ...}``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

from sidtui.core.resume.process import Conflict
from sidtui.core.transcript.structs import BadLine, RecordRef


@dataclass(frozen=True, slots=True)
class LiveRecord:
    """One appended record.

    Attributes:
        ref: its line index entry (absolute ``offset``/``end``/``line`` in the file).
        record: the decoded record (usually a dict; JSON.parse rules).
    """

    ref: RecordRef
    record: Any


@dataclass(frozen=True)
class Event:
    """Base class of every watcher event."""

    def to_json(self) -> dict[str, Any]:
        return event_to_json(self)


@dataclass(frozen=True)
class SessionCreated(Event):
    """A new transcript appeared under ``sessions/`` (kind ``main`` or ``sidechain``)."""

    session_id: str
    path: str
    project: str
    kind: str = "main"


@dataclass(frozen=True)
class RecordsAppended(Event):
    """Complete new lines were appended to a transcript (never a partial line)."""

    session_id: str
    path: str
    records: tuple[LiveRecord, ...] = ()
    kind: str = "main"


@dataclass(frozen=True)
class BadLineFound(Event):
    """A line JSON.parse rejects: a terminated bad line, or a final partial line whose
    writer died or that stayed unchanged for the settle period."""

    session_id: str
    path: str
    line: BadLine


@dataclass(frozen=True)
class ChainBranched(Event):
    """The live tip moved off the previous chain (a second writer, a rewind marker, a
    resume that restarted the chain): the chain was rebuilt in full.

    Attributes:
        old_tip / new_tip: uuids of the previous and the new live tip (None if absent).
        rewind: the new tip is a sidtui ``rewind`` metadata marker.
    """

    session_id: str
    path: str
    old_tip: str | None
    new_tip: str | None
    rewind: bool = False


@dataclass(frozen=True)
class FileReset(Event):
    """The file shrank or was replaced (new inode): it was re-read from the start."""

    session_id: str
    path: str
    reason: str


@dataclass(frozen=True)
class SidechainStarted(Event):
    """A sub-agent transcript appeared (its first record is ``sidechain_start``)."""

    session_id: str
    path: str
    parent_session_id: str | None
    agent_id: str | None


@dataclass(frozen=True)
class SidechainEnded(Event):
    """A sub-agent transcript got its ``sidechain_end`` record."""

    session_id: str
    path: str
    parent_session_id: str | None
    status: str | None


@dataclass(frozen=True)
class CheckpointIndexChanged(Event):
    """``checkpoints/<sessionId>/index.json`` was written (``snapshots``: count, -1 when
    unreadable right now or above 4 MB, which the watcher does not parse)."""

    session_id: str
    path: str
    snapshots: int


@dataclass(frozen=True)
class SessionBecameLive(Event):
    """A registration appeared whose PID is alive (``session_id`` is the registering
    process's id; match files with :func:`sidtui.core.resume.process.liveness_for`)."""

    session_id: str
    pid: int | None
    logical_session_id: str | None = None


@dataclass(frozen=True)
class SessionBecameStale(Event):
    """A registration's PID died (or was reused): the process crashed without unregistering."""

    session_id: str
    pid: int | None
    reason: str
    logical_session_id: str | None = None


@dataclass(frozen=True)
class SessionUnregistered(Event):
    """A registration file disappeared (the process exited cleanly)."""

    session_id: str
    pid: int | None


@dataclass(frozen=True)
class FileIntentConflictAppeared(Event):
    """Two sessions declared intents on the same file (FORMAT.md §12.4)."""

    conflict: Conflict = field(compare=True)


def _jsonable(v: Any) -> Any:
    if isinstance(v, LiveRecord):
        return {"line": v.ref.line, "uuid": v.ref.uuid, "type": v.ref.type, "record": v.record}
    if is_dataclass(v) and not isinstance(v, type):
        return {f.name: _jsonable(getattr(v, f.name)) for f in fields(v)}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return v


def event_to_json(e: Event) -> dict[str, Any]:
    """``{"event": <class name>, ...fields}`` with records as ``{line, uuid, type, record}``."""
    out: dict[str, Any] = {"event": type(e).__name__}
    for f in fields(e):
        out[f.name] = _jsonable(getattr(e, f.name))
    return out


__all__ = [
    "Event",
    "LiveRecord",
    "SessionCreated",
    "RecordsAppended",
    "BadLineFound",
    "ChainBranched",
    "FileReset",
    "SidechainStarted",
    "SidechainEnded",
    "CheckpointIndexChanged",
    "SessionBecameLive",
    "SessionBecameStale",
    "SessionUnregistered",
    "FileIntentConflictAppeared",
    "event_to_json",
]

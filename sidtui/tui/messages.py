"""Messages the workers post (facts, past tense): typed dataclasses carrying everything
their handler needs, so no handler reads back an attribute attached afterwards.

A worker computes and posts one of these; it never sets a widget's or a screen's
attributes and never calls their methods. Failures a person can act on travel in these
messages (``error``); anything else raised in a worker reaches
:class:`sidtui.tui.worker_errors.ReportsWorkerErrors`, the one error path.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Any

from textual.message import Message


@dataclass
class SessionsScanned(Message):
    """A batch of summaries arrived from the browser's scan or poll worker.

    Attributes:
        rows: ``SessionSummary`` objects (new or changed; every row when ``replace``).
        done / total: files summarized so far / to summarize (progress).
        final: the scan is complete (the table may now be sorted once).
        removed: paths that disappeared since the last scan.
        errors: one line per unreadable file.
        incremental: a poll's changes (rows updated in place).
        replace: ``rows`` is the whole listing.
        empty_hint: on a final batch of an empty home, what was looked for and where.
    """

    rows: list[Any]
    done: int
    total: int
    final: bool = False
    removed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    incremental: bool = False
    replace: bool = False
    empty_hint: str | None = None


@dataclass
class SessionLoaded(Message):
    """A session finished loading in a worker: its view and the tab models built from it.

    Attributes:
        view: the ``SessionView``.
        conversation / chain: the Conversation and Chain tab models.
        starts: the conversation's line layout, measured at ``width`` columns.
        stat: (size, mtime_ns) of the file when it was read.
        seconds: how long the read took.
        reload: a re-read of the open session (keep the reader's position).
        pending: the journals killed sidtui writes of it left (``PendingJournal``; the
            next undo, redo, restore or rewind finishes them).
        tips: every leaf (:meth:`Source.leaves`; empty where the reader has none).
        history, history_error: a file history's checkpoints (:meth:`Source.checkpoints`)
            and why it could not be read (None where checkpoints are snapshots).
    """

    view: Any
    conversation: Any
    chain: Any
    starts: array
    width: int
    stat: tuple[int, int]
    seconds: float
    reload: bool = False
    pending: list = field(default_factory=list)
    tips: list = field(default_factory=list)
    history: Any = None
    history_error: str | None = None


@dataclass
class SessionLoadFailed(Message):
    """Opening a session failed (``error`` is worded for people)."""

    error: str


@dataclass
class SessionFileChanged(Message):
    """The open session's file has another size or mtime than when it was read."""

    stat: tuple[int, int]


@dataclass
class LiveChanged(Message):
    """The watcher saw changes under the home (``paths``: files it named, resolved;
    ``processes``: an agent process started, exited or died)."""

    paths: set[str]
    processes: bool = False


@dataclass
class WatcherStarted(Message):
    """The home's watcher runs (``watcher``: a ``sidtui.core.live.Watcher``)."""

    watcher: Any


@dataclass
class BranchSwitchPlanned(Message):
    """A dry run of ``switch_branch`` for the record at ``line`` (``live_reason``: the
    session is live and a forced switch must be asked for; ``result`` is then None)."""

    uuid: str
    line: int
    result: Any
    live_reason: str | None = None


@dataclass
class BranchSwitched(Message):
    """``switch_branch`` wrote its marker."""

    line: int
    result: Any


@dataclass
class LayoutMeasured(Message):
    """The conversation's line layout of ``model`` at ``width``, measured in a worker."""

    model: Any
    width: int
    starts: array


@dataclass
class RewindPointsListed(Message):
    """The session's rewind points (``why``: why there are none)."""

    points: list[Any]
    why: str | None = None


@dataclass
class RewindComputed(Message):
    """A rewind preview (``applied`` False) or its real run.

    ``live``: refused because an agent is writing the session (``error`` says why);
    ``drift``: (path, warning) of files no longer what this session left there;
    ``stale``: the real run was refused because a file changed since the preview
    (``error`` says which; nothing was written); ``finished``: the run only finished an
    interrupted earlier one (its description); ``finishing``: a preview whose real run only
    finishes one (what it does), ``finishing_files`` the files it writes
    (:class:`~sidtui.core.checkpoints.restore.FileRestore`), ``refusal`` what stops it first.
    """

    result: Any
    error: str | None = None
    applied: bool = False
    live: bool = False
    drift: list[tuple[str, str]] = field(default_factory=list)
    stale: bool = False
    finished: str | None = None
    finishing: str | None = None
    finishing_files: list[Any] = field(default_factory=list)
    refusal: str | None = None


@dataclass
class RestorePlanned(Message):
    """An undo / redo / restore plan (``applied`` False) or its real run.

    Attributes:
        drift: (path, warning) of files no longer what this session left there.
        stale: the real run was refused because files changed since the preview; ``result``
            is the new plan (nothing was written).
        finished: applying only finished that interrupted run (its description); ``result``
            is what it wrote, or None.
        finishing: a preview whose real run only finishes an interrupted earlier run (what
            it does); ``result`` is that finish's dry run (the files it writes).
        live: the real run was refused because an agent writes the session (``error``
            says why); warnings: the core's notes on the plan (root, liveness).
    """

    result: Any
    error: str | None = None
    applied: bool = False
    drift: list[tuple[str, str]] = field(default_factory=list)
    stale: bool = False
    finished: str | None = None
    finishing: str | None = None
    live: bool = False
    warnings: list[str] = field(default_factory=list)


@dataclass
class ForkComputed(Message):
    """A fork or salvage result (``preview``: a salvage dry run)."""

    result: Any
    error: str | None = None
    preview: bool = False


@dataclass
class SearchAnswered(Message):
    """Search progress or results (``hits`` None while indexing; ``sources``: each hit's
    source name, in order)."""

    hits: list[Any] | None
    error: str | None = None
    status: str | None = None
    sources: list[str] = field(default_factory=list)


@dataclass
class CheckpointsLoaded(Message):
    """The session's checkpoint manager, snapshots and per-file chains."""

    manager: Any
    snapshots: list[Any]
    chains: dict[str, Any]
    error: str | None = None


@dataclass
class DiffComputed(Message):
    """A diff ready to show (``data``: a ``DiffData``)."""

    data: Any


@dataclass
class FindAnswered(Message):
    """Entries of the open conversation that match ``query`` (indices, in order)."""

    query: str
    matches: list[int]


@dataclass
class RecordFetched(Message):
    """A record's text read from the file (``purpose``: ``copy``, ``pager``, ``editor``)."""

    name: str
    text: str
    purpose: str


@dataclass
class FileVersionFetched(Message):
    """A file as it was before a snapshot, to open (``purpose``: ``pager`` or ``editor``)."""

    name: str
    text: str
    purpose: str


@dataclass
class UsageCounted(Message):
    """The usage screen's numbers: ``days`` (a ``UsageReport`` by day, rows split by model,
    over the window), ``projects`` (by project, same window), ``session`` (``(id, its
    cost, every session's cost)`` over all time, or None), or an ``error``."""

    days: Any = None
    projects: Any = None
    session: tuple[str, float | None, float | None] | None = None
    error: str | None = None

"""The journal of a write in progress: ``checkpoints/<sessionId>/sidtui-journal.json``.

Written atomically before the safety snapshot and removed when every step is done, so a
killed undo, redo, restore, rewind or fork leaves it behind and the next mutating verb
finishes that work instead of starting another (docs/DECISIONS.md, "Writes on a hostile
disk"). Its ``token`` is also the safety snapshot's ``sidtuiJournal``. The read verbs say
a pending one (:func:`pending_journals`).

Design notes (the shape): docs/ARCHITECTURE.md, “core/checkpoints/journal.py”.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import psutil

from sidtui.core.base import safefs
from sidtui.core.base.errors import SidtuiError
from sidtui.core.base.regular import NotRegularFile, TooBig, read_regular
from sidtui.core.checkpoints.index import CheckpointIndex

JOURNAL_NAME = "sidtui-journal.json"
VERSION = 1

#: The folders whose journal this process wrote and has not removed (what a Ctrl-C left:
#: :func:`interrupted_line`).
_WRITTEN: dict[str, None] = {}

#: The new sessions (id -> transcript path) this process wrote complete: a Ctrl-C after
#: that names them (:func:`interrupted_line`) — the run made them, whatever came after.
_COMPLETED: dict[str, str] = {}


def note_complete(session_id: str, transcript: Path) -> None:
    """A new session (fork, repair, rewind --fork copy) is now complete on disk."""
    _COMPLETED[session_id] = os.fspath(transcript)


def forget_runs() -> None:
    """Start of a CLI run: the journals and new sessions of an earlier run in this process
    (tests run many) are not this run's to report."""
    _WRITTEN.clear()
    _COMPLETED.clear()


def journal_path(folder: Path) -> Path:
    """The journal of the checkpoint folder ``folder`` (``checkpoints/<sessionId>/``)."""
    return Path(folder) / JOURNAL_NAME


def read_journal(folder: Path) -> dict[str, Any] | None:
    """The pending journal of ``folder``; None when there is none.

    A journal that is not a JSON object of sidtui's version (hand-edited, a foreign file),
    or not a regular file (a symlink, never followed; a FIFO, a folder), or unreadable is
    returned as ``{"invalid": reason}`` so the caller can report it rather than guess.
    """
    path = journal_path(folder)
    try:
        data = read_regular(path, 16 * 1024 * 1024, follow=False)
    except FileNotFoundError:
        return None
    except NotRegularFile as exc:  # never opened through a link, never waits on a FIFO
        return {"invalid": f"{path} is not a journal sidtui wrote ({exc.kind})"}
    except TooBig:
        return {"invalid": f"{path} is not a journal sidtui wrote (too big)"}
    except OSError as exc:
        return {"invalid": f"cannot read {path}: {exc.strerror or exc}"}
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return {"invalid": f"{path} is not valid JSON"}
    if not isinstance(value, dict) or value.get("version") != VERSION:
        return {"invalid": f"{path} is not a journal sidtui wrote"}
    return value


def foreign_refusal(journal: dict[str, Any]) -> str | None:
    """The one-line refusal of a write verb when ``journal`` (a :func:`read_journal` value)
    is not sidtui's: it is left alone, never finished, removed or written over; None when
    it is sidtui's."""
    if "invalid" not in journal:
        return None
    return f"{journal['invalid']}; left alone (remove it by hand if it is not sidtui's)"


def journal_refusal(journal: dict[str, Any], folder: Path, what: str = "session") -> str | None:
    """Why no write may touch ``journal`` (of ``folder``) now, in one line, else None: it
    is not sidtui's (:func:`foreign_refusal`), or the sidtui that wrote it still runs
    (:func:`writer_running`; not this process)."""
    if (foreign := foreign_refusal(journal)) is not None:
        return foreign
    pid = journal.get("pid")
    if pid != os.getpid() and writer_running(journal, folder):
        op = journal.get("op") or "restore"
        return f"another sidtui (process {pid}) is in the middle of a {op} of {what}; wait for it to finish"
    return None


def _started(pid: int) -> float | None:
    """When process ``pid`` started (seconds since the epoch); None when it is gone;
    ``-1.0`` when the system will not say (counted as the same process)."""
    try:
        return float(psutil.Process(pid).create_time())
    except psutil.NoSuchProcess:
        return None
    except (psutil.Error, OSError, ValueError):
        return -1.0


#: seconds of slack between two readings of a process's start time
_START_SLACK = 1.0


def writer_running(journal: dict[str, Any], folder: Path) -> bool:
    """Whether the process that wrote ``journal`` (in ``folder``) still runs: its pid runs
    *and* is that process — the start time the journal records (``pidStarted``), else a
    start no later than the journal file's last write. A pid reused after a reboot or a
    wrap so never holds a killed run's journal (the session's every write would be
    refused). Our own process counts as running."""
    pid = journal.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or not safefs.pid_running(pid):
        return False
    started = _started(pid)
    if started is None:
        return False
    if started < 0:
        return True
    recorded = journal.get("pidStarted")
    if isinstance(recorded, (int, float)) and not isinstance(recorded, bool):
        return abs(started - recorded) <= _START_SLACK
    try:
        written = os.lstat(journal_path(folder)).st_mtime
    except OSError:
        return True
    return started <= written + _START_SLACK


def write_journal(folder: Path, journal: dict[str, Any]) -> None:
    """Write ``journal`` into ``folder`` atomically (the folder is created when missing),
    with this process's pid and start time (:func:`writer_running`)."""
    started = _started(os.getpid())
    body: dict[str, Any] = {"version": VERSION, "pid": os.getpid()}
    if started is not None and started >= 0:
        body["pidStarted"] = started
    body.update(journal)
    _WRITTEN[os.fspath(folder)] = None
    safefs.write_atomic(journal_path(folder), orjson.dumps(body, option=orjson.OPT_INDENT_2))


def remove_journal(folder: Path) -> None:
    """Remove the journal (done). Never raises."""
    _WRITTEN.pop(os.fspath(folder), None)
    try:
        safefs.remove(journal_path(folder))
    except OSError:
        pass


def safety_position(index: Any, token: str) -> int:
    """Position of the safety snapshot written under ``token``; -1 when there is none."""
    for i in range(len(index.snapshots) - 1, -1, -1):
        if index.snapshots[i].get("sidtuiJournal") == token:
            return i
    return -1


def safety_written(folder: Path, journal: dict[str, Any] | None = None) -> bool:
    """Whether the run of ``journal`` (default: ``folder``'s pending one) had saved its
    safety snapshot in ``folder/index.json``: from then on project files may have been
    written, so that snapshot — the only copy of what they were — and the journal that
    finishes the run must never be removed. An index that exists but cannot be read
    counts as written (never guess toward deleting)."""
    j = read_journal(folder) if journal is None else journal
    token = j.get("token") if isinstance(j, dict) else None
    if not isinstance(token, str):
        return False
    try:
        index = CheckpointIndex.load(Path(folder) / "index.json")
    except FileNotFoundError:
        return False
    except (OSError, SidtuiError):
        return True
    return safety_position(index, token) >= 0


def interrupted_line() -> str:
    """What an interrupt (Ctrl-C) of this process left, in one line for the CLI: the
    journal it was in the middle of, whether files may be half written and which verb
    finishes it, or that no write was left half done — naming the new session this run
    wrote complete, if any (docs/DECISIONS.md, "Writes on a hostile disk")."""
    complete = [sid for sid, path in _COMPLETED.items() if os.path.lexists(path)]
    for folder in reversed(list(_WRITTEN)):
        j = read_journal(Path(folder))
        if not isinstance(j, dict) or j.get("pid") != os.getpid():
            continue
        if Path(folder).name in complete and not safety_written(Path(folder), j):
            continue  # the copy's own journal, its copy complete: only its removal is left
        op = str(j.get("op") or "restore")
        fork = j.get("fork") if isinstance(j.get("fork"), dict) else None
        if fork is not None:
            who = f"{op} of {fork.get('source')}"
            then = f"the next `sidtui {op.split()[0]}` of {fork.get('source')} finishes it"
        else:
            who = f"{op} of {Path(folder).name}"
            then = f"the next undo, redo, restore or rewind of {Path(folder).name} finishes it"
        if safety_written(Path(folder), j):
            return (
                f"interrupted: the {who} is half done — files may be half restored; its "
                f"safety snapshot keeps what they were, and {then} (`sidtui ls` shows it pending)"
            )
        return f"interrupted: the {who} had changed no file yet; {then} (or drops it)"
    if complete:
        return (
            f"interrupted after writing the new session {complete[-1]} (complete); "
            "nothing is half done"
        )
    return "interrupted: no write was left half done"


@dataclass(frozen=True)
class PendingJournal:
    """A journal left in ``<folder>/<session>/`` by a sidtui write not finished: its files
    may be half written until the next undo, redo, restore or rewind of the session finishes it.

    Attributes:
        session_id: the folder's name (for a fork: the incomplete copy's id).
        path: the journal file.
        op: what was interrupted (``undo``, ``restore``, ``rewind``, ``fork`` ...).
        pid: the process that wrote it; running: that process still runs (a write in
            progress, not a killed one).
        files: how many files it was writing (None: it names none).
        fork_of: for a fork's journal, the source session (the one a user knows).
        invalid: why it is not a journal sidtui wrote (the other fields then unknown).
        then: what finishes it, when not its kind's usual verbs (a source's own words).
        complete: a fork's copy was written whole (only the journal is left).
    """

    session_id: str
    path: Path
    op: str = "restore"
    pid: int | None = None
    running: bool = False
    files: int | None = None
    fork_of: str | None = None
    invalid: str | None = None
    then: str | None = None
    complete: bool = False

    @property
    def session(self) -> str:
        """The session a user would look at: a fork's source, else :attr:`session_id`."""
        return self.fork_of or self.session_id

    def describe(self) -> str:
        """One line for people."""
        if self.invalid is not None:
            return (
                f"{self.invalid}: an undo, redo or restore of {self.session_id} is refused "
                "until it is removed"
            )
        if self.running:
            return f"a sidtui {self.op} of {self.session} (process {self.pid}) is writing now"
        killed = f" (process {self.pid} was killed)" if self.pid is not None else ""
        files = f": {self.files} file(s) may be half restored" if self.files else ""
        if self.fork_of is not None:
            state = "was written complete" if self.complete else "is incomplete"
            copy = "" if self.files else f": its copy {self.session_id} {state}"
            then = self.then or "the next fork or rewind in its project finishes it first"
            return f"an interrupted sidtui {self.op} of {self.fork_of} is pending{killed}{files or copy}; {then}"
        return (
            f"an interrupted sidtui {self.op} of {self.session_id} is pending{killed}{files}; "
            "the next undo, redo, restore or rewind of it finishes it first"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "op": self.op,
            "pid": self.pid,
            "running": self.running,
            "files": self.files,
            "fork_of": self.fork_of,
            "journal": str(self.path),
            "invalid": self.invalid,
            "message": self.describe(),
        }


def pending_journals(
    folder: Path, session_ids: Iterable[str] | None = None
) -> list[PendingJournal]:
    """The journals in ``folder/<session>/`` (a home's ``checkpoints/``, a Claude Code
    home's ``sidtui/restores/``), sorted by session id; never raises.

    Args:
        folder: the parent of the per-session folders.
        session_ids: look only in these sessions' folders (None: every folder there, one
            ``access`` each; a session without a folder costs nothing).
    """
    if session_ids is None:
        try:
            with os.scandir(folder) as it:
                names = [e.name for e in it]
        except OSError:
            return []
    else:
        names = list(session_ids)
    found: list[PendingJournal] = []
    base = os.fspath(folder)
    for name in sorted(names):
        if not os.access(f"{base}/{name}/{JOURNAL_NAME}", os.F_OK, follow_symlinks=False):
            continue  # the common case: one system call, no exception, no Path object
        path = Path(base, name, JOURNAL_NAME)
        j = read_journal(path.parent)
        if j is None:  # removed meanwhile: finished
            continue
        if "invalid" in j:
            found.append(PendingJournal(name, path, invalid=str(j["invalid"])))
            continue
        pid = j.get("pid")
        pid = pid if isinstance(pid, int) and not isinstance(pid, bool) else None
        fork = j.get("fork") if isinstance(j.get("fork"), dict) else None
        part = j.get("restore") if isinstance(j.get("restore"), dict) else j.get("claude")
        paths = part.get("paths") if isinstance(part, dict) else None
        source = fork.get("source") if fork is not None else None
        found.append(
            PendingJournal(
                name,
                path,
                op=str(j.get("op") or ("fork" if fork is not None else "restore")),
                pid=pid,
                running=pid is not None and pid != os.getpid() and writer_running(j, path.parent),
                files=len(paths) if isinstance(paths, list) else None,
                fork_of=str(source) if fork is not None and source else None,
            )
        )
    return found

"""The process layer, read side: who is running, who is editing what (FORMAT.md §12.1–12.4).

Registrations (``active-sessions/``) with PID liveness checked against the start time,
which session a running process writes (file id, ``trace_session_id``,
``logicalSessionId``), and file intents with their conflicts.

Design notes: docs/ARCHITECTURE.md, “core/resume/process.py”.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from sidtui.core.base.home import Home, safe_id
from sidtui.core.base.jsonparse import JSONParseError, parse_line_slow
from sidtui.core.base.regular import NotRegularFile, TooBig, read_regular
from sidtui.core.base.values import json_int as _int
from sidtui.core.base.values import json_str as _s

INTENT_EXPIRY_MS = 5 * 60 * 1000
#: Slack between a process's create time (10 ms ticks) and its own ``startedAt``.
CREATE_TIME_SLACK_MS = 2000


@dataclass
class Registration:
    """One ``active-sessions`` entry and its liveness.

    Attributes:
        path: the registration file.
        session_id: the registering process's own session id.
        pid: its PID (None when missing/invalid).
        kind: interactive / headless / daemon / teammate (as written).
        cwd, model, team, logical_session_id: as written (None when absent).
        started_at: registration time in ms since the epoch (None when absent).
        live: the PID is alive and did not start after ``started_at`` — or it cannot be
            told (``possibly``).
        reason: why it is stale (or "alive", or why it is only possibly live).
        possibly: the file cannot be read or is not shaped as the agent writes it, so
            it counts as live (its ``session_id`` is None when unreadable: it matches the
            session whose safe id is the file name).
    """

    path: Path
    session_id: str | None
    pid: int | None
    kind: str | None = None
    cwd: str | None = None
    model: str | None = None
    team: Any = None
    logical_session_id: str | None = None
    started_at: int | None = None
    live: bool = False
    reason: str = ""
    possibly: bool = False


@dataclass
class FileIntent:
    """One declared intent on one file.

    Attributes:
        session_id, pid: the declaring session/process.
        path: the file (as declared, NFC in the agent's files).
        operation: ``read``, ``edit`` or ``write``.
        declared_at, last_access_at: ms since the epoch.
        expired: older than 5 minutes since last access, or the PID is dead.
        reason: why expired ("" when active).
    """

    session_id: str | None
    pid: int | None
    path: str
    operation: str | None
    declared_at: int | None
    last_access_at: int | None
    expired: bool = False
    reason: str = ""


@dataclass
class Conflict:
    """Two sessions on one file (FORMAT.md §12.4). ``severity`` is critical or warning."""

    path: str
    session_id: str | None
    other_session_id: str | None
    other_operation: str | None
    severity: str


@dataclass
class Liveness:
    """Whether a session file is being written by a running agent now.

    Attributes:
        live: a live registration matches the file.
        stale: registrations match but none is live (a crashed process left them).
        registrations: every matching registration.
    """

    live: bool = False
    stale: bool = False
    registrations: list[Registration] = field(default_factory=list)

    def to_json(self, *, with_status: bool = False) -> dict[str, Any]:
        """``live``, ``stale`` and each registration's ``session_id``, ``pid``, ``live``,
        ``reason``, ``path`` (and ``status``, None where absent, ``with_status``: the
        agents that record one), as ``show --json`` prints them."""
        regs = []
        for r in self.registrations:
            d: dict[str, Any] = {
                "session_id": r.session_id,
                "pid": r.pid,
                "live": r.live,
                "reason": r.reason,
                "path": str(r.path),
            }
            if with_status:
                d["status"] = getattr(r, "status", None)
            regs.append(d)
        return {"live": self.live, "stale": self.stale, "registrations": regs}


def pid_alive(pid: int, started_at_ms: int | None = None) -> tuple[bool, str]:
    """Is ``pid`` our agent's process still running?

    Args:
        pid: the process id.
        started_at_ms: when the process registered; a process created later than this
            (plus :data:`CREATE_TIME_SLACK_MS`) is a reused PID.

    Returns:
        (alive, reason).
    """
    import psutil

    if pid <= 0:
        return False, f"invalid pid {pid}"
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return False, f"pid {pid} is a zombie (exited)"
        created_ms = proc.create_time() * 1000
    except psutil.NoSuchProcess:
        return False, f"pid {pid} is not running"
    except psutil.AccessDenied:
        return True, f"pid {pid} exists (permission denied while probing)"
    except OSError as exc:  # pragma: no cover - platform oddities
        return False, f"pid {pid}: {exc}"
    if started_at_ms is not None and created_ms > started_at_ms + CREATE_TIME_SLACK_MS:
        return False, f"pid {pid} was reused by a process started after the registration"
    return True, f"pid {pid} is alive"


#: The largest registration or intent file read (the agent's are a few hundred bytes).
SMALL_JSON_MAX = 1 << 20


def read_json_file(path: Path) -> tuple[Any, str | None]:
    """A JSON file written in place by the agent: ``(value, None)``, or ``(None, why)`` when
    it cannot be read (not a regular file, too big, unreadable, torn JSON). A torn read is
    retried once."""
    why = "unreadable"
    for _ in range(2):
        try:
            data = read_regular(path, SMALL_JSON_MAX)
        except NotRegularFile as exc:
            return None, f"not a regular file ({exc.kind})"
        except TooBig as exc:
            return None, str(exc)
        except OSError as exc:
            why = exc.strerror or str(exc)
            continue
        try:
            return orjson.loads(data), None
        except orjson.JSONDecodeError:
            try:
                return parse_line_slow(data), None
            except JSONParseError as exc:
                why = f"unreadable JSON ({exc.reason})"
    return None, why


def read_json_tolerant(path: Path, warnings: list[str] | None = None) -> Any:
    """Read a JSON file written in place by the agent: retry a torn read once, else None
    (and a line in ``warnings``). Never opens a FIFO or a device for a blocking read."""
    value, why = read_json_file(path)
    if why is not None and warnings is not None:
        warnings.append(f"{path}: {why}; ignored")
    return value


#: ``startedAt`` below this is not ms since the epoch (seconds, or another unit): 2001-09-09.
MIN_STARTED_AT_MS = 10**12


def _strict_int(v: Any) -> int | None:
    """``v`` when it is a JSON integer as the agent writes one (not a bool, a float, a string)."""
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def read_registrations(home: Home, warnings: list[str] | None = None) -> list[Registration]:
    """Every ``active-sessions/*.json`` entry with its liveness, sorted by file name.

    A registration that cannot be read (torn JSON, not an object, a FIFO or a folder in
    its place) or whose ``pid``/``startedAt`` are not what the agent writes (integers,
    ``startedAt`` in ms) is **possibly live** (``live`` and ``possibly`` True: a change
    is refused, naming the file) — unless its ``pid`` is an integer no process has. Such
    files also get a line in ``warnings``.
    """
    out: list[Registration] = []
    folder = home.active_sessions_dir
    try:
        names = sorted(p for p in folder.iterdir() if p.suffix == ".json")
    except OSError:
        return out
    for p in names:
        d, why = read_json_file(p)
        if why is None and not isinstance(d, dict):
            why = "not a JSON object"
        if why is not None or not isinstance(d, dict):
            if warnings is not None:
                warnings.append(f"{p}: {why}; treated as a possibly live session")
            out.append(
                Registration(p, None, None, live=True, possibly=True, reason=why or "unreadable")
            )
            continue
        pid, started = _strict_int(d.get("pid")), _strict_int(d.get("startedAt"))
        reg = Registration(
            path=p,
            session_id=_s(d.get("sessionId")),
            pid=pid if pid is not None else _int(d.get("pid")),
            kind=_s(d.get("kind")),
            cwd=_s(d.get("cwd")),
            model=_s(d.get("model")),
            team=d.get("team"),
            logical_session_id=_s(d.get("logicalSessionId")),
            started_at=started,
        )
        odd = _odd_shape(d, pid, started)
        if pid is not None and pid > 0:
            reg.live, reg.reason = pid_alive(pid, None if odd else started)
            if not reg.live and not reg.reason.startswith(f"pid {pid} was reused"):
                out.append(reg)  # a dead process writes nothing, whatever the shape
                continue
        if odd:
            reg.live, reg.possibly = True, True
            reg.reason = odd
            if warnings is not None:
                warnings.append(f"{p}: {odd}; treated as a possibly live session")
        out.append(reg)
    return out


def _odd_shape(d: dict, pid: int | None, started: int | None) -> str | None:
    """Why a registration is not shaped as the agent writes it (None: it is)."""
    if pid is None or pid <= 0:
        return f"pid {d.get('pid')!r} is not a process id (the agent writes an integer)"
    if started is None:
        return (
            f"startedAt {d.get('startedAt')!r} is not an integer "
            "(the agent writes ms since the epoch)"
        )
    if started < MIN_STARTED_AT_MS:
        return f"startedAt {started} is not in ms since the epoch (seconds?)"
    return None


def liveness_for(
    session_id: str | Iterable[str],
    trace_ids: Iterable[str],
    registrations: list[Registration],
) -> Liveness:
    """Match registrations to a session file (see module docstring).

    Args:
        session_id: the file's id, or every id it goes by (its file name and its
            ``session_start.sessionId``: one rule for every verb).
        trace_ids: every ``trace_session_id`` value recorded in the file.
        registrations: from :func:`read_registrations`.
    """
    if not registrations:  # the usual listing: nothing runs, nothing to match
        return Liveness(live=False, stale=False, registrations=[])
    own = {session_id} if isinstance(session_id, str) else {i for i in session_id if i}
    ids = own | set(trace_ids)
    stems = {safe_id(i) for i in ids}
    matched = [
        r
        for r in registrations
        if (r.session_id in ids)
        or (r.logical_session_id in own)
        or (r.session_id is None and r.path.stem in stems)  # unreadable: by its file name
    ]
    live = any(r.live for r in matched)
    return Liveness(live=live, stale=bool(matched) and not live, registrations=matched)


def live_refusal(session_id: str, lv: Liveness, consequence: str) -> str:
    """The one line that refuses a change to a live or possibly live session.

    Args:
        session_id: the session as the user knows it.
        lv: its :class:`Liveness` (``lv.live`` is True).
        consequence: what the running agent would do to the change ("it would overwrite
            index.json from memory").
    """
    sure = [r for r in lv.registrations if r.live and not r.possibly]
    odd = [r for r in lv.registrations if r.live and r.possibly]
    if sure:
        pids = ", ".join(str(r.pid) for r in sure)
        return (
            f"session {session_id} is live (agent process {pids}): {consequence}; "
            "stop it first or pass --force"
        )
    where = "; ".join(f"{r.path}: {r.reason}" for r in odd)
    return (
        f"session {session_id} is possibly live (registration {where}): if an agent runs it, "
        f"{consequence}; stop it first or pass --force"
    )


def trace_session_ids_of(rf: Any, loaded: Any, chain: Any) -> list[str]:
    """:func:`trace_session_ids` without a pass over the bytes when the loader saw them all.

    When every record is on the chain (``chain.whole``), the loader's metadata entries are
    every metadata record in the file, in order, so only the ``trace_session_id`` values
    are decoded; with branches the scan's decoded keys say which lines to decode; only a
    file with odd lines gets the byte search.

    Args:
        rf: the scanned file (:class:`sidtui.core.transcript.records.RecordFile`).
        loaded: its :class:`sidtui.core.transcript.loader.LoadedSession`.
        chain: its :class:`sidtui.core.transcript.chain.ChainResult`.
    """
    if getattr(chain, "whole", False):  # the loader saw every metadata record
        indexes = [e.record for e in loaded.metadata_entries if e.key == "trace_session_id"]
    elif rf.objs is not None:  # every record's metadata key was decoded by the scan
        indexes = [
            i for i, o in enumerate(rf.objs) if o.key == "trace_session_id" and o.type == "metadata"
        ]
    elif rf.source is None:  # bytes in memory: one byte search
        return trace_session_ids(rf.data)
    else:  # read in pieces: never the whole file at once; a typed-decoded record's key is known
        indexes = [
            i
            for i, r in enumerate(rf.records)
            if r.type == "metadata" and (r.obj is None or r.obj.key == "trace_session_id")
        ]
    out: list[str] = []
    for i in indexes:
        rec = rf.decode_at(i)
        v = rec.get("value") if isinstance(rec, dict) else None
        if isinstance(v, str) and v not in out:
            out.append(v)
    return out


def trace_session_ids_in_file(path: Any) -> list[str]:
    """:func:`trace_session_ids` of a transcript on disk (a big one read in pieces).

    Raises:
        OSError / NotRegularFile: it cannot be read, or is not a regular file.
    """
    from sidtui.core.transcript.scan import scan_records
    from sidtui.core.transcript.source import read_transcript

    data = read_transcript(path)
    if isinstance(data, bytes):
        return trace_session_ids(data)
    return trace_session_ids_of(scan_records(data), None, None)


def trace_session_ids(data: bytes) -> list[str]:
    """Every ``trace_session_id`` metadata value in a transcript's bytes (any branch).

    Finds candidate lines by a byte search and decodes only those, so it costs one pass
    over the bytes (used by ``ls`` without decoding whole files).
    """
    out: list[str] = []
    needle = b'"trace_session_id"'
    j = data.find(needle)
    while j >= 0:
        start = data.rfind(b"\n", 0, j) + 1
        end = data.find(b"\n", j)
        end = len(data) if end < 0 else end
        j = data.find(needle, end)
        try:
            rec = orjson.loads(data[start:end])
        except orjson.JSONDecodeError:
            continue
        if (
            isinstance(rec, dict)
            and rec.get("type") == "metadata"
            and rec.get("key") == "trace_session_id"
            and isinstance(rec.get("value"), str)
            and rec["value"] not in out
        ):
            out.append(rec["value"])
    return out


def read_file_intents(
    home: Home, now_ms: int | None = None, warnings: list[str] | None = None
) -> list[FileIntent]:
    """Every declared intent in ``file-intents/*.json``, with expiry decided.

    Args:
        home: the home.
        now_ms: the current time in ms (default: the wall clock).
    """
    now = int(time.time() * 1000) if now_ms is None else now_ms
    out: list[FileIntent] = []
    try:
        names = sorted(p for p in home.file_intents_dir.iterdir() if p.suffix == ".json")
    except OSError:
        return out
    alive_cache: dict[int, tuple[bool, str]] = {}
    for p in names:
        d = read_json_tolerant(p, warnings)
        if not isinstance(d, dict):
            continue
        sid, pid = _s(d.get("sessionId")), _int(d.get("pid"))
        files = d.get("files")
        if not isinstance(files, dict):
            continue
        for key, f in files.items():
            if not isinstance(f, dict):
                continue
            fi = FileIntent(
                sid,
                pid,
                _s(f.get("path")) or str(key),
                _s(f.get("operation")),
                _int(f.get("declaredAt")),
                _int(f.get("lastAccessAt")),
            )
            if pid is None:
                fi.expired, fi.reason = True, "no valid pid"
            else:
                if pid not in alive_cache:
                    alive_cache[pid] = pid_alive(pid)
                alive, why = alive_cache[pid]
                if not alive:
                    fi.expired, fi.reason = True, why
            if not fi.expired:
                last = fi.last_access_at if fi.last_access_at is not None else fi.declared_at
                if last is None or now - last > INTENT_EXPIRY_MS:
                    fi.expired, fi.reason = True, "not touched for more than 5 minutes"
            out.append(fi)
    return out


def find_conflicts(intents: list[FileIntent]) -> list[Conflict]:
    """Conflicts between active intents of different sessions on the same file.

    One :class:`Conflict` per (session, other session, file): ``critical`` when the other
    edits/writes, ``warning`` when it only reads (FORMAT.md §12.4).
    """
    import unicodedata

    by_path: dict[str, list[FileIntent]] = {}
    for fi in intents:
        if not fi.expired:
            by_path.setdefault(unicodedata.normalize("NFC", fi.path), []).append(fi)
    out: list[Conflict] = []
    for path, fis in sorted(by_path.items()):
        for me in fis:
            for other in fis:
                if other.session_id == me.session_id:
                    continue
                sev = "critical" if other.operation in ("edit", "write") else "warning"
                out.append(Conflict(path, me.session_id, other.session_id, other.operation, sev))
    return out


def current_pid() -> int:
    """This process's PID (for writers that register themselves)."""
    return os.getpid()

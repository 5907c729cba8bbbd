"""The process layer, read side: who is running, who is editing what (FORMAT.md §12.1–12.4).

``active-sessions/<safeId>.json`` registers a running agent process
``{sessionId, pid, kind, cwd, startedAt (ms), team?, model?, logicalSessionId?}``. A
registration is **live** only while its PID is alive *and* that process started no later
than the registration (psutil create time: a reused PID is not our agent, FORMAT.md §12.2
[sidtui]); a permission error while probing still means alive. Otherwise it is **stale**
(a crashed process never unregisters, FORMAT.md §12.1).

A session *file* is live when a live registration's ``sessionId`` is the file's id, or is
any ``trace_session_id`` recorded in that file (a resumed process registers under its own
new id, FORMAT.md §12.3), or its ``logicalSessionId`` is the file's id.

``file-intents/<safeId>.json`` declares which files a session is touching (intents, not
locks, FORMAT.md §12.4): an intent expires 5 minutes after ``lastAccessAt`` or when its PID is
dead. Two sessions on one file conflict: ``critical`` when the other one writes/edits,
``warning`` when it only reads. Both kinds of file are rewritten in place upstream, so a
torn read is retried once and then treated as missing (with a warning).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from sidtui.core.base.home import Home
from sidtui.core.base.jsonparse import JSONParseError, parse_line_slow

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
        live: the PID is alive and did not start after ``started_at``.
        reason: why it is stale (or "alive").
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


def read_json_tolerant(path: Path, warnings: list[str] | None = None) -> Any:
    """Read a JSON file written in place by the agent: retry a torn read once, else None."""
    for attempt in range(2):
        try:
            data = path.read_bytes()
        except OSError as exc:
            if warnings is not None and attempt:
                warnings.append(f"{path}: {exc.strerror or exc}")
            continue
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            try:
                return parse_line_slow(data)
            except JSONParseError as exc:
                if attempt and warnings is not None:
                    warnings.append(f"{path}: unreadable JSON ({exc.reason}); ignored")
    return None


def _int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return None


def _s(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def read_registrations(home: Home, warnings: list[str] | None = None) -> list[Registration]:
    """Every ``active-sessions/*.json`` entry with its liveness, sorted by file name."""
    out: list[Registration] = []
    folder = home.active_sessions_dir
    try:
        names = sorted(p for p in folder.iterdir() if p.suffix == ".json")
    except OSError:
        return out
    for p in names:
        d = read_json_tolerant(p, warnings)
        if not isinstance(d, dict):
            continue
        reg = Registration(
            path=p,
            session_id=_s(d.get("sessionId")),
            pid=_int(d.get("pid")),
            kind=_s(d.get("kind")),
            cwd=_s(d.get("cwd")),
            model=_s(d.get("model")),
            team=d.get("team"),
            logical_session_id=_s(d.get("logicalSessionId")),
            started_at=_int(d.get("startedAt")),
        )
        if reg.pid is None:
            reg.live, reg.reason = False, "no valid pid"
        else:
            reg.live, reg.reason = pid_alive(reg.pid, reg.started_at)
        out.append(reg)
    return out


def liveness_for(
    session_id: str,
    trace_ids: Iterable[str],
    registrations: list[Registration],
) -> Liveness:
    """Match registrations to a session file (see module docstring).

    Args:
        session_id: the file's id.
        trace_ids: every ``trace_session_id`` value recorded in the file.
        registrations: from :func:`read_registrations`.
    """
    if not registrations:  # the usual listing: nothing runs, nothing to match
        return Liveness(live=False, stale=False, registrations=[])
    ids = {session_id, *trace_ids}
    matched = [
        r for r in registrations if (r.session_id in ids) or (r.logical_session_id == session_id)
    ]
    live = any(r.live for r in matched)
    return Liveness(live=live, stale=bool(matched) and not live, registrations=matched)


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
    else:
        return trace_session_ids(rf.data)
    out: list[str] = []
    for i in indexes:
        rec = rf.decode_at(i)
        v = rec.get("value") if isinstance(rec, dict) else None
        if isinstance(v, str) and v not in out:
            out.append(v)
    return out


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

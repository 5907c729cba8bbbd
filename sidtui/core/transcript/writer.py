"""The one session writer: ``SessionStore`` (FORMAT.md §8).

Lines are ``JSON.stringify(record) + "\\n"`` with ``timestamp``, ``uuid`` and ``parentUuid``
in the agent's order; the file is created with the first real record; ``session_start`` and
``session_end`` are written at once, the rest queued per file and flushed together (and at
exit). Readers call :func:`flush_pending_writes` first. Failures never raise; a torn last line
is ended before our next record.

Design notes: docs/ARCHITECTURE.md, “core/transcript/writer.py”.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sidtui.core.base.errors import SidtuiError, UnreadableInput, UsageError
from sidtui.core.base.jsonout import stringify
from sidtui.core.base.safefs import fault_point, make_dirs
from sidtui.core.transcript.scan import scan_records

log = logging.getLogger("sidtui.writer")

FLUSH_INTERVAL_S = 0.1
"""Seconds between the first queued record of a file and its flush (FORMAT.md §8.3: 100 ms)."""

CRITICAL_RECORD_TYPES = frozenset({"session_start", "session_end"})
"""Records that bypass the queue (FORMAT.md §8.3)."""

SESSION_VERSION = "3.0"
SCHEMA_COMPAT = "claude-code-like/v3"


# --------------------------------------------------------------------------- timestamps/uuids


def iso_now(now_ms: int | None = None) -> str:
    """``new Date().toISOString()``: ``YYYY-MM-DDTHH:MM:SS.mmmZ`` (UTC, milliseconds)."""
    if now_ms is None:
        now_ms = time.time_ns() // 1_000_000
    secs, ms = divmod(now_ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs)) + f".{ms:03d}Z"


class _Clock:
    """ISO timestamps, cached per millisecond (the writer's hot path calls this per record)."""

    __slots__ = ("_ms", "_text")

    def __init__(self) -> None:
        self._ms = -1
        self._text = ""

    def __call__(self) -> str:
        ms = time.time_ns() // 1_000_000
        if ms != self._ms:
            self._ms = ms
            self._text = iso_now(ms)
        return self._text


_UUID_BLOCK = 4096  # uuids per os.urandom call
_uuid_lock = threading.Lock()
_uuid_hex = ""
_uuid_pos = 0
_VARIANT = "89ab89ab89ab89ab"  # RFC 4122 variant nibble for each random nibble value


def new_uuid() -> str:
    """A random RFC 4122 v4 uuid string (``crypto.randomUUID()``).

    Same randomness as :func:`uuid.uuid4` (``os.urandom``: 122 random bits), several times
    faster: random bytes are fetched 4096 uuids at a time and sliced as hex (the writer
    stamps one uuid per record).
    """
    global _uuid_hex, _uuid_pos
    with _uuid_lock:
        if _uuid_pos >= len(_uuid_hex):
            _uuid_hex, _uuid_pos = os.urandom(16 * _UUID_BLOCK).hex(), 0
        h = _uuid_hex[_uuid_pos : _uuid_pos + 32]
        _uuid_pos += 32
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[int(h[16], 16)]}{h[17:20]}-{h[20:]}"


def _reset_uuid_buffer() -> None:
    global _uuid_hex, _uuid_pos
    _uuid_hex, _uuid_pos = "", 0


# A forked child must not hand out the parent's unused random bytes again.
os.register_at_fork(after_in_child=_reset_uuid_buffer)


# --------------------------------------------------------------------------- module-level queues


@dataclass(frozen=True)
class WriteFailure:
    """A write that did not reach the file.

    Attributes:
        path: the file.
        operation: ``"append"`` (a critical record), ``"flush"`` (queued records) or
            ``"mkdir"``.
        error: the OS error's message.
        records_lost: how many records did not land.
        partial: whether some bytes did land (the file may end in a torn line, which the
            next write terminates).
    """

    path: str
    operation: str
    error: str
    records_lost: int
    partial: bool = False


_lock = threading.RLock()
_pending: dict[str, list[bytes]] = {}
_timers: dict[str, threading.Timer] = {}
# Files whose last write failed part-way: the next write starts with "\n".
_torn: set[str] = set()
# Files this process created: never written through a symlink (one planted at the name).
_created: set[str] = set()
# Who hears about failures of a file's writes (stores writing it).
_listeners: dict[str, weakref.WeakSet[SessionStore]] = {}


def _report(path: str, failure: WriteFailure) -> None:
    log.error(
        "session write failed: %s %s (%d record(s) lost): %s",
        failure.operation,
        path,
        failure.records_lost,
        failure.error,
    )
    for store in list(_listeners.get(path, ())):
        store._on_failure(failure)


def _append_bytes(path: str, data: bytes, records: int, operation: str) -> bool:
    """``appendFileSync``: one O_APPEND write (looped for short writes). Never raises."""
    if path in _torn:
        data = b"\n" + data
    written = 0
    try:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
        if path in _created:
            flags |= os.O_NOFOLLOW
        fd = os.open(path, flags, 0o644)
        try:
            view = memoryview(data)
            while written < len(data):
                fault_point("append", path)
                written += os.write(fd, view[written:])
        finally:
            os.close(fd)
    except OSError as exc:
        partial = 0 < written < len(data) or not _ends_with_newline(path)
        if partial:
            _torn.add(path)
        _report(path, WriteFailure(path, operation, str(exc), records, partial))
        return False
    _torn.discard(path)
    return True


def _ends_with_newline(path: str) -> bool:
    """Whether the file is empty/missing or its last byte is ``\n`` (best effort)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            if fh.tell() == 0:
                return True
            fh.seek(-1, os.SEEK_END)
            return fh.read(1) == b"\n"
    except OSError:
        return True


def _flush_locked(path: str) -> None:
    timer = _timers.pop(path, None)
    if timer is not None:
        timer.cancel()
    queue = _pending.get(path)
    if not queue:
        return
    _pending[path] = []
    _append_bytes(path, b"".join(queue), len(queue), "flush")


def flush_pending_writes(path: str | os.PathLike[str] | None = None) -> None:
    """Write what is queued for ``path`` (or for every file) now, in one write per file.

    Call before reading a file this process may be writing (FORMAT.md §8.5). Never raises.
    """
    with _lock:
        if path is None:
            for p in list(_pending):
                _flush_locked(p)
        else:
            _flush_locked(os.fspath(path))


def pending_count(path: str | os.PathLike[str]) -> int:
    """Number of records queued for ``path`` and not yet written."""
    with _lock:
        return len(_pending.get(os.fspath(path), ()))


def _enqueue(path: str, chunk: bytes, interval: float) -> None:
    with _lock:
        queue = _pending.get(path)
        if queue is None:
            queue = _pending[path] = []
        queue.append(chunk)
        if path not in _timers:
            timer = threading.Timer(interval, flush_pending_writes, args=(path,))
            timer.daemon = True  # timer.unref(): never keeps the process alive
            _timers[path] = timer
            timer.start()


def _write_critical(path: str, chunk: bytes) -> bool:
    with _lock:
        _flush_locked(path)  # queued records first, or the critical one overtakes them
        return _append_bytes(path, chunk, 1, "append")


# One hook for the process (FORMAT.md §8.5), not one per store.
atexit.register(flush_pending_writes)


# --------------------------------------------------------------------------- the store


class SessionStore:
    """Append records to one session file the way the agent's store does (FORMAT.md §8).

    Args:
        session_dir: the project's folder under ``sessions/`` (created on first write).
        on_error: called with each :class:`WriteFailure` (from the caller's thread or the
            flush timer's); exceptions it raises are logged and ignored.
        flush_interval: seconds a queued record waits at most (default 0.1, FORMAT.md §8.3).
        clock: ``() -> ISO timestamp`` for records (default: now; the demo injects a fixed
            fake clock so a seeded home is byte-for-byte reproducible).
        uuid_factory: ``() -> uuid string`` (default: random v4; same reason).

    Attributes:
        path: the current session file (None before ``start_session``/``resume``).
        session_id: the current session's id.
        last_uuid: the chain tail: the uuid the next record's ``parentUuid`` gets.
        materialized: whether the file has been created (or existed, after resume).
        errors: every :class:`WriteFailure` seen for this store's file.

    One store is used from one thread at a time (like the agent's): the chain tail is
    per store. The per-file queues and the flush timer are thread-safe.
    """

    def __init__(
        self,
        session_dir: str | os.PathLike[str],
        *,
        on_error: Callable[[WriteFailure], Any] | None = None,
        flush_interval: float = FLUSH_INTERVAL_S,
        clock: Callable[[], str] | None = None,
        uuid_factory: Callable[[], str] | None = None,
    ) -> None:
        self.session_dir = Path(session_dir)
        self.on_error = on_error
        self.flush_interval = flush_interval
        self.path: Path | None = None
        self.session_id: str | None = None
        self.last_uuid: str | None = None
        self.materialized = False
        self.errors: list[WriteFailure] = []
        self._pending_start: dict[str, Any] | None = None
        self._key: str | None = None
        self._clock: Callable[[], str] = clock or _Clock()
        self._new_uuid: Callable[[], str] = uuid_factory or new_uuid
        # Per-message context is written only when it changed (FORMAT.md §3.3).
        self._context: dict[str, Any] = {}

    # -- lifecycle ---------------------------------------------------------------------

    def start_session(
        self,
        session_id: str,
        model: str,
        provider: str,
        cwd: str,
        *,
        forked_from_session_id: str | None = None,
        file_name: str | None = None,
    ) -> str:
        """Prepare a new session file ``<session_dir>/<session_id>.jsonl`` (nothing written).

        The ``session_start`` record is held in memory and its uuid becomes the chain
        tail at once, so later records chain to it (FORMAT.md §8.4). A fork passes the source
        session id, which becomes the ``session_start.parentUuid`` (the agent's fork shape),
        and ``file_name``: the temporary name it is written under until complete.

        Returns:
            The pending ``session_start`` uuid.
        """
        self._bind(self.session_dir / (file_name or f"{session_id}.jsonl"))
        self.session_id = session_id
        self.materialized = False
        rec_uuid = self._new_uuid()
        self._pending_start = {
            "type": "session_start",
            "version": SESSION_VERSION,
            "schemaCompat": SCHEMA_COMPAT,
            "sessionId": session_id,
            "model": model,
            "provider": provider,
            "cwd": cwd,
            "timestamp": self._clock(),
            "uuid": rec_uuid,
            "parentUuid": forked_from_session_id,
        }
        self.last_uuid = rec_uuid
        self._context = {}
        return rec_uuid

    def resume(self, path: str | os.PathLike[str]) -> str | None:
        """Continue an existing file: no new ``session_start``; chain from its last line.

        The first record this store writes gets as ``parentUuid`` the uuid of the old
        file's physical last parseable line (FORMAT.md §8.6), ``None`` if that line has none.
        A file that does not end in ``\\n`` (a torn write) gets one first [sidtui].

        Returns:
            The tail uuid the chain continues from.

        Raises:
            sidtui.core.base.errors.UnreadableInput: the file cannot be read.
        """
        p = Path(path)
        key = os.fspath(p)
        flush_pending_writes(key)
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise UnreadableInput(f"cannot read {p}: {exc.strerror or exc}") from None
        rf = scan_records(data)
        self._bind(p)
        self.session_id = p.stem
        self.materialized = True
        self._pending_start = None
        self.last_uuid = rf.records[-1].uuid if rf.records else None
        if data and not data.endswith(b"\n"):
            with _lock:
                _torn.add(key)
        self._context = {}
        return self.last_uuid

    def end_session(self, total_cost_usd: float, total_messages: int) -> str | None:
        """Append ``session_end`` (synchronously, after the queue); nothing if never written.

        Returns:
            The record's uuid, or None when the session never materialized (no file is
            created, FORMAT.md §8.4).
        """
        if not self.materialized:
            self.path = None
            self._key = None
            self._pending_start = None
            return None
        return self.append_record(
            {
                "type": "session_end",
                "totalCostUSD": total_cost_usd,
                "totalMessages": total_messages,
                "timestamp": self._clock(),
            }
        )

    def flush(self) -> None:
        """Write this store's queued records now."""
        if self._key is not None:
            flush_pending_writes(self._key)

    # -- records -------------------------------------------------------------------------

    def append_record(self, record: dict[str, Any]) -> str:
        """Stamp ``record`` into the chain and write or queue it (the agent's appendRecord).

        ``timestamp`` is added if absent; ``uuid`` and ``parentUuid`` are set last (key
        order as the agent's files). ``record`` is not modified.

        Returns:
            The record's uuid.

        Raises:
            sidtui.core.base.errors.UsageError: no session started or resumed.
            TypeError: ``record`` holds values JSON cannot represent.
        """
        rec = dict(record)
        if "timestamp" not in rec:
            rec["timestamp"] = self._clock()
        rec.pop("uuid", None)
        rec.pop("parentUuid", None)
        return self._stamp_and_write(rec)

    def _stamp_and_write(self, rec: dict[str, Any]) -> str:
        """Add uuid/parentUuid to ``rec`` (owned: no uuid keys yet) and write or queue it."""
        key = self._key
        if key is None:
            raise UsageError("no session: call start_session() or resume() first")
        rec_uuid = self._new_uuid()
        rec["uuid"] = rec_uuid
        rec["parentUuid"] = self.last_uuid
        chunk = stringify(rec, line=True)  # encoded before materializing: bad input writes nothing
        if not self.materialized:
            self._ensure_materialized()
        self.last_uuid = rec_uuid
        if rec.get("type") in CRITICAL_RECORD_TYPES:
            _write_critical(key, chunk)
        else:
            _enqueue(key, chunk, self.flush_interval)
        return rec_uuid

    def append_message(
        self,
        message: dict[str, Any],
        *,
        usage: dict[str, Any] | None = None,
        model: str | None = None,
        stop_reason: str | None = None,
        msg_id: str | None = None,
        cwd: str | None = None,
        git_branch: str | None = None,
        permission_mode: str | None = None,
        record_type: str | None = None,
    ) -> str:
        """Append a ``user_message`` or ``assistant_message`` (by ``message["role"]``).

        Args:
            message: ``{role, content: block[]}`` (kept as given, ``_meta`` included).
            usage, model, stop_reason, msg_id: assistant per-call fields (written when
                given, as ``usage``/``model``/``stopReason``/``msgId``).
            cwd, git_branch, permission_mode: user per-message context; each is written
                only when it differs from the last value this store wrote (FORMAT.md §3.3).
            record_type: overrides the type derived from the role.

        Returns:
            The record's uuid.
        """
        role = message.get("role")
        rtype = record_type or ("assistant_message" if role == "assistant" else "user_message")
        rec: dict[str, Any] = {"type": rtype, "message": message, "timestamp": self._clock()}
        if rtype == "assistant_message":
            if usage is not None:
                rec["usage"] = usage
            if model is not None:
                rec["model"] = model
            if stop_reason is not None:
                rec["stopReason"] = stop_reason
            if msg_id is not None:
                rec["msgId"] = msg_id
        elif cwd is not None or git_branch is not None or permission_mode is not None:
            for field_name, value in (
                ("cwd", cwd),
                ("gitBranch", git_branch),
                ("permissionMode", permission_mode),
            ):
                if value is not None and self._context.get(field_name) != value:
                    rec[field_name] = value
                    self._context[field_name] = value
        return self._stamp_and_write(rec)

    def append_metadata(self, key: str, value: Any) -> str:
        """Append ``{type: "metadata", key, value}`` (last record per key wins on load)."""
        return self._stamp_and_write(
            {"type": "metadata", "key": key, "value": value, "timestamp": self._clock()}
        )

    def append_compact(self, summary: str, removed_count: int, *, source: str | None = None) -> str:
        """Append a ``context_compact`` boundary marker (it never truncates what loads)."""
        rec: dict[str, Any] = {
            "type": "context_compact",
            "summary": summary,
            "removedCount": removed_count,
            "timestamp": self._clock(),
            "isBoundary": True,
        }
        if source is not None:
            rec["source"] = source
        return self._stamp_and_write(rec)

    # -- internals -----------------------------------------------------------------------

    def _bind(self, path: Path) -> None:
        if self._key is not None:
            flush_pending_writes(self._key)
            ls = _listeners.get(self._key)
            if ls is not None:
                ls.discard(self)
        self.path = path
        self._key = os.fspath(path)
        with _lock:
            _listeners.setdefault(self._key, weakref.WeakSet()).add(self)

    def _ensure_materialized(self) -> None:
        if self.materialized or self._key is None:
            return
        self.materialized = True
        try:
            make_dirs(os.path.dirname(os.path.abspath(self._key)))
        except (OSError, SidtuiError) as exc:
            _report(self._key, WriteFailure(self._key, "mkdir", str(exc), 1))
        with _lock:
            # A new file: never written through a symlink planted at its name.
            _created.add(self._key)
        start = self._pending_start
        if start is not None:
            self._pending_start = None
            _write_critical(self._key, stringify(start) + b"\n")

    def _on_failure(self, failure: WriteFailure) -> None:
        self.errors.append(failure)
        if self.on_error is not None:
            try:
                self.on_error(failure)
            except Exception:  # a broken callback must not break the writer
                log.exception("session writer on_error callback failed")

    def __rich_repr__(self):  # pragma: no cover - debugging aid
        yield "path", self.path
        yield "last_uuid", self.last_uuid
        yield "materialized", self.materialized
        yield "errors", len(self.errors)


# --------------------------------------------------------------------------- sidechains


class SidechainWriter:
    """A sub-agent transcript: linear, synchronous, no uuid chain (FORMAT.md §9.2).

    File: ``<session_dir>/<parentSessionId>-<agentId>.jsonl``. Records:
    ``sidechain_start {sessionId, agentId, agentType, description, model, timestamp}``,
    ``message {role, content, turn, timestamp}``, ``sidechain_end {status, timestamp}``.
    Write failures are logged and kept in :attr:`errors`, never raised. ``clock`` (``() ->
    ISO timestamp``) defaults to now.
    """

    def __init__(
        self,
        session_dir: str | os.PathLike[str],
        parent_session_id: str,
        agent_id: str,
        *,
        clock: Callable[[], str] | None = None,
    ) -> None:
        self.session_dir = Path(session_dir)
        self.parent_session_id = parent_session_id
        self.agent_id = agent_id
        self.path = self.session_dir / f"{parent_session_id}-{agent_id}.jsonl"
        self.errors: list[WriteFailure] = []
        self._clock: Callable[[], str] = clock or _Clock()

    def _write(self, rec: dict[str, Any]) -> None:
        key = os.fspath(self.path)
        chunk = stringify(rec, line=True)
        try:
            os.makedirs(self.session_dir, exist_ok=True)
        except OSError as exc:
            self.errors.append(WriteFailure(key, "mkdir", str(exc), 1))
            log.error("sidechain mkdir failed: %s: %s", key, exc)
            return
        with _lock:
            ok = _append_bytes(key, chunk, 1, "append")
        if not ok:
            self.errors.append(WriteFailure(key, "append", "write failed (see log)", 1))

    def start(self, agent_type: str, description: str, model: str) -> None:
        """Write ``sidechain_start``."""
        self._write(
            {
                "type": "sidechain_start",
                "sessionId": self.parent_session_id,
                "agentId": self.agent_id,
                "agentType": agent_type,
                "description": description,
                "model": model,
                "timestamp": self._clock(),
            }
        )

    def message(self, role: str, content: Any, turn: int) -> None:
        """Write one ``message`` (role ``user``/``assistant``/``tool``)."""
        self._write(
            {
                "type": "message",
                "role": role,
                "content": content,
                "turn": turn,
                "timestamp": self._clock(),
            }
        )

    def end(self, status: str = "completed") -> None:
        """Write ``sidechain_end`` (``completed``/``failed``/``aborted``)."""
        self._write({"type": "sidechain_end", "status": status, "timestamp": self._clock()})

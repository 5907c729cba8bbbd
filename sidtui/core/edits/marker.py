"""Appending one of sidtui's marker records (``rewind``, ``branch_switch``) to a transcript.

A marker is appended only after a whole record (docs/DECISIONS.md): a writer that writes
one record in two ``write()`` calls must never get our marker glued inside its record.
:func:`settle_tail` waits briefly for a torn tail to be finished (:class:`TailPolicy`,
injectable: tests never sleep) and refuses one that stays torn — still or moving, a
crashed writer's or a slow one's: nothing tells them apart. The one exception is a
still fragment of a sidtui marker (a sidtui killed in its own append): it is ended with
``\n`` first, so a re-run reaches the end. :func:`append_marker` holds the file open and
looks at its tail again through that same descriptor right before its one ``write()``,
and refuses when it is not what was settled on.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sidtui.core.base.errors import SidtuiError
from sidtui.core.base.jsonout import stringify
from sidtui.core.base.regular import NotRegularFile, kind_of, open_regular
from sidtui.core.base.safefs import fault_point
from sidtui.core.transcript.writer import flush_pending_writes, iso_now, new_uuid

_TAIL_PROBE = 64 * 1024


class MarkerError(SidtuiError):
    """The marker could not be appended (exit 1)."""


@dataclass(frozen=True)
class TailPolicy:
    """How long to wait for a half-written last record to be finished.

    Attributes:
        attempts: checks before giving up (the first is immediate).
        interval_s: seconds between checks.
        wait: ``(seconds) -> None``; None is :func:`time.sleep` (looked up when called).
        before_append: ``() -> None`` called with the file held open, between the last
            look at its tail and the write (tests put a writer's half record there).
    """

    attempts: int = 20
    interval_s: float = 0.05
    wait: Callable[[float], None] | None = None
    before_append: Callable[[], None] | None = None

    def pause(self) -> None:
        (self.wait or time.sleep)(self.interval_s)


DEFAULT_TAIL_POLICY = TailPolicy()
"""The policy used when none is given (tests replace it: they never sleep)."""


def _fd_tail(fd: int) -> tuple[int, bool]:
    """``(size, ends after a whole line)`` of the open file ``fd`` (empty counts as whole)."""
    size = os.fstat(fd).st_size
    if size == 0:
        return 0, True
    return size, os.pread(fd, 1, size - 1) == b"\n"


def _tail(path: Path) -> tuple[int, bool]:
    """``(size, ends after a whole line)`` of ``path``."""
    try:
        fd, _st = open_regular(path)
    except NotRegularFile as exc:
        raise MarkerError(str(exc)) from None
    try:
        return _fd_tail(fd)
    finally:
        os.close(fd)


MARKER_KEYS = ("rewind", "branch_switch")
"""The ``metadata`` keys of sidtui's markers (no agent writes them)."""

_HEADS = tuple(b'{"type":"metadata","key":"%s","value":{' % k.encode() for k in MARKER_KEYS)


def _ours(path: Path, size: int) -> bool:
    """Whether the torn last line of ``path`` (``size`` bytes) is a sidtui marker's start.

    True when the fragment after the last ``\n`` begins with a marker's fixed head, or is
    a prefix of one (a kill can land any prefix of our one ``write()``).
    """
    try:
        fd, _st = open_regular(path)
    except (OSError, NotRegularFile):
        return False
    try:
        start = max(0, size - _TAIL_PROBE)
        data = os.pread(fd, size - start, start)
    except OSError:
        return False
    finally:
        os.close(fd)
    cut = data.rfind(b"\n")
    if cut < 0 and start > 0:
        return False  # a torn line longer than the probe is no marker of ours
    frag = data[cut + 1 :]
    return bool(frag) and any(frag.startswith(h) or h.startswith(frag) for h in _HEADS)


def _torn(path: Path, what: str) -> MarkerError:
    return MarkerError(
        f"{path} ends in an incomplete record ({what}); nothing was appended — a rewind "
        "marker lands only after a whole record: try again when the agent is done writing"
    )


def settle_tail(path: Path, policy: TailPolicy | None = None) -> tuple[int, bool]:
    """Wait until ``path`` ends after a whole record and stops growing.

    Returns:
        ``(size, whole)`` settled on: ``whole`` is False only for a still fragment of a
        sidtui marker (a killed sidtui's), which the caller ends with ``\n`` first.

    Raises:
        MarkerError: it still ends in a torn line after every check (a writer is
            mid-record, or crashed in one), or cannot be read.
    """
    policy = policy or DEFAULT_TAIL_POLICY
    attempts = max(1, policy.attempts)
    changed = False
    try:
        last = _tail(path)
        for attempt in range(attempts):
            now = _tail(path)
            if now == last and now[1]:
                return now
            changed = changed or now != last
            if attempt + 1 < attempts:
                policy.pause()
            last = now
    except OSError as exc:
        raise MarkerError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not changed and _ours(path, last[0]):
        return last
    raise _torn(
        path,
        f"still growing after {attempts} checks"
        if changed
        else f"unchanged over {attempts} checks: a writer stopped mid-record",
    )


def _open_for_append(path: Path) -> int:
    """``path`` opened read+append (never created, never through a symlink), a regular file."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise MarkerError(f"{path} is a symbolic link; nothing was appended") from None
        raise MarkerError(f"cannot open {path}: {exc.strerror or exc}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise MarkerError(f"{path} is {kind_of(mode)}, not a session file")
    return fd


def append_marker(
    path: Path,
    parent_uuid: str | None,
    key: str,
    value: dict[str, Any],
    *,
    policy: TailPolicy | None = None,
) -> str:
    """Append ``{type: metadata, key, value}`` hanging off ``parent_uuid``; its uuid.

    The record is one ``write()`` through the descriptor whose tail was just checked.

    Raises:
        MarkerError: the tail is not a whole record (it did not settle, or a writer began a
            record after it did), or the write failed.
    """
    policy = policy or DEFAULT_TAIL_POLICY
    flush_pending_writes(path)
    settled = settle_tail(path, policy)
    rec_uuid = new_uuid()
    rec: dict[str, Any] = {"type": "metadata", "key": key, "value": value, "timestamp": iso_now()}
    rec["uuid"] = rec_uuid
    rec["parentUuid"] = parent_uuid
    chunk = stringify(rec) + b"\n"
    fd = _open_for_append(path)
    try:
        if policy.before_append is not None:
            policy.before_append()
        _write_after_whole_record(fd, path, chunk, key, settled)
    finally:
        os.close(fd)
    return rec_uuid


def _write_after_whole_record(
    fd: int, path: Path, chunk: bytes, key: str, settled: tuple[int, bool]
) -> None:
    """Write ``chunk`` through ``fd`` if its file ends after a whole record (or still in
    the killed marker ``settled`` on, which ``\n`` ends first); raise otherwise."""
    try:
        now = _fd_tail(fd)
        if not now[1]:
            if now != settled:
                raise _torn(path, "a writer began a record while the marker was prepared")
            chunk = b"\n" + chunk
        view = memoryview(chunk)
        fault_point("append", path)
        written = os.write(fd, view)
        while written < len(chunk):  # a short write (disk nearly full): finish or fail
            fault_point("append", path)
            written += os.write(fd, view[written:])
    except OSError as exc:
        raise MarkerError(
            f"could not append the {key} marker to {path}: {exc.strerror or exc}"
        ) from None


def find_marker(path: Path, key: str, field: str, expected: Any) -> str | None:
    """The uuid of a ``key`` marker whose ``value[field] == expected`` near the end of
    ``path`` (the last 4 MiB are searched), or None."""
    import orjson

    try:
        fd, st = open_regular(path)
    except (OSError, NotRegularFile):
        return None
    try:
        start = max(0, st.st_size - 4 * 1024 * 1024)
        data = os.pread(fd, st.st_size - start, start)
    except OSError:
        return None
    finally:
        os.close(fd)
    needle = f'"{key}"'.encode()
    for line in reversed(data.split(b"\n")):
        if needle not in line:
            continue
        try:
            rec = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        v = rec.get("value") if isinstance(rec, dict) else None
        if rec.get("key") == key and isinstance(v, dict) and v.get(field) == expected:
            uuid = rec.get("uuid")
            return uuid if isinstance(uuid, str) else None
    return None

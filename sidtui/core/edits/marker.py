"""Appending one of sidtui's marker records (``rewind``, ``branch_switch``) to a transcript.

A marker is appended only after a whole record: the file must end in ``\\n`` and keep its
size while it is checked, or a writer that writes one record in two ``write()`` calls
would get our marker glued inside its record (docs/DECISIONS.md). Otherwise it waits
briefly and checks again (:class:`TailPolicy`, injectable: tests never sleep). A tail that
stays torn and still is a crashed writer's last line: it is ended with ``\\n`` first, as
:class:`sidtui.core.transcript.writer.SessionStore` does on resume. A tail that keeps moving is
refused.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sidtui.core.base.errors import SidtuiError
from sidtui.core.base.regular import NotRegularFile, open_regular
from sidtui.core.transcript.writer import SessionStore, flush_pending_writes

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
    """

    attempts: int = 20
    interval_s: float = 0.05
    wait: Callable[[float], None] | None = None

    def pause(self) -> None:
        (self.wait or time.sleep)(self.interval_s)


def _tail(path: Path) -> tuple[int, bool]:
    """``(size, ends after a whole line)`` of ``path`` (an empty file counts as whole)."""
    try:
        fd, st = open_regular(path)
    except NotRegularFile as exc:
        raise MarkerError(str(exc)) from None
    try:
        size = st.st_size
        if size == 0:
            return 0, True
        last = os.pread(fd, 1, size - 1)
        return size, last == b"\n"
    finally:
        os.close(fd)


def settle_tail(path: Path, policy: TailPolicy | None = None) -> bool:
    """Wait until ``path`` ends after a whole record and stops growing.

    Returns:
        True when it does; False when it ends in a torn line that did not change over
        every check (a crashed writer's: safe to end with ``\\n``).

    Raises:
        MarkerError: the file kept changing (a writer is active), or cannot be read.
    """
    policy = policy or TailPolicy()
    attempts = max(1, policy.attempts)
    changed = False
    try:
        last = _tail(path)
        for attempt in range(attempts):
            now = _tail(path)
            if now == last and now[1]:
                return True
            changed = changed or now != last
            if attempt + 1 < attempts:
                policy.pause()
            last = now
    except OSError as exc:
        raise MarkerError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not changed:
        return False
    raise MarkerError(
        f"{path} is being written (its last record was still incomplete or growing after "
        f"{attempts} checks); nothing was appended — try again when the writer is done"
    )


def append_marker(
    path: Path,
    parent_uuid: str | None,
    key: str,
    value: dict[str, Any],
    *,
    policy: TailPolicy | None = None,
) -> str:
    """Append ``{type: metadata, key, value}`` hanging off ``parent_uuid``; its uuid.

    Raises:
        MarkerError: the tail did not settle, or the write failed.
    """
    flush_pending_writes(path)
    settle_tail(path, policy)
    errors: list[str] = []
    store = SessionStore(path.parent, on_error=lambda f: errors.append(f.error))
    store.resume(path)
    store.last_uuid = parent_uuid
    marker = store.append_metadata(key, value)
    store.flush()
    if errors:
        raise MarkerError(f"could not append the {key} marker to {path}: {errors[0]}")
    return marker


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

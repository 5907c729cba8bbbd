"""Appending one of sidtui's marker records (``rewind``, ``branch_switch``) to a transcript.

A marker is appended only after a whole record, by the one append of every source
(:mod:`sidtui.core.transcript.append`: the tail settles, a killed sidtui's still marker
fragment is ended with ``\n`` first, the tail is looked at again through the descriptor
that writes). :data:`DEFAULT_TAIL_POLICY` is the wait markers use (tests replace it).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sidtui.core.base.jsonout import stringify
from sidtui.core.base.regular import NotRegularFile, open_regular
from sidtui.core.transcript import append
from sidtui.core.transcript.append import AppendError, TailPolicy
from sidtui.core.transcript.writer import iso_now, new_uuid

__all__ = ["DEFAULT_TAIL_POLICY", "MarkerError", "TailPolicy", "append_marker", "settle_tail"]

DEFAULT_TAIL_POLICY = TailPolicy()
"""The policy used when none is given (tests replace it: they never sleep)."""


class MarkerError(AppendError):
    """The marker could not be appended (exit 1)."""


MARKER_KEYS = ("rewind", "branch_switch")
"""The ``metadata`` keys of sidtui's markers (no agent writes them)."""

_HEADS = tuple(b'{"type":"metadata","key":"%s","value":{' % k.encode() for k in MARKER_KEYS)


def settle_tail(path: Path, policy: TailPolicy | None = None) -> tuple[int, bool]:
    """:func:`sidtui.core.transcript.append.settle_tail` for a marker (a killed sidtui's
    still marker fragment counts as settled).

    Raises:
        MarkerError: it still ends in a torn line after every check, or cannot be read.
    """
    return append.settle_tail(
        path, policy or DEFAULT_TAIL_POLICY, _HEADS, error=MarkerError, noun="rewind marker"
    )


def append_marker(
    path: Path,
    parent_uuid: str | None,
    key: str,
    value: Any,
    *,
    policy: TailPolicy | None = None,
) -> str:
    """Append ``{type: metadata, key, value}`` hanging off ``parent_uuid``; its uuid.

    The record is one ``write()`` through the descriptor whose tail was just checked
    (:func:`~sidtui.core.transcript.append.append_records`).

    Raises:
        MarkerError: the tail is not a whole record (it did not settle, or a writer began a
            record after it did), or the write failed.
    """
    rec_uuid = new_uuid()
    rec: dict[str, Any] = {"type": "metadata", "key": key, "value": value, "timestamp": iso_now()}
    rec["uuid"] = rec_uuid
    rec["parentUuid"] = parent_uuid
    append.append_records(
        path,
        stringify(rec) + b"\n",
        policy=policy or DEFAULT_TAIL_POLICY,
        heads=_HEADS,
        error=MarkerError,
        noun=f"{key} marker",
    )
    return rec_uuid


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

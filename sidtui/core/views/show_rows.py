"""The per-message and per-record arrays of ``sidtui show --json``, built column-wise.

A 140k-record session gives three arrays of 120k–140k rows each (``messages``,
``resumed``, ``records``). Here they are built in chunks of plain dicts straight
from the loader's messages, the cleaned messages' parts and the scan's columns — no
:class:`~sidtui.core.transcript.structs.RecordRef` or :class:`~sidtui.core.resume.cleaning.CleanMessage`
per row — and :func:`sidtui.core.views.show_json.write_json_stream` encodes each chunk with one
``orjson`` call. The rows are exactly those the contract names, in the same key order.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import chain as _concat
from operator import attrgetter
from typing import Any

import msgspec

from sidtui.core.resume.cleaning import CleanMessage, CleanMessages
from sidtui.core.transcript.messages import Message
from sidtui.core.transcript.records import RecordFile

#: Rows per chunk: big enough that one encode call per chunk costs nothing, small enough
#: that a chunk's dicts and bytes stay a few MB.
ROW_CHUNK = 4096


class RowChunks:
    """A JSON array given as successive chunks of rows.

    A chunk is a list of rows (encoded with one ``orjson`` call) or ``bytes`` already
    holding a JSON array of rows. Iterating yields the chunks; :meth:`rows` gives the
    whole array as one list (list chunks only).
    """

    __slots__ = ("_chunks",)

    def __init__(self, chunks: Iterable[list[Any]]) -> None:
        self._chunks = iter(chunks)

    def __iter__(self) -> Iterator[list[Any]]:
        return self._chunks

    def rows(self) -> list[Any]:
        return list(_concat.from_iterable(self._chunks))


def message_rows(messages: Sequence[Message], chunk: int | None = None) -> Iterator[list[dict]]:
    """``{uuid, line, role, blocks}`` per loader message, ``chunk`` rows at a time
    (default :data:`ROW_CHUNK`)."""
    chunk = chunk or ROW_CHUNK
    for k in range(0, len(messages), chunk):
        yield [
            {"uuid": m.uuid, "line": m.line, "role": m.role, "blocks": m.block_types}
            for m in messages[k : k + chunk]
        ]


def _resumed_row(m: Message, changed: bool, src_index: int) -> dict:
    return {
        "uuid": m.uuid,
        "line": m.line,
        "role": m.role,
        "blocks": m.block_types,
        "changed": changed,
        "src_index": src_index,
    }


def resumed_rows(
    messages: Sequence[CleanMessage], chunk: int | None = None
) -> Iterator[list[dict]]:
    """``{uuid, line, role, blocks, changed, src_index}`` per cleaned message.

    For a :class:`CleanMessages` whose wrappers were never built, the rows come from its
    plain messages (an unchanged message ``m`` reads as ``CleanMessage(m, m.index)``) with
    the rewritten ones swapped in, so no wrapper is made per row.
    """
    chunk = chunk or ROW_CHUNK
    parts = messages.unwrapped() if isinstance(messages, CleanMessages) else None
    if parts is not None:
        plain, changed = parts
        for k in range(0, len(plain), chunk):
            rows = [
                {
                    "uuid": m.uuid,
                    "line": m.line,
                    "role": m.role,
                    "blocks": m.block_types,
                    "changed": False,
                    "src_index": m.index,
                }
                for m in plain[k : k + chunk]
            ]
            if changed:
                for p in range(k, k + len(rows)):
                    cm = changed.get(p)
                    if cm is not None:
                        rows[p - k] = _resumed_row(cm.message, cm.changed, cm.src_index)
            yield rows
        return
    for k in range(0, len(messages), chunk):
        yield [_resumed_row(c.message, c.changed, c.src_index) for c in messages[k : k + chunk]]


def record_lines(rf: RecordFile, indexes: Iterable[int]) -> list[int]:
    """The 1-based physical line of each record index."""
    if rf.is_fast:
        return list(map((rf.start_line + 1).__add__, indexes))
    recs = rf.records
    return [recs[i].line for i in indexes]


def record_line_chunks(
    rf: RecordFile, indexes: Sequence[int], chunk: int | None = None
) -> Iterator[list[int]]:
    """:func:`record_lines` a chunk at a time (a chain's lines are 140k ints at once)."""
    chunk = chunk or ROW_CHUNK
    for k in range(0, len(indexes), chunk):
        yield record_lines(rf, indexes[k : k + chunk])


class _RecordRow(msgspec.Struct, gc=False):
    """A ``records`` row as msgspec encodes it: the keys in this order."""

    line: int
    offset: int
    uuid: str | None
    parent: str | None
    type: str | None
    on_chain: bool


_ENCODE = msgspec.json.Encoder().encode
_UUID = attrgetter("uuid")
_PARENT = attrgetter("parentUuid")
_TYPE = attrgetter("type")


def record_rows(
    rf: RecordFile, on_chain: Iterable[int], chunk: int | None = None, encoded: bool = False
) -> Iterator[list[dict] | bytes]:
    """``{line, offset, uuid, parent, type, on_chain}`` per record, in physical order.

    Args:
        rf: the scanned file.
        on_chain: the record indexes of the loader's chain.
        chunk: rows per list (default :data:`ROW_CHUNK`).
        encoded: on a fast scan, yield each chunk as the JSON bytes of its rows.

    On a fast scan the rows come from the scan's structs and line starts (record ``i`` is
    line ``start_line + i + 1``), without building a :class:`RecordRef` per record. There
    ``type``/``uuid``/``parentUuid`` are typed ``str | None``, so ``encoded`` rows are
    built in C (``map`` over a msgspec struct) and encoded by msgspec, whose bytes for
    strings, small ints and booleans are orjson's (tests/test_show_json_rows.py).
    """
    chunk = chunk or ROW_CHUNK
    if not rf.is_fast:
        on = set(on_chain)
        recs = rf.records
        for k in range(0, len(recs), chunk):
            yield [
                {
                    "line": r.line,
                    "offset": r.offset,
                    "uuid": r.uuid,
                    "parent": r.parent,
                    "type": r.type,
                    "on_chain": r.index in on,
                }
                for r in recs[k : k + chunk]
            ]
        return
    heads = rf.heads  # the scan's structs: type/uuid/parentUuid, typed str|None
    starts = rf.line_starts()  # record i begins at starts[i] (found now for a big file)
    n = len(heads)  # type: ignore[arg-type]
    flags = [False] * n
    for i in on_chain:
        flags[i] = True
    first = rf.start_line + 1
    for k in range(0, n, chunk):
        e = min(n, k + chunk)
        if encoded:
            hs = heads[k:e]  # type: ignore[index]
            yield _ENCODE(
                list(
                    map(
                        _RecordRow,
                        range(first + k, first + e),
                        starts[k:e],  # type: ignore[index]
                        map(_UUID, hs),
                        map(_PARENT, hs),
                        map(_TYPE, hs),
                        flags[k:e],
                    )
                )
            )
            continue
        yield [
            {
                "line": line,
                "offset": off,
                "uuid": h.uuid,
                "parent": h.parentUuid,
                "type": h.type,
                "on_chain": oc,
            }
            for line, off, h, oc in zip(
                range(first + k, first + e),
                starts[k:e],  # type: ignore[index]
                heads[k:e],  # type: ignore[index]
                flags[k:e],
                strict=True,
            )
        ]


def record_ids(rf: RecordFile, index: int) -> tuple[str | None, str | None]:
    """``(uuid, parent)`` of one record, without building the columns or the refs."""
    if rf.is_fast:
        h = rf.heads[index]  # type: ignore[index]
        return h.uuid, h.parentUuid
    r = rf.records[index]
    return r.uuid, r.parent

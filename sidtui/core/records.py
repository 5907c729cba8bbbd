"""Line index and partial decoding of a transcript file (seed §4, §5.4, §13.4–13.5).

A transcript is ``JSON.stringify(record) + "\\n"`` per line. :func:`scan_records` walks the
bytes once, keeping for every line only what the chain needs — ``type``, ``uuid``,
``parentUuid`` — decoded with a typed msgspec struct that skips every other field
(≈1.7× the I/O floor on a 100 MB file, versus ≈13× for full dicts). Lines the fast decoder
refuses are decided by :func:`sidtui.core.jsonparse.parse_line_slow`, which accepts
exactly what ``JSON.parse`` accepts; only lines it rejects become :class:`BadLine`.
Blank lines are skipped, as the agent does. Full records are decoded on demand
(:meth:`RecordFile.decode`), never all at once. Nothing here raises on file content.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec
import orjson

from sidtui.core.jsonparse import JSONParseError, is_blank, parse_line_slow


class _Head(msgspec.Struct):
    """The three fields the chain needs; every other key is skipped by msgspec."""

    type: Any = None
    uuid: Any = None
    parentUuid: Any = None


_HEAD = msgspec.json.Decoder(_Head)


@dataclass(slots=True)
class RecordRef:
    """One JSON.parse-valid line of a transcript.

    Attributes:
        index: position in :attr:`RecordFile.records` (0-based, physical order).
        line: 1-based physical line number (blank and bad lines count).
        offset: byte offset of the line's first byte.
        end: byte offset just past the line's last byte (the ``\\n`` excluded).
        type: the record's ``type`` if it is a string, else None.
        uuid: the record's ``uuid`` if it is a string, else None.
        parent: the record's ``parentUuid`` if it is a string, else None (null, absent
            or another JSON type all end a parent walk, as in the agent).
        is_object: False for valid JSON that is not an object (``5``, ``[]``, ``null``).
    """

    index: int
    line: int
    offset: int
    end: int
    type: str | None
    uuid: str | None
    parent: str | None
    is_object: bool = True


@dataclass(slots=True)
class BadLine:
    """A line JSON.parse would reject.

    Attributes:
        line: 1-based physical line number.
        offset: byte offset of the line's first byte.
        length: the line's length in bytes (without ``\\n``).
        reason: why JSON.parse rejects it.
        terminated: False when this is the file's last line and has no ``\\n`` (a write
            may still be in progress, or was torn).
    """

    line: int
    offset: int
    length: int
    reason: str
    terminated: bool = True


@dataclass
class RecordFile:
    """A transcript's bytes with its line index.

    Attributes:
        data: the file's bytes (kept so records can be decoded lazily).
        records: every JSON.parse-valid line, in physical order.
        bad_lines: every line JSON.parse rejects, in physical order.
        blank_lines: number of blank lines (skipped, not bad).
        line_count: number of physical lines (a final line without ``\\n`` counts).
        ends_with_newline: whether the last byte is ``\\n`` (or the file is empty).
    """

    data: bytes
    records: list[RecordRef] = field(default_factory=list)
    bad_lines: list[BadLine] = field(default_factory=list)
    blank_lines: int = 0
    line_count: int = 0
    ends_with_newline: bool = True

    def raw(self, rec: RecordRef) -> bytes:
        """The line's bytes (without ``\\n``)."""
        return self.data[rec.offset : rec.end]

    def decode(self, rec: RecordRef) -> Any:
        """The full record (usually a dict), decoded with JSON.parse's rules."""
        raw = memoryview(self.data)[rec.offset : rec.end]
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            return parse_line_slow(bytes(raw))

    @property
    def size(self) -> int:
        """File size in bytes."""
        return len(self.data)


def _classify(value: Any) -> tuple[str | None, str | None, str | None, bool]:
    if not isinstance(value, dict):
        return None, None, None, False
    t, u, p = value.get("type"), value.get("uuid"), value.get("parentUuid")
    return (
        t if isinstance(t, str) else None,
        u if isinstance(u, str) else None,
        p if isinstance(p, str) else None,
        True,
    )


def scan_records(data: bytes, *, start_line: int = 0, base_offset: int = 0) -> RecordFile:
    """Index every line of ``data``: records, bad lines and blank lines.

    Args:
        data: the file's bytes (the whole file, or a chunk that starts on a line boundary).
        start_line: number of physical lines before ``data`` (for incremental tails).
        base_offset: byte offset of ``data[0]`` in the file (for incremental tails).

    Returns:
        A :class:`RecordFile`; never raises on content. A final line without ``\\n`` is
        treated exactly like the agent treats it: parsed if it is valid JSON, else bad.
    """
    rf = RecordFile(data=data)
    records = rf.records
    mv = memoryview(data)
    n = len(data)
    find = data.find
    decode_head = _HEAD.decode
    pos = 0
    line_no = start_line
    while pos < n:
        nl = find(b"\n", pos)
        end = n if nl < 0 else nl
        line_no += 1
        try:
            head = decode_head(mv[pos:end])
            t, u, p = head.type, head.uuid, head.parentUuid
            records.append(
                RecordRef(
                    len(records),
                    line_no,
                    base_offset + pos,
                    base_offset + end,
                    t if isinstance(t, str) else None,
                    u if isinstance(u, str) else None,
                    p if isinstance(p, str) else None,
                )
            )
        except (msgspec.DecodeError, msgspec.ValidationError):
            raw = data[pos:end]
            if is_blank(raw):
                rf.blank_lines += 1
            else:
                try:
                    value = parse_line_slow(raw)
                except JSONParseError as exc:
                    rf.bad_lines.append(
                        BadLine(line_no, base_offset + pos, end - pos, exc.reason, nl >= 0)
                    )
                else:
                    t, u, p, is_obj = _classify(value)
                    records.append(
                        RecordRef(
                            len(records), line_no, base_offset + pos, base_offset + end,
                            t, u, p, is_obj,
                        )
                    )
        pos = end + 1
    rf.line_count = line_no - start_line
    rf.ends_with_newline = n == 0 or data[-1:] == b"\n"
    return rf

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

import re
from dataclasses import dataclass, field
from itertools import repeat
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


class Block(msgspec.Struct, gc=False):
    """One content block, with only what cleaning and listing need (msgspec-decoded).

    Fields hold the JSON values as written (normally strings; anything else is kept, never
    a decode failure). Tool inputs and tool-result bodies are not decoded here.

    Attributes:
        type: ``text``, ``tool_use``, ``tool_result``, ``thinking``, ``redacted_thinking``...
        id: ``tool_use.id``; name: ``tool_use.name``; tool_use_id: ``tool_result.tool_use_id``.
        text: ``text.text``; thinking: ``thinking.thinking``.
        is_error: ``tool_result.is_error``.
    """

    type: Any = None
    id: Any = None
    name: Any = None
    tool_use_id: Any = None
    text: Any = None
    is_error: Any = None
    thinking: Any = None

    @property
    def text_like(self) -> str | None:
        """The block's readable text: ``text`` or ``thinking`` (None otherwise)."""
        t = self.text if self.text is not None else self.thinking
        return t if isinstance(t, str) else None


class MessageS(msgspec.Struct, gc=False):
    """``record.message``: role, blocks (partially decoded), ``_meta``."""

    role: Any = None
    content: list[Block] | str | None = None
    meta: Any = msgspec.field(default=None, name="_meta")


class RecordS(msgspec.Struct, gc=False):
    """Every field of a transcript record that reading needs, decoded in one C pass.

    Tool inputs, tool-result bodies, metadata values and every unknown key are skipped
    (a metadata value is decoded from its line only when its key wins). Decoding is
    typed: a record whose fields have unexpected JSON types fails here and is decided by
    the tolerant path instead.
    """

    type: str | None = None
    uuid: str | None = None
    parentUuid: str | None = None
    message: MessageS | None = None
    timestamp: Any = None
    usage: Any = None
    model: Any = None
    stopReason: Any = None
    msgId: Any = None
    cwd: Any = None
    gitBranch: Any = None
    permissionMode: Any = None
    key: Any = None


_RECORD = msgspec.json.Decoder(RecordS)
_NL = re.compile(rb"\n")


class RecordRef(msgspec.Struct, gc=False):
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
        obj: the record decoded into :class:`RecordS` (None when the typed decode
            refused it; :meth:`RecordFile.decode` still works).
    """

    index: int
    line: int
    offset: int
    end: int
    type: str | None
    uuid: str | None
    parent: str | None
    is_object: bool = True
    obj: RecordS | None = None


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
    base_offset: int = 0

    def raw(self, rec: RecordRef) -> bytes:
        """The line's bytes (without ``\\n``)."""
        return self.data[rec.offset - self.base_offset : rec.end - self.base_offset]

    def decode(self, rec: RecordRef) -> Any:
        """The full record (usually a dict), decoded with JSON.parse's rules."""
        b = self.base_offset
        raw = memoryview(self.data)[rec.offset - b : rec.end - b]
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


def scan_records(
    data: bytes, *, start_line: int = 0, base_offset: int = 0, chain_only: bool = False
) -> RecordFile:
    """Index every line of ``data``: records, bad lines and blank lines.

    The fast path decodes the whole buffer in one msgspec ``decode_lines`` call (C speed,
    skipping tool bodies) and then only walks newline offsets in Python; any line it
    refuses sends the file through the per-line tolerant path, which decides each line
    with JSON.parse's rules.

    Args:
        data: the file's bytes (the whole file, or a chunk that starts on a line boundary).
        start_line: number of physical lines before ``data`` (for incremental tails).
        base_offset: byte offset of ``data[0]`` in the file (for incremental tails).
        chain_only: decode only ``type``/``uuid``/``parentUuid`` (what the chain and
            ``loadable`` need; ``RecordRef.obj`` stays None and the loader decodes message
            lines on demand).

    Returns:
        A :class:`RecordFile`; never raises on content. A final line without ``\\n`` is
        treated exactly like the agent treats it: parsed if it is valid JSON, else bad.
    """
    decoder = _HEAD if chain_only else _RECORD
    try:
        objs = decoder.decode_lines(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return _scan_tolerant(data, start_line, base_offset)
    n = len(data)
    starts = [0]
    starts += [m.end() for m in _NL.finditer(data)]
    ends_nl = n == 0 or data[-1:] == b"\n"
    if ends_nl:
        starts.pop()  # no line after the final newline
    if len(starts) != len(objs):
        return _scan_tolerant(data, start_line, base_offset)  # blank lines: place them exactly
    if chain_only:
        t_, u_, p_ = (
            [x if isinstance(x, str) else None for x in col]
            for col in ([o.type for o in objs], [o.uuid for o in objs], [o.parentUuid for o in objs])
        )
        objs = repeat(None, len(objs))
    else:
        t_ = [o.type for o in objs]
        u_ = [o.uuid for o in objs]
        p_ = [o.parentUuid for o in objs]
    rf = RecordFile(data=data, base_offset=base_offset)
    k = len(starts)
    ends = [x - 1 for x in starts[1:]]
    ends.append(n - 1 if ends_nl else n)
    if base_offset:
        starts = [x + base_offset for x in starts]
        ends = [x + base_offset for x in ends]
    rf.records = list(
        map(
            RecordRef,
            range(k),
            range(start_line + 1, start_line + k + 1),
            starts,
            ends,
            t_,
            u_,
            p_,
            repeat(True, k),
            objs,
        )
    )
    rf.line_count = k
    rf.ends_with_newline = ends_nl
    return rf


def _scan_tolerant(data: bytes, start_line: int, base_offset: int) -> RecordFile:
    """Per-line scan: the typed decoder first, JSON.parse's rules for what it refuses."""
    rf = RecordFile(data=data, base_offset=base_offset)
    records = rf.records
    mv = memoryview(data)
    n = len(data)
    find = data.find
    decode = _RECORD.decode
    pos = 0
    line_no = start_line
    while pos < n:
        nl = find(b"\n", pos)
        end = n if nl < 0 else nl
        line_no += 1
        try:
            o = decode(mv[pos:end])
            records.append(
                RecordRef(len(records), line_no, base_offset + pos, base_offset + end,
                          o.type, o.uuid, o.parentUuid, True, o)
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

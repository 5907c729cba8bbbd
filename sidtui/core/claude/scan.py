"""One pass over a Claude Code transcript into typed partial records (docs/CLAUDE-CODE.md §2).

Claude Code writes one JSON object per line and reads lines back with ``JSON.parse`` (UTF-8
decoding with U+FFFD for bad bytes), so a line is a record exactly when JSON.parse accepts it
(:mod:`sidtui.core.base.jsonparse`). msgspec decodes each piece of whole lines in one C call into
:class:`CRecord`, keeping only what the tree, the conversation and the listing need (tool
inputs, tool-result bodies, ``toolUseResult``, progress ``data`` are skipped and read back
from the line on demand). A piece msgspec refuses is read line by line; a line JSON.parse
rejects is *salvaged*: every complete record in it is kept (NUL runs, a torn record in front
of a whole one, two objects on one line) and what was lost is said (:class:`DamagedLine`).
Files of 16 MB or more are read in 1 MB pieces (:class:`sidtui.core.transcript.source.FileSource`).
"""

from __future__ import annotations

import json
import re
import sys
from array import array
from bisect import bisect_right
from dataclasses import dataclass
from itertools import repeat
from typing import Any

import msgspec

from sidtui.core.base.jsonparse import JSONParseError, is_blank, parse_line
from sidtui.core.claude.layout import CLAUDE_ONLY_TYPES
from sidtui.core.transcript.decode import count_lines
from sidtui.core.transcript.source import (
    PIECE_BYTES,
    FileChanged,
    FileSource,
    line_ceiling,
    read_long_line,
    skip_reason,
)
from sidtui.core.transcript.structs import FAST_DECODE_ERRORS, BadLine, Block

#: Record types that carry ``uuid``/``parentUuid`` and form the DAG (docs/CLAUDE-CODE.md §4.1).
DAG_TYPES = frozenset({"user", "assistant", "system", "attachment", "progress"})
#: The conversation's own records; the other DAG types are transparent links.
CONVERSATION_TYPES = frozenset({"user", "assistant"})
#: Every record type known when this was written; any other is kept as an opaque record.
KNOWN_TYPES = (
    DAG_TYPES
    | CLAUDE_ONLY_TYPES
    | frozenset(
        {
            "agent-setting",
            "worktree-state",
            "bridge-session",
            "fork-context-ref",
            "frame-link",
            "relocated",
            "atis-latch",
            "saved_hook_context",
            "started",
            "result",
            "cost-state",
            # 2.1.332 (the lab): the API requests it made, their shared blobs and shapes, and
            # the tools each used; outside the DAG, never sent on resume
            "api-request",
            "api-request-blob",
            "api-request-shape",
            "tools-used",
        }
    )
)


class CMessage(msgspec.Struct, gc=False):
    """``record.message`` (Anthropic Messages shape): id, role, model, blocks, stop reason.

    ``content`` is a string (a plain prompt) or a list of :class:`~sidtui.core.transcript.structs.Block`
    skeletons (type, ids, names, text, thinking); tool inputs and result bodies are skipped.
    """

    id: Any = None
    role: Any = None
    model: Any = None
    content: list[Block] | str | None = None
    stop_reason: Any = None


class CSnapshotHead(msgspec.Struct, gc=False):
    """``record.snapshot`` of a ``file-history-snapshot``: only the prompt it belongs to
    (the tracked files are read when checkpoints are asked for)."""

    messageId: Any = None


class CRecord(msgspec.Struct, gc=False):
    """What reading needs from one Claude Code line, decoded in one C pass.

    The DAG fields are typed ``str | None``: a record whose ``uuid`` has another JSON type
    fails the fast decode and is rebuilt leniently (:func:`lenient_record`), the odd value
    read as None. Flags are kept as written (JSON values), tested with ``is True``.
    """

    type: str | None = None
    uuid: str | None = None
    parentUuid: str | None = None
    logicalParentUuid: str | None = None
    timestamp: str | None = None
    isSidechain: Any = None
    isMeta: Any = None
    isCompactSummary: Any = None
    isApiErrorMessage: Any = None
    subtype: Any = None
    message: CMessage | None = None
    leafUuid: Any = None
    messageId: Any = None
    isSnapshotUpdate: Any = None
    snapshot: CSnapshotHead | None = None
    snapshotMessageId: Any = None
    rowSource: Any = None


DECODER = msgspec.json.Decoder(CRecord)


def _FIRST(run: tuple[int, int, int, int]) -> int:
    return run[2]


#: Record-looking keys: a salvaged object must have a string ``type`` and one of these, so a
#: content block (``{"type":"text",…}``) inside a torn record is never taken for a record.
_RECORD_KEYS = ("uuid", "sessionId", "session_id", "timestamp", "leafUuid", "messageId")


@dataclass(slots=True)
class DamagedLine(BadLine):
    """A line JSON.parse rejects, with what salvage got out of it.

    Attributes:
        recovered: complete records found inside the line (kept as records).
        lost_bytes: bytes of the line that belong to no recovered record (NULs and
            whitespace not counted).
    """

    recovered: int = 0
    lost_bytes: int = 0


@dataclass(slots=True)
class TextRepair:
    """A line JSON.parse accepts only with its own rules: invalid UTF-8 (read as U+FFFD, as
    Claude Code reads it) or a lone surrogate escape (kept, as JSON.parse keeps it)."""

    line: int
    reason: str


class ClaudeScan:
    """A transcript's records (physical order) with their lines and byte spans.

    Attributes:
        objs: one :class:`CRecord` per record.
        lines: the 1-based physical line of each record (salvaged records share their line).
        starts, ends: each record's byte span in the file (``\\n`` excluded; a salvaged
            record's own object inside its line).
        bad_lines: lines JSON.parse rejects (:class:`DamagedLine`), physical order.
        repairs: lines read only by JSON.parse's rules (:class:`TextRepair`).
        blank_lines: blank lines (skipped, as Claude Code skips them).
        non_records: valid JSON lines that are not objects.
        line_count: physical lines (a last line without ``\\n`` counts).
        size: bytes scanned; ends_with_newline: the last byte is ``\\n`` (or empty).
        recovered: records salvaged out of damaged lines.
    """

    __slots__ = (
        "objs",
        "lines",
        "_starts",
        "_ends",
        "_lazy",
        "bad_lines",
        "repairs",
        "blank_lines",
        "non_records",
        "line_count",
        "size",
        "ends_with_newline",
        "recovered",
        "_data",
        "source",
    )

    def __init__(self, data: bytes = b"", source: FileSource | None = None) -> None:
        self.objs: list[CRecord] = []
        self.lines = array("q")
        self._starts = array("q")
        self._ends = array("q")
        #: runs decoded whole whose spans are found only when asked: (file offset of the
        #: run, its length, first record, records), in record order
        self._lazy: list[tuple[int, int, int, int]] = []
        self.bad_lines: list[DamagedLine] = []
        self.repairs: list[TextRepair] = []
        self.blank_lines = 0
        self.non_records = 0
        self.line_count = 0
        self.size = source.size if source is not None else len(data)
        self.ends_with_newline = True
        self.recovered = 0
        self._data = data
        self.source = source

    def __len__(self) -> int:
        return len(self.objs)

    def __repr__(self) -> str:
        return (
            f"ClaudeScan(size={self.size}, records={len(self.objs)}, "
            f"bad_lines={len(self.bad_lines)}, recovered={self.recovered})"
        )

    @property
    def starts(self) -> array:
        """Each record's first byte (file offsets; found now for runs read whole)."""
        self._fill_all()
        return self._starts

    @property
    def ends(self) -> array:
        """Each record's end (file offsets, ``\\n`` excluded)."""
        self._fill_all()
        return self._ends

    def start_at(self, i: int) -> int:
        """Record ``i``'s first byte (only its own run's spans are found, if lazy)."""
        for k, (_base, _cut, first, count) in enumerate(self._lazy):
            if first <= i < first + count:
                self._fill(k)
                break
        return self._starts[i]

    def _fill_all(self) -> None:
        while self._lazy:
            self._fill(len(self._lazy) - 1)

    def _fill(self, k: int) -> None:
        """Find the spans of lazy run ``k`` from its bytes (read again for a big file)."""
        base, cut, first, count = self._lazy.pop(k)
        buf = self.source.read(base, base + cut) if self.source is not None else self._data
        off = 0 if self.source is not None else base
        starts, ends = self._starts, self._ends
        find = buf.find
        i = off
        stop = off + cut
        for r in range(first, first + count):
            j = find(b"\n", i, stop)
            e = stop if j < 0 else j
            starts[r] = base + i - off
            ends[r] = base + e - off
            i = e + 1

    def raw_at(self, i: int) -> bytes:
        """Record ``i``'s bytes (its line, or its object inside a damaged line).

        Raises:
            FileChanged: a file read in pieces got shorter since.
        """
        lazy = self._lazy
        if lazy:
            k = bisect_right(lazy, i, key=_FIRST) - 1
            if k >= 0 and i < lazy[k][2] + lazy[k][3]:
                self._fill(k)
        a, b = self._starts[i], self._ends[i]
        if self.source is not None:
            return self.source.read(a, b)
        return self._data[a:b]

    def decode_at(self, i: int) -> Any:
        """Record ``i`` fully decoded with JSON.parse's rules (a dict), or None when the
        file changed under a big file's reader."""
        try:
            return parse_line(self.raw_at(i))
        except (FileChanged, JSONParseError):
            return None

    def columns(self) -> tuple[list[str | None], list[str | None], list[str | None]]:
        """``(types, uuids, parents)``, one entry per record."""
        objs = self.objs
        return [o.type for o in objs], [o.uuid for o in objs], [o.parentUuid for o in objs]


def scan(data: bytes | FileSource) -> ClaudeScan:
    """Scan a whole transcript (its bytes, or a :class:`FileSource` for a big file).

    Never raises on content: every line is a record, a blank line, a non-record value or a
    :class:`DamagedLine` (with the records salvaged from it).

    Raises:
        FileChanged: a big file got shorter while it was read.
    """
    if isinstance(data, FileSource):
        sc = ClaudeScan(source=data)
        _scan_pieces(sc, data)
        size = data.size
        sc.ends_with_newline = size == 0 or data.read(size - 1, size) == b"\n"
    else:
        sc = ClaudeScan(data=data)
        if data:
            _scan_run(sc, data, len(data), 0, True)
        sc.ends_with_newline = not data or data[-1:] == b"\n"
    return sc


def _scan_pieces(sc: ClaudeScan, src: FileSource) -> None:
    """Read ``src`` :data:`PIECE_BYTES` at a time through one reused buffer, each piece cut
    after its last newline. A longer line is read forward on its own (holes skipped) and
    kept only up to :func:`~sidtui.core.transcript.source.line_ceiling`: above it, it is
    one damaged line, never decoded nor held."""
    size = src.size
    if not size:
        return
    limit = line_ceiling()
    length = min(PIECE_BYTES, size)
    buf = bytearray(length)
    with memoryview(buf) as whole:
        a = 0
        while a < size:
            n = min(length, size - a)
            src.read_into(whole[:n], a)
            cut = n if a + n == size else buf.rfind(b"\n", 0, n) + 1
            piece: bytes | bytearray = buf
            if cut == 0:  # one line longer than a piece
                raw, span, nuls, term = read_long_line(src, a, limit, keep_nuls=True)
                if raw is None:  # above the ceiling, or a hole in it: never in memory
                    sc.line_count += 1
                    why = skip_reason(span, nuls, limit)
                    sc.bad_lines.append(
                        DamagedLine(sc.line_count, a, span, why, term, 0, span - nuls)
                    )
                    a += span + term
                    continue
                sc.line_count += 1  # the one line, as is (no copy with its newline)
                _scan_one(sc, raw, sc.line_count, a, term)
                a += span + term
                if a < size:
                    src.advise(a, length)
                continue
            nxt = a + cut
            if nxt < size:
                src.advise(nxt, length)
            _scan_run(sc, piece, cut, a, nxt == size)
            a = nxt


def _scan_run(sc: ClaudeScan, buf: Any, cut: int, base: int, last: bool) -> None:
    """Scan the whole lines ``buf[:cut]`` (``buf[0]`` at file offset ``base``); a run above
    the line ceiling may hold a line above it, so it is scanned line by line."""
    part = None
    if cut <= line_ceiling():
        with memoryview(buf) as mv, mv[:cut] as view:
            try:
                part = DECODER.decode_lines(view)
            except FAST_DECODE_ERRORS:
                part = None
    n_lines = count_lines(buf, cut)
    if part is not None and len(part) == n_lines and _one_a_line(buf, cut, n_lines):
        _add_fast(sc, buf, cut, base, part)
    else:
        _scan_lines(sc, buf, cut, base)
    sc.line_count += n_lines


def _one_a_line(buf: Any, cut: int, n_lines: int) -> bool:
    """Whether as many values as lines are one a line: ``decode_lines`` reads a glued ``{a}{b}``
    as two and a blank line as none, which cancel out. Each line starting with ``{`` and ending
    with ``}`` (before a ``\r``) rules out blank lines, and a value over two lines (``}`` then
    ``{`` across a newline never occurs inside one JSON value): one ``bytes.count`` a run."""
    end = cut - (buf[cut - 1] == 10)
    end -= end > 0 and buf[end - 1] == 13
    if not end or buf[0] != 123 or buf[end - 1] != 125:
        return False
    k = buf.count(b"}\n{", 0, end)
    return k == n_lines - 1 or k + buf.count(b"}\r\n{", 0, end) == n_lines - 1


def _add_fast(sc: ClaudeScan, buf: Any, cut: int, base: int, part: list) -> None:
    """Every line of the run decoded: one record per line; spans found when asked."""
    first_line = sc.line_count + 1
    first = len(sc.objs)
    k = len(part)
    sc.objs += part
    sc.lines.extend(range(first_line, first_line + k))
    sc._starts.extend(repeat(-1, k))
    sc._ends.extend(repeat(-1, k))
    if k:
        sc._lazy.append((base, cut, first, k))


def _scan_lines(sc: ClaudeScan, buf: Any, cut: int, base: int) -> None:
    """The tolerant per-line scan of a run msgspec refused as a whole."""
    data = bytes(buf[:cut])
    mv = memoryview(data)
    pos = 0
    line = sc.line_count
    decode = DECODER.decode
    limit = line_ceiling()
    while pos < cut:
        nl = data.find(b"\n", pos)
        end = cut if nl < 0 else nl
        line += 1
        if end - pos > limit:  # one damaged line, never decoded nor salvaged
            nuls = data.count(0, pos, end)
            why = skip_reason(end - pos, nuls, limit)
            span = end - pos
            sc.bad_lines.append(DamagedLine(line, base + pos, span, why, nl >= 0, 0, span - nuls))
            pos = end + 1
            continue
        try:
            rec = decode(mv[pos:end])
        except FAST_DECODE_ERRORS:
            rec = None
        if rec is not None:
            _add(sc, rec, line, base + pos, base + end)
        else:
            _slow_line(sc, data[pos:end], line, base + pos, nl >= 0)
        pos = end + 1
    mv.release()


def _scan_one(sc: ClaudeScan, raw: bytes, line: int, offset: int, terminated: bool) -> None:
    """One line longer than a piece (``raw``, without its newline) at file ``offset``."""
    try:
        rec = DECODER.decode(raw)
    except FAST_DECODE_ERRORS:
        rec = None
    if rec is not None:
        _add(sc, rec, line, offset, offset + len(raw))
    else:
        _slow_line(sc, raw, line, offset, terminated)


def _add(sc: ClaudeScan, rec: CRecord, line: int, start: int, end: int) -> None:
    sc.objs.append(rec)
    sc.lines.append(line)
    sc._starts.append(start)
    sc._ends.append(end)


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _slow_line(sc: ClaudeScan, raw: bytes, line: int, offset: int, terminated: bool) -> None:
    """A line the typed decoder refused: blank, a record by JSON.parse's rules, or damaged."""
    if is_blank(raw):
        sc.blank_lines += 1
        return
    try:
        value = parse_line(raw)
    except JSONParseError as exc:
        _salvage_into(sc, raw, line, offset, terminated, exc.reason)
        return
    if not isinstance(value, dict):
        sc.non_records += 1
        return
    _add(sc, lenient_record(value), line, offset, offset + len(raw))
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        sc.repairs.append(
            TextRepair(line, "invalid UTF-8 bytes (read as U+FFFD, as Claude Code reads them)")
        )
        return
    if _SURROGATE_ESCAPE.search(raw):
        sc.repairs.append(
            TextRepair(line, "a lone surrogate escape (kept, as JSON.parse keeps it)")
        )


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def lenient_record(d: dict) -> CRecord:
    """A :class:`CRecord` from a decoded dict whose fields may have unexpected types: each
    odd field is read as None (a content block that is not an object is skipped)."""
    try:
        return msgspec.convert(d, CRecord)
    except (msgspec.ValidationError, RecursionError):
        pass
    msg = d.get("message")
    m = None
    if isinstance(msg, dict):
        content = msg.get("content")
        blocks: list[Block] | str | None
        if isinstance(content, list):
            blocks = []
            for b in content:
                if isinstance(b, dict):
                    try:
                        blocks.append(msgspec.convert(b, Block))
                    except (msgspec.ValidationError, RecursionError):
                        blocks.append(Block(type=_str(b.get("type"))))
        else:
            blocks = _str(content)
        m = CMessage(
            id=msg.get("id"),
            role=msg.get("role"),
            model=msg.get("model"),
            content=blocks,
            stop_reason=msg.get("stop_reason"),
        )
    snap = d.get("snapshot")
    return CRecord(
        type=_str(d.get("type")),
        uuid=_str(d.get("uuid")),
        parentUuid=_str(d.get("parentUuid")),
        logicalParentUuid=_str(d.get("logicalParentUuid")),
        timestamp=_str(d.get("timestamp")),
        isSidechain=d.get("isSidechain"),
        isMeta=d.get("isMeta"),
        isCompactSummary=d.get("isCompactSummary"),
        isApiErrorMessage=d.get("isApiErrorMessage"),
        subtype=d.get("subtype"),
        message=m,
        leafUuid=d.get("leafUuid"),
        messageId=d.get("messageId"),
        isSnapshotUpdate=d.get("isSnapshotUpdate"),
        snapshot=CSnapshotHead(snap.get("messageId")) if isinstance(snap, dict) else None,
        snapshotMessageId=d.get("snapshotMessageId"),
        rowSource=d.get("rowSource"),
    )


# ---------------------------------------------------------------- salvage

_SPAN = json.JSONDecoder(strict=True)
#: Candidates tried per damaged line (a torn line of code holds thousands of ``{``).
_MAX_TRIES = 2000
#: Characters failed candidates may read, per character of the line (plus a floor): a
#: candidate that fails far away (an unclosed string) reads up to the whole line, so
#: without a budget 2,000 of them read the line 2,000 times.
_WORK_PER_CHAR, _WORK_FLOOR = 4, 1 << 20
_JUNK = b" \t\r\n\x00"


def _looks_like_record(v: Any) -> bool:
    return (
        isinstance(v, dict) and isinstance(v.get("type"), str) and any(k in v for k in _RECORD_KEYS)
    )


def salvage(raw: bytes) -> tuple[list[tuple[int, int, dict]], int]:
    """The complete records inside a line JSON.parse rejects, and the bytes lost.

    Candidates are the ``{`` of the line from the left; one that parses to a record-looking
    object (a string ``type`` and an id or timestamp key) is taken and the search goes on
    after it. A ``{`` right after ``:``, ``,`` or ``[`` is a value nested in a torn record,
    never a record of its own (progress records embed whole messages). Each span is
    checked again with JSON.parse's rules on its bytes. The work is linear in the line: at
    most :data:`_MAX_TRIES` candidates, and failed ones read at most
    ``_WORK_PER_CHAR × len + _WORK_FLOOR`` characters together (then the search stops).

    Returns:
        ``([(start, end, value), …], lost)``: byte spans within ``raw`` and the decoded
        records, and how many bytes belong to none of them (NULs and whitespace not
        counted).
    """
    text = raw.decode("utf-8", "surrogateescape")
    found: list[tuple[int, int, dict]] = []
    pos = 0
    n = len(text)
    char_to_byte = _CharOffsets(text)
    tries = 0
    budget = _WORK_PER_CHAR * n + _WORK_FLOOR
    while pos < n and tries < _MAX_TRIES and budget > 0:
        s = text.find("{", pos)
        if s < 0:
            break
        pos = s + 1
        k = s - 1
        while k >= 0 and text[k] in " \t\r\n":
            k -= 1
        if k >= 0 and text[k] in ":,[":
            continue  # a value nested in a torn record
        tries += 1
        try:
            _, e = _SPAN.raw_decode(text, s)
        except json.JSONDecodeError as exc:
            budget -= exc.pos - s + 1  # how far this candidate read
            continue
        except RecursionError:
            budget -= sys.getrecursionlimit()
            continue
        bs, be = char_to_byte(s), char_to_byte(e)
        try:
            value = parse_line(raw[bs:be])
        except JSONParseError:
            continue
        if not _looks_like_record(value):
            continue
        found.append((bs, be, value))
        pos = e
    covered = sum(e - s for s, e, _ in found)
    junk = len(raw) - covered
    if junk:  # NULs and whitespace between the records do not count as lost
        junk -= sum(
            (b - a) - len(raw[a:b].translate(None, _JUNK)) for a, b in _gaps(len(raw), found)
        )
    return found, junk


def _gaps(n: int, found: list[tuple[int, int, dict]]) -> list[tuple[int, int]]:
    out = []
    at = 0
    for s, e, _ in found:
        if s > at:
            out.append((at, s))
        at = e
    if at < n:
        out.append((at, n))
    return out


class _CharOffsets:
    """Char offset → byte offset in a line decoded with ``surrogateescape`` (one char per
    undecodable byte, so the mapping is exact)."""

    __slots__ = ("text", "ascii", "char", "byte")

    def __init__(self, text: str) -> None:
        self.text = text
        self.ascii = text.isascii()
        self.char = self.byte = 0  # the last offset asked: calls go left to right

    def __call__(self, k: int) -> int:
        if self.ascii:
            return k
        if k < self.char:
            self.char = self.byte = 0
        self.byte += len(self.text[self.char : k].encode("utf-8", "surrogateescape"))
        self.char = k
        return self.byte


def _salvage_into(
    sc: ClaudeScan, raw: bytes, line: int, offset: int, terminated: bool, reason: str
) -> None:
    found, lost = salvage(raw)
    for s, e, value in found:
        _add(sc, lenient_record(value), line, offset + s, offset + e)
    sc.recovered += len(found)
    sc.bad_lines.append(
        DamagedLine(
            line,
            offset,
            len(raw),
            _damage_reason(
                raw,
                reason,
                len(found),
                lost,
                terminated,
                b"".join(raw[a:b] for a, b in _gaps(len(raw), found)),
            ),
            terminated,
            len(found),
            lost,
        )
    )


def _damage_reason(
    raw: bytes, reason: str, recovered: int, lost: int, terminated: bool, gaps: bytes
) -> str:
    """What is wrong with a damaged line, in words (JSON.parse's complaint first)."""
    if not raw.strip(_JUNK):
        why = "only NUL bytes: a crash or a partly overwritten file left zeros"
    elif recovered > 1:
        why = f"{recovered} records on one line (a newline missing between writes)"
        if lost:
            why += f", and {lost} bytes of a damaged record"
    elif recovered == 1 and lost and b"{" in gaps:
        why = f"a damaged record ({lost} bytes lost) next to a whole one"
    elif recovered == 1 and lost:
        why = f"{lost} stray bytes in front of a whole record"
    elif recovered == 1:
        what = "NUL bytes" if b"\x00" in raw else "stray bytes"
        why = f"{what} in front of a whole record"
    else:
        why = f"nothing recoverable: {lost} bytes lost"
    if not terminated:
        why += "; the last line, no newline: a torn or unfinished write"
    return f"{reason} ({why})"

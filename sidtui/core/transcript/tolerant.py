"""The per-line scan: every physical line decided by JSON.parse's rules (FORMAT.md §2).

The path for a file the fast decode refuses: blank lines skipped, as the agent does; a line
JSON.parse rejects becomes a :class:`~sidtui.core.transcript.structs.BadLine`; a file the
agent reads with its streaming reader is split where that reader ends lines. A uuid or
parentUuid that is not a string is kept as a link key (:func:`link_key`).
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

import orjson

from sidtui.core.base.jsonparse import (
    JSONParseError,
    is_blank,
    parse_line,
)
from sidtui.core.transcript import source as piece_limits  # read at call time (tests shrink them)
from sidtui.core.transcript.decode import decode_lines_exact
from sidtui.core.transcript.records import RecordFile, line_starts_in
from sidtui.core.transcript.source import (
    STREAM_BREAK,
    FileSource,
    agent_whole_view,
    line_ceiling,
    nul_reason,
    read_long_line,
    skip_reason,
    streaming_breaks,
)
from sidtui.core.transcript.structs import (
    FAST_DECODE_ERRORS,
    RECORD_DECODER,
    RECORD_LIST_DECODER,
    BadLine,
    RecordRef,
)


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


def _scan_line(
    rf: RecordFile,
    line: Any,
    off: int,
    end: int,
    line_no: int,
    terminated: bool,
) -> None:
    """One line into ``rf`` (``line``: its bytes or a view of them, at file offsets
    ``[off, end)``): the typed decoder first, JSON.parse's rules for what it refuses."""
    records = rf.records
    try:
        o = RECORD_DECODER.decode(line)
    except FAST_DECODE_ERRORS:
        pass
    else:
        records.append(
            RecordRef(len(records), line_no, off, end, o.type, o.uuid, o.parentUuid, True, o)
        )
        return
    raw = bytes(line)
    if is_blank(raw):
        rf.blank_lines += 1
        return
    try:
        nuls = raw.count(0)
        if nuls:  # JSON.parse rejects a raw NUL anywhere: say what it is
            raise JSONParseError(nul_reason(len(raw), nuls))
        value = parse_line(raw)
    except JSONParseError as exc:
        rf.bad_lines.append(BadLine(line_no, off, end - off, exc.reason, terminated))
        return
    t, u, p, is_obj = _classify(value)
    if is_obj and (u is None or p is None):
        ru, rp = value.get("uuid"), value.get("parentUuid")
        if (ru is not None and u is None) or (rp is not None and p is None):
            rf.odd_links[len(records)] = (link_key(ru), link_key(rp))
    records.append(RecordRef(len(records), line_no, off, end, t, u, p, is_obj))


def _whole_lines(rf: RecordFile, buf: Any, cut: int, base: int, line_no: int) -> int | None:
    """The whole lines ``buf[:cut]`` (``buf[cut - 1]`` is their last ``\\n``; ``buf[0]`` at
    file offset ``base``, after physical line ``line_no``) into ``rf`` in one typed decode,
    when every line is exactly one record it takes (:func:`decode_lines_exact`) — what
    :func:`_scan_line` would make of each, one line at a time (~15 µs a line). Returns
    the last line's number, or None when a line needs the per-line rules (nothing added).
    A ``\\r`` before a line's ``\\n`` stays in its span, as on every reading path.
    """
    objs = decode_lines_exact(buf, cut, RECORD_LIST_DECODER)
    if objs is None:
        return None
    return _add_lines(rf, buf, cut, base, line_no, objs)


def _add_lines(
    rf: RecordFile, buf: Any, cut: int, base: int, line_no: int, objs: list
) -> int | None:
    """:func:`_whole_lines` once ``objs`` (one struct per line of ``buf[:cut]``) are
    decoded; None (nothing added) when their count is not the lines'."""
    n = len(objs)
    starts = line_starts_in(buf, 0, cut, base)
    if len(starts) != n:  # (cannot be: one record per line)
        return None
    ends = [s - 1 for s in starts[1:]]
    ends.append(base + cut - 1)
    records = rf.records
    k = len(records)
    records.extend(
        map(
            RecordRef,
            range(k, k + n),
            range(line_no + 1, line_no + n + 1),
            starts,
            ends,
            [o.type for o in objs],
            [o.uuid for o in objs],
            [o.parentUuid for o in objs],
            repeat(True, n),
            objs,
        )
    )
    return line_no + n


class _Never:
    """A parent no record's uuid equals (an object or array: JavaScript compares them by
    identity); its text is the value as JSON."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


def link_key(v: Any) -> Any:
    """What the agent's parent walk compares for a ``uuid``/``parentUuid`` value (its
    ``===``): a string itself; a number or boolean as a key no string equals (``5`` finds
    ``5`` and ``5.0``, never ``"5"``; ``true`` is no ``1``); null None (a head); an
    object or array a :class:`_Never`, which nothing equals (a lost parent)."""
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, bool):
        return ("#bool", v)
    if isinstance(v, (int, float)):
        try:
            return ("#number", float(v))
        except OverflowError:
            return ("#number", float("inf") if v > 0 else float("-inf"))
    return _Never(orjson.dumps(v, default=str).decode()[:80])


def link_text(k: Any) -> str:
    """A link key (:func:`link_key`) as text for a message: a number or boolean as
    JavaScript writes it."""
    if isinstance(k, tuple):
        from sidtui.core.base.jsonout import js_to_string

        v = k[1]
        return js_to_string(int(v) if isinstance(v, float) and v.is_integer() else v)
    return str(k)


def _scan_physical(
    rf: RecordFile,
    buf: Any,
    pos: int,
    end: int,
    base: int,
    line_no: int,
    terminated: bool,
    streaming: bool,
) -> None:
    """The physical line ``buf[pos:end]`` (``buf[0]`` at file offset ``base``) into ``rf``;
    ``streaming``: split where the agent's streaming reader ends a line inside it (a lone
    ``\\r``, U+2028/U+2029), each piece read as a line with the physical line's number."""
    if streaming and streaming_breaks(buf, pos, end):
        e = end - 1 if end > pos and buf[end - 1] == 13 else end  # "\r\n": one line end
        a = pos
        for m in STREAM_BREAK.finditer(buf, pos, e):
            _scan_line(rf, buf[a : m.start()], base + a, base + m.start(), line_no, True)
            a = m.end()
        _scan_line(rf, buf[a:e], base + a, base + e, line_no, terminated)
    else:
        _scan_line(rf, buf[pos:end], base + pos, base + end, line_no, terminated)


def scan_tolerant(
    data: bytes, start_line: int, base_offset: int, streaming: bool = False, head: int = 0
) -> RecordFile:
    """Per-line scan: the typed decoder first, JSON.parse's rules for what it refuses.

    ``streaming``: the agent reads this file with its streaming reader, which also ends a
    line at a lone ``\\r`` and at U+2028/U+2029; each such piece of a physical line is then
    read as a line of its own, with that physical line's number. A line above
    :func:`line_ceiling` is one bad line, never decoded. ``head``: where line 1's content
    begins, after a head the agent's whole-file trim takes away
    (:attr:`RecordFile.head`; ``data`` is not copied).
    """
    rf = RecordFile(data=data, base_offset=base_offset)
    n = len(data)
    find = data.find
    limit = line_ceiling()
    pos = head
    line_no = start_line
    next_try = 0  # where the next run of whole lines is tried in one decode
    with memoryview(data) as mv:
        while pos < n:
            if pos >= next_try:
                hi = pos + piece_limits.PIECE_BYTES
                cut = data.rfind(b"\n", pos, min(hi, n)) + 1
                next_try = cut if cut > pos else hi
                if 1 < cut - pos <= limit and not (streaming and streaming_breaks(data, pos, cut)):
                    # (here a "\r\n" line's span keeps its "\r", as _scan_physical's does)
                    got = _whole_lines(rf, data[pos:cut], cut - pos, base_offset + pos, line_no)
                    if got is not None:
                        line_no, pos = got, cut
                        continue
            nl = find(b"\n", pos)
            end = n if nl < 0 else nl
            line_no += 1
            if end - pos > limit:  # never decoded (the bytes are here: only the decode is saved)
                nuls = data.count(0, pos, end)
                why = skip_reason(end - pos, nuls, limit)
                rf.bad_lines.append(BadLine(line_no, base_offset + pos, end - pos, why, nl >= 0))
            elif streaming:
                _scan_physical(rf, data, pos, end, base_offset, line_no, nl >= 0, True)
            else:
                _scan_line(rf, mv[pos:end], base_offset + pos, base_offset + end, line_no, nl >= 0)
            pos = end + 1
    rf.line_count = line_no - start_line
    rf.ends_with_newline = n == 0 or data[-1:] == b"\n"
    return rf


def scan_tolerant_source(
    src: FileSource,
    start_line: int = 0,
    streaming: bool = False,
    prefix: tuple[list, list[tuple[int, int, int]]] | None = None,
    head: int | None = None,
) -> RecordFile:
    """:func:`scan_tolerant` of a whole file read in pieces: one piece and one line (at
    most :func:`line_ceiling` bytes) in memory at a time, holes never read; records are
    read back from the file (``rf.source``).

    ``prefix``: ``(structs, pieces)`` the fast scan decoded before it met a line that
    needs these rules (its pieces ``(file offset, length, first record)``, one struct
    per line, from the file's start): taken as they are, not decoded again.

    ``head``: where line 1's content begins — after a byte-order mark or other
    whitespace glued to it that the agent's whole-file trim takes away
    (:func:`agent_whole_view`; ``src`` then already reads through any other trim); None:
    the trim found from the file's edges when the agent reads it whole (not
    ``streaming``, ``start_line`` 0), and ``rf.trimmed`` set.
    """
    trimmed = None
    if head is None:
        head = 0
        if not (streaming or start_line):
            src, trimmed, head = agent_whole_view(src)
    rf = RecordFile(data=b"", source=src)
    rf.trimmed = trimmed
    limit = line_ceiling()
    size = src.size
    line_no = start_line
    pos = head
    buf, buf_at = b"", 0
    if prefix is not None:
        objs, pieces = prefix
        for j, (a, n, first) in enumerate(pieces):
            upto = pieces[j + 1][2] if j + 1 < len(pieces) else len(objs)
            got = _add_lines(rf, src.read(a, a + n), n, a, line_no, objs[first:upto])
            if got is None:  # (cannot be) read it all again by these rules
                return scan_tolerant_source(src, start_line, streaming, None, head)
            line_no, pos = got, a + n
    while pos < size:
        if pos >= buf_at + len(buf):
            buf, buf_at = src.read_any(pos, min(size, pos + piece_limits.PIECE_BYTES)), pos
            if not buf:  # the file got shorter
                break
            # the piece's whole lines in one decode when none needs the per-line rules
            # (a file here for one odd line is otherwise read one line at a time)
            cut = buf.rfind(b"\n") + 1
            if 1 < cut <= limit and not (streaming and streaming_breaks(buf, 0, cut)):
                got = _whole_lines(rf, buf, cut, pos, line_no)
                if got is not None:
                    line_no, pos = got, pos + cut
                    continue
        i = pos - buf_at
        nl = buf.find(b"\n", i)
        if nl >= 0:
            raw: bytes | None = buf[i:nl]
            end, term = buf_at + nl, True
        elif buf_at + len(buf) >= size:  # the last line, without \n, within the piece
            raw, end, term = buf[i:], size, False
        else:
            raw, length, nuls, term = read_long_line(src, pos, limit)
            end = pos + length
            buf = b""
            if raw is None:
                line_no += 1
                why = skip_reason(length, nuls, limit)
                rf.bad_lines.append(BadLine(line_no, pos, length, why, term))
                pos = end + 1
                continue
        line_no += 1
        if end - pos > limit:  # (a ceiling set below a piece)
            nuls = raw.count(0)
            rf.bad_lines.append(
                BadLine(line_no, pos, end - pos, skip_reason(end - pos, nuls, limit), term)
            )
        else:
            # (with its \n after it, a "\r\n" is no lone \r to the streaming reader: the \r
            # stays in the span, as on every other path)
            line = raw + b"\n" if term and streaming and raw[-1:] == b"\r" else raw
            _scan_physical(rf, line, 0, len(raw), pos, line_no, term, streaming)
        pos = end + 1
    rf.line_count = line_no - start_line
    rf.ends_with_newline = size == 0 or src.read_any(size - 1, size) == b"\n"
    return rf

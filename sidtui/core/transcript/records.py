"""Line index and partial decoding of a transcript file (FORMAT.md §2).

A transcript is ``JSON.stringify(record) + "\\n"`` per line. :func:`scan_records` walks the
bytes once, keeping for every line only what the chain needs — ``type``, ``uuid``,
``parentUuid`` — decoded with a typed msgspec struct that skips every other field
(≈1.7× the I/O floor on a 100 MB file, versus ≈13× for full dicts). Lines the fast decoder
refuses are decided by :func:`sidtui.core.base.jsonparse.parse_line_slow`, which accepts
exactly what ``JSON.parse`` accepts; only lines it rejects become :class:`BadLine`.
Blank lines are skipped, as the agent does. Full records are decoded on demand
(:meth:`RecordFile.decode`), never all at once. Nothing here raises on file content.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from itertools import repeat
from typing import Any, Protocol

import msgspec
import orjson

from sidtui.core.base.jsonparse import (
    JSONParseError,
    is_blank,
    parse_line,
)
from sidtui.core.transcript import source as piece_limits  # read at call time (tests shrink them)
from sidtui.core.transcript.source import (
    STREAM_ABOVE,
    STREAM_BREAK,
    FileChanged,
    FileSource,
    line_ceiling,
    nul_reason,
    read_long_line,
    skip_reason,
    streaming_breaks,
    trim_and_span,
    trim_whole_file,
)
from sidtui.core.transcript.structs import (
    FAST_DECODE_ERRORS,
    HEAD_DECODER,
    LIST_DECODER_OF,
    RECORD_DECODER,
    BadLine,
    RecordRef,
)


def _FIRST(piece: tuple[int, int, int]) -> int:
    return piece[2]


class RecordFile:
    """A transcript's bytes with its line index.

    The fast scan keeps the index as columns (types, uuids, parents, line starts and the
    decoded structs); :attr:`records` materialises one :class:`RecordRef` per line only
    when something asks for it, so the chain and the loader's fast paths never build them
    (the chain alone stays within 2× the I/O floor).

    Attributes:
        data: the file's bytes (kept so records can be decoded lazily). For a big file read
            in pieces (``source``) the bytes are read whole only if something asks for
            ``data`` itself; lines are read back one by one instead.
        source: the :class:`FileSource` of a big file read in pieces, else None.
        records: every JSON.parse-valid line, in physical order (built on first access).
        bad_lines: every line JSON.parse rejects, in physical order.
        blank_lines: number of blank lines (skipped, not bad).
        line_count: number of physical lines (a final line without ``\\n`` counts).
        ends_with_newline: whether the last byte is ``\\n`` (or the file is empty).
        base_offset: byte offset of ``data[0]`` in the file (incremental tails).
        trimmed: ``(a, b)`` when the agent's whole-file trim changed the first or last
            line: the bytes before ``a`` and from ``b`` are made spaces in ``data``.
    """

    __slots__ = (
        "_data",
        "source",
        "_records",
        "bad_lines",
        "blank_lines",
        "line_count",
        "ends_with_newline",
        "base_offset",
        "_cols",
        "_starts",
        "_heads",
        "_full",
        "_whole",
        "start_line",
        "_pieces",
        "_piece_starts",
        "trimmed",
        "odd_links",
    )

    def __init__(
        self,
        data: bytes = b"",
        records: list[RecordRef] | None = None,
        bad_lines: list[BadLine] | None = None,
        blank_lines: int = 0,
        line_count: int = 0,
        ends_with_newline: bool = True,
        base_offset: int = 0,
        source: FileSource | None = None,
    ) -> None:
        self._data = data
        self.source = source
        self._records: list[RecordRef] | None = records if records is not None else []
        self.bad_lines: list[BadLine] = bad_lines if bad_lines is not None else []
        self.blank_lines = blank_lines
        self.line_count = line_count
        self.ends_with_newline = ends_with_newline
        self.base_offset = base_offset
        self.start_line = 0
        # the fast scan's index (None once records exist or for the tolerant path):
        # the decoded structs (_Head or RecordS), line starts, columns built on demand
        self._heads: list | None = None
        self._full = False
        self._whole = False
        self._cols: tuple[list, list, list] | None = None
        self._starts: array | None = None  # line starts ('q'), one per record
        #: a file read in pieces: (file offset, length, first record) per piece; line
        #: starts are found per piece when asked (:meth:`line_starts`, :meth:`raw_at`)
        self._pieces: list[tuple[int, int, int]] | None = None
        self._piece_starts: dict[int, array] = {}
        #: ``(a, b)`` when the agent's whole-file trim changed a line: ``data[:a]`` and
        #: ``data[b:]`` hold what it trimmed, made spaces here (:func:`trim_whole_file`)
        self.trimmed: tuple[int, int] | None = None
        #: record index → ``(uuid, parentUuid)`` link keys (:func:`link_key`) of records
        #: whose uuid or parentUuid is a JSON value other than a string or null
        self.odd_links: dict[int, tuple[Any, Any]] = {}

    def __repr__(self) -> str:
        return (
            f"RecordFile(size={self.size}, records={self.count}, "
            f"bad_lines={len(self.bad_lines)}, blank_lines={self.blank_lines})"
        )

    @property
    def records(self) -> list[RecordRef]:
        """Every JSON.parse-valid line as a :class:`RecordRef`, in physical order."""
        if self._records is None:
            self._records = self._materialise()
        return self._records

    @records.setter
    def records(self, value: list[RecordRef]) -> None:
        self._records = value
        self._cols = self._starts = self._heads = self._pieces = None
        self._full = self._whole = False

    @property
    def count(self) -> int:
        """Number of records (valid lines), without materialising them."""
        if self._records is None and self._heads is not None:
            return len(self._heads)
        return len(self.records)

    @property
    def is_fast(self) -> bool:
        """True while the index is the fast scan's columns: every line is a JSON object,
        none is blank or bad — but a torn last line, after every record — so record ``i``
        is physical line ``start_line + i + 1``."""
        return self._heads is not None

    @property
    def whole(self) -> bool:
        """The fast scan found one parent chain through every record, in file order, one
        head, no repeated uuid (the agent's walk from the last line takes every line)."""
        return self._heads is not None and self._whole

    @property
    def heads(self) -> list[Any] | None:
        """The fast scan's decoded structs, one per record (each has ``type``, ``uuid``,
        ``parentUuid``), else None."""
        return self._heads

    def columns(self) -> tuple[list[str | None], list[str | None], list[str | None]]:
        """``(types, uuids, parents)``, one entry per record (physical order); a uuid or
        parent that is no string is None here (see :meth:`link_columns`).

        Cheap on a fast scan (the columns themselves; do not mutate them); otherwise built
        from :attr:`records`.
        """
        if self._cols is not None:
            return self._cols
        if self._heads is not None:
            self._cols = _columns(self._heads)
            return self._cols
        recs = self.records
        return [r.type for r in recs], [r.uuid for r in recs], [r.parent for r in recs]

    def link_columns(self) -> tuple[list[Any], list[Any]]:
        """``(uuids, parents)`` as the agent's parent walk compares them: :meth:`columns`
        with each uuid or parent that is a number, boolean, object or array as its
        :func:`link_key` (FORMAT.md §4.3)."""
        _, uuids, parents = self.columns()
        if not self.odd_links:
            return uuids, parents
        uuids, parents = list(uuids), list(parents)
        for i, (u, p) in self.odd_links.items():
            if u is not None:
                uuids[i] = u
            if p is not None:
                parents[i] = p
        return uuids, parents

    @property
    def objs(self) -> list[Any] | None:
        """The decoded :class:`RecordS` per record on a full fast scan, else None."""
        return self._heads if self._full else None

    def line_starts(self) -> array | None:
        """Every record's line start (file offsets, ``array('q')``) on a fast scan, else
        None. A file read in pieces has them found now, piece by piece, from the file
        (the scan itself never needs them).

        Raises:
            FileChanged: a file read in pieces got shorter since.
        """
        if self._starts is None and self._pieces is not None:
            starts = array("q")
            for p in range(len(self._pieces)):
                starts += self._starts_of_piece(p)
            self._starts = starts
            self._piece_starts = {}
        elif self._starts is None and self._heads is not None:  # bytes in memory
            starts = _line_starts(self._data, self.base_offset)
            del starts[len(self._heads) :]  # a torn last line starts no record
            self._starts = starts
        return self._starts

    def _raw_near_head(self, index: int) -> bytes:
        """Record ``index`` (one of the first, bytes in memory, fast scan) found by
        walking newlines: a ``session_start`` near the head is decoded without finding
        every line start of the file first."""
        data, find = self._data, self._data.find
        a = 0
        for _ in range(index):
            a = find(b"\n", a) + 1
        b = find(b"\n", a)
        if index + 1 == len(self._heads) or b < 0:
            return self.bytes_between(self.base_offset + a, self._records_end())
        return data[a:b]

    def _records_end(self) -> int:
        """File offset just past the last record's bytes (its ``\\n`` excluded) on a fast
        scan: the end of the file, or where a torn last line begins (minus its ``\\n``)."""
        if self.bad_lines:  # a fast scan holds at most one, the torn last line
            return self.bad_lines[-1].offset - 1
        return self.base_offset + self.size - (1 if self.ends_with_newline else 0)

    def _starts_of_piece(self, p: int) -> array:
        st = self._piece_starts.get(p)
        if st is None:
            a, n, _ = self._pieces[p]  # type: ignore[index]
            st = _line_starts_in(self.source.read(a, a + n), 0, n, a)  # type: ignore[union-attr]
            self._piece_starts[p] = st
        return st

    def _span_in_pieces(self, index: int) -> tuple[int, int]:
        pieces = self._pieces
        assert pieces is not None
        p = bisect_right(pieces, index, key=_FIRST) - 1
        st = self._starts_of_piece(p)
        a, n, first = pieces[p]
        k = index - first
        start = st[k]
        if k + 1 < len(st):
            return start, st[k + 1] - 1
        if p == len(pieces) - 1:
            return start, self._records_end()
        return start, a + n - 1  # the piece ends after this line's newline

    def _materialise(self) -> list[RecordRef]:
        types, uuids, parents = self.columns()
        starts = self.line_starts()
        k = len(types)
        ends = [x - 1 for x in starts[1:k]]  # type: ignore[index]
        if k:
            ends.append(self._records_end())
        sl = self.start_line
        return list(
            map(
                RecordRef,
                range(k),
                range(sl + 1, sl + k + 1),
                starts,  # type: ignore[arg-type]
                ends,
                types,
                uuids,
                parents,
                repeat(True, k),
                self._heads if self._full else repeat(None, k),
            )
        )

    @property
    def data(self) -> bytes:
        """The file's bytes (read whole on first use for a file read in pieces)."""
        if self.source is not None and not self._data:
            self._data = self.source.read(0, self.source.size)
        return self._data

    @data.setter
    def data(self, value: bytes) -> None:
        self._data = value

    @property
    def in_pieces(self) -> bool:
        """Whether the file is read in pieces and was never read whole: its bytes come
        from :attr:`source`, span by span (see :meth:`bytes_between`)."""
        return self.source is not None and not self._data

    def bytes_between(self, start: int, end: int) -> bytes:
        """File bytes ``[start, end)`` (file offsets), from memory or read again.

        Raises:
            FileChanged: a file read in pieces got shorter since.
        """
        b = self.base_offset
        if self.source is not None and not self._data:
            return self.source.read(start, end)
        return self._data[start - b : end - b]

    def span(self, start: int, end: int) -> bytes:
        """File bytes ``[start, end)`` (file offsets; b"" when a file read in pieces got
        shorter): a bad line's head without reading the whole file."""
        try:
            return self.bytes_between(start, end)
        except FileChanged:
            return b""

    def raw(self, rec: RecordRef) -> bytes:
        """The line's bytes (without ``\\n``).

        Raises:
            FileChanged: a file read in pieces got shorter since.
        """
        return self.bytes_between(rec.offset, rec.end)

    def raw_at(self, index: int) -> bytes:
        """Record ``index``'s line bytes, without materialising :attr:`records`."""
        if self._records is None and self._starts is None and self._pieces is not None:
            return self.bytes_between(*self._span_in_pieces(index))
        if self._records is None and self._heads is not None:
            if self._starts is None and index < _NEAR_HEAD and index < len(self._heads):
                return self._raw_near_head(index)
            starts = self.line_starts()
            assert starts is not None
            start = starts[index]
            end = starts[index + 1] - 1 if index + 1 < len(starts) else self._records_end()
            return self.bytes_between(start, end)
        return self.raw(self.records[index])

    def decode(self, rec: RecordRef) -> Any:
        """The full record (usually a dict), decoded with JSON.parse's rules.

        None when a file read in pieces no longer holds the line (it got shorter).
        """
        try:
            return parse_or_none(self.raw(rec))
        except FileChanged:
            return None

    def decode_at(self, index: int) -> Any:
        """Record ``index`` fully decoded, without materialising :attr:`records` (None when
        a file read in pieces no longer holds the line)."""
        try:
            return parse_or_none(self.raw_at(index))
        except FileChanged:
            return None

    @property
    def size(self) -> int:
        """File size in bytes (of the part scanned, for a tail chunk)."""
        if self.source is not None and not self._data:
            return self.source.size
        return len(self._data)


def parse_or_none(raw: bytes) -> Any:
    """A valid line's value with JSON.parse's rules (orjson first); None for a line that is
    not valid any more (only a line read back after its file changed)."""
    try:
        return parse_line(raw)
    except JSONParseError:
        return None


def _line_starts(data: bytes, base: int) -> array:
    """Byte offsets (plus ``base``) of every line start; a final ``\\n`` starts no line.

    A ``find`` loop: memchr runs far faster than ``count`` or a regex over 100 MB.
    """
    return _line_starts_in(data, 0, len(data), base)


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


#: Records this near the head are found by walking newlines (:meth:`RecordFile.raw_at`).
_NEAR_HEAD = 16

#: Shared copies of record types and roles (a decoder makes a new str per record).
_SHARED: dict[str, str] = {}
_SHARED_MAX = 512


class _Digest:
    """What one pass over freshly decoded records learns and tidies, in the same pass.

    Run per chunk while its records are hot in cache: follows the whole-linear-chain test
    (every parent is the previous record's uuid, the first has none, no uuid repeats —
    then the agent's walk takes every line), makes each parent uuid the very string of its
    parent record's uuid, and shares one copy of each record type and role. The strings
    this frees are reused by the next chunk's, which lowers the scan's peak memory by
    about a fifth of the file's size on a linear session.
    """

    __slots__ = ("prev", "whole", "seen", "count")

    def __init__(self) -> None:
        self.prev: str | None = None
        self.whole = True
        self.seen: set[str] = set()
        self.count = 0

    def feed(self, part: list, full: bool) -> None:
        if not full:  # a chain-only scan is short-lived: only the chain test
            self._feed_chain(part)
            return
        shared = _SHARED
        get = shared.get
        prev = self.prev
        whole = self.whole
        add = self.seen.add
        for o in part:
            t = o.type
            if t is not None:
                c = get(t)
                if c is None and len(shared) < _SHARED_MAX:
                    c = shared.setdefault(t, t)
                if c is not None:
                    o.type = c
            u = o.uuid
            p = o.parentUuid
            if p is not None and p == prev:
                o.parentUuid = prev
            elif whole and (p is not None or prev is not None):
                whole = False
            if whole:
                if u is None:
                    whole = False
                else:
                    add(u)
            prev = u
            m = o.message
            if m is not None:
                r = m.role
                if r is not None:
                    c = get(r)
                    if c is None and len(shared) < _SHARED_MAX:
                        c = shared.setdefault(r, r)
                    if c is not None:
                        m.role = c
        self.prev = prev
        self.whole = whole
        self.count += len(part)
        if not whole:
            self.seen = set()

    def _feed_chain(self, part: list) -> None:
        prev = self.prev
        whole = self.whole
        add = self.seen.add
        for o in part:
            u = o.uuid
            p = o.parentUuid
            if p is not None and p == prev:
                o.parentUuid = prev
            elif whole and (p is not None or prev is not None):
                whole = False
            if whole:
                if u is None:
                    whole = False
                else:
                    add(u)
            prev = u
        self.prev = prev
        self.whole = whole
        self.count += len(part)
        if not whole:
            self.seen = set()

    @property
    def is_whole(self) -> bool:
        """Every record is on one parent chain in file order (see the class docstring)."""
        return self.whole and self.count > 0 and len(self.seen) == self.count


def count_lines(buf: bytes | bytearray, cut: int) -> int:
    """Physical lines in ``buf[:cut]`` (which starts on a line start): its newlines, plus
    one for a last line without ``\\n``."""
    return _newlines_before(buf, cut) + (1 if cut and buf[cut - 1] != 10 else 0)


#: Bytes per array :func:`decode_lines_exact` decodes at once (its two copies stay small).
_EXACT_RUN = 1 << 20


def decode_lines_exact(buf: Any, cut: int, list_decoder: msgspec.json.Decoder) -> list | None:
    """The lines ``buf[:cut]`` (from a line start) decoded, exactly one value per line.

    ``decode_lines`` reads whitespace-separated values, so it takes ``{a}{b}`` as two
    records and skips blank lines — and the two can cancel out in a line count. Here the
    lines are decoded as one JSON array, each ``\n`` made a ``,`` (a raw newline is never
    inside a JSON string): a blank line, two values on a line or a value over two lines
    leaves an invalid array. ``list_decoder`` decodes a ``list[T]`` of the record struct.

    Returns:
        The structs, or None when a line is not exactly one value the typed decoder takes.
    """
    dl = list_decoder
    out: list = []
    a = 0
    with memoryview(buf) as mv:
        while a < cut:
            b = cut
            if cut - a > _EXACT_RUN:
                b = buf.rfind(b"\n", a, a + _EXACT_RUN) + 1
                if b <= a:  # one line longer than a run
                    b = buf.find(b"\n", a + _EXACT_RUN, cut) + 1 or cut
            end = b - 1 if buf[b - 1] == 10 else b
            if end <= a:
                return None  # an empty line
            arr = b"".join((b"[", mv[a:end], b"]")).replace(b"\n", b",")
            try:
                got = dl.decode(arr)
            except FAST_DECODE_ERRORS:
                return None
            if not got:
                return None  # one line of only whitespace: "[ ]"
            out += got
            a = b
    return out


def _decode_piece_array(
    buf: bytearray, cut: int, list_decoder: msgspec.json.Decoder
) -> list | None:
    """The lines ``buf[1 : cut + 1]`` (whole lines, ``buf[0]`` a spare byte) decoded exactly
    one value per line, as :func:`decode_lines_exact` does, with one copy: every ``\n``
    of ``buf`` becomes ``,``, the spare byte ``[`` and the last line's ``\n`` ``]``.
    None when a line is not exactly one value (or the piece does not end with ``\n``)."""
    if cut < 2 or buf[cut] != 10 or cut > _EXACT_RUN:
        return None
    arr = buf.replace(b"\n", b",")
    arr[0] = 91
    arr[cut] = 93
    del arr[cut + 1 :]
    try:
        got = list_decoder.decode(arr)
    except FAST_DECODE_ERRORS:
        return None
    return got or None


def _decode_run(
    buf: Any, cut: int, decoder: msgspec.json.Decoder, last: bool, base: int
) -> tuple[list, int, tuple[int, int, str, bool] | None] | None:
    """The whole lines ``buf[:cut]`` (``buf[0]`` at file offset ``base``) decoded, one
    record per line (:func:`decode_lines_exact`): ``(structs, bytes they span, torn last
    line or None)``, the torn line as ``(file offset, length, why, terminated)`` (only when
    ``last``: the run ends the file; see :func:`_torn_tail`).
    None when a line needs the tolerant scan (a typed decode refused it, a blank line, two
    records on a line, or a bad line before the last)."""
    part = decode_lines_exact(buf, cut, LIST_DECODER_OF[id(decoder)])
    if part is not None:
        return part, cut, None
    torn = _torn_tail(buf, cut, decoder) if last else None
    if torn is None:
        return None
    part, start, length, why, terminated = torn
    return part, start, (base + start, length, why, terminated)


def _torn_tail(
    buf: Any, cut: int, decoder: msgspec.json.Decoder
) -> tuple[list, int, int, str, bool] | None:
    """``buf[:cut]`` (whole lines, from a line start) whose lines all decode but the last,
    which JSON.parse rejects — a write torn by a crash, the usual corrupt line — read
    without the per-line tolerant scan: ``(structs, last line start, its length, why,
    terminated)``. None when that is not the case (a blank line, a bad line before the
    last, a last line that is valid JSON the typed decode refused): the tolerant scan
    decides then."""
    end = cut - 1 if cut and buf[cut - 1] == 10 else cut
    start = buf.rfind(b"\n", 0, end) + 1
    raw = bytes(buf[start:end])
    if is_blank(raw):
        return None
    nuls = raw.count(0)
    try:
        if nuls:  # JSON.parse rejects a raw NUL anywhere: no need to parse it
            raise JSONParseError(nul_reason(len(raw), nuls))
        parse_line(raw)
    except JSONParseError as exc:
        reason = exc.reason
    else:
        return None
    if start:
        part = decode_lines_exact(buf, start, LIST_DECODER_OF[id(decoder)])
        if part is None:
            return None
    else:
        part = []
    return part, start, end - start, reason, end < cut


class PieceHook(Protocol):
    """What :func:`scan_records` hands each run of freshly decoded records to
    (:class:`sidtui.core.transcript.loader.LinearLoad`)."""

    def __call__(self, rf: RecordFile, structs: list, first: int) -> None:
        """Records ``first .. first + len(structs) - 1``, in file order."""

    def abandon(self) -> None:
        """The scan feeds no more: the file is not one linear chain, or a line sent it to
        the tolerant path. Drop what was built (it would double the peak memory)."""


def _decode_pieces(
    src: FileSource,
    decoder: msgspec.json.Decoder,
    digest: _Digest,
    rf: RecordFile,
    on_piece: PieceHook | None,
    streaming: bool = False,
) -> tuple[list, list, tuple[int, int, str, bool] | None] | None:
    """Read and decode a file :data:`PIECE_BYTES` at a time, each piece cut after its last
    newline (a line longer than a piece is read whole).

    One buffer is reused (a fresh object per piece costs its page faults every time). The
    kernel is asked to read the next piece ahead while this one is decoded
    (``posix_fadvise(WILLNEED)``): a reader thread did the same, but waking it took the GIL
    from the decode every piece (``open_session`` of the 105 MB bench session: median
    512 → 415 ms without it, 5 interleaved rounds).

    Each run of structs goes to ``on_piece`` (see :func:`scan_records`) while the file
    still reads as one chain; it is abandoned at the first sign it does not.

    Returns ``(objs, pieces, torn last line or None)`` (see :func:`_torn_tail`), or None
    when a line needs the tolerant path (a typed decode refused it, a bad line before the
    last, blank lines are present, or — ``streaming`` — the agent's streaming reader ends
    a line inside one: :func:`streaming_breaks`).

    Raises:
        FileChanged: the file got shorter while it was read.
    """
    size = src.size
    objs: list = []
    pieces: list[tuple[int, int, int]] = []
    limit = line_ceiling()
    if not size:
        return objs, pieces, None
    length = min(piece_limits.PIECE_BYTES, size)
    # buf[0] is a spare byte before each piece (buf[1:]): the piece's lines become one JSON
    # array with a single copy (:func:`_decode_piece_array`)
    buf = bytearray(length + 1)
    list_decoder = LIST_DECODER_OF[id(decoder)]
    tail: tuple[int, int, str, bool] | None = None  # a torn last line: offset, length, why, \n
    with memoryview(buf) as whole:
        a = 0
        while a < size:
            n = min(length, size - a)
            src.read_into(whole[1 : n + 1], a)
            # the piece ends after its last \n (buf[k] is file byte a + k - 1)
            cut = n if a + n == size else max(0, buf.rfind(b"\n", 1, n + 1))
            if cut == 0:  # one line longer than a piece: read it whole, if it may be
                line, span, nuls, term = read_long_line(src, a, limit)
                if line is None:  # too long, or NUL bytes: one bad line, never in memory
                    if a + span + term < size:
                        return None  # a bad line before the last: the per-line scan
                    tail = (a, span, skip_reason(span, nuls, limit), term)
                    break
                piece: bytes | bytearray | None = line + b"\n" if term else line
                cut = len(piece)
            else:
                piece = None  # buf[1 : cut + 1]
            nxt = a + cut
            if nxt < size:
                src.advise(nxt, length)
            if piece is None:
                if streaming and streaming_breaks(buf, 1, cut + 1):
                    return None
                part = _decode_piece_array(buf, cut, list_decoder)
                # the line starts are found only when asked (RecordFile.line_starts)
                run = (
                    (part, cut, None)
                    if part is not None
                    else _decode_run(bytes(whole[1 : cut + 1]), cut, decoder, nxt == size, a)
                )
            else:
                if streaming and streaming_breaks(piece, 0, cut):
                    return None
                run = _decode_run(piece, cut, decoder, nxt == size, a)
            if run is None:
                return None
            part, cut, torn = run
            tail = torn or tail
            digest.feed(part, rf._full)
            if on_piece is not None:
                if digest.whole:
                    on_piece(rf, part, len(objs))
                else:  # a file known to branch: no guess left
                    on_piece.abandon()
                    on_piece = None
            if cut:
                pieces.append((a, cut, len(objs)))  # file offsets (a FileSource has no base)
            objs += part
            a = nxt
    return objs, pieces, tail


def _line_longer(data: bytes, limit: int) -> bool:
    """Whether a line of ``data`` is longer than ``limit`` bytes (a ``find`` per line)."""
    find = data.find
    pos, n = 0, len(data)
    while pos < n:
        nl = find(b"\n", pos)
        end = n if nl < 0 else nl
        if end - pos > limit:
            return True
        pos = end + 1
    return False


def _newlines_before(buf: bytes | bytearray, cut: int) -> int:
    """``buf.count(b"\\n", 0, cut)``, faster: ``count`` of one byte scans byte by byte
    (~1.4–3 ms per 4 MB here) while ``replace`` finds them with ``memchr``
    (~0.6 ms). Done in 256 KB windows, so the copies it makes stay small (a whole-piece
    copy added 4 MB to ``show``'s peak memory)."""
    if cut == len(buf) and cut <= _COUNT_WINDOW:  # a small whole buffer: no copy
        return cut - len(buf.replace(b"\n", b""))
    n = 0
    with memoryview(buf) as mv:
        for i in range(0, cut, _COUNT_WINDOW):
            seg = bytes(mv[i : min(cut, i + _COUNT_WINDOW)])
            n += len(seg) - len(seg.replace(b"\n", b""))
    return n


_COUNT_WINDOW = 256 << 10


def _line_starts_in(buf: Any, a: int, b: int, base: int) -> array:
    """Line starts (plus ``base``) of ``buf[a:b]``, which starts on a line boundary; a
    final ``\\n`` starts no line. An ``array('q')``: 8 bytes a line instead of 40."""
    starts = array("q", (base + a,))
    app = starts.append
    find = buf.find
    i = a
    while True:
        j = find(b"\n", i, b)
        if j < 0:
            break
        i = j + 1
        app(base + i)
    if i == b:
        starts.pop()
    return starts


def _columns(objs: list) -> tuple[list, list, list]:
    """``(types, uuids, parents)`` of decoded records, in one pass (each record touched
    once: faster here than three comprehensions)."""
    types: list = []
    uuids: list = []
    parents: list = []
    t, u, p = types.append, uuids.append, parents.append
    for o in objs:
        t(o.type)
        u(o.uuid)
        p(o.parentUuid)
    return types, uuids, parents


def scan_records(
    data: bytes | FileSource,
    *,
    start_line: int = 0,
    base_offset: int = 0,
    chain_only: bool = False,
    on_piece: PieceHook | None = None,
    whole_file: bool | None = None,
    streamed: bool | None = None,
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
        on_piece: called as ``on_piece(rf, structs, first)`` on a full scan's fast path
            with each run of freshly decoded :class:`RecordS` (records ``first`` on), in
            file order, while the file still reads as one linear chain and the structs
            are still in the CPU cache (:class:`sidtui.core.transcript.loader.LinearLoad`). ``rf``
            is the object being built: only its identity and ``start_line`` hold yet.
            When the scan stops feeding it (the file branches, or a line sends the scan
            to the tolerant path, which returns another object) it calls
            ``on_piece.abandon()`` first (:class:`PieceHook`).
        whole_file: ``data`` is the whole file (default: when it starts the file,
            ``start_line == base_offset == 0``). Then the lines are the agent's for a file
            of that size: a file of at most :data:`STREAM_ABOVE` bytes is trimmed first
            (:func:`trim_whole_file`), a bigger one also ends lines at a lone ``\\r`` and
            at U+2028/U+2029 (its streaming reader; :func:`_scan_tolerant`).
        streamed: whether the agent reads the file with its streaming reader (default:
            when it is bigger than :data:`STREAM_ABOVE`; its sidechain readers never do).

    Returns:
        A :class:`RecordFile`; never raises on content. A final line without ``\\n`` is
        treated exactly like the agent treats it: parsed if it is valid JSON, else bad.
    """
    decoder = HEAD_DECODER if chain_only else RECORD_DECODER
    digest = _Digest()
    source = data if isinstance(data, FileSource) else None
    trimmed: tuple[int, int] | None = None
    if whole_file is None:
        whole_file = base_offset == 0 and start_line == 0
    # the agent's reader depends on the file's size (STREAM_ABOVE)
    if streamed is None:
        streamed = (source.size if source is not None else len(data)) > STREAM_ABOVE
    streaming = whole_file and streamed
    if whole_file and not streaming:
        if source is not None:  # (a small sparse file; pieces of a small file in tests)
            edges = (
                source.read(0, min(4096, source.size))
                + b"\n"
                + source.read(max(0, source.size - 4096), source.size)
            )
            # (never a huge file whole in memory: a sidechain read in pieces keeps its edges)
            if trim_whole_file(edges) is not edges and source.size <= piece_limits.PIECE_MIN_BYTES:
                source, data = None, source.read(0, source.size)
        if source is None:
            data, trimmed = trim_and_span(data)
    elif streaming and source is None and streaming_breaks(data):
        return _scan_tolerant(data, start_line, base_offset, True)
    rf = RecordFile(
        data=b"" if source is not None else data, base_offset=base_offset, source=source
    )
    rf._records = None
    rf._full = not chain_only
    rf.start_line = start_line
    if chain_only:
        on_piece = None  # a chain-only scan has no messages to load ahead
    limit = line_ceiling()
    if source is not None:
        # a ceiling below a piece is checked line by line (only when set that low)
        got = (
            None
            if limit < piece_limits.PIECE_BYTES
            else _decode_pieces(source, decoder, digest, rf, on_piece, streaming)
        )
    elif len(data) > limit and _line_longer(data, limit):
        got = None  # a line above the ceiling: the per-line scan reports it, undecoded
    else:
        run = _decode_run(data, len(data), decoder, True, base_offset)
        got = None if run is None else (run[0], None, run[2])
        if got is not None:
            digest.feed(got[0], not chain_only)
            if on_piece is not None and digest.whole:
                on_piece(rf, got[0], 0)  # (not whole: never fed, nothing to abandon)
    if got is None or (got[2] is not None and not got[0]):
        # an odd line somewhere, or nothing but a torn line: the exact per-line path
        if on_piece is not None:
            on_piece.abandon()
        if source is not None:  # never the whole file in memory (a sparse 4 GB file)
            return _scan_tolerant_source(source, start_line, streaming)
        rf = _scan_tolerant(data, start_line, base_offset, streaming)
        rf.trimmed = trimmed
        return rf
    objs, pieces, tail = got
    rf.trimmed = trimmed
    rf._whole = digest.is_whole
    rf._heads = objs
    if source is not None:
        rf._pieces = pieces
    rf.line_count = len(objs)  # the fast path: one record per line, no blank line
    if tail is not None:  # then a torn last line
        t_off, t_len, t_why, t_nl = tail
        rf.bad_lines.append(BadLine(start_line + len(objs) + 1, t_off, t_len, t_why, t_nl))
        rf.line_count += 1
    if source is not None:
        rf.ends_with_newline = (
            source.size == 0 or source.read(source.size - 1, source.size) == b"\n"
        )
    else:
        rf.ends_with_newline = len(data) == 0 or data[-1:] == b"\n"
    return rf


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


def _scan_tolerant(
    data: bytes, start_line: int, base_offset: int, streaming: bool = False
) -> RecordFile:
    """Per-line scan: the typed decoder first, JSON.parse's rules for what it refuses.

    ``streaming``: the agent reads this file with its streaming reader, which also ends a
    line at a lone ``\\r`` and at U+2028/U+2029; each such piece of a physical line is then
    read as a line of its own, with that physical line's number. A line above
    :func:`line_ceiling` is one bad line, never decoded.
    """
    rf = RecordFile(data=data, base_offset=base_offset)
    n = len(data)
    find = data.find
    limit = line_ceiling()
    pos = 0
    line_no = start_line
    with memoryview(data) as mv:
        while pos < n:
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


def _scan_tolerant_source(
    src: FileSource, start_line: int = 0, streaming: bool = False
) -> RecordFile:
    """:func:`_scan_tolerant` of a file read in pieces: one piece and one line (at most
    :func:`line_ceiling` bytes) in memory at a time, holes never read; records are read
    back from the file (``rf.source``)."""
    rf = RecordFile(data=b"", source=src)
    limit = line_ceiling()
    size = src.size
    line_no = start_line
    pos = 0
    buf, buf_at = b"", 0
    while pos < size:
        if pos >= buf_at + len(buf):
            buf, buf_at = src.read_any(pos, min(size, pos + piece_limits.PIECE_BYTES)), pos
            if not buf:  # the file got shorter
                break
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
            _scan_physical(rf, raw, 0, len(raw), pos, line_no, term, streaming)
        pos = end + 1
    rf.line_count = line_no - start_line
    rf.ends_with_newline = size == 0 or src.read_any(size - 1, size) == b"\n"
    return rf

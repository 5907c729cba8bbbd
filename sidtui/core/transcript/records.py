"""A scanned transcript: its bytes, its line index and its records (FORMAT.md §2).

A transcript is ``JSON.stringify(record) + "\\n"`` per line. A :class:`RecordFile` (built by
``transcript.scan.scan_records``) holds every JSON.parse-valid line as a record, every line
JSON.parse rejects as a :class:`BadLine`, and the count of blank lines (skipped, as the agent
does). The fast scan keeps its index as columns of typed partial structs; full records are
decoded on demand (:meth:`RecordFile.decode`), never all at once, and a file read in pieces
is read back a line at a time. Nothing here raises on file content.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from itertools import repeat
from typing import Any

from sidtui.core.base.jsonparse import (
    JSONParseError,
    parse_line,
)
from sidtui.core.transcript.source import (
    FileChanged,
    FileSource,
)
from sidtui.core.transcript.structs import (
    BadLine,
    RecordRef,
)

#: Record types FORMAT.md §3 defines, in its order (anything else is kept as an opaque record).
DEFINED_RECORD_TYPES = (
    "session_start",
    "user_message",
    "assistant_message",
    "tool_result",
    "context_compact",
    "metadata",
    "session_end",
)
#: The record types of a sidechain file (FORMAT.md §7).
SIDECHAIN_RECORD_TYPES = ("sidechain_start", "sidechain_end", "message")
_OWN_TYPES = frozenset(DEFINED_RECORD_TYPES + SIDECHAIN_RECORD_TYPES)


def claims_record(d: dict[str, Any]) -> bool:
    """sid-code wrote this decoded record: its ``type`` is one only sid-code writes (how
    :func:`sidtui.core.sources.sniff` tells the agents' transcripts apart)."""
    return d.get("type") in _OWN_TYPES


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
            line: the bytes before ``a`` and from ``b`` are made spaces in ``data``, or,
            when the trim only takes line 1's head (``head``), left as they are.
        head: where line 1's record begins on a fast scan (0, or after a trimmed
            byte-order mark left in ``data``): record 0's ``offset``.
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
        "_tail_starts",
        "trimmed",
        "head",
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
        #: bytes in memory: line starts walked back from the tail (:meth:`raw_at`)
        self._tail_starts: array | None = None
        #: ``(a, b)`` when the agent's whole-file trim changed a line: ``data[:a]`` and
        #: ``data[b:]`` hold what it trimmed, made spaces here (:func:`trim_whole_file`)
        #: or left in place before ``head``
        self.trimmed: tuple[int, int] | None = None
        self.head = 0
        #: record index → ``(uuid, parentUuid)`` link keys (:func:`link_key`) of records
        #: whose uuid or parentUuid is a JSON value other than a string or null
        self.odd_links: dict[int, tuple[Any, Any]] = {}

    def begin_fast(self, full: bool) -> None:
        """Make this the fast scan's file: no :class:`RecordRef` list yet (built when
        asked), the structs full records (``full``) or heads only."""
        self._records = None
        self._full = full

    def set_heads(
        self, heads: list, whole: bool, pieces: list[tuple[int, int, int]] | None
    ) -> None:
        """The fast scan's index: one decoded struct per line, whether the records are one
        whole linear chain, and the pieces of a file read in pieces (None: in memory)."""
        self._whole = whole
        self._heads = heads
        if pieces is not None:
            self._pieces = pieces

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
        self._cols = self._starts = self._heads = self._pieces = self._tail_starts = None
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
            if self.head and starts:
                starts[0] += self.head
            self._starts = starts
        return self._starts

    def _raw_near_head(self, index: int) -> bytes:
        """Record ``index`` (one of the first, bytes in memory, fast scan) found by
        walking newlines: a ``session_start`` near the head is decoded without finding
        every line start of the file first."""
        data, find = self._data, self._data.find
        a = self.head
        for _ in range(index):
            a = find(b"\n", a) + 1
        b = find(b"\n", a)
        if index + 1 == len(self._heads) or b < 0:
            return self.bytes_between(self.base_offset + a, self._records_end())
        return data[a:b]

    def _raw_near_tail(self, index: int) -> bytes:
        """Record ``index`` (one of the last :data:`_NEAR_TAIL`, bytes in memory, fast
        scan) found by walking newlines back from the last record, the walk kept for the
        next call: the metadata winners (last-wins: usually near the tail) are decoded
        without finding every line start of the file."""
        data, rfind = self._data, self._data.rfind
        back = self._tail_starts
        if back is None:
            end = self._records_end() - self.base_offset
            back = self._tail_starts = array("q", (end + 1, rfind(b"\n", 0, end) + 1))
        k = len(self._heads) - index  # type: ignore[arg-type]
        while len(back) <= k:  # back[j]: where the j-th record from the end starts
            back.append(rfind(b"\n", 0, back[-1] - 1) + 1)
        return data[max(back[k], self.head) : back[k - 1] - 1]

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
            st = line_starts_in(self.source.read(a, a + n), 0, n, a)  # type: ignore[union-attr]
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
            if self._starts is None and 0 <= len(self._heads) - 1 - index < _NEAR_TAIL:
                return self._raw_near_tail(index)
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
    return line_starts_in(data, 0, len(data), base)


#: Records this near the head or the tail are found by walking newlines
#: (:meth:`RecordFile.raw_at`).
_NEAR_HEAD = 16
_NEAR_TAIL = 4096


def line_starts_in(buf: Any, a: int, b: int, base: int) -> array:
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

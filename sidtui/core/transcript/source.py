"""A transcript's bytes as the agent reads them (FORMAT.md §2.2, §2.6): whole, or a
:class:`FileSource` read in pieces for a big file; the limits on pieces and lines; and the
agent's own reader (its whole-file trim, its streaming reader's line ends above 4 MiB).
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any

from sidtui.core.base.errors import UnreadableInput
from sidtui.core.base.jsonparse import (
    JS_WHITESPACE,
)
from sidtui.core.base.regular import ceiling, data_after, has_holes, open_regular

#: Files at least this big are read in pieces by :func:`read_transcript` (see
#: :class:`FileSource`) instead of into one bytes object.
PIECE_MIN_BYTES = 16 << 20
#: Bytes read and decoded per piece. 1 MB, not 4: the loader walks each piece's structs
#: right after their decode (``on_piece``), and smaller pieces are still in the CPU cache
#: then (``show`` of a 105 MB session ~15% faster).
PIECE_BYTES = 1 << 20

#: Environment variable and default of the longest line sidtui decodes: a longer line is
#: one bad line, never read into memory (docs/DECISIONS.md, "Reading a hostile disk").
LINE_ENV, LINE_CEILING = "SIDTUI_MAX_LINE_BYTES", 256 << 20


def line_ceiling() -> int:
    """The longest line decoded, in bytes (``$SIDTUI_MAX_LINE_BYTES``, default 256 MiB)."""
    return ceiling(LINE_ENV, LINE_CEILING)


def nul_reason(length: int, nuls: int) -> str:
    """Why a line holding NUL bytes is bad (JSON.parse rejects a raw U+0000 anywhere)."""
    what = f"{length} NUL bytes" if nuls == length else f"{length} bytes, {nuls} of them NUL"
    return (
        f"{what}: a hole or a zero-filled block (a write that never completed); "
        "JSON.parse rejects it"
    )


def long_reason(length: int, limit: int) -> str:
    """Why a line above :func:`line_ceiling` is a bad line here (the agent may read it)."""
    return (
        f"{length} bytes, more than the {limit} sidtui decodes in one line ({LINE_ENV}); "
        "not read (the agent may still load it)"
    )


def read_long_line(
    src: FileSource, start: int, limit: int, *, keep_nuls: bool = False
) -> tuple[bytes | None, int, int, bool]:
    """A line from file offset ``start`` that does not end within a piece, read forward a
    piece at a time; holes are skipped unread (``SEEK_DATA``). Its bytes are kept only
    while it is short enough and holds no NUL byte (``keep_nuls``: NUL bytes that are
    stored are kept too, for a reader that salvages around them; a hole never is).

    Returns:
        ``(bytes or None, length, NUL count, terminated)``: the line's bytes without its
        ``\\n`` (None when it is too long or holds a NUL: a bad line, never in memory).
    """
    size = src.size
    parts: list[bytes] | None = []
    nuls = 0
    pos = start
    while pos < size:
        d = src.data_after(pos)
        if d > pos:  # a hole: NUL bytes, never a newline
            nuls += d - pos
            parts, pos = None, d
            continue
        chunk = src.read_any(pos, min(size, pos + PIECE_BYTES))
        if not chunk:  # the file got shorter: the line ends here
            break
        nl = chunk.find(b"\n")
        seg = chunk if nl < 0 else chunk[:nl]
        z = seg.count(0)
        if z:
            nuls += z
            if not keep_nuls:
                parts = None
        if parts is not None:
            parts.append(seg)
            if pos + len(seg) - start > limit:
                parts = None
        pos += len(seg)
        if nl >= 0:
            return (None if parts is None else b"".join(parts)), pos - start, nuls, True
    return (None if parts is None else b"".join(parts)), pos - start, nuls, False


def skip_reason(length: int, nuls: int, limit: int) -> str:
    return nul_reason(length, nuls) if nuls else long_reason(length, limit)


_HAS_PREAD = hasattr(os, "pread")
_ADVISE = getattr(os, "posix_fadvise", None)
_HAS_PREADV = hasattr(os, "preadv")


class FileChanged(UnreadableInput):
    """The file got shorter than when it was opened (truncated or rewritten in place)."""


class FileSource:
    """A big transcript kept open and read in pieces (peak memory ≤ 2× the file).

    :func:`scan_records` reads it :data:`PIECE_BYTES` at a time and keeps no reference to
    the bytes it decoded, so the whole file is never in memory at once; a line asked for
    later (:meth:`RecordFile.decode_at`, a message's ``meta``) is read again with
    ``pread``. The file stays open, so a file replaced by rename is still read as it was;
    one truncated in place gives :class:`FileChanged` (never a crash: a memory map would
    die of SIGBUS there).

    Attributes:
        path: the file's path; size: its size in bytes when opened (the snapshot read).
    """

    __slots__ = ("path", "_f", "size", "_lock", "changed")

    def __init__(self, path: Any, f: Any, size: int) -> None:
        self.path = path
        self._f = f
        self.size = size
        self._lock = threading.Lock()
        #: set when a read found the file shorter: what was read from it since may be wrong
        self.changed = False

    def __len__(self) -> int:
        return self.size

    def read_any(self, start: int, end: int) -> bytes:
        """Up to ``end - start`` bytes from ``start`` (fewer if the file is shorter now)."""
        if _HAS_PREAD:
            return os.pread(self._f.fileno(), end - start, start)
        with self._lock:  # seek + read is one step for other threads
            self._f.seek(start)
            return self._f.read(end - start)

    def data_after(self, pos: int) -> int:
        """The first offset ≥ ``pos`` holding data, not a hole (``size``: only a hole
        follows). Bytes of a hole read as NULs that are not stored."""
        return data_after(self._f.fileno(), pos, self.size)

    def advise(self, start: int, length: int) -> None:
        """Ask the kernel to start reading ``length`` bytes from ``start`` now
        (``posix_fadvise(WILLNEED)``; asynchronous, a no-op where unsupported)."""
        if _ADVISE is not None:
            try:
                _ADVISE(self._f.fileno(), start, length, os.POSIX_FADV_WILLNEED)
            except (OSError, ValueError):
                pass

    def read_into(self, view: memoryview, start: int) -> None:
        """Fill ``view`` with the file's bytes from ``start`` (a reused buffer).

        Raises:
            FileChanged: the file is shorter now.
        """
        try:
            if _HAS_PREADV:
                got = os.preadv(self._f.fileno(), [view], start)
            else:  # no preadv on this platform (macOS before 11, Windows)
                data = self.read_any(start, start + len(view))
                view[: len(data)] = data
                got = len(data)
        except (OSError, ValueError) as exc:
            self.changed = True
            raise FileChanged(f"{self.path} cannot be read again: {exc}") from None
        if got != len(view):
            self.changed = True
            raise FileChanged(
                f"{self.path} changed while sidtui read it (it is shorter now): read it again"
            )

    def read(self, start: int, end: int) -> bytes:
        """Bytes ``[start, end)`` of the file as it was opened.

        Raises:
            FileChanged: the file is shorter now.
        """
        want = end - start
        try:
            b = self.read_any(start, end)
        except (OSError, ValueError) as exc:
            self.changed = True
            raise FileChanged(f"{self.path} cannot be read again: {exc}") from None
        if len(b) != want:
            self.changed = True
            raise FileChanged(
                f"{self.path} changed while sidtui read it (it is shorter now): read it again"
            )
        return b


def read_transcript(path: Any, whole_max: int | None = None) -> bytes | FileSource:
    """A transcript for :func:`scan_records`: its bytes, or a :class:`FileSource` when big.

    Files of ``whole_max`` (default :data:`PIECE_MIN_BYTES`) bytes or more, and sparse files (a hole reads as NUL bytes that
    are not stored: its apparent size is never allocated), are kept open and read in
    pieces, so the whole file is never held in memory next to what is decoded from it.
    Only a regular file is read (a FIFO or a device is refused without blocking).

    Raises:
        NotRegularFile: it is a FIFO, a device, a socket or a folder.
        OSError: the file cannot be opened or read.
    """
    fd, st = open_regular(path)
    return transcript_from_fd(path, fd, st, whole_max)


def transcript_from_fd(
    path: Any, fd: int, st: os.stat_result, whole_max: int | None = None
) -> bytes | FileSource:
    """:func:`read_transcript` of a file already opened as ``fd`` (``st`` its ``fstat``);
    the fd is owned from here on (closed, or kept by the :class:`FileSource`)."""
    f = os.fdopen(fd, "rb", buffering=0)
    try:
        limit = PIECE_MIN_BYTES if whole_max is None else whole_max
        if st.st_size < limit and not has_holes(fd, st.st_size):
            data = f.readall()
            f.close()
            return data
    except BaseException:
        f.close()
        raise
    return FileSource(path, f, st.st_size)


# --------------------------------------------------------------------------- the agent's reader

#: The agent reads a file of more than this many bytes with its streaming line reader and
#: a smaller one whole (found with the agent's loader: a file of 4,194,304 bytes is read
#: whole, one of 4,194,305 streamed). See docs/DECISIONS.md, "Reading files exactly as
#: the agent: differential tests".
STREAM_ABOVE = 4 << 20

#: Where the agent's streaming reader ends a line besides ``\n`` (and ``\r\n``).
STREAM_BREAK = re.compile(rb"\r|\xe2\x80[\xa8\xa9]")
_SEPARATORS = re.compile(rb"\xe2\x80[\xa8\xa9]")
#: ``String.prototype.trim()``'s whitespace as UTF-8 byte sequences.
_JS_WS_SEQS = frozenset(c.encode() for c in JS_WHITESPACE)
_JS_WS_RUN = re.compile(
    b"(?:" + b"|".join(re.escape(c.encode()) for c in sorted(JS_WHITESPACE)) + b")*"
)
_JSON_WS = frozenset(b" \t\r\n")
_ASCII_JS_WS = frozenset(b" \t\n\r\x0b\x0c")
#: every byte but ``\n`` to a space: neutral whitespace that keeps offsets and lines
_TO_SPACE = bytes(10 if i == 10 else 32 for i in range(256))


def streaming_breaks(buf: Any, a: int = 0, b: int | None = None, whole: bool = False) -> bool:
    """The agent's streaming reader ends a line inside ``buf[a:b]`` where a split at
    ``\\n`` does not: at a lone ``\\r`` or a U+2028/U+2029 (``JSON.stringify`` writes both
    separators raw, so any text may hold them). One ``memchr`` each in the usual file.

    ``whole``: every byte of ``buf`` outside ``[a, b)`` may be checked too (NUL bytes or
    the same file's next bytes), which lets a CRLF piece be settled in three C passes.
    """
    if b is None:
        b = len(buf)
    i = buf.find(b"\xe2", a, b)
    if i >= 0 and _SEPARATORS.search(buf, i, b) is not None:
        return True
    i = buf.find(b"\r", a, b)
    if i >= 0 and whole and _crlf_only(buf):
        return False
    # else one memchr per \r (~0.5 µs a line in a CRLF file; counting \r and \r\n
    # instead scans byte by byte, ~7 ms a MB)
    n = len(buf)
    while i >= 0:
        if i + 1 >= n or buf[i + 1] != 10:
            return True
        i = buf.find(b"\r", i + 2, b)
    return False


def _crlf_only(buf: Any) -> bool:
    """Every ``\\r`` of ``buf`` is followed by ``\\n`` and every ``\\n`` follows a ``\\r``
    (a CRLF file): ``buf`` is its CR-free form with each ``\\n`` made ``\\r\\n``. Three
    ``memchr`` passes, ~0.3 ms a MiB, where a Python step per line costs ~0.8 ms."""
    return buf.replace(b"\r", b"").replace(b"\n", b"\r\n") == buf


def _trim_span(data: bytes) -> tuple[int, int]:
    """``(a, b)``: ``data[:a]`` and ``data[b:]`` are what ``text.trim()`` removes."""
    a = _JS_WS_RUN.match(data).end()  # type: ignore[union-attr]
    j = len(data)
    while j > a:
        c = data[j - 1]
        if c < 0x80:
            if c not in _ASCII_JS_WS:
                break
            j -= 1
            continue
        k = j - 1
        while k > a and 0x80 <= data[k] < 0xC0 and j - k < 4:
            k -= 1
        if data[k:j] not in _JS_WS_SEQS:
            break
        j = k
    return a, j


def trim_whole_file(data: bytes) -> bytes:
    """``data`` as the agent reads a file it reads whole: it trims the text
    (``String.prototype.trim``) before splitting it into lines, so a byte-order mark or
    other JavaScript whitespace before the first record or after the last is in no line.

    Returns ``data`` itself when the trim changes no line (the usual file); else a copy
    with the trimmed bytes made spaces (``\\n`` kept), so offsets and line numbers stay.
    """
    return trim_and_span(data)[0]


def trim_and_span(data: bytes) -> tuple[bytes, tuple[int, int] | None]:
    """:func:`trim_whole_file` and, when it changed a line, the byte spans ``(a, b)``
    kept: ``data[:a]`` and ``data[b:]`` were trimmed."""
    if not data:
        return data, None
    if data[0] not in _ASCII_JS_WS and data[0] < 0x80 and data[-1] in (10, 125):
        if data[-1] == 125 or len(data) < 2 or (data[-2] not in _ASCII_JS_WS and data[-2] < 0x80):
            return data, None  # "{…}\n": nothing to trim but the newline
    a, b = _trim_span(data)
    if _JSON_WS.issuperset(data[:a]) and _JSON_WS.issuperset(data[b:]):
        return data, None  # only what JSON.parse skips anyway
    # one copy (slicing first would be two: a fresh 4 MB buffer costs ~5 ms of page faults)
    with memoryview(data) as mv:
        out = b"".join((data[:a].translate(_TO_SPACE), mv[a:b], data[b:].translate(_TO_SPACE)))
    return out, (a, b)


def head_trim(data: bytes) -> tuple[int, int] | None:
    """The trim's spans ``(a, b)`` (:func:`trim_and_span`) when all it changes is the head
    of line 1 — a byte-order mark or other JavaScript whitespace glued to the first record,
    ``data[:a]`` without a ``\n``, and nothing after the last record but what JSON.parse
    skips — else None. Line 1's record then begins at ``a``, and the file needs no copy
    (a fresh 4 MB buffer costs ~1,000 page faults)."""
    if not data or (data[0] < 0x80 and data[0] not in _ASCII_JS_WS):
        return None
    a, b = _trim_span(data)
    if not a or a >= b or 10 in data[:a] or not _JSON_WS.issuperset(data[b:]):
        return None
    if _JSON_WS.issuperset(data[:a]):
        return None  # only what JSON.parse skips anyway: no trim changes a line
    return a, b


def source_edges(src: FileSource) -> bytes:
    """A file read in pieces, as far as its whole-file trim can see: its first and last
    4 KiB joined by a ``\n`` (the trim never crosses a line's content)."""
    return src.read(0, min(4096, src.size)) + b"\n" + src.read(max(0, src.size - 4096), src.size)


def source_head_trim(src: FileSource, edges: bytes | None = None) -> tuple[int, int] | None:
    """:func:`head_trim` of a file read in pieces, in file offsets: ``(a, b)`` when the
    agent's trim takes only a head glued to line 1 (line 1's record begins at ``a``), else
    None. ``edges``: :func:`source_edges` when already read."""
    if edges is None:
        edges = source_edges(src)
    span = head_trim(edges)
    if span is None:
        return None
    a, b = span
    return a, src.size - (len(edges) - b)


class TrimmedSource(FileSource):
    """A file read in pieces as the agent's whole-file trim leaves it: its bytes before
    ``a`` and from ``b`` on read as spaces (``\n`` kept), as :func:`trim_whole_file`
    makes them in a file in memory — so lines, offsets and records are the same on both
    paths. Shares the file (and its reads) with the source it was made from."""

    __slots__ = ("a", "b")

    def __init__(self, src: FileSource, a: int, b: int) -> None:
        super().__init__(src.path, src._f, src.size)
        self.a, self.b = a, b

    def _trim(self, view: Any, start: int) -> None:
        n = len(view)
        if start < self.a:
            k = min(n, self.a - start)
            view[:k] = bytes(view[:k]).translate(_TO_SPACE)
        if start + n > self.b:
            k = max(0, self.b - start)
            view[k:] = bytes(view[k:]).translate(_TO_SPACE)

    def read_any(self, start: int, end: int) -> bytes:
        got = super().read_any(start, end)
        if start < self.a or start + len(got) > self.b:
            buf = bytearray(got)
            self._trim(buf, start)
            return bytes(buf)
        return got

    def read_into(self, view: memoryview, start: int) -> None:
        super().read_into(view, start)
        self._trim(view, start)


def agent_whole_view(src: FileSource) -> tuple[FileSource, tuple[int, int] | None, int]:
    """A file read in pieces as the agent reads a file whole (its trim, from the file's
    edges): ``(source to read, trimmed span or None, head)``. A trim of only a head glued
    to line 1 is a ``head`` (line 1's record begins there, :func:`source_head_trim`); any
    other is a :class:`TrimmedSource`. A trim reaching past the first or last 4 KiB is not
    seen (4 KiB of leading whitespace)."""
    edges = source_edges(src)
    if trim_whole_file(edges) is edges:
        return src, None, 0
    span = source_head_trim(src, edges)
    if span is not None:
        return src, span, span[0]
    got = trim_and_span(edges)[1]
    edge = min(4096, src.size)
    if got is None or got[0] >= edge or len(edges) - got[1] >= edge:
        return src, None, 0
    a, b = got[0], src.size - (len(edges) - got[1])
    return TrimmedSource(src, a, b), (a, b), 0


def trim_note(data: bytes | FileSource, trimmed: tuple[int, int]) -> str:
    """What the agent's whole-file trim took away, in words (``data``: the file's bytes
    as read, before :func:`trim_whole_file`, or the file read in pieces)."""
    a, b = trimmed
    if isinstance(data, FileSource):
        head, tail = data.read_any(0, a), data.read_any(b, data.size)
    else:
        head, tail = data[:a], data[b:]
    parts = []
    for where, seg in (("before the first record", head), ("after the last", tail)):
        if not _JSON_WS.issuperset(seg):
            what = (
                "a byte-order mark"
                if b"\xef\xbb\xbf" in seg
                else "whitespace JSON does not allow (no-break space, form feed, separator…)"
            )
            parts.append(f"{what} {where}")
    return " and ".join(parts)


def agent_reads_as_lines(data: bytes) -> bool:
    """The agent reads the file whose bytes are ``data`` as exactly its ``\\n``-split lines
    (no trim that changes a line, no streaming-reader line end inside one)."""
    if len(data) > STREAM_ABOVE:
        return not streaming_breaks(data)
    return trim_whole_file(data) is data

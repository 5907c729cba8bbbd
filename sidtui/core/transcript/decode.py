"""The fast decode of whole lines: one typed value per line, in one msgspec call (FORMAT.md §2).

:func:`decode_lines_exact` and :func:`decode_piece_array` decode a run of lines only when
every line is exactly one value (a line cut in two is never read as one record); :func:`decode_run` also takes a torn last line
(:func:`torn_tail`); anything else is None, for the per-line scan to decide.
:class:`ChainDigest` follows the whole-linear-chain test over the decoded structs while they
are in cache; :func:`count_lines` and :func:`line_longer` answer without decoding.
"""

from __future__ import annotations

from typing import Any

import msgspec

from sidtui.core.base.jsonparse import (
    JSONParseError,
    is_blank,
    parse_line,
)
from sidtui.core.transcript.source import (
    nul_reason,
)
from sidtui.core.transcript.structs import (
    FAST_DECODE_ERRORS,
    ITEM_DECODER_OF,
    LIST_DECODER_OF,
    SHARED_NAMES,
    SHARED_NAMES_MAX,
)

_SHARED, _SHARED_MAX = SHARED_NAMES, SHARED_NAMES_MAX  # with the blocks' types


def _share_names(part: list) -> None:
    """Each record's ``type`` and message ``role`` replaced by the one shared copy."""
    shared = _SHARED
    get = shared.get
    for o in part:
        t = o.type
        if t is not None:
            c = get(t)
            if c is None and len(shared) < _SHARED_MAX:
                c = shared.setdefault(t, t)
            if c is not None:
                o.type = c
        m = o.message
        if m is not None:
            r = m.role
            if r is not None:
                c = get(r)
                if c is None and len(shared) < _SHARED_MAX:
                    c = shared.setdefault(r, r)
                if c is not None:
                    m.role = c


class ChainDigest:
    """What one pass over freshly decoded records learns and tidies, in the same pass.

    Run per chunk while its records are hot in cache: follows the whole-linear-chain test
    (every parent is the previous record's uuid, the first has none, no uuid repeats —
    then the agent's walk takes every line), makes each parent uuid the very string of its
    parent record's uuid, and (``full``: a full scan of a big file) shares one copy of each
    record type and role. The strings this frees are reused by the next chunk's, which
    lowers the scan's peak memory by about a fifth of the file's size on a linear session.
    """

    __slots__ = ("prev", "whole", "seen", "count")

    def __init__(self) -> None:
        self.prev: str | None = None
        self.whole = True
        self.seen: set[str] = set()
        self.count = 0

    def feed(self, part: list, full: bool) -> None:
        if full:  # a full scan of a big file: one copy of each record type and role
            _share_names(part)
        self._feed_chain(part)

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


def decode_lines_exact(
    buf: Any, cut: int, list_decoder: msgspec.json.Decoder, start: int = 0
) -> list | None:
    """The lines ``buf[start:cut]`` (``start`` a line start, or where line 1's record
    begins after what the agent's whole-file trim drops) decoded, exactly one value per
    line.

    ``decode_lines`` reads whitespace-separated values, so it takes ``{a}{b}`` as two
    records and skips blank lines — and the two can cancel out in a line count. Here the
    lines are decoded as one JSON array, each ``\n`` made ``,\n``: a
    blank line or two values on a line leaves an invalid array, and so does a value over
    two lines — a line cut inside a string keeps its raw newline there, which JSON
    rejects; one cut inside a number in an array (``[12`` + ``34]`` reads ``[12,34]``)
    leaves fewer values than lines. ``list_decoder`` decodes a ``list[T]`` of the record
    struct.

    Returns:
        The structs, or None when a line is not exactly one value the typed decoder takes.
    """
    dl = list_decoder
    one = ITEM_DECODER_OF.get(id(dl))
    out: list = []
    a = start
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
            if b - a > _EXACT_RUN and one is not None and buf.find(b"\n", a, end) < 0:
                # one long line: decoded where it lies (the array would copy it twice);
                # exactly one value, as msgspec refuses trailing characters
                try:
                    out.append(one.decode(mv[a:end]))
                except FAST_DECODE_ERRORS:
                    return None
                a = b
                continue
            run = b"".join((b"[", mv[a:end], b"]"))
            arr = run.replace(b"\n", b",\n")
            try:
                got = dl.decode(arr)
            except FAST_DECODE_ERRORS:
                return None
            if len(got) != len(arr) - len(run) + 1:
                return None  # a line of only whitespace ("[ ]"), a value over two lines
            out += got
            a = b
    return out


def decode_piece_array(buf: bytearray, cut: int, list_decoder: msgspec.json.Decoder) -> list | None:
    """The lines ``buf[1 : cut + 1]`` (whole lines, ``buf[0]`` a spare byte) decoded exactly
    one value per line, as :func:`decode_lines_exact` does, with one copy: every ``\n``
    of ``buf`` becomes ``,\n``, the spare byte ``[`` and the last line's ``,`` ``]``
    (the copy's growth counts the lines: no pass of its own, ~0.03 ms a MB).
    None when a line is not exactly one value (or the piece does not end with ``\n``)."""
    if cut < 2 or buf[cut] != 10 or cut > _EXACT_RUN:
        return None
    arr = buf.replace(b"\n", b",\n")
    # the piece's lines: the newlines before and at the cut (after it: the next line's
    # head, or an old piece's bytes at the file's end)
    lines = len(arr) - len(buf) - buf.count(b"\n", cut + 1)
    end = cut + lines - 1  # where the cut's "\n" became ","
    arr[0] = 91
    arr[end] = 93
    del arr[end + 1 :]
    try:
        got = list_decoder.decode(arr)
    except FAST_DECODE_ERRORS:
        return None
    return got if len(got) == lines else None


def decode_run(
    buf: Any, cut: int, decoder: msgspec.json.Decoder, last: bool, base: int, start: int = 0
) -> tuple[list, int, tuple[int, int, str, bool] | None] | None:
    """The whole lines ``buf[start:cut]`` (``buf[0]`` at file offset ``base``; ``start``
    as in :func:`decode_lines_exact`) decoded, one record per line: ``(structs, bytes
    they span, torn last line or None)``, the torn line as ``(file offset, length, why,
    terminated)`` (only when ``last``: the run ends the file; see
    :func:`~sidtui.core.transcript.decode.torn_tail`). None when a line needs the tolerant
    scan (a typed decode refused it, a blank line, two records on a line, or a bad line
    before the last)."""
    part = decode_lines_exact(buf, cut, LIST_DECODER_OF[id(decoder)], start)
    if part is not None:
        return part, cut, None
    torn = torn_tail(buf, cut, decoder, start) if last else None
    if torn is None:
        return None
    part, start, length, why, terminated = torn
    return part, start, (base + start, length, why, terminated)


def torn_tail(
    buf: Any, cut: int, decoder: msgspec.json.Decoder, head: int = 0
) -> tuple[list, int, int, str, bool] | None:
    """``buf[:cut]`` (whole lines, from a line start) whose lines all decode but the last,
    which JSON.parse rejects — a write torn by a crash, the usual corrupt line — read
    without the per-line tolerant scan: ``(structs, last line start, its length, why,
    terminated)``. None when that is not the case (a blank line, a bad line before the
    last, a last line that is valid JSON the typed decode refused): the tolerant scan
    decides then. ``head``: where line 1's record begins (:func:`decode_lines_exact`)."""
    end = cut - 1 if cut and buf[cut - 1] == 10 else cut
    start = max(buf.rfind(b"\n", 0, end) + 1, head)
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
    if start > head:
        part = decode_lines_exact(buf, start, LIST_DECODER_OF[id(decoder)], head)
        if part is None:
            return None
    else:
        part = []
    return part, start, end - start, reason, end < cut


def line_longer(data: bytes, limit: int) -> bool:
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

"""Scanning a transcript into its :class:`~sidtui.core.transcript.records.RecordFile` (FORMAT.md §2).

:func:`scan_records` walks the bytes once, keeping for every line only what the chain needs
(``type``, ``uuid``, ``parentUuid``; full records unless ``chain_only``) in typed msgspec
structs that skip every other field: one decode per buffer or per piece of a big file
(``transcript.decode``), handed to the loader while still in cache (:class:`PieceHook`). A
line the fast decode refuses sends the file through the per-line scan (``transcript.tolerant``),
which decides each line with JSON.parse's rules. Nothing here raises on file content.
"""

from __future__ import annotations

from typing import Any, Protocol

import msgspec

from sidtui.core.transcript import source as piece_limits  # read at call time (tests shrink them)
from sidtui.core.transcript.decode import ChainDigest, decode_piece_array, decode_run, line_longer
from sidtui.core.transcript.records import RecordFile
from sidtui.core.transcript.source import (
    STREAM_ABOVE,
    FileSource,
    agent_whole_view,
    head_trim,
    line_ceiling,
    read_long_line,
    skip_reason,
    source_edges,
    streaming_breaks,
    trim_and_span,
    trim_whole_file,
)
from sidtui.core.transcript.structs import (
    HEAD_DECODER,
    LIST_DECODER_OF,
    RECORD_DECODER,
    BadLine,
)
from sidtui.core.transcript.tolerant import scan_tolerant, scan_tolerant_source


class PieceHook(Protocol):
    """What :func:`scan_records` hands each run of freshly decoded records to
    (:class:`sidtui.core.transcript.loader.LinearLoad`)."""

    def __call__(self, rf: RecordFile, structs: list, first: int) -> None:
        """Records ``first .. first + len(structs) - 1``, in file order."""

    def abandon(self) -> None:
        """The scan feeds no more: the file is not one linear chain, or a line sent it to
        the tolerant path. Drop what was built (it would double the peak memory)."""


def _failed(partial: list | None, objs: list, pieces: list) -> None:
    """:func:`_decode_pieces` gives up: what it decoded so far goes to ``partial``."""
    if partial is not None:
        partial[:] = [objs, pieces]


def _decode_pieces(
    src: FileSource,
    decoder: msgspec.json.Decoder,
    digest: ChainDigest,
    rf: RecordFile,
    on_piece: PieceHook | None,
    streaming: bool = False,
    full: bool = True,
    partial: list | None = None,
    head: int = 0,
) -> tuple[list, list, tuple[int, int, str, bool] | None] | None:
    """Read and decode a file :data:`PIECE_BYTES` at a time from ``head`` (where line 1's
    record begins: :attr:`RecordFile.head`), each piece cut after its last newline (a
    line longer than a piece is read whole).

    One buffer is reused (a fresh object per piece costs its page faults every time). The
    kernel is asked to read the next piece ahead while this one is decoded
    (``posix_fadvise(WILLNEED)``): a reader thread did the same, but waking it took the GIL
    from the decode every piece (``open_session`` of the 105 MB bench session: median
    512 → 415 ms without it, 5 interleaved rounds).

    Each run of structs goes to ``on_piece`` (see :func:`scan_records`) while the file
    still reads as one chain; it is abandoned at the first sign it does not.

    Returns ``(objs, pieces, torn last line or None)`` (see :func:`~sidtui.core.transcript.decode.torn_tail`), or None
    when a line needs the tolerant path (a typed decode refused it, a bad line before the
    last, blank lines are present, or — ``streaming`` — the agent's streaming reader ends
    a line inside one: :func:`streaming_breaks`); then ``partial`` (a list) holds
    ``[structs, pieces]`` decoded before that piece (for :func:`scan_tolerant_source`).

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
    # array with a single copy (:func:`decode_piece_array`)
    buf = bytearray(length + 1)
    list_decoder = LIST_DECODER_OF[id(decoder)]
    tail: tuple[int, int, str, bool] | None = None  # a torn last line: offset, length, why, \n
    with memoryview(buf) as whole:
        a = head
        while a < size:
            n = min(length, size - a)
            src.read_into(whole[1 : n + 1], a)
            # the piece ends after its last \n (buf[k] is file byte a + k - 1)
            cut = n if a + n == size else max(0, buf.rfind(b"\n", 1, n + 1))
            if cut == 0:  # one line longer than a piece: read it whole, if it may be
                line, span, nuls, term = read_long_line(src, a, limit)
                if line is None:  # too long, or NUL bytes: one bad line, never in memory
                    if a + span + term < size:
                        return _failed(partial, objs, pieces)  # a bad line before the last
                    tail = (a, span, skip_reason(span, nuls, limit), term)
                    break
                piece: bytes | bytearray | None = line + b"\n" if term else line
                line = None  # one copy of a long line while it is decoded, not two
                cut = len(piece)
            else:
                piece = None  # buf[1 : cut + 1]
            nxt = a + cut
            if nxt < size:
                src.advise(nxt, length)
            if piece is None:
                # (a full piece: what follows the cut is the same file's next line)
                if streaming and streaming_breaks(buf, 1, cut + 1, whole=n == length):
                    return _failed(partial, objs, pieces)
                part = decode_piece_array(buf, cut, list_decoder)
                # the line starts are found only when asked (RecordFile.line_starts)
                run = (
                    (part, cut, None)
                    if part is not None
                    else decode_run(bytes(whole[1 : cut + 1]), cut, decoder, nxt == size, a)
                )
            else:
                if streaming and streaming_breaks(piece, 0, cut):
                    return _failed(partial, objs, pieces)
                run = decode_run(piece, cut, decoder, nxt == size, a)
            if run is None:
                return _failed(partial, objs, pieces)
            part, cut, torn = run
            tail = torn or tail
            digest.feed(part, full)
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


def _trimmed_whole(
    source: FileSource | None, data: Any
) -> tuple[FileSource | None, Any, tuple[int, int] | None, int]:
    """A file the agent reads whole, as it reads it: ``(source, data, trimmed, head)``
    (see :attr:`RecordFile.trimmed` and :attr:`RecordFile.head`). A small file given in
    pieces whose edges the trim changes is read whole first."""
    if source is not None:
        if source.size <= piece_limits.PIECE_MIN_BYTES:
            # (a small sparse file; pieces of a small file in tests)
            edges = source_edges(source)
            if trim_whole_file(edges) is not edges:
                source, data = None, source.read(0, source.size)
        else:  # a big sidechain: never whole in memory, read through the trim
            view, trimmed, head = agent_whole_view(source)
            return view, data, trimmed, head
    if source is not None:
        return source, data, None, 0
    span = head_trim(data)  # the usual trim (a BOM): decoded in place, no copy
    if span is not None:
        return None, data, span, span[0]
    data, trimmed = trim_and_span(data)
    return None, data, trimmed, 0


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
            at U+2028/U+2029 (its streaming reader; :func:`scan_tolerant`).
        streamed: whether the agent reads the file with its streaming reader (default:
            when it is bigger than :data:`STREAM_ABOVE`; its sidechain readers never do).

    Returns:
        A :class:`RecordFile`; never raises on content. A final line without ``\\n`` is
        treated exactly like the agent treats it: parsed if it is valid JSON, else bad.
    """
    decoder = HEAD_DECODER if chain_only else RECORD_DECODER
    digest = ChainDigest()
    source = data if isinstance(data, FileSource) else None
    trimmed: tuple[int, int] | None = None
    head = 0  # where line 1's record begins: after a trimmed head left in place (head_trim)
    if whole_file is None:
        whole_file = base_offset == 0 and start_line == 0
    # the agent's reader depends on the file's size (STREAM_ABOVE)
    if streamed is None:
        streamed = (source.size if source is not None else len(data)) > STREAM_ABOVE
    streaming = whole_file and streamed
    if whole_file and not streaming:
        source, data, trimmed, head = _trimmed_whole(source, data)
    elif streaming and source is None and streaming_breaks(data):
        return scan_tolerant(data, start_line, base_offset, True)
    rf = RecordFile(
        data=b"" if source is not None else data, base_offset=base_offset, source=source
    )
    rf.head = head
    rf.begin_fast(not chain_only)
    rf.start_line = start_line
    if chain_only:
        on_piece = None  # a chain-only scan has no messages to load ahead
    limit = line_ceiling()
    partial: list = []
    if source is not None:
        # a ceiling below a piece is checked line by line (only when set that low)
        got = (
            None
            if limit < piece_limits.PIECE_BYTES
            else _decode_pieces(
                source, decoder, digest, rf, on_piece, streaming, not chain_only, partial, head
            )
        )
    elif len(data) > limit and line_longer(data, limit):
        got = None  # a line above the ceiling: the per-line scan reports it, undecoded
    else:
        run = decode_run(data, len(data), decoder, True, base_offset, head)
        got = None if run is None else (run[0], None, run[2])
        if got is not None:
            # sharing the type and role strings saves a big file's memory; below a piece
            # file's size it only costs (~8 % of show's instructions on a 4 MB file)
            digest.feed(got[0], not chain_only and len(data) >= piece_limits.PIECE_MIN_BYTES)
            if on_piece is not None and digest.whole:
                on_piece(rf, got[0], 0)  # (not whole: never fed, nothing to abandon)
    if got is None or (got[2] is not None and not got[0]):
        # an odd line somewhere, or nothing but a torn line: the exact per-line path
        if on_piece is not None:
            on_piece.abandon()
        if source is not None:  # never whole in memory; pieces decoded before are kept
            prefix = (partial[0], partial[1]) if partial and not chain_only else None
            # (line 1 begins after the trimmed head here too: a blank line anywhere must
            # not undo the trim)
            rf = scan_tolerant_source(source, start_line, streaming, prefix, head)
            rf.trimmed = trimmed
            return rf
        rf = scan_tolerant(data, start_line, base_offset, streaming, head)
        rf.trimmed = trimmed
        return rf
    objs, pieces, tail = got
    rf.trimmed = trimmed
    rf.set_heads(objs, digest.is_whole, pieces if source is not None else None)
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

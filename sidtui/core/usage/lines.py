"""The lines of a transcript that can hold usage, found without reading the rest.

A transcript is mostly prompts, tool results and file contents; a usage reader wants the
few lines that name ``"usage"``. :func:`lines_with` maps the file and jumps from one
occurrence of the needle to the next (a C search), handing out each such line once with
its byte offset. Bounded: the map is the kernel's page cache; a line longer than the
transcript line ceiling (``SIDTUI_MAX_LINE_BYTES``) is reported, not decoded.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from sidtui.core.base.jsonparse import JSONParseError, parse_line_slow
from sidtui.core.base.regular import open_regular
from sidtui.core.transcript.source import line_ceiling

#: A field a line leaves out (``msgspec.UNSET``), for the readers' structs.
UNSET: Any = msgspec.UNSET
_ERRORS = (msgspec.DecodeError, msgspec.ValidationError)


def decode_line(
    decode: Callable[[bytes], Any], raw: bytes, struct: type | None = None
) -> Any | None:
    """One line as a reader's struct: ``decode(raw)``; else what JSON.parse reads and
    msgspec does not (a lone surrogate escape), by the slow parser: a JSON object as a
    dict, or converted to ``struct`` when given; None when the line is no JSON object (or
    does not convert).
    """
    try:
        return decode(raw)
    except _ERRORS:
        pass
    try:
        obj = parse_line_slow(raw)
        if not isinstance(obj, dict):
            return None
        return msgspec.convert(obj, struct) if struct is not None else obj
    except (JSONParseError, ValueError, RecursionError, *_ERRORS):
        return None


def lines_with(
    path: str | os.PathLike[str], needle: bytes, errors: list[str] | None = None
) -> Iterator[tuple[int, bytes]]:
    """``(offset, line)`` of every line of ``path`` (the last one too, complete or not)
    that contains ``needle``, in file order; ``offset`` is where the line starts.

    Raises:
        OSError, NotRegularFile: the file cannot be opened (see ``open_regular``).
    """
    fd, st = open_regular(path)
    try:
        if st.st_size == 0:
            return
        try:
            mm = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):  # a file that cannot be mapped: read it
            mm = None
        data: bytes | mmap.mmap = mm if mm is not None else os.pread(fd, st.st_size, 0)
    finally:
        os.close(fd)
    limit = line_ceiling()
    try:
        yield from _scan(data, needle, limit, path, errors)
    finally:
        if mm is not None:
            mm.close()


def _scan(
    data: bytes | mmap.mmap,
    needle: bytes,
    limit: int,
    path: str | os.PathLike[str],
    errors: list[str] | None,
) -> Iterator[tuple[int, bytes]]:
    size = len(data)
    find, rfind = data.find, data.rfind
    pos = 0  # search from here
    while True:
        hit = find(needle, pos)
        if hit < 0:
            return
        start = rfind(b"\n", 0, hit) + 1
        end = find(b"\n", hit)
        if end < 0:
            end = size
        if end - start > limit:
            if errors is not None:
                errors.append(
                    f"{path}: the line at byte {start:,} is {end - start:,} bytes, more than the "
                    f"{limit:,} sidtui decodes; its usage is not counted"
                )
        else:
            yield start, data[start:end]
        pos = end + 1
        if pos >= size:
            return

"""Where a writer's text goes: pieces gathered and written out as UTF-8 in chunks.

A writer calls :meth:`Sink.write` with small strings; they are joined and encoded once
about :data:`CHUNK` characters have gathered (one system write per chunk, never the whole
output in memory). Text a transcript holds that UTF-8 cannot encode (a lone surrogate from
a JSON escape) is written as U+FFFD.
"""

from __future__ import annotations

from typing import BinaryIO

#: Characters gathered before they are encoded and written.
CHUNK = 1 << 20


class Sink:
    """Buffered UTF-8 output to a binary stream (see the module docstring)."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._parts: list[str] = []
        self._size = 0

    def write(self, s: str) -> None:
        self._parts.append(s)
        self._size += len(s)
        if self._size >= CHUNK:
            self.flush()

    def maybe_flush(self) -> None:
        """Flush when a chunk has gathered (between messages)."""
        if self._size >= CHUNK:
            self.flush()

    def flush(self) -> None:
        if not self._parts:
            return
        text = "".join(self._parts)
        self._parts.clear()
        self._size = 0
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            data = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace").encode()
        self._out.write(data)

    def close(self) -> None:
        self.flush()
        self._out.flush()

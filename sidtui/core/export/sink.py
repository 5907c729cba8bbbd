"""Where a writer's text goes: pieces gathered and written out as UTF-8 in chunks.

A writer calls :meth:`Sink.write` (a list's ``append``: the hot path does nothing else)
with small strings, and :meth:`Sink.maybe_flush` between messages; once :data:`PIECES`
strings or :data:`MESSAGES` messages have gathered they are joined, encoded and written
(one system write per chunk, never the whole output in memory: a chunk holds at most that
many messages, whatever their size). Text a transcript holds that UTF-8 cannot encode (a lone surrogate from
a JSON escape) is written as U+FFFD.
"""

from __future__ import annotations

from typing import BinaryIO

#: Strings gathered before they are encoded and written (between messages).
PIECES = 8192
#: Messages gathered before they are written, whatever their pieces.
MESSAGES = 64


class Sink:
    """Buffered UTF-8 output to a binary stream (see the module docstring)."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._parts: list[str] = []
        self.write = self._parts.append
        self._messages = 0

    def maybe_flush(self) -> None:
        """Flush when a chunk has gathered (call it after each message)."""
        self._messages += 1
        if self._messages >= MESSAGES or len(self._parts) >= PIECES:
            self.flush()

    def flush(self) -> None:
        if not self._parts:
            return
        text = "".join(self._parts)
        self._parts.clear()
        self._messages = 0
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            data = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace").encode()
        self._out.write(data)

    def close(self) -> None:
        self.flush()
        self._out.flush()

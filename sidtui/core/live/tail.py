"""Incremental tail of one transcript file (FORMAT.md §8, §4.3).

:class:`FileTail` reads only what was appended since the last poll, holds a partial last
line until it completes (or settles), extends the chain in place, and detects truncation,
replacement and branching; its records and chain always equal a full read.

Design notes: docs/ARCHITECTURE.md, “core/live/tail.py”.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from sidtui.core.base.jsonparse import JSONParseError, parse_line_slow
from sidtui.core.base.regular import open_regular
from sidtui.core.live.events import LiveRecord
from sidtui.core.transcript.chain import ChainResult, extend_chain, rebuild_chain
from sidtui.core.transcript.records import RecordFile
from sidtui.core.transcript.scan import scan_records
from sidtui.core.transcript.structs import BadLine

#: Seconds a final line without ``\n`` must stay unchanged before it is decided.
SETTLE_S = 5.0


@dataclass
class TailUpdate:
    """What one :meth:`FileTail.poll` found.

    Attributes:
        records: the new complete records (decoded), in file order.
        bad_lines: new lines JSON.parse rejects (a partial line only once decided).
        reset: why the file was re-read from the start (``"truncated"``, ``"replaced"``,
            ``"removed"``, ``"rewritten"``), else None.
        branched: ``(old_tip_uuid, new_tip_uuid)`` when the live tip moved off the
            previous chain, else None.
        rewind: the new tip is a ``rewind`` metadata marker.
        rebuilt: the chain was rebuilt in full (not extended).
        pending: bytes of a held partial line.
    """

    records: list[LiveRecord] = field(default_factory=list)
    bad_lines: list[BadLine] = field(default_factory=list)
    reset: str | None = None
    branched: tuple[str | None, str | None] | None = None
    rewind: bool = False
    rebuilt: bool = False
    pending: int = 0

    @property
    def empty(self) -> bool:
        return not (self.records or self.bad_lines or self.reset or self.branched)


def _decode(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        try:
            return parse_line_slow(raw)
        except JSONParseError:  # pragma: no cover - scan_records already accepted it
            return None


def _pread_all(fd: int, length: int, offset: int) -> bytes:
    parts: list[bytes] = []
    while length > 0:
        chunk = os.pread(fd, min(length, 1 << 26), offset)
        if not chunk:
            break
        parts.append(chunk)
        length -= len(chunk)
        offset += len(chunk)
    return b"".join(parts)


class FileTail:
    """Follow one transcript as it grows.

    Args:
        path: the file.
        start_at: records ending before this byte offset are the baseline: indexed (for
            the chain) but not reported. ``0`` reports everything; the file's size when
            the watcher started reports only what is written afterwards.
        settle_s: seconds an unchanged final partial line waits before it is decided.
        clock: monotonic clock in seconds (injected by tests).
        chain: follow the sid-code loader's chain (its ``branched``/``rewind`` updates);
            False for a transcript whose agent resumes by other rules (Claude Code's leaf:
            docs/CLAUDE-CODE.md §5), where ``chain`` stays empty.

    Attributes:
        rf: every complete record so far (``rf.data`` is empty: decode with :meth:`read`).
        chain: the loader's chain over ``rf`` (equals a full rebuild at all times).
        offset: byte offset just past the last consumed line.
        inode: the followed file's inode.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        start_at: int = 0,
        settle_s: float = SETTLE_S,
        clock: Callable[[], float] = time.monotonic,
        chain: bool = True,
    ) -> None:
        self.path = Path(path)
        self.settle_s = settle_s
        self.follow_chain = chain
        self._clock = clock
        self._start_at = start_at
        self._fd: int | None = None
        self._reset_state()

    def _reset_state(self) -> None:
        self.rf = RecordFile(data=b"")
        self.chain = ChainResult()
        self.known_uuids: set[str] = set()
        self.offset = 0
        self.inode: int | None = None
        self._partial = b""
        self._partial_since: float | None = None
        self._unterminated = False  # the last consumed line had no "\n" (decided early)
        self._new_bad: list[BadLine] = []

    def close(self) -> None:
        """Close the file descriptor (the tail can be polled again; it reopens)."""
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:  # pragma: no cover
                pass
            self._fd = None

    def __enter__(self) -> FileTail:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pending(self) -> bytes:
        """The held partial line (empty when the file ends with ``\\n``)."""
        return self._partial

    def read(self, index: int) -> Any:
        """Decode record ``rf.records[index]`` from the file (``os.pread``)."""
        rec = self.rf.records[index]
        if self._fd is None:
            self._fd, _ = open_regular(self.path)
        return _decode(os.pread(self._fd, rec.end - rec.offset, rec.offset))

    def _restart(self, reason: str, upd: TailUpdate) -> None:
        self.close()
        self._reset_state()
        self._start_at = 0
        upd.reset = reason

    def poll(self, writer_alive: bool | None = None) -> TailUpdate:
        """Read what was appended since the last poll.

        Args:
            writer_alive: False when the file's writer is known dead (its partial final
                line is then decided now); None when unknown.

        Returns:
            A :class:`TailUpdate`. Never raises on content; a file that disappeared gives
            ``reset="removed"`` and an empty state.

        Raises:
            NotRegularFile: the path is a FIFO, a device or a socket (never opened for a
                blocking read). OSError: it cannot be opened.
        """
        upd = TailUpdate()
        data = self._read_new(upd)
        if data is None:
            return upd
        if self._unterminated and data:
            if data[:1] != b"\n":
                # the line we decided early grew after all: start over to stay exact
                self._restart("rewritten", upd)
                nxt = self.poll(writer_alive)
                nxt.reset = upd.reset
                return nxt
            self.offset += 1
            data = data[1:]
            self._unterminated = False
        base = self.offset
        nl = data.rfind(b"\n")
        complete, partial = data[: nl + 1], data[nl + 1 :]
        first_new = len(self.rf.records)
        if complete:
            self._absorb(scan_records(complete, start_line=self.rf.line_count, base_offset=base))
            self.offset = base + len(complete)
        now = self._clock()
        if partial != self._partial:
            self._partial, self._partial_since = partial, now
        elif partial and (
            writer_alive is False
            or (self._partial_since is not None and now - self._partial_since >= self.settle_s)
        ):
            self._absorb(
                scan_records(partial, start_line=self.rf.line_count, base_offset=self.offset)
            )
            self.offset += len(partial)
            self._unterminated = True
            self._partial, self._partial_since = b"", None
        upd.pending = len(self._partial)
        self._update_chain(first_new, upd)
        for rec in self.rf.records[first_new:]:
            if rec.end >= self._start_at:
                raw = data[rec.offset - base : rec.end - base]
                upd.records.append(LiveRecord(rec, _decode(raw)))
        for bad in self._new_bad:
            if bad.offset + bad.length >= self._start_at:
                upd.bad_lines.append(bad)
        self._new_bad = []
        return upd

    def _read_new(self, upd: TailUpdate) -> bytes | None:
        """The bytes after ``offset`` (restarting on shrink/replace); None if gone."""
        for _ in range(3):
            try:
                st = os.stat(self.path)
            except FileNotFoundError:
                if self.inode is not None:
                    self._restart("removed", upd)
                return None
            if self.inode is not None and st.st_ino != self.inode:
                self._restart("replaced", upd)
            elif st.st_size < self.offset:
                self._restart("truncated", upd)
            if self._fd is None:
                try:
                    self._fd, fst = open_regular(self.path)  # a FIFO: NotRegularFile
                except FileNotFoundError:
                    return None
                if self.inode is not None and fst.st_ino != self.inode:
                    self._restart("replaced", upd)  # replaced between stat and open
                    continue
                self.inode = fst.st_ino
            size = os.fstat(self._fd).st_size
            if size < self.offset:
                self._restart("truncated", upd)
                continue
            return (
                _pread_all(self._fd, size - self.offset, self.offset) if size > self.offset else b""
            )
        return None  # pragma: no cover - the file keeps changing under us

    def _absorb(self, part: RecordFile) -> None:
        n = len(self.rf.records)
        for i, rec in enumerate(part.records):
            rec.index = n + i
        self.rf.records.extend(part.records)
        self.rf.bad_lines.extend(part.bad_lines)
        self._new_bad = [*self._new_bad, *part.bad_lines]
        self.rf.blank_lines += part.blank_lines
        self.rf.line_count += part.line_count
        self.rf.ends_with_newline = part.ends_with_newline

    def _update_chain(self, first_new: int, upd: TailUpdate) -> None:
        records = self.rf.records
        if first_new == len(records) or not self.follow_chain:
            return
        old = self.chain
        old_tip = records[old.tail].uuid if old.tail is not None else None
        if not extend_chain(self.rf, old, first_new, self.known_uuids):
            self.chain = rebuild_chain(self.rf)
            upd.rebuilt = True
            if old.tail is not None and old.tail not in set(self.chain.chain):
                new_tail = self.chain.tail
                new_tip = records[new_tail].uuid if new_tail is not None else None
                upd.branched = (old_tip, new_tip)
                if new_tail is not None and records[new_tail].type == "metadata":
                    rec = self.read(new_tail)
                    upd.rewind = isinstance(rec, dict) and rec.get("key") == "rewind"
        for rec in records[first_new:]:
            if rec.uuid is not None:
                self.known_uuids.add(rec.uuid)

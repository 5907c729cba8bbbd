"""Appending whole records to a transcript a running agent may be writing (every source).

A record is appended only after a whole record (docs/DECISIONS.md): a writer that writes
one record in two ``write()`` calls must never get ours glued inside its record.
:func:`settle_tail` waits briefly for a torn tail to be finished (:class:`TailPolicy`,
injectable: tests never sleep) and refuses one that stays torn — still or moving, a
crashed writer's or a slow one's: nothing tells them apart. The one exception is a
still fragment of one of sidtui's own appends (a sidtui killed in its own ``write()``,
recognised by the ``heads`` its caller names): it is ended with ``\\n`` first, so a re-run
reaches the end. :func:`append_records` holds the file open and looks at its tail again
through that same descriptor right before its one ``write()``, and refuses when it is not
what was settled on. Used by sid-code's markers and titles (``edits/marker``,
``edits/title``) and by Claude Code's titles (``claude/title``).
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sidtui.core.base.errors import SidtuiError
from sidtui.core.base.regular import NotRegularFile, kind_of, open_regular
from sidtui.core.base.safefs import fault_point
from sidtui.core.transcript.writer import flush_pending_writes

_TAIL_PROBE = 64 * 1024


class AppendError(SidtuiError):
    """The records could not be appended (exit 1); nothing was written."""


@dataclass(frozen=True)
class TailPolicy:
    """How long to wait for a half-written last record to be finished.

    Attributes:
        attempts: checks before giving up (the first is immediate).
        interval_s: seconds between checks.
        wait: ``(seconds) -> None``; None is :func:`time.sleep` (looked up when called).
        before_append: ``() -> None`` called with the file held open, between the last
            look at its tail and the write (tests put a writer's half record there).
    """

    attempts: int = 20
    interval_s: float = 0.05
    wait: Callable[[float], None] | None = None
    before_append: Callable[[], None] | None = None

    def pause(self) -> None:
        (self.wait or time.sleep)(self.interval_s)


DEFAULT_TAIL_POLICY = TailPolicy()
"""The policy used when none is given (tests replace it: they never sleep)."""


def fd_tail(fd: int) -> tuple[int, bool]:
    """``(size, ends after a whole line)`` of the open file ``fd`` (empty counts as whole)."""
    size = os.fstat(fd).st_size
    if size == 0:
        return 0, True
    return size, os.pread(fd, 1, size - 1) == b"\n"


def _tail(path: Path, error: type[AppendError]) -> tuple[int, bool]:
    try:
        fd, _st = open_regular(path)
    except NotRegularFile as exc:
        raise error(str(exc)) from None
    try:
        return fd_tail(fd)
    finally:
        os.close(fd)


def torn_fragment_is_ours(path: Path, size: int, heads: Sequence[bytes]) -> bool:
    """Whether the torn last line of ``path`` (``size`` bytes) is one of sidtui's appends.

    True when the fragment after the last ``\\n`` begins with one of ``heads`` or is a
    prefix of one (a kill can land any prefix of our one ``write()``).
    """
    if not heads:
        return False
    try:
        fd, _st = open_regular(path)
    except (OSError, NotRegularFile):
        return False
    try:
        start = max(0, size - _TAIL_PROBE)
        data = os.pread(fd, size - start, start)
    except OSError:
        return False
    finally:
        os.close(fd)
    cut = data.rfind(b"\n")
    if cut < 0 and start > 0:
        return False  # a torn line longer than the probe is none of ours
    frag = data[cut + 1 :]
    return bool(frag) and any(frag.startswith(h) or h.startswith(frag) for h in heads)


def torn(path: Path, what: str, error: type[AppendError], noun: str) -> AppendError:
    return error(
        f"{path} ends in an incomplete record ({what}); nothing was appended — a {noun} "
        "lands only after a whole record: try again when the agent is done writing"
    )


def settle_tail(
    path: Path,
    policy: TailPolicy,
    heads: Sequence[bytes] = (),
    *,
    error: type[AppendError] = AppendError,
    noun: str = "record",
) -> tuple[int, bool]:
    """Wait until ``path`` ends after a whole record and stops growing.

    Returns:
        ``(size, whole)`` settled on: ``whole`` is False only for a still fragment that
        starts like one of ``heads`` (a killed sidtui's), which the caller ends with
        ``\\n`` first.

    Raises:
        ``error``: it still ends in a torn line after every check (a writer is
            mid-record, or crashed in one), or cannot be read.
    """
    attempts = max(1, policy.attempts)
    changed = False
    try:
        last = _tail(path, error)
        for attempt in range(attempts):
            now = _tail(path, error)
            if now == last and now[1]:
                return now
            changed = changed or now != last
            if attempt + 1 < attempts:
                policy.pause()
            last = now
    except OSError as exc:
        raise error(f"cannot read {path}: {exc.strerror or exc}") from None
    if not changed and torn_fragment_is_ours(path, last[0], heads):
        return last
    raise torn(
        path,
        f"still growing after {attempts} checks"
        if changed
        else f"unchanged over {attempts} checks: a writer stopped mid-record",
        error,
        noun,
    )


def open_for_append(path: Path, error: type[AppendError] = AppendError) -> int:
    """``path`` opened read+append (never created, never through a symlink), a regular file."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise error(f"{path} is a symbolic link; nothing was appended") from None
        raise error(f"cannot open {path}: {exc.strerror or exc}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise error(f"{path} is {kind_of(mode)}, not a session file")
    return fd


def write_after_whole_record(
    fd: int,
    path: Path,
    chunk: bytes,
    settled: tuple[int, bool],
    *,
    error: type[AppendError] = AppendError,
    noun: str = "record",
) -> None:
    """Write ``chunk`` through ``fd`` if its file ends after a whole record (or still in
    the killed append ``settled`` on, which ``\\n`` ends first); raise otherwise."""
    try:
        now = fd_tail(fd)
        if not now[1]:
            if now != settled:
                what = f"a writer began a record while the {noun} was prepared"
                raise torn(path, what, error, noun)
            chunk = b"\n" + chunk
        view = memoryview(chunk)
        fault_point("append", path)
        written = os.write(fd, view)
        while written < len(chunk):  # a short write (disk nearly full): finish or fail
            fault_point("append", path)
            written += os.write(fd, view[written:])
    except OSError as exc:
        raise error(f"could not append the {noun} to {path}: {exc.strerror or exc}") from None


def append_records(
    path: Path,
    chunk: bytes,
    *,
    policy: TailPolicy | None = None,
    heads: Sequence[bytes] = (),
    error: type[AppendError] = AppendError,
    noun: str = "record",
) -> None:
    """Append ``chunk`` (whole lines, each ending in ``\\n``) in one ``write()`` after the
    last whole record of ``path``.

    Raises:
        ``error``: the tail is not a whole record (it did not settle, or a writer began a
            record after it did), the file is no regular file or a symlink, or the write
            failed.
    """
    policy = policy or DEFAULT_TAIL_POLICY
    flush_pending_writes(path)
    settled = settle_tail(path, policy, heads, error=error, noun=noun)
    fd = open_for_append(path, error)
    try:
        if policy.before_append is not None:
            policy.before_append()
        write_after_whole_record(fd, path, chunk, settled, error=error, noun=noun)
    finally:
        os.close(fd)

"""Reading files of a disk sidtui does not control (docs/DECISIONS.md, "Reading a hostile disk").

Every file of the home, and a project file read for a restore, is opened with
``O_NONBLOCK`` (opening a FIFO would otherwise wait for a writer), ``fstat``'ed, and refused
unless it is a regular file (:class:`NotRegularFile`: a FIFO, a device, a socket, a folder);
reads are bounded (:class:`TooBig`). :func:`ceiling` reads a documented limit from its
environment variable. Public API: :func:`open_regular`, :func:`read_regular`,
:func:`read_open`, :func:`kind_of`, :func:`ceiling`, :func:`data_after`.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Any

from sidtui.core.base.errors import UnreadableInput, UsageError

_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_BINARY", 0)
)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class NotRegularFile(UnreadableInput):
    """A path of the home that is a FIFO, a device, a socket or a folder (exit 1).

    Attributes:
        path: the path; kind: what it is (``"a FIFO"``, ``"a character device"``, …).
    """

    def __init__(self, path: Any, kind: str) -> None:
        super().__init__(f"{path} is not a regular file ({kind}); not read")
        self.path = path
        self.kind = kind


class TooBig(UnreadableInput):
    """A file above the ceiling its reader documents (exit 1)."""


def kind_of(mode: int) -> str:
    """What a non-regular ``st_mode`` is, for messages (``"a FIFO"``, ``"a folder"``, …)."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def open_regular(
    path: Any, *, follow: bool = True, dir_fd: int | None = None
) -> tuple[int, os.stat_result]:
    """Open ``path`` read-only without blocking and return ``(fd, fstat)`` of a regular file.

    Args:
        path: the file.
        follow: follow a final symbolic link (False: ``O_NOFOLLOW``, a link is refused).
        dir_fd: resolve ``path`` relative to this open folder.

    Raises:
        NotRegularFile: it is not a regular file (the fd is closed).
        OSError: it cannot be opened (missing, permission, a symlink loop, …).
    """
    flags = _FLAGS if follow else _FLAGS | _NOFOLLOW
    try:
        fd = os.open(path, flags, dir_fd=dir_fd)
    except OSError as exc:
        if not follow and exc.errno == errno.ELOOP and _is_link(path, dir_fd):
            raise NotRegularFile(path, "a symbolic link") from None
        if exc.errno == errno.ENXIO:  # a socket (or a FIFO on some systems)
            raise NotRegularFile(path, "a socket") from None
        raise
    try:
        st = os.fstat(fd)
    except BaseException:
        os.close(fd)
        raise
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise NotRegularFile(path, kind_of(st.st_mode))
    return fd, st


def _is_link(path: Any, dir_fd: int | None) -> bool:
    try:
        return stat.S_ISLNK(os.stat(path, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def read_regular(
    path: Any,
    max_bytes: int | None = None,
    *,
    head: bool = False,
    follow: bool = True,
    too_big: str | None = None,
) -> bytes:
    """The bytes of a regular file, bounded.

    Args:
        path: the file.
        max_bytes: read at most this many bytes (None: no bound).
        head: with ``max_bytes``, return the first ``max_bytes`` bytes of a bigger file
            instead of raising.
        follow: see :func:`open_regular`.
        too_big: the :class:`TooBig` message (``{size}`` and ``{limit}`` are filled in).

    Raises:
        NotRegularFile / OSError: see :func:`open_regular`.
        TooBig: the file holds more than ``max_bytes`` bytes (and not ``head``).
    """
    fd, st = open_regular(path, follow=follow)
    try:
        return read_open(fd, st, path, max_bytes, head=head, too_big=too_big)
    finally:
        os.close(fd)


def read_open(
    fd: int,
    st: os.stat_result,
    path: Any,
    max_bytes: int | None = None,
    *,
    head: bool = False,
    too_big: str | None = None,
) -> bytes:
    """The bytes of the regular file open as ``fd`` (``st`` its ``fstat``), bounded as
    :func:`read_regular`; ``path`` names it in messages. The caller closes ``fd``."""
    size = st.st_size
    if max_bytes is not None and size > max_bytes and not head:
        raise _too_big(path, size, max_bytes, too_big)
    want = size + 1 if max_bytes is None else min(size, max_bytes) + 1
    chunks: list[bytes] = []
    got = 0
    while True:
        b = os.read(fd, max(want - got, 1 << 16))
        if not b:
            break
        chunks.append(b)
        got += len(b)
        if max_bytes is not None and got > max_bytes:  # it grew since the fstat
            if head:
                break
            raise _too_big(path, got, max_bytes, too_big)
    data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    return data[:max_bytes] if head and max_bytes is not None else data


def _too_big(path: Any, size: int, limit: int, message: str | None) -> TooBig:
    if message:
        return TooBig(message.format(path=path, size=f"{size:,}", limit=f"{limit:,}"))
    return TooBig(f"{path} is {size:,} bytes, more than the {limit:,} sidtui reads")


def ceiling(env_var: str, default: int) -> int:
    """A byte ceiling: ``$env_var`` when set (a positive integer), else ``default``.

    Raises:
        UsageError: the variable is set to something that is not a positive integer.
    """
    raw = os.environ.get(env_var)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw.strip().replace("_", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise UsageError(f"{env_var} must be a positive number of bytes (it is {raw!r})")
    return value


_SEEK_DATA = getattr(os, "SEEK_DATA", None)


def data_after(fd: int, pos: int, size: int) -> int:
    """The first offset ≥ ``pos`` that holds data rather than a hole (``SEEK_DATA``): the
    bytes before it read as NULs without being stored. ``size`` when only a hole follows;
    ``pos`` where the system cannot tell (every byte then counts as data)."""
    if _SEEK_DATA is None or pos >= size:
        return min(pos, size)
    try:
        return min(os.lseek(fd, pos, _SEEK_DATA), size)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # nothing but a hole up to the end
            return size
        return pos


_SEEK_HOLE = getattr(os, "SEEK_HOLE", None)


def has_holes(fd: int, size: int) -> bool:
    """Whether the open file has a hole before its end (``SEEK_HOLE``): a sparse file,
    whose apparent size is not what is stored. The fd's position is kept."""
    if _SEEK_HOLE is None or size <= 0:
        return False
    try:
        pos = os.lseek(fd, 0, os.SEEK_CUR)
        try:
            return os.lseek(fd, 0, _SEEK_HOLE) < size
        finally:
            os.lseek(fd, pos, os.SEEK_SET)
    except OSError:
        return False

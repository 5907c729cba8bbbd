"""Writes that a hostile disk cannot redirect: the one module every writer goes through.

A folder is reached by an ``os.open(component, O_DIRECTORY | O_NOFOLLOW, dir_fd=parent)``
walk from ``/`` along an already resolved path, so a component swapped for a symlink after
the check makes the walk fail instead of leading elsewhere; project files are read the
same way (:func:`read_file`). Files are written to a temp file created ``O_EXCL |
O_NOFOLLOW`` under an unpredictable name in the target's folder (:func:`temp_name`:
``.NAME.sidtui-PID-RANDOM.tmp``), fsynced, the final name checked again (it must be absent
or a regular file), renamed with ``dir_fd`` on both sides, and the folder fsynced. Leftover temp files of dead processes are recognised by name
(:func:`stale_temps`) and removed by the next run (:func:`remove_stale_temps`).

Every write step (``create``, ``write``, ``fsync``, ``rename``, ``link``, ``unlink``,
``mkdir``, ``fsync-dir``, and the session writer's ``append``) first calls
:func:`fault_point`, which does nothing unless a test set :data:`fault_hook`: the
fault-injection suite stops a verb there (SIGINT, SIGKILL) or fails the step (EIO, ENOSPC)
deterministically (tests/cli/test_fault_injection.py).
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sidtui.core.base.errors import SidtuiError
from sidtui.core.base.regular import NotRegularFile, open_regular, read_open

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_TEMP_RE = re.compile(r"^\.(?P<name>.+)\.sidtui-(?P<pid>\d+)-(?P<rand>[0-9a-f]{12})\.tmp$")
_TEMP_TRIES = 16
#: The only mode bits sidtui ever gives a file: setuid, setgid and sticky never (an index
#: or a transcript names a mode; it must not make a setuid file, FORMAT.md §10.13).
PERMISSION_BITS = 0o777


#: Test-only: called as ``fault_hook(kind, where)`` right before every write step (see the
#: module docstring; ``where``: the file's path or name, "" when unknown); it may raise (an
#: injected ``OSError``) or signal the process. None in use.
fault_hook: Callable[[str, str], None] | None = None


def fault_point(kind: str, where: str | os.PathLike[str] = "") -> None:
    """A write step of kind ``kind`` on ``where`` is about to run (:data:`fault_hook`; a
    no-op in use)."""
    if fault_hook is not None:
        fault_hook(kind, os.fspath(where))


class UnsafePath(SidtuiError):
    """A path changed under us (a component became a symlink, a folder vanished) (exit 1)."""


class Gone(UnsafePath):
    """A folder of the path does not exist (any more)."""


def temp_name(name: str) -> str:
    """``.NAME.sidtui-PID-RANDOM.tmp``: hidden, unpredictable (48 random bits), never a
    name a session, index or project file has."""
    return f".{name}.sidtui-{os.getpid()}-{secrets.token_hex(6)}.tmp"


def parse_temp_name(name: str) -> tuple[str, int] | None:
    """``(target name, writer pid)`` of a name made by :func:`temp_name`, else None."""
    m = _TEMP_RE.match(name)
    return (m.group("name"), int(m.group("pid"))) if m else None


def pid_running(pid: int) -> bool:
    """Whether a process with ``pid`` exists (a permission error means it does)."""
    if pid <= 0:
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --------------------------------------------------------------------------- folders


def _parts(path: str | os.PathLike[str]) -> list[str]:
    p = os.fspath(path)
    if not os.path.isabs(p):
        raise UnsafePath(f"not an absolute path: {p}")
    return [c for c in os.path.normpath(p).split(os.sep) if c]


def open_dir(path: str | os.PathLike[str], *, create_below: int | None = None) -> int:
    """Open the folder ``path`` (absolute, symlinks already resolved) following no symlink.

    Args:
        path: the folder.
        create_below: create missing components from this many components on (None: create
            nothing; 0: any). A component that exists must be a real folder.

    Returns:
        An ``O_DIRECTORY`` file descriptor (the caller closes it).

    Raises:
        UnsafePath: a component is a symlink or not a folder, or is missing (:class:`Gone`;
            and may not be created).
        OSError: another failure (permission denied, disk full).
    """
    parts = _parts(path)
    fd = os.open("/", _DIR_FLAGS)
    try:
        for i, comp in enumerate(parts):
            try:
                nfd = os.open(comp, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if create_below is None or i < create_below:
                    raise Gone(
                        f"{os.sep + os.sep.join(parts[: i + 1])} is gone (it was there when checked)"
                    ) from None
                try:
                    fault_point("mkdir", comp)
                    os.mkdir(comp, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass
                nfd = os.open(comp, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    where = os.sep + os.sep.join(parts[: i + 1])
                    raise UnsafePath(
                        f"{where} is no longer a folder (a symlink or a file now); not followed"
                    ) from None
                raise
            os.close(fd)
            fd = nfd
    except BaseException:
        os.close(fd)
        raise
    return fd


@contextmanager
def opened_dir(path: str | os.PathLike[str], *, create_below: int | None = None) -> Iterator[int]:
    """:func:`open_dir` as a context manager (closes the descriptor)."""
    fd = open_dir(path, create_below=create_below)
    try:
        yield fd
    finally:
        os.close(fd)


def make_dirs(path: str | os.PathLike[str]) -> None:
    """``mkdir -p`` along the resolved ``path``, refusing symlinked components."""
    real = os.path.realpath(path)
    os.close(open_dir(real, create_below=0))


# --------------------------------------------------------------------------- files


def open_file(path: str | os.PathLike[str]) -> tuple[int, os.stat_result]:
    """Open the regular file at the absolute, resolved ``path`` for reading, following no
    symlink: its folders by the :func:`open_dir` walk, the file itself ``O_NOFOLLOW |
    O_NONBLOCK`` and ``fstat``'ed (:func:`sidtui.core.base.regular.open_regular`).

    Returns:
        ``(fd, fstat)`` (the caller closes the fd).

    Raises:
        Gone: a folder of it is missing. FileNotFoundError: the file is missing.
        UnsafePath: a folder of it is a symlink or not a folder (not followed).
        NotRegularFile: the file is a symlink, a FIFO, a device, a socket or a folder.
        OSError: another failure (permission denied).
    """
    p = os.fspath(path)
    folder, name = os.path.split(p)
    if not name:
        raise NotRegularFile(p, "a folder")
    with opened_dir(folder) as dfd:
        try:
            return open_regular(name, follow=False, dir_fd=dfd)
        except NotRegularFile as exc:
            raise NotRegularFile(p, exc.kind) from None


def read_file(
    path: str | os.PathLike[str], max_bytes: int | None = None, *, too_big: str | None = None
) -> tuple[bytes, os.stat_result]:
    """The bytes and ``fstat`` of the regular file at ``path``, read as :func:`open_file`
    opens it and bounded as :func:`sidtui.core.base.regular.read_regular`.

    Raises:
        As :func:`open_file`; TooBig: it holds more than ``max_bytes`` bytes.
    """
    fd, st = open_file(path)
    try:
        return read_open(fd, st, os.fspath(path), max_bytes, too_big=too_big), st
    finally:
        os.close(fd)


def lstat_at(dir_fd: int, name: str) -> os.stat_result | None:
    """``lstat`` of ``name`` in the folder ``dir_fd``; None when absent."""
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _check_final(dir_fd: int, name: str, where: str) -> os.stat_result | None:
    st = lstat_at(dir_fd, name)
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise UnsafePath(f"{where} is not a regular file any more (a symlink, folder or device)")
    return st


def create_temp(dir_fd: int, name: str, mode: int = 0o600) -> tuple[int, str]:
    """Create a fresh temp file for ``name`` in ``dir_fd`` (``O_EXCL | O_NOFOLLOW``).

    Returns:
        ``(fd, temp name)``.
    """
    for _ in range(_TEMP_TRIES):
        tmp = temp_name(name)
        fault_point("create", name)
        try:
            return os.open(tmp, _TEMP_FLAGS, mode, dir_fd=dir_fd), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, f"no free temp name for {name}")


def permission_bits(mode: int) -> int:
    """``mode``'s read/write/execute bits (:data:`PERMISSION_BITS`): what is ever applied
    (any int: an index may hold a negative or huge one)."""
    return mode & PERMISSION_BITS


def keep_owner(fd: int, st: os.stat_result | None) -> None:
    """Give the new file ``fd`` the owner and group of ``st`` (the file it replaces) where
    the process may: both as root, the group alone for a member of it; else left as
    created (never an error: a file system without owners, a user who may not)."""
    if st is None:
        return
    try:
        now = os.fstat(fd)
        if (now.st_uid, now.st_gid) == (st.st_uid, st.st_gid):
            return
        try:
            os.fchown(fd, st.st_uid, st.st_gid)
        except PermissionError:
            if now.st_gid != st.st_gid:
                os.fchown(fd, -1, st.st_gid)
    except OSError:
        pass


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        fault_point("write")
        n = os.write(fd, view)
        view = view[n:]


def replace_at(
    dir_fd: int,
    name: str,
    data: bytes,
    mode: int | None = None,
    *,
    where: str | None = None,
) -> None:
    """Write ``data`` as ``name`` in the folder ``dir_fd``: temp, fsync, check, rename.

    Args:
        dir_fd: the folder (from :func:`open_dir`).
        name: the file name (one component).
        data: the new content.
        mode: permission bits (:func:`permission_bits` of it: never setuid, setgid or
            sticky); None keeps those of the file being replaced (0o644 for a new one, less
            the umask). The owner and group of the file replaced are kept where the process
            may (:func:`keep_owner`).
        where: the path for messages.

    Raises:
        UnsafePath: ``name`` is (now) a symlink, folder or device.
        OSError: the write failed (the old file is intact; the temp file is removed).
    """
    where = where or name
    st = _check_final(dir_fd, name, where)
    if mode is None and st is not None:
        mode = st.st_mode
    fd, tmp = create_temp(dir_fd, name)
    try:
        try:
            _write_all(fd, data)
            keep_owner(fd, st)
            if mode is not None:
                os.fchmod(fd, permission_bits(mode))
            else:
                umask = os.umask(0)
                os.umask(umask)
                os.fchmod(fd, 0o644 & ~umask)
            fault_point("fsync", where)
            os.fsync(fd)
        finally:
            os.close(fd)
        _check_final(dir_fd, name, where)  # again, right before the rename
        fault_point("rename", where)
        os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        raise
    _fsync_dir(dir_fd)


def create_at(
    dir_fd: int, name: str, data: bytes, mode: int = 0o600, *, where: str | None = None
) -> None:
    """Write ``data`` as the **new** file ``name`` in ``dir_fd``: temp, fsync, then a hard
    link to the final name (which fails if anything is there: nothing is ever replaced, and
    no reader sees half a file).

    Raises:
        FileExistsError: ``name`` exists (nothing written).
        OSError: the write failed (the temp file is removed).
    """
    mode = permission_bits(mode)
    fd, tmp = create_temp(dir_fd, name, mode)
    try:
        try:
            _write_all(fd, data)
            os.fchmod(fd, mode)
            fault_point("fsync", where or name)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            fault_point("link", where or name)
            os.link(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
        except FileExistsError:
            raise
        except OSError as exc:  # a file system without hard links: rename if still free
            if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK):
                raise
            if lstat_at(dir_fd, name) is not None:
                raise FileExistsError(errno.EEXIST, "file exists", where or name) from None
            os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    finally:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
    _fsync_dir(dir_fd)


def unlink_at(dir_fd: int, name: str, *, where: str | None = None) -> bool:
    """Remove the regular file ``name`` from the folder ``dir_fd``.

    Returns:
        False when it was already absent.

    Raises:
        UnsafePath: it is a symlink, folder or device (left alone).
    """
    if _check_final(dir_fd, name, where or name) is None:
        return False
    try:
        fault_point("unlink", where or name)
        os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return False
    _fsync_dir(dir_fd)
    return True


def rename_at(dir_fd: int, src: str, dst: str) -> None:
    """Rename ``src`` to ``dst`` inside the folder ``dir_fd`` (both one component), then
    fsync the folder. Once the rename is done this never raises: a folder fsync that fails
    (EIO) cannot take back what is already visible, and the caller must not undo it.

    Raises:
        OSError: the rename itself failed (nothing changed).
    """
    fault_point("rename", dst)
    os.rename(src, dst, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    _fsync_dir(dir_fd)


def fsync_path(path: str | os.PathLike[str]) -> None:
    """fsync the file at ``path`` (opened ``O_NOFOLLOW``, read-only).

    Raises:
        OSError: it cannot be opened or synced.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        fault_point("fsync", path)
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(dir_fd: int) -> None:
    try:
        fault_point("fsync-dir")
        os.fsync(dir_fd)
    except OSError:
        pass


def write_atomic(path: str | os.PathLike[str], data: bytes, mode: int | None = None) -> None:
    """Write a file of the home (an index, a journal) atomically; folders made as needed.

    The folder is resolved once (the home's own symlinks are the user's) and then walked
    without following symlinks.

    Raises:
        UnsafePath / OSError: as :func:`replace_at` (the old file is intact).
    """
    p = Path(path)
    with opened_dir(os.path.realpath(p.parent), create_below=0) as dfd:
        replace_at(dfd, p.name, data, mode, where=str(p))


@contextmanager
def streamed_replace(path: str | os.PathLike[str], mode: int | None = None) -> Iterator[Any]:
    """Write ``path`` through a binary file object as :func:`write_atomic` does: a temp file
    (``O_EXCL | O_NOFOLLOW``) filled while the caller writes, fsynced, the final name
    checked, renamed. An exception in the block (or a killed process) leaves the old file,
    or nothing, never half a file under the final name (a dead process's temp file is
    :func:`stale_temps`'). For output too big to hold whole (an export).

    Raises:
        UnsafePath / OSError: as :func:`replace_at` (the temp file is removed).
    """
    p = Path(path)
    with opened_dir(os.path.realpath(p.parent), create_below=0) as dfd:
        where = str(p)
        st = _check_final(dfd, p.name, where)
        fd, tmp = create_temp(dfd, p.name)
        try:
            with os.fdopen(fd, "wb", buffering=1 << 20, closefd=False) as out:
                yield out
            fault_point("fsync", where)
            umask = os.umask(0)
            os.umask(umask)
            bits = st.st_mode if mode is None and st is not None else (mode or 0o644 & ~umask)
            os.fchmod(fd, permission_bits(bits))
            os.fsync(fd)
            os.close(fd)
            fd = -1
            _check_final(dfd, p.name, where)
            fault_point("rename", where)
            os.rename(tmp, p.name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            if fd >= 0:
                os.close(fd)
            try:
                os.unlink(tmp, dir_fd=dfd)
            except OSError:
                pass
            raise
        _fsync_dir(dfd)


def create_new(path: str | os.PathLike[str], data: bytes, mode: int = 0o600) -> None:
    """:func:`create_at` by path (the folder resolved once, made as needed, then walked
    without following symlinks): a new file of the home, never replacing one."""
    p = Path(path)
    with opened_dir(os.path.realpath(p.parent), create_below=0) as dfd:
        create_at(dfd, p.name, data, mode, where=str(p))


def remove(path: str | os.PathLike[str]) -> bool:
    """Remove a regular file of the home (resolved folder, no symlink followed); False if absent."""
    p = Path(path)
    try:
        dfd = open_dir(os.path.realpath(p.parent))
    except UnsafePath:
        return False
    try:
        return unlink_at(dfd, p.name, where=str(p))
    finally:
        os.close(dfd)


# --------------------------------------------------------------------------- leftovers


def stale_temps(folder: str | os.PathLike[str], names: Iterable[str] | None = None) -> list[str]:
    """Temp names in ``folder`` left by processes that are gone (for ``names`` only, if given)."""
    wanted = set(names) if names is not None else None
    out: list[str] = []
    try:
        entries = os.listdir(folder)
    except OSError:
        return out
    for entry in entries:
        parsed = parse_temp_name(entry)
        if parsed is None:
            continue
        target, pid = parsed
        if (wanted is None or target in wanted) and not pid_running(pid):
            out.append(entry)
    return sorted(out)


def remove_stale_temps(
    folder: str | os.PathLike[str], names: Iterable[str] | None = None
) -> list[str]:
    """Remove :func:`stale_temps` of ``folder`` (files only; folders via ``shutil``).

    Returns:
        The paths removed. Never raises.
    """
    import shutil

    removed: list[str] = []
    try:
        real = os.path.realpath(folder)
        dfd = open_dir(real)
    except (OSError, SidtuiError):
        return removed
    try:
        for entry in stale_temps(real, names):
            st = lstat_at(dfd, entry)
            try:
                if st is not None and stat.S_ISDIR(st.st_mode):
                    shutil.rmtree(os.path.join(real, entry))
                else:
                    os.unlink(entry, dir_fd=dfd)
            except OSError:
                continue
            removed.append(os.path.join(real, entry))
    finally:
        os.close(dfd)
    return removed

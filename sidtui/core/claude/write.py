"""The writes the Claude Code source makes, in one place (docs/CLAUDE-CODE.md §10.4,
§10.7), to be replaced by the shared safe-write primitive when it lands.

:func:`replace_file` writes a temp file (``O_CREAT|O_EXCL|O_NOFOLLOW``, random name, in the
target's folder), fsyncs and renames it over the target (a symlink planted there is
replaced, never followed); :func:`create_file` links the temp file to a name that must not
exist yet (readers never see half a file); :func:`remove_file` unlinks.
"""

from __future__ import annotations

import errno
import os
import secrets
from pathlib import Path

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _temp(folder: Path, name: str, data: bytes, mode: int) -> Path:
    """Write ``data`` to a fresh temp file in ``folder``; return its path (fsynced)."""
    for _ in range(100):
        tmp = folder / f".{name[:80]}.sidtui-{secrets.token_hex(6)}.tmp"
        try:
            fd = os.open(
                tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, mode & 0o777
            )
        except FileExistsError:
            continue
        break
    else:  # pragma: no cover - 100 collisions of 48 random bits
        raise FileExistsError(f"cannot create a temp file in {folder}")
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fchmod(fd, mode & 0o7777)
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        _unlink_quiet(tmp)
        raise
    return tmp


def _unlink_quiet(p: Path) -> None:
    try:
        os.unlink(p)
    except OSError:
        pass


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | _CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def replace_file(target: Path, data: bytes, mode: int | None = None) -> None:
    """Write ``data`` as ``target`` (created or replaced atomically; missing folders made).

    Args:
        target: the file (its folder is created when missing).
        data: the bytes.
        mode: permission bits (default 0o644).

    Raises:
        OSError: the write failed (the target is then unchanged).
    """
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    tmp = _temp(folder, target.name, data, 0o644 if mode is None else mode)
    try:
        os.replace(tmp, target)
    except BaseException:
        _unlink_quiet(tmp)
        raise
    _fsync_dir(folder)


def create_file(target: Path, data: bytes, mode: int = 0o644) -> None:
    """Write ``data`` as the new file ``target`` (never replacing anything).

    Raises:
        FileExistsError: ``target`` exists.
        OSError: the write failed (nothing is left under ``target``).
    """
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    tmp = _temp(folder, target.name, data, mode)
    try:
        try:
            os.link(tmp, target)
        except FileExistsError:
            raise
        except OSError as exc:
            # a file system without hard links: rename, after checking the name is free
            if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK):
                raise
            if os.path.lexists(target):
                raise FileExistsError(errno.EEXIST, "file exists", str(target)) from None
            os.rename(tmp, target)
    finally:
        _unlink_quiet(tmp)
    _fsync_dir(folder)


def remove_file(target: Path) -> None:
    """Delete ``target`` (gone already is fine).

    Raises:
        OSError: it cannot be removed.
    """
    try:
        os.unlink(target)
    except FileNotFoundError:
        return
    _fsync_dir(target.parent)

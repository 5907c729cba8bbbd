"""A session's project: its root and its folder under ``sessions/`` (FORMAT.md §1.3, §1.5).

:func:`project_key` is the agent's folder name for a root; :func:`lookup_project` maps a
directory to its project folder as the agent's ``-c`` does, :func:`latest_in_project` finds
its newest session. :func:`project_root_for` is the root a session's file restores are
confined to (FORMAT.md §10.13), :func:`user_home` the one place besides ``Home.resolve``
that reads the user's home folder.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from sidtui.core.base.discover import discover, project_folders, session_cwd
from sidtui.core.base.errors import UsageError
from sidtui.core.base.home import Home, SessionFile


def git_toplevel(cwd: Path) -> Path:
    """The git top level containing ``cwd`` (walking up for ``.git``), else ``cwd``."""
    return _git_toplevel(cwd)[0]


def _git_toplevel(cwd: Path) -> tuple[Path, bool]:
    """``(git top level, True)`` containing ``cwd``, else ``(cwd resolved, False)``."""
    cur = cwd.resolve()
    for d in (cur, *cur.parents):
        if (d / ".git").exists():
            return d, True
    return cur, False


def user_home(env: Mapping[str, str]) -> Path:
    """The user's home folder (``$HOME``, else the password database's), resolved."""
    return Path(env.get("HOME") or Path.home()).resolve()


@dataclass(frozen=True)
class ProjectRoot:
    """The folder a session's file restores are confined to.

    Attributes:
        path: the root (absolute, resolved), None when the session records no cwd.
        source: how it was chosen (``"git top level of the session's cwd"``, ``"the
            session's cwd"``, ``"--root"``).
        refusal: why writing under it is refused (None: allowed). Lifted only by
            ``--allow-outside-root``.
    """

    path: Path | None
    source: str
    refusal: str | None = None

    def describe(self) -> str:
        """``project root: /x (git top level of the session's cwd)`` (+ the refusal)."""
        where = str(self.path) if self.path is not None else "unknown"
        text = f"project root: {where} ({self.source})"
        if self.refusal:
            text += f" — refused: {self.refusal} (--allow-outside-root writes anyway)"
        return text


def project_root_for(cwd: str | None, home_dir: Path) -> ProjectRoot:
    """The project root of a session whose recorded ``cwd`` is ``cwd`` (FORMAT.md §10.13).

    The git top level of ``cwd`` when it is in a git work tree, else ``cwd`` itself.
    Refused (docs/DECISIONS.md, "Writes on a hostile disk"): a missing or relative
    ``cwd`` (it would resolve against wherever sidtui runs), ``/``, ``home_dir`` itself
    (git work tree or not: every dotfile is under it), and a root that is neither a git
    top level nor inside ``home_dir``.
    """
    if not cwd:
        return ProjectRoot(None, "the session records no cwd", "no project root is known")
    p = Path(cwd)
    if not p.is_absolute() or "\x00" in cwd:
        return ProjectRoot(
            None, "the session's cwd", f"the session's cwd {cwd!r} is not an absolute path"
        )
    root, is_git = _git_toplevel(p) if p.exists() else (Path(os.path.realpath(p)), False)
    source = "git top level of the session's cwd" if is_git else "the session's cwd"
    if root == Path(root.anchor):
        return ProjectRoot(root, source, f"{root} is the whole file system")
    home_dir = home_dir.resolve()
    if root == home_dir:
        return ProjectRoot(root, source, f"{root} is your home folder")
    if not is_git and root != home_dir and home_dir not in root.parents:
        return ProjectRoot(
            root,
            source,
            f"{root} is outside your home folder {home_dir} and not a git work tree",
        )
    return ProjectRoot(root, source)


def explicit_root(path: str, home_dir: Path | None = None) -> ProjectRoot:
    """The root given with ``--root`` (resolved; ``/`` and ``home_dir`` refused).

    Raises:
        UsageError: it does not exist or is not a folder.
    """
    p = Path(path).expanduser()
    if not p.exists():
        raise UsageError(f"--root {path}: no such folder")
    if not p.is_dir():
        raise UsageError(f"--root {path}: not a folder")
    root = p.resolve()
    if root == Path(root.anchor):
        return ProjectRoot(root, "--root", f"{root} is the whole file system")
    if home_dir is not None and root == home_dir.resolve():
        return ProjectRoot(root, "--root", f"{root} is your home folder")
    return ProjectRoot(root, "--root")


def fnv1a_32(data: bytes) -> int:
    """32-bit FNV-1a hash (used by the agent's project key for non-ASCII paths)."""
    h = 0x811C9DC5
    for b in data:
        h ^= b
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def _fnv1a_utf16(text: str) -> int:
    """32-bit FNV-1a over the UTF-16 code units of ``text`` (JavaScript's ``charCodeAt``)."""
    h = 0x811C9DC5
    data = text.encode("utf-16-le", "surrogatepass")
    for i in range(0, len(data), 2):
        h ^= data[i] | (data[i + 1] << 8)
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def project_key(root: str | os.PathLike[str]) -> str:
    """The ``sessions/`` folder name the agent uses for a project root (``sanitizeProjectKey``).

    Every run of characters outside ``[A-Za-z0-9]`` becomes ``-``, leading/trailing ``-``
    are dropped, and a path with non-ASCII characters gets ``-`` + the first 6 hex digits
    of the 32-bit FNV-1a hash of its UTF-16 code units (checked against the fixtures:
    ``/tmp/sidtui-fixture-projects/工作 notes`` → ``tmp-sidtui-fixture-projects-notes-1c8af1``).
    A path with no such character at all (``/``) gives ``root`` (a guess: the fixtures
    have none). The key is lossy: used only to find the agent's ``-c`` folder and by
    writers, never to find a session by id (FORMAT.md §1.3).

    Args:
        root: the project root (the git top level of the cwd, else the cwd).

    Returns:
        The folder name under ``sessions/``.
    """
    text = os.fspath(root)
    key = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-") or "root"
    if not text.isascii():
        key += "-" + f"{_fnv1a_utf16(text):08x}"[:6]
    return key


#: The longest folder name a file system takes (bytes). The agent never cuts a project key:
#: a key longer than this is a folder it cannot make (FORMAT.md §1.3).
KEY_MAX_BYTES = 255


def check_key_fits(root: str | os.PathLike[str]) -> str:
    """The project key of ``root``, for a writer that makes ``sessions/<key>/``.

    The agent keeps the whole path in the key, however long (sid-code 0.1.601, observed:
    a 230-character key is made as is; past 255 bytes its ``mkdir`` fails with
    ENAMETOOLONG and it stores no session for that project). sidtui never shortens it
    either: a folder with another name is not where the agent's ``-c`` looks.

    Raises:
        ProjectKeyTooLong: the key is longer than :data:`KEY_MAX_BYTES`.
    """
    key = project_key(root)
    if len(key.encode()) > KEY_MAX_BYTES:
        raise ProjectKeyTooLong(os.fspath(root), len(key.encode()))
    return key


class ProjectKeyTooLong(UsageError):
    """A project whose session folder name would be longer than a file name may be."""

    def __init__(self, root: str, size: int) -> None:
        super().__init__(
            f"{root}: sid-code names a project's session folder after its whole path, "
            f"{size} bytes here, and a folder name holds {KEY_MAX_BYTES}: sid-code cannot "
            "store sessions for it; use a shorter folder"
        )
        self.root = root
        self.size = size


@dataclass(frozen=True)
class ProjectLookup:
    """Where the agent's ``-c`` looks for the current directory (FORMAT.md §1.5).

    Attributes:
        cwd: the directory asked about (resolved).
        root: its project root: the git top level containing it, else itself.
        key: :func:`project_key` of ``root``: the folder the agent's ``-c`` scans.
        folder: the folder under ``sessions/`` that holds this project's sessions, or
            None when there is none (see :func:`project_folder_for`).
    """

    cwd: Path
    root: Path
    key: str
    folder: str | None


def _main_roots(home: Home, folder: str) -> Iterator[Path]:
    """Project roots of ``folder``'s main sessions that have an absolute ``cwd``.

    A root is the git top level containing ``session_start.cwd``, else that cwd
    (``~`` expanded; the path need not exist any more).
    """
    for sf in discover(home, folder):
        if sf.kind != "main" or sf.container != "jsonl":
            continue
        c = session_cwd(sf)
        if not c:
            continue
        p = Path(c).expanduser()
        if p.is_absolute():
            try:
                yield git_toplevel(p)
            except (OSError, RuntimeError):  # a symlink loop, an unreadable parent
                continue


def lookup_project(home: Home, cwd: Path) -> ProjectLookup:
    """The agent's mapping of ``cwd`` to its project folder (``-c``, FORMAT.md §1.5).

    The agent writes a session to ``sessions/<project_key(git top level of cwd, else
    cwd)>/`` and its ``-c`` scans only that folder. So: that folder when it exists.
    When it does not (a home copied from another machine or place, whose keys were
    made from other paths), a folder holding a main session whose ``session_start.cwd``
    has **the same project root** (its git top level, else itself) stands for it: the
    agent would have written that session into the computed folder. Never a folder whose
    sessions merely lie *below* ``cwd``: from ``/`` or from a folder holding several
    projects no other project is ever picked.

    Args:
        home: the home.
        cwd: the current directory (need not exist).

    Returns:
        A :class:`ProjectLookup`; its ``folder`` is None when no folder belongs to
        the project.
    """
    here = Path(cwd).resolve()
    root = git_toplevel(here)
    key = project_key(root)
    if key != "_legacy" and _is_folder(home.sessions_dir / key):
        return ProjectLookup(here, root, key, key)
    for name in project_folders(home):
        if name == "_legacy":
            continue
        # any session of the folder, not only its first: a folder whose first session
        # ran in a subfolder (a repo without its .git now) still holds the top's sessions
        if any(r == root for r in _main_roots(home, name)):
            return ProjectLookup(here, root, key, name)
    return ProjectLookup(here, root, key, None)


def _is_folder(path: Path) -> bool:
    """Whether ``path`` is a folder; a name too long for the file system (a key made from a
    deep path: more than 255 bytes) is none — the agent cannot have made it either."""
    try:
        return path.is_dir()
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            return False
        raise


def project_folder_for(home: Home, cwd: Path) -> str | None:
    """The ``sessions/`` folder of ``cwd``'s project as the agent maps it, or None.

    See :func:`lookup_project` (this is its ``folder``).
    """
    return lookup_project(home, cwd).folder


def projects_below(home: Home, cwd: Path, limit: int = 10) -> list[tuple[str, str]]:
    """``(session cwd, folder)`` of project folders whose sessions ran below ``cwd``.

    A hint for ``latest`` asked from a folder that holds projects (or from ``/``):
    which directories to ``cd`` into. At most ``limit`` entries, sorted by folder name.
    """
    here = Path(cwd).resolve()
    out: list[tuple[str, str]] = []
    for name in project_folders(home):
        if name == "_legacy":
            continue
        # the shallowest session cwd: a session started in a subfolder of a repo that
        # is gone from disk gives that subfolder as its root
        roots = [r for r in _main_roots(home, name) if r != here and r.is_relative_to(here)]
        if roots:
            out.append((str(min(roots, key=lambda r: (len(r.parts), str(r)))), name))
        if len(out) >= limit:
            break
    return out


def latest_in_project(
    home: Home, cwd: Path, lookup: ProjectLookup | None = None
) -> SessionFile | None:
    """The most recently written main session of ``cwd``'s project (the agent's ``-c``).

    Only that project's folder (:func:`lookup_project`) is considered, never another
    project's. ``lookup`` is ``lookup_project(home, cwd)`` when the caller has it.
    """
    folder = (lookup or lookup_project(home, cwd)).folder
    if folder is None:
        return None
    mains = [f for f in discover(home, folder) if f.kind == "main"]
    if not mains:
        return None

    def mtime(f: SessionFile) -> float:
        try:
            return f.path.stat().st_mtime
        except OSError:
            return 0.0

    return max(mains, key=lambda f: (mtime(f), f.session_id))

"""A session argument resolved to its file: a path, a full id, a unique id prefix or
``latest`` (the agent's ``-c``).

Every verb resolves its session here (:func:`resolve_session`); a miss, an ambiguous
prefix or a file that cannot be read is a one-line error with the candidates.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from sidtui.core.base.discover import (
    classify_file,
    discover,
    unreadable_folders,
    unreadable_transcripts,
)
from sidtui.core.base.errors import AmbiguousSession, SessionNotFound, UnreadableInput, UsageError
from sidtui.core.base.home import Home, SessionFile, absolute_path
from sidtui.core.base.project import latest_in_project, lookup_project, projects_below
from sidtui.core.base.regular import kind_of


def resolve_session(
    home: Home,
    arg: str,
    files: list[SessionFile] | None = None,
    cwd: Path | None = None,
) -> SessionFile:
    """Resolve a session argument: a path, a full id, a unique id prefix, the short id the
    app's list shows (a unique prefix of the id's last ``-`` part), or ``latest``.

    Main sessions win over sidechains: ``20261130-052917-0c88f996`` names the main file
    even though its sidechains share the prefix. ``latest`` is the agent's ``-c``: the most
    recent session of the project containing ``cwd`` (default: the process's cwd), looked
    up only in that project's folder.

    Raises:
        SessionNotFound: nothing matches (``candidates`` lists near ids).
        AmbiguousSession: a prefix matches several sessions (``candidates`` lists them).
    """
    if arg == "latest":
        return resolve_latest(home, cwd)
    if not arg.strip():
        raise UsageError("empty session id (give an id, a unique id prefix, a path or `latest`)")
    p = Path(arg).expanduser()
    looks_like_path = "/" in arg or arg.endswith((".jsonl", ".json"))
    exists = looks_like_path and path_exists(arg)  # an id is never looked up on disk
    if looks_like_path and not exists:
        if os.path.lexists(p):  # a symlink: exists() says False for a loop as for no target
            try:
                os.stat(p)
            except OSError as exc:
                if exc.errno == errno.ELOOP:  # there, but it cannot be read
                    raise _unreadable_path(arg, exc) from None
        raise SessionNotFound(f"no such file: {arg}")
    if looks_like_path and exists:
        try:
            is_file = p.is_file()
        except OSError as exc:
            raise _unreadable_path(arg, exc) from None
        if not is_file:
            raise UsageError(f"{arg} is {_what_is(p)}")
        p = absolute_path(p)  # what was typed, resolved once (show --json's path, a watch)
        _refuse_non_session_file(home, p)
        parent = p.resolve().parent
        project = "" if parent == home.sessions_dir.resolve() else parent.name
        sf = classify_file(p, project)
        if sf is None:
            raise UsageError(f"{arg} is not a session file (.jsonl or .json)")
        return sf
    searched_all = files is None
    if files is None:
        files = discover(home)
    key = arg.removesuffix(".jsonl").removesuffix(".json")
    # transcript names that cannot be stat'ed (a symlink loop, ...): looked for only when
    # no readable session answers at that level, so a good match costs nothing more
    unread: list[tuple[Path, str]] | None = None if searched_all else []
    exact = [f for f in files if f.session_id == key]
    for kind in ("main", "sidechain"):
        hits = [f for f in exact if f.kind == kind]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise AmbiguousSession(
                f"session id {key!r} exists in several places", [_describe(f) for f in hits]
            )
    if unread is None:
        unread = unreadable_transcripts(home)
    refuse_unreadable(arg, [u for u in unread if _stem(u[0]) == key])
    for kind in ("main", "sidechain"):
        hits = [f for f in files if f.kind == kind and f.session_id.startswith(key)]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise AmbiguousSession(
                f"{key!r} matches {len(hits)} sessions; give more of the id",
                [_describe(f) for f in hits],
            )
    refuse_unreadable(arg, [u for u in unread if _stem(u[0]).startswith(key)])
    if "-" not in key and len(key) >= 4:  # the short id the app's list shows: the id's tail
        hits = [
            f
            for f in files
            if f.kind == "main"
            and "-" in f.session_id
            and f.session_id.rsplit("-", 1)[1].startswith(key)
        ]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise AmbiguousSession(
                f"{key!r} ends {len(hits)} session ids; give more of the id",
                [_describe(f) for f in hits],
            )
    near = _near(key, files)
    why = ""
    folders = [str(f) for f, _ in unreadable_folders(home)] if searched_all else []
    if folders:
        noun = "folder" if len(folders) == 1 else "folders"
        why = f" ({noun} {', '.join(folders)} could not be read)"
    raise SessionNotFound(f"no session matches {arg!r} under {home.sessions_dir}{why}", near)


def _what_is(p: Path) -> str:
    """What a session path that is not a regular file is, for a usage error."""
    try:
        mode = p.stat().st_mode
    except OSError:
        return "not a file"
    return "a folder, not a file" if stat.S_ISDIR(mode) else f"not a regular file ({kind_of(mode)})"


def _stem(path: Path) -> str:
    return path.name.removesuffix(".jsonl").removesuffix(".json")


def refuse_unreadable(arg: str, hits: list[tuple[Path, str]]) -> None:
    """Raise for a session argument that only names files which cannot be read.

    One such file: exit 1 with the wording ``show PATH`` gives it (``cannot read PATH:
    Too many levels of symbolic links``); several: ambiguous (exit 2), each listed with
    its reason. No hit: returns.
    """
    if len(hits) == 1:
        path, why = hits[0]
        raise UnreadableInput(f"cannot read {path}: {why}")
    if hits:
        raise AmbiguousSession(
            f"{arg!r} matches {len(hits)} session files that cannot be read",
            [f"{p}  (cannot read: {why})" for p, why in hits],
        )


def _unreadable_path(arg: str, exc: OSError) -> UnreadableInput:
    """The error for a session path that cannot be looked at (the wording ``show`` gives
    a file it cannot read)."""
    if isinstance(exc, PermissionError):
        return UnreadableInput(f"permission denied reading {arg}")
    return UnreadableInput(f"cannot read {arg}: {exc.strerror or exc}")


def path_exists(arg: str) -> bool:
    """Whether the session argument ``arg`` (``~`` expanded) names something on disk.

    Raises:
        UnreadableInput: it cannot be told (a parent folder we may not search:
            ``permission denied reading …``). A name too long for the system is not
            on disk (False).
    """
    try:
        return Path(arg).expanduser().exists()
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:  # no file can have that name: not on disk
            return False
        raise _unreadable_path(arg, exc) from None
    except ValueError:  # an embedded NUL byte: not a path
        return False


def home_root_of(path: str | os.PathLike[str]) -> Path | None:
    """The home root a session file lies in, from its place, or None.

    ``<root>/sessions/<project>/<file>`` (``_legacy`` is a project folder here) or a flat
    ``<root>/sessions/<file>`` gives ``<root>``. The folder is resolved (``..``, symlinked
    folders), the file name is not followed.
    """
    try:
        parent = Path(path).expanduser().absolute().parent.resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    if parent.parent.name == "sessions" and parent.name != "summaries":
        return parent.parent.parent
    if parent.name == "sessions":
        return parent.parent
    return None


def resolve_latest(home: Home, cwd: Path | None = None) -> SessionFile:
    """``latest``: the newest main session of ``cwd``'s project, as the agent's ``-c``.

    Every verb (``show``, ``undo``, ``rewind``, ``fork``, ...) resolves ``latest`` here.

    Args:
        home: the home.
        cwd: the current directory (default: the process's).

    Raises:
        SessionNotFound: the project has no folder or no main session in it; the
            message names the cwd and the folder the agent would scan, ``candidates``
            lists projects whose sessions ran below ``cwd`` (where to ``cd``).
    """
    here = cwd or Path.cwd()
    look = lookup_project(home, here)
    found = latest_in_project(home, here, look)
    if found is not None:
        return found
    hints = [f"{root}  (folder {name})" for root, name in projects_below(home, look.cwd)]
    where = "; projects below it: cd into one, or give a session id" if hints else ""
    raise SessionNotFound(
        f"no session of the project for {look.cwd} (folder {look.folder or look.key}) "
        f"under {home.sessions_dir}{where}",
        hints,
    )


def _refuse_non_session_file(home: Home, p: Path) -> None:
    """Raise a usage error for files of the home that are not transcripts (FORMAT.md §1.4)."""
    parts = p.resolve().parts
    name = p.name
    reason = None
    if "summaries" in parts[-2:-1]:
        reason = "a session summary, not a transcript"
    elif name == "index.json" and "checkpoints" in parts:
        reason = "a checkpoint index (use `sidtui checkpoints SESSION`)"
    elif name == "history.jsonl":
        reason = "the prompt history, not a session"
    elif "active-sessions" in parts or "file-intents" in parts:
        reason = "a process registration, not a session"
    if reason:
        raise UsageError(f"{p} is {reason}")


def _describe(f: SessionFile) -> str:
    where = f.project or "(flat)"
    return f"{f.session_id}  [{f.kind}, {where}]  {f.path}"


def _near(key: str, files: list[SessionFile]) -> list[str]:
    import difflib

    ids = [f.session_id for f in files if f.kind == "main"]
    return difflib.get_close_matches(key, ids, n=5, cutoff=0.5)


def given_file(arg: str) -> Path:
    """The transcript file a session argument names as a path (``~`` expanded).

    Raises:
        SessionNotFound: nothing is there. UsageError: it is no file.
        UnreadableInput: it cannot be looked at.
    """
    p = Path(arg).expanduser()
    try:
        if not p.exists():
            raise SessionNotFound(f"no such file: {arg}")
        if not p.is_file():
            raise UsageError(f"{arg} is not a file")
    except OSError as exc:
        raise UnreadableInput(f"cannot read {arg}: {exc.strerror or exc}") from None
    return p

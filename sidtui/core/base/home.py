"""The sid-code home and its layout (FORMAT.md §1).

``Home.resolve`` picks the root (``--home``, else ``$SID_CONFIG_DIR``, else ``~/.sid-code``);
core code never calls ``Path.home()`` elsewhere (but :func:`user_home`, for the project
root rule). :func:`discover` lists the session files
(v1 ``.json``, v2/v3 ``.jsonl``, sidechains known by their first record, the legacy flat
layout) by scanning folders, never by recomputing project keys; :func:`resolve_session`
finds one by id, id prefix or path.

Design notes: docs/ARCHITECTURE.md, “core/base/home.py”.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import orjson

from sidtui.core.base.errors import AmbiguousSession, SessionNotFound, UnreadableInput, UsageError
from sidtui.core.base.jsonparse import (
    JS_WHITESPACE,
    JSONParseError,
    decode_text,
    is_blank,
    parse_line,
)
from sidtui.core.base.regular import NotRegularFile, kind_of, open_regular, read_regular

SESSION_ID_RE = re.compile(r"^\d{8}-\d{6}-[0-9a-f]{8}$")
_SAFE_ID_RE = re.compile(r"[^A-Za-z0-9_-]")
FIRST_LINE_CAP = 1 << 20  # a first record larger than 1 MiB is not a sidechain header


def safe_id(session_id: str) -> str:
    """``safeId``: every char outside ``[A-Za-z0-9_-]`` replaced by ``_`` (FORMAT.md §1.2)."""
    return _SAFE_ID_RE.sub("_", session_id)


def _absolute(p: str | os.PathLike[str]) -> Path:
    """``p`` with ``~`` expanded, made absolute against the current folder (``..`` folded,
    symbolic links kept)."""
    return Path(os.path.abspath(os.path.expanduser(os.fspath(p))))


@dataclass(frozen=True)
class Home:
    """A sid-code home root. All paths derive from here (injected, never global)."""

    root: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root))

    @classmethod
    def resolve(cls, home: str | os.PathLike[str] | None, env: Mapping[str, str]) -> Home:
        """``home`` if given, else ``env["SID_CONFIG_DIR"]``, else ``~/.sid-code``, made
        absolute once, here (a relative home means the folder sidtui was started in, for
        every verb: a watcher's events and printed paths are absolute).

        Raises:
            UsageError: ``home`` is an empty string (``--home ""``, e.g. an unset
                variable): never silently the default home.
        """
        if home is not None:
            if not os.fspath(home).strip():
                raise UsageError("--home needs a folder (it was given an empty string)")
            return cls(_absolute(home))
        configured = env.get("SID_CONFIG_DIR")
        if configured:
            return cls(_absolute(configured))
        return cls(_absolute(Path(env.get("HOME") or Path.home()) / ".sid-code"))

    @property
    def sessions_dir(self) -> Path:
        return self.root / "sessions"

    @property
    def checkpoints_dir(self) -> Path:
        return self.root / "checkpoints"

    @property
    def active_sessions_dir(self) -> Path:
        return self.root / "active-sessions"

    @property
    def file_intents_dir(self) -> Path:
        return self.root / "file-intents"

    @property
    def history_path(self) -> Path:
        return self.root / "history.jsonl"

    def checkpoint_index(self, session_id: str) -> Path:
        """``checkpoints/<sessionId>/index.json``."""
        return self.checkpoints_dir / session_id / "index.json"

    def require(self) -> Home:
        """Raise :class:`UsageError` (exit 2) when the root is not a readable directory."""
        if not self.root.exists():
            raise UsageError(
                f"no sid-code home at {self.root} (pass --home DIR or set SID_CONFIG_DIR; "
                "`sidtui demo` builds one to explore)"
            )
        if not self.root.is_dir():
            raise UsageError(f"sid-code home {self.root} is not a directory")
        return self


@dataclass(frozen=True)
class SessionFile:
    """One transcript file found under ``sessions/``.

    Attributes:
        path: the file.
        session_id: for a main file its stem; for a sidechain ``<parentId>-<agentId>``.
        project: the folder name under ``sessions/`` (``_legacy``, or ``""`` for a flat file).
        kind: ``"main"`` or ``"sidechain"``.
        container: ``"jsonl"`` or ``"json"`` (v1 whole-file JSON).
        parent_session_id: for a sidechain, the parent's id (from its first record).
        agent_id: for a sidechain, the agent id (from its first record).
    """

    path: Path
    session_id: str
    project: str
    kind: str = "main"
    container: str = "jsonl"
    parent_session_id: str | None = None
    agent_id: str | None = None

    @property
    def summary_path(self) -> Path:
        """``summaries/<sessionId>.json`` beside the file (may not exist)."""
        return self.path.parent / "summaries" / f"{self.session_id}.json"


def read_first_line(path: Path, cap: int = FIRST_LINE_CAP) -> bytes:
    """The file's first line (without ``\\n``), at most ``cap`` bytes; b"" on I/O errors
    and for anything but a regular file (a FIFO is never opened for a blocking read)."""
    try:
        fd, _ = open_regular(path)
    except (OSError, NotRegularFile):
        return b""
    try:
        buf = b""
        while len(buf) < cap:
            b = os.read(fd, min(8192, cap - len(buf)))
            if not b:
                break
            buf += b
            if b"\n" in b:
                break
    except OSError:
        return b""
    finally:
        os.close(fd)
    return first_line_of(buf, cap)


def _first_value(head: bytes) -> tuple[object, bool]:
    """The first line of ``head`` (a file's first bytes) that JSON.parse accepts, as the
    agent's sidechain readers find it: the whitespace ``trim()`` removes before the first
    record, blank lines and lines JSON.parse rejects are skipped. ``(value, found)``."""
    if head[:1] != b"{":  # the whitespace run before the first record, over any lines
        head = decode_text(head).lstrip(JS_WHITESPACE).encode("utf-8", "surrogatepass")
    for line in head.split(b"\n"):
        if is_blank(line):
            continue
        try:
            return parse_line(line), True
        except JSONParseError:
            continue
    return None, False


def _sidechain_header(path: Path, first: bytes | None = None) -> dict | None:
    """The ``sidechain_start`` record when the file is a sidechain, else None: its first
    line JSON.parse accepts (:func:`_first_value`) is one. ``first``: the file's first
    line when already read; the rest of its first MiB is read only when that line is
    blank or unreadable (tests/fixtures/oracle-cases/sidechain-first-line)."""
    head = first if first is not None else read_first_line(path)
    line1 = head.split(b"\n", 1)[0]
    if b"sidechain_start" not in line1 and line1[:1] == b"{":
        try:
            orjson.loads(line1)
            return None  # the usual file: its first line is a record, and no sidechain's
        except orjson.JSONDecodeError:
            pass
    rec, found = _first_value(head)
    if not found:  # the first line is blank or unreadable: the agent reads on
        try:
            rec, found = _first_value(read_regular(path, FIRST_LINE_CAP, head=True))
        except (OSError, NotRegularFile):
            return None
    if isinstance(rec, dict) and rec.get("type") == "sidechain_start":
        return rec
    return None


def first_line_of(data: bytes, cap: int = FIRST_LINE_CAP) -> bytes:
    """What :func:`read_first_line` returns for a file whose bytes are ``data``."""
    nl = data.find(b"\n", 0, cap)
    return (data[:cap] if nl < 0 else data[: nl + 1]).rstrip(b"\r\n")


def classify_file(path: Path, project: str, first_line: bytes | None = None) -> SessionFile | None:
    """A :class:`SessionFile` for ``path``, or None when it is not a transcript.

    Args:
        path: the file.
        project: its folder name under ``sessions/``.
        first_line: the file's first line when the caller already read the bytes
            (:func:`first_line_of`), so the file is not opened twice.
    """
    name = path.name
    if name.endswith(".jsonl"):
        stem = name[: -len(".jsonl")]
        header = _sidechain_header(path, first_line)
        if header is not None:
            parent = header.get("sessionId")
            agent = header.get("agentId")
            return SessionFile(
                path,
                stem,
                project,
                kind="sidechain",
                parent_session_id=parent if isinstance(parent, str) else None,
                agent_id=agent if isinstance(agent, str) else None,
            )
        return SessionFile(path, stem, project)
    if name.endswith(".json"):
        return SessionFile(path, name[: -len(".json")], project, container="json")
    return None


def _iter_dir(folder: Path, errors: list[str] | None = None) -> Iterator[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as it:
            yield from sorted(it, key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError as exc:  # permission denied, I/O error: reported, never silent
        if errors is not None:
            errors.append(f"cannot read folder {folder}: {exc.strerror or exc}")
        return


def _is_transcript_name(name: str) -> bool:
    return name.endswith((".jsonl", ".json"))


def entry_is_file(e: os.DirEntry[str], errors: list[str] | None = None) -> bool:
    """``e.is_file()`` that never raises: an entry that cannot be stat'ed (a symlink
    loop, a link into a folder we may not search, a target name too long) is not a file.

    Such an entry whose name is a transcript's (``.jsonl``/``.json``) is named in
    ``errors`` (it may be a session we cannot read), as is a symbolic link of that name
    to nothing; any other name is skipped quietly, as non-transcript files are.
    """
    try:
        if e.is_file():
            return True
    except OSError as exc:
        if errors is not None and _is_transcript_name(e.name):
            errors.append(f"cannot read {e.path}: {exc.strerror or exc}")
        return False
    if errors is not None and _is_transcript_name(e.name):
        why = odd_transcript_entry(e)
        if why:
            errors.append(f"cannot read {e.path}: {why}")
    return False


#: Why a transcript name that is a symbolic link to nothing is not listed.
DANGLING_LINK = "a symbolic link to a file that does not exist"
#: Why a folder with a transcript's name (``x.jsonl/``) is not listed.
NOT_A_FILE = "a folder, not a file"


def odd_transcript_entry(e: os.DirEntry[str]) -> str | None:
    """Why an entry with a transcript's name that is not a regular file is none: a link to
    nothing, a folder or a link to one, a FIFO, a device or a socket (or a link to one);
    None when it can be told no better (its type cannot be read)."""
    try:
        st = os.stat(e.path)
    except OSError:
        return DANGLING_LINK if e.is_symlink() else None
    if stat.S_ISDIR(st.st_mode):
        return NOT_A_FILE
    kind = kind_of(st.st_mode)
    if e.is_symlink():
        return f"a symbolic link to {os.readlink(e.path)}, {kind}: not a regular file"
    return f"not a regular file ({kind})"


def _entry_is_dir(e: os.DirEntry[str]) -> bool:
    """``e.is_dir(follow_symlinks=False)`` that never raises (an lstat failure: not one)."""
    try:
        return e.is_dir(follow_symlinks=False)
    except OSError:
        return False


def project_folders(home: Home, errors: list[str] | None = None) -> list[str]:
    """Project folder names under ``sessions/`` (``_legacy`` included), sorted.

    ``errors``, if given, gets one line when ``sessions/`` itself cannot be read.
    """
    return [
        e.name
        for e in _iter_dir(home.sessions_dir, errors)
        if e.name != "summaries" and _entry_is_dir(e)
    ]


def unreadable_folders(home: Home, project: str | None = None) -> list[tuple[Path, str]]:
    """``(folder, reason)`` of each folder a listing of ``project`` would read but cannot.

    Args:
        home: the home.
        project: a folder name under ``sessions/`` (``""``: the flat files), or None for
            ``sessions/`` and every project folder in it.

    Returns:
        The unreadable folders in listing order (a file in a folder's place is one: "not
        a folder"); a missing folder is not one.
    """
    base = home.sessions_dir
    if project is None:
        folders = [base, *(base / name for name in project_folders(home))]
    else:
        folders = [base / project] if project else [base]
    out: list[tuple[Path, str]] = []
    for folder in folders:
        try:
            with os.scandir(folder):
                pass
        except FileNotFoundError:
            if os.path.islink(folder):  # there, but pointing at nothing
                out.append((folder, "a symbolic link to a folder that does not exist"))
            continue
        except NotADirectoryError:
            if os.path.lexists(folder):  # a file where the folder should be
                out.append((folder, "not a folder"))
        except OSError as exc:
            out.append((folder, exc.strerror or str(exc)))
    return out


def empty_home_hint(home: Home) -> str:
    """Why a listing of ``home`` found no session, for a person: what was looked for and
    where, and the likely home when the root looks like the folder around one
    (``DIR/home/sessions``, the layout ``sidtui demo --dir DIR`` writes, or
    ``DIR/.sid-code``, the agent's default name). Reads only folder metadata.

    Returns:
        One line, or two with the hint (no trailing newline).
    """
    import shlex

    sessions = home.sessions_dir
    if sessions.is_dir():
        what = f"no sessions under {sessions} (looked for <project>/<id>.jsonl and .json files)"
    else:
        what = f"no sessions: {sessions} does not exist (sessions live in <home>/sessions/)"
    for inner, mark in ((home.root / "home", "sessions"), (home.root / ".sid-code", "")):
        if (inner / mark).is_dir():
            found = inner / mark if mark else inner
            return f"{what}\n{found} exists: try sidtui --home {shlex.quote(str(inner))}"
    return what


def candidate_files(
    home: Home, project: str | None = None, errors: list[str] | None = None
) -> list[tuple[Path, str]]:
    """``(path, project folder)`` of every file :func:`discover` looks at, in its order.

    Nothing is opened: a caller that reads each file anyway (``ls``) classifies it from
    the bytes it read (:func:`classify_file` with :func:`first_line_of`).
    """
    found: list[tuple[Path, str]] = []
    if project is None or project == "":
        found += [
            (Path(e.path), "")
            for e in _iter_dir(home.sessions_dir, errors)
            if entry_is_file(e, errors)
        ]
    folders = project_folders(home) if project is None else ([project] if project else [])
    for name in folders:
        found += [
            (Path(e.path), name)
            for e in _iter_dir(home.sessions_dir / name, errors)
            if entry_is_file(e, errors)
        ]
    return found


def discover(
    home: Home, project: str | None = None, errors: list[str] | None = None
) -> list[SessionFile]:
    """Every transcript under ``sessions/``, main files and sidechains.

    Args:
        home: the home.
        project: only this project folder (its name under ``sessions/``; ``""`` for the
            flat files of the old layout).
        errors: if given, one line is appended per folder that could not be read.

    Returns:
        SessionFiles sorted by project then file name. Unreadable folders are skipped
        (and named in ``errors``).
    """
    found: list[SessionFile] = []
    for path, name in candidate_files(home, project, errors):
        sf = classify_file(path, name)
        if sf is not None:
            found.append(sf)
    return found


def resolve_session(
    home: Home,
    arg: str,
    files: list[SessionFile] | None = None,
    cwd: Path | None = None,
) -> SessionFile:
    """Resolve a session argument: a path, a full id, a unique id prefix, or ``latest``.

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
        p = _absolute(p)  # what was typed, resolved once (show --json's path, a watch)
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
    _refuse_unreadable(arg, [u for u in unread if _stem(u[0]) == key])
    for kind in ("main", "sidechain"):
        hits = [f for f in files if f.kind == kind and f.session_id.startswith(key)]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise AmbiguousSession(
                f"{key!r} matches {len(hits)} sessions; give more of the id",
                [_describe(f) for f in hits],
            )
    _refuse_unreadable(arg, [u for u in unread if _stem(u[0]).startswith(key)])
    near = _near(key, files)
    why = ""
    folders = [str(f) for f, _ in unreadable_folders(home)] if searched_all else []
    if folders:
        noun = "folder" if len(folders) == 1 else "folders"
        why = f" ({noun} {', '.join(folders)} could not be read)"
    raise SessionNotFound(f"no session matches {arg!r} under {home.sessions_dir}{why}", near)


def unreadable_transcripts(home: Home) -> list[tuple[Path, str]]:
    """``(path, reason)`` of every transcript name under ``sessions/`` that cannot be
    looked at (a symlink loop, a link through a folder we may not search) or is not a
    regular file (a FIFO, a device, a link to one): the entries :func:`discover` skips and
    names in its ``errors``, in its order."""
    out: list[tuple[Path, str]] = []
    for folder in (home.sessions_dir, *(home.sessions_dir / n for n in project_folders(home))):
        for e in _iter_dir(folder):
            if _is_transcript_name(e.name):
                try:
                    if e.is_file():
                        continue
                except OSError as exc:
                    out.append((Path(e.path), exc.strerror or str(exc)))
                    continue
                why = odd_transcript_entry(e)  # a FIFO, a device (a dangling link: missing)
                if why and why not in (DANGLING_LINK, NOT_A_FILE):
                    out.append((Path(e.path), why))
    return out


def _what_is(p: Path) -> str:
    """What a session path that is not a regular file is, for a usage error."""
    try:
        mode = p.stat().st_mode
    except OSError:
        return "not a file"
    return "a folder, not a file" if stat.S_ISDIR(mode) else f"not a regular file ({kind_of(mode)})"


def _stem(path: Path) -> str:
    return path.name.removesuffix(".jsonl").removesuffix(".json")


def _refuse_unreadable(arg: str, hits: list[tuple[Path, str]]) -> None:
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


def _first_record_field(sf: SessionFile, key: str) -> str | None:
    first = read_first_line(sf.path)
    try:
        rec = orjson.loads(first)
    except orjson.JSONDecodeError:
        return None
    if isinstance(rec, dict):
        value = rec.get(key)
        return value if isinstance(value, str) else None
    return None


def session_cwd(sf: SessionFile) -> str | None:
    """The ``cwd`` of a session's first record (``session_start``), or None."""
    return _first_record_field(sf, "cwd")


def session_ids(sf: SessionFile) -> set[str]:
    """Every id a session file goes by: its name's id and its first record's ``sessionId``
    (they differ for a renamed or copied file). Registrations match any of them."""
    ids = {sf.session_id}
    if sf.kind == "main" and sf.container == "jsonl":
        own = _first_record_field(sf, "sessionId")
        if own:
            ids.add(own)
    return ids


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
    if key != "_legacy" and (home.sessions_dir / key).is_dir():
        return ProjectLookup(here, root, key, key)
    for name in project_folders(home):
        if name == "_legacy":
            continue
        # any session of the folder, not only its first: a folder whose first session
        # ran in a subfolder (a repo without its .git now) still holds the top's sessions
        if any(r == root for r in _main_roots(home, name)):
            return ProjectLookup(here, root, key, name)
    return ProjectLookup(here, root, key, None)


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

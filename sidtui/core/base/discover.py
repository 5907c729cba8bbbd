"""Finding the transcripts of a home (FORMAT.md §1).

:func:`discover` lists the session files (v1 ``.json``, v2/v3 ``.jsonl``, sidechains known
by their first record, the legacy flat layout) by scanning folders, never by recomputing
project keys; entries with a transcript's name that cannot be read are named, never silently
skipped. A file's first record tells its kind (:func:`classify_file`), ``cwd`` and ids.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import orjson

from sidtui.core.base.home import Home, SessionFile
from sidtui.core.base.jsonparse import (
    JS_WHITESPACE,
    JSONParseError,
    decode_text,
    is_blank,
    parse_line,
)
from sidtui.core.base.regular import NotRegularFile, kind_of, open_regular, read_regular

FIRST_LINE_CAP = 1 << 20  # a first record larger than 1 MiB is not a sidechain header


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


def skipped_entry_reason(e: os.DirEntry) -> str | None:
    """Why a transcript-named entry is skipped as not a regular file (a FIFO, a device, a
    folder, a link to one; the error when it cannot be looked at), or None: a regular file,
    or a dangling link (a missing file, not an odd one)."""
    try:
        if e.is_file():
            return None
    except OSError as exc:
        return exc.strerror or str(exc)
    why = odd_transcript_entry(e)
    return why if why and why != DANGLING_LINK else None


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
    home: Home,
    project: str | None = None,
    errors: list[str] | None = None,
    *,
    include_sidechains: bool = True,
) -> list[SessionFile]:
    """Every transcript under ``sessions/``, main files and sidechains.

    Args:
        home: the home.
        project: only this project folder (its name under ``sessions/``; ``""`` for the
            flat files of the old layout).
        errors: if given, one line is appended per folder that could not be read.
        include_sidechains: also list sidechain files (else main files only).

    Returns:
        SessionFiles sorted by project then file name. Unreadable folders are skipped
        (and named in ``errors``).
    """
    found: list[SessionFile] = []
    for path, name in candidate_files(home, project, errors):
        sf = classify_file(path, name)
        if sf is not None and (include_sidechains or sf.kind == "main"):
            found.append(sf)
    return found


def unreadable_transcripts(home: Home) -> list[tuple[Path, str]]:
    """``(path, reason)`` of every transcript name under ``sessions/`` that cannot be
    looked at (a symlink loop, a link through a folder we may not search) or is not a
    regular file (a FIFO, a device, a folder, a link to one): the entries :func:`discover` skips and
    names in its ``errors``, in its order."""
    out: list[tuple[Path, str]] = []
    for folder in (home.sessions_dir, *(home.sessions_dir / n for n in project_folders(home))):
        for e in _iter_dir(folder):
            if _is_transcript_name(e.name) and (why := skipped_entry_reason(e)):
                out.append((Path(e.path), why))
    return out


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


def require_project(home: Home, project: str | None) -> None:
    """Raise a usage error (exit 2) when ``--project KEY`` names no folder under sessions/.

    Raises:
        UsageError: no such folder (the folders listed), or a path or empty name.
        UnreadableInput: ``sessions/`` cannot be searched (exit 1).
    """
    import errno

    from sidtui.core.base.errors import UnreadableInput, UsageError

    if project is not None and ("/" in project or project in ("", ".", "..")):
        what = "an empty name" if not project else "a path"
        raise UsageError(f"--project takes a folder name under {home.sessions_dir}, not {what}")
    if project is None:
        return
    try:
        if (home.sessions_dir / project).is_dir():
            return
    except OSError as exc:  # sessions/ itself may not be searched
        if exc.errno != errno.ENAMETOOLONG:  # (a name too long is no folder: usage error)
            raise UnreadableInput(
                f"cannot read folder {home.sessions_dir / project}: {exc.strerror or exc}"
            ) from None
    raise UsageError(
        f"no project folder {project!r} under {home.sessions_dir} "
        f"(projects: {', '.join(project_folders(home)) or 'none'})"
    )

"""Per-session summaries of a Claude Code home, for ``ls`` and the catalog.

A summary is the same :class:`~sidtui.core.views.listing.SessionSummary` row a sid-code
session gives (one table for both sources): the file read into the model
(:func:`~.transcript.load_transcript`, no subagents), its title (docs/CLAUDE-CODE.md §9),
how it ended (§6) and whether a running process writes it (§8). Claude Code writes no
cost and no ``session_end``: those stay empty. A transcript with no message (zero bytes,
only summaries) is a session without messages, not an unloadable one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from stat import S_ISREG

from sidtui.core.base.errors import SidtuiError, UnreadableInput
from sidtui.core.base.pool import ordered_map
from sidtui.core.base.regular import kind_of, open_regular
from sidtui.core.claude.layout import ClaudeFile, ClaudeHome, discover, file_for_path
from sidtui.core.claude.liveness import ClaudeRegistration, read_processes, session_liveness
from sidtui.core.claude.session import ClaudeSessionView, describe
from sidtui.core.claude.transcript import load_transcript, whole_max
from sidtui.core.transcript.source import FileSource, transcript_from_fd
from sidtui.core.views.listing import CHUNK_FILES, Summarized, iso_from_ns, workers_for
from sidtui.core.views.summary import SessionSummary

#: ``load_failure`` of a transcript with no message (Claude Code's resume lists none).
NO_MESSAGES = "no messages (an empty session)"


def summarize(
    home: ClaudeHome | None,
    cf: ClaudeFile,
    *,
    processes: list[ClaudeRegistration] | None = None,
    data: bytes | FileSource | None = None,
    st: os.stat_result | None = None,
) -> SessionSummary:
    """The ``ls`` row of one Claude Code transcript.

    Raises:
        UnreadableInput: the file cannot be read.
    """
    if data is None:
        data, st = _read(cf.path)
    tr = load_transcript(cf, data)
    view = ClaudeSessionView(home, tr)
    describe(view)
    it = tr.interruption
    has_messages = bool(tr.messages)
    main = cf.kind == "main"  # a main file's first prompt is never a sub-agent's
    first = next((m for m in tr.messages if m.is_human_prompt and not (main and m.sidechain)), None)
    last_ts = next((o.timestamp for o in reversed(tr.scan.objs) if o.timestamp), None)
    s = SessionSummary(
        session_id=cf.session_id,
        project=cf.project,
        path=str(cf.path),
        kind=cf.kind,
        container="jsonl",
        format_version=view.version,
        started=view.created_at,
        last_activity=max(filter(None, (view.updated_at, last_ts)), default=None),
        model=view.model,
        cwd=view.cwd,
        records=len(tr.scan),
        bytes=len(data),
        interruption=it.kind if has_messages else None,
        tool_names=list(it.tool_names) if it.kind == "interrupted_turn" else None,
        loadable=has_messages,
        load_failure=None if has_messages else NO_MESSAGES,
        first_prompt=first.preview(120) if first is not None else None,
        # a title of its own only (sid-code's rule): the first prompt is already there
        title=view.title if view.title_source in ("custom-title", "ai-title", "summary") else None,
        parent_session_id=cf.parent_session_id if cf.kind == "sidechain" else None,
        trace_ids=[],
        source="claude-code",
        resume_lost=view.resume.lost_messages if view.resume is not None else None,
    )
    if cf.kind == "main":
        s.forked_from = forked_from(_head(data, cf.path), cf.session_id)
    if st is not None:
        s.mtime_ns, s.inode = st.st_mtime_ns, st.st_ino
        if s.last_activity is None:
            s.last_activity = iso_from_ns(st.st_mtime_ns)
    if cf.kind == "main":
        lv = session_liveness(cf.session_id, processes or [])
        s.live, s.stale = lv.live, lv.stale
    return s


#: How much of a large transcript's start is searched for ``forkedFrom`` (a copy's first
#: copied record carries it).
HEAD_BYTES = 1 << 18


def _head(data: bytes | FileSource, path: Path) -> bytes:
    """The transcript's bytes (a large one read in pieces: its first :data:`HEAD_BYTES`)."""
    if isinstance(data, bytes | bytearray):
        return bytes(data)
    try:
        with open(path, "rb") as fh:
            return fh.read(HEAD_BYTES)
    except OSError:
        return b""


def forked_from(data: bytes, own: str) -> str | None:
    """The session a transcript was copied from: the ``forkedFrom.sessionId`` of its first
    record that has one (what a fork, a conversation rewind or a repair writes on every
    record it copies); None when none names another session."""
    import orjson

    at = data.find(b'"forkedFrom"')
    if at < 0:
        return None
    start = data.rfind(b"\n", 0, at) + 1
    end = data.find(b"\n", at)
    try:
        d = orjson.loads(data[start : len(data) if end < 0 else end])
    except orjson.JSONDecodeError:
        return None
    ff = d.get("forkedFrom") if isinstance(d, dict) else None
    sid = ff.get("sessionId") if isinstance(ff, dict) else None
    return sid if isinstance(sid, str) and sid and sid != own else None


def _read(path: str | os.PathLike[str]) -> tuple[bytes | FileSource, os.stat_result]:
    """A transcript's bytes (a :class:`FileSource` when big or above the line ceiling) and
    the ``fstat`` of the same open file; only a regular file is opened (never waiting on a
    FIFO).

    Raises:
        UnreadableInput: it cannot be read, or is not a regular file.
    """
    try:
        fd, st = open_regular(path)
        return transcript_from_fd(path, fd, st, whole_max()), st
    except UnreadableInput:
        raise
    except OSError as exc:
        raise UnreadableInput(f"cannot read {path}: {exc.strerror or exc}") from None


def list_sessions(
    home: ClaudeHome,
    project: str | None = None,
    *,
    include_sidechains: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[SessionSummary], list[str]]:
    """Summaries of every Claude Code session under the home, newest activity first.

    Returns:
        (summaries, errors): a file that cannot be read is one error line.
    """
    errors: list[str] = []
    files = discover(home, project, errors, include_sidechains=include_sidechains)
    processes = read_processes(home)
    out: list[SessionSummary] = []
    for k, cf in enumerate(files, 1):
        try:
            out.append(summarize(home, cf, processes=processes))
        except SidtuiError as exc:
            errors.append(str(exc))
        if progress is not None:
            progress(k, len(files))
    out.sort(key=lambda s: (s.last_activity or "", s.session_id), reverse=True)
    return out, errors


def scan_files(
    home: ClaudeHome, stat: bool = True, errors: list[str] | None = None
) -> list[tuple[str, str, os.stat_result | None]]:
    """(path, project folder, stat) of every transcript under ``projects/`` (main files,
    flat and nested subagents), by path; nothing is opened (the catalog's warm path)."""
    out: list[tuple[str, str, os.stat_result | None]] = []

    append = out.append
    is_reg = S_ISREG

    def add(folder: str, project: str, agents_only: bool) -> list[os.DirEntry[str]]:
        dirs = []
        try:
            with os.scandir(folder) as it:
                for e in it:
                    name = e.name
                    try:
                        if name.endswith(".jsonl") and (
                            not agents_only or name.startswith("agent-")
                        ):
                            if not stat:
                                if e.is_file():
                                    append((e.path, project, None))
                            elif is_reg((st := e.stat()).st_mode):  # one call: stat decides
                                append((e.path, project, st))
                            elif errors is not None and not agents_only:
                                errors.append(
                                    f"{e.path} is not a regular file ({kind_of(st.st_mode)}); "
                                    "skipped"
                                )
                        elif not agents_only and e.is_dir(follow_symlinks=False):
                            dirs.append(e)
                    except FileNotFoundError:
                        continue
                    except OSError as exc:
                        if errors is not None and name.endswith(".jsonl"):
                            errors.append(f"cannot read {e.path}: {exc.strerror or exc}")
        except OSError as exc:
            if errors is not None and not isinstance(exc, FileNotFoundError):
                errors.append(f"cannot read folder {folder}: {exc.strerror or exc}")
        return dirs

    try:
        with os.scandir(home.projects_dir) as it:
            projects = sorted(e.name for e in it if e.is_dir())
    except OSError:
        projects = []
    for name in projects:
        for d in add(str(home.projects_dir / name), name, False):
            add(os.path.join(d.path, "subagents"), name, True)
    out.sort()  # by path (paths are unique: the stats are never compared)
    return out


class _Job:
    """Summarize chunks of files (forked workers inherit it; see ``base.pool``)."""

    def __init__(
        self, home: ClaudeHome, processes: list[ClaudeRegistration], include_sidechains: bool
    ) -> None:
        self.home, self.processes, self.include_sidechains = home, processes, include_sidechains

    def chunk(self, items: list[tuple[str, str]]) -> list[Summarized | str | None]:
        out: list[Summarized | str | None] = []
        for path, _project in items:
            try:
                data, st = _read(path)
            except UnreadableInput as exc:
                out.append(str(exc))
                continue
            head = data[:4096] if isinstance(data, bytes) else data.read_any(0, 4096)
            cf = file_for_path(Path(path), head)
            if cf.kind == "sidechain" and not self.include_sidechains:
                out.append(None)
                continue
            try:
                s = summarize(self.home, cf, processes=self.processes, data=data, st=st)
            except SidtuiError as exc:
                out.append(str(exc))
                continue
            except Exception as exc:  # noqa: BLE001 - a catalog must not stop on a reader bug in one file
                out.append(
                    f"{path}: internal error while summarizing ({type(exc).__name__}: {exc})"
                )
                continue
            out.append(Summarized(s, (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)))
        return out


def summarize_files(
    home: ClaudeHome,
    items: Sequence[tuple[str, str]],
    *,
    registrations: list[ClaudeRegistration] | None = None,
    include_sidechains: bool = True,
    chunk_files: int = CHUNK_FILES,
) -> Iterator[list[Summarized | str | None]]:
    """Summarize many files chunk by chunk, as sid-code's
    :func:`~sidtui.core.views.listing.summarize_files` does (same rows, same parallel
    rules: forked workers for a big home when the caller runs no other thread)."""
    if registrations is None:
        registrations = read_processes(home)
    job = _Job(home, registrations, include_sidechains)
    items = list(items)
    n = max(1, chunk_files)
    chunks = [items[i : i + n] for i in range(0, len(items), n)]
    return ordered_map(job.chunk, chunks, workers_for(len(items)))

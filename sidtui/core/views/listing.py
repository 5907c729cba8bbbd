"""Per-session summaries for ``ls``, the catalog and the browser (FORMAT.md §2.6, §3.8).

:func:`summarize` answers "how did this session end, can the agent load it, is it running"
without decoding whole files: the fast path (:mod:`sidtui.core.views.fast_summary`) reads
a few lines of the usual main file; v1 JSON, linear legacy files, sidechains and anything it
meets that is unusual fall back to the full :func:`sidtui.core.views.session.open_session`.
The result is the same either way (a test checks both paths agree on every fixture).
:func:`list_sessions` and :func:`summarize_files` read each file once, on forked workers
for a big home (:func:`sidtui.core.base.pool.ordered_map`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Generator, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from sidtui.core.base.discover import FIRST_LINE_CAP, candidate_files, classify_file, first_line_of
from sidtui.core.base.errors import SidtuiError, UnreadableInput, unreadable
from sidtui.core.base.home import Home, SessionFile
from sidtui.core.base.jsonparse import is_blank
from sidtui.core.base.pool import can_fork, cores, ordered_map
from sidtui.core.base.regular import NotRegularFile, has_holes, kind_of, read_regular
from sidtui.core.resume.process import (
    Registration,
    liveness_for,
    read_registrations,
    trace_session_ids,
)
from sidtui.core.transcript.source import FileSource, line_ceiling
from sidtui.core.views.fast_summary import FallBack, fast_summary
from sidtui.core.views.summary import SessionSummary


def iso_from_ns(ns: int) -> str:
    """An mtime in ns as the agent's ISO-8601 UTC text (milliseconds, ``Z``)."""
    return (
        datetime.fromtimestamp(ns / 1e9, tz=UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


def _earlier(a: str | None, b: str | None) -> bool:
    """ISO time ``a`` is before ``b`` (False when either is missing or not a time)."""
    if not a or not b:
        return False
    try:
        ta = datetime.fromisoformat(a.replace("Z", "+00:00"))
        tb = datetime.fromisoformat(b.replace("Z", "+00:00"))
        return ta < tb
    except (ValueError, TypeError):  # not ISO, or one naive and one aware
        return False


def count_records(data: bytes) -> int:
    """Non-blank lines: a line of only whitespace is blank (``!line.trim()``, JS rules).

    Only used where the one-call decode of every line did not already give the count
    (files with blank or bad lines), so a split is fine here.
    """
    return sum(1 for line in data.split(b"\n") if line[:1] == b"{" or not is_blank(line))


def _start_session_id(data: Any) -> str | None:
    """``sessionId`` of the first record (``session_start``) of a transcript's bytes."""
    head = data[: 1 << 16] if isinstance(data, bytes) else data.read_any(0, 1 << 16)
    first = first_line_of(head)
    if b'"sessionId"' not in first:
        return None
    try:
        rec = orjson.loads(first)
    except orjson.JSONDecodeError:
        return None
    sid = rec.get("sessionId") if isinstance(rec, dict) else None
    return sid if isinstance(sid, str) else None


def _summary_file_title(sf: SessionFile) -> str | None:
    try:
        d = orjson.loads(read_regular(sf.summary_path, 1 << 20))
    except (OSError, UnreadableInput, orjson.JSONDecodeError):
        return None
    s = d.get("summary") if isinstance(d, dict) else None
    return s if isinstance(s, str) else None


def _full_summary(
    home: Home, sf: SessionFile, data: bytes | FileSource, registrations
) -> SessionSummary:
    # imported on the first fall-back: `ls` of usual files never builds a whole view
    from sidtui.core.views.session import open_session

    v = open_session(home, sf, data=data, registrations=registrations, with_sidechains=False)
    j = v.to_json()
    # the file-name id: what `show`, `rewind` and the agent's `--resume` look up
    s = SessionSummary(sf.session_id, sf.project, str(sf.path), sf.kind, sf.container)
    s.trace_ids = list(v.trace_ids)
    if sf.container == "json":
        s.records = len(v.loaded.messages)
    elif v.rf is not None and v.rf.source is not None:  # read in pieces: non-blank lines
        s.records = v.rf.count + len(v.rf.bad_lines)
    s.format_version = v.format_version
    s.started = v.loaded.created_at
    s.last_activity = v.loaded.updated_at
    s.model, s.provider, s.cwd = v.loaded.model, v.loaded.provider, v.loaded.cwd
    s.loadable = j["loadable"]
    s.load_failure = j["load_failure"]
    s.interruption = j["interruption"]["kind"]
    s.tool_names = j["interruption"]["tool_names"]
    if v.rf is not None and v.chain.chain:
        s.ended = v.rf.records[v.chain.chain[-1]].type == "session_end" and not v.chain.linear
        if v.chain.linear and v.rf.records:
            s.ended = v.rf.records[-1].type == "session_end"
    usage = v.loaded.metadata.get("usage_stats")
    if isinstance(usage, dict) and isinstance(usage.get("totalCostUSD"), (int, float)):
        s.cost_usd = float(usage["totalCostUSD"])
    if s.ended and v.rf is not None and s.loadable:  # same rule as the fast path
        end = v.rf.decode(v.rf.records[v.chain.chain[-1]])
        if isinstance(end, dict) and isinstance(end.get("totalCostUSD"), (int, float)):
            s.cost_usd = float(end["totalCostUSD"])
    title = v.loaded.metadata.get("session_name")
    s.title = title if isinstance(title, str) else None
    for m in v.loaded.messages:
        if m.is_human_prompt and m.preview():
            s.first_prompt = m.preview(120)
            break
    if v.sidechain is not None:
        s.parent_session_id = v.sidechain.parent_session_id
        s.started = v.sidechain.started_at
        s.last_activity = v.sidechain.ended_at or s.last_activity
        s.model = v.sidechain.model
        s.ended = v.sidechain.ended
        if v.sidechain.messages:
            s.first_prompt = v.sidechain.messages[0].preview(120)
        s.title = v.sidechain.description
    return s


#: The first read of a file in a listing: a sidechain not listed is not read further.
HEAD_READ = 256 * 1024


#: Files above this (or with holes) are summarized in pieces, never read whole.
WHOLE_READ_MAX = 1 << 30


def whole_read_max() -> int:
    """The largest transcript read whole: :data:`WHOLE_READ_MAX`, and never above the line
    ceiling (``SIDTUI_MAX_LINE_BYTES``): a file that big may hold a line too long to decode,
    so it is read in pieces, where a longer line is one bad line with its length, never
    copied whole (docs/DECISIONS.md, "Reading a hostile disk")."""
    return min(WHOLE_READ_MAX, line_ceiling())


#: O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused after the fstat).
_O_RDONLY = (
    os.O_RDONLY
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
)


def _regular(path: Any, st: os.stat_result) -> None:
    """Raise :class:`NotRegularFile` unless ``st`` is a regular file's."""
    if not stat.S_ISREG(st.st_mode):
        raise NotRegularFile(path, kind_of(st.st_mode))


def _read_rest(fd: int, chunks: list[bytes], want: int) -> bytes:
    """Read ``fd`` to its end (a short read of a regular file is its end)."""
    while True:
        b = os.read(fd, want)
        chunks.append(b)
        if len(b) < want:
            break
        want = 1 << 20  # the file grew since fstat
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def read_file(path: os.PathLike[str] | str) -> tuple[bytes | FileSource, os.stat_result]:
    """A file's bytes and its ``fstat`` from one open (size/mtime/inode of what was read);
    a :class:`FileSource` for a sparse file or one above :func:`whole_read_max`.

    Raises:
        UnreadableInput: the file cannot be opened or read.
    """
    try:
        fd = os.open(path, _O_RDONLY)
    except OSError as exc:
        raise unreadable(path, exc) from None
    try:
        st = os.fstat(fd)
        _regular(path, st)
        if st.st_size > whole_read_max() or has_holes(fd, st.st_size):  # never its apparent size
            return FileSource(path, os.fdopen(os.dup(fd), "rb", buffering=0), st.st_size), st
        return _read_rest(fd, [], st.st_size + 1), st
    except OSError as exc:
        raise unreadable(path, exc) from None
    finally:
        os.close(fd)


def summarize(
    home: Home,
    sf: SessionFile,
    *,
    registrations: list[Registration] | None = None,
    data: bytes | FileSource | None = None,
    st: os.stat_result | None = None,
    summary_file: bool | None = None,
) -> SessionSummary:
    """Summarize one session file (fast path when possible, see module docstring).

    Args:
        home: the home.
        sf: the file.
        registrations: pre-read registrations (read once per listing, not per file).
        data: the file's bytes if already read.
        st: the file's stat taken with ``data`` (else the file is stat'ed).
        summary_file: whether ``summaries/<id>.json`` exists, when the caller listed the
            folder (None: try to read it).

    Returns:
        A :class:`SessionSummary`.

    Raises:
        UnreadableInput: the file cannot be read.
    """
    if data is None:
        data, st = read_file(sf.path)
    elif st is None:
        try:
            st = os.stat(sf.path)
        except OSError:
            st = None
    if registrations is None:
        registrations = read_registrations(home)
    s: SessionSummary
    tids: list[str] | None = None
    if sf.container == "jsonl" and sf.kind == "main" and isinstance(data, bytes):
        try:
            s, tids = fast_summary(sf, data)
        except FallBack:
            s = _full_summary(home, sf, data, registrations)
    else:  # v1, sidechains, and files read in pieces (FileSource)
        s = _full_summary(home, sf, data, registrations)
        if not isinstance(data, bytes):
            tids = s.trace_ids or []
    if sf.container == "jsonl" and not s.records and isinstance(data, bytes):
        s.records = count_records(data)
    s.bytes = len(data)
    if st is not None:
        s.mtime_ns, s.inode = st.st_mtime_ns, st.st_ino
        if s.last_activity is None:
            s.last_activity = iso_from_ns(st.st_mtime_ns)
    if _earlier(s.last_activity, s.started):
        # a fork's copied records keep their old times after its new start: it was last
        # active when it started (docs/DECISIONS.md, "Last activity of a fork")
        s.last_activity = s.started
    if s.title is None and sf.kind == "main" and summary_file is not False:
        s.title = _summary_file_title(sf)
    if sf.kind == "main":
        if tids is None:
            text = data if sf.container == "jsonl" and isinstance(data, bytes) else None
            tids = trace_session_ids(text) if text is not None else []  # (pieces: the view's)
        own = _start_session_id(data) if sf.container == "jsonl" else None
        if own and own != s.session_id and own not in tids:  # a renamed or copied file
            tids = [*tids, own]  # registrations under either id match it (one rule)
        s.trace_ids = tids
        lv = liveness_for(s.session_id, tids, registrations)
        s.live, s.stale = lv.live, lv.stale
    else:
        s.parent_session_id = s.parent_session_id or sf.parent_session_id
    return s


#: Below this many files a listing runs in-process (a pool's start-up is not worth it).
PARALLEL_MIN_FILES = 400


#: Files per task sent to a worker process.
CHUNK_FILES = 64


#: At most this many worker processes (disk-cold listings are I/O-bound: a few more
#: readers than cores keep the disk busy while the others decode).
MAX_WORKERS = 8


class _Job:
    """What every file of one listing needs (inherited by forked workers)."""

    def __init__(self, home: Home, regs, include_sidechains: bool, keyed: bool = False) -> None:
        self.home, self.regs, self.include_sidechains = home, regs, include_sidechains
        #: results as :class:`Summarized` (summary + stat key), reader bugs as error lines
        self.keyed = keyed
        self.summaries: dict[str, frozenset[str]] = {}

    def summary_names(self, folder: str) -> frozenset[str]:
        names = self.summaries.get(folder)
        if names is None:
            try:
                with os.scandir(os.path.join(folder, "summaries")) as it:
                    names = frozenset(e.name for e in it)
            except OSError:
                names = frozenset()
            self.summaries[folder] = names
        return names

    def one(
        self, path: str, project: str, fd: int | OSError | None = None
    ) -> SessionSummary | None:
        """The summary of one candidate file (None: a sidechain not listed, or no transcript).

        Args:
            path, project: the file and its folder name.
            fd: the file already opened (closed here), or the error opening it gave.

        Raises:
            SidtuiError: the file cannot be read.
        """
        return self._one(path, project, fd)[0]

    def _one(
        self, path: str, project: str, fd: int | OSError | None
    ) -> tuple[SessionSummary | None, os.stat_result | None]:
        is_jsonl = path.endswith(".jsonl")
        if fd is None:
            try:
                fd = os.open(path, _O_RDONLY)
            except OSError as exc:
                fd = exc
        if isinstance(fd, OSError):
            raise unreadable(path, fd) from None
        try:
            st = os.fstat(fd)
            _regular(path, st)
            if is_jsonl and (st.st_size > whole_read_max() or has_holes(fd, st.st_size)):
                return self._in_pieces(path, project, fd, st), st
            want = min(st.st_size + 1, HEAD_READ)
            first = os.read(fd, want)
            whole = len(first) < want  # a short read of a regular file is its end
            if is_jsonl and not whole and b"\n" not in first:  # a first line longer than that
                first, whole = _read_rest(fd, [first], st.st_size + 1 - len(first)), True
            sf = classify_file(Path(path), project, first_line_of(first) if is_jsonl else None)
            if sf is None or (sf.kind == "sidechain" and not self.include_sidechains):
                return None, st
            data = first if whole else _read_rest(fd, [first], max(st.st_size + 1 - want, 1))
        except OSError as exc:
            raise unreadable(path, exc) from None
        finally:
            os.close(fd)
        folder = os.path.dirname(path)
        return summarize(
            self.home,
            sf,
            registrations=self.regs,
            data=data,
            st=st,
            summary_file=f"{sf.session_id}.json" in self.summary_names(folder),
        ), st

    def _in_pieces(
        self, path: str, project: str, fd: int, st: os.stat_result
    ) -> SessionSummary | None:
        """A sparse or very big file summarized from a :class:`FileSource` (its holes
        never read into memory, its apparent size never allocated)."""
        src = FileSource(path, os.fdopen(os.dup(fd), "rb", buffering=0), st.st_size)
        head = src.read_any(0, min(st.st_size, FIRST_LINE_CAP))
        sf = classify_file(Path(path), project, first_line_of(head))
        if sf is None or (sf.kind == "sidechain" and not self.include_sidechains):
            return None
        names = self.summary_names(os.path.dirname(path))
        return summarize(
            self.home,
            sf,
            registrations=self.regs,
            data=src,
            st=st,
            summary_file=f"{sf.session_id}.json" in names,
        )

    def chunk(self, items: list[tuple[str, str]]) -> list[Any]:
        """Results of ``items`` in order (see :func:`summarize_files`); an unreadable file
        gives its error line."""
        out: list[Any] = []
        fds = _open_ahead(items)
        taken = 0  # fds handed to _one(), which closes them
        try:
            for path, project in items:
                fd = fds[taken]
                taken += 1
                try:
                    s, st = self._one(path, project, fd)
                except SidtuiError as exc:
                    out.append(str(exc))
                    continue
                except Exception as exc:
                    if not self.keyed:
                        raise
                    # a catalog must not stop on a reader bug in one file
                    out.append(
                        f"{path}: internal error while summarizing ({type(exc).__name__}: {exc})"
                    )
                    continue
                if not self.keyed:
                    out.append(s)
                elif s is None:
                    out.append(None)
                else:
                    assert st is not None
                    out.append(
                        Summarized(s, (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
                    )
        finally:
            for fd in fds[taken:]:  # only after an unexpected error
                if isinstance(fd, int):
                    os.close(fd)
        return out


def _open_ahead(items: list[tuple[str, str]]) -> list[int | OSError]:
    """Open a chunk's files and ask the kernel to start reading their first
    :data:`HEAD_READ` bytes (``posix_fadvise(WILLNEED)``, asynchronous): while one file is
    decoded the next ones arrive, so a disk-cold listing keeps the disk busy."""
    fds: list[int | OSError] = []
    advise = getattr(os, "posix_fadvise", None)
    for path, _ in items:
        try:
            fd = os.open(path, _O_RDONLY)
        except OSError as exc:
            fds.append(exc)
            continue
        fds.append(fd)
        if advise is not None:
            try:
                advise(fd, 0, HEAD_READ, os.POSIX_FADV_WILLNEED)
            except OSError:
                advise = None  # not supported here: plain reads
    return fds


def workers_for(n_files: int) -> int:
    """How many processes list ``n_files`` files (1: in-process).

    Processes only for :data:`PARALLEL_MIN_FILES` files or more, on two cores or more, when
    the caller may fork (:func:`sidtui.core.base.pool.can_fork`: not the app).
    """
    if n_files < PARALLEL_MIN_FILES:
        return 1
    n = cores()
    if n < 2 or not can_fork():
        return 1
    return min(n, MAX_WORKERS)


class Summarized(NamedTuple):
    """One file's row from :func:`summarize_files`: the summary and the file's stat key
    ``(inode, size, mtime_ns, ctime_ns)``, from ``fstat`` on the descriptor the bytes were
    read from, taken before reading (a write during the read makes the key look stale
    later, never fresh)."""

    summary: SessionSummary
    key: tuple[int, int, int, int]


def summarize_files(
    home: Home,
    items: Sequence[tuple[str, str]],
    *,
    registrations: list[Registration] | None = None,
    include_sidechains: bool = True,
    chunk_files: int = CHUNK_FILES,
) -> Generator[list[Summarized | str | None], None, None]:
    """Summarize many files the way :func:`list_sessions` does, chunk by chunk.

    Each file is opened and read once; the same parallel rules apply (forked workers for
    :data:`PARALLEL_MIN_FILES` or more files when ``fork`` is available and the caller
    runs no other thread, else in-process), and the results are the same either way.

    Args:
        home: the home.
        items: ``(path, project folder)`` pairs.
        registrations: pre-read registrations (default: read now).
        include_sidechains: summarize sidechain files too (else they give None).
        chunk_files: files per chunk (the unit of work, cancellation and progress).

    Yields:
        One list per chunk of ``chunk_files`` items, in ``items`` order, aligned with the
        chunk: a :class:`Summarized`, an error line (str) for a file that cannot be read
        (or that a reader bug stopped), or None for a file that is no transcript (or a
        sidechain when ``include_sidechains`` is False). Closing the generator stops
        early: chunks not yet started are cancelled.
    """
    if registrations is None:
        registrations = read_registrations(home)
    job = _Job(home, registrations, include_sidechains, keyed=True)
    yield from _iter_chunks(job, list(items), max(1, chunk_files))


def _iter_chunks(
    job: _Job, items: list[tuple[str, str]], chunk_files: int = CHUNK_FILES
) -> Iterator[list]:
    """Each chunk's results, in order: in-process, or on forked workers for a big home.

    Closing the generator early cancels the chunks not yet started.
    """
    chunks = [items[i : i + chunk_files] for i in range(0, len(items), chunk_files)]
    return ordered_map(job.chunk, chunks, workers_for(len(items)))


def list_sessions(
    home: Home,
    project: str | None = None,
    *,
    include_sidechains: bool = False,
    progress=None,
) -> tuple[list[SessionSummary], list[str]]:
    """Summaries of every session under the home, newest activity first.

    Each file is opened and read once (its stat taken from the same descriptor). A home of
    at least :data:`PARALLEL_MIN_FILES` files is listed on forked worker processes (one
    per usable core, at most :data:`MAX_WORKERS`) when ``fork`` is available and the
    caller runs no other thread; the result is the same as in-process.

    Args:
        home: the home.
        project: only this project folder.
        include_sidechains: also list sidechain files.
        progress: optional ``callable(done, total)`` called as files are summarized
            (``total`` counts every candidate file, sidechains included).

    Returns:
        (summaries, errors) — a file that cannot be read becomes one error line, never an
        exception; folders that cannot be read come first.
    """
    errors: list[str] = []
    items = [(str(p), proj) for p, proj in candidate_files(home, project, errors)]
    job = _Job(home, read_registrations(home), include_sidechains)
    out: list[SessionSummary] = []
    results: list = []
    for part in _iter_chunks(job, items):
        results += part
        if progress is not None:
            progress(len(results), len(items))
    for r in results:
        if isinstance(r, str):
            errors.append(r)
        elif r is not None:
            out.append(r)
    out.sort(key=lambda s: (s.last_activity or "", s.session_id), reverse=True)
    return out, errors

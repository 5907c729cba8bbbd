"""The session catalog: every session's summary, cached in SQLite (FORMAT.md §2.6).

:class:`Catalog` keeps one row per file keyed by path, inode, size, mtime and ctime in a
SQLite database (WAL) per home in the user's cache directory: a warm refresh only stats files
and re-summarizes the changed ones; liveness is recomputed on every read; a corrupt or
foreign cache is rebuilt, never trusted.

Design notes: docs/ARCHITECTURE.md, “core/index/catalog.py”.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Any

import orjson

from sidtui.core.base.errors import SidtuiError
from sidtui.core.base.home import Home, SessionFile
from sidtui.core.base.jsonout import dumps_lenient
from sidtui.core.base.jsonparse import parse_line_slow
from sidtui.core.claude.layout import ClaudeHome
from sidtui.core.codex.layout import CodexHome
from sidtui.core.index.database import (
    SCHEMA,
    canonical_path,
    db_text,
    delete_docs,
    py_text,
    register_functions,
)
from sidtui.core.index.files import (
    files_digest,
    files_for,
    scanned_digest,
    stat_key,
)
from sidtui.core.live import events as ev
from sidtui.core.resume.process import liveness_for
from sidtui.core.views.listing import CHUNK_FILES, Summarized
from sidtui.core.views.summary import SessionSummary

#: Bump when the schema or the meaning of a stored row changes: older caches are rebuilt.
FORMAT = "sidtui-catalog/7"  # 7: Claude Code rows name the session they were forked from
#: Files per transaction and per progress report (reports come at the end of the chunk
#: that reaches each multiple; chunks are at most this many files).
BATCH = 200
#: A big file is re-summarized from watcher events at most this often (seconds).
MIN_RESUMMARIZE_S = 2.0
BIG_FILE = 8 << 20


@dataclass
class RefreshProgress:
    """Progress of a refresh: ``done`` of ``total`` files looked at, ``changed``
    re-summarized, ``removed`` rows dropped so far."""

    done: int
    total: int
    changed: int = 0
    removed: int = 0


@dataclass
class RefreshResult:
    """Outcome of :meth:`Catalog.refresh` (``seconds``: wall time; ``errors``: one line per
    unreadable file; ``cancelled``: stopped early, what was done is kept)."""

    total: int = 0
    changed: int = 0
    removed: int = 0
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    cancelled: bool = False


_SUMMARY_FIELDS = set(SessionSummary.__struct_fields__)
_SUMMARY_DECODER: Any = None


def summary_from_blob(blob: bytes) -> SessionSummary:
    """A stored row back as a :class:`SessionSummary` (msgspec decodes straight into the
    struct, much faster than building it from a dict; unknown keys are ignored)."""
    global _SUMMARY_DECODER
    if _SUMMARY_DECODER is None:
        import msgspec

        _SUMMARY_DECODER = msgspec.json.Decoder(SessionSummary)
    try:
        return _SUMMARY_DECODER.decode(blob)
    except Exception:  # noqa: BLE001 - a row msgspec refuses (types changed, a lone surrogate escape)
        try:
            d = orjson.loads(blob)
        except orjson.JSONDecodeError:  # "\ud800": read as JSON.parse does
            d = parse_line_slow(blob)
        return SessionSummary(**{k: v for k, v in d.items() if k in _SUMMARY_FIELDS})


_SUMMARIES_DECODER = None


def summaries_from_blobs(blobs: list[bytes]) -> list[SessionSummary]:
    """Stored rows back as summaries, in one C call (per-call overhead was a fifth of a
    warm ``ls``); any row msgspec refuses sends the batch through :func:`summary_from_blob`."""
    global _SUMMARIES_DECODER
    if not blobs:
        return []
    if _SUMMARIES_DECODER is None:
        import msgspec

        _SUMMARIES_DECODER = msgspec.json.Decoder(list[SessionSummary])
    try:
        out = _SUMMARIES_DECODER.decode(b"[" + b",".join(blobs) + b"]")
    except Exception:  # noqa: BLE001 - a lone surrogate escape, a changed type: row by row
        return [summary_from_blob(b) for b in blobs]
    if len(out) != len(blobs):  # a stored blob that was not one JSON value
        return [summary_from_blob(b) for b in blobs]
    return out


def _root_key(home: Home | ClaudeHome) -> str:
    """The resolved root; a Claude Code home's is marked as one (its own database)."""
    root = str(Path(home.root).expanduser().resolve())
    if isinstance(home, CodexHome):
        return f"codex:{root}"
    return f"claude-code:{root}" if isinstance(home, ClaudeHome) else root


def default_db_path(home: Home | ClaudeHome) -> Path:
    """Where the catalog of ``home`` lives (one database per resolved home root, and per
    source: a Claude Code home at the same root as a sid-code one has its own)."""
    import platformdirs

    root = _root_key(home)
    digest = hashlib.sha256(root.encode()).hexdigest()[:16]
    return Path(platformdirs.user_cache_dir("sidtui")) / "catalog" / f"{digest}.sqlite3"


_ENCODE = None
_ACTIVITY = attrgetter("last_activity", "session_id")


def _blob(s: SessionSummary) -> bytes:
    """A row as stored: msgspec's JSON of the struct (defaults left out); a string holding
    a lone surrogate (which UTF-8 cannot hold) is written with its escape kept instead."""
    global _ENCODE
    if _ENCODE is None:
        import msgspec

        _ENCODE = msgspec.json.Encoder().encode
    try:
        return _ENCODE(s)
    except UnicodeEncodeError:
        return dumps_lenient(s)


def _chunked(items: list, n: int) -> Iterator[list]:
    return (items[i : i + n] for i in range(0, len(items), n))


def _rows_of(
    items: list[tuple[str, str]],
    part: list[Summarized | str | None],
    errors: list[str],
    dropped: list[str],
) -> list[tuple]:
    """Database rows of one chunk of :func:`summarize_files` results (error lines go to
    ``errors``; files that gave no row, unreadable or no transcript, to ``dropped``)."""
    rows = []
    for (path, project), r in zip(items, part, strict=True):
        if r is None or isinstance(r, str):
            dropped.append(path)
            if r is not None:
                errors.append(r)
        else:
            s = r.summary
            rows.append(
                (
                    db_text(path),
                    *r.key,
                    db_text(project),
                    db_text(s.session_id),
                    s.kind,
                    s.last_activity,
                    _blob(s),
                )
            )
    return rows


class CacheUnusable(SidtuiError):
    """The cache directory cannot be written (the catalog then runs in memory)."""


class Catalog:
    """Every session's summary, cached on disk (see module docstring).

    Args:
        home: the home.
        db_path: the database file (default: :func:`default_db_path`); ``":memory:"``
            keeps it in memory (single connection).

    Attributes:
        db_path: the database in use.
        rebuilt: why the cache was thrown away at open (None when it was reused or new).
        write_lock: held by every writer of the database (the search index's too), around
            its transaction.
    """

    def __init__(
        self, home: Home | ClaudeHome, db_path: str | os.PathLike[str] | None = None
    ) -> None:
        # every path kept is under the resolved root (see canonical_path)
        root = Path(home.root).expanduser().resolve()
        self.home: Any = type(home)(root)
        self._files = files_for(self.home)
        self.db_path = Path(db_path) if db_path not in (None, ":memory:") else None
        if db_path is None:
            self.db_path = default_db_path(home)
        self._memory = db_path == ":memory:"
        self._local = threading.local()
        self.write_lock = threading.RLock()
        self._generation = 0
        self._shared: sqlite3.Connection | None = None
        self._last_summarized: dict[str, float] = {}
        self._dirty: set[str] = set()
        self._root_key = _root_key(home)
        self.rebuilt: str | None = None
        #: set when the cache directory cannot be used and the catalog runs in memory
        self.warning: str | None = None
        try:
            self._open_checked()
        except (OSError, sqlite3.OperationalError) as exc:
            if self._memory:
                raise
            self.warning = (
                f"cannot use the cache at {self.db_path} ({exc}); "
                "the catalog is kept in memory for this run"
            )
            self._memory, self.db_path = True, None
            self._generation += 1
            self._open_checked()

    # --- connections --------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self._memory:
            if self._shared is None:
                self._shared = sqlite3.connect(":memory:", check_same_thread=False)
                register_functions(self._shared)
                self._shared.executescript(SCHEMA)
            return self._shared
        assert self.db_path is not None
        self.db_path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.db_path, timeout=30, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        register_functions(conn)
        return conn

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's connection (opened on first use)."""
        loc = self._local
        if getattr(loc, "gen", None) != self._generation or getattr(loc, "conn", None) is None:
            old = getattr(loc, "conn", None)
            if old is not None and not self._memory:
                try:
                    old.close()
                except sqlite3.Error:  # pragma: no cover
                    pass
            loc.conn, loc.gen = self._connect(), self._generation
        return loc.conn

    def _open_checked(self) -> None:
        try:
            self._check(self.conn)
        except sqlite3.DatabaseError as exc:
            self._rebuild(f"unreadable cache ({exc})")

    def _check(self, conn: sqlite3.Connection) -> None:
        have = dict(
            conn.execute(
                "SELECT name, type FROM sqlite_master WHERE name IN ('meta','sessions')"
            ).fetchall()
        )
        if not have:
            with self.write_lock, conn:
                conn.executescript(SCHEMA)
                conn.executemany(
                    "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                    [("format", FORMAT), ("home", self._root_key)],
                )
            return
        meta = (
            dict(conn.execute("SELECT key, value FROM meta").fetchall()) if "meta" in have else {}
        )
        if meta.get("format") != FORMAT:
            self._rebuild(f"cache format {meta.get('format')!r} is not {FORMAT!r}")
        elif meta.get("home") != self._root_key:
            self._rebuild(f"cache belongs to another home ({meta.get('home')!r})")
        else:
            conn.execute("SELECT count(*) FROM sessions").fetchone()

    def _rebuild(self, why: str) -> None:
        """Throw the cache away and start an empty one (never trust a bad cache)."""
        self.rebuilt = why
        with self.write_lock:
            if self._memory:
                self._shared = None
            else:
                loc = self._local
                if getattr(loc, "conn", None) is not None:
                    try:
                        loc.conn.close()
                    except sqlite3.Error:  # pragma: no cover
                        pass
                    loc.conn = None
                assert self.db_path is not None
                for suffix in ("", "-wal", "-shm"):
                    try:
                        os.remove(str(self.db_path) + suffix)
                    except FileNotFoundError:
                        pass
            self._generation += 1
            conn = self.conn
            with conn:
                conn.executescript(SCHEMA)
                conn.executemany(
                    "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                    [("format", FORMAT), ("home", self._root_key)],
                )

    def guarded(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` (a read or write of the database, the search index's too); a corrupt
        database found on the way is rebuilt and ``fn`` retried."""
        try:
            return fn()
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                raise
            self._rebuild(f"cache corrupt ({exc})")
            return fn()

    def close(self) -> None:
        """Close this thread's connection."""
        loc = self._local
        if getattr(loc, "conn", None) is not None and not self._memory:
            loc.conn.close()
            loc.conn = None

    # --- reading ------------------------------------------------------------------------

    def rows(
        self, project: str | None = None, *, include_sidechains: bool = False
    ) -> list[SessionSummary]:
        """Cached summaries, newest activity first; ``live``/``stale`` recomputed now.

        Args:
            project: only this project folder.
            include_sidechains: also sidechain rows.

        Returns:
            The rows as of the last refresh/apply (empty before the first refresh).
        """

        def q() -> list[bytes]:
            sql = "SELECT summary FROM sessions"
            cond, args = [], []
            if project is not None:
                cond.append("project = ?")
                args.append(db_text(project))
            if not include_sidechains:
                cond.append("kind = 'main'")
            if cond:
                sql += " WHERE " + " AND ".join(cond)
            return [b for (b,) in self.conn.execute(sql, args)]

        out = summaries_from_blobs(self.guarded(q))
        regs = self._files.registrations()
        if not regs:  # the usual listing: nothing runs, every row is neither live nor stale
            for s in out:
                s.live = s.stale = False
        else:
            for s in out:
                if s.kind == "main":
                    lv = liveness_for(s.session_id, s.trace_ids or [], regs)
                    s.live, s.stale = lv.live, lv.stale
        # newest activity first; a row always has an activity (else the file's mtime), so
        # the C-level key does (a missing one sorts as "", last)
        try:
            out.sort(key=_ACTIVITY, reverse=True)
        except TypeError:  # a row without an activity (an old cache)
            out.sort(key=lambda s: (s.last_activity or "", s.session_id), reverse=True)
        return out

    def get(self, path: str | os.PathLike[str]) -> SessionSummary | None:
        """The cached row of one file (liveness as cached), or None."""
        row = self.guarded(
            lambda: self.conn.execute(
                "SELECT summary FROM sessions WHERE path = ?", (db_text(canonical_path(path)),)
            ).fetchone()
        )
        return summary_from_blob(row[0]) if row else None

    def paths(self, oldest_first: bool = False) -> list[str]:
        """Every cached file path (main and sidechain), by path or oldest activity first."""
        order = "last_activity, path" if oldest_first else "path"
        return [
            py_text(p)
            for (p,) in self.guarded(
                lambda: self.conn.execute(f"SELECT path FROM sessions ORDER BY {order}").fetchall()
            )
        ]

    # --- writing ------------------------------------------------------------------------

    def refresh(
        self,
        progress: Callable[[RefreshProgress], None] | None = None,
        cancel: Callable[[], bool] | None = None,
    ) -> RefreshResult:
        """Bring the cache up to date with the files (blocking: run it in a worker).

        New and changed files are summarized in chunks of at most :data:`BATCH` files
        through :func:`~sidtui.core.views.listing.summarize_files` (the rows ``list_sessions``
        gives): on forked workers for 400+ files when the calling process runs no other
        thread, else in-process (a refresh from a worker thread, as the app does, uses one
        core).

        Args:
            progress: called after the chunk that completes each :data:`BATCH` files
                (unchanged files count as done at once; rows written so far are readable
                then) and at the end.
            cancel: polled between chunks (at most ``min(64, BATCH)`` files each; with
                workers, the chunks already running finish first); True stops early and
                the rows written so far are kept.

        Returns:
            A :class:`RefreshResult`. Unreadable files become ``errors`` lines and lose
            their row (as :func:`~sidtui.core.views.listing.list_sessions` lists them not).
        """
        try:
            return self._refresh(progress, cancel)
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                raise
            self._rebuild(f"cache corrupt ({exc})")
            return self._refresh(progress, cancel)

    def _refresh(self, progress, cancel) -> RefreshResult:
        t0 = time.perf_counter()
        res = RefreshResult()
        conn = self.conn
        stored = conn.execute("SELECT value FROM meta WHERE key = 'files'").fetchone()
        files = None
        if stored is not None:
            # the rows matched these files at the end of the last refresh: one digest of
            # every file's stat key tells whether anything changed (a warm `ls` of 10,000
            # files is then a stat of each and no per-row work)
            files = self._files.scan(True, res.errors)
            if scanned_digest(files) == stored[0]:
                res.total = len(files)
                if progress is not None:
                    progress(RefreshProgress(res.total, res.total, 0, 0))
                res.seconds = time.perf_counter() - t0
                return res
        cached = {
            py_text(p): (i, s, m, c)
            for p, i, s, m, c in conn.execute(
                "SELECT path, inode, size, mtime_ns, ctime_ns FROM sessions"
            )
        }
        if files is None:
            files = self._files.scan(bool(cached), res.errors)
        res.total = len(files)
        seen = {path for path, _, _ in files}
        todo = [
            (path, project)
            for path, project, st in files
            if st is None or cached.get(path) != stat_key(st)
        ]
        done = res.total - len(todo)  # unchanged files need no work
        reported = done // BATCH
        pending: list[tuple] = []
        dropped: list[str] = []  # files that now give no row (unreadable, no transcript)
        chunks = self._files.summarize(
            todo, self._files.registrations() if todo else [], min(CHUNK_FILES, BATCH)
        )
        try:
            for items, part in zip(_chunked(todo, min(CHUNK_FILES, BATCH)), chunks, strict=False):
                rows = _rows_of(items, part, res.errors, dropped)
                pending += rows
                res.changed += len(rows)
                done += len(part)
                if len(pending) >= BATCH or (progress is not None and done // BATCH > reported):
                    self._write_rows(pending)
                    self._delete_rows([p for p in dropped if p in cached])
                    pending, dropped = [], []
                    if progress is not None and done // BATCH > reported:
                        reported = done // BATCH
                        progress(RefreshProgress(done, res.total, res.changed, 0))
                if cancel is not None and cancel():  # polled between chunks
                    res.cancelled = True
                    break
        finally:
            chunks.close()  # a cancel (or an error) starts no more chunks
        self._write_rows(pending)
        self._delete_rows([p for p in dropped if p in cached])
        if not res.cancelled:
            gone = [p for p in cached if p not in seen]
            self._delete_rows(gone)
            res.removed = len(gone)
            self._store_digest()
        if progress is not None:
            progress(
                RefreshProgress(
                    res.total if not res.cancelled else done, res.total, res.changed, res.removed
                )
            )
        res.seconds = time.perf_counter() - t0
        return res

    def _store_digest(self) -> None:
        """Remember which files the rows now match (:func:`~sidtui.core.index.files.files_digest` of every row's
        path and stat key), for the next refresh's one-comparison warm path."""
        conn = self.conn
        keys = sorted(
            (py_text(p), i, s, m, c)
            for p, i, s, m, c in conn.execute(
                "SELECT path, inode, size, mtime_ns, ctime_ns FROM sessions"
            )
        )
        with self.write_lock, conn:
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('files', ?)", (files_digest(keys),))

    def _summarize_rows(
        self, items: list[tuple[str, str]], errors: list[str], dropped: list[str]
    ) -> list[tuple]:
        """Rows of ``items`` (path, project), summarized now through the batch path."""
        rows: list[tuple] = []
        regs = self._files.registrations()
        for batch, part in zip(
            _chunked(items, CHUNK_FILES),
            self._files.summarize(items, regs),
            strict=False,
        ):
            rows += _rows_of(batch, part, errors, dropped)
        return rows

    def _write_rows(self, rows: list[tuple]) -> None:
        if not rows:
            return
        with self.write_lock, self.conn as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO sessions(path, inode, size, mtime_ns, ctime_ns, project, "
                "session_id, kind, last_activity, summary) VALUES (?,?,?,?,?,?,?,?,?,?)",
                rows,
            )

    def _delete_rows(self, paths: list[str]) -> None:
        if not paths:
            return
        with self.write_lock, self.conn as conn:
            conn.executemany("DELETE FROM sessions WHERE path = ?", [(db_text(p),) for p in paths])
            for p in paths:
                delete_docs(conn, p)

    async def refresh_async(self) -> AsyncIterator[RefreshProgress]:
        """:meth:`refresh` in a thread, yielding its progress (for an async worker)."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[RefreshProgress | None] = asyncio.Queue()

        def cb(p: RefreshProgress) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, p)

        def work() -> RefreshResult:
            try:
                return self.refresh(progress=cb)
            finally:
                loop.call_soon_threadsafe(queue.put_nowait, None)

        task = loop.run_in_executor(None, work)
        while True:
            p = await queue.get()
            if p is None:
                break
            yield p
        await task

    def apply(self, batch: Iterable[Any]) -> list[str]:
        """Update rows from a watcher batch (an empty batch flushes deferred files).

        Files touched by the batch are re-summarized; a file above 8 MB at most every
        :data:`MIN_RESUMMARIZE_S` seconds (the rest stays deferred until a later call).
        Liveness events need nothing: :meth:`rows` recomputes liveness.

        Returns:
            The paths whose rows were rewritten.
        """
        for e in batch:
            if isinstance(
                e,
                (
                    ev.SessionCreated,
                    ev.RecordsAppended,
                    ev.FileReset,
                    ev.SidechainStarted,
                    ev.SidechainEnded,
                    ev.ChainBranched,
                    ev.BadLineFound,
                ),
            ):
                self._dirty.add(canonical_path(e.path))
        if not self._dirty:
            return []
        now = time.monotonic()
        due: list[str] = []
        for p in sorted(self._dirty):
            try:
                size = os.stat(p).st_size
            except OSError:
                size = 0
            if size > BIG_FILE and now - self._last_summarized.get(p, -1e9) < MIN_RESUMMARIZE_S:
                continue
            due.append(p)
        items: list[tuple[str, str]] = []
        gone: list[str] = []
        for p in due:
            self._dirty.discard(p)
            self._last_summarized[p] = now
            if not os.path.exists(p):
                gone.append(p)
                continue
            items.append((p, self._files.project_of(p)))
        rows = self._summarize_rows(items, [], gone) if items else []

        def write() -> None:
            self._write_rows(rows)
            self._delete_rows(gone)

        self.guarded(write)
        return [r[0] for r in rows] + gone

    def follow(self, watcher: Any, search: Any = None) -> Callable[[], None]:
        """Keep this catalog (and ``search``, a :class:`~sidtui.core.index.search.SearchIndex`)
        current from ``watcher``'s batches, on the watcher thread.

        Subscribe your own callback *after* this one to see rows already updated. Errors
        go to ``watcher.warnings``; deferred big files are flushed on every batch.

        Returns:
            A function that stops following.
        """

        def on_batch(batch: Any) -> None:
            if batch is None:
                return
            try:
                self.apply(batch)
                if search is not None:
                    search.apply(batch)
            except (sqlite3.Error, SidtuiError, OSError) as exc:
                watcher.warnings.append(f"catalog update failed: {exc}")

        return watcher.subscribe(on_batch)

    def session_files(self, include_sidechains: bool = True) -> list[SessionFile]:
        """The cached files as :class:`SessionFile` objects (for search filling)."""
        out = []
        for s in self.rows(include_sidechains=include_sidechains):
            out.append(self._files.session_file(s))
        return out

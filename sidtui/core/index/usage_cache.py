"""Each transcript's usage events, cached beside the catalog's rows (FORMAT.md §2.6).

One table in the catalog's database, ``usage_by_file``: a row per file keyed by path,
inode, size, mtime and ctime (the catalog's stat key) holding the file's prepared events
and their summary (response keys and parts: ``aggregate.FileUsage``) as msgpack.
:func:`cached_usage` stats the home's files, re-reads only the ones whose key changed (a
new, grown or replaced file) through the source's reader — on forked workers when there is
much to read —, drops the rows of files gone, and returns every file's usage; events are
decoded only for files that share a response with another. A cache that cannot be used is
no failure: the files are read.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

import msgspec

from sidtui.core.base.home import Home
from sidtui.core.base.pool import cores, ordered_map
from sidtui.core.base.regular import NotRegularFile
from sidtui.core.claude.layout import ClaudeHome
from sidtui.core.index.database import db_text, py_text
from sidtui.core.index.files import files_for, stat_key
from sidtui.core.usage.aggregate import FileUsage, Part, prepare
from sidtui.core.usage.events import UsageEvent
from sidtui.core.usage.pricing import default_table

#: A source's reader: ``(path, project, errors) -> events`` of one file, in file order.
Reader = Callable[[str, str, list[str]], list[UsageEvent]]

#: Bump when a reader's rules or :class:`UsageEvent` change: every file is read again.
USAGE_FORMAT = "usage/3"  # 3: priced and deduped in the file (prepare)
#: Read on forked workers when the files to read hold more than this many bytes.
PARALLEL_BYTES = 32 << 20

TABLE = """
CREATE TABLE IF NOT EXISTS usage_by_file(
    path TEXT PRIMARY KEY,
    inode INTEGER NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL,
    format TEXT NOT NULL,
    summary BLOB NOT NULL,
    events BLOB NOT NULL
)
"""


class _Summary(msgspec.Struct, array_like=True):
    keys: list[str]
    parts: list[Part]


_ENCODE_RAW = msgspec.msgpack.Encoder().encode
_DECODE_RAW = msgspec.msgpack.Decoder(list[UsageEvent]).decode
_SUMMARY_RAW = msgspec.msgpack.Decoder(_Summary).decode

#: Starts a str stored as the hex of its ``surrogatepass`` bytes: msgpack holds UTF-8 only,
#: and a project folder's name byte that is not UTF-8 (``os.listdir`` decodes it with
#: ``surrogateescape``) or a ``"\ud800"`` escape in a transcript is a lone surrogate.
_ESCAPED = "\ue000"
_ESCAPED_BYTES = _ESCAPED.encode()


def _escape(s: str) -> str:
    if s.startswith(_ESCAPED):
        return _ESCAPED + s.encode("utf-8", "surrogatepass").hex()
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return _ESCAPED + s.encode("utf-8", "surrogatepass").hex()
    return s


def _unescape(s: str) -> str:
    if s.startswith(_ESCAPED):
        try:
            return bytes.fromhex(s[1:]).decode("utf-8", "surrogatepass")
        except ValueError:  # not ours (a row of another version): as stored
            return s
    return s


def _each_str(obj: Any, fn: Callable[[str], str]) -> Any:
    """``obj`` (a struct, or a list of them / of str) with ``fn`` applied to each str field."""
    if isinstance(obj, str):
        return fn(obj)
    if isinstance(obj, list):
        return [_each_str(o, fn) for o in obj]
    if isinstance(obj, msgspec.Struct):
        changed = {}
        for name in obj.__struct_fields__:
            v = getattr(obj, name)
            if isinstance(v, (str, list, msgspec.Struct)):
                new = _each_str(v, fn)
                if new is not v and new != v:
                    changed[name] = new
        return msgspec.structs.replace(obj, **changed) if changed else obj
    return obj


def _ENCODE(obj: Any) -> bytes:
    """msgpack of ``obj``; a str UTF-8 cannot hold is stored escaped (:data:`_ESCAPED`)."""
    try:
        data = _ENCODE_RAW(obj)
    except UnicodeEncodeError:
        return _ENCODE_RAW(_each_str(obj, _escape))
    if _ESCAPED_BYTES in data:  # a str that starts like an escaped one: escaped too
        return _ENCODE_RAW(_each_str(obj, _escape))
    return data


def _DECODE(blob: bytes) -> list[UsageEvent]:
    events = _DECODE_RAW(blob)
    return _each_str(events, _unescape) if _ESCAPED_BYTES in blob else events


def _SUMMARY(blob: bytes) -> _Summary:
    summary = _SUMMARY_RAW(blob)
    return _each_str(summary, _unescape) if _ESCAPED_BYTES in blob else summary


#: A file's ``(summary, events)`` blobs.
Blobs = tuple[bytes, bytes]


def cache_format() -> str:
    """The format a stored row must have: :data:`USAGE_FORMAT` and the price table's date
    (its costs are stored)."""
    return f"{USAGE_FORMAT}/{default_table().date}"


def home_files(home: Home | ClaudeHome) -> Any:
    """What the catalog reads from ``home`` (its files' scan), by the home's type."""
    return files_for(home)


class _Job:
    """Read one file's events and encode them (forked workers inherit it)."""

    def __init__(self, reader: Reader) -> None:
        self.reader = reader

    def __call__(self, item: tuple[str, str]) -> tuple[Blobs | None, list[str]]:
        path, project = item
        errs: list[str] = []
        try:
            events = self.reader(path, project, errs)
        except FileNotFoundError:  # removed meanwhile
            return None, errs
        except (OSError, NotRegularFile) as exc:
            errs.append(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}")
            return None, errs
        f = FileUsage.of(path, prepare(events))
        return (_ENCODE(_Summary(f.keys, f.parts)), _ENCODE(f.load())), errs


def read_files(
    items: list[tuple[str, str]], reader: Reader, sizes: Iterable[int], workers: int | None = None
) -> Iterable[tuple[Blobs | None, list[str]]]:
    """Each file's ``(encoded summary and events or None when unreadable, error lines)``, in order;
    on forked workers when the files hold more than :data:`PARALLEL_BYTES` together."""
    if workers is None:
        workers = cores() if sum(sizes) > PARALLEL_BYTES else 1
    return ordered_map(_Job(reader), items, workers)


def _open(home: Home | ClaudeHome, db_path: str | os.PathLike[str] | None) -> Any:
    from sidtui.core.index.catalog import Catalog

    cat = Catalog(home, db_path)
    with cat.write_lock, cat.conn as conn:
        conn.execute(TABLE)
    return cat


def _stored(cat: Any) -> dict[str, tuple[tuple[int, int, int, int], bytes]]:
    """Every row's stat key and summary (events are read only for the files that need
    them: :func:`_stored_events`)."""
    rows = cat.conn.execute(
        "SELECT path, inode, size, mtime_ns, ctime_ns, summary FROM usage_by_file WHERE format = ?",
        (cache_format(),),
    )
    return {py_text(p): ((i, s, m, c), a) for p, i, s, m, c, a in rows}


def _stored_events(cat: Any, path: str) -> list[UsageEvent]:
    """The events of one cached file (the row read now; its connection reopened when
    closed). A row gone meanwhile reads as no events."""
    row = cat.guarded(
        lambda: cat.conn.execute(
            "SELECT events FROM usage_by_file WHERE path = ?", (db_text(path),)
        ).fetchone()
    )
    if row is None:
        return []
    events = _DECODE(row[0])
    for e in events:
        e.file = path
    return events


def cached_usage(
    home: Home | ClaudeHome,
    reader: Reader,
    *,
    project: str | None = None,
    errors: list[str] | None = None,
    db_path: str | os.PathLike[str] | None = None,
    use_cache: bool = True,
    workers: int | None = None,
) -> list[FileUsage]:
    """The usage of each of ``home``'s transcripts, files in path order (events with
    ``file`` set).

    Args:
        home: a sid-code or Claude Code home.
        reader: the source's reader of one file.
        project: only the files of this project folder.
        errors: gets one line per file or line that cannot be read.
        db_path: the catalog database (default: the home's; ``":memory:"`` for none).
        use_cache: False reads every file and touches no database.
        workers: processes for the files to read (default: by their size).
    """
    errs = errors if errors is not None else []
    files = home_files(home).scan(True, errs)
    if project is not None:
        files = [f for f in files if f[1] == project]
    cat = None
    if use_cache:
        try:
            cat = _open(home, db_path)
            stored = cat.guarded(lambda: _stored(cat))
        except (sqlite3.Error, OSError) as exc:
            errs.append(f"usage cache unusable ({exc}); reading every file")
            cat, stored = None, {}
    else:
        stored = {}
    try:
        return _collect(cat, files, stored, reader, errs, project is None, workers)
    finally:
        if cat is not None:
            cat.close()


def _collect(
    cat: Any,
    files: list[tuple[str, str, os.stat_result | None]],
    stored: dict[str, tuple[tuple[int, int, int, int], bytes]],
    reader: Reader,
    errs: list[str],
    prune: bool,
    workers: int | None,
) -> list[FileUsage]:
    blobs: dict[str, Blobs] = {}  # read now: summary and events
    summaries: dict[str, bytes] = {}  # from the cache
    todo: list[tuple[str, str]] = []
    sizes: list[int] = []
    keys: dict[str, tuple[int, int, int, int]] = {}
    for path, project, st in files:
        if st is None:
            continue
        key = keys[path] = stat_key(st)
        held = stored.get(path)
        if held is not None and held[0] == key:
            summaries[path] = held[1]
        else:
            todo.append((path, project))
            sizes.append(st.st_size)
    new_rows = []
    for (path, _), (blob, file_errs) in zip(
        todo, read_files(todo, reader, sizes, workers), strict=True
    ):
        errs += file_errs
        if blob is not None:
            blobs[path] = blob
            if not file_errs:  # a file with an unreadable line is read again next time
                new_rows.append((db_text(path), *keys[path], cache_format(), *blob))
    if cat is not None:
        gone = [p for p in stored if p not in keys] if prune else []
        try:
            _write(cat, new_rows, gone)
        except (sqlite3.Error, OSError) as exc:
            errs.append(f"usage cache not updated ({exc})")
    out: list[FileUsage] = []
    for path, _, _ in files:
        pair = blobs.get(path)
        if pair is not None:
            summary = _SUMMARY(pair[0])
            out.append(FileUsage(path, summary.keys, summary.parts, _loader(path, pair[1])))
        elif path in summaries:
            summary = _SUMMARY(summaries[path])
            load = partial(_stored_events, cat, path)
            out.append(FileUsage(path, summary.keys, summary.parts, load))
    return out


def _loader(path: str, blob: bytes) -> Callable[[], list[UsageEvent]]:
    def load() -> list[UsageEvent]:
        events = _DECODE(blob)
        for e in events:
            e.file = path
        return events

    return load


def _write(cat: Any, rows: list[tuple], gone: list[str]) -> None:
    if not rows and not gone:
        return

    def write() -> None:
        with cat.write_lock, cat.conn as conn:
            conn.execute(TABLE)
            conn.executemany("INSERT OR REPLACE INTO usage_by_file VALUES (?,?,?,?,?,?,?,?)", rows)
            conn.executemany(
                "DELETE FROM usage_by_file WHERE path = ?", [(db_text(p),) for p in gone]
            )

    cat.guarded(write)

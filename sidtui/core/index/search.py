"""Full-text search over every session: an FTS5 index in the catalog's database.

:class:`SearchIndex` indexes prompts, replies, tool text and file paths, only the new bytes
of each file; a query matches every word as a prefix (CJK character by character) and ranks
a bounded set of candidates itself.

Claude Code transcripts give the same kinds of documents (docs/CLAUDE-CODE.md §4).
Design notes: docs/ARCHITECTURE.md, “core/index/search.py”.
"""

from __future__ import annotations

import math
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from sidtui.core.base.errors import UsageError
from sidtui.core.base.jsonout import dumps_lenient
from sidtui.core.base.jsonparse import JSONParseError, parse_line
from sidtui.core.base.regular import NotRegularFile, has_holes, open_regular
from sidtui.core.index.catalog import Catalog, RefreshProgress
from sidtui.core.index.database import (
    CJK,
    EMOJI,
    EMOJI_WORD,
    canonical_path,
    cjk_split,
    db_text,
    delete_docs,
    py_text,
)
from sidtui.core.live import events as ev
from sidtui.core.transcript.scan import scan_records
from sidtui.core.transcript.source import PIECE_MIN_BYTES, FileSource
from sidtui.core.views.listing import whole_read_max

MAX_DOC_CHARS = 4000
#: Files / bytes written per transaction while filling.
FILL_BATCH_FILES, FILL_BATCH_BYTES = 200, 32 << 20
#: Matches ranked per query at most (newest first); bounds the cost of very common words.
CANDIDATES = 300
MARK_OPEN, MARK_CLOSE = "\u00ab", "\u00bb"  # « » around matched words in snippets


@dataclass
class SearchHit:
    """One match.

    Attributes:
        session_id, project, path: the session file.
        uuid: the record's uuid (None for uuid-less records).
        line: the record's 1-based line in the file.
        kind: prompt / assistant / tool / file.
        snippet: matched words between « and », ~12 words of context.
        score: relevance (higher is better, :func:`score_text`).
    """

    session_id: str
    project: str
    path: str
    uuid: str | None
    line: int
    kind: str
    snippet: str
    score: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class _Pending:
    """One file's documents read but not yet written."""

    path: str
    restart: bool
    docs: list[tuple[str | None, int, str, str]]
    indexed: tuple[int, int, int] | None  # (inode, offset, line); None: the file is gone
    consumed: int = 0
    seen: tuple | None = None  # the ``indexed`` row when read (stale ⇒ skip at store)


@dataclass
class FillResult:
    """Outcome of :meth:`SearchIndex.fill`."""

    files: int = 0
    indexed_files: int = 0
    documents: int = 0
    bytes: int = 0
    seconds: float = 0.0
    cancelled: bool = False
    errors: list[str] = field(default_factory=list)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _utf8(text: str) -> str:
    """A document's text as SQLite can hold it: a lone surrogate (JSON.parse accepts
    ``"\\ud800"``) becomes U+FFFD, as the agent prints it (documents are for finding and
    snippets; the session file keeps the original)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub("\ufffd", text)
    return text


def _cap(text: str) -> str:
    return text if len(text) <= MAX_DOC_CHARS else text[:MAX_DOC_CHARS]


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    out = []
    if isinstance(content, list):
        for b in content:
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str):
                out.append(b["text"])
    return out


def documents_of(rec: Any) -> list[tuple[str, str]]:
    """(kind, text) documents of one decoded record (see module docstring)."""
    if not isinstance(rec, dict):
        return []
    t = rec.get("type")
    out: list[tuple[str, str]] = []
    if t == "response_item":  # Codex CLI's history items (its adapter reads them)
        from sidtui.core.codex.conversation import search_documents

        return [(k, _cap(x)) for k, x in search_documents(rec)]
    if t in ("user", "assistant") and rec.get("isMeta") is not True:
        t = "message_record"  # Claude Code's records: the message shape of sid-code's
    if t in ("user_message", "assistant_message", "tool_result", "message", "message_record"):
        msg = rec.get("message") if t != "message" else rec  # sidechains: role/content inline
        if not isinstance(msg, dict):
            return out
        role, content = msg.get("role"), msg.get("content")
        if role in ("user", "assistant"):
            text = "\n".join(x for x in _texts(content) if x.strip())
            if text:
                out.append(("assistant" if role == "assistant" else "prompt", _cap(text)))
        if isinstance(content, list):
            for b in content:
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    name = b.get("name") if isinstance(b.get("name"), str) else ""
                    inp = dumps_lenient(b.get("input"), default=str).decode()
                    out.append(("tool", _cap(f"{name} {inp}")))
    elif t == "file-history-snapshot":  # Claude Code: the files a prompt's checkpoint tracks
        snap = rec.get("snapshot")
        tracked = snap.get("trackedFileBackups") if isinstance(snap, dict) else None
        if isinstance(tracked, dict) and tracked:
            out.append(("file", _cap("\n".join(str(k) for k in tracked))))
    elif t == "metadata" and rec.get("key") == "file_changes":
        v = rec.get("value")
        files = v.get("files") if isinstance(v, dict) else None
        if isinstance(files, list):
            paths = [f for f in files if isinstance(f, str)]
            if paths:
                out.append(("file", _cap("\n".join(paths))))
    return out


def fts_query(query: str) -> str:
    """Turn user words into an FTS5 query: every word required and matched as a prefix
    (``slug`` finds ``slugify``); a CJK word becomes a phrase of its characters.

    Raises:
        UsageError: the query has no words.
    """
    parts = []
    for w in query.split():
        w = w.rstrip("*")
        if not w:
            continue
        tokens = (cjk_split(w) or "").split()
        if not tokens:
            continue
        star = "" if tokens[-1].startswith(EMOJI_WORD) else "*"  # an emoji is only itself
        parts.append('"' + " ".join(tokens).replace('"', '""') + '"' + star)
    if not parts:
        raise UsageError("empty search query")
    return " ".join(parts)


class SearchIndex:
    """FTS5 search over a :class:`Catalog`'s sessions (same database)."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def index_file(self, path: str) -> tuple[int, int]:
        """Index what is new in ``path`` since the last call (see module docstring).

        Returns:
            (documents added, bytes of complete lines consumed). Never raises on content;
            a vanished file drops its documents. v1 whole-file ``.json`` sessions are not
            indexed.
        """
        pending = self._collect(canonical_path(path))
        if pending is None:
            return 0, 0
        self._store([pending])
        return len(pending.docs), pending.consumed

    def _collect(self, path: str) -> _Pending | None:
        """Read and extract the new documents of one file (no writes)."""
        if not path.endswith(".jsonl"):
            return None
        row = self.catalog.conn.execute(
            "SELECT inode, offset, line FROM indexed WHERE path = ?", (db_text(path),)
        ).fetchone()
        try:
            fd, st = open_regular(path)  # a FIFO or a device in its place: gone
        except (OSError, NotRegularFile):
            return _Pending(path, True, [], None, 0, row) if row is not None else None
        try:
            start, line = 0, 0
            restart = False
            if row is not None:
                inode, off, ln = row
                if inode == st.st_ino and st.st_size >= off:
                    start, line = off, ln
                else:
                    restart = True
            if row is not None and not restart and st.st_size == start:
                return None
            new = st.st_size - start
            if new > whole_read_max() or (new >= PIECE_MIN_BYTES and has_holes(fd, st.st_size)):
                return self._collect_in_pieces(path, fd, st, row)
            data = os.pread(fd, new, start) if new > 0 else b""
        finally:
            os.close(fd)
        end = data.rfind(b"\n") + 1
        chunk = data[:end]
        # chain only: each record's documents come from its line (bounded decode), never
        # from the scan's structs (a prompt of 4 M tiny blocks is 4 M of them)
        rf = scan_records(chunk, start_line=line, base_offset=start, chain_only=True)
        docs: list[tuple[str | None, int, str, str]] = []
        for rec in rf.records:
            raw = chunk[rec.offset - start : rec.end - start]
            try:
                value = parse_line(raw)  # bounded: a line of a million [] builds no list
            except JSONParseError:  # pragma: no cover - scan_records accepted it
                value = None
            for kind, text in documents_of(value):
                docs.append((rec.uuid, rec.line, kind, text))
        return _Pending(
            path, restart, docs, (st.st_ino, start + end, line + rf.line_count), end, row
        )

    def _collect_in_pieces(self, path: str, fd: int, st: os.stat_result, row) -> _Pending:
        """A sparse or huge file indexed again from the start through a :class:`FileSource`
        (its holes never read into memory); only complete lines are consumed."""
        src = FileSource(path, os.fdopen(os.dup(fd), "rb", buffering=0), st.st_size)
        rf = scan_records(src, chain_only=True)  # documents come from the lines, as above
        end, lines = st.st_size, rf.line_count
        if not rf.ends_with_newline:  # the last line may still grow: not consumed
            lines -= 1
            last = [r.offset for r in rf.records[-1:] if r.end == st.st_size]
            last += [b.offset for b in rf.bad_lines[-1:] if not b.terminated]
            end = max(last) if last else end
        docs: list[tuple[str | None, int, str, str]] = []
        for rec in rf.records:
            if rec.end >= end and not rf.ends_with_newline:
                continue
            for kind, text in documents_of(rf.decode(rec)):
                docs.append((rec.uuid, rec.line, kind, text))
        return _Pending(path, True, docs, (st.st_ino, end, lines), end, row)

    def _store(self, batch: list[_Pending]) -> None:
        """Write collected documents of several files in one transaction (fewer FTS5
        segments, one commit)."""
        cat = self.catalog
        conn = cat.conn
        with cat.write_lock, conn:
            # another thread (fill vs watcher) may have indexed a file since it was read
            batch = [
                p
                for p in batch
                if conn.execute(
                    "SELECT inode, offset, line FROM indexed WHERE path = ?", (db_text(p.path),)
                ).fetchone()
                == p.seen
            ]
            for p in batch:
                if p.restart or p.indexed is None:
                    delete_docs(conn, p.path)
            first = (conn.execute("SELECT max(id) FROM docs").fetchone()[0] or 0) + 1
            rows = []
            for p in batch:
                key = db_text(p.path)
                rows += [
                    (key, db_text(u) if u else u, line, kind, _utf8(text))
                    for u, line, kind, text in p.docs
                ]
            if rows:
                conn.executemany(
                    "INSERT INTO docs(id, path, uuid, line, kind, text) VALUES (?,?,?,?,?,?)",
                    [(first + i, *r) for i, r in enumerate(rows)],
                )
                conn.execute(
                    "INSERT INTO fts(rowid, text) SELECT id, sidtui_cjk(text) FROM docs "
                    "WHERE id >= ?",
                    (first,),
                )
            conn.executemany(
                "INSERT OR REPLACE INTO indexed(path, inode, offset, line) VALUES (?,?,?,?)",
                [(db_text(p.path), *p.indexed) for p in batch if p.indexed is not None],
            )

    def fill(
        self,
        progress: Callable[[RefreshProgress], None] | None = None,
        cancel: Callable[[], bool] | None = None,
    ) -> FillResult:
        """Index every cached session file (incrementally; run it in a worker).

        Call :meth:`Catalog.refresh` first: the catalog's rows say which files exist.
        Documents of files no longer in the catalog are dropped.
        """
        t0 = time.perf_counter()
        res = FillResult()
        cat = self.catalog
        paths = cat.paths(oldest_first=True)  # newer sessions get higher rowids
        res.files = len(paths)
        batch: list[_Pending] = []
        batch_bytes = 0

        def flush() -> None:
            nonlocal batch, batch_bytes
            if batch:
                cat.guarded(partial(self._store, batch))
            batch, batch_bytes = [], 0

        for i, p in enumerate(paths, 1):
            if cancel is not None and cancel():
                res.cancelled = True
                break
            try:
                pending = cat.guarded(partial(self._collect, p))
            except sqlite3.OperationalError as exc:
                res.errors.append(f"{p}: {exc}")
                continue
            if pending is not None:
                batch.append(pending)
                batch_bytes += pending.consumed
                if pending.consumed:
                    res.indexed_files += 1
                res.documents += len(pending.docs)
                res.bytes += pending.consumed
            if len(batch) >= FILL_BATCH_FILES or batch_bytes >= FILL_BATCH_BYTES:
                flush()
            if progress is not None and (i % 200 == 0 or i == len(paths)):
                flush()
                progress(RefreshProgress(i, len(paths), res.indexed_files))
        flush()
        if not res.cancelled:
            known = set(paths)
            indexed = [py_text(p) for (p,) in cat.conn.execute("SELECT path FROM indexed")]
            stale = [p for p in indexed if p not in known]
            with cat.write_lock, cat.conn as conn:
                for p in stale:
                    delete_docs(conn, p)
        res.seconds = time.perf_counter() - t0
        return res

    def apply(self, batch: Iterable[Any]) -> int:
        """Index the files a watcher batch touched (only their new bytes).

        Returns:
            Documents added.
        """
        paths = sorted(
            {
                canonical_path(e.path)
                for e in batch
                if isinstance(
                    e, (ev.RecordsAppended, ev.FileReset, ev.SessionCreated, ev.SidechainStarted)
                )
            }
        )
        return sum(self.catalog.guarded(partial(self.index_file, p))[0] for p in paths)

    def search(self, query: str, *, project: str | None = None, limit: int = 50) -> list[SearchHit]:
        """The best ``limit`` matches of ``query`` (see module docstring).

        Cost is bounded whatever the number of matches: FTS5 yields the matching rowids
        newest document first (documents are indexed oldest session first, appends last)
        and stops after :data:`CANDIDATES`; those are ranked here (:func:`score_text`)
        and the best ``limit`` get snippets. (FTS5's own ``bm25()``/``snippet()`` seek
        every term's doclist per row: ~30× slower on words found everywhere.)

        Raises:
            UsageError: an empty query.
        """
        q = fts_query(query)
        terms = query_terms(query)
        where = "WHERE fts MATCH ?" + (" AND s.project = ?" if project is not None else "")
        args: list[Any] = [q] + ([db_text(project)] if project is not None else [])
        sql = (
            "SELECT fts.rowid FROM fts JOIN docs d ON d.id = fts.rowid "
            f"JOIN sessions s ON s.path = d.path {where} "
            "ORDER BY fts.rowid DESC LIMIT ?"
        )
        conn = self.catalog.conn

        def candidates() -> list[tuple]:
            ids = [r for (r,) in conn.execute(sql, [*args, CANDIDATES])]
            if not ids:
                return []
            marks = ",".join("?" * len(ids))
            return conn.execute(
                "SELECT d.id, s.session_id, s.project, d.path, d.uuid, d.line, d.kind, d.text "
                "FROM docs d JOIN sessions s ON s.path = d.path "
                f"WHERE d.id IN ({marks})",
                ids,
            ).fetchall()

        rows = self.catalog.guarded(candidates)
        scored = sorted(
            ((score_text(r[7], terms), r[0], r) for r in rows), key=lambda t: (-t[0], -t[1])
        )
        pat = _hit_pattern(terms)
        hits = []
        for sc, _, r in scored[:limit]:
            sid, project_key, path, uuid, line, kind = map(py_text, r[1:7])
            snippet = make_snippet(r[7], terms, pat=pat)
            hits.append(SearchHit(sid, project_key, path, uuid, line, kind, snippet, sc))
        return hits


_TERM = re.compile(r"\w+|" + EMOJI.pattern)  # words, and each emoji on its own


def query_terms(query: str) -> list[tuple[str, bool]]:
    """(lower-cased token, is_prefix) for every token of the query, as FTS5 splits words."""
    out: list[tuple[str, bool]] = []
    for w in query.split():
        toks = _TERM.findall(w.rstrip("*").lower())
        for i, t in enumerate(toks):
            # every word is a prefix match (an emoji is only itself)
            out.append((t, i == len(toks) - 1 and EMOJI.fullmatch(t) is None))
    return out


def score_text(text: str, terms: list[tuple[str, bool]]) -> float:
    """Relevance of one document: occurrences of each term (substring count, capped at 5),
    damped by the document's length. Higher is better. C-speed string ops only."""
    low = text.lower()
    hits = sum(min(low.count(t), 5) for t, _ in terms)
    return hits / math.sqrt(len(text) / 6 + 10)


def _hit_pattern(terms: list[tuple[str, bool]]) -> re.Pattern[str]:
    alts = []
    for t, p in terms:
        if CJK.search(t) or EMOJI.fullmatch(t):  # no spaces around them: match anywhere
            alts.append(re.escape(t))
        else:
            alts.append(r"(?<!\w)" + re.escape(t) + (r"\w*" if p else "") + r"(?!\w)")
    alts = sorted(set(alts), key=len, reverse=True)
    return re.compile("(?:" + "|".join(alts) + ")" if alts else r"(?!)", re.IGNORECASE)


def make_snippet(
    text: str, terms: list[tuple[str, bool]], width: int = 120, pat: re.Pattern[str] | None = None
) -> str:
    """About ``width`` characters around the first hit (whole words), every hit between «
    and », "…" where the text was cut. Whitespace is collapsed."""
    pat = pat or _hit_pattern(terms)
    m = pat.search(text)
    first = m.start() if m else 0
    start = max(0, first - width // 3)
    floor = max(0, start - 20)
    while start > floor and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1  # never start inside a word
    end = min(len(text), start + width)
    ceil = min(len(text), end + 20)
    while end < ceil and (text[end].isalnum() or text[end] == "_"):
        end += 1
    body = pat.sub(lambda x: f"{MARK_OPEN}{x.group()}{MARK_CLOSE}", text[start:end])
    body = " ".join(body.split())
    return ("…" if start > 0 else "") + body + ("…" if end < len(text) else "")

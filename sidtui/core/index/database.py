"""The one SQLite database per home the catalog and the search index share.

Its schema (session rows, search documents, the FTS5 table, what was indexed up to where),
how paths are keyed (:func:`canonical_path`) and text bound (:func:`db_text`), its SQL function and the deletion of a file's
documents. Connections, checks and rebuilds are :class:`sidtui.core.index.catalog.Catalog`'s.
"""

from __future__ import annotations

import os
import re
import sqlite3
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions(
    path TEXT PRIMARY KEY,
    inode INTEGER NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL,
    project TEXT NOT NULL,
    session_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    last_activity TEXT,
    summary BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_project ON sessions(project);
CREATE TABLE IF NOT EXISTS docs(
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL,
    uuid TEXT,
    line INTEGER NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS docs_path ON docs(path);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(text, content='docs', content_rowid='id');
CREATE TABLE IF NOT EXISTS indexed(
    path TEXT PRIMARY KEY,
    inode INTEGER NOT NULL,
    offset INTEGER NOT NULL,
    line INTEGER NOT NULL
);
"""


def canonical_path(path: str | os.PathLike[str]) -> str:
    """``path`` as the database keys it: absolute, its folders' symbolic links resolved
    (the file name itself is kept: a linked transcript is not its target). The same home
    spelled ``rel/home``, ``/abs/home`` or through a link is one set of rows."""
    p = os.path.abspath(os.fspath(path))
    return os.path.join(os.path.realpath(os.path.dirname(p)), os.path.basename(p))


def db_text(s: str) -> str | bytes:
    """A path, project or id as bound to SQLite. A str holding a surrogate (a file name
    byte that is not UTF-8, which ``os.listdir`` decodes with ``surrogateescape``; a
    ``"\\ud800"`` escape in a transcript) cannot be encoded for SQLite: it is stored as a
    BLOB of its ``surrogatepass`` bytes instead (lossless; a BLOB never equals a TEXT, so it
    cannot collide with another name). Read back with :func:`py_text`."""
    if s.isascii():
        return s
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return s.encode("utf-8", "surrogatepass")
    return s


def py_text(v: Any) -> Any:
    """A column value written through :func:`db_text` back as the original str."""
    return v.decode("utf-8", "surrogatepass") if isinstance(v, bytes) else v


CJK = re.compile(
    "([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f])"
)


#: Pictographs FTS5's unicode61 tokenizer drops as separators (emoji, dingbats, arrows…).
EMOJI = re.compile("[\u2190-\u21ff\u2300-\u23ff\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff]")
#: The word each emoji is indexed as (``sidtuiemoji1f389`` for 🎉).
EMOJI_WORD = "sidtuiemoji"


def _emoji_word(m: re.Match[str]) -> str:
    return f" {EMOJI_WORD}{ord(m.group()):x} "


def cjk_split(text: str | None) -> str | None:
    """Put spaces around every CJK character, so FTS5's unicode61 tokenizer (which keeps a
    run of CJK characters as one token) indexes each as a word and a phrase query finds any
    run inside a sentence ("周三" in "会议记录里周三讨论了什么"); and make every emoji a word
    of its own (:data:`EMOJI_WORD` + its code point: the tokenizer drops emoji as
    separators, so "🎉" could not be found). Used at index and query time."""
    if text is None:
        return text
    if EMOJI.search(text) is not None:
        text = EMOJI.sub(_emoji_word, text)
    if CJK.search(text) is None:
        return text
    return CJK.sub(r" \1 ", text)


def register_functions(conn: sqlite3.Connection) -> None:
    """SQL functions the schema's users call (``sidtui_cjk``: :func:`cjk_split`)."""
    conn.create_function("sidtui_cjk", 1, cjk_split, deterministic=True)


def delete_docs(conn: sqlite3.Connection, path: str) -> None:
    """Drop every document of ``path`` (caller holds a transaction)."""
    conn.execute(
        "INSERT INTO fts(fts, rowid, text) SELECT 'delete', id, sidtui_cjk(text) FROM docs "
        "WHERE path = ?",
        (db_text(path),),
    )
    conn.execute("DELETE FROM docs WHERE path = ?", (db_text(path),))
    conn.execute("DELETE FROM indexed WHERE path = ?", (db_text(path),))

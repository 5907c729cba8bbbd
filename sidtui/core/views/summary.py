"""One row of ``ls``, the catalog and the browser: :class:`SessionSummary`.

Built by :mod:`sidtui.core.views.listing` (the fast path in
:mod:`sidtui.core.views.fast_summary`, else the full session view).
"""

from __future__ import annotations

from typing import Any

import msgspec


class SessionSummary(msgspec.Struct, omit_defaults=True):
    """One row of ``ls`` / the browser.

    A msgspec struct, not a dataclass: the catalog reads 10,000 rows back in one C call
    ~5× faster (a warm ``ls`` is mostly that), and JSON writers take it as a dict of its
    fields in order (:func:`sidtui.core.base.jsonout.dumps_lenient`); the catalog stores
    it with msgspec, default values left out (``omit_defaults``: a fifth of the bytes).

    Attributes:
        session_id: the file-name id (what ``show``/``--resume`` look up), project, path,
            kind ("main"/"sidechain"), container ("jsonl"/"json").
        format_version: "3.0", "2.0", a v1 file's own version (None for sidechains).
        started: the start record's ISO timestamp; last_activity: the tail's timestamp
            (else the file's mtime, ISO; never before ``started``: a fork's copied records
            keep their old times).
        model, provider, cwd: from the start record.
        records: non-blank lines (messages for v1 ``.json`` files); bytes: file size;
            mtime_ns, inode: for cache keys.
        interruption: none / interrupted_prompt / interrupted_turn (None when not loadable).
        tool_names: for interrupted_turn.
        loadable / load_failure: whether the agent's loader returns anything, and why not.
        ended: the last record is ``session_end`` (the last process exited cleanly).
        live / stale: a running process writes it now / a dead one left a registration.
        cost_usd: from the last ``session_end`` or ``usage_stats`` on the chain.
        first_prompt: the first human prompt (preview); title: ``session_name`` or the
            summary file's ``summary``.
        parent_session_id: for sidechains.
        source: the agent that wrote it (``"sid-code"``, ``"claude-code"``:
            :mod:`sidtui.core.sources`).
        forked_from: the session this one was copied from (a Claude Code fork, rewind or
            repair: its records' ``forkedFrom.sessionId``); None: none (or not known).
        resume_lost: a Claude Code main session's conversation messages on disk that
            Claude Code will not load on ``--resume`` (a broken chain, damaged lines; not
            compacted ones): 0 = it loads them all; None = not known (sid-code, sidechains).
    """

    session_id: str
    project: str
    path: str
    kind: str = "main"
    container: str = "jsonl"
    format_version: str | None = None
    started: str | None = None
    last_activity: str | None = None
    model: str | None = None
    provider: str | None = None
    cwd: str | None = None
    records: int = 0
    bytes: int = 0
    mtime_ns: int = 0
    inode: int = 0
    interruption: str | None = None
    tool_names: list[str] | None = None
    loadable: bool = False
    load_failure: str | None = None
    ended: bool = False
    live: bool = False
    stale: bool = False
    cost_usd: float | None = None
    first_prompt: str | None = None
    title: str | None = None
    parent_session_id: str | None = None
    trace_ids: list[str] | None = None
    source: str = "sid-code"
    resume_lost: int | None = None
    forked_from: str | None = None

    def to_json(self) -> dict[str, Any]:
        return msgspec.structs.asdict(self)

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
from collections.abc import Callable

from sidtui.core.base.errors import SidtuiError, UnreadableInput
from sidtui.core.claude.layout import ClaudeFile, ClaudeHome, discover
from sidtui.core.claude.liveness import ClaudeRegistration, read_processes, session_liveness
from sidtui.core.claude.session import ClaudeSessionView, describe
from sidtui.core.claude.transcript import load_transcript
from sidtui.core.views.listing import SessionSummary, _iso_from_ns

#: ``load_failure`` of a transcript with no message (Claude Code's resume lists none).
NO_MESSAGES = "no messages (an empty session)"


def summarize(
    home: ClaudeHome | None,
    cf: ClaudeFile,
    *,
    processes: list[ClaudeRegistration] | None = None,
    data: bytes | None = None,
    st: os.stat_result | None = None,
) -> SessionSummary:
    """The ``ls`` row of one Claude Code transcript.

    Raises:
        UnreadableInput: the file cannot be read.
    """
    if data is None:
        try:
            with open(cf.path, "rb") as fh:
                st = os.fstat(fh.fileno())
                data = fh.read()
        except OSError as exc:
            raise UnreadableInput(f"cannot read {cf.path}: {exc.strerror or exc}") from None
    tr = load_transcript(cf, data)
    view = ClaudeSessionView(home, tr)
    describe(view)
    it = tr.interruption
    has_messages = bool(tr.messages)
    first = next((m for m in tr.messages if m.is_human_prompt), None)
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
        first_prompt=first.preview(200) if first is not None else None,
        title=view.title,
        parent_session_id=cf.parent_session_id if cf.kind == "sidechain" else None,
        trace_ids=[],
    )
    if st is not None:
        s.mtime_ns, s.inode = st.st_mtime_ns, st.st_ino
        if s.last_activity is None:
            s.last_activity = _iso_from_ns(st.st_mtime_ns)
    if cf.kind == "main":
        lv = session_liveness(cf.session_id, processes or [])
        s.live, s.stale = lv.live, lv.stale
    return s


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

"""One Codex CLI session as ``show``, ``ls`` and the app see it (docs/CODEX.md §3).

:func:`open_codex_session` reads the rollout (:mod:`.rollout`), predicts what a resume
sends (:mod:`.history`), builds the conversation, turns and interruption
(:mod:`.conversation`) and says whether a process writes it now (:mod:`.liveness`).
A rollout has no record tree: its one tip is the last history item, which a resume
continues from. The title is the first typed prompt (Codex 0.169.0 writes no title
record into the rollout).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sidtui.core.base.conversation import ConversationItem, SessionFacts, SubagentLink
from sidtui.core.base.errors import UnreadableInput
from sidtui.core.base.gcpause import gc_paused
from sidtui.core.codex.conversation import (
    CodexMessage,
    Interruption,
    Turn,
    build_messages,
    first_prompt,
    interruption,
    read_turns,
)
from sidtui.core.codex.history import Loader, ResumePrediction, predict
from sidtui.core.codex.layout import SOURCE, CodexFile, CodexHome, find_rollout
from sidtui.core.codex.liveness import session_liveness
from sidtui.core.codex.rollout import BadLine, Rollout, read_rollout
from sidtui.core.resume.process import Liveness, Registration
from sidtui.core.views.summary import SessionSummary

#: A view with more containers than this is frozen out of later GC passes (the app keeps it).
FREEZE_ABOVE = 100_000
#: Damaged lines named one by one in warnings (``--json`` lists all).
MAX_LISTED = 20


@dataclass
class CodexSessionView:
    """Everything known about one rollout (the common model's
    :class:`~sidtui.core.sources.base.SessionModel` of Codex)."""

    file: CodexFile
    rollout: Rollout
    resume: ResumePrediction
    messages: list[CodexMessage]
    turns: list[Turn]
    interruption: Interruption
    cwd: str | None = None
    version: str | None = None
    model: str | None = None
    provider: str | None = None
    originator: str | None = None
    title: str | None = None
    liveness: Liveness = field(default_factory=Liveness)
    warnings: list[str] = field(default_factory=list)
    _home: CodexHome | None = field(default=None, repr=False)

    source = SOURCE

    @property
    def session_id(self) -> str:
        return self.file.session_id

    @property
    def conversation(self) -> list[CodexMessage]:
        return self.messages

    @property
    def prompts(self) -> list[CodexMessage]:
        return [m for m in self.messages if m.prompt]

    @property
    def tip_rows(self) -> list[dict[str, Any]]:
        if not self.messages:
            return []
        last = self.messages[-1]
        return [
            {
                "uuid": last.uuid,
                "line": last.line,
                "kind": last.role,
                "resume": True,
                "live": True,
                "timestamp": last.timestamp,
                "joins_at_line": None,
                "records": len(self.rollout.records),
            }
        ]

    @property
    def resume_leaf(self) -> str | None:
        return self.messages[-1].uuid if self.messages else None

    @property
    def interruption_kind(self) -> str | None:
        return self.interruption.kind

    @property
    def interruption_tools(self) -> list[str]:
        return self.interruption.tool_names

    @property
    def bad_lines(self) -> list[BadLine]:
        return self.rollout.bad_lines

    @property
    def started(self) -> str | None:
        ts = self.rollout.meta.get("timestamp")
        if isinstance(ts, str):
            return ts
        return self.rollout.records[0].timestamp if self.rollout.records else None

    @property
    def last_activity(self) -> str | None:
        for r in reversed(self.rollout.records):
            if r.timestamp:
                return r.timestamp
        return None

    def full_record(self, index: int) -> Any:
        r = self.rollout.records[index]
        return {"timestamp": r.timestamp, "type": r.type, "payload": r.payload}

    def summary(self) -> SessionSummary:
        """The ``ls`` row."""
        try:
            st = self.file.path.stat()
            size, mtime, inode = st.st_size, st.st_mtime_ns, st.st_ino
        except OSError:
            size, mtime, inode = self.rollout.size, 0, 0
        return SessionSummary(
            session_id=self.session_id,
            project=self.file.project,
            path=str(self.file.path),
            started=self.started,
            last_activity=self.last_activity,
            model=self.model,
            provider=self.provider,
            cwd=self.cwd,
            records=len(self.rollout.records),
            bytes=size,
            mtime_ns=mtime,
            inode=inode,
            interruption=self.interruption.kind,
            tool_names=self.interruption.tool_names or None,
            loadable=bool(self.rollout.meta),
            load_failure=None if self.rollout.meta else "no session_meta record",
            ended=bool(self.turns) and self.turns[-1].state != "unfinished",
            live=self.liveness.live,
            stale=self.liveness.stale,
            first_prompt=first_prompt(self.messages),
            title=self.title,
            source=SOURCE,
            resume_lost=len(self.resume.lost) + len(self.rollout.bad_lines),
        )

    @property
    def home(self) -> CodexHome | None:
        """The home it was read from (a fork's base sessions are found there)."""
        return self._home

    def reading(self) -> Any:
        """The conversation as a screen draws it (:mod:`.reading`)."""
        from sidtui.core.codex.reading import reading

        return reading(self)

    def conversation_items(self) -> Iterator[ConversationItem]:
        from sidtui.core.codex.reading import conversation_items

        return conversation_items(self)

    def subagent_links(self) -> list[SubagentLink]:
        return []  # Codex keeps no sub-agent transcripts

    def facts(self) -> SessionFacts:
        from sidtui.core.codex.reading import facts

        return facts(self)

    def to_json(self, lazy: bool = False) -> dict[str, Any]:
        """The ``sidtui show --json`` object of a Codex CLI session (``format: "codex"``);
        ``lazy``: the messages as an iterator (streamed)."""
        messages: Any = (m.to_json() for m in self.messages)
        return {
            "format": SOURCE,
            "session_id": self.session_id,
            "path": str(self.file.path),
            "project": self.file.project,
            "cwd": self.cwd,
            "cli_version": self.version,
            "originator": self.originator,
            "model": self.model,
            "model_provider": self.provider,
            "title": self.title,
            "started": self.started,
            "last_activity": self.last_activity,
            "records": len(self.rollout.records),
            "unknown_record_types": self.rollout.unknown_types,
            "bad_lines": [b.to_json() for b in self.rollout.bad_lines],
            "turns": [t.to_json() for t in self.turns],
            "interruption": self.interruption.to_json(),
            "resume": self.resume.to_json(),
            "tips": self.tip_rows,
            "live": self.liveness.live,
            "stale": self.liveness.stale,
            "messages": messages if lazy else list(messages),
            "warnings": self.warnings,
        }


def open_codex_session(
    cf: CodexFile,
    registrations: list[Registration] | None = None,
    home: CodexHome | None = None,
) -> CodexSessionView:
    """Read one rollout completely (and, for a fork, the part of the sessions it was forked
    from that its history starts with, found in ``home``).

    Raises:
        UnreadableInput: the file cannot be read.
    """
    with gc_paused(freeze=True, freeze_above=FREEZE_ABOVE):
        ro = read_rollout(Path(cf.path))
        view = view_of(cf, ro, registrations or [], loader(home) if home is not None else None)
        view._home = home
        return view


def loader(home: CodexHome) -> Loader:
    """Reads a session's rollout from ``home`` by id (None: not there or unreadable)."""

    def load(session_id: str) -> Rollout | None:
        p = find_rollout(home, session_id)
        if p is None:
            return None
        try:
            return read_rollout(p)
        except UnreadableInput:
            return None

    return load


def view_of(
    cf: CodexFile, ro: Rollout, registrations: list[Registration], load: Loader | None = None
) -> CodexSessionView:
    pred = predict(ro, load)
    messages = build_messages(ro, pred.items)
    turns = read_turns(ro)
    meta = ro.meta
    model = None
    for r in ro.records:
        if r.type == "turn_context" and isinstance(r.payload.get("model"), str):
            model = r.payload["model"]
    view = CodexSessionView(
        file=cf,
        rollout=ro,
        resume=pred,
        messages=messages,
        turns=turns,
        interruption=interruption(messages, turns),
        cwd=_s(meta.get("cwd")),
        version=_s(meta.get("cli_version")),
        model=model,
        provider=_s(meta.get("model_provider")),
        originator=_s(meta.get("originator")),
        title=first_prompt(messages),
        liveness=session_liveness(registrations, cf.session_id),
    )
    view.warnings = warnings_of(view)
    return view


def _s(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def warnings_of(view: CodexSessionView) -> list[str]:
    out: list[str] = []
    ro = view.rollout
    if not ro.meta:
        out.append("no session_meta record: Codex cannot resume this file")
    for b in ro.bad_lines[:MAX_LISTED]:
        out.append(f"line {b.line}: {b.reason}; Codex skips it")
    if len(ro.bad_lines) > MAX_LISTED:
        out.append(f"… and {len(ro.bad_lines) - MAX_LISTED} more unreadable lines")
    for t, n in sorted(ro.unknown_types.items()):
        out.append(f"{n} record(s) of unknown type {t!r}: Codex 0.169.0 ignores them")
    for lost in view.resume.lost:
        where = (
            f"session {lost['base']}" if lost["base"] else f"line {ro.records[lost['record']].line}"
        )
        out.append(f"{where}: {lost['reason']}; a resume drops it")
    for base in view.resume.bases:
        if not base["found"]:
            out.append(
                f"forked from session {base['session_id']}, whose rollout is not in this home: "
                "its part of the history cannot be shown"
            )
    if view.resume.added:
        out.append(
            f'{len(view.resume.added)} call(s) without an output: a resume sends them as "aborted"'
        )
    if view.interruption.unfinished:
        out.append("the last turn has no end record: the process stopped mid-turn")
    if view.liveness.live:
        out.append("a running Codex process writes this session now")
    elif view.liveness.stale:
        out.append("a Codex process that stopped left its writer lock")
    return out


def list_sessions(
    home: CodexHome,
    project: str | None = None,
    *,
    include_sidechains: bool = False,
    progress: Any = None,
) -> tuple[list[SessionSummary], list[str]]:
    """Every rollout's ``ls`` row, newest activity first, and one error line per rollout
    that cannot be read (Codex keeps no sub-agent transcripts: ``include_sidechains``
    changes nothing)."""
    from sidtui.core.codex.layout import discover
    from sidtui.core.codex.liveness import read_locks

    errors: list[str] = []
    files = discover(home, project, errors)
    regs = read_locks(home, errors)
    rows: list[SessionSummary] = []
    for i, f in enumerate(files):
        if progress is not None:
            progress(i, len(files))
        try:
            rows.append(open_codex_session(f, regs, home).summary())
        except UnreadableInput as exc:
            errors.append(str(exc))
    if progress is not None:
        progress(len(files), len(files))
    rows.sort(key=lambda r: (r.last_activity or "", r.session_id), reverse=True)
    return rows, errors


def summarize_files(
    home: CodexHome, items: list[tuple[str, str]], regs: list[Registration], chunk_files: int
) -> Iterator[list[Any]]:
    """The catalog's rows of ``(path, project)`` items, chunk by chunk: a
    :class:`~sidtui.core.views.listing.Summarized` per rollout, else its error line."""
    from sidtui.core.codex.layout import file_for_path
    from sidtui.core.views.listing import Summarized

    n = max(1, chunk_files)
    for i in range(0, len(items), n):
        out: list[Any] = []
        for path, project in items[i : i + n]:
            try:
                st = Path(path).stat()
                cf = file_for_path(Path(path), project or None)
                s = open_codex_session(cf, regs, home).summary()
            except OSError as exc:
                out.append(f"cannot read {path}: {exc.strerror or exc}")
                continue
            except UnreadableInput as exc:
                out.append(str(exc))
                continue
            out.append(Summarized(s, (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)))
        yield out

"""One Claude Code session as ``show`` and the app see it (docs/CLAUDE-CODE.md §9 for titles).

:func:`open_claude_session` reads the transcript (:mod:`.transcript`), then what needs the
home: its subagents linked to their spawns, whether a running process writes it, its title
(``custom-title`` > ``ai-title`` > a ``summary`` whose leaf is in this conversation > the
first prompt; head summaries naming leaves of other sessions never title it), metadata
records, and the ``file-history-snapshot``/``-delta`` records (for checkpoints).
:meth:`ClaudeSessionView.to_json` is the ``sidtui show --json`` contract for Claude Code
(``format: "claude-code"``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sidtui.core.base.gcpause import gc_paused
from sidtui.core.base.model_views import ModelViews
from sidtui.core.base.values import json_str as _s
from sidtui.core.base.words import plural
from sidtui.core.claude.conversation import ClaudeMessage, Interruption, first_prompt
from sidtui.core.claude.kinds import PROMPT, checkpoint_prompt, first_text, user_kind
from sidtui.core.claude.layout import SOURCE, ClaudeFile, ClaudeHome, subagent_files
from sidtui.core.claude.liveness import (
    ClaudeRegistration,
    live_words,
    read_processes,
    session_liveness,
)
from sidtui.core.claude.resume import ResumePrediction, predict_for
from sidtui.core.claude.scan import DAG_TYPES, KNOWN_TYPES, ClaudeScan, DamagedLine
from sidtui.core.claude.subagents import (
    MISSING,
    RUNNING,
    UNFINISHED,
    Subagent,
    is_warmup,
    link_subagents,
    read_meta,
    subagent_status,
)
from sidtui.core.claude.transcript import ClaudeTranscript, load_transcript
from sidtui.core.claude.tree import BRANCH, RESUME, ClaudeTree
from sidtui.core.resume.process import Liveness

#: Damaged lines and branches named one by one in warnings (``--json`` lists all).
MAX_LISTED = 20
#: Metadata types whose last record is kept whole in ``metadata`` (small, one per change).
METADATA_TYPES = (
    "custom-title",
    "ai-title",
    "agent-name",
    "agent-setting",
    "last-prompt",
    "mode",
    "permission-mode",
    "pr-link",
    "worktree-state",
    "fork-context-ref",
    "bridge-session",
)


@dataclass
class Summary:
    """A ``summary`` record: its text, the leaf it names, whether that leaf is here."""

    record: int
    line: int
    text: str | None
    leaf_uuid: str | None
    here: bool
    on_conversation: bool


@dataclass
class SnapshotRecord:
    """A ``file-history-snapshot`` (or ``-delta``) record, kept for checkpoints.

    Attributes:
        record, line: where it is; message_id: the prompt it belongs to
            (:func:`~sidtui.core.claude.kinds.checkpoint_prompt`; None: it names none);
        update: ``isSnapshotUpdate`` (a later, fuller copy of the same snapshot);
        delta: a ``file-history-delta`` (folded into its snapshot, never overwriting).
    """

    record: int
    line: int
    message_id: str | None
    update: bool = False
    delta: bool = False


@dataclass
class ClaudeSessionView(ModelViews):
    """Everything known about one Claude Code session file.

    Attributes:
        home: the home it was read from (None: a file outside any home).
        transcript: the file read into the model (scan, tree, messages, interruption).
        cwd, version, git_branch: from the records (first and leaf); model: the last reply's.
        title, title_source: see the module docstring (``custom-title``, ``ai-title``,
            ``summary``, ``first-prompt``).
        summaries: every ``summary`` record; metadata: the last record of each
            :data:`METADATA_TYPES` type, decoded.
        snapshots: ``file-history-snapshot``/``-delta`` records, file order.
        subagents: a main session's subagents; subagent: for a subagent file, how it is
            linked (None otherwise).
        liveness: which registrations match (``sessions/<pid>.json``).
        warnings: every warning, worded for users.
    """

    export_items = "sidtui.core.claude.export_items"
    reading_module = "sidtui.core.claude.reading"

    home: ClaudeHome | None
    transcript: ClaudeTranscript
    cwd: str | None = None
    version: str | None = None
    git_branch: str | None = None
    model: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    title: str | None = None
    title_source: str | None = None
    summaries: list[Summary] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    snapshots: list[SnapshotRecord] = field(default_factory=list)
    subagents: list[Subagent] = field(default_factory=list)
    subagent: Subagent | None = None
    liveness: Liveness = field(default_factory=Liveness)
    warnings: list[str] = field(default_factory=list)
    _resume: ResumePrediction | None = field(default=None, repr=False)

    source = SOURCE

    @property
    def file(self) -> ClaudeFile:
        return self.transcript.file

    @property
    def session_id(self) -> str:
        return self.file.session_id

    @property
    def scan(self) -> ClaudeScan:
        return self.transcript.scan

    @property
    def tree(self) -> ClaudeTree:
        return self.transcript.tree

    @property
    def messages(self) -> list[ClaudeMessage]:
        return self.transcript.messages

    @property
    def interruption(self) -> Interruption:
        return self.transcript.interruption

    @property
    def prompts(self) -> list[ClaudeMessage]:
        """The typed prompts of the conversation (rewind points)."""
        return [m for m in self.messages if m.is_human_prompt]

    def full_record(self, i: int) -> Any:
        """Record ``i`` fully decoded (raw-JSON views)."""
        return self.transcript.record(i)

    @property
    def resume(self) -> ResumePrediction | None:
        """What Claude Code sends on ``--resume`` (:mod:`.resume`; None for a subagent
        file, which is never resumed by itself). Computed once."""
        if self.file.kind != "main":
            return None
        if self._resume is None:
            self._resume = predict_for(self.transcript)
        return self._resume

    # --- the common model (sidtui.core.sources.base.SessionModel) ---------------------

    @property
    def conversation(self) -> list[ClaudeMessage]:
        return self.transcript.messages

    @property
    def tip_rows(self) -> list[dict[str, Any]]:
        return tip_rows(self.transcript)

    @property
    def resume_leaf(self) -> str | None:
        leaf = self.tree.leaf
        return self.scan.objs[leaf].uuid if leaf is not None else None

    @property
    def interruption_kind(self) -> str | None:
        return self.interruption.kind

    @property
    def interruption_tools(self) -> list[str]:
        return self.interruption.tool_names

    @property
    def bad_lines(self) -> list[DamagedLine]:
        return self.scan.bad_lines

    def to_json(self, lazy: bool = False) -> dict[str, Any]:
        """The ``sidtui show --json`` object of a Claude Code session (built whole)."""
        return session_to_json(self)


def open_claude_session(
    home: ClaudeHome | None,
    cf: ClaudeFile,
    *,
    data: Any = None,
    processes: list[ClaudeRegistration] | None = None,
    with_subagents: bool = True,
) -> ClaudeSessionView:
    """Read one Claude Code session file completely.

    Args:
        home: its home (None for a file outside one: no liveness, subagents only from
            its own ``<stem>/subagents/`` folder).
        cf: the file (:func:`~.layout.discover`, :func:`~.layout.resolve_session`).
        data: the file's bytes if already read.
        processes: pre-read registrations (else read from the home).
        with_subagents: read and link the session's subagent transcripts.

    Raises:
        UnreadableInput: the file cannot be read (``FileChanged`` when a big file
            shrank while it was read).
    """
    with gc_paused():
        return _open(home, cf, data, processes, with_subagents)


def _open(home, cf, data, processes, with_subagents) -> ClaudeSessionView:
    if data is None and cf.layout == "inline":
        data = cf.inline_bytes()  # a sidechain inside its session's file (before 2.0)
    tr = load_transcript(cf, data)
    view = ClaudeSessionView(home, tr)
    describe(view)
    if processes is None:
        processes = read_processes(home) if home is not None else []
    view.liveness = session_liveness(
        cf.session_id if cf.kind == "main" else (cf.parent_session_id or ""), processes
    )
    if cf.kind == "main" and with_subagents:
        files = subagent_files(home or ClaudeHome(cf.path.parent), cf)
        view.subagents = link_subagents(tr, files, live=view.liveness.live)
    elif cf.kind == "sidechain":
        view.subagent = _self_link(home, cf, tr)
    view.warnings = _warnings(view)
    return view


def describe(view: ClaudeSessionView) -> None:
    """Fill what the records say about the session: context (cwd, version, model, times),
    summaries, metadata, file-history records and the title."""
    _context(view)
    _records_outside(view)
    _title(view)


def _context(view: ClaudeSessionView) -> None:
    """cwd/version/branch from the first node and the leaf; the model of the last reply."""
    tr = view.transcript
    tree = tr.tree
    first = next((i for i in tree.chain), None)
    if first is None:
        first = next((i for i, o in enumerate(tr.scan.objs) if o.type in DAG_TYPES), None)
    if first is not None:
        d = tr.record(first)
        if isinstance(d, dict):
            view.cwd = _s(d.get("cwd"))
            view.version = _s(d.get("version"))
            view.git_branch = _s(d.get("gitBranch"))
        view.created_at = tr.scan.objs[first].timestamp
    if tree.leaf is not None:
        d = tr.record(tree.leaf)
        if isinstance(d, dict):
            view.version = _s(d.get("version")) or view.version
            view.git_branch = _s(d.get("gitBranch")) or view.git_branch
        view.updated_at = tr.scan.objs[tree.leaf].timestamp
    for m in reversed(tr.messages):
        if m.role == "assistant" and isinstance(m.model, str) and m.model != "<synthetic>":
            view.model = m.model
            break


def _records_outside(view: ClaudeSessionView) -> None:
    """Summaries, metadata (last per type) and file-history records."""
    tr = view.transcript
    objs = tr.scan.objs
    lines = tr.scan.lines
    last: dict[str, int] = {}
    summaries: list[int] = []
    for i, o in enumerate(objs):
        t = o.type
        if t == "user" or t == "assistant" or t == "progress" or t == "system":
            continue
        if t == "summary":
            summaries.append(i)
        elif t == "file-history-snapshot":
            view.snapshots.append(
                SnapshotRecord(i, lines[i], checkpoint_prompt(o), o.isSnapshotUpdate is True)
            )
        elif t == "file-history-delta":
            view.snapshots.append(SnapshotRecord(i, lines[i], checkpoint_prompt(o), delta=True))
        elif t in METADATA_TYPES:
            last[t] = i
    for t, i in last.items():
        view.metadata[t] = tr.record(i)
    if summaries:  # which leaves they name: an index of every uuid, only then
        pos: dict[str, int] = {}
        for i, o in enumerate(objs):
            if o.uuid is not None:
                pos.setdefault(o.uuid, i)
        on_conv = set(tr.tree.conversation)
        for i in summaries:
            leaf = _s(objs[i].leafUuid)
            j = pos.get(leaf) if leaf is not None else None
            d = tr.record(i)
            text = _s(d.get("summary")) if isinstance(d, dict) else None
            view.summaries.append(Summary(i, lines[i], text, leaf, j is not None, j in on_conv))


def _title(view: ClaudeSessionView) -> None:
    md = view.metadata
    for t, key in (("custom-title", "customTitle"), ("ai-title", "aiTitle")):
        d = md.get(t)
        v = d.get(key) if isinstance(d, dict) else None
        if isinstance(v, str) and v.strip():
            view.title, view.title_source = v, t
            return
    for s in reversed(view.summaries):
        if s.on_conversation and s.text:
            view.title, view.title_source = s.text, "summary"
            return
    p = first_prompt([m for m in view.messages if not m.sidechain])  # never a sub-agent's
    if p is not None:
        view.title, view.title_source = p.preview(200), "first-prompt"
        return
    # no typed prompt on the resumed conversation (it resumes a bash-mode or command
    # branch): the first prompt anywhere in the file still names the session
    for o in view.transcript.scan.objs:
        if o.type == "user" and o.isSidechain is not True and user_kind(o) == PROMPT:
            view.title = first_text(o)
            view.title_source = "first-prompt-in-file"
            return


def _self_link(home: ClaudeHome | None, cf: ClaudeFile, tr: ClaudeTranscript) -> Subagent | None:
    """How a subagent file is linked: read its session (when present) and find itself."""
    from sidtui.core.base.errors import SidtuiError
    from sidtui.core.claude.layout import file_for_path

    sid = cf.parent_session_id
    if not sid:
        return None
    if cf.layout == "subagents":
        main_path = cf.path.parent.parent.parent / f"{sid}.jsonl"
    else:
        main_path = cf.path.parent / f"{sid}.jsonl"
    if not main_path.is_file():
        meta = read_meta(cf)
        a = Subagent(
            cf.agent_id,
            cf,
            None,
            agent_type=_s(meta.get("agentType")),
            description=_s(meta.get("description")),
            parent_agent_id=_s(meta.get("parentAgentId")),
            messages=len(tr.messages),
            ended=tr.interruption.kind == "none" and bool(tr.messages),
            warmup=is_warmup(tr),
        )
        a.status = subagent_status(a, False)
        return a
    main = file_for_path(main_path)
    try:
        main_tr = load_transcript(main)
    except SidtuiError:
        return None
    siblings = subagent_files(home, main) if home is not None and main.project else [cf]
    for a in link_subagents(main_tr, siblings):
        if a.file is not None and a.file.path == cf.path:
            return a
    return None


def _warnings(view: ClaudeSessionView) -> list[str]:
    tr = view.transcript
    sc, tree = tr.scan, tr.tree
    lines = sc.lines
    out: list[str] = []

    def line(i: int | None) -> str:
        return "?" if i is None or i < 0 else str(lines[i])

    for b in sc.bad_lines[:MAX_LISTED]:
        got = f"{b.recovered} record(s) recovered from it, " if b.recovered else ""
        out.append(
            f"line {b.line} (byte {b.offset}) is damaged: {b.reason}; {got}{b.lost_bytes} byte(s) lost"
        )
    if len(sc.bad_lines) > MAX_LISTED:
        out.append(
            f"… and {len(sc.bad_lines) - MAX_LISTED} more damaged lines (all in --json bad_lines)"
        )
    for r in sc.repairs[:MAX_LISTED]:
        out.append(f"line {r.line} holds {r.reason}")
    if sc.non_records:
        out.append(f"{sc.non_records} line(s) are valid JSON but not records (not objects)")
    if tree.duplicates:
        out.append(
            f"{len(tree.duplicates)} record(s) repeat an earlier record's uuid (a replayed prefix or a "
            f"second /compact; first at line {line(tree.duplicates[0])}): the earliest copy is kept"
        )
    if tree.bridges:
        i, missing = next(iter(tree.bridges.items()))
        out.append(
            f"{len(tree.bridges)} record(s) name a parent that is not in the file (usual: Claude Code "
            f"does not write every record); each is joined to the nearest earlier record (first: line "
            f"{line(i)} names {missing}, joined to line {line(tree.parent[i])})"
        )
    for i in tree.cycles:
        out.append(f"the parent link of line {line(i)} closes a cycle: cut there")
    for i, u in tree.logical_refused.items():
        out.append(
            f"the compaction at line {line(i)} names one of its own later records ({u}) as what it "
            "compacted: that link is not followed (it would cycle)"
        )
    for i, u in tree.logical_missing.items():
        out.append(
            f"the history before the compaction at line {line(i)} is not in this file (it names {u})"
        )
    branches = [t for t in tree.tips if t.kind == BRANCH]
    for t in branches[:MAX_LISTED]:
        where = (
            f"hangs off line {line(t.joins_at)}"
            if t.joins_at is not None
            else "has a root of its own"
        )
        what = "a rewind: " if t.rewind else ""
        out.append(
            f"{what}branch ending at line {line(t.index)} ({plural(len(t.records), 'record')}) {where}; "
            "resume will not show it"
        )
    if len(branches) > MAX_LISTED:
        out.append(f"… and {len(branches) - MAX_LISTED} more branches (all in --json tips)")
    foreign = [s for s in view.summaries if not s.here]
    if foreign:
        out.append(
            f"{len(foreign)} summary line(s) name conversations of other sessions (leaves not in this "
            "file): not this session's title"
        )
    unknown = Counter(o.type or "(no type)" for o in sc.objs if o.type not in KNOWN_TYPES)
    if unknown:
        kinds = ", ".join(f"{t} ×{n}" for t, n in unknown.most_common(5))
        out.append(f"record types sidtui does not know, kept as opaque records: {kinds}")
    if tree.leaf is None and any(o.type in DAG_TYPES for o in sc.objs):
        out.append("no user or assistant record: there is no conversation to resume")
    if view.liveness.live:
        pids = ", ".join(str(r.pid) for r in view.liveness.registrations if r.live)
        if all(r.possibly for r in view.liveness.registrations if r.live):
            out.append(live_words(view.session_id, view.liveness))
        else:
            out.append(f"a running Claude Code process (pid {pids}) writes this session now")
    for a in view.subagents:
        if a.status in (UNFINISHED, RUNNING):
            out.append(f"subagent {a.agent_id} ({a.agent_type or 'agent'}) is {a.status}")
    absent = [a for a in view.subagents if a.status == MISSING]
    if absent:
        out.append(f"{len(absent)} spawned subagent(s) have no transcript on disk")
    return out


def tip_rows(tr: ClaudeTranscript) -> list[dict[str, Any]]:
    """Every leaf as a row: uuid, line, kind, whether resume picks it (``resume``; also
    ``live``, the sid-code name), timestamp, where its branch joins, its records."""
    objs, lines = tr.scan.objs, tr.scan.lines
    return [
        {
            "uuid": objs[t.index].uuid,
            "line": lines[t.index],
            "kind": t.kind,
            "resume": t.kind == RESUME,
            "live": t.kind == RESUME,
            "timestamp": t.timestamp,
            "joins_at_line": None if t.joins_at is None else lines[t.joins_at],
            "skipped": len(t.records) if t.kind == BRANCH else 0,
            "records": len(t.records),
            "rewind": t.rewind,
        }
        for t in tr.tree.tips
    ]


def _tree_json(tr: ClaudeTranscript, tips: list[dict[str, Any]]) -> dict[str, Any]:
    """``branches``, ``chain``, ``records`` and ``record_types`` of ``show --json``: the
    record tree, as for sid-code."""
    sc, tree = tr.scan, tr.tree
    lines, objs, starts = sc.lines, sc.objs, sc.starts

    def ln(i: int | None) -> int | None:
        return None if i is None or i < 0 else lines[i]

    on_chain = bytearray(len(objs))
    for i in tree.chain:
        on_chain[i] = 1
    in_conv = bytearray(len(objs))
    for i in tree.conversation:
        in_conv[i] = 1
    by_type = Counter(o.type or "(no type)" for o in objs)
    return {
        "branches": {
            "heads": [
                {"line": lines[r], "uuid": objs[r].uuid, "type": objs[r].type} for r in tree.roots
            ],
            "tips": tips,
            "branch_points": [lines[i] for i in tree.branch_points],
            "skipped_records": sum(len(t.records) for t in tree.tips if t.kind == BRANCH),
        },
        "chain": {
            "lines": [lines[i] for i in tree.chain],
            "conversation_lines": [lines[i] for i in tree.conversation],
            "after_leaf_lines": [lines[i] for i in tree.after_leaf],
            "compactions": [lines[i] for i in tree.compactions],
            "bridges": [
                {"line": lines[i], "missing_parent": u, "joined_to_line": ln(tree.parent[i])}
                for i, u in tree.bridges.items()
            ],
            "duplicates": [lines[i] for i in tree.duplicates],
            "cycles": [lines[i] for i in tree.cycles],
            "logical_refused": [lines[i] for i in tree.logical_refused],
            "logical_missing": [lines[i] for i in tree.logical_missing],
        },
        "records": [
            {
                "line": lines[i],
                "offset": starts[i],
                "uuid": o.uuid,
                "parent": o.parentUuid,
                "type": o.type,
                "on_chain": bool(on_chain[i]),
                "conversation": bool(in_conv[i]),
            }
            for i, o in enumerate(objs)
        ],
        "record_types": dict(sorted(by_type.items())),
    }


def session_to_json(v: ClaudeSessionView) -> dict[str, Any]:
    """The ``show --json`` object (keys shared with sid-code's where they mean the same)."""
    tr = v.transcript
    sc, tree = tr.scan, tr.tree
    lines, objs = sc.lines, sc.objs
    tips = tip_rows(tr)
    pred = v.resume
    sent = pred.sent if pred is not None else None
    out: dict[str, Any] = {
        "format": SOURCE,
        "source": SOURCE,
        "session_id": v.session_id,
        "path": str(v.file.path),
        "project": v.file.project,
        "kind": v.file.kind,
        "format_version": v.version,
        "cwd": v.cwd,
        "git_branch": v.git_branch,
        "model": v.model,
        "created_at": v.created_at,
        "updated_at": v.updated_at,
        "title": v.title,
        "title_source": v.title_source,
        "loadable": tree.leaf is not None,
        "empty": sc.size == 0,
        "messages": [
            {
                "uuid": m.uuid,
                "line": m.line,
                "role": m.role,
                "blocks": m.block_types,
                "kind": m.kind,
                "uuids": [objs[r].uuid for r in m.records],
                "lines": [lines[r] for r in m.records],
                "compacted": m.compacted,
                "sidechain": m.sidechain,
                **({} if sent is None else {"sent": any(r in sent for r in m.records)}),
            }
            for m in tr.messages
        ],
        **({} if pred is None else {"resume": pred.to_json()}),
        "leaf": objs[tree.leaf].uuid if tree.leaf is not None else None,
        "leaf_line": lines[tree.leaf] if tree.leaf is not None else None,
        "tips": tips,
        "interruption": {
            "kind": tr.interruption.kind,
            "tool_names": tr.interruption.tool_names,
            "marker_line": tr.messages[tr.interruption.marker].line
            if tr.interruption.marker is not None
            else None,
            "pending": tr.interruption.pending,
        },
        "warnings": v.warnings,
        "bad_lines": [
            {
                "line": b.line,
                "offset": b.offset,
                "length": b.length,
                "reason": b.reason,
                "terminated": b.terminated,
                "recovered": b.recovered,
                "lost_bytes": b.lost_bytes,
            }
            for b in sc.bad_lines
        ],
        **_tree_json(tr, tips),
        "summaries": [
            {
                "line": s.line,
                "summary": s.text,
                "leaf_uuid": s.leaf_uuid,
                "here": s.here,
                "on_conversation": s.on_conversation,
            }
            for s in v.summaries
        ],
        "metadata": v.metadata,
        "file_history": {
            "snapshots": [
                {"line": s.line, "message_id": s.message_id, "update": s.update, "delta": s.delta}
                for s in v.snapshots
            ]
        },
        **v.liveness.to_json(with_status=True),
    }
    if v.file.kind == "main":
        out["subagents"] = [a.to_json() for a in v.subagents]
    else:
        out["subagent"] = {
            "agent_id": v.file.agent_id,
            "parent_session_id": v.file.parent_session_id,
            "layout": v.file.layout,
            **({} if v.subagent is None else {"link": v.subagent.to_json()}),
        }
    return out

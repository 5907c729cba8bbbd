"""``sidtui check`` on a Claude Code home: what is on disk, counted (docs/CLAUDE-CODE.md).

Every transcript is read into the model (:mod:`.transcript`) and counted: record types
(unknown ones named), files without messages, leaves per file (the leaf resume picks,
parallel-tool side leaves, branches and rewinds), dangling parents (bridged; normal),
duplicate uuids, compactions, damaged lines and what salvage recovered, subagents by
status, ``file-history-snapshot`` records and the processes registered in ``sessions/``.
Structural faults (exit 1): a file that cannot be read, a damaged line that lost bytes
(Claude Code drops the whole line), a parent cycle. Unrecoverable checkpoint backups are
counted by a :data:`BackupCheck` the caller passes (checkpoints plug in there).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sidtui.core.base.errors import SidtuiError
from sidtui.core.base.words import plural
from sidtui.core.claude.kinds import user_kind
from sidtui.core.claude.layout import ClaudeFile, ClaudeHome, discover, subagent_files
from sidtui.core.claude.liveness import read_processes
from sidtui.core.claude.scan import KNOWN_TYPES
from sidtui.core.claude.session import ClaudeSessionView, describe
from sidtui.core.claude.subagents import Subagent, is_warmup, link_subagents, subagent_status
from sidtui.core.claude.transcript import ClaudeTranscript, load_transcript
from sidtui.core.claude.tree import BRANCH, PARALLEL
from sidtui.core.views.check_report import Finding, size_distribution

#: Counts unrecoverable checkpoint backups of one session: ``(home, view) -> counts``
#: (e.g. ``{"backups": n, "missing": m}``); given by the checkpoint layer.
BackupCheck = Callable[[ClaudeHome, ClaudeSessionView], dict[str, int]]


@dataclass
class ClaudeFileCounts:
    """What one transcript holds (the per-file row of the report)."""

    path: str
    project: str
    session_id: str
    kind: str
    size: int
    records: int = 0
    messages: int = 0
    leaves: int = 0
    parallel_leaves: int = 0
    branches: int = 0
    rewinds: int = 0
    bridged: int = 0
    duplicates: int = 0
    compactions: int = 0
    damaged_lines: int = 0
    recovered: int = 0
    snapshots: int = 0
    interruption: str | None = None

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class ClaudeCheckReport:
    """The counts of one Claude Code home (``to_json()``, ``exit_code``)."""

    home: str
    scope: str
    files: list[ClaudeFileCounts] = field(default_factory=list)
    record_types: Counter = field(default_factory=Counter)
    unknown_types: Counter = field(default_factory=Counter)
    system_subtypes: Counter = field(default_factory=Counter)
    user_kinds: Counter = field(default_factory=Counter)
    damaged: list[dict[str, Any]] = field(default_factory=list)
    subagents: Counter = field(default_factory=Counter)
    processes: dict[str, int] = field(default_factory=dict)
    backups: dict[str, Any] = field(default_factory=lambda: {"checked": False})
    faults: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 1 if self.faults else 0

    def to_json(self) -> dict[str, Any]:
        mains = [f for f in self.files if f.kind == "main"]
        leaves = Counter(f.leaves for f in mains)
        return {
            "source": "claude-code",
            "home": self.home,
            "scope": self.scope,
            "files": {
                "main": len(mains),
                "sidechain": len(self.files) - len(mains),
                "zero_bytes": sum(1 for f in self.files if f.size == 0),
                "without_messages": sum(1 for f in mains if not f.messages),
            },
            "records": sum(f.records for f in self.files),
            "record_types": dict(self.record_types.most_common()),
            "unknown_types": dict(self.unknown_types.most_common()),
            "system_subtypes": dict(self.system_subtypes.most_common()),
            "user_records": dict(self.user_kinds.most_common()),
            "leaves_per_file": {str(k): v for k, v in sorted(leaves.items())},
            "branches": {
                "parallel_tool_leaves": sum(f.parallel_leaves for f in self.files),
                "branches": sum(f.branches for f in self.files),
                "rewinds": sum(f.rewinds for f in self.files),
                "files_with_branches": sum(1 for f in mains if f.branches),
            },
            "dangling_parents": {
                "records": sum(f.bridged for f in self.files),
                "files": sum(1 for f in self.files if f.bridged),
            },
            "duplicate_uuids": sum(f.duplicates for f in self.files),
            "compactions": sum(f.compactions for f in self.files),
            "interruption": dict(
                Counter(f.interruption for f in mains if f.messages).most_common()
            ),
            "damaged_lines": self.damaged,
            "recovered_records": sum(f.recovered for f in self.files),
            "file_history_snapshots": sum(f.snapshots for f in self.files),
            "subagents": dict(self.subagents.most_common()),
            "processes": self.processes,
            "backups": self.backups,
            "sizes": size_distribution(sorted(f.size for f in mains)),
            "per_file": [f.to_json() for f in self.files],
            "faults": [f.to_json() for f in self.faults],
            "warnings": [w.to_json() for w in self.warnings],
        }


def run_claude_check(
    home: ClaudeHome,
    *,
    project: str | None = None,
    session: ClaudeFile | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    backups: BackupCheck | None = None,
) -> ClaudeCheckReport:
    """Count a Claude Code home (or one project folder, or one session and its subagents).

    Never raises on file content; an unreadable file is a fault.
    """
    errors: list[str] = []
    if session is not None:
        files = [session, *subagent_files(home, session)]
        scope = f"session {session.session_id}"
    else:
        files = discover(home, project, errors)
        scope = f"project {project}" if project is not None else "home"
    report = ClaudeCheckReport(str(home.root), scope)
    for e in errors:
        report.faults.append(Finding("unreadable_folder", str(home.projects_dir), e))
    by_session: dict[str, list[ClaudeFile]] = {}
    for f in files:
        if f.kind == "sidechain" and f.parent_session_id:
            by_session.setdefault(f.parent_session_id, []).append(f)
    mains = {f.session_id for f in files if f.kind == "main"}
    for k, f in enumerate(files, 1):
        if progress is not None:
            progress(k, len(files), str(f.path))
        try:
            tr = load_transcript(f)
        except SidtuiError as exc:
            report.faults.append(Finding("unreadable_file", str(f.path), str(exc)))
            continue
        _count(report, f, tr)
        if f.kind == "sidechain" and f.parent_session_id not in mains:  # never linked below
            alone = Subagent(f.agent_id, f, None, warmup=is_warmup(tr))
            report.subagents[subagent_status(alone, False)] += 1
        if f.kind == "main":
            for a in link_subagents(tr, by_session.get(f.session_id, [])):
                report.subagents[a.status] += 1
            if backups is not None:
                view = ClaudeSessionView(home, tr)
                describe(view)
                got = backups(home, view)
                report.backups["checked"] = True
                for key, n in got.items():
                    report.backups[key] = report.backups.get(key, 0) + n
    regs = read_processes(home)
    legacy = 0
    try:
        legacy = sum(1 for p in home.sessions_dir.iterdir() if p.name.startswith("pid-"))
    except OSError:
        pass
    report.processes = {
        "registered": len(regs),
        "live": sum(1 for r in regs if r.live),
        "stale": sum(1 for r in regs if not r.live),
        "legacy_ignored": legacy,
    }
    return report


def _count(report: ClaudeCheckReport, f: ClaudeFile, tr: ClaudeTranscript) -> None:
    sc, tree = tr.scan, tr.tree
    fc = ClaudeFileCounts(str(f.path), f.project, f.session_id, f.kind, sc.size)
    fc.records = len(sc)
    fc.messages = len(tr.messages)
    fc.leaves = len(tree.tips)
    fc.parallel_leaves = sum(1 for t in tree.tips if t.kind == PARALLEL)
    fc.branches = sum(1 for t in tree.tips if t.kind == BRANCH)
    fc.rewinds = sum(1 for t in tree.tips if t.rewind)
    fc.bridged = len(tree.bridges)
    fc.duplicates = len(tree.duplicates)
    fc.compactions = len(tree.compactions)
    fc.damaged_lines = len(sc.bad_lines)
    fc.recovered = sc.recovered
    fc.interruption = tr.interruption.kind
    for o in sc.objs:
        t = o.type or "(no type)"
        report.record_types[t] += 1
        if o.type not in KNOWN_TYPES:
            report.unknown_types[t] += 1
        if t == "system":
            report.system_subtypes[str(o.subtype)] += 1
        elif t == "user":
            report.user_kinds[user_kind(o)] += 1
        elif t in ("file-history-snapshot", "file-history-delta"):
            fc.snapshots += 1
    for b in sc.bad_lines:
        report.damaged.append(
            {
                "file": str(f.path),
                "line": b.line,
                "offset": b.offset,
                "reason": b.reason,
                "terminated": b.terminated,
                "recovered": b.recovered,
                "lost_bytes": b.lost_bytes,
            }
        )
        if b.lost_bytes:
            report.faults.append(
                Finding(
                    "damaged_line",
                    str(f.path),
                    f"line {b.line}: {plural(b.lost_bytes, 'byte')} lost "
                    f"({plural(b.recovered, 'record')} recovered)",
                )
            )
        else:
            report.warnings.append(
                Finding(
                    "salvaged_line",
                    str(f.path),
                    f"line {b.line}: {plural(b.recovered, 'record')} recovered",
                )
            )
    for i in tree.cycles:
        report.faults.append(
            Finding("parent_cycle", str(f.path), f"line {sc.lines[i]} closes a cycle")
        )
    for i in tree.logical_refused:
        report.faults.append(
            Finding(
                "compaction_cycle",
                str(f.path),
                f"the compaction at line {sc.lines[i]} names its own descendant",
            )
        )
    report.files.append(fc)

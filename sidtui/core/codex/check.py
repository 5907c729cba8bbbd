"""``sidtui check`` of a Codex CLI home: what is on disk, counted (docs/CODEX.md §7).

Faults (exit code 1) are lines Codex cannot read and outputs a resume drops; the rest
(calls a resume answers "aborted", turns a killed process left unfinished, writer locks
left by exited processes, record types this reader does not know) are counted and named.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sidtui.core.base.errors import UnreadableInput
from sidtui.core.codex.layout import CodexFile, CodexHome, discover
from sidtui.core.codex.liveness import read_locks
from sidtui.core.codex.session import open_codex_session


@dataclass
class CodexCheckReport:
    home: str = ""
    scope: str = "all sessions"
    sessions: int = 0
    records: int = 0
    bad_lines: int = 0
    torn_tails: int = 0
    lost_items: int = 0
    aborted_calls: int = 0
    unfinished_turns: int = 0
    compactions: int = 0
    live: int = 0
    stale_locks: int = 0
    unknown_types: dict[str, int] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 1 if self.faults or self.unreadable else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "source": "codex",
            "home": self.home,
            "scope": self.scope,
            "sessions": self.sessions,
            "records": self.records,
            "bad_lines": self.bad_lines,
            "torn_tails": self.torn_tails,
            "lost_items": self.lost_items,
            "aborted_calls": self.aborted_calls,
            "unfinished_turns": self.unfinished_turns,
            "compactions": self.compactions,
            "live": self.live,
            "stale_locks": self.stale_locks,
            "unknown_types": self.unknown_types,
            "unreadable": self.unreadable,
            "faults": self.faults,
            "exit_code": self.exit_code,
        }


def run_codex_check(
    home: CodexHome,
    *,
    project: str | None = None,
    session: CodexFile | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> CodexCheckReport:
    scope = (
        f"session {session.session_id}"
        if session is not None
        else f"project {project}"
        if project is not None
        else "all sessions"
    )
    rep = CodexCheckReport(str(home.root), scope)
    errors: list[str] = []
    files = [session] if session is not None else discover(home, project, errors)
    rep.unreadable += errors
    regs = read_locks(home)
    rep.stale_locks = sum(1 for r in regs if not r.live)
    for i, f in enumerate(files):
        if progress is not None:
            progress(i, len(files), str(f.path))
        try:
            v = open_codex_session(f, regs, home)
        except UnreadableInput as exc:
            rep.unreadable.append(str(exc))
            continue
        rep.sessions += 1
        rep.records += len(v.rollout.records)
        rep.bad_lines += len(v.rollout.bad_lines)
        rep.torn_tails += sum(1 for b in v.rollout.bad_lines if b.torn)
        rep.lost_items += len(v.resume.lost)
        rep.aborted_calls += len(v.resume.added)
        rep.compactions += v.resume.compactions
        rep.unfinished_turns += sum(1 for t in v.turns if t.state == "unfinished")
        rep.live += int(v.liveness.live)
        for t, n in v.rollout.unknown_types.items():
            rep.unknown_types[t] = rep.unknown_types.get(t, 0) + n
        if v.rollout.bad_lines or v.resume.lost:
            rep.faults.append(
                f"{f.path}: {len(v.rollout.bad_lines)} unreadable line(s), "
                f"{len(v.resume.lost)} item(s) a resume drops"
            )
    if progress is not None:
        progress(len(files), len(files), "")
    return rep

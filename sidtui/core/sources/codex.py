"""The Codex CLI source: ``$CODEX_HOME`` (``~/.codex``) read by :mod:`sidtui.core.codex`
(docs/CODEX.md). It reads, and writes forks as Codex does (:mod:`sidtui.core.codex.fork`);
Codex keeps no file states, so there is no code rewind."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sidtui.core.base.errors import UnreadableInput
from sidtui.core.codex.check import CodexCheckReport, run_codex_check
from sidtui.core.codex.layout import CodexFile, CodexHome, discover, resolve_session
from sidtui.core.codex.liveness import read_locks
from sidtui.core.codex.session import CodexSessionView, open_codex_session
from sidtui.core.resume.process import Registration
from sidtui.core.sources.base import CheckProgress, Progress, SessionRef, Source
from sidtui.core.views.summary import SessionSummary


class CodexSource(Source):
    """One Codex CLI home (sessions under ``sessions/YYYY/MM/DD/``)."""

    name = "codex"
    label = "Codex CLI"
    mutations = frozenset({"fork"})
    home_flag = "--codex-home"
    home_env = "CODEX_HOME"
    #: only when ``--codex-home`` names it, until every read verb is source-blind (the
    #: verbs that still branch on the sid-code and Claude Code homes cannot read it)
    found_unnamed = False
    usage_gaps = "Codex records no request ids: a response copied into two rollouts counts twice"

    def __init__(self, home: CodexHome) -> None:
        self._home = home

    @classmethod
    def resolve_home(
        cls, flag: str | os.PathLike[str] | None, env: Mapping[str, str]
    ) -> CodexSource:
        return cls(CodexHome.resolve(flag, env))

    @property
    def home(self) -> CodexHome:
        return self._home

    @property
    def root(self) -> Path:
        return self._home.root

    def exists(self) -> bool:
        return self._home.exists

    def require(self) -> CodexSource:
        self._home.require()
        return self

    def discover(
        self,
        project: str | None = None,
        *,
        errors: list[str] | None = None,
        include_sidechains: bool = True,
    ) -> list[SessionRef]:
        return list(discover(self._home, project, errors))

    def resolve(self, arg: str, *, cwd: Path | None = None) -> CodexFile:
        return resolve_session(self._home, arg, cwd=cwd)

    def open(self, ref: SessionRef, *, current_cwd: Path | None = None) -> CodexSessionView:
        assert isinstance(ref, CodexFile)
        return open_codex_session(ref, read_locks(self._home), self._home)

    def list_sessions(
        self,
        project: str | None = None,
        *,
        include_sidechains: bool = False,
        progress: Progress | None = None,
    ) -> tuple[list[SessionSummary], list[str]]:
        errors: list[str] = []
        files = discover(self._home, project, errors)
        regs = read_locks(self._home, errors)
        rows: list[SessionSummary] = []
        for i, f in enumerate(files):
            if progress is not None:
                progress(i, len(files))
            try:
                rows.append(open_codex_session(f, regs, self._home).summary())
            except UnreadableInput as exc:
                errors.append(str(exc))
        if progress is not None:
            progress(len(files), len(files))
        rows.sort(key=lambda r: (r.last_activity or "", r.session_id), reverse=True)
        return rows, errors

    def check(
        self,
        *,
        project: str | None = None,
        session: SessionRef | None = None,
        progress: CheckProgress | None = None,
    ) -> CodexCheckReport:
        assert session is None or isinstance(session, CodexFile)
        return run_codex_check(self._home, project=project, session=session, progress=progress)

    def write_fork(self, model: CodexSessionView, before_prompt: int | None) -> tuple[str, Path]:
        """A new session whose history is ``model``'s before typed prompt
        ``before_prompt`` (None: all of it), as ``codex exec fork`` writes one; returns
        ``(new session id, its rollout)``."""
        from sidtui.core.codex.fork import write_fork

        return write_fork(self._home, model, before_prompt)

    def registrations(self, warnings: list[str] | None = None) -> list[Registration]:
        return read_locks(self._home, warnings)

    def usage_events(
        self,
        project: str | None = None,
        *,
        errors: list[str] | None = None,
        use_cache: bool = True,
    ) -> list[Any]:
        """Each rollout's usage (:mod:`sidtui.core.codex.usage`), read afresh (the usage
        cache keys files by the sid-code and Claude Code homes' layouts)."""
        from sidtui.core.codex.usage import read_usage
        from sidtui.core.usage.aggregate import FileUsage, prepare

        out: list[FileUsage] = []
        for f in discover(self._home, project, errors):
            try:
                events = read_usage(f.path, f.project, errors)
            except UnreadableInput as exc:
                if errors is not None:
                    errors.append(str(exc))
                continue
            out.append(FileUsage.of(str(f.path), prepare(events)))
        return out

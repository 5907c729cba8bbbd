"""The Claude Code source: ``~/.claude`` read by :mod:`sidtui.core.claude` (docs/CLAUDE-CODE.md)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from sidtui.core.claude.check import BackupCheck, ClaudeCheckReport, run_claude_check
from sidtui.core.claude.layout import ClaudeFile, ClaudeHome, discover, resolve_session
from sidtui.core.claude.listing import list_sessions
from sidtui.core.claude.liveness import ClaudeRegistration, read_processes
from sidtui.core.claude.session import ClaudeSessionView, open_claude_session
from sidtui.core.sources.base import CheckProgress, Progress, SessionRef, Source
from sidtui.core.views.summary import SessionSummary


class ClaudeSource(Source):
    """One Claude Code home: reading (:mod:`sidtui.core.claude`), checkpoints
    (:mod:`~sidtui.core.claude.file_history`) and the writing verbs, which never edit a
    transcript (:mod:`~sidtui.core.claude.code_restore`, :mod:`~sidtui.core.claude.rewind`,
    :mod:`~sidtui.core.claude.fork`; CLI: :mod:`sidtui.cli.claude_verbs`)."""

    name = "claude-code"
    label = "Claude Code"
    mutations = frozenset({"rewind", "fork", "branch", "undo", "restore", "redo"})
    short = "claude"
    badge = "claude"
    views = frozenset({"leaves", "file-history"})
    conversation_rewind = "new-session"
    home_flag = "--claude-home"
    home_env = "CLAUDE_CONFIG_DIR"
    usage_gaps = None

    def __init__(self, home: ClaudeHome, backups: BackupCheck | None = None) -> None:
        from sidtui.core.claude.file_history import backup_counts

        self._home = home
        #: counts unrecoverable checkpoint backups in ``check`` (the checkpoint layer's)
        self.backups = backups if backups is not None else backup_counts

    @classmethod
    def resolve_home(
        cls, flag: str | os.PathLike[str] | None, env: Mapping[str, str]
    ) -> ClaudeSource:
        return cls(ClaudeHome.resolve(flag, env))

    @property
    def home(self) -> ClaudeHome:
        return self._home

    @property
    def root(self) -> Path:
        return self._home.root

    def exists(self) -> bool:
        return self._home.exists

    def require(self) -> ClaudeSource:
        self._home.require()
        return self

    def discover(
        self,
        project: str | None = None,
        *,
        errors: list[str] | None = None,
        include_sidechains: bool = True,
    ) -> list[SessionRef]:
        files: list[SessionRef] = []
        files += discover(self._home, project, errors, include_sidechains=include_sidechains)
        return files

    def resolve(self, arg: str, *, cwd: Path | None = None) -> ClaudeFile:
        return resolve_session(self._home, arg, cwd=cwd)

    def open(
        self,
        ref: SessionRef,
        *,
        current_cwd: Path | None = None,
        terminal_tool_names: frozenset[str] | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> ClaudeSessionView:
        assert isinstance(ref, ClaudeFile)
        home = self._home if self._home.exists else None
        return open_claude_session(home, ref)

    def list_sessions(
        self,
        project: str | None = None,
        *,
        include_sidechains: bool = False,
        progress: Progress | None = None,
    ) -> tuple[list[SessionSummary], list[str]]:
        return list_sessions(
            self._home, project, include_sidechains=include_sidechains, progress=progress
        )

    def check(
        self,
        *,
        project: str | None = None,
        session: SessionRef | None = None,
        progress: CheckProgress | None = None,
    ) -> ClaudeCheckReport:
        assert session is None or isinstance(session, ClaudeFile)
        return run_claude_check(
            self._home, project=project, session=session, progress=progress, backups=self.backups
        )

    def registrations(self, warnings: list[str] | None = None) -> list[ClaudeRegistration]:
        return read_processes(self._home, warnings)

    def usage_events(
        self,
        project: str | None = None,
        *,
        errors: list[str] | None = None,
        use_cache: bool = True,
    ) -> list[Any]:
        """Each transcript's usage (:mod:`sidtui.core.claude.usage`), cached per file."""
        from sidtui.core.claude.usage import read_usage
        from sidtui.core.index.usage_cache import cached_usage

        return cached_usage(
            self._home, read_usage, project=project, errors=errors, use_cache=use_cache
        )

    @property
    def journals_dir(self) -> Path:
        """``sidtui/restores/``: sidtui's journal of a restore of a session is there."""
        return self._home.restores_dir

    def checkpoints(self, model: Any) -> Any:
        """The session's :class:`~sidtui.core.claude.file_history.FileHistory`."""
        from sidtui.core.claude.file_history import read_file_history

        return read_file_history(model)

    def owns(self, ref: Any) -> bool:
        return isinstance(ref, ClaudeFile)

    def file_at(self, path: str | os.PathLike[str], project: str | None = None) -> ClaudeFile:
        from sidtui.core.claude.layout import file_for_path

        return file_for_path(Path(path))

    def leaves(self, model: Any) -> list[dict[str, Any]]:
        """Every leaf (:func:`~sidtui.core.claude.fork.branch_tips`)."""
        from sidtui.core.claude.fork import branch_tips

        return branch_tips(model)

    def file_of(self, summary: SessionSummary) -> ClaudeFile:
        return ClaudeFile(
            Path(summary.path),
            summary.session_id,
            summary.project or "",
            kind=summary.kind,
            parent_session_id=summary.parent_session_id,
        )

    @property
    def projects_dir(self) -> Path:
        return self._home.projects_dir

    def project_folders(self) -> list[str]:
        from sidtui.core.claude.layout import project_folders

        return project_folders(self._home)

"""The Claude Code source: ``~/.claude`` read by :mod:`sidtui.core.claude` (docs/CLAUDE-CODE.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from sidtui.core.claude.check import BackupCheck, ClaudeCheckReport, run_claude_check
from sidtui.core.claude.layout import (
    ClaudeFile,
    ClaudeHome,
    claims_record,
    discover,
    resolve_session,
)
from sidtui.core.claude.listing import list_sessions
from sidtui.core.claude.liveness import ClaudeRegistration, read_processes
from sidtui.core.claude.session import ClaudeSessionView, open_claude_session
from sidtui.core.sources.base import HomeSource, SessionRef


class ClaudeSource(HomeSource):
    """One Claude Code home: reading (:mod:`sidtui.core.claude`), checkpoints
    (:mod:`~sidtui.core.claude.file_history`) and the writing verbs, which never edit a
    transcript (:mod:`~sidtui.core.claude.code_restore`, :mod:`~sidtui.core.claude.rewind`,
    :mod:`~sidtui.core.claude.fork`; CLI: :mod:`sidtui.cli.claude_verbs`)."""

    name = "claude-code"
    label = "Claude Code"
    mutations = frozenset({"rewind", "fork", "branch", "undo", "restore", "redo"})
    home_flag = "--claude-home"
    home_env = "CLAUDE_CONFIG_DIR"
    usage_gaps = None
    home_class = ClaudeHome
    claims_record = staticmethod(claims_record)

    def __init__(self, home: ClaudeHome, backups: BackupCheck | None = None) -> None:
        from sidtui.core.claude.file_history import backup_counts

        super().__init__(home)
        #: counts unrecoverable checkpoint backups in ``check`` (the checkpoint layer's)
        self.backups = backups if backups is not None else backup_counts

    @property
    def home(self) -> ClaudeHome:
        return self._home

    def exists(self) -> bool:
        return self._home.exists

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

    def open(self, ref: SessionRef, *, current_cwd: Path | None = None) -> ClaudeSessionView:
        assert isinstance(ref, ClaudeFile)
        home = self._home if self._home.exists else None
        return open_claude_session(home, ref)

    def _lister(self) -> Callable[..., Any]:
        return list_sessions

    def _checker(self) -> Callable[..., ClaudeCheckReport]:
        return run_claude_check

    def _check_options(self) -> dict[str, Any]:
        return {"backups": self.backups}

    def _usage_reader(self) -> Callable[..., Any]:
        """:func:`sidtui.core.claude.usage.read_usage`."""
        from sidtui.core.claude.usage import read_usage

        return read_usage

    def registrations(self, warnings: list[str] | None = None) -> list[ClaudeRegistration]:
        return read_processes(self._home, warnings)

    @property
    def journals_dir(self) -> Path:
        """``sidtui/restores/``: sidtui's journal of a restore of a session is there."""
        return self._home.restores_dir

    def checkpoints(self, model: Any) -> Any:
        """The session's :class:`~sidtui.core.claude.file_history.FileHistory`."""
        from sidtui.core.claude.file_history import read_file_history

        return read_file_history(model)

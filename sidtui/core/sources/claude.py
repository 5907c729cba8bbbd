"""The Claude Code source: ``~/.claude`` read by :mod:`sidtui.core.claude` (docs/CLAUDE-CODE.md)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sidtui.core.claude.check import BackupCheck
from sidtui.core.claude.layout import ClaudeFile, ClaudeHome, claims_record, home_of
from sidtui.core.claude.session import ClaudeSessionView, open_claude_session
from sidtui.core.sources.base import SessionRef, Source


class ClaudeSource(Source):
    """One Claude Code home: reading (:mod:`sidtui.core.claude`), checkpoints
    (:mod:`~sidtui.core.claude.file_history`) and the writing verbs, which never edit a
    transcript (:mod:`~sidtui.core.claude.code_restore`, :mod:`~sidtui.core.claude.rewind`,
    :mod:`~sidtui.core.claude.fork`; CLI: :mod:`sidtui.cli.claude_verbs`)."""

    name = "claude-code"
    label = "Claude Code"
    mutations = frozenset({"rewind", "fork", "branch", "undo", "restore", "redo", "rename"})
    short = "claude"
    badge = "claude"
    views = frozenset({"leaves", "file-history"})
    conversation_rewind = "new-session"
    home_flag = "--claude-home"
    home_env = "CLAUDE_CONFIG_DIR"
    usage_gaps = None
    home_class = ClaudeHome
    claims_record = staticmethod(claims_record)
    discoverer = "sidtui.core.claude.layout:discover"
    resolver = "sidtui.core.claude.layout:resolve_session"
    lister = "sidtui.core.claude.listing:list_sessions"
    checker = "sidtui.core.claude.check:run_claude_check"
    usage_reader = "sidtui.core.claude.usage:read_usage"
    registry = "sidtui.core.claude.liveness:read_processes"

    @staticmethod
    def claims_place(path: Path) -> bool:
        """A ``.jsonl`` in a Claude Code home's ``projects/<slug>/`` (an empty transcript is a
        normal session with no messages)."""
        return path.suffix == ".jsonl" and home_of(path) is not None

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

    def check_options(self) -> dict[str, Any]:
        return {"backups": self.backups}

    @property
    def journals_dir(self) -> Path:
        """``sidtui/restores/``: sidtui's journal of a restore of a session is there."""
        return self._home.restores_dir

    def checkpoints(self, model: Any) -> Any:
        """The session's :class:`~sidtui.core.claude.file_history.FileHistory`."""
        from sidtui.core.claude.file_history import read_file_history

        return read_file_history(model)

    def title_of(self, model: Any) -> str | None:
        from sidtui.core.claude.title import title_of

        return title_of(model)

    def write_title(self, model: Any, title: str, *, policy: Any = None) -> int:
        from sidtui.core.claude.title import write_title

        return write_title(model, title, policy=policy)

    def owns(self, ref: Any) -> bool:
        return isinstance(ref, ClaudeFile)

    def file_at(self, path: str | os.PathLike[str], project: str | None = None) -> ClaudeFile:
        from sidtui.core.claude.layout import file_for_path

        return file_for_path(Path(path))

    def leaves(self, model: Any) -> list[dict[str, Any]]:
        """Every leaf (:func:`~sidtui.core.claude.fork.branch_tips`)."""
        from sidtui.core.claude.fork import branch_tips

        return branch_tips(model)

    def file_of(self, summary: Any) -> ClaudeFile:
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

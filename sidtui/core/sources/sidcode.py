"""The sid-code source: ``~/.sid-code`` read by the core's own modules (docs/FORMAT.md).

Nothing is copied here: each reader is the function the CLI and the app already call
(``discover``, ``resolve_session``, ``open_session``, ``list_sessions``, ``run_check``,
``read_registrations``, ``CheckpointManager``), reached through the source interface.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sidtui.core.base.home import Home, SessionFile
from sidtui.core.sources.base import SessionRef, Source
from sidtui.core.transcript.records import claims_record


class SidCodeSource(Source):
    """One sid-code home: reading, checkpoints and every writing verb."""

    name = "sid-code"
    label = "sid-code"
    mutations = frozenset(
        {"rewind", "fork", "branch", "salvage", "undo", "restore", "redo", "rename"}
    )
    short = "sid"
    views = frozenset({"records", "state", "sidechains", "snapshots"})
    conversation_rewind = "marker"
    home_flag = "--home"
    home_env = "SID_CONFIG_DIR"
    usage_gaps = (
        "sid-code records no usage for sub-agents or v1 .json sessions, no request ids and "
        "no one-hour cache writes: those count zero"
    )
    home_class = Home
    claims_record = staticmethod(claims_record)
    discoverer = "sidtui.core.base.discover:discover"
    resolver = "sidtui.core.base.resolve:resolve_session"
    lister = "sidtui.core.views.listing:list_sessions"
    checker = "sidtui.core.views.check:run_check"
    usage_reader = "sidtui.core.views.sidcode_usage:read_usage"
    registry = "sidtui.core.resume.process:read_registrations"

    @property
    def home(self) -> Home:
        return self._home

    def exists(self) -> bool:
        return self._home.sessions_dir.is_dir()

    def open(
        self,
        ref: SessionRef,
        *,
        current_cwd: Path | None = None,
        terminal_tool_names: frozenset[str] | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> Any:
        from sidtui.core.resume.process import read_registrations
        from sidtui.core.views.session import open_session

        assert isinstance(ref, SessionFile)
        opts: dict[str, Any] = {}
        if terminal_tool_names is not None:
            opts["terminal_tool_names"] = terminal_tool_names
        if warn is not None:
            warnings: list[str] = []
            opts["registrations"] = read_registrations(self._home, warnings)
            for line in warnings:
                warn(line)
        return open_session(self._home, ref, current_cwd=current_cwd, **opts)

    @property
    def journals_dir(self) -> Path:
        """``checkpoints/``: a journal is ``checkpoints/<session>/sidtui-journal.json``."""
        return self._home.checkpoints_dir

    def checkpoints(self, model: Any) -> Any:
        """The session's :class:`~sidtui.core.checkpoints.manager.CheckpointManager`."""
        from sidtui.core.checkpoints.manager import CheckpointManager

        return CheckpointManager.for_session(self._home, model.file.checkpoint_id)

    def title_of(self, model: Any) -> str | None:
        from sidtui.core.edits.title import title_of

        return title_of(model)

    def write_title(self, model: Any, title: str, *, policy: Any = None) -> int:
        from sidtui.core.edits.title import write_title

        return write_title(model, title, policy=policy)

    def owns(self, ref: Any) -> bool:
        return isinstance(ref, SessionFile)

    def file_at(
        self, path: str | os.PathLike[str], project: str | None = None
    ) -> SessionFile | None:
        from sidtui.core.base.discover import classify_file

        return classify_file(Path(path), project or "")

    def file_of(self, summary: Any) -> SessionFile:
        return SessionFile(
            Path(summary.path),
            summary.session_id,
            summary.project,
            kind=summary.kind,
            container=summary.container,
            parent_session_id=summary.parent_session_id,
        )

    @property
    def projects_dir(self) -> Path:
        return self._home.sessions_dir

    def project_folders(self) -> list[str]:
        from sidtui.core.base.discover import project_folders

        return project_folders(self._home)

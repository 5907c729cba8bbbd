"""The sid-code source: ``~/.sid-code`` read by the core's own modules (docs/FORMAT.md).

Nothing is copied here: each method is the function the CLI and the app already call
(``discover``, ``resolve_session``, ``open_session``, ``list_sessions``, ``run_check``,
``read_registrations``, ``CheckpointManager``), reached through the source interface.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from sidtui.core.base.discover import discover
from sidtui.core.base.home import Home, SessionFile
from sidtui.core.base.resolve import resolve_session
from sidtui.core.resume.process import Registration, read_registrations
from sidtui.core.sources.base import CheckProgress, Progress, SessionRef, Source
from sidtui.core.views.summary import SessionSummary


class SidCodeSource(Source):
    """One sid-code home: reading, checkpoints and every writing verb."""

    name = "sid-code"
    label = "sid-code"
    mutations = frozenset({"rewind", "fork", "branch", "salvage", "undo", "restore", "redo"})
    short = "sid"
    views = frozenset({"records", "state", "sidechains", "snapshots"})
    conversation_rewind = "marker"
    home_flag = "--home"
    home_env = "SID_CONFIG_DIR"
    usage_gaps = (
        "sid-code records no usage for sub-agents or v1 .json sessions, no request ids and "
        "no one-hour cache writes: those count zero"
    )

    def __init__(self, home: Home) -> None:
        self._home = home

    @classmethod
    def resolve_home(
        cls, flag: str | os.PathLike[str] | None, env: Mapping[str, str]
    ) -> SidCodeSource:
        return cls(Home.resolve(flag, env))

    @property
    def home(self) -> Home:
        return self._home

    @property
    def root(self) -> Path:
        return self._home.root

    def exists(self) -> bool:
        return self._home.sessions_dir.is_dir()

    def require(self) -> SidCodeSource:
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
        files += [
            f
            for f in discover(self._home, project, errors)
            if include_sidechains or f.kind == "main"
        ]
        return files

    def resolve(self, arg: str, *, cwd: Path | None = None) -> SessionFile:
        return resolve_session(self._home, arg, cwd=cwd)

    def open(
        self,
        ref: SessionRef,
        *,
        current_cwd: Path | None = None,
        terminal_tool_names: frozenset[str] | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> Any:
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

    def list_sessions(
        self,
        project: str | None = None,
        *,
        include_sidechains: bool = False,
        progress: Progress | None = None,
    ) -> tuple[list[SessionSummary], list[str]]:
        from sidtui.core.views.listing import list_sessions

        return list_sessions(
            self._home, project, include_sidechains=include_sidechains, progress=progress
        )

    def check(
        self,
        *,
        project: str | None = None,
        session: SessionRef | None = None,
        progress: CheckProgress | None = None,
    ) -> Any:
        from sidtui.core.views.check import run_check

        assert session is None or isinstance(session, SessionFile)
        return run_check(self._home, project=project, session=session, progress=progress)

    def registrations(self, warnings: list[str] | None = None) -> list[Registration]:
        return read_registrations(self._home, warnings)

    def usage_events(
        self,
        project: str | None = None,
        *,
        errors: list[str] | None = None,
        use_cache: bool = True,
    ) -> list[Any]:
        """Each transcript's usage (:mod:`sidtui.core.views.sidcode_usage`), cached per file."""
        from sidtui.core.index.usage_cache import cached_usage
        from sidtui.core.views.sidcode_usage import read_usage

        return cached_usage(
            self._home, read_usage, project=project, errors=errors, use_cache=use_cache
        )

    @property
    def journals_dir(self) -> Path:
        """``checkpoints/``: a journal is ``checkpoints/<session>/sidtui-journal.json``."""
        return self._home.checkpoints_dir

    def checkpoints(self, model: Any) -> Any:
        """The session's :class:`~sidtui.core.checkpoints.manager.CheckpointManager`."""
        from sidtui.core.checkpoints.manager import CheckpointManager

        return CheckpointManager.for_session(self._home, model.file.checkpoint_id)

    def owns(self, ref: Any) -> bool:
        return isinstance(ref, SessionFile)

    def file_at(
        self, path: str | os.PathLike[str], project: str | None = None
    ) -> SessionFile | None:
        from sidtui.core.base.discover import classify_file

        return classify_file(Path(path), project or "")

    def file_of(self, summary: SessionSummary) -> SessionFile:
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

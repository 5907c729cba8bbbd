"""The sid-code source: ``~/.sid-code`` read by the core's own modules (docs/FORMAT.md).

Nothing is copied here: each method is the function the CLI and the app already call
(``discover``, ``resolve_session``, ``open_session``, ``list_sessions``, ``run_check``,
``read_registrations``, ``CheckpointManager``), reached through the source interface.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from sidtui.core.base.discover import discover
from sidtui.core.base.home import Home, SessionFile
from sidtui.core.base.resolve import resolve_session
from sidtui.core.resume.process import Registration, read_registrations
from sidtui.core.sources.base import HomeSource, SessionRef
from sidtui.core.transcript.records import claims_record


class SidCodeSource(HomeSource):
    """One sid-code home: reading, checkpoints and every writing verb."""

    name = "sid-code"
    label = "sid-code"
    mutations = frozenset({"rewind", "fork", "branch", "salvage", "undo", "restore", "redo"})
    home_flag = "--home"
    home_env = "SID_CONFIG_DIR"
    usage_gaps = (
        "sid-code records no usage for sub-agents or v1 .json sessions, no request ids and "
        "no one-hour cache writes: those count zero"
    )
    home_class = Home
    claims_record = staticmethod(claims_record)

    @property
    def home(self) -> Home:
        return self._home

    def exists(self) -> bool:
        return self._home.sessions_dir.is_dir()

    def discover(
        self,
        project: str | None = None,
        *,
        errors: list[str] | None = None,
        include_sidechains: bool = True,
    ) -> list[SessionRef]:
        return [
            f
            for f in discover(self._home, project, errors)
            if include_sidechains or f.kind == "main"
        ]

    def resolve(self, arg: str, *, cwd: Path | None = None) -> SessionFile:
        return resolve_session(self._home, arg, cwd=cwd)

    def open(self, ref: SessionRef, *, current_cwd: Path | None = None) -> Any:
        from sidtui.core.views.session import open_session

        assert isinstance(ref, SessionFile)
        return open_session(self._home, ref, current_cwd=current_cwd)

    def _lister(self) -> Callable[..., Any]:
        from sidtui.core.views.listing import list_sessions

        return list_sessions

    def _checker(self) -> Callable[..., Any]:
        from sidtui.core.views.check import run_check

        return run_check

    def _usage_reader(self) -> Callable[..., Any]:
        """:func:`sidtui.core.views.sidcode_usage.read_usage`."""
        from sidtui.core.views.sidcode_usage import read_usage

        return read_usage

    def registrations(self, warnings: list[str] | None = None) -> list[Registration]:
        return read_registrations(self._home, warnings)

    @property
    def journals_dir(self) -> Path:
        """``checkpoints/``: a journal is ``checkpoints/<session>/sidtui-journal.json``."""
        return self._home.checkpoints_dir

    def checkpoints(self, model: Any) -> Any:
        """The session's :class:`~sidtui.core.checkpoints.manager.CheckpointManager`."""
        from sidtui.core.checkpoints.manager import CheckpointManager

        return CheckpointManager.for_session(self._home, model.file.checkpoint_id)

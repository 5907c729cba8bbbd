"""The sid-code source: ``~/.sid-code`` read by the core's own modules (docs/FORMAT.md).

Nothing is copied here: each method is the function the CLI and the app already call
(``discover``, ``resolve_session``, ``open_session``, ``list_sessions``, ``run_check``,
``read_registrations``, ``CheckpointManager``), reached through the source interface.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sidtui.core.base.discover import discover
from sidtui.core.base.home import Home, SessionFile
from sidtui.core.base.resolve import resolve_session
from sidtui.core.resume.process import Registration, read_registrations
from sidtui.core.sources.base import CheckProgress, Progress, SessionRef, Source
from sidtui.core.sources.writes import MARKER, TOOL_BATCH, WriteOptions
from sidtui.core.views.summary import SessionSummary


class SidCodeSource(Source):
    """One sid-code home: reading, checkpoints and every writing verb (the engines of
    :mod:`sidtui.core.edits` and :mod:`sidtui.core.checkpoints`): a conversation rewind
    appends a marker to the same file, a checkpoint is a snapshot before each tool batch."""

    name = "sid-code"
    label = "sid-code"
    mutations = frozenset({"rewind", "fork", "branch", "salvage", "undo", "restore", "redo"})
    home_flag = "--home"
    home_env = "SID_CONFIG_DIR"
    conversation_rewind = MARKER
    checkpoint_unit = TOOL_BATCH
    rewind_finishes_interrupted = True
    tags_json = False
    no_points_reason = "no human prompts on the live chain"
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

    def open(self, ref: SessionRef, *, current_cwd: Path | None = None) -> Any:
        from sidtui.core.views.session import open_session

        assert isinstance(ref, SessionFile)
        return open_session(self._home, ref, current_cwd=current_cwd)

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

    # ------------------------------------------------------------------ writing

    def open_for_write(self, ref: SessionRef) -> Any:
        """The session without its sidechains, after flushing sidtui's own queued writes."""
        from sidtui.core.transcript.writer import flush_pending_writes
        from sidtui.core.views.session import open_session

        assert isinstance(ref, SessionFile)
        flush_pending_writes(ref.path)
        return open_session(self._home, ref, with_sidechains=False)

    def rewind_points(self, model: Any) -> list[Any]:
        from sidtui.core.edits.points import rewind_points

        return rewind_points(model)

    def rewind(self, model: Any, to: int, mode: str, options: WriteOptions) -> Any:
        from sidtui.core.base.project import explicit_root, user_home
        from sidtui.core.edits.rewind import rewind

        root = options.root
        return rewind(
            model,
            to,
            mode,
            as_fork=options.as_fork,
            force=options.force,
            dry_run=options.dry_run,
            allow_outside_root=options.allow_outside_root,
            root=explicit_root(root, user_home(os.environ)) if root else None,
        )

    def fork(self, model: Any, at: int | None, *, dry_run: bool = False) -> Any:
        from sidtui.core.edits.fork import fork
        from sidtui.core.edits.points import get_point

        point = get_point(model, at) if at is not None else None
        return fork(model, point, dry_run=dry_run)

    def branch_tips(self, model: Any) -> list[dict[str, Any]]:
        """Every tip of the record tree with the length of its conversation (``live``: the
        agent loads it; ``last_line``: the tip of the last line)."""
        from sidtui.core.transcript.chain import ancestors

        rf = model.rf
        if rf is None or model.chain.linear:
            return []
        out = []
        kinds = ("user_message", "assistant_message", "tool_result")
        for tip in model.tree.tips:
            rec = rf.records[tip]
            chain = ancestors(rf, tip)
            out.append(
                {
                    "uuid": rec.uuid,
                    "line": rec.line,
                    "type": rec.type,
                    "live": tip == model.chain.tail and model.loaded.loadable,
                    "last_line": tip == model.chain.tail,
                    "messages": sum(1 for i in chain if rf.records[i].type in kinds),
                }
            )
        return out

    def switch_branch(self, model: Any, tip: str | int, options: WriteOptions) -> Any:
        from sidtui.core.edits.rewind import switch_branch

        return switch_branch(model, str(tip), force=options.force, dry_run=options.dry_run)

    def salvage(self, model: Any, *, dry_run: bool = False) -> Any:
        from sidtui.core.edits.salvage import salvage

        return salvage(model, dry_run=dry_run)

    def code_store(self, session: SessionRef | str, options: WriteOptions) -> Any:
        """A transcript, or an id (or unique prefix) with only a checkpoint folder."""
        from sidtui.core.edits.store import SidCodeStore

        arg = session if isinstance(session, str) else str(session.path)
        return SidCodeStore(
            self._home,
            arg,
            writes=options.writes,
            root=options.root,
            allow_outside_root=options.allow_outside_root,
            force=options.force,
            dry_run=options.dry_run,
        )

    def restore_store(self, model: Any, checkpoints: Any = None) -> Any:
        from sidtui.core.edits.store import SidCodeStore

        return SidCodeStore.of_view(model, checkpoints)

    def rewind_unavailable(self, model: Any) -> str:
        if not model.loaded.loadable:
            return str(model.loaded.load_failure)
        return "no human prompt on the live chain (v1 files and sidechains cannot be rewound)"

    @classmethod
    def of_model(cls, model: Any) -> SidCodeSource:
        """The source of an open session (its home)."""
        return cls(model.home)

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
from sidtui.core.sources.writes import MARKER, TOOL_BATCH, WriteOptions
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
    conversation_rewind = MARKER
    checkpoint_unit = TOOL_BATCH
    rewind_finishes_interrupted = True
    tags_json = False
    row_fields = frozenset({"cost", "ended"})
    no_points_reason = "no human prompts on the live chain"
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
    titles = "sidtui.core.edits.title"
    folder_lister = "sidtui.core.base.discover:project_folders"

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

    def require_project(self, project: str | None) -> None:
        """:func:`~sidtui.core.base.discover.require_project` (``sessions/`` unsearchable:
        UnreadableInput)."""
        from sidtui.core.base.discover import require_project

        require_project(self._home, project)

    def empty_listing(self, project: str | None) -> str:
        """:func:`~sidtui.core.base.discover.empty_home_hint` for the whole home (what was
        looked for where, and the likely home)."""
        from sidtui.core.base.discover import empty_home_hint

        if project is None:
            return empty_home_hint(self._home)
        return super().empty_listing(project)

    def unreadable_folders(self, project: str | None) -> list[tuple[Path, str]]:
        from sidtui.core.base.discover import unreadable_folders

        return list(unreadable_folders(self._home, project))

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

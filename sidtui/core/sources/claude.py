"""The Claude Code source: ``~/.claude`` read by :mod:`sidtui.core.claude` (docs/CLAUDE-CODE.md)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sidtui.core.claude.check import BackupCheck, ClaudeCheckReport, run_claude_check
from sidtui.core.claude.layout import ClaudeFile, ClaudeHome, discover, resolve_session
from sidtui.core.claude.listing import list_sessions
from sidtui.core.claude.liveness import ClaudeRegistration, read_processes
from sidtui.core.claude.session import ClaudeSessionView, open_claude_session
from sidtui.core.sources.base import CheckProgress, Progress, SessionRef, Source
from sidtui.core.sources.writes import NEW_SESSION, PROMPT, WriteOptions
from sidtui.core.views.summary import SessionSummary


class ClaudeSource(Source):
    """One Claude Code home: reading (:mod:`sidtui.core.claude`), checkpoints
    (:mod:`~sidtui.core.claude.file_history`) and the writing verbs, which never edit a
    transcript (:mod:`~sidtui.core.claude.code_store`, :mod:`~sidtui.core.claude.rewind`,
    :mod:`~sidtui.core.claude.fork`, :mod:`~sidtui.core.claude.repair`): a conversation
    rewind writes a new session, a checkpoint is the files before a typed prompt."""

    name = "claude-code"
    label = "Claude Code"
    mutations = frozenset({"rewind", "fork", "branch", "repair", "undo", "restore", "redo"})
    conversation_rewind = NEW_SESSION
    checkpoint_unit = PROMPT
    rewind_finishes_interrupted = False
    tags_json = True
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

    def open(self, ref: SessionRef, *, current_cwd: Path | None = None) -> ClaudeSessionView:
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

    # ------------------------------------------------------------------ writing

    def unsupported(self, mutation: str, arg: str) -> str:
        if mutation == "salvage":  # never a sid-code file written into a Claude home
            return (
                f"{arg} is a Claude Code session: salvage is for sid-code sessions "
                "(sidtui reads a damaged Claude Code transcript as Claude Code does; "
                "`sidtui fork` copies one)"
            )
        return super().unsupported(mutation, arg)

    def resume_command(self, session_id: str) -> str:
        return f"claude --resume {session_id}"

    def fork_copied(self, result: Any) -> str:
        return f"{result.blobs_copied} file-history backups copied"

    def open_for_write(self, ref: SessionRef) -> ClaudeSessionView:
        """The session (a subagent transcript is refused: give its session)."""
        from sidtui.core.base.errors import UsageError

        assert isinstance(ref, ClaudeFile)
        if ref.kind != "main":
            raise UsageError(
                f"{ref.path.name} is a subagent transcript; give its session "
                f"({ref.parent_session_id or 'unknown'})"
            )
        return self.open(ref)

    def rewind_points(self, model: Any) -> list[Any]:
        from sidtui.core.claude.rewind import rewind_points

        return rewind_points(model)

    def rewind(self, model: Any, to: int, mode: str, options: WriteOptions) -> Any:
        """``as_fork`` changes nothing (the conversation is always a new session)."""
        from sidtui.core.claude.rewind import rewind

        res = rewind(
            model,
            to,
            mode,
            force=options.force,
            dry_run=options.dry_run,
            allow_outside_root=options.allow_outside_root,
            root=options.root,
        )
        if options.as_fork and res.mode == "code":
            res.warnings.append("--fork: a code rewind writes no session (nothing to fork)")
        return res

    def fork(self, model: Any, at: int | None, *, dry_run: bool = False) -> Any:
        from sidtui.core.base.errors import UsageError
        from sidtui.core.claude.fork import fork_session
        from sidtui.core.claude.rewind import get_point

        before = get_point(model, at).message_index if at is not None else None
        if before == 0:
            raise UsageError("rewind point 1 is the first message: a fork before it would be empty")
        return fork_session(model, before=before, dry_run=dry_run)

    def branch_tips(self, model: Any) -> list[dict[str, Any]]:
        """Every leaf with its ``kind`` (``live``: the one resume picks)."""
        from sidtui.core.claude.fork import branch_tips

        return [{k: v for k, v in t.items() if k != "index"} for t in branch_tips(model)]

    def switch_branch(self, model: Any, tip: str | int, options: WriteOptions) -> Any:
        """The branch ending at ``tip`` forked into a session of its own (an int: the
        record's index, a row of :meth:`branch_tips` in the app)."""
        from sidtui.core.base.errors import UsageError
        from sidtui.core.claude.fork import fork_session
        from sidtui.core.claude.scan import DAG_TYPES

        if isinstance(tip, int):
            return fork_session(model, tip=tip, dry_run=options.dry_run)
        objs = model.scan.objs
        hits = sorted(
            {
                i
                for i, o in enumerate(objs)
                if o.type in DAG_TYPES
                and o.uuid
                and o.uuid.startswith(tip)
                and model.tree.parent[i] != -2
            }
        )
        if not tip or not hits:
            raise UsageError(f"no record of {model.file.path.name} has a uuid starting {tip!r}")
        if len({objs[i].uuid for i in hits}) > 1:
            raise UsageError(f"{tip!r} matches {len(hits)} records; give more of the uuid")
        i = hits[0]
        if i == model.tree.leaf:
            raise UsageError(
                f"{objs[i].uuid} is the leaf resume already picks (use `sidtui fork` for a copy)"
            )
        return fork_session(model, tip=i, dry_run=options.dry_run)

    def repair(self, model: Any, *, dry_run: bool = False) -> Any:
        from sidtui.core.claude.repair import repair_session

        return repair_session(model, dry_run=dry_run)

    def code_store(self, session: SessionRef | str, options: WriteOptions) -> Any:
        from sidtui.core.claude.code_store import ClaudeCodeStore

        ref = self.resolve(session) if isinstance(session, str) else session
        view = self.open_for_write(ref) if options.writes else self.open(ref)
        return ClaudeCodeStore(
            view,
            writes=options.writes,
            root=options.root,
            allow_outside_root=options.allow_outside_root,
        )

    def restore_store(self, model: Any, checkpoints: Any = None) -> Any:
        from sidtui.core.claude.code_store import ClaudeCodeStore

        return ClaudeCodeStore(model, file_history=checkpoints)

    def rewind_unavailable(self, model: Any) -> str:
        return "no typed prompt in the conversation resume loads"

    @classmethod
    def of_model(cls, model: Any) -> ClaudeSource:
        """The source of an open session (its writer reads the model; a session read
        without its home gets the default one, which the writer does not use)."""
        return cls(model.home if model.home is not None else ClaudeHome.resolve(None, {}))

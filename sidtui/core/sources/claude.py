"""The Claude Code source: ``~/.claude`` read by :mod:`sidtui.core.claude` (docs/CLAUDE-CODE.md)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sidtui.core.claude.check import BackupCheck
from sidtui.core.claude.layout import ClaudeFile, ClaudeHome, claims_record, home_of
from sidtui.core.claude.session import ClaudeSessionView, open_claude_session
from sidtui.core.sources.base import SessionRef, Source
from sidtui.core.sources.writes import NEW_SESSION, PROMPT, WriteOptions


class ClaudeSource(Source):
    """One Claude Code home: reading (:mod:`sidtui.core.claude`), checkpoints
    (:mod:`~sidtui.core.claude.file_history`) and the writing verbs, which never edit a
    transcript (:mod:`~sidtui.core.claude.code_restore`, :mod:`~sidtui.core.claude.rewind`,
    :mod:`~sidtui.core.claude.fork`, :mod:`~sidtui.core.claude.repair`): a conversation
    rewind writes a new session, a checkpoint is the files before a typed prompt."""

    name = "claude-code"
    label = "Claude Code"
    mutations = frozenset(
        {"rewind", "fork", "branch", "repair", "undo", "restore", "redo", "rename"}
    )
    short = "claude"
    badge = "claude"
    views = frozenset({"leaves", "file-history"})
    conversation_rewind = NEW_SESSION
    checkpoint_unit = PROMPT
    rewind_finishes_interrupted = False
    tags_json = True
    quiet_empty = True
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
    titles = "sidtui.core.claude.title"
    folder_lister = "sidtui.core.claude.layout:project_folders"

    @staticmethod
    def claims_place(path: Path) -> bool:
        """A ``.jsonl`` in a Claude Code home's ``projects/<slug>/`` (an empty transcript is a
        normal session with no messages)."""
        return path.suffix == ".jsonl" and home_of(path) is not None

    @classmethod
    def home_of_file(cls, path: Path) -> Path | None:
        """``<root>`` of ``<root>/projects/<slug>/…`` (:func:`~sidtui.core.claude.layout.home_of`)."""
        place = home_of(path)
        return place[0] if place is not None else None

    def resume_agent(self) -> str:
        from sidtui.core.claude.resume import AGENT_VERSION

        return f"{self.label} {AGENT_VERSION}"

    def lost_notice(self, group: Any) -> str:
        from sidtui.core.claude.resume import lost_notice

        return lost_notice(group)

    def lost_counts(self, group: Any) -> bool:
        from sidtui.core.claude.resume import COMPACTED

        return bool(group.reason != COMPACTED)

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

    def open(self, ref: SessionRef, **_options: Any) -> ClaudeSessionView:
        """The session read whole (the reading options of sid-code's loader mean nothing
        to a Claude Code transcript)."""
        assert isinstance(ref, ClaudeFile)
        home = self._home if self._home.exists else None
        return open_claude_session(home, ref)

    def check_options(self) -> dict[str, Any]:
        return {"backups": self.backups}

    @property
    def journals_dir(self) -> Path:
        """``sidtui/restores/``: sidtui's journal of a restore of a session is there."""
        return self._home.restores_dir

    def pending_journals(self, session_ids: Iterable[str] | None = None) -> list[Any]:
        """The restores' journals (``sidtui/restores/``) and those killed forks left
        (``sidtui/forks/``, each said as a pending fork of its source session)."""
        from sidtui.core.claude.fork_journal import pending_forks

        found = super().pending_journals(session_ids)
        return found + pending_forks(self._home.forks_dir, session_ids)

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

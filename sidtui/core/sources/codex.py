"""The Codex CLI source: ``$CODEX_HOME`` (``~/.codex``) read by :mod:`sidtui.core.codex`
(docs/CODEX.md). It reads, and writes forks as Codex does (:mod:`sidtui.core.codex.fork`);
Codex keeps no file states, so there is no code rewind."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sidtui.core.base.errors import UnreadableInput
from sidtui.core.codex.layout import CodexFile, CodexHome, discover
from sidtui.core.codex.liveness import read_locks
from sidtui.core.codex.session import CodexSessionView, open_codex_session
from sidtui.core.sources.base import SessionRef, Source
from sidtui.core.sources.writes import NEW_SESSION, WriteOptions


class CodexSource(Source):
    """One Codex CLI home (sessions under ``sessions/YYYY/MM/DD/``)."""

    name = "codex"
    label = "Codex CLI"
    mutations = frozenset({"fork", "rewind"})
    short = "codex"
    badge = "codex"
    views = frozenset[str]()  # one history, no record tree: no Tips tab
    conversation_rewind = NEW_SESSION
    checkpoint_unit = None  # Codex keeps no file states: no code rewind, undo or restore
    home_flag = "--codex-home"
    home_env = "CODEX_HOME"
    no_points_reason = "no typed prompt in the history a resume sends"
    usage_gaps = "Codex records no request ids: a response copied into two rollouts counts twice"

    home_class = CodexHome
    discoverer = "sidtui.core.codex.layout:discover_files"
    resolver = "sidtui.core.codex.layout:resolve_session"
    registry = "sidtui.core.codex.liveness:read_locks"
    lister = "sidtui.core.codex.session:list_sessions"
    checker = "sidtui.core.codex.check:run_codex_check"
    usage_reader = "sidtui.core.codex.usage:read_usage"

    @staticmethod
    def claims_record(d: dict[str, Any]) -> bool:
        """A rollout opens with ``{"type": "session_meta", "payload": {...}}``."""
        return d.get("type") == "session_meta" and isinstance(d.get("payload"), dict)

    @property
    def home(self) -> CodexHome:
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
    ) -> CodexSessionView:
        assert isinstance(ref, CodexFile)
        return open_codex_session(ref, read_locks(self._home), self._home)

    def write_fork(self, model: CodexSessionView, before_prompt: int | None) -> tuple[str, Path]:
        """A new session whose history is ``model``'s before typed prompt
        ``before_prompt`` (None: all of it), as ``codex exec fork`` writes one; returns
        ``(new session id, its rollout)``."""
        from sidtui.core.codex.fork import write_fork

        return write_fork(self._home, model, before_prompt)

    def usage_events(
        self,
        project: str | None = None,
        *,
        errors: list[str] | None = None,
        use_cache: bool = True,
    ) -> list[Any]:
        """Each rollout's usage (:mod:`sidtui.core.codex.usage`), read afresh (the usage
        cache keys files by the sid-code and Claude Code homes' layouts)."""
        from sidtui.core.codex.usage import read_usage
        from sidtui.core.usage.aggregate import FileUsage, prepare

        out: list[FileUsage] = []
        for f in discover(self._home, project, errors):
            try:
                events = read_usage(f.path, f.project, errors)
            except UnreadableInput as exc:
                if errors is not None:
                    errors.append(str(exc))
                continue
            out.append(FileUsage.of(str(f.path), prepare(events)))
        return out

    def owns(self, ref: Any) -> bool:
        return isinstance(ref, CodexFile)

    def file_at(self, path: str | os.PathLike[str], project: str | None = None) -> CodexFile:
        from sidtui.core.codex.layout import file_for_path

        return file_for_path(Path(path), project)

    def file_of(self, summary: Any) -> CodexFile:
        return CodexFile(Path(summary.path), summary.session_id, summary.project or "")

    @property
    def projects_dir(self) -> Path:
        """``sessions/``: Codex files sessions by day; a session's project is its ``cwd``."""
        return self._home.sessions_dir

    def project_folders(self) -> list[str]:
        """The projects its sessions name (their ``cwd``: Codex keeps no project folders)."""
        return sorted({f.project for f in discover(self._home) if f.project})

    @classmethod
    def home_of_file(cls, path: Path) -> Path | None:
        """The home a rollout lies in (``HOME/sessions/YYYY/MM/DD/rollout-….jsonl``)."""
        parts = Path(path).expanduser().absolute().parents
        if len(parts) > 4 and parts[3].name == "sessions":
            return parts[4]
        return None

    # ------------------------------------------------------------------ writing

    def resume_command(self, session_id: str) -> str:
        return f"codex resume {session_id}"

    def fork_copied(self, result: Any) -> str:
        return "the history stays in the original, which the new rollout names (Codex's fork)"

    def rewind_points(self, model: Any) -> list[Any]:
        from sidtui.core.codex.writer import rewind_points

        return list(rewind_points(model))

    def fork(self, model: Any, at: int | None, *, dry_run: bool = False) -> Any:
        from sidtui.core.codex.writer import fork

        return fork(self._home, model, at, dry_run=dry_run)

    def rewind(self, model: Any, to: int, mode: str, options: WriteOptions) -> Any:
        """A conversation rewind is a fork before the prompt (``--fork`` changes nothing)."""
        from sidtui.core.codex.writer import rewind

        return rewind(self._home, model, to, mode, options.dry_run)

    @classmethod
    def of_model(cls, model: Any) -> CodexSource:
        home = model.home if model.home is not None else CodexHome.resolve(None, {})
        return cls(home)

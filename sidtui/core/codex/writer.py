"""What sidtui writes for a Codex CLI session through the one write interface
(docs/CODEX.md §9, docs/ARCHITECTURE.md "The write path").

Rewind points are the typed prompts of the history a resume sends. A fork (and a
conversation rewind, which is a fork ending before a prompt: ``conversation_rewind =
new-session``) is the rollout :mod:`.fork` writes, in Codex's own fork shape. Codex keeps
no file states, so a code rewind, undo, redo and restore are refused in one line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sidtui.core.base.errors import UsageError
from sidtui.core.views.rewind_result import RewindResult, point_json

PREVIEW_CHARS = 60


@dataclass(frozen=True)
class CodexRewindPoint:
    """Just before one typed prompt (a :class:`~sidtui.core.sources.writes.RewindPointLike`).

    Attributes:
        id: 1-based number among the typed prompts a resume sends.
        message_index: the prompt's index in the conversation.
        prompt: its number among :attr:`~.session.CodexSessionView.prompts` (what a fork
            cuts before).
        uuid, line, preview, timestamp: the prompt's item id, line, first words and time.
        base: the session whose rollout holds it when that is the one this was forked
            from ("": this rollout; a fork cannot cut there).
    """

    id: int
    message_index: int
    prompt: int
    uuid: str | None
    line: int | None
    preview: str
    timestamp: str | None
    base: str = ""

    @property
    def restore_from(self) -> str | None:
        return None  # Codex keeps no file states

    @property
    def code_from(self) -> str:
        return "— (Codex keeps no file states)"

    def to_json(self) -> dict[str, Any]:
        return point_json(self, None, None)


def rewind_points(view: Any) -> list[CodexRewindPoint]:
    """Every typed prompt of the history a resume sends, oldest first."""
    out: list[CodexRewindPoint] = []
    for n, m in enumerate(view.prompts, 1):
        out.append(
            CodexRewindPoint(
                n,
                m.index,
                n,
                m.uuid,
                m.line,
                m.preview(PREVIEW_CHARS),
                m.timestamp,
                m.base,
            )
        )
    return out


def get_point(view: Any, n: int) -> CodexRewindPoint:
    """Point ``n`` (1-based). Raises UsageError: no such point (exit 2)."""
    points = rewind_points(view)
    if not points:
        raise UsageError(f"{view.file.path.name} has no rewind points (no typed prompts)")
    if not 1 <= n <= len(points):
        raise UsageError(f"no rewind point {n}: choose 1–{len(points)}")
    return points[n - 1]


@dataclass
class CodexForkResult:
    """A fork written (or, for a dry run, planned) by :func:`fork`.

    Attributes:
        session_id, path: the new session and its rollout (a dry run's are None).
        source_session_id, source_path: the session it continues.
        message_count: messages of the new session's conversation.
        resume_items: history items ``codex resume`` of the new session sends.
        records_copied: records written into the new rollout (its ``session_meta``: the
            history stays in the original, which it names).
        point: the rewind point it ends before (None: the whole history).
    """

    session_id: str | None
    path: Path | None
    source_session_id: str
    source_path: Path
    message_count: int
    resume_items: int
    records_copied: int = 1
    point: int | None = None
    warnings: list[str] = field(default_factory=list)
    dry_run: bool = False
    #: Always False: a fork is written whole or not at all (one renderer for every source).
    resumed: bool = field(default=False, init=False)
    checkpoints_inherited: int = field(default=0, init=False)

    def to_json(self) -> dict[str, Any]:
        real = not self.dry_run
        return {
            "source": "codex",
            "session_id": self.session_id if real else None,
            "path": str(self.path) if real and self.path is not None else None,
            "source_session_id": self.source_session_id,
            "source_path": str(self.source_path),
            "point": self.point,
            "message_count": self.message_count,
            "resume_items": self.resume_items,
            "records_copied": self.records_copied,
            "warnings": self.warnings,
            "dry_run": self.dry_run,
            "resume": f"codex resume {self.session_id}" if real else None,
        }


def fork(home: Any, view: Any, at: int | None, *, dry_run: bool = False) -> CodexForkResult:
    """A new session with the history before rewind point ``at`` (None: all of it).

    Raises:
        UsageError: no such point, point 1 (nothing before it), or a point in the session
            this one was forked from; OSError: the write failed (nothing left).
    """
    from sidtui.core.codex.fork import plan_fork, write_fork

    point = get_point(view, at) if at is not None else None
    if point is not None and point.id == 1:
        raise UsageError("rewind point 1 is the first prompt: a fork before it would be empty")
    prompt = point.prompt if point is not None else None
    plan = plan_fork(view, prompt)  # the refusals, before anything is written
    kept = point.message_index if point is not None else len(view.messages)
    warnings: list[str] = []
    if view.liveness.live:
        warnings.append(
            "a running Codex process writes the original: the fork ends where it is now"
        )
    res = CodexForkResult(
        None,
        None,
        view.session_id,
        view.file.path,
        kept,
        plan.items,
        point=at,
        warnings=warnings,
        dry_run=dry_run,
    )
    if not dry_run:
        res.session_id, res.path = write_fork(home, view, prompt)
    return res


def rewind(home: Any, view: Any, to: int, mode: str, dry_run: bool) -> RewindResult:
    """A conversation rewind: the fork ending before point ``to`` (the original is never
    edited). A code rewind is refused (:data:`NO_FILE_STATES`)."""
    from sidtui.core.views.rewind_text import normalize_mode

    mode = normalize_mode(mode)
    if mode != "conversation":
        raise UsageError(
            f"{view.session_id} is a Codex CLI session: Codex keeps no file states, so there "
            "is no code rewind (use --mode conversation: a new session before the prompt)"
        )
    point = get_point(view, to)
    res = fork(home, view, to, dry_run=dry_run)
    dropped = [
        {"index": m.index, "uuid": m.uuid, "role": m.role, "preview": m.preview(PREVIEW_CHARS)}
        for m in view.messages[point.message_index :]
    ]
    return RewindResult(
        point,
        mode,
        messages_dropped=len(dropped),
        file_restore_skipped=True,
        fork=res,
        dropped=dropped,
        warnings=list(res.warnings),
        dry_run=dry_run,
        session_id=view.session_id,
    )

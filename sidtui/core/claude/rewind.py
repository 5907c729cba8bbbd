"""Rewind a Claude Code session from outside: points, code, conversation, both
(docs/CLAUDE-CODE.md §10.3, §10.7).

Points are the typed prompts of the resumed conversation, each mapped to its checkpoint (else
the first one after it, said so). ``code`` restores files through
:class:`~sidtui.core.claude.code_restore.CodeRestorer`; ``conversation`` writes a **new**
session ending before the prompt (:mod:`~sidtui.core.claude.fork`), never touching the
original; ``both`` builds and verifies the fork, restores the files, then writes the fork.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sidtui.core.base.errors import SidtuiError, UsageError
from sidtui.core.checkpoints.restore import write_failures
from sidtui.core.claude.code_restore import CodeRestorer, CodeRestoreResult
from sidtui.core.claude.file_history import FileHistory, read_file_history
from sidtui.core.claude.fork import prepare_fork, write_fork
from sidtui.core.views.rewind_result import RewindResult, point_json
from sidtui.core.views.rewind_text import (
    PREVIEW_CHARS,
    message_preview,
    normalize_mode,
    unified_diff,
)


class ClaudeRewindError(SidtuiError):
    """A rewind step failed after another one was done (exit 1); says what was done."""


@dataclass(frozen=True)
class ClaudeRewindPoint:
    """Just before one typed prompt.

    Attributes:
        id: 1-based number along the resumed conversation.
        message_index: the prompt's index in the conversation (the fork keeps the messages
            before it).
        record, uuid, line: the prompt record.
        preview, timestamp: its first 60 characters and time.
        checkpoint: the checkpoint a code rewind restores (None: none at or after it).
        exact: the checkpoint is the prompt's own (False: a later one).
    """

    id: int
    message_index: int
    record: int
    uuid: str | None
    line: int
    preview: str
    timestamp: str | None
    checkpoint: str | None = None
    exact: bool = False

    @property
    def restore_from(self) -> str | None:
        """The checkpoint a code rewind restores (sid-code's name for it)."""
        return self.checkpoint

    @property
    def code_from(self) -> str:
        """Where a code rewind restores from, in words (the points table's cell)."""
        if not self.checkpoint:
            return "— (no checkpoint)"
        return self.checkpoint if self.exact else f"{self.checkpoint} (a later one)"

    def to_json(self) -> dict[str, Any]:
        doc = point_json(self, self.checkpoint if self.exact else "", self.checkpoint)
        return {**doc, "checkpoint_exact": self.exact}


def rewind_points(view: Any, fh: FileHistory | None = None) -> list[ClaudeRewindPoint]:
    """Every typed prompt of the resumed conversation (the main file only)."""
    if view.file.kind != "main":
        return []
    fh = fh if fh is not None else read_file_history(view)
    out: list[ClaudeRewindPoint] = []
    for m in view.prompts:
        cp = fh.for_message(m.uuid)
        exact = cp is not None
        if cp is None:
            cp = next((c for c in fh.checkpoints if c.line > m.line), None)
        out.append(
            ClaudeRewindPoint(
                len(out) + 1,
                m.index,
                m.record,
                m.uuid,
                m.line,
                m.preview(PREVIEW_CHARS),
                m.timestamp,
                cp.id if cp is not None else None,
                exact,
            )
        )
    return out


def get_point(view: Any, n: int, fh: FileHistory | None = None) -> ClaudeRewindPoint:
    """Point ``n`` (1-based).

    Raises:
        UsageError: no such point (exit 2).
    """
    points = rewind_points(view, fh)
    if not points:
        raise UsageError(f"{view.file.path.name} has no rewind points (no typed prompts)")
    if not 1 <= n <= len(points):
        raise UsageError(f"no rewind point {n}: choose 1–{len(points)}")
    return points[n - 1]


@dataclass
class ClaudeRewindResult(RewindResult):
    """What a rewind did (or would do): sid-code's ``RewindResult`` (``marker_uuid`` is
    always None: nothing is appended to the original) plus ``code``, the restore of the
    file step; ``refusal``: a dry run's file step would be refused so (live, root, drift)."""

    code: CodeRestoreResult | None = None

    def to_json(self) -> dict[str, Any]:
        """sid-code's keys it has, in their order, named by source; root and refusal last."""
        doc = super().to_json()
        head = ("session_id", "root", "rootRefused", "refusal", "drift", "resumed")
        rest = {k: v for k, v in doc.items() if k not in head}
        return {
            "source": "claude-code",
            "session_id": self.session_id,
            **rest,
            "root": self.root,
            "refusal": self.refusal,
        }


def rewind(
    view: Any,
    point: int,
    mode: str,
    *,
    force: bool = False,
    dry_run: bool = False,
    allow_outside_root: bool = False,
    root: str | None = None,
) -> ClaudeRewindResult:
    """Rewind ``view`` to just before prompt ``point`` (see the module docstring);
    ``root``: the project root given with ``--root`` (else the session's).

    Raises:
        UsageError: bad point or mode, a subagent file, nothing before the first prompt.
        CodeRestoreError / SessionIsLive: the file step was refused (nothing written).
        ForkError: the conversation copy cannot be made (nothing written).
        ClaudeRewindError: the fork could not be written after the files were restored.
    """
    mode = normalize_mode(mode)
    if view.file.kind != "main":
        raise UsageError("cannot rewind a subagent transcript; rewind its session")
    fh = read_file_history(view)
    pt = get_point(view, point, fh)
    convo = mode != "code"
    code = mode != "conversation"
    res = ClaudeRewindResult(pt, mode, session_id=view.session_id, dry_run=dry_run)
    prepared = None
    if convo:
        res.dropped = [
            {"index": m.index, "uuid": m.uuid, "role": m.role, "preview": message_preview(m)}
            for m in view.messages[pt.message_index :]
        ]
        res.messages_dropped = len(res.dropped)
        if pt.message_index == 0:
            raise UsageError(
                "rewind point 1 is the first message: a conversation rewind to before it "
                "leaves nothing (use --mode code for the files)"
            )
        prepared = prepare_fork(view, before=pt.message_index)
        res.fork = prepared.result
        res.warnings.extend(prepared.result.warnings)
        if view.liveness.live:
            res.warnings.append(
                "the session is live: the copy holds what was on disk when sidtui read it"
            )
    if code:
        restorer = CodeRestorer(
            view, allow_outside_root=allow_outside_root, root=root, file_history=fh
        )
        res.root = str(restorer.root) if restorer.root is not None else None
        res.root_refusal = restorer.root_refusal
        if pt.checkpoint is None:
            res.file_restore_skipped = True
            res.warnings.append(
                "files not restored: the session has no file checkpoint at or after this prompt"
            )
        else:
            if view.messages[pt.message_index].compacted:
                cb = view.tree.compactions[-1]
                res.warnings.append(
                    f"Claude Code's own rewind cannot restore files to before this prompt: it "
                    f"is before the compaction at line {view.scan.lines[cb]} ('No file "
                    "checkpoint found for this message.'); sidtui restores them from the same "
                    "backups"
                )
            if not pt.exact:
                res.warnings.append(
                    f"prompt {pt.id} has no checkpoint of its own: files go back to "
                    f"{pt.checkpoint}, the first one written after it"
                )
            cp = fh.get(pt.checkpoint)
            step = restorer.restore_to(
                cp.position,
                dry_run=dry_run,
                force=force,
                op="rewind",
                intent={"rewind": {"point": pt.id, "mode": mode}} if convo else None,
            )
            res.code = step
            res.refusal = step.refusal
            res.files = [f.to_json() for f in step.files]
            res.files_restored = len(step.changed)
            res.safety_snapshot = step.safety_snapshot_id
            res.warnings.extend(step.warnings)
            res.drift = [
                {"path": f.path, "source": f.drift.source, "status": f.drift.status}
                for f in step.drifted
                if f.drift
            ]
            for f in step.skipped:
                res.file_restore_skipped = True
                res.warnings.append(f"{f.path}: skipped ({f.reason})")
            if dry_run:
                res.diffs = [d for f in step.changed if (d := unified_diff(f))]
            elif prepared is not None and (failed := write_failures(step.files)):
                # files first: a failed file step leaves the conversation unwritten
                raise ClaudeRewindError(_files_failed(failed, step, view.session_id))
    if prepared is not None:
        if dry_run:
            prepared.result.dry_run = True
        else:
            try:
                res.fork = write_fork(prepared, op="rewind")
                res.warnings.extend(w for w in res.fork.warnings if w not in res.warnings)
            except SidtuiError as exc:
                if res.files_restored:
                    raise ClaudeRewindError(
                        f"the files WERE rewound ({res.files_restored} file(s)) but the "
                        f"conversation was NOT: {exc}. `sidtui redo {view.session_id}` takes "
                        f"the files back (safety snapshot {res.safety_snapshot}); or retry "
                        f"with `sidtui rewind {view.session_id} --to {pt.id} --mode conversation`"
                    ) from None
                raise
    return res


def _files_failed(failed: list[Any], step: Any, session_id: str) -> str:
    """The message of a rewind whose file step failed (the conversation was not written)."""
    first = f"{failed[0].path}: {failed[0].reason}"
    if step.unfinished:
        return (
            f"{len(failed)} file(s) could not be written ({first}); the rewind is unfinished: "
            f"the conversation was not written and its journal stays — once the cause is "
            f"fixed, the same rewind finishes it (files, then the conversation); safety "
            f"snapshot {step.safety_snapshot_id} holds the files as they were"
        )
    return (
        f"{len(failed)} file(s) could not be written ({first}); nothing was changed "
        "(neither the files nor the conversation)"
    )

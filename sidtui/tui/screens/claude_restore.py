"""Undo, redo and restore of a Claude Code session's files (``u``, ``U``, ``R`` on its
screen; ``u`` in the Checkpoints tab's file list undoes that file only, as ``sidtui undo
--file``): sid-code's preview modal on :class:`sidtui.core.claude.code_restore.CodeRestorer`.

The preview is the restorer's call with ``dry_run=True`` (the diffs, drift per file, the
root and liveness notes); confirming runs the same call for real, as ``sidtui undo`` /
``redo`` / ``restore --before`` do: a restore a killed sidtui left half-done is finished
first (and only that: then the preview is that finish), a live session is asked about
again (force), a drifted file too.
"""

from __future__ import annotations

from textual import work

from sidtui.core.checkpoints.drift import DRIFT_WORDING
from sidtui.fmt import project_relative, refused_line
from sidtui.tui.messages import RestorePlanned
from sidtui.tui.screens.restore_preview import RestorePreviewScreen, drift_of


class ClaudeRestorePreviewScreen(RestorePreviewScreen):
    """Preview then apply ``undo``, ``undo-file`` (with ``path``, a tracked path as the
    file history keys it), ``redo`` or ``restore`` (with ``snapshot_id``, a checkpoint id
    such as ``c3``) on a ``ClaudeSessionView``; dismisses with whether it wrote."""

    def __init__(
        self, view, op: str, *, snapshot_id: str | None = None, path: str | None = None
    ) -> None:
        super().__init__(None, op, snapshot_id=snapshot_id, path=path)
        self.view = view
        self.root: str | None = view.cwd  # the restorer's root once the worker has it

    @work(
        thread=True,
        exclusive=True,
        group="restore",
        exit_on_error=False,
        description="planning the restore",
    )
    def compute(self, dry_run: bool, force: bool = False) -> None:
        from sidtui.core.base.errors import SidtuiError
        from sidtui.core.checkpoints.restore import DriftRefused as JournalDriftRefused
        from sidtui.core.claude.code_restore import CodeRestorer, DriftRefused, SessionIsLive

        first: list[str] = []
        try:
            r = CodeRestorer(self.view)
            self.root = str(r.root) if r.root is not None else None
            done = r.finish_interrupted(dry_run=dry_run)
            if done is not None and (done.safety_snapshot_id is not None or done.files):
                # as `sidtui undo`: finishing it is all this run does (a preview: would do)
                if dry_run:
                    self.post_message(RestorePlanned(done, finishing=done.warnings[0]))
                else:
                    self.post_message(RestorePlanned(done, applied=True, finished=done.describe()))
                return
            if done is not None and dry_run:
                first = done.warnings[:1]  # it had changed nothing: a real run drops it first
            if self.op == "restore":
                res = r.restore_before(self.snapshot_id or "", dry_run=dry_run, force=force)
            elif self.op == "redo":
                res = r.redo(dry_run=dry_run, force=force)
            elif self.op == "undo-file":  # `sidtui undo --file`
                res = r.undo(dry_run=dry_run, force=force, path=self.path)
            else:
                res = r.undo(dry_run=dry_run, force=force)
        except SessionIsLive as exc:
            self.post_message(RestorePlanned(None, str(exc), live=True))
            return
        except (DriftRefused, JournalDriftRefused) as exc:  # changed since the preview
            self.post_message(RestorePlanned(exc.result, drift=drift_of(exc.result), stale=True))
            return
        except (SidtuiError, OSError, ValueError) as exc:
            self.post_message(RestorePlanned(None, str(exc)))
            return
        # drift is said per file; the core's per-file notes are the file list's reasons
        paths = {f.path for f in res.files}
        warnings = first + [w for w in res.warnings if w.split(": ", 1)[0] not in paths]
        refusal = getattr(res, "refusal", None)
        if refusal and DRIFT_WORDING not in refusal and "changed after this session" not in refusal:
            warnings.append(refused_line(refusal))
        self.post_message(
            RestorePlanned(res, applied=not dry_run, drift=drift_of(res), warnings=warnings)
        )

    def _shown(self, path: str) -> str:
        """A path relative to the session's project root, as ``sidtui checkpoints`` prints."""
        return project_relative(path, self.root)

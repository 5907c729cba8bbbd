"""Claude Code's code store (:class:`~sidtui.core.sources.writes.CodeStore`): a session's
``file-history/<session>/`` backups (:mod:`~sidtui.core.claude.file_history`), restored by
:class:`~sidtui.core.claude.code_restore.CodeRestorer`.

A checkpoint is the file state before one typed prompt; a path is tracked as the file
history keys it (absolute). sidtui's own journal and safety snapshots of a Claude Code
session live in ``sidtui/restores/<session>/`` (never in Claude Code's folders).
"""

from __future__ import annotations

import os
from typing import Any

from sidtui.core.base.errors import SidtuiError, UsageError
from sidtui.core.checkpoints.finishing import Finishing, Shown, match_tracked, split_spec
from sidtui.core.claude.file_history import FileHistory, read_file_history


class ClaudeCodeStore:
    """One Claude Code session's checkpoints (see the module docstring).

    Args:
        view: the :class:`~sidtui.core.claude.session.ClaudeSessionView`.
        writes: for undo/redo/restore (the file history's own warnings are then not said:
            the restore result says what matters).
        root, allow_outside_root: the confinement flags (``--root``: a usage error when
            not a folder).
        file_history: the file history already read (else read on first use).
    """

    root_first = True
    followup_id = None  # follow-ups name the session as it was given
    dry_refusal = None  # the restorer says a live session in the result's refusal

    def __init__(
        self,
        view: Any,
        *,
        writes: bool = False,
        root: str | None = None,
        allow_outside_root: bool = False,
        file_history: FileHistory | None = None,
    ) -> None:
        self.view = view
        self._fh: FileHistory | None = file_history
        self._writes = writes
        self._root = root or None
        self._allow = allow_outside_root
        self._restorer: Any = None
        if writes:  # a bad --root is said before a missing checkpoint
            _ = self.restorer

    @property
    def fh(self) -> FileHistory:
        """The session's file history (read on first use)."""
        if self._fh is None:
            self._fh = read_file_history(self.view)
        return self._fh

    @property
    def session_id(self) -> str:
        return self.fh.session_id

    @property
    def shown_root(self) -> str | None:
        """The root paths are shown relative to (the session's cwd until the restorer has
        its root)."""
        if self._restorer is None:
            return self.view.cwd
        root = self._restorer.root
        return str(root) if root is not None else None

    @property
    def restorer(self) -> Any:
        """The :class:`~sidtui.core.claude.code_restore.CodeRestorer` (made on first use)."""
        if self._restorer is None:
            from sidtui.core.claude.code_restore import CodeRestorer

            self._restorer = CodeRestorer(
                self.view,
                allow_outside_root=self._allow,
                root=self._root,
                file_history=self.fh,
            )
        return self._restorer

    @property
    def project(self) -> Any:
        return self.restorer.project

    @property
    def warnings(self) -> list[str]:
        return [] if self._writes else list(self.fh.warnings)

    def require(self) -> None:
        """Like sid-code's verbs: a session without checkpoints is an error (exit 1)."""
        if not self.fh.checkpoints:
            raise SidtuiError(
                f"session {self.fh.session_id} has no file checkpoints (its transcript has no "
                "file-history-snapshot records)"
            )

    def pending(self) -> list[Any]:
        from sidtui.core.checkpoints.journal import pending_journals

        home = self.view.home
        return [] if home is None else pending_journals(home.restores_dir, [self.session_id])

    def pending_journal(self) -> dict[str, Any] | None:
        """The raw journal a killed restore left (None: none)."""
        return self.restorer.pending_journal()

    def finish_interrupted(self, *, dry_run: bool) -> Finishing | None:
        done = self.restorer.finish_interrupted(dry_run=dry_run)
        if done is None:
            return None
        said = done.warnings[0]
        doc = done.to_json()
        changed = done.safety_snapshot_id is not None or bool(done.files)
        rest = done.warnings[1:]
        done.warnings = rest  # said once, as ``said``
        return Finishing(
            said=said,
            changed=changed,
            note=done.note,
            warnings=rest,
            files=done,
            doc=doc,
            report=None if dry_run else done,
            finished=done.describe(),
        )

    def undo(self, *, dry_run: bool, force: bool, path: str | None = None) -> Any:
        return self.restorer.undo(dry_run=dry_run, force=force, path=path)

    def redo(self, *, dry_run: bool, force: bool) -> Any:
        return self.restorer.redo(dry_run=dry_run, force=force)

    def restore_before(self, checkpoint: str, *, dry_run: bool, force: bool) -> Any:
        return self.restorer.restore_before(checkpoint, dry_run=dry_run, force=force)

    def match_path(self, given: str) -> str:
        """As stored, relative to the session's cwd or the current folder, or the one
        tracked path ending in it."""
        bases = (self.view.cwd, os.getcwd())
        return match_tracked(
            self.fh.tracked(),
            given,
            [os.path.join(base, given) for base in bases if base],
            f"is not tracked in the checkpoints of {self.session_id}",
        )

    def show(self, spec: str) -> Shown:
        path, cid = split_spec(spec, "PATH@CHECKPOINT, e.g. src/app.py@c3")
        cp = self.fh.get(cid)
        p = self.match_path(path)
        state = self.fh.state_before(cp.position)
        if p not in state:
            raise UsageError(
                f"{p} is not tracked at or after {cp.id}: its state then is the file now"
            )
        what = f"{p} at {cp.id}"
        b, _ = state[p]
        if not b.existed:
            return Shown(what, error=f"{p} did not exist before {cp.id}")
        if not b.restorable:
            return Shown(what, error=f"unrecoverable: {what}: {b.reason}")
        try:
            return Shown(what, content=b.read())
        except OSError as exc:
            return Shown(what, error=f"unrecoverable: {what}: {exc.strerror or exc}")

    def listing(self) -> dict[str, Any]:
        """The machine-readable listing (the keys of sid-code's where they mean the same)."""
        from sidtui.core.claude.rewind import rewind_points

        fh, view = self.fh, self.view
        points = {p.checkpoint: p for p in rewind_points(view, fh) if p.exact}
        return {
            "source": "claude-code",
            "session_id": fh.session_id,
            "index": str(fh.folder),
            "folder_exists": fh.folder_exists,
            "project_root": view.cwd,
            "snapshots": [
                c.to_json(points[c.id].id if c.id in points else None) for c in fh.checkpoints
            ],
            "files": [ch.to_json() for ch in fh.chains()],
            "unrecoverable": [b.name for b in fh.unrecoverable()],
            "warnings": fh.warnings,
        }

"""Finishing what a killed sidtui run left half done (docs/DECISIONS.md, "Writes on a hostile disk").

:func:`finish_interrupted` (every mutating verb calls it first for its session) finishes
the journal of an interrupted undo/redo/restore/rewind, or drops one that changed
nothing; :func:`finish_forks` finishes or removes the copies killed forks and salvages
left in a sessions folder. :class:`Finished` says what was done; when the interrupted run
had changed something, finishing it is all the caller does. With ``dry_run`` both say what
a real run would do first, so every dry run predicts it (docs/DECISIONS.md, "Dry runs
predict the real run").

Design notes: docs/ARCHITECTURE.md, “core/edits/interrupted.py”.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sidtui.core.base import safefs
from sidtui.core.base.errors import SidtuiError
from sidtui.core.base.home import Home
from sidtui.core.checkpoints.journal import (
    JOURNAL_NAME,
    journal_refusal,
    read_journal,
    remove_journal,
    safety_written,
    writer_running,
)
from sidtui.core.checkpoints.manager import CheckpointManager
from sidtui.core.checkpoints.restore import CheckpointError, RestoreResult
from sidtui.core.edits.marker import append_marker, find_marker


@dataclass
class Finished:
    """What :func:`finish_interrupted` found and did.

    Attributes:
        op: the interrupted operation (``undo``, ``rewind``, ``fork`` ...).
        pid: the process that was killed.
        changed: the interrupted run had changed something, and it is now finished (the
            caller should stop: that was the request); False when it had changed nothing
            (dropped) and the caller goes on.
        restore: the files written now (None when there were none to write).
        marker_uuid: the marker appended now (rewinds), or a dry run: the one already there.
        marker_due: a dry run: the rewind's marker is not there yet; a real run appends it.
        session_id: for a fork, the new session that is now complete.
        notes: sentences for the user.
        dry_run: nothing was written.
        fork: for a fork, its journal part (``transcript``, ``source``, ``messageCount``,
            ``recordsCopied``).
    """

    op: str
    pid: int | None
    changed: bool
    restore: RestoreResult | None = None
    marker_uuid: str | None = None
    session_id: str | None = None
    notes: list[str] = field(default_factory=list)
    dry_run: bool = False
    fork: dict[str, Any] | None = None
    marker_due: bool = False

    @property
    def skipped(self) -> list[Any]:
        """The files finishing skips (or a dry run: would skip): the run's exit is then 1."""
        return self.restore.skipped if self.restore is not None else []

    def describe(self) -> str:
        """One paragraph for the CLI (a dry run's says what a real run will do)."""
        who = f" (process {self.pid} was killed)" if self.pid else ""
        if not self.changed:
            dropped = (
                "a real run drops its journal first" if self.dry_run else "its journal is dropped"
            )
            return f"an interrupted sidtui {self.op}{who} had changed nothing; " + (
                "; ".join(self.notes) or dropped
            )
        what = f"an interrupted {self.op} left by an earlier sidtui run{who}"
        parts = [f"a real run only finishes {what}" if self.dry_run else f"finished {what}"]
        if self.restore is not None:
            n = len(self.restore.changed)
            parts.append(
                f"{n} more file(s) {'to write' if self.dry_run else 'written'} "
                f"(safety snapshot {self.restore.safety_snapshot_id})"
            )
        if self.marker_due:
            parts.append("its rewind marker to append")
        elif self.marker_uuid:
            parts.append(
                f"marker {self.marker_uuid[:8]} {'already there' if self.dry_run else 'appended'}"
            )
        parts.extend(self.notes)
        return "; ".join(parts) + (
            "; nothing else is done" if self.dry_run else "; nothing else was done"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "pid": self.pid,
            "changed": self.changed,
            "restore": self.restore.to_json() if self.restore is not None else None,
            "marker_uuid": self.marker_uuid,
            "marker_due": self.marker_due,
            "session_id": self.session_id,
            "notes": self.notes,
            "dry_run": self.dry_run,
        }


class InterruptedError_(SidtuiError):
    """A journal that cannot be finished safely (another sidtui runs, or it is foreign)."""


def _pid(j: dict[str, Any]) -> int | None:
    pid = j.get("pid")
    return pid if isinstance(pid, int) and not isinstance(pid, bool) else None


def finish_interrupted(
    home: Home,
    session_id: str,
    *,
    dry_run: bool = False,
    project_root: Path | None = None,
) -> Finished | None:
    """Finish (or drop) the journal a killed run left for ``session_id``.

    Args:
        home: the home.
        session_id: the session (its ``checkpoints/<id>/`` folder).
        dry_run: say what would be done; write nothing.
        project_root: the root to confine writes to when the journal records none.

    Returns:
        None when nothing was pending.

    Raises:
        InterruptedError_: the journal is not readable, or its writer still runs.
    """
    folder = home.checkpoint_folder(session_id)
    j = read_journal(folder)
    if j is None:
        if not dry_run:
            safefs.remove_stale_temps(folder)
        return None
    if (refusal := journal_refusal(j, folder, f"session {session_id}")) is not None:
        raise InterruptedError_(refusal)
    pid = _pid(j)
    op = str(j.get("op") or "operation")
    if isinstance(j.get("fork"), dict):
        return _finish_fork(home, folder, j, dry_run)
    done = Finished(op, pid, False, dry_run=dry_run)
    root = j.get("root")
    mgr = CheckpointManager(
        home.checkpoint_index(session_id),
        session_id,
        project_root=Path(root) if isinstance(root, str) else project_root,
        allow_outside_root=bool(j.get("allowOutsideRoot")),
    )
    safety_id: str | None = None
    if isinstance(j.get("restore"), dict):
        try:
            res = mgr.finish_journal(j, dry_run=dry_run)
        except (CheckpointError, OSError) as exc:
            raise InterruptedError_(f"cannot finish the interrupted {op}: {exc}") from None
        if res.safety_snapshot_id is None:
            if not dry_run:
                remove_journal(folder)
                safefs.remove_stale_temps(folder)
            if res.note:  # else it died before its safety snapshot: describe() says it
                done.notes.append(res.note)
            return done
        done.changed = True
        done.restore = res
        safety_id = res.safety_snapshot_id
        if res.unfinished:  # still unfinished: its journal stays (and the marker waits)
            done.notes.extend(res.warnings)
            return done
    marker = j.get("marker")
    if isinstance(marker, dict):
        done.changed = True
        done.marker_uuid = _finish_marker(marker, j, safety_id, dry_run)
        done.marker_due = dry_run and done.marker_uuid is None
    if not dry_run:
        remove_journal(folder)
        safefs.remove_stale_temps(folder)
    return done


def _finish_marker(
    marker: dict[str, Any], j: dict[str, Any], safety_id: str | None, dry_run: bool
) -> str | None:
    path = Path(str(marker.get("transcript")))
    key = str(marker.get("key") or "rewind")
    token = j.get("token")
    found = find_marker(path, key, "journal", token)
    if found is not None or dry_run:
        return found
    value = dict(marker.get("value") or {})
    if safety_id:
        value["safetySnapshot"] = safety_id
    value["journal"] = token
    value["by"] = "sidtui"
    parent = marker.get("parentUuid")
    return append_marker(path, parent if isinstance(parent, str) else None, key, value)


def _finish_fork(home: Home, folder: Path, j: dict[str, Any], dry_run: bool) -> Finished:
    """A fork's journal lives in the new session's checkpoint folder (``folder``).

    A ``rewind --fork`` whose file step had saved its safety snapshot
    (:func:`~sidtui.core.checkpoints.journal.safety_written`) is finished — its files
    written, then its copy renamed into place — and its folder is never removed; a copy
    whose file step had not begun is removed (nothing the user would miss was done).
    """
    part = j["fork"]
    final = Path(str(part.get("transcript")))
    temp = Path(str(part.get("temp")))
    op = str(j.get("op") or "fork")
    done = Finished(op, _pid(j), False, session_id=folder.name, dry_run=dry_run, fork=part)
    visible = final.exists()
    files_begun = isinstance(j.get("restore"), dict) and safety_written(folder, j)
    if files_begun and (visible or (part.get("ready") is True and temp.exists())):
        # A rewind --fork whose files were being restored: finish that, then the rename.
        mgr = CheckpointManager(
            folder / "index.json",
            folder.name,
            project_root=Path(j["root"]) if isinstance(j.get("root"), str) else None,
            allow_outside_root=bool(j.get("allowOutsideRoot")),
        )
        done.restore = mgr.finish_journal(j, dry_run=dry_run)
        done.changed = True
        done.notes.append(
            f"new session {folder.name} {'to complete' if dry_run else 'is now complete'}"
        )
        done.notes.extend(done.restore.warnings)
        if not dry_run:
            if not visible:
                os.replace(temp, final)
            if not done.restore.unfinished:  # else it stays for the next run
                remove_journal(folder)
        return done
    if visible:  # renamed into place: only the journal was left
        if not dry_run:
            remove_journal(folder)
        done.changed = True
        done.notes.append(f"the copy {folder.name} was already complete")
        return done
    if files_begun:  # its transcript is gone, but the safety snapshot is the only copy
        done.notes.append(
            f"the copy {folder.name} of an interrupted {op} lost its transcript; its "
            f"checkpoints (the safety snapshot of the files it was restoring) are kept in {folder}"
        )
        return done
    # Nothing the user would miss was done: the copy is removed.
    if not dry_run:
        try:
            temp.unlink()
        except OSError:
            pass
        shutil.rmtree(folder, ignore_errors=True)
    done.notes.append(
        f"{'a real run removes' if dry_run else 'removed'} the incomplete copy {folder.name}"
    )
    return done


def _remove_if_only_leftovers(folder: Path) -> None:
    """Remove a checkpoint folder holding nothing but dead processes' temp files (a fork
    killed while writing its journal)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    if names and len(safefs.stale_temps(folder)) == len(names):
        shutil.rmtree(folder, ignore_errors=True)


def finish_forks(home: Home, sessions_folder: Path, *, dry_run: bool = False) -> list[Finished]:
    """Finish or remove every copy a killed fork/salvage left for ``sessions_folder``.

    Looks at every ``checkpoints/*/sidtui-journal.json`` holding a ``fork`` part whose
    transcript is in ``sessions_folder`` and whose writer is gone, and at stray temp
    transcripts there. Never raises for one bad leftover (it is reported in ``notes``).
    """
    out: list[Finished] = []
    try:
        entries = list(os.scandir(home.checkpoints_dir))
    except OSError:
        entries = []
    folder_real = os.path.realpath(sessions_folder)
    for e in entries:
        try:
            if not e.is_dir(follow_symlinks=False):
                continue
            if not os.path.exists(os.path.join(e.path, JOURNAL_NAME)):
                if not dry_run and not os.path.exists(os.path.join(e.path, "index.json")):
                    _remove_if_only_leftovers(Path(e.path))
                continue
        except OSError:
            continue
        j = read_journal(Path(e.path))
        if not j or "invalid" in j or not isinstance(j.get("fork"), dict):
            continue
        if j.get("pid") != os.getpid() and writer_running(j, Path(e.path)):
            continue  # (this process's own: a failed write it left unfinished)
        final = str(j["fork"].get("transcript"))
        if os.path.realpath(os.path.dirname(final)) != folder_real:
            continue
        try:
            out.append(_finish_fork(home, Path(e.path), j, dry_run))
        except (OSError, SidtuiError) as exc:
            out.append(Finished(str(j.get("op")), _pid(j), False, notes=[f"{e.name}: {exc}"]))
    if not dry_run:
        safefs.remove_stale_temps(sessions_folder)
        safefs.remove_stale_temps(home.checkpoints_dir)
    return out

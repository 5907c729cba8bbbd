"""The checkpoint manager: snapshots before a change and the one restore primitive (FORMAT.md §10).

Rebuilding a file from an index (no writes) is :mod:`sidtui.core.checkpoints.rebuild`.

Writing (:class:`CheckpointManager`, one per session):

* ``create_snapshot(paths, tool_names, summary) -> snapshot id | None`` — before a change:
  full at first sighting (gzip+base64 above 1024 UTF-16 units), diff later, nothing when
  unchanged, ``existedBefore: false`` for missing files, no snapshot without files; then
  eviction (:mod:`sidtui.core.checkpoints.evict`) and an atomic ``index.json`` write.
* ``rollback_from(k)`` — the one restore primitive (FORMAT.md §10.13): every file in
  ``snapshots[k:]`` gets the pre-image of its earliest entry there (deleted when that entry
  says it did not exist). Built on it: ``undo()``, ``redo()``, ``undo_file(path)``,
  ``restore_before(snapshot_id)``, ``rollback_to_time(t_ms)``. Each takes ``dry_run`` and
  ``force`` and returns a :class:`RestoreResult` with one :class:`FileRestore` per file
  (``restored`` / ``deleted`` / ``unchanged`` / ``skipped`` + reason, with old/new bytes for
  previews). Before any file is written a ``sidtui-restore`` snapshot holding the current
  contents of every file about to change is appended (with ``sidtuiReverts``: the ids it
  reverts, and ``sidtuiOp``) and the index saved; then files are written temp + rename.
  Rolled-back snapshots are never removed. Targets outside the project root (after
  resolving symlinks; ``..``, NUL bytes, relative paths) are refused unless allowed; files
  whose pre-image cannot be proven (history evicted) are skipped as *uncertain* unless
  ``force``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from sidtui.core.base.errors import SidtuiError, UsageError
from sidtui.core.base.home import Home
from sidtui.core.checkpoints.diff import compute_diff
from sidtui.core.checkpoints.evict import evict as run_eviction
from sidtui.core.checkpoints.index import (
    CheckpointIndex,
    CorruptIndex,
    atomic_write_bytes,
    encode_full,
)
from sidtui.core.checkpoints.rebuild import (
    FileChain,
    Rebuilt,
    chain_health,
    rebuild,
    rollback_target,
    state_at,
)

RESTORE_TOOL = "sidtui-restore"
MAX_ENTRIES_PER_FILE = 50
MAX_TOTAL_BYTES = 200 * 1024 * 1024


class CheckpointError(SidtuiError):
    """A checkpoint operation cannot proceed (exit 1)."""


# --- paths -------------------------------------------------------------------------------


def confine(path: str, root: Path | None, allow_outside: bool = False) -> tuple[str | None, str]:
    """Check a target path against the project root.

    Args:
        path: the path as stored in the index.
        root: the project root (None: unknown).
        allow_outside: accept any absolute path (NUL bytes are still refused).

    Returns:
        ``(reason, real_path)``: ``reason`` is None when writing ``real_path`` (symlinks
        resolved) is allowed, else why not.
    """
    if "\x00" in path:
        return "path contains a NUL byte", path
    if not os.path.isabs(path):
        return "path is not absolute", path
    real = os.path.realpath(path)
    if allow_outside:
        return None, real
    if ".." in PurePosixPath(path).parts:
        return "path contains '..'", real
    if root is None:
        return "no project root is known (use --allow-outside-root)", real
    root_real = os.path.realpath(root)

    def inside(p: str) -> bool:
        return p == root_real or p.startswith(root_real.rstrip(os.sep) + os.sep)

    if not inside(os.path.normpath(path)) and not inside(real):
        return f"outside the project root {root_real}", real
    if not inside(real):
        return f"resolves through a symlink to {real}, outside the project root {root_real}", real
    return None, real


def read_current(real_path: str) -> tuple[bool, bytes | None, str | None]:
    """``(exists, data, error)`` for a file on disk (a directory is an error)."""
    try:
        with open(real_path, "rb") as fh:
            return True, fh.read(), None
    except FileNotFoundError:
        return False, None, None
    except IsADirectoryError:
        return True, None, "is a directory"
    except OSError as exc:
        return os.path.lexists(real_path), None, exc.strerror or str(exc)


def _as_content(data: bytes) -> str | bytes:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


# --- results -----------------------------------------------------------------------------


@dataclass
class FileRestore:
    """What a restore did (or would do) to one file.

    Attributes:
        path: the path as stored in the index.
        action: ``"restored"``, ``"deleted"``, ``"unchanged"`` or ``"skipped"``.
        reason: why skipped (or a write error), else None.
        source_snapshot: id of the entry whose pre-image is the target.
        old: current bytes (None: absent/unknown); new: target bytes (None: absent).
        uncertain: the pre-image cannot be proven (history evicted).
    """

    path: str
    action: str
    reason: str | None = None
    source_snapshot: str | None = None
    old: bytes | None = None
    new: bytes | None = None
    uncertain: bool = False
    real_path: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "action": self.action,
            "reason": self.reason,
            "sourceSnapshot": self.source_snapshot,
            "uncertain": self.uncertain,
            "oldBytes": None if self.old is None else len(self.old),
            "newBytes": None if self.new is None else len(self.new),
        }


@dataclass
class RestoreResult:
    """The outcome of one restore operation.

    Attributes:
        op: ``"undo"``, ``"redo"``, ``"undo-file"``, ``"restore"``, ``"rewind"``, ``"rollback"``.
        dry_run: nothing was written.
        from_position: ``k`` of ``rollback_from(k)`` (None when there was nothing to do).
        target_snapshot_id: ``snapshots[k].id``.
        reverts: ids of the snapshots rolled back.
        safety_snapshot_id: the ``sidtui-restore`` snapshot appended (None on dry runs or
            when no file changed); ``redo()`` takes it back.
        files: one :class:`FileRestore` per file.
        note: a human sentence when there was nothing to do.
    """

    op: str
    dry_run: bool
    from_position: int | None = None
    target_snapshot_id: str | None = None
    reverts: list[str] = field(default_factory=list)
    safety_snapshot_id: str | None = None
    files: list[FileRestore] = field(default_factory=list)
    note: str | None = None

    @property
    def changed(self) -> list[FileRestore]:
        return [f for f in self.files if f.action in ("restored", "deleted")]

    @property
    def skipped(self) -> list[FileRestore]:
        return [f for f in self.files if f.action == "skipped"]

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "dryRun": self.dry_run,
            "target": self.target_snapshot_id,
            "reverts": self.reverts,
            "safetySnapshot": self.safety_snapshot_id,
            "note": self.note,
            "files": [f.to_json() for f in self.files],
        }


@dataclass(frozen=True)
class SnapshotInfo:
    """A snapshot as listed (``/checkpoints``)."""

    id: str
    position: int
    timestamp: int
    tool_name: str
    tool_summary: str
    files: tuple[dict[str, Any], ...]
    reverts: tuple[str, ...]
    reverted: bool

    @property
    def is_restore(self) -> bool:
        return self.tool_name == RESTORE_TOOL


# --- the manager -------------------------------------------------------------------------


def _now_ms() -> int:
    return int(time.time() * 1000)


class CheckpointManager:
    """One session's checkpoints: snapshots before changes, and restores.

    Args:
        index_path: ``checkpoints/<sessionId>/index.json`` (``Home.checkpoint_index``).
        session_id: the session (used for a new index).
        project_root: writes are confined to it (symlinks resolved).
        allow_outside_root: lift the confinement (NUL bytes still refused).
        max_per_file / max_total_bytes: eviction quotas (FORMAT.md §10.9: 50, 200 MB).
        clock: ``() -> ms`` (tests inject one).
    """

    def __init__(
        self,
        index_path: Path,
        session_id: str,
        *,
        project_root: Path | None = None,
        allow_outside_root: bool = False,
        max_per_file: int = MAX_ENTRIES_PER_FILE,
        max_total_bytes: int = MAX_TOTAL_BYTES,
        clock: Callable[[], int] = _now_ms,
    ) -> None:
        self.index_path = Path(index_path)
        self.session_id = session_id
        self.project_root = Path(project_root) if project_root is not None else None
        self.allow_outside_root = allow_outside_root
        self.max_per_file = max_per_file
        self.max_total_bytes = max_total_bytes
        self.clock = clock
        self._index: CheckpointIndex | None = None
        self.last_eviction: Any = None

    @classmethod
    def for_session(cls, home: Home, session_id: str, **kwargs: Any) -> CheckpointManager:
        """The manager of ``checkpoints/<session_id>/`` under ``home``."""
        return cls(home.checkpoint_index(session_id), session_id, **kwargs)

    # --- index ---------------------------------------------------------------------

    @property
    def exists(self) -> bool:
        return self.index_path.exists()

    @property
    def index(self) -> CheckpointIndex:
        """The index (loaded on first use; an empty one when the file does not exist).

        Raises:
            CorruptIndex: the file exists but is not a readable index.
        """
        if self._index is None:
            self.reload()
        assert self._index is not None
        return self._index

    def reload(self) -> CheckpointIndex:
        """Re-read ``index.json`` (the agent may have written it meanwhile)."""
        if self.index_path.exists():
            self._index = CheckpointIndex.load(self.index_path)
        else:
            self._index = CheckpointIndex.empty(self.session_id, self.clock(), self.index_path)
        return self._index

    def save(self) -> None:
        """Write ``index.json`` atomically (temp + fsync + rename)."""
        self.index.write(self.index_path)

    # --- reading -------------------------------------------------------------------

    def reverted_ids(self) -> set[str]:
        """Ids rolled back by restores that are still in effect (not themselves redone)."""
        reverted: set[str] = set()
        for s in reversed(self.index.snapshots):
            sid = s.get("id")
            if sid in reverted:
                continue
            if (
                s.get("toolName") == RESTORE_TOOL
                and s.get("sidtuiOp") != "undo-file"
                and not s.get("sidtuiFailed")  # no file changed: it reverted nothing
            ):
                ids = s.get("sidtuiReverts")
                if isinstance(ids, list):
                    reverted.update(str(x) for x in ids)
        return reverted

    def list_snapshots(self) -> list[SnapshotInfo]:
        """Every snapshot in index order (with what each restore reverts)."""
        reverted = self.reverted_ids()
        out = []
        for i, s in enumerate(self.index.snapshots):
            rev = s.get("sidtuiReverts")
            ts = s.get("timestamp")
            out.append(
                SnapshotInfo(
                    str(s.get("id")),
                    i,
                    int(ts) if isinstance(ts, (int, float)) else 0,
                    str(s.get("toolName") or ""),
                    str(s.get("toolSummary") or ""),
                    tuple(e for e in s.get("files") or [] if isinstance(e, dict)),
                    tuple(str(x) for x in rev) if isinstance(rev, list) else (),
                    str(s.get("id")) in reverted,
                )
            )
        return out

    def chain_health(self, file_path: str | None = None) -> list[FileChain]:
        """Chain health of one file or of every tracked file."""
        paths = [file_path] if file_path else self.index.tracked_files()
        return [chain_health(self.index, p) for p in paths]

    def position(self, snapshot_id: str) -> int:
        """Index of ``snapshot_id``.

        Raises:
            UsageError: no such snapshot.
        """
        k = self.index.index_of(snapshot_id)
        if k < 0:
            known = ", ".join(str(s.get("id")) for s in self.index.snapshots[-12:])
            raise UsageError(f"no snapshot {snapshot_id!r} in {self.index_path} (have: {known})")
        return k

    def rebuild_at(self, file_path: str, snapshot_id: str) -> Rebuilt:
        """The pre-image of ``file_path`` stored in ``snapshot_id``.

        Without an entry there, the state when that snapshot was taken (its first entry
        at or after it). Raises :class:`UsageError` when there is neither.
        """
        k = self.position(snapshot_id)
        if self.index.entry_at(file_path, k) is not None:
            return rebuild(self.index, file_path, k)
        r = state_at(self.index, file_path, k)
        if r is None:
            raise UsageError(
                f"{file_path} has no entry at or after {snapshot_id}: its state then is "
                "the file on disk"
            )
        return r

    # --- writing snapshots -----------------------------------------------------------

    def _entry_for(
        self, path: str, exists: bool, content: str | bytes | None, force: bool
    ) -> dict[str, Any] | None:
        entries = self.index.entries_for(path)
        prev = rebuild(self.index, path, entries[-1][0]) if entries else None
        if not exists:
            if prev is not None and prev.recoverable and not prev.exists and not force:
                return None
            return {
                "filePath": path,
                "existedBefore": False,
                "type": "full",
                "content": "",
                "compressed": False,
            }
        assert content is not None
        full = {"filePath": path, "existedBefore": True, "type": "full"}
        if (
            prev is None
            or not prev.recoverable
            or not prev.exists
            or isinstance(content, bytes)
            or isinstance(prev.content, bytes)
        ):
            if prev is not None and prev.recoverable and prev.exists and prev.content == content:
                if not force:
                    return None
            return {**full, **encode_full(content)}
        assert isinstance(prev.content, str)
        if prev.content == content:
            return {**full, **encode_full(content)} if force else None
        return {
            "filePath": path,
            "existedBefore": True,
            "type": "diff",
            "diff": compute_diff(prev.content, content),
        }

    def create_snapshot(
        self,
        paths: Iterable[str],
        tool_names: Sequence[str] | str,
        summary: str,
        *,
        message_id: str | None = None,
        contents: dict[str, bytes | None] | None = None,
        extra: dict[str, Any] | None = None,
        force_entries: bool = False,
        evict: bool = True,
        save: bool = True,
    ) -> str | None:
        """Store the current content of ``paths`` before a tool batch changes them.

        Args:
            paths: absolute file paths (relative ones are made absolute against cwd).
            tool_names: the batch's tool names (joined with ``", "``) or the joined string.
            summary: ``toolSummary`` (the agent: the affected-file list).
            message_id: optional ``messageId``.
            contents: bytes to store instead of reading (None = file absent).
            extra: more snapshot fields (``sidtuiReverts``...), placed before ``files``.
            force_entries: store an entry even when unchanged (safety snapshots).
            evict / save: run eviction / write ``index.json`` afterwards.

        Returns:
            The new snapshot id, or None when no file needed an entry (nothing saved).

        Raises:
            CorruptIndex: the existing index cannot be read.
        """
        self.reload()
        index = self.index
        files: list[dict[str, Any]] = []
        seen: set[str] = set()
        for raw_path in paths:
            path = raw_path if os.path.isabs(raw_path) else os.path.abspath(raw_path)
            if path in seen:
                continue
            seen.add(path)
            if contents is not None and path in contents:
                data = contents[path]
                exists = data is not None
            else:
                exists, data, err = read_current(path)
                if err is not None:
                    continue  # a directory or unreadable file cannot be snapshotted
            content = _as_content(data) if data is not None else None
            entry = self._entry_for(path, exists, content, force_entries)
            if entry is not None:
                files.append(entry)
        if not files:
            return None
        sid = index.allocate_id()
        snap: dict[str, Any] = {
            "id": sid,
            "timestamp": self.clock(),
            "toolName": tool_names if isinstance(tool_names, str) else ", ".join(tool_names),
            "toolSummary": summary,
        }
        if message_id is not None:
            snap["messageId"] = message_id
        if extra:
            snap.update(extra)
        snap["files"] = files
        index.snapshots.append(snap)
        lfm = index.data.get("latestFullMap")
        if not isinstance(lfm, dict):
            lfm = index.data["latestFullMap"] = {}
        for e in files:
            if e["type"] == "full":
                lfm[e["filePath"]] = sid
        index.invalidate()
        if evict:
            self.last_eviction = run_eviction(index, self.max_per_file, self.max_total_bytes)
        if save:
            self.save()
        return sid

    # --- restore -------------------------------------------------------------------

    def _plan(self, k: int, paths: Sequence[str] | None, force: bool) -> list[FileRestore]:
        index = self.index
        snaps = index.snapshots
        order: list[str] = []
        seen: set[str] = set()
        for s in snaps[k:]:
            for e in s.get("files") or []:
                p = e.get("filePath") if isinstance(e, dict) else None
                if isinstance(p, str) and p not in seen:
                    seen.add(p)
                    order.append(p)
        if paths is not None:
            wanted = set(paths)
            order = [p for p in order if p in wanted]
        plan: list[FileRestore] = []
        for p in order:
            target, why = rollback_target(index, p, k)
            assert target is not None  # p has an entry in snapshots[k:]
            fr = FileRestore(p, "skipped", source_snapshot=target.snapshot_id)
            reason, real = confine(p, self.project_root, self.allow_outside_root)
            fr.real_path = real
            if reason is not None:
                fr.reason = f"refused: {reason}"
                plan.append(fr)
                continue
            exists, cur, err = read_current(real)
            fr.old = cur
            if err is not None:
                fr.reason = f"cannot read the current file: {err}"
                plan.append(fr)
                continue
            if not target.recoverable:
                fr.reason = f"unrecoverable: {target.reason}"
                plan.append(fr)
                continue
            if why is not None:
                fr.uncertain = True
                if not force:
                    fr.reason = f"uncertain: {why} (use --force to restore anyway)"
                    plan.append(fr)
                    continue
            new = target.data()
            fr.new = new
            if not target.exists:
                fr.action = "deleted" if exists else "unchanged"
            elif exists and cur == new:
                fr.action = "unchanged"
            else:
                fr.action = "restored"
            plan.append(fr)
        return plan

    def rollback_from(
        self,
        k: int,
        *,
        dry_run: bool = False,
        force: bool = False,
        paths: Sequence[str] | None = None,
        op: str = "rollback",
        reverts: Sequence[str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> RestoreResult:
        """Put every file in ``snapshots[k:]`` back to its pre-image at its earliest entry there.

        Args:
            k: snapshot position (0 ≤ k < len(snapshots)).
            dry_run: compute and return the plan (with old/new bytes), write nothing.
            force: also restore files whose pre-image is uncertain.
            paths: only these files.
            op: label recorded as ``sidtuiOp`` in the safety snapshot.
            reverts: ids recorded as ``sidtuiReverts`` (default: ``snapshots[k:]``).
            extra: more fields for the safety snapshot.

        Returns:
            A :class:`RestoreResult`.

        Raises:
            UsageError: ``k`` out of range. CorruptIndex: unreadable index.
            CheckpointError: the safety snapshot cannot be saved (then nothing is written).
        """
        self.reload()
        snaps = self.index.snapshots
        if not 0 <= k < len(snaps):
            raise UsageError(f"snapshot position {k} out of range (0..{len(snaps) - 1})")
        ids = [str(s.get("id")) for s in snaps[k:]] if reverts is None else list(reverts)
        result = RestoreResult(op, dry_run, k, str(snaps[k].get("id")), ids)
        result.files = self._plan(k, paths, force)
        todo = [f for f in result.files if f.action in ("restored", "deleted")]
        if dry_run or not todo:
            if not todo and not dry_run:
                result.note = "nothing to change: every file is already as it was"
            return result
        # Nothing is lost: the current contents go into the index before any file changes.
        summary = f"sidtui {op}: revert {', '.join(ids[:5])}{' …' if len(ids) > 5 else ''}"
        try:
            safety = self.create_snapshot(
                [f.path for f in todo],
                RESTORE_TOOL,
                summary,
                contents={f.path: f.old for f in todo},
                extra={"sidtuiReverts": ids, "sidtuiOp": op, **(extra or {})},
                force_entries=True,
                evict=False,
            )
        except OSError as exc:
            raise CheckpointError(
                f"cannot save the safety snapshot to {self.index_path} "
                f"({exc.strerror or exc}); no file was changed"
            ) from None
        result.safety_snapshot_id = safety
        for f in todo:
            real = f.real_path or f.path
            try:
                if f.action == "deleted":
                    os.unlink(real)
                else:
                    assert f.new is not None
                    mode = None
                    try:
                        mode = os.stat(real).st_mode & 0o7777
                    except OSError:
                        pass
                    atomic_write_bytes(Path(real), f.new, mode)
            except OSError as exc:
                f.reason = f"write failed: {exc.strerror or exc}"
                f.action = "skipped"
        if all(f.action == "skipped" for f in todo):
            # Every write failed: the safety snapshot stays (append-only) but is marked so
            # it does not count as having reverted anything, and there is nothing to redo.
            self.reload()
            pos = self.index.index_of(safety)
            if pos >= 0:
                self.index.snapshots[pos]["sidtuiFailed"] = True
                self.index.invalidate()
                try:
                    self.save()
                except OSError:
                    pass
            result.safety_snapshot_id = None
            result.note = "no file could be written; nothing was changed"
        return result

    def undo(self, *, dry_run: bool = False, force: bool = False) -> RestoreResult:
        """Roll back the latest agent batch not yet rolled back (again: one further back).

        Batches whose files are all already as they were before them are passed over.
        """
        self.reload()
        reverted = self.reverted_ids()
        snaps = self.index.snapshots
        for k in range(len(snaps) - 1, -1, -1):
            s = snaps[k]
            if s.get("toolName") == RESTORE_TOOL or str(s.get("id")) in reverted:
                continue
            # A batch whose files are all already back as they were (undone by hand) is
            # passed over, or undo would stop there for ever.
            plan = self._plan(k, None, force)
            if plan and all(f.action == "unchanged" for f in plan):
                continue
            return self.rollback_from(k, dry_run=dry_run, force=force, op="undo")
        return RestoreResult("undo", dry_run, note="nothing to undo: no agent snapshot left")

    def redo(self, *, dry_run: bool = False, force: bool = False) -> RestoreResult:
        """Take back the latest ``sidtui-restore`` still in effect (not made by redo)."""
        self.reload()
        reverted = self.reverted_ids()
        snaps = self.index.snapshots
        for k in range(len(snaps) - 1, -1, -1):
            s = snaps[k]
            sid = str(s.get("id"))
            if s.get("toolName") != RESTORE_TOOL or sid in reverted:
                continue
            if s.get("sidtuiOp") == "redo" or s.get("sidtuiFailed"):
                continue
            return self.rollback_from(k, dry_run=dry_run, force=force, op="redo", reverts=[sid])
        return RestoreResult("redo", dry_run, note="nothing to redo")

    def undo_file(
        self, file_path: str, *, dry_run: bool = False, force: bool = False
    ) -> RestoreResult:
        """Roll back one file to before the latest agent batch that changed it."""
        self.reload()
        index = self.index
        if not index.entries_for(file_path):
            raise UsageError(f"{file_path} is not tracked in {self.index_path}")
        reverted = self.reverted_ids()
        undone_file: set[str] = set()
        for s in index.snapshots:
            if (
                s.get("sidtuiOp") == "undo-file"
                and s.get("sidtuiFile") == file_path
                and str(s.get("id")) not in reverted  # not taken back by redo
            ):
                undone_file.update(str(x) for x in s.get("sidtuiReverts") or [])
        for i, _ in reversed(index.entries_for(file_path)):
            s = index.snapshots[i]
            sid = str(s.get("id"))
            if s.get("toolName") == RESTORE_TOOL or sid in reverted or sid in undone_file:
                continue
            return self.rollback_from(
                i,
                dry_run=dry_run,
                force=force,
                paths=[file_path],
                op="undo-file",
                reverts=[sid],
                extra={"sidtuiFile": file_path},
            )
        return RestoreResult("undo-file", dry_run, note=f"nothing to undo for {file_path}")

    def restore_before(
        self, snapshot_id: str, *, dry_run: bool = False, force: bool = False
    ) -> RestoreResult:
        """Every file back to how it was before batch ``snapshot_id`` (``rollback_from``)."""
        self.reload()
        return self.rollback_from(
            self.position(snapshot_id), dry_run=dry_run, force=force, op="restore"
        )

    def rollback_to_time(
        self, t_ms: int, *, dry_run: bool = False, force: bool = False, op: str = "rewind"
    ) -> RestoreResult:
        """Files back to how they were at ``t_ms`` (first snapshot at or after it).

        No snapshot at or after ``t_ms`` ⇒ nothing to do (``note`` says so; files skipped).
        """
        self.reload()
        for k, s in enumerate(self.index.snapshots):
            ts = s.get("timestamp")
            if isinstance(ts, (int, float)) and ts >= t_ms:
                return self.rollback_from(k, dry_run=dry_run, force=force, op=op)
        return RestoreResult(op, dry_run, note="no file snapshot at or after that time")


def load_index(path: Path) -> CheckpointIndex:
    """Read an index (legacy migrated). Raises :class:`CorruptIndex`."""
    return CheckpointIndex.load(path)


__all__ = [
    "RESTORE_TOOL",
    "CheckpointError",
    "CheckpointManager",
    "CorruptIndex",
    "FileRestore",
    "RestoreResult",
    "SnapshotInfo",
    "confine",
]

"""The checkpoint manager: snapshots before a change and the one restore primitive (FORMAT.md §10).

:class:`CheckpointManager` (one per session) takes snapshots before a change and restores
files through one primitive, ``rollback_from(k)`` (undo, redo, undo a file, restore before a
snapshot, roll back to a time): a safety snapshot first, atomic writes, confinement to the
project root, unprovable pre-images skipped unless forced.

Design notes: docs/ARCHITECTURE.md, “core/checkpoints/manager.py”.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from sidtui.core.base.errors import SidtuiError, UsageError
from sidtui.core.base.home import Home
from sidtui.core.base.regular import NotRegularFile, read_regular
from sidtui.core.checkpoints.diff import compute_diff
from sidtui.core.checkpoints.drift import FileDrift, PostImage
from sidtui.core.checkpoints.evict import evict as run_eviction
from sidtui.core.checkpoints.index import (
    CheckpointIndex,
    CorruptIndex,
    encode_full,
)
from sidtui.core.checkpoints.rebuild import (
    FileChain,
    Rebuilt,
    chain_health,
    rebuild,
    rollback_target,
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
        return True, read_regular(real_path), None  # a FIFO would block a plain open
    except FileNotFoundError:
        return False, None, None
    except IsADirectoryError:
        return True, None, "is a directory"
    except NotRegularFile as exc:
        return True, None, "is a directory" if exc.kind == "a folder" else f"is {exc.kind}"
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
        real_path: the path written (symlinks resolved when planned).
        mode: permission bits to give the file (recorded by a safety snapshot), else None
            (an existing file keeps its own).
        drift: whether the file is still what this session left there
            (:class:`sidtui.core.checkpoints.drift.FileDrift`; None when not compared).
        existing_dirs: how many components of the file's folder existed when planned
            (the rest may be created; a vanished one is a refusal).
    """

    path: str
    action: str
    reason: str | None = None
    source_snapshot: str | None = None
    old: bytes | None = None
    new: bytes | None = None
    uncertain: bool = False
    real_path: str | None = None
    mode: int | None = None
    drift: FileDrift | None = None
    existing_dirs: int | None = None

    @property
    def drifted(self) -> bool:
        """Changed after this session and about to be replaced (needs ``force``)."""
        return self.drift is not None and self.drift.status == "changed"

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "action": self.action,
            "reason": self.reason,
            "sourceSnapshot": self.source_snapshot,
            "uncertain": self.uncertain,
            "oldBytes": None if self.old is None else len(self.old),
            "newBytes": None if self.new is None else len(self.new),
            "drift": None if self.drift is None else self.drift.status,
            "driftSource": None if self.drift is None else self.drift.source,
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
        root: the project root the writes were confined to (None: unknown), and
            root_refusal: why it is refused (then every file is skipped).
        resumed: this finished an interrupted operation of an earlier run (see
            :meth:`CheckpointManager.finish_journal`).
        journal_token: the journal's token (``sidtuiJournal`` of the safety snapshot),
            for a caller that keeps the journal for steps of its own.
    """

    op: str
    dry_run: bool
    from_position: int | None = None
    target_snapshot_id: str | None = None
    reverts: list[str] = field(default_factory=list)
    safety_snapshot_id: str | None = None
    files: list[FileRestore] = field(default_factory=list)
    note: str | None = None
    root: str | None = None
    root_refusal: str | None = None
    resumed: bool = False
    journal_token: str | None = None

    @property
    def changed(self) -> list[FileRestore]:
        return [f for f in self.files if f.action in ("restored", "deleted")]

    @property
    def skipped(self) -> list[FileRestore]:
        return [f for f in self.files if f.action == "skipped"]

    @property
    def drifted(self) -> list[FileRestore]:
        """Files changed after this session that the restore replaces (or would)."""
        return [f for f in self.files if f.drifted and f.action in ("restored", "deleted")]

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "dryRun": self.dry_run,
            "target": self.target_snapshot_id,
            "reverts": self.reverts,
            "safetySnapshot": self.safety_snapshot_id,
            "note": self.note,
            "root": self.root,
            "rootRefused": self.root_refusal,
            "resumed": self.resumed,
            "drift": [f.path for f in self.drifted],
            "files": [f.to_json() for f in self.files],
        }


class DriftRefused(CheckpointError):
    """Files changed after this session would be replaced; refused without ``force``.

    Attributes:
        result: the plan (a dry-run :class:`RestoreResult` naming the drifted files).
    """

    def __init__(self, message: str, result: RestoreResult) -> None:
        super().__init__(message)
        self.result = result


class InterruptedPending(CheckpointError):
    """An earlier run was killed mid-way; it must be finished first (exit 1)."""


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
        root_refusal: why ``project_root`` itself is refused
            (:func:`sidtui.core.base.home.project_root_for`); then every file is skipped
            unless ``allow_outside_root``.
        post_image: proves what the session's last batch left in a file, for the drift
            check (:class:`sidtui.core.edits.batches.BatchResults.post_image`); None
            leaves agent batches unproven.
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
        root_refusal: str | None = None,
        post_image: PostImage | None = None,
        max_per_file: int = MAX_ENTRIES_PER_FILE,
        max_total_bytes: int = MAX_TOTAL_BYTES,
        clock: Callable[[], int] = _now_ms,
    ) -> None:
        self.index_path = Path(index_path)
        self.session_id = session_id
        self.project_root = Path(project_root) if project_root is not None else None
        self.allow_outside_root = allow_outside_root
        self.root_refusal = None if allow_outside_root else root_refusal
        self.post_image = post_image
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
        return os.path.lexists(self.index_path)  # a symlink loop is there, unreadable

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
        if os.path.lexists(self.index_path):
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
        at or after it). The proof rule is restore's (:func:`rollback_target`): a state
        that cannot be proven (history evicted) is returned without content, ``uncertain``
        and with the reason — never another version's content. Raises
        :class:`UsageError` when there is neither an entry there nor after it.
        """
        k = self.position(snapshot_id)
        r, why = rollback_target(self.index, file_path, k)
        if r is None:
            raise UsageError(
                f"{file_path} has no entry at or after {snapshot_id}: its state then is "
                "the file on disk"
            )
        if why is not None:
            return Rebuilt(file_path, snapshot_id, k, r.exists, None, why, uncertain=True)
        return r

    # --- writing snapshots -----------------------------------------------------------

    def _entry_for(
        self, path: str, exists: bool, content: str | bytes | None, force: bool
    ) -> dict[str, Any] | None:
        if force:
            # A safety snapshot: a full (compressed above the threshold), never a diff of
            # the agent's format, whose keep ops hold every kept line verbatim and
            # uncompressed (docs/DECISIONS.md, "Writes on a hostile disk").
            if not exists:
                return {
                    "filePath": path,
                    "existedBefore": False,
                    "type": "full",
                    "content": "",
                    "compressed": False,
                }
            assert content is not None
            return {"filePath": path, "existedBefore": True, "type": "full", **encode_full(content)}
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

    def _new_result(self, op: str, dry_run: bool, **kw: Any) -> RestoreResult:
        root = str(self.project_root) if self.project_root is not None else None
        return RestoreResult(op, dry_run, root=root, root_refusal=self.root_refusal, **kw)

    def _plan(
        self, k: int, paths: Sequence[str] | None, force: bool, drift: bool = True
    ) -> list[FileRestore]:
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
            if self.root_refusal is not None:
                fr.reason = (
                    f"refused: the project root is refused ({self.root_refusal}; "
                    "--allow-outside-root writes anyway)"
                )
                plan.append(fr)
                continue
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
            fr.mode = _recorded_mode(snaps[target.position], p)
            fr.existing_dirs = _existing_components(os.path.dirname(real))
            if not target.exists:
                fr.action = "deleted" if exists else "unchanged"
            elif exists and cur == new:
                fr.action = "unchanged"
            else:
                fr.action = "restored"
            if drift and fr.action != "unchanged":
                from sidtui.core.checkpoints.drift import drift_of, expected_now

                fr.drift = drift_of(expected_now(index, p, self.post_image), p, cur)
            plan.append(fr)
        return plan

    def file_drift(self, paths: Sequence[str] | None = None) -> list[FileDrift]:
        """Whether each tracked file (or each of ``paths``) is still what this session last
        left there (:mod:`sidtui.core.checkpoints.drift`), for previews.

        Returns:
            One :class:`~sidtui.core.checkpoints.drift.FileDrift` per file (a file outside
            the project root or unreadable is ``unknown``).
        """
        from sidtui.core.checkpoints.drift import UNKNOWN, drift_of, expected_now

        out: list[FileDrift] = []
        for p in paths if paths is not None else self.index.tracked_files():
            reason, real = confine(p, self.project_root, self.allow_outside_root)
            if reason is not None:
                out.append(FileDrift(p, UNKNOWN, f"not checked: {reason}"))
                continue
            _exists, cur, err = read_current(real)
            if err is not None:
                out.append(FileDrift(p, UNKNOWN, f"not checked: {err}"))
                continue
            out.append(drift_of(expected_now(self.index, p, self.post_image), p, cur))
        return out

    # --- the journal of an interrupted run --------------------------------------------

    @property
    def journal(self) -> dict[str, Any] | None:
        """The pending journal of an interrupted run (None when there is none)."""
        from sidtui.core.checkpoints.journal import read_journal

        return read_journal(self.index_path.parent)

    def require_no_journal(self) -> None:
        """Raises :class:`InterruptedPending` when an interrupted run is not finished."""
        j = self.journal
        if j is not None:
            raise InterruptedPending(
                f"an interrupted sidtui {j.get('op', 'operation')} (process {j.get('pid')}) "
                f"left {self.index_path.parent / 'sidtui-journal.json'}; finish it first "
                "(any sidtui undo/redo/restore/rewind of this session does)"
            )

    def finish_journal(self, journal: dict[str, Any], *, dry_run: bool = False) -> RestoreResult:
        """Write the files an interrupted run meant to write (no new safety snapshot).

        Args:
            journal: from :attr:`journal` (its ``restore`` part is used).
            dry_run: report what would be written.

        Returns:
            A :class:`RestoreResult` with ``resumed`` set; ``safety_snapshot_id`` None means
            the run died before its safety snapshot, so it changed no file (its journal can
            be dropped).
        """
        from sidtui.core.checkpoints.journal import safety_position

        self.reload()
        part = journal.get("restore")
        op = str(journal.get("op") or "restore")
        result = self._new_result(op, dry_run, resumed=True)
        if not isinstance(part, dict):
            return result
        pos = safety_position(self.index, str(journal.get("token")))
        if pos < 0:
            result.note = f"the interrupted {op} had not changed any file"
            return result
        k = self.index.index_of(str(part.get("from")))
        paths = part.get("paths")
        if k < 0 or k >= pos or not isinstance(paths, list):
            result.note = f"the interrupted {op}'s journal does not match the index; left alone"
            return result
        result.safety_snapshot_id = str(self.index.snapshots[pos].get("id"))
        result.from_position = k
        result.target_snapshot_id = str(self.index.snapshots[k].get("id"))
        result.reverts = [str(x) for x in part.get("reverts") or []]
        result.files = self._plan(k, [str(p) for p in paths], True, drift=False)
        if not dry_run:
            self._write_files([f for f in result.files if f.action in ("restored", "deleted")])
            self._clean_temps(result.files)
        return result

    def _clean_temps(self, files: Sequence[FileRestore]) -> None:
        """Remove temp files killed runs left beside ``files`` and the index."""
        from sidtui.core.base.safefs import remove_stale_temps

        by_dir: dict[str, set[str]] = {}
        for f in files:
            real = f.real_path or f.path
            by_dir.setdefault(os.path.dirname(real), set()).add(os.path.basename(real))
        for folder, names in by_dir.items():
            remove_stale_temps(folder, names)
        remove_stale_temps(self.index_path.parent)

    def _write_files(self, todo: Sequence[FileRestore]) -> None:
        """Write or delete every file of ``todo`` through :mod:`sidtui.core.base.safefs`:
        folders reached without following symlinks, so a folder swapped since the plan
        cannot redirect a write (the file is skipped, saying so)."""
        from sidtui.core.base import safefs

        fds: dict[str, int] = {}
        try:
            for f in todo:
                real = f.real_path or f.path
                folder, name = os.path.split(real)
                try:
                    dfd = fds.get(folder)
                    if dfd is None:
                        dfd = fds[folder] = safefs.open_dir(folder, create_below=f.existing_dirs)
                    if f.action == "deleted":
                        safefs.unlink_at(dfd, name, where=real)
                    else:
                        assert f.new is not None
                        safefs.replace_at(dfd, name, f.new, f.mode, where=real)
                except safefs.UnsafePath as exc:
                    f.reason = f"write refused: {exc}"
                    f.action = "skipped"
                except OSError as exc:
                    f.reason = f"write failed: {exc.strerror or exc}"
                    f.action = "skipped"
        finally:
            for dfd in fds.values():
                os.close(dfd)

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
        journal_extra: dict[str, Any] | None = None,
        keep_journal: bool = False,
    ) -> RestoreResult:
        """Put every file in ``snapshots[k:]`` back to its pre-image at its earliest entry there.

        Args:
            k: snapshot position (0 ≤ k < len(snapshots)).
            dry_run: compute and return the plan (with old/new bytes), write nothing.
            force: also restore files whose pre-image is uncertain, and files changed
                after this session (drift, :mod:`sidtui.core.checkpoints.drift`).
            paths: only these files.
            op: label recorded as ``sidtuiOp`` in the safety snapshot.
            reverts: ids recorded as ``sidtuiReverts`` (default: ``snapshots[k:]``).
            extra: more fields for the safety snapshot.
            journal_extra: more parts for the journal (a rewind's ``marker``).
            keep_journal: leave the journal for the caller to remove after its own steps.

        Returns:
            A :class:`RestoreResult`.

        Raises:
            UsageError: ``k`` out of range. CorruptIndex: unreadable index.
            DriftRefused: files changed after this session would be replaced, without
                ``force`` (nothing written).
            InterruptedPending: an interrupted run is not finished (nothing written).
            CheckpointError: the journal or safety snapshot cannot be saved (then nothing
                is written).
        """
        self.reload()
        snaps = self.index.snapshots
        if not 0 <= k < len(snaps):
            raise UsageError(f"snapshot position {k} out of range (0..{len(snaps) - 1})")
        if not dry_run and not _continues(self.journal, journal_extra):
            self.require_no_journal()
        ids = [str(s.get("id")) for s in snaps[k:]] if reverts is None else list(reverts)
        result = self._new_result(
            op, dry_run, from_position=k, target_snapshot_id=str(snaps[k].get("id")), reverts=ids
        )
        result.files = self._plan(k, paths, force)
        todo = [f for f in result.files if f.action in ("restored", "deleted")]
        if dry_run or not todo:
            if not todo and not dry_run:
                n = len(result.skipped)
                result.note = (
                    f"nothing was changed: {n} file{'s' * (n != 1)} could not be restored "
                    "(skipped; the others are already as they were)"
                    if n
                    else "nothing to change: every file is already as it was"
                )
            return result
        if result.drifted and not force:
            raise DriftRefused(_drift_message(result), result)
        import secrets

        from sidtui.core.checkpoints.drift import digest
        from sidtui.core.checkpoints.journal import remove_journal, write_journal

        token = result.journal_token = secrets.token_hex(8)
        folder = self.index_path.parent
        try:
            write_journal(
                folder,
                {
                    "op": op,
                    "token": token,
                    "root": str(self.project_root) if self.project_root else None,
                    "allowOutsideRoot": self.allow_outside_root,
                    "restore": {
                        "from": str(snaps[k].get("id")),
                        "paths": [f.path for f in todo],
                        "reverts": ids,
                    },
                    **(journal_extra or {}),
                },
            )
        except (OSError, SidtuiError) as exc:
            raise CheckpointError(
                f"cannot write the journal in {folder} ({getattr(exc, 'strerror', None) or exc}); "
                "no file was changed"
            ) from None
        # Nothing is lost: the current contents go into the index before any file changes.
        summary = f"sidtui {op}: revert {', '.join(ids[:5])}{' …' if len(ids) > 5 else ''}"
        modes = {f.path: m for f in todo if (m := _current_mode(f.real_path or f.path)) is not None}
        try:
            safety = self.create_snapshot(
                [f.path for f in todo],
                RESTORE_TOOL,
                summary,
                contents={f.path: f.old for f in todo},
                extra={
                    "sidtuiReverts": ids,
                    "sidtuiOp": op,
                    "sidtuiJournal": token,
                    "sidtuiModes": modes,
                    "sidtuiTargets": {
                        f.path: digest(f.new if f.action == "restored" else None) for f in todo
                    },
                    **(extra or {}),
                },
                force_entries=True,
                evict=False,
            )
        except (OSError, SidtuiError) as exc:
            remove_journal(folder)
            raise CheckpointError(
                f"cannot save the safety snapshot to {self.index_path} "
                f"({getattr(exc, 'strerror', None) or exc}); no file was changed"
            ) from None
        result.safety_snapshot_id = safety
        self._write_files(todo)
        if all(f.action == "skipped" for f in todo):
            # Every write failed: the safety snapshot stays (append-only) but is marked so
            # it does not count as having reverted anything, and there is nothing to redo.
            self.reload()
            pos = self.index.index_of(safety) if safety is not None else -1
            if pos >= 0:
                self.index.snapshots[pos]["sidtuiFailed"] = True
                self.index.invalidate()
                try:
                    self.save()
                except OSError:
                    pass
            result.safety_snapshot_id = None
            result.note = "no file could be written; nothing was changed"
            keep_journal = False
        self._clean_temps(result.files)
        if not keep_journal:
            remove_journal(folder)
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
            plan = self._plan(k, None, force, drift=False)
            if plan and all(f.action == "unchanged" for f in plan):
                continue
            return self.rollback_from(k, dry_run=dry_run, force=force, op="undo")
        return self._new_result("undo", dry_run, note="nothing to undo: no agent snapshot left")

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
        return self._new_result("redo", dry_run, note="nothing to redo")

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
        return self._new_result("undo-file", dry_run, note=f"nothing to undo for {file_path}")

    def restore_before(
        self, snapshot_id: str, *, dry_run: bool = False, force: bool = False
    ) -> RestoreResult:
        """Every file back to how it was before batch ``snapshot_id`` (``rollback_from``)."""
        self.reload()
        return self.rollback_from(
            self.position(snapshot_id), dry_run=dry_run, force=force, op="restore"
        )

    def rollback_to_time(
        self,
        t_ms: int,
        *,
        dry_run: bool = False,
        force: bool = False,
        op: str = "rewind",
        journal_extra: dict[str, Any] | None = None,
        keep_journal: bool = False,
    ) -> RestoreResult:
        """Files back to how they were at ``t_ms`` (first snapshot at or after it).

        No snapshot at or after ``t_ms`` ⇒ nothing to do (``note`` says so; files skipped).
        """
        self.reload()
        for k, s in enumerate(self.index.snapshots):
            ts = s.get("timestamp")
            if isinstance(ts, (int, float)) and ts >= t_ms:
                return self.rollback_from(
                    k,
                    dry_run=dry_run,
                    force=force,
                    op=op,
                    journal_extra=journal_extra,
                    keep_journal=keep_journal,
                )
        return self._new_result(op, dry_run, note="no file snapshot at or after that time")


def _continues(pending: dict[str, Any] | None, journal_extra: dict[str, Any] | None) -> bool:
    """Whether the pending journal is the caller's own (a fork's, whose file step this is)."""
    if pending is None or not journal_extra:
        return False
    mine, theirs = journal_extra.get("fork"), pending.get("fork")
    return (
        isinstance(mine, dict)
        and isinstance(theirs, dict)
        and mine.get("temp") == theirs.get("temp")
    )


def _drift_message(result: RestoreResult) -> str:
    from sidtui.core.checkpoints.drift import DRIFT_WORDING

    names = [f.path for f in result.drifted]
    shown = ", ".join(names[:8]) + (f", … ({len(names) - 8} more)" if len(names) > 8 else "")
    return (
        f"{len(names)} file(s) {DRIFT_WORDING}: {shown}; nothing was changed — "
        "use --force to replace them (--dry-run shows the diffs)"
    )


def _recorded_mode(snapshot: dict[str, Any], path: str) -> int | None:
    """The permission bits a safety snapshot recorded for ``path`` (None: not recorded)."""
    modes = snapshot.get("sidtuiModes")
    m = modes.get(path) if isinstance(modes, dict) else None
    return m & 0o7777 if isinstance(m, int) and not isinstance(m, bool) else None


def _current_mode(real_path: str) -> int | None:
    try:
        st = os.lstat(real_path)
    except OSError:
        return None
    return st.st_mode & 0o7777 if stat.S_ISREG(st.st_mode) else None


def _existing_components(folder: str) -> int:
    """How many leading components of the absolute ``folder`` exist now."""
    parts = [c for c in os.path.normpath(folder).split(os.sep) if c]
    n = len(parts)
    while n > 0 and not os.path.isdir(os.sep + os.sep.join(parts[:n])):
        n -= 1
    return n


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

"""The checkpoint manager: snapshots before a change and the one restore primitive (FORMAT.md §10).

:class:`CheckpointManager` (one per session) takes snapshots before a change and restores
files through one primitive, ``rollback_from(k)`` (undo, redo, undo a file, restore before a
snapshot, roll back to a time): a safety snapshot first, atomic writes, confinement to the
project root, unprovable pre-images skipped unless forced.

Design notes: docs/ARCHITECTURE.md, “core/checkpoints/manager.py”.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sidtui.core.base.errors import SidtuiError, UsageError
from sidtui.core.base.home import Home
from sidtui.core.checkpoints.diff import compute_diff
from sidtui.core.checkpoints.drift import (
    UNKNOWN,
    FileDrift,
    PostImage,
    digest,
    drift_of,
    expected_now,
)
from sidtui.core.checkpoints.evict import evict as run_eviction
from sidtui.core.checkpoints.index import (
    CheckpointIndex,
    encode_full,
)
from sidtui.core.checkpoints.journal import (
    foreign_refusal,
    read_journal,
    remove_journal,
    safety_position,
    write_journal,
)
from sidtui.core.checkpoints.rebuild import (
    FileChain,
    Rebuilt,
    chain_health,
    rebuild,
    rollback_target,
)
from sidtui.core.checkpoints.restore import (
    CheckpointError,
    DriftRefused,
    FileRestore,
    InterruptedPending,
    RestoreResult,
    clean_temps,
    confine,
    content_of,
    drift_message,
    mark_unfinished,
    plan_files,
    read_current,
    write_files,
)

RESTORE_TOOL = "sidtui-restore"
MAX_ENTRIES_PER_FILE = 50
MAX_TOTAL_BYTES = 200 * 1024 * 1024


def known_ids(ids: list[str]) -> str:
    """Snapshot ids for an error line: all of a few (``s1, s2``); ids numbered ``s1``…
    ``sN`` as runs (``s1–s18``; with gaps left by eviction ``s1, s3, s5–s18``; of more than
    six runs the first three and the last two, ``…`` between, and the count); other ids of
    many, the first and last and the count (``a1 … z9, 14 snapshots``). ``"none"`` for no
    ids."""
    if not ids:
        return "none"
    if all(i[:1] == "s" and i[1:].isdigit() for i in ids):
        runs: list[list[int]] = []
        for n in (int(i[1:]) for i in ids):
            if runs and n == runs[-1][1] + 1:
                runs[-1][1] = n
            else:
                runs.append([n, n])
        parts = [
            f"s{a}" if a == b else (f"s{a}, s{b}" if b == a + 1 else f"s{a}–s{b}") for a, b in runs
        ]
        if len(parts) <= 6:
            return ", ".join(parts)
        return f"{', '.join(parts[:3])}, …, {', '.join(parts[-2:])} ({len(ids)} snapshots)"
    if len(ids) <= 6:
        return ", ".join(ids)
    return f"{ids[0]} … {ids[-1]}, {len(ids)} snapshots"


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
            (:func:`sidtui.core.base.project.project_root_for`); then every file is skipped
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
            known = known_ids([str(s.get("id")) for s in self.index.snapshots])
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
                exists, data, err, _mode, _st = read_current(os.path.realpath(path))
                if err is not None:
                    continue  # a directory or unreadable file cannot be snapshotted
            content = content_of(data) if data is not None else None
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
        return plan_files(
            self.index,
            k,
            paths,
            force=force,
            drift=drift,
            project_root=self.project_root,
            allow_outside_root=self.allow_outside_root,
            root_refusal=self.root_refusal,
            post_image=self.post_image,
        )

    def file_drift(self, paths: Sequence[str] | None = None) -> list[FileDrift]:
        """Whether each tracked file (or each of ``paths``) is still what this session last
        left there (:mod:`sidtui.core.checkpoints.drift`), for previews.

        Returns:
            One :class:`~sidtui.core.checkpoints.drift.FileDrift` per file (a file outside
            the project root or unreadable is ``unknown``).
        """
        out: list[FileDrift] = []
        for p in paths if paths is not None else self.index.tracked_files():
            reason, real = confine(p, self.project_root, self.allow_outside_root)
            if reason is not None:
                out.append(FileDrift(p, UNKNOWN, f"not checked: {reason}"))
                continue
            _exists, cur, err, _mode, _st = read_current(real)
            if err is not None:
                out.append(FileDrift(p, UNKNOWN, f"not checked: {err}"))
                continue
            out.append(drift_of(expected_now(self.index, p, self.post_image), p, cur))
        return out

    # --- the journal of an interrupted run --------------------------------------------

    @property
    def journal(self) -> dict[str, Any] | None:
        """The pending journal of an interrupted run (None when there is none)."""
        return read_journal(self.index_path.parent)

    def require_no_journal(self) -> None:
        """Raises :class:`InterruptedPending` when an interrupted run is not finished."""
        j = self.journal
        if j is not None and (foreign := foreign_refusal(j)) is not None:
            raise InterruptedPending(foreign)
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
            the run changed no file (its journal can be dropped): with ``note`` None it died
            before its safety snapshot; ``note`` says any other reason.
        """
        self.reload()
        part = journal.get("restore")
        op = str(journal.get("op") or "restore")
        result = self._new_result(op, dry_run, resumed=True)
        if not isinstance(part, dict):
            return result
        pos = safety_position(self.index, str(journal.get("token")))
        if pos < 0:  # died before its safety snapshot: no file was written (the caller says so)
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
            write_files([f for f in result.files if f.action in ("restored", "deleted")])
            clean_temps(result.files, self.index_path.parent)
            mark_unfinished(result, self.session_id)
        return result

    def _begin_journal(
        self,
        op: str,
        k: int,
        ids: list[str],
        todo: Sequence[FileRestore],
        journal_extra: dict[str, Any] | None,
    ) -> str:
        """Write the journal of a restore about to start; returns its token.

        Raises:
            CheckpointError: it cannot be written (no file was changed).
        """
        token = secrets.token_hex(8)
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
                        "from": str(self.index.snapshots[k].get("id")),
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
        return token

    def save_safety(
        self,
        op: str,
        ids: list[str],
        todo: Sequence[FileRestore],
        token: str,
        extra: dict[str, Any] | None = None,
        *,
        summary: str | None = None,
        message_id: str | None = None,
        tags: dict[str, Any] | None = None,
    ) -> str | None:
        """Append the safety snapshot (the files' current contents) before any file changes:
        every source's restore engine saves it here (one safety snapshot per write).

        Args:
            op, ids, todo, token: the operation, what it reverts, its files, its journal.
            extra: more keys after the common ones. summary, message_id: the snapshot's
                (default: ``sidtui OP: revert IDS``). tags: keys naming where the restore
                comes from, after ``sidtuiOp``.

        Raises:
            CheckpointError: it cannot be saved (the journal is removed; no file was changed).
        """
        # Nothing is lost: the current contents go into the index before any file changes.
        if summary is None:
            summary = f"sidtui {op}: revert {', '.join(ids[:5])}{' …' if len(ids) > 5 else ''}"
        modes = {f.path: f.old_mode for f in todo if f.old_mode is not None}
        try:
            safety = self.create_snapshot(
                [f.path for f in todo],
                RESTORE_TOOL,
                summary,
                message_id=message_id,
                contents={f.path: f.old for f in todo},
                extra={
                    "sidtuiReverts": ids,
                    "sidtuiOp": op,
                    **(tags or {}),
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
            remove_journal(self.index_path.parent)
            raise CheckpointError(
                f"cannot save the safety snapshot to {self.index_path} "
                f"({getattr(exc, 'strerror', None) or exc}); no file was changed"
            ) from None
        return safety

    def mark_failed(self, safety: str | None) -> None:
        """Every write failed: the safety snapshot stays (append-only) but is marked so it
        does not count as having reverted anything, and there is nothing to redo."""
        self.reload()
        pos = self.index.index_of(safety) if safety is not None else -1
        if pos >= 0:
            self.index.snapshots[pos]["sidtuiFailed"] = True
            self.index.invalidate()
            try:
                self.save()
            except OSError:
                pass

    def drop_unwritten(self, safety: str | None, files: Sequence[FileRestore]) -> None:
        """Take the files of ``files`` that were never replaced (:attr:`FileRestore.raced`:
        saved by someone between the plan and the write) out of the safety snapshot
        ``safety``, so ``redo`` leaves them as they are (their ``latestFullMap`` goes back
        to their previous full entry). A failed save leaves it (redo then sees drift)."""
        paths = {f.path for f in files if f.raced}
        if not paths or safety is None:
            return  # the common case: no index read
        self.reload()
        pos = self.index.index_of(safety)
        if pos < 0:
            return
        snap = self.index.snapshots[pos]
        snap["files"] = [
            e
            for e in snap.get("files") or []
            if not (isinstance(e, dict) and e.get("filePath") in paths)
        ]
        for key in ("sidtuiModes", "sidtuiTargets"):
            if isinstance(part := snap.get(key), dict):
                for p in paths:
                    part.pop(p, None)
        self.index.invalidate()
        lfm = self.index.data.get("latestFullMap")
        if isinstance(lfm, dict):
            for p in paths:
                fulls = [i for i, e in self.index.entries_for(p) if e.get("type") == "full"]
                if fulls:
                    lfm[p] = self.index.snapshots[fulls[-1]].get("id")
                else:
                    lfm.pop(p, None)
        try:
            self.save()
        except OSError:
            pass

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
        if dry_run and result.drifted and not force:
            result.refusal = drift_message(result)  # what the real run raises below
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
            raise DriftRefused(drift_message(result), result)
        folder = self.index_path.parent
        token = result.journal_token = self._begin_journal(op, k, ids, todo, journal_extra)
        safety = self.save_safety(op, ids, todo, token, extra)
        result.safety_snapshot_id = safety
        write_files(todo)
        self.drop_unwritten(safety, todo)  # saved meanwhile: kept as they are
        if all(f.action == "skipped" for f in todo):
            self.mark_failed(safety)
            result.safety_snapshot_id = None
            result.note = "no file could be written; nothing was changed"
            keep_journal = False
        elif mark_unfinished(result, self.session_id):  # some written: finished next time
            keep_journal = True
        clean_temps(result.files, self.index_path.parent)
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


def load_index(path: Path) -> CheckpointIndex:
    """Read an index (legacy migrated). Raises :class:`CorruptIndex`."""
    return CheckpointIndex.load(path)


__all__ = ["RESTORE_TOOL", "CheckpointManager", "SnapshotInfo", "load_index"]

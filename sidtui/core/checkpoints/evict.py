"""Checkpoint eviction with re-anchoring, 30-day cleanup and fork inheritance (FORMAT.md §10.9–10.11).

:func:`evict` keeps each file's chain rebuildable (a base about to go is re-anchored first);
:func:`cleanup_old_sessions` never removes a protected session's folder; :func:`inherit_from`
copies a source's index into a fork's empty one.

Design notes: docs/ARCHITECTURE.md, “core/checkpoints/evict.py”.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sidtui.core.base.home import Home
from sidtui.core.base.jsonout import stringify_pretty
from sidtui.core.base.words import plural
from sidtui.core.checkpoints.index import (
    CheckpointIndex,
    CorruptIndex,
    encode_full,
    utf16_len,
)
from sidtui.core.checkpoints.rebuild import rebuild

MIN_KEEP = 11  # /checkpoints shows 10 + /undo needs 1 (FORMAT.md §10.9)
LOOP_GUARD = 100_000
MAX_AGE_MS = 30 * 24 * 3600 * 1000


@dataclass
class EvictionReport:
    """What eviction did.

    Attributes:
        removed: ``(snapshot id, file path)`` entries dropped.
        removed_snapshots: snapshot ids removed whole (emptied or by size).
        reanchored: ``(snapshot id, file path)`` diffs rewritten as fulls.
        stopped: ``(file path, reason)`` where re-anchoring failed and eviction stopped.
        over_quota: the index is still above ``max_total_bytes``.
    """

    removed: list[tuple[str, str]] = field(default_factory=list)
    removed_snapshots: list[str] = field(default_factory=list)
    reanchored: list[tuple[str, str]] = field(default_factory=list)
    stopped: list[tuple[str, str]] = field(default_factory=list)
    over_quota: bool = False


def reanchor(index: CheckpointIndex, file_path: str, position: int) -> bool:
    """Rewrite ``file_path``'s entry in snapshot ``position`` as a full (same content).

    Returns:
        True when it is (now) a full; False when its content cannot be rebuilt.
    """
    entry = index.entry_at(file_path, position)
    if entry is None:
        return False
    if entry.get("type") == "full":
        return True
    r = rebuild(index, file_path, position)
    if not r.recoverable or r.content is None:
        return False
    new = {
        "filePath": file_path,
        "existedBefore": entry.get("existedBefore") is not False,
        "type": "full",
        **encode_full(r.content),
    }
    files = index.snapshots[position]["files"]
    for n, e in enumerate(files):
        if e is entry:
            files[n] = new
    index.invalidate()
    return True


def _refresh_latest_full(index: CheckpointIndex, paths: Iterable[str]) -> None:
    lfm = index.data.get("latestFullMap")
    if not isinstance(lfm, dict):
        return
    for p in paths:
        latest = None
        for i, e in index.entries_for(p):
            if e.get("type") == "full":
                latest = index.snapshots[i].get("id")
        if latest is None:
            lfm.pop(p, None)
        else:
            lfm[p] = latest


def _drop_entry(
    index: CheckpointIndex, file_path: str, position: int, report: EvictionReport
) -> None:
    snap = index.snapshots[position]
    snap["files"] = [e for e in snap.get("files") or [] if e.get("filePath") != file_path]
    report.removed.append((str(snap.get("id")), file_path))
    if not snap["files"]:
        del index.snapshots[position]
        report.removed_snapshots.append(str(snap.get("id")))
    index.invalidate()


def _reanchor_next(
    index: CheckpointIndex, file_path: str, oldest_pos: int, report: EvictionReport
) -> bool:
    """Before dropping ``file_path``'s full at ``oldest_pos``: make its next entry a full."""
    entries = index.entries_for(file_path)
    nxt = next(((i, e) for i, e in entries if i > oldest_pos), None)
    if nxt is None or nxt[1].get("type") == "full":
        return True
    if not reanchor(index, file_path, nxt[0]):
        report.stopped.append(
            (
                file_path,
                f"cannot re-anchor {index.snapshots[nxt[0]].get('id')}: it does not rebuild",
            )
        )
        return False
    report.reanchored.append((str(index.snapshots[nxt[0]].get("id")), file_path))
    return True


def evict_per_file(index: CheckpointIndex, max_per_file: int, report: EvictionReport) -> None:
    """At most ``max_per_file`` entries per file (FORMAT.md §10.9, the agent's ``evictPerFile``)."""
    for path in index.tracked_files():
        guard = 0
        while len(index.entries_for(path)) > max_per_file:
            guard += 1
            if guard > LOOP_GUARD:
                break
            pos, oldest = index.entries_for(path)[0]
            if oldest.get("type") == "full" and not _reanchor_next(index, path, pos, report):
                break
            _drop_entry(index, path, pos, report)
        _refresh_latest_full(index, [path])


def _snapshot_size(snap: dict[str, Any]) -> int:
    text = stringify_pretty(snap, 2)
    # Inside "snapshots" every line is indented 4 more, plus the ",\n    " separator.
    return utf16_len(text) + text.count("\n") * 4 + 6


def evict_by_size(index: CheckpointIndex, max_total_bytes: int, report: EvictionReport) -> None:
    """Oldest snapshots out while over ``max_total_bytes``, keeping ≥ MIN_KEEP (``evictBySize``)."""
    size = index.serialized_size()
    guard = 0
    while size > max_total_bytes and len(index.snapshots) > MIN_KEEP:
        guard += 1
        if guard > LOOP_GUARD:
            break
        oldest = index.snapshots[0]
        ok = True
        touched = []
        for e in list(oldest.get("files") or []):
            path = e.get("filePath")
            if not isinstance(path, str):
                continue
            touched.append(path)
            if e.get("type") == "full":
                nxt = next((i for i, _ in index.entries_for(path) if i > 0), None)
                before = _snapshot_size(index.snapshots[nxt]) if nxt is not None else 0
                if not _reanchor_next(index, path, 0, report):
                    ok = False
                    break
                if nxt is not None:
                    size += _snapshot_size(index.snapshots[nxt]) - before
        if not ok:
            break
        size -= _snapshot_size(oldest)
        del index.snapshots[0]
        index.invalidate()
        report.removed_snapshots.append(str(oldest.get("id")))
        report.removed.extend((str(oldest.get("id")), p) for p in touched)
        _refresh_latest_full(index, touched)
    report.over_quota = index.serialized_size() > max_total_bytes


def evict(index: CheckpointIndex, max_per_file: int, max_total_bytes: int) -> EvictionReport:
    """Per-file then size eviction; see the module docstring."""
    report = EvictionReport()
    evict_per_file(index, max_per_file, report)
    evict_by_size(index, max_total_bytes, report)
    return report


def cleanup_old_sessions(
    home: Home, protect: Iterable[str], now_ms: int, max_age_ms: int = MAX_AGE_MS
) -> list[str]:
    """Remove checkpoint folders not written for ``max_age_ms`` (default 30 days).

    Args:
        home: the home.
        protect: session ids never removed (the one resumed or viewed, live sessions).
        now_ms: the current time in ms.

    Returns:
        The session ids whose folders were removed.
    """
    keep = set(protect)
    removed: list[str] = []
    try:
        entries = sorted(os.scandir(home.checkpoints_dir), key=lambda e: e.name)
    except OSError:
        return removed
    for e in entries:
        if e.name in keep or not e.is_dir(follow_symlinks=False):
            continue
        idx = os.path.join(e.path, "index.json")
        try:
            mtime = os.stat(idx).st_mtime if os.path.exists(idx) else e.stat().st_mtime
        except OSError:
            continue
        if now_ms - mtime * 1000 > max_age_ms:
            shutil.rmtree(e.path, ignore_errors=True)
            removed.append(e.name)
    return removed


@dataclass
class InheritResult:
    """Outcome of :func:`inherit_from`: snapshots copied and a warning (None when fine)."""

    copied: int
    warning: str | None = None


def inherit_from(
    home: Home,
    src_id: str,
    dst_id: str,
    now_ms: int,
    before_ms: int | None = None,
    dry_run: bool = False,
    leave_out: str | None = None,
) -> InheritResult:
    """Copy ``src_id``'s checkpoints into ``dst_id``'s empty index (fork, FORMAT.md §10.11).

    Args:
        before_ms: [sidtui] for a fork at a rewind point, only snapshots taken before that
            time (ms) are inherited: later batches changed files the fork's history never
            touched, and undoing them from the fork would be wrong. ``latestFullMap`` is
            recomputed from what is kept.
        dry_run: count what would be inherited, write nothing (a fork's dry run).
        leave_out: [sidtui] the token of the source's pending journal: its safety snapshot
            (``sidtuiJournal``) is left out, so the child's history is the source's before
            the killed run (the journal stays with the source).

    Never raises for a bad source: the child keeps an empty history and gets a warning.
    """
    if not src_id or src_id == dst_id:
        return InheritResult(0)
    dst_path = home.checkpoint_index(dst_id)
    try:
        if dst_path.exists():
            dst = CheckpointIndex.load(dst_path)
            if dst.snapshots:
                return InheritResult(
                    0,
                    f"inheritance skipped: {dst_id} already has {plural(len(dst.snapshots), 'snapshot')} "
                    "(no insertion into an existing history)",
                )
        src_path = home.checkpoint_index(src_id)
        if not src_path.exists():
            return InheritResult(0)
        # Parsed afresh from the parent's bytes: a deep copy by construction.
        src = CheckpointIndex.load(src_path)
        snaps = src.snapshots
        next_id = src.data.get("nextId")
        if not isinstance(next_id, int) or isinstance(next_id, bool):
            next_id = len(snaps) + 1
        lfm = src.data.get("latestFullMap")
        kept = [
            s
            for s in snaps
            if (leave_out is None or s.get("sidtuiJournal") != leave_out)
            and (
                before_ms is None
                or (isinstance(s.get("timestamp"), (int, float)) and s["timestamp"] < before_ms)
            )
        ]
        if before_ms is not None or len(kept) != len(snaps):
            snaps = kept
            lfm = {}
            for s in snaps:
                for e in s.get("files") or []:
                    if (
                        isinstance(e, dict)
                        and e.get("type") == "full"
                        and isinstance(e.get("filePath"), str)
                    ):
                        lfm[e["filePath"]] = s.get("id")
        if dry_run:
            return InheritResult(len(snaps))
        child = CheckpointIndex(
            {
                "sessionId": dst_id,
                "createdAt": src.data.get("createdAt", now_ms),
                "nextId": next_id,
                "snapshots": snaps,
                "latestFullMap": lfm if isinstance(lfm, dict) else {},
            },
            False,
            dst_path,
        )
        child.write(dst_path)
        return InheritResult(len(snaps))
    except (CorruptIndex, OSError) as exc:
        return InheritResult(
            0, f"checkpoint inheritance failed ({exc}); the fork starts with no file history"
        )

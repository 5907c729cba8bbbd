"""Checkpoint totals and sessions vs indexes for ``sidtui check`` (FORMAT.md §13.4, §13.5).

:func:`checkpoint_totals` counts every index through the checkpoint layer's own reader;
:func:`coverage` sets each side against its own denominator, with the reasons they differ.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from sidtui.core.base.home import Home
from sidtui.core.checkpoints.index import CheckpointIndex, CorruptIndex
from sidtui.core.checkpoints.manager import RESTORE_TOOL
from sidtui.core.checkpoints.rebuild import chain_health
from sidtui.core.views.check_report import CheckReport, Finding


def checkpoint_totals(home: Home, wanted: set[str] | None, report: CheckReport) -> None:
    """Checkpoint totals (FORMAT.md §13.4) through the checkpoint layer's own reader."""
    tot = report.checkpoints
    try:
        with os.scandir(home.checkpoints_dir) as it:
            dirs = sorted((e.name for e in it if e.is_dir()), key=str)
    except OSError:
        dirs = []
    for sid in dirs:
        if wanted is not None and sid not in wanted:
            continue
        path = home.checkpoint_index(sid)
        if not os.path.lexists(path):  # (a FIFO or a link loop there is unreadable: a fault)
            report.warnings.append(
                Finding("checkpoint_without_index", str(path.parent), "folder has no index.json")
            )
            continue
        try:
            size = path.stat().st_size
            idx = CheckpointIndex.load(path)
        except (CorruptIndex, OSError) as exc:
            tot.unreadable += 1
            report.faults.append(Finding("checkpoint_index_unreadable", str(path), str(exc)))
            continue
        tot.indexes += 1
        tot.ids.append(sid)
        tot.bytes += size
        snaps = idx.snapshots
        tot.snapshots += len(snaps)
        if len(snaps) > tot.largest:
            tot.largest, tot.largest_session = len(snaps), sid
        for s in snaps:
            if not isinstance(s, dict):
                continue
            if s.get("toolName") == RESTORE_TOOL:
                tot.restore_snapshots += 1
            for e in s.get("files") or []:
                kind = e.get("type") if isinstance(e, dict) else None
                if kind == "full":
                    tot.full += 1
                    if e.get("compressed"):
                        tot.compressed += 1
                elif kind == "diff":
                    tot.diff += 1
                else:
                    tot.other += 1
        for fp in idx.tracked_files():
            try:
                chain = chain_health(idx, fp)
            except Exception as exc:  # noqa: BLE001 - a malformed entry must not hide the other files
                bad = [{"session": sid, "snapshot": "?", "file": fp, "reason": str(exc)}]
            else:
                bad = [
                    {
                        "session": sid,
                        "snapshot": ln.snapshot_id,
                        "file": fp,
                        "reason": ln.reason or "",
                    }
                    for ln in chain.links
                    if not ln.rebuilds
                ]
            tot.unrecoverable.extend(bad)
            if bad:
                report.faults.append(
                    Finding(
                        "checkpoint_unrecoverable",
                        str(path),
                        f"{fp}: {len(bad)} entr{'y' if len(bad) == 1 else 'ies'} cannot be "
                        f"rebuilt ({', '.join(b['snapshot'] for b in bad)}): {bad[0]['reason']}",
                    )
                )


def coverage(has_file_changes: dict[str, bool], report: CheckReport, whole_home: bool) -> None:
    """Sessions vs checkpoint indexes, each against its own denominator (FORMAT.md §13.5).

    Args:
        has_file_changes: session id → whether its transcript records file changes (a v1
            session is absent: it cannot tell).
        report: the report whose files and checkpoint totals are counted; its
            ``coverage`` is set.
        whole_home: the check saw every session and index of the home.
    """
    session_ids = {f.session_id for f in report.main_files}
    session_ids |= {Path(p).name.removesuffix(".json") for p in report.v1_files}
    index_ids = set(report.checkpoints.ids)
    traced: dict[str, str] = {}
    for f in report.main_files:
        for t in f.trace_ids:
            traced.setdefault(t, f.path)
    s_reasons: Counter = Counter()
    for sid in session_ids - index_ids:
        if sid not in has_file_changes:
            s_reasons["v1 JSON session: no file_changes records to tell"] += 1
        elif has_file_changes[sid]:
            s_reasons[
                "file changes recorded but no index: checkpoints removed (30-day cleanup, "
                "the cleanup race of FORMAT.md §10.10, or by hand)"
            ] += 1
        else:
            s_reasons["no file changes recorded: nothing to snapshot (read-only session)"] += 1
    i_reasons: Counter = Counter()
    for sid in index_ids - session_ids:
        if sid in traced:
            i_reasons["written under a resumed process's id (recorded as trace_session_id)"] += 1
        else:
            i_reasons[
                "no session file with this id: the session was deleted or moved while its "
                "checkpoints remain (the two layers have different lifetimes)"
            ] += 1
    report.coverage = {
        "sessions": {
            "count": len(session_ids),
            "with_index": len(session_ids & index_ids),
            "without_index": len(session_ids - index_ids),
            "reasons": dict(s_reasons.most_common()),
        },
        "indexes": {
            "count": len(index_ids),
            "with_session": len(index_ids & session_ids),
            "without_session": len(index_ids - session_ids),
            "reasons": dict(i_reasons.most_common()),
            "complete": whole_home,
        },
        "note": "each side is counted against its own set; sessions are never cleaned up, "
        "checkpoints are removed after 30 days, and sessions without file edits have no "
        "index — so no ratio of the two is meaningful (FORMAT.md §13.5)",
    }

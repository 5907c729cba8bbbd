"""Rewind points: the human prompts on a session's live chain, mapped to file snapshots.

The agent never persists its points (in memory, the last 30; FORMAT.md §11.1), so they are
derived from the file (§11.3): every human prompt (a user message without ``tool_result``
blocks) on the live chain, numbered from 1, with its index in the loader's messages
(truncating there = back to just before that prompt), a 60-char preview, its time, the
latest snapshot taken before it and the first at or after it (what a code rewind rolls back
from, FORMAT.md §10.13).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sidtui.core.base.errors import SidtuiError, UsageError
from sidtui.core.base.resolve import resolve_session
from sidtui.core.checkpoints.index import CheckpointIndex, CorruptIndex
from sidtui.core.transcript.chain import ChainResult, ancestors, rebuild_chain
from sidtui.core.transcript.loader import load_jsonl
from sidtui.core.transcript.scan import scan_records
from sidtui.core.transcript.source import read_transcript
from sidtui.core.transcript.writer import flush_pending_writes
from sidtui.core.views.rewind_result import point_json
from sidtui.core.views.rewind_text import PREVIEW_CHARS

MAX_PICKER_POINTS = 30  # FORMAT.md §11.1: the picker shows the last 30; the CLI takes any


class UnknownPoint(UsageError):
    """No rewind point / record with that number or uuid (exit 2)."""


@dataclass(frozen=True)
class RewindPoint:
    """A point to rewind to: just before one human prompt.

    Attributes:
        id: 1-based number along the live chain.
        message_index: index of the prompt in the loader's messages (``slice(0, i)`` is
            the conversation after rewinding).
        record: index of the prompt's record in ``RecordFile.records``.
        uuid: the prompt record's uuid.
        parent_uuid: uuid of the chain record just before the prompt (the marker's parent).
        line: 1-based physical line of the prompt.
        preview: first 60 characters of its text.
        timestamp: ISO time of the prompt record (None when absent).
        timestamp_ms: the same in ms since the epoch.
        snapshot_id: latest checkpoint snapshot taken before the prompt ("" when none).
        restore_from: first snapshot at or after the prompt (None: no file changes
            recorded after it, or no checkpoints).
    """

    id: int
    message_index: int
    record: int
    uuid: str | None
    parent_uuid: str | None
    line: int | None
    preview: str
    timestamp: str | None
    timestamp_ms: int | None
    snapshot_id: str = ""
    restore_from: str | None = None

    @property
    def code_from(self) -> str:
        """Where a code rewind restores from, in words (the points table's cell)."""
        return self.restore_from or "— (no snapshot after it)"

    def to_json(self) -> dict[str, Any]:
        return point_json(self, self.snapshot_id, self.restore_from)


def iso_to_ms(ts: str | None) -> int | None:
    """``Date.parse`` for the agent's ISO timestamps; None when absent or unparsable."""
    if not ts:
        return None
    try:
        return int(datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() * 1000 + 0.5)
    except ValueError:
        return None


def _snapshot_times(view) -> list[tuple[str, int]]:
    """(id, timestamp ms) of the session's checkpoint snapshots, in index order."""
    path = view.home.checkpoint_index(view.file.checkpoint_id)
    if not path.exists():
        return []
    try:
        idx = CheckpointIndex.load(path)
    except CorruptIndex:
        return []
    out = []
    for s in idx.snapshots:
        sid, ts = s.get("id"), s.get("timestamp")
        if isinstance(sid, str) and isinstance(ts, (int, float)):
            out.append((sid, int(ts)))
    return out


def _inherited_times(view) -> dict[int, str]:
    """For a fork: message index → the source message's timestamp, for copied messages.

    The agent re-stamps the messages it copies into a fork (S05), while the checkpoints it
    inherits keep their times; a copied prompt is matched to the source's prompt at the
    same position (same role and text) on the source chain ending at ``forked_from.uuid``,
    and its time is used for the checkpoint mapping. {} when not a fork or no source.
    """
    ff = view.loaded.metadata.get("forked_from")
    if not isinstance(ff, dict):
        return {}
    src_id, count = ff.get("sessionId"), ff.get("messageCount")
    if not isinstance(src_id, str) or not isinstance(count, int) or count <= 0:
        return {}
    path = view.file.path.parent / f"{src_id}.jsonl"
    try:
        if not path.exists():
            sf = resolve_session(view.home, src_id)
            if sf.kind != "main" or sf.container != "jsonl" or sf.session_id != src_id:
                return {}
            path = sf.path
        flush_pending_writes(path)
        rf = scan_records(read_transcript(path))  # a FIFO in its place is refused, not read
    except (SidtuiError, OSError):
        return {}
    tail_uuid = ff.get("uuid")
    at = [r.index for r in rf.records if isinstance(tail_uuid, str) and r.uuid == tail_uuid]
    chain = ancestors(rf, at[-1]) if at else rebuild_chain(rf).chain
    if not chain:
        return {}
    src = load_jsonl(rf, ChainResult(chain=chain, tail=chain[-1], reached_head=True)).messages
    out: dict[int, str] = {}
    mine = view.loaded.messages
    for i in range(min(count, len(mine), len(src))):
        a, b = mine[i], src[i]
        if a.role != b.role or a.preview() != b.preview():
            break  # not the copy we expected: keep the fork's own times from here
        if b.timestamp:
            out[i] = b.timestamp
    return out


def rewind_points(view) -> list[RewindPoint]:
    """Every human prompt on the live chain, numbered from 1 (FORMAT.md §11.3).

    Args:
        view: a :class:`sidtui.core.views.session.SessionView`.

    Returns:
        The points oldest first (the picker shows the last :data:`MAX_PICKER_POINTS`).
        Empty for v1 files, sidechains and sessions the agent cannot load.
    """
    if view.rf is None or view.file.kind != "main" or not view.loaded.loadable:
        return []
    recs = view.rf.records
    chain = view.chain.chain
    pos_of = {ri: p for p, ri in enumerate(chain)}
    snaps = _snapshot_times(view)
    inherited = _inherited_times(view)
    points: list[RewindPoint] = []
    for m in view.loaded.messages:
        if not m.is_human_prompt or m.record is None:
            continue
        pos = pos_of.get(m.record)
        parent = recs[chain[pos - 1]].uuid if pos else None
        prompt_ts = inherited.get(m.index, m.timestamp)
        ms = iso_to_ms(prompt_ts)
        before, after = "", None
        if ms is not None:
            for sid, snap_ms in snaps:
                if snap_ms < ms:
                    before = sid
                elif after is None:
                    after = sid
        points.append(
            RewindPoint(
                id=len(points) + 1,
                message_index=m.index,
                record=m.record,
                uuid=m.uuid,
                parent_uuid=parent,
                line=m.line,
                preview=m.preview(PREVIEW_CHARS),
                timestamp=prompt_ts,
                timestamp_ms=ms,
                snapshot_id=before,
                restore_from=after,
            )
        )
    return points


def get_point(view, point: int | RewindPoint) -> RewindPoint:
    """Resolve a point number (1-based) or re-validate a point against ``view``.

    Raises:
        UnknownPoint: no such point on the live chain (exit 2).
    """
    points = rewind_points(view)
    if isinstance(point, RewindPoint):
        for p in points:
            if p.record == point.record:
                return p
        raise UnknownPoint("that rewind point is no longer on the live chain")
    if not points:
        raise UnknownPoint(f"{view.file.path.name} has no rewind points (no human prompts)")
    if not isinstance(point, int) or not 1 <= point <= len(points):
        raise UnknownPoint(f"no rewind point {point}: choose 1–{len(points)}")
    return points[point - 1]

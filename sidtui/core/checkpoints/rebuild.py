"""Rebuilding a tracked file from a checkpoint index, and its chain health (no writes; FORMAT.md §10).

:func:`rebuild` gives a file's stored content at one entry (nearest full, then diffs),
:func:`state_at` the file as it was when a snapshot was taken, :func:`chain_health` each
entry's rebuildability; unrecoverable entries are reported with a reason, never guessed.

Design notes: docs/ARCHITECTURE.md, “core/checkpoints/rebuild.py”.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sidtui.core.base.chain_health import LinkChain
from sidtui.core.base.jsonout import stringify
from sidtui.core.checkpoints.diff import (
    apply_ops,
    has_keep,
    keeps_match,
    ops_overrun,
    split_lines,
)
from sidtui.core.checkpoints.index import (
    CheckpointIndex,
    CorruptEntry,
    decode_entry,
    snapshot_number,
    utf16_len,
)

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


# --- rebuild -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Rebuilt:
    """A file's content as stored at one entry.

    Attributes:
        file_path: the tracked path (as in the index).
        snapshot_id: the snapshot holding the entry.
        position: that snapshot's index in ``snapshots``.
        exists: the entry's ``existedBefore`` (False ⇒ the file did not exist).
        content: str (text), bytes (``binary`` entries), or None when unrecoverable.
        reason: why it is unrecoverable (None when it rebuilds).
        uncertain: the state cannot be proven (its history was evicted): restores skip it
            unless forced, readers of past versions refuse it (``reason`` says why).
    """

    file_path: str
    snapshot_id: str
    position: int
    exists: bool
    content: str | bytes | None
    reason: str | None = None
    uncertain: bool = False

    @property
    def recoverable(self) -> bool:
        return self.reason is None

    def data(self) -> bytes | None:
        """The bytes to write (UTF-8 for text); None when absent or unrecoverable."""
        if self.content is None or not self.exists:
            return None
        if isinstance(self.content, bytes):
            return self.content
        try:
            return self.content.encode("utf-8")
        except UnicodeEncodeError:
            # A lone surrogate (possible in JSON text): written as U+FFFD, as Node/Bun do.
            return _LONE_SURROGATE.sub("\ufffd", self.content).encode("utf-8")


# (lines | text not split yet | raw bytes | None, reason): a full's text is split into
# lines only when a diff is applied to it (a 60 MiB full: 4 s a split, 1 s a join)
_State = tuple[list[str] | str | bytes | None, str | None]


def _step(
    index: CheckpointIndex, state: _State, entry: dict[str, Any], sid: str, verify: bool = False
) -> _State:
    """Advance a rebuild state over one entry of ``index``."""
    lines, reason = state
    kind = entry.get("type")
    if kind == "full":
        try:
            content = decode_entry(entry)
        except CorruptEntry as exc:
            return None, f"{sid}: {exc}"
        return content, None  # bytes (binary) or text, split when a diff needs its lines
    if kind != "diff":
        return None, f"{sid}: unknown entry type {kind!r}"
    diff = entry.get("diff")
    ops = diff.get("ops") if isinstance(diff, dict) else None
    if not ops or not isinstance(ops, list):
        return None, (
            f"{sid}: stored diff has no ops (the agent's ≥ 10,000-line diff bug, "
            f"EMPTY_OPS_DIFF_AT_{sid}); its content was never saved"
        )
    bad = index.ops_problem(ops)
    if bad is not None:  # never guessed: this entry and every later one built on it
        return None, f"{sid}: stored diff is corrupt ({bad})"
    if not has_keep(ops):
        # independent of the base; but its removes must fit a base that is known
        if reason is None and isinstance(lines, (list, str)):
            n = len(lines) if isinstance(lines, list) else lines.count("\n") + 1
            over = ops_overrun(n, ops)
            if over is not None:
                return None, f"{sid}: stored diff is corrupt ({over})"
        return apply_ops([], ops), None
    if reason is not None:
        return None, reason
    if isinstance(lines, bytes):
        return None, f"{sid}: line diff over a binary base"
    if lines is None:
        return None, f"{sid}: diff has no full base (history cut)"
    if isinstance(lines, str):
        lines = split_lines(lines)
    over = ops_overrun(len(lines), ops)
    if over is not None:
        return None, f"{sid}: stored diff is corrupt ({over})"
    if verify:
        if not keeps_match(lines, ops):
            return None, f"{sid}: diff does not match the content rebuilt before it"
    return apply_ops(lines, ops), None


def _finish(state: _State) -> tuple[str | bytes | None, str | None]:
    lines, reason = state
    if reason is not None:
        return None, reason
    if isinstance(lines, (bytes, str)):
        return lines, None
    if lines is None:
        return None, "no full base (history cut)"
    return "\n".join(lines), None


def rebuild(index: CheckpointIndex, file_path: str, position: int) -> Rebuilt:
    """The content of ``file_path``'s entry in snapshot ``position``.

    Args:
        index: the index.
        file_path: a tracked path.
        position: index into ``index.snapshots`` of a snapshot that has an entry for it.

    Raises:
        KeyError: the snapshot has no entry for ``file_path``.
    """
    entries = index.entries_for(file_path)
    j = next((n for n, (i, _) in enumerate(entries) if i == position), -1)
    if j < 0:
        raise KeyError(f"{file_path} has no entry in snapshot #{position}")
    # Start at the nearest full: the walk from there is rebuild_all's (a keep-less diff
    # needs no base, but its removes are checked against a base that is known).
    start = j
    while start > 0 and entries[start][1].get("type") != "full":
        start -= 1
    snaps = index.snapshots
    state: _State = (None, None)
    for i, e in entries[start : j + 1]:
        state = _step(index, state, e, str(snaps[i].get("id")))
    content, reason = _finish(state)
    entry = entries[j][1]
    return Rebuilt(
        file_path,
        str(snaps[position].get("id")),
        position,
        entry.get("existedBefore") is not False,
        content,
        reason,
    )


def rebuild_all(index: CheckpointIndex, file_path: str, verify: bool = True) -> list[Rebuilt]:
    """Every entry of ``file_path`` rebuilt in one forward walk (O(chain))."""
    out: list[Rebuilt] = []
    state: _State = (None, None)
    snaps = index.snapshots
    for i, e in index.entries_for(file_path):
        sid = str(snaps[i].get("id"))
        state = _step(index, state, e, sid, verify)
        content, reason = _finish(state)
        out.append(Rebuilt(file_path, sid, i, e.get("existedBefore") is not False, content, reason))
    return out


def state_at(index: CheckpointIndex, file_path: str, position: int) -> Rebuilt | None:
    """``file_path`` as it was when snapshot ``position`` was taken.

    Returns:
        The rebuild of its first entry at or after ``position`` (see
        :func:`rollback_target` for the one exception); None when it has no such entry
        (then its state then is its state now, on disk).
    """
    return rollback_target(index, file_path, position)[0]


def named_in_batch(snapshot: dict[str, Any], path: str) -> bool:
    """Whether ``toolSummary`` (``"[$ cmd → ]a, b"``, the batch's affected files) names ``path``."""
    summary = snapshot.get("toolSummary")
    if not isinstance(summary, str) or path not in summary:
        return False
    if summary.startswith("$ ") and " → " in summary:
        summary = summary.split(" → ", 1)[1]
    return path in (part.strip() for part in summary.split(", "))


def uncertain_reason(index: CheckpointIndex, path: str, k: int, j: int) -> str | None:
    """Why ``path``'s pre-image at its first entry ``j`` ≥ ``k`` is not its state at ``k``.

    The state is unproven when that entry is the file's oldest remaining one, a full (a
    re-anchored base, or a base whose older entries were evicted), and either snapshot ids between
    ``k`` and ``j`` are gone or a batch in between names the file without an entry: its
    history there was evicted (FORMAT.md §10.9, §10.13 — report, never guess).
    """
    if j == k:
        return None
    entries = index.entries_for(path)
    first_pos, first = entries[0]
    snaps = index.snapshots
    for i in range(k, j):
        if named_in_batch(snaps[i], path) and first_pos > i:
            return (
                f"it was part of batch {snaps[i].get('id')} but has no entry there "
                "(evicted); its state then is unknown"
            )
    if first_pos != j or first.get("type") != "full":
        return None  # an intact chain reaches back before k
    lo, hi = snapshot_number(snaps[k].get("id")), snapshot_number(snaps[j].get("id"))
    if lo is not None and hi is not None:
        present = {snapshot_number(s.get("id")) for s in snaps}
        missing = [n for n in range(lo + 1, hi) if n not in present]
        if missing:
            return (
                f"its history before {snaps[j].get('id')} may have been evicted "
                f"(s{missing[0]} is gone); its state at {snaps[k].get('id')} is unknown"
            )
    return None


def rollback_target(index: CheckpointIndex, path: str, k: int) -> tuple[Rebuilt | None, str | None]:
    """What ``rollback_from(k)`` restores ``path`` to: ``(rebuilt, uncertain reason)``.

    Normally the pre-image of its earliest entry at or after ``k``. When a batch in
    between names the file but stored no entry (the agent skips files whose content equals
    their latest entry's), the file was then exactly that latest entry's pre-image, so
    that is the target (the plain first-entry rule would miss that batch's change).

    Returns:
        ``(None, None)`` when the file has no entry at or after ``k``.
    """
    entries = index.entries_for(path)
    j = next((i for i, _ in entries if i >= k), None)
    if j is None:
        return None, None
    snaps = index.snapshots
    for i in range(k, j):
        if named_in_batch(snaps[i], path):
            before = [p for p, _ in entries if p < i]
            if before:
                return rebuild(index, path, before[-1]), None
            break
    return rebuild(index, path, j), uncertain_reason(index, path, k, j)


# --- chain health ------------------------------------------------------------------------


@dataclass(frozen=True)
class ChainLink:
    """One entry of a file's chain.

    Attributes:
        snapshot_id / position: where it is.
        type: ``"full"`` or ``"diff"``.
        compressed / binary / existed_before: the entry's flags.
        stored_chars: size as stored (content length, or the diff's serialized length).
        ops: number of diff ops (None for a full).
        rebuilds: whether the content at this entry can be rebuilt.
        reason: why not (None when it rebuilds).
    """

    snapshot_id: str
    position: int
    type: str
    compressed: bool
    binary: bool
    existed_before: bool
    stored_chars: int
    ops: int | None
    rebuilds: bool
    reason: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "snapshot_id": self.snapshot_id,
            "type": self.type,
            "compressed": self.compressed,
            "binary": self.binary,
            "existed_before": self.existed_before,
            "stored_chars": self.stored_chars,
            "ops": self.ops,
            "rebuilds": self.rebuilds,
            "reason": self.reason,
        }

    @property
    def label(self) -> str:
        if self.type == "full":
            text = "full·gz" if self.compressed else "full"
            if self.binary:
                text += "·bin"
            if not self.existed_before:
                text = "absent"
        else:
            text = "diff" if self.ops else "diff(∅)"
        return text if self.rebuilds else text + " ✗"


@dataclass(frozen=True)
class FileChain(LinkChain):
    """A tracked file's entries, oldest first: ``"full·gz → diff → diff"`` (``✗`` marks
    entries that do not rebuild)."""

    links: tuple[ChainLink, ...]


def _stored_chars(entry: dict[str, Any]) -> int:
    if entry.get("type") == "full":
        c = entry.get("content")
        return utf16_len(c) if isinstance(c, str) else 0
    return len(stringify(entry.get("diff")))


def chain_health(index: CheckpointIndex, file_path: str) -> FileChain:
    """The chain of ``file_path`` with per-entry rebuildability."""
    rebuilt = rebuild_all(index, file_path)
    links = []
    for (_, e), r in zip(index.entries_for(file_path), rebuilt, strict=True):
        diff = e.get("diff")
        ops = diff.get("ops") if isinstance(diff, dict) else None
        links.append(
            ChainLink(
                r.snapshot_id,
                r.position,
                str(e.get("type")),
                bool(e.get("compressed")),
                bool(e.get("binary")),
                e.get("existedBefore") is not False,
                _stored_chars(e),
                len(ops) if e.get("type") == "diff" and isinstance(ops, list) else None,
                r.recoverable,
                r.reason,
            )
        )
    return FileChain(file_path, tuple(links))

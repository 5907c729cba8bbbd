"""Drift: is a file still what this session last left there? (docs/DECISIONS.md)

``expected_now(index, path, post_image)`` finds what the session last left in ``path``
(the last snapshot that touched it: a ``sidtui-restore``'s target, or an agent batch's
post-image proven by ``post_image``); ``drift_of`` compares the file on disk with it:
``same``, ``changed`` (needs ``--force`` to replace), ``unknown`` (not provable).

Design notes: docs/ARCHITECTURE.md, “core/checkpoints/drift.py”.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sidtui.core.checkpoints.index import CheckpointIndex
from sidtui.core.checkpoints.rebuild import named_in_batch, rebuild, rollback_target

RESTORE_TOOL = "sidtui-restore"
UNKNOWN = "unknown"

PostImage = Callable[[dict[str, Any], str, bytes | None], "bytes | None | str"]
"""``(snapshot, path, content before the batch) -> bytes | None (absent) | "unknown"``."""


def digest(data: bytes | None) -> str | None:
    """The ``sidtuiTargets`` form of a content: sha256 hex, None for an absent file."""
    return None if data is None else hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Expected:
    """What the session last left in one file.

    Attributes:
        known: whether it is proven.
        exists: the file existed afterwards (when known).
        sha256: its content's sha256 hex (when known and it exists).
        source: where the proof comes from (``"s4 (edit) tool results"``,
            ``"sidtui undo s7"``), or why it is unknown.
        suspect: unknown because the session's transcript was read and its last batch on
            the file cannot be proven (a shell command ran, a result is missing, a patch
            does not apply): the file may hold anyone's edit, so it counts as drift.
    """

    known: bool
    exists: bool = False
    sha256: str | None = None
    source: str = ""
    suspect: bool = False

    def matches(self, data: bytes | None) -> bool:
        """Whether the file as it is now (``data``; None = absent) is what was left."""
        if not self.exists:
            return data is None
        return data is not None and digest(data) == self.sha256


def _last_touch(index: CheckpointIndex, path: str) -> int | None:
    """The last snapshot with an entry for ``path`` (a restore that wrote nothing aside) or
    an agent batch naming it without one (the agent skips a file equal to its last entry)."""
    has_entry = {i for i, _ in index.entries_for(path)}
    snaps = index.snapshots
    for i in range(len(snaps) - 1, -1, -1):
        s = snaps[i]
        restore = s.get("toolName") == RESTORE_TOOL
        if i in has_entry and not (restore and s.get("sidtuiFailed")):
            return i
        if not restore and named_in_batch(s, path):
            return i
    return None


def _last_before(index: CheckpointIndex, path: str, position: int) -> int | None:
    before = [i for i, _ in index.entries_for(path) if i < position]
    return before[-1] if before else None


def expected_now(index: CheckpointIndex, path: str, post_image: PostImage | None) -> Expected:
    """What this session last left in ``path`` (see the module docstring)."""
    pos = _last_touch(index, path)
    if pos is None:
        return Expected(False, source="no snapshot of this session touched it")
    snap = index.snapshots[pos]
    sid = str(snap.get("id"))
    if snap.get("toolName") == RESTORE_TOOL:
        targets = snap.get("sidtuiTargets")
        if isinstance(targets, dict) and path in targets:
            h = targets[path]
            return Expected(
                True,
                h is not None,
                h if isinstance(h, str) else None,
                f"sidtui {snap.get('sidtuiOp')} {sid}",
            )
        reverts = snap.get("sidtuiReverts")
        ks = [index.index_of(str(r)) for r in reverts] if isinstance(reverts, list) else []
        ks = [k for k in ks if 0 <= k < pos]
        if not ks:
            return Expected(False, source=f"{sid}: what it restored is not recorded")
        target, _ = rollback_target(index, path, min(ks))
        if target is None or not target.recoverable:
            return Expected(False, source=f"{sid}: what it restored cannot be rebuilt")
        data = target.data()
        return Expected(
            True, data is not None, digest(data), f"sidtui {snap.get('sidtuiOp')} {sid}"
        )
    entry_pos = pos if index.entry_at(path, pos) is not None else _last_before(index, path, pos)
    if entry_pos is None:
        return Expected(False, source=f"{sid} names it but no entry holds its content before")
    pre = rebuild(index, path, entry_pos)
    if not pre.recoverable:
        return Expected(False, source=f"{sid}: {pre.reason}")
    if post_image is None:
        return Expected(False, source=f"{sid}: the session's transcript is not available")
    after = post_image(snap, path, pre.data())
    if isinstance(after, str):
        return Expected(
            False,
            source=f"{sid} ({snap.get('toolName')}): its tool results do not prove it",
            suspect=True,
        )
    return Expected(
        True, after is not None, digest(after), f"{sid} ({snap.get('toolName')}) tool results"
    )


@dataclass(frozen=True)
class FileDrift:
    """One file's drift.

    Attributes:
        path: the tracked path.
        status: ``"same"``, ``"changed"`` or ``"unknown"``.
        source: what it was compared with (or why that is unknown).
        suspect: an ``unknown`` that counts as drift (:attr:`Expected.suspect`).
    """

    path: str
    status: str
    source: str
    suspect: bool = False

    @property
    def refuses(self) -> bool:
        """Replacing the file needs ``--force``: it changed after the session, or its last
        batch cannot be proven (:attr:`suspect`) — one message, one flag for both."""
        return self.status == "changed" or (self.status == UNKNOWN and self.suspect)

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "status": self.status, "source": self.source}


def drift_of(expected: Expected, path: str, current: bytes | None) -> FileDrift:
    """Compare the file as it is (``current``; None = absent) with ``expected``."""
    if not expected.known:
        return FileDrift(path, UNKNOWN, expected.source, expected.suspect)
    status = "same" if expected.matches(current) else "changed"
    return FileDrift(path, status, expected.source)


DRIFT_WORDING = (
    "changed after this session (by you or another session) — these changes will be "
    "replaced (kept in the safety snapshot)"
)
#: the files whose last change by this session cannot be proven (a shell command ran, a
#: result is missing): what is known of them, never "changed" for a change not proven
UNPROVEN_WORDING = (
    "whose last change by this session cannot be proven — any later edits in them will be "
    "replaced (kept in the safety snapshot)"
)


def drift_groups(drifted: Iterable[tuple[str, str | None]]) -> list[tuple[list[str], str]]:
    """The drifted files by what is known of them, each group with its wording:
    ``(names, DRIFT_WORDING)`` for those changed after this session (status ``changed``,
    proven), then ``(names, UNPROVEN_WORDING)`` for the others; empty groups left out.

    Args:
        drifted: ``(name as shown, FileDrift.status)`` of each file a write would replace.
    """
    drifted = list(drifted)
    changed = [n for n, status in drifted if status == "changed"]
    unproven = [n for n, status in drifted if status != "changed"]
    return [(g, w) for g, w in ((changed, DRIFT_WORDING), (unproven, UNPROVEN_WORDING)) if g]


def drift_lines(drifted: Iterable[tuple[str, str | None]]) -> list[str]:
    """``N file(s) <wording>: names``, one line per group of :func:`drift_groups`."""
    return [f"{len(g)} file(s) {w}: {', '.join(g)}" for g, w in drift_groups(drifted)]


def replaced_kinds(statuses: Iterable[str | None]) -> str:
    """What is known of the files a forced write replaced: ``N file(s) changed after this
    session`` (proven) and/or ``N file(s) whose last change by this session cannot be
    proven``."""
    statuses = list(statuses)
    changed = sum(1 for s in statuses if s == "changed")
    parts = [f"{changed} file(s) changed after this session"] if changed else []
    if len(statuses) - changed:
        parts.append(
            f"{len(statuses) - changed} file(s) whose last change by this session cannot be proven"
        )
    return " and ".join(parts)


def drift_said(text: str | None) -> bool:
    """``text`` (a refusal) already names the drifted files, in either wording
    (:func:`drift_lines`, ``restore.drift_message``)."""
    text = text or ""
    return "changed after this session" in text or "by this session cannot be proven" in text

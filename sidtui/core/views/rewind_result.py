"""What a rewind did (or would do), for every source: :class:`RewindResult` (the engines of
:mod:`sidtui.core.edits.rewind` and :mod:`sidtui.core.claude.rewind` fill it), and the
``--json`` object of a rewind point (:func:`point_json`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def point_json(p: Any, snapshot_id: str | None, restore_from: str | None) -> dict[str, Any]:
    """A rewind point's ``--json`` object (``snapshot_id``: the checkpoint taken just
    before it, ``restore_from``: the one a code rewind writes back)."""
    return {
        "id": p.id,
        "message_index": p.message_index,
        "uuid": p.uuid,
        "line": p.line,
        "preview": p.preview,
        "timestamp": p.timestamp,
        "snapshot_id": snapshot_id,
        "restore_from": restore_from,
    }


@dataclass
class RewindResult:
    """What a rewind did (or would do, for a dry run).

    Attributes mirror sid-code's ``RewindResult`` plus sidtui's: ``point``, ``mode``,
    ``messages_dropped``, ``files_restored``, ``file_restore_skipped`` (no snapshot for
    the point, no checkpoints, or files skipped as uncertain), ``safety_snapshot`` (the
    ``sidtui-restore`` snapshot id that undoes the file step), ``marker_uuid`` (the
    ``rewind`` metadata record), ``fork`` (for ``as_fork``), ``dropped`` (the messages
    leaving the conversation: ``{index, uuid, role, preview}``), ``files`` (per-file
    results of the checkpoint layer), ``diffs`` (dry run: unified diffs current → after),
    ``warnings``, ``root``/``root_refusal`` (the project root used), ``drift`` (files
    changed after the session that the file step replaces: ``{path, source}``),
    ``resumed`` (a :class:`sidtui.core.edits.interrupted.Finished`: this run only finished
    an earlier, interrupted one; then ``point`` is None), ``refusal`` (a dry run: the error
    a real run with the same flags stops at — live, drift — else None).
    """

    point: Any
    mode: str
    messages_dropped: int = 0
    files_restored: int = 0
    file_restore_skipped: bool = False
    safety_snapshot: str | None = None
    marker_uuid: str | None = None
    fork: Any = None
    dropped: list[dict[str, Any]] = field(default_factory=list)
    files: list[dict[str, Any]] = field(default_factory=list)
    diffs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    dry_run: bool = False
    session_id: str | None = None
    abandoned_tip: str | None = None
    root: str | None = None
    root_refusal: str | None = None
    drift: list[dict[str, Any]] = field(default_factory=list)
    resumed: Any = None
    refusal: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "root": self.root,
            "root_refused": self.root_refusal,
            "refusal": self.refusal,
            "drift": self.drift,
            "resumed": self.resumed.to_json() if self.resumed is not None else None,
            "point": self.point.to_json() if self.point is not None else None,
            "mode": self.mode,
            "messages_dropped": self.messages_dropped,
            "files_restored": self.files_restored,
            "file_restore_skipped": self.file_restore_skipped,
            "safety_snapshot": self.safety_snapshot,
            "marker_uuid": self.marker_uuid,
            "fork": self.fork.to_json() if self.fork is not None else None,
            "dropped": self.dropped,
            "files": self.files,
            "diffs": self.diffs,
            "warnings": self.warnings,
            "dry_run": self.dry_run,
            "abandoned_tip": self.abandoned_tip,
        }

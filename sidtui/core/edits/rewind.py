"""Rewind points, three-mode rewind and branch switch (FORMAT.md §11).

**Rewind points** are never persisted by the agent (in memory, last 30, FORMAT.md §11.1), so we
derive them from the file: every human prompt (a user message without ``tool_result``
blocks) on the live chain, numbered from 1, with its ``messageIndex`` in the loader's
message list (truncating there = back to just before that prompt, FORMAT.md §11.1), a 60-char
preview, its time, and the checkpoint state it maps to: ``snapshot_id`` (the latest
snapshot taken before the prompt, the agent's anchor) and ``restore_from`` (the first
snapshot at or after it: what a code rewind rolls back from, FORMAT.md §10.13).

**Rewind** (:func:`rewind`), modes ``conversation`` / ``code`` / ``conversation-and-code``:

1. files first (FORMAT.md §11.2: the step that can fail goes before the irreversible one),
   through the checkpoint layer's ``rollback_to_time`` with its ``sidtui-restore`` safety
   snapshot, atomic writes and project-root confinement; if it fails, the conversation is
   left untouched; no snapshot for the point ⇒ files skipped and reported;
2. conversation second, **append-only** [sidtui]: a ``metadata`` record with key
   ``rewind`` whose ``parentUuid`` is the record just before the target prompt. The
   loader's chain then ends at the marker; the abandoned branch stays in the file, and a
   later resume by the agent continues from the marker (it is the physical last line).
   Points at or after the target disappear because they are no longer on the chain.

All or nothing where it can be checked: before any project file is touched, the session
file is opened for append (and closed unwritten), so a read-only session file or folder
refuses the whole rewind with nothing changed. A marker append that still fails after the
files were rewound (disk full, the file replaced meanwhile) raises a :class:`RewindError`
saying the files *were* rewound and the conversation was not, naming the files and the
safety snapshot that ``sidtui redo`` reverts (its ``result`` holds what was done).

A live session (a live registration under the file's id, a ``trace_session_id`` in it, or
its ``logicalSessionId``) is refused unless forced: its in-memory tail would silently win
over our marker. ``as_fork=True`` leaves the source untouched and writes the rewound
conversation as a new session (:mod:`sidtui.core.edits.fork`); files are then restored through
the child's inherited checkpoint index.

**Branch switch** (:func:`switch_branch`): any record of the tree becomes the live tip again
by appending a ``metadata`` ``branch_switch`` marker whose ``parentUuid`` is that record, so
an in-place rewind can always be taken back and a branch lost to a concurrent writer
recovered. Nothing is ever deleted from a transcript.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sidtui.core.base.errors import SidtuiError, UsageError
from sidtui.core.transcript.writer import SessionStore, flush_pending_writes

MODES = ("conversation", "code", "conversation-and-code")
MODE_ALIASES = {"both": "conversation-and-code", "all": "conversation-and-code"}
PREVIEW_CHARS = 60
MAX_PICKER_POINTS = 30  # FORMAT.md §11.1: the picker shows the last 30; the CLI takes any


class RewindError(SidtuiError):
    """A rewind, fork or branch switch could not be done (exit 1).

    Attributes:
        result: what was done before the failure (a :class:`RewindResult` whose files
            were restored but whose marker did not land), or None when nothing was.
    """

    def __init__(self, message: str, result: RewindResult | None = None) -> None:
        super().__init__(message)
        self.result = result


class SessionIsLive(RewindError):
    """The session is being written by a running agent; refused unless forced (exit 1)."""


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

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "messageIndex": self.message_index,
            "uuid": self.uuid,
            "line": self.line,
            "preview": self.preview,
            "timestamp": self.timestamp,
            "snapshotId": self.snapshot_id,
            "restoreFrom": self.restore_from,
        }


@dataclass
class RewindResult:
    """What a rewind did (or would do, for a dry run).

    Attributes mirror the agent's ``RewindResult`` plus sidtui's: ``point``, ``mode``,
    ``messages_dropped``, ``files_restored``, ``file_restore_skipped`` (no snapshot for
    the point, no checkpoints, or files skipped as uncertain), ``safety_snapshot`` (the
    ``sidtui-restore`` snapshot id that undoes the file step), ``marker_uuid`` (the
    ``rewind`` metadata record), ``fork`` (for ``as_fork``), ``dropped`` (the messages
    leaving the conversation: ``{index, uuid, role, preview}``), ``files`` (per-file
    results of the checkpoint layer), ``diffs`` (dry run: unified diffs current → after),
    ``warnings``.
    """

    point: RewindPoint
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

    def to_json(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "point": self.point.to_json(),
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


# --------------------------------------------------------------------------- points


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
    from sidtui.core.checkpoints.index import CheckpointIndex, CorruptIndex

    path = view.home.checkpoint_index(view.session_id)
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
    from sidtui.core.base.home import resolve_session
    from sidtui.core.transcript.chain import ChainResult, ancestors, rebuild_chain
    from sidtui.core.transcript.loader import load_jsonl
    from sidtui.core.transcript.records import scan_records

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
        rf = scan_records(path.read_bytes())
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


def normalize_mode(mode: str) -> str:
    """``conversation`` / ``code`` / ``conversation-and-code`` (``both`` accepted).

    Raises:
        UsageError: any other value.
    """
    m = MODE_ALIASES.get(mode, mode)
    if m not in MODES:
        raise UsageError(f"unknown rewind mode {mode!r}: use conversation, code or both")
    return m


# --------------------------------------------------------------------------- guards


def current_view(view):
    """``view``, re-read when the file changed size since it was read (an agent or our own
    queue appended): rewinds, forks and switches decide on what is on disk now."""
    import os

    from sidtui.core.views.session import open_session

    flush_pending_writes(view.file.path)
    if view.rf is None:
        return view
    try:
        size = os.stat(view.file.path).st_size
    except OSError:
        return view
    if size == view.rf.size:
        return view
    return open_session(view.home, view.file, with_sidechains=False)


def _require_rewindable(view) -> None:
    if view.rf is None:
        raise UsageError(f"cannot rewind a v1 whole-file JSON session ({view.file.path.name})")
    if view.file.kind != "main":
        raise UsageError("cannot rewind a sidechain file; rewind its parent session")
    if not view.loaded.loadable:
        raise UsageError(
            f"the agent cannot load {view.file.path.name} ({view.loaded.load_failure}); "
            "use `sidtui salvage` first"
        )
    if view.chain.linear:
        raise UsageError(
            f"{view.file.path.name} has no uuid chain (a v2 file): a conversation rewind needs one"
        )


def _refuse_live(view, force: bool, what: str) -> None:
    lv = view.liveness
    if lv.live and not force:
        pids = ", ".join(str(r.pid) for r in lv.registrations if r.live)
        holds = "in-memory tail" if what in ("rewind marker", "branch switch") else "memory"
        raise SessionIsLive(
            f"session {view.session_id} is live (agent process {pids}): what it holds in "
            f"{holds} would silently override the {what}; stop it first or pass --force"
        )


def project_root(view) -> Path | None:
    """The project root file restores are confined to: the git top level of the session's
    ``cwd`` (FORMAT.md §10.13), or None when the session records no cwd."""
    from sidtui.core.base.home import git_toplevel

    cwd = view.loaded.cwd
    if not cwd:
        return None
    p = Path(cwd)
    return git_toplevel(p) if p.exists() else p


# --------------------------------------------------------------------------- files step


@dataclass
class _FileStep:
    restored: int = 0
    skipped: bool = False
    safety: str | None = None
    files: list[dict[str, Any]] = field(default_factory=list)
    diffs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def _files_step(
    view,
    session_id: str,
    point: RewindPoint,
    *,
    dry_run: bool,
    force: bool,
    allow_outside_root: bool = False,
) -> _FileStep:
    """Roll files back to what they were when ``point``'s prompt was submitted.

    Through :meth:`sidtui.core.checkpoints.manager.CheckpointManager.rollback_to_time` (first
    snapshot at or after the prompt; safety snapshot; confinement to the project root).
    """
    from sidtui.core.checkpoints.manager import CheckpointManager

    step = _FileStep()
    if point.timestamp_ms is None:
        step.skipped = True
        step.warnings.append("the prompt has no timestamp: files cannot be matched to it")
        return step
    mgr = CheckpointManager.for_session(
        view.home,
        session_id,
        project_root=project_root(view),
        allow_outside_root=allow_outside_root,
    )
    if not mgr.exists:
        step.skipped = True
        step.warnings.append("the session has no checkpoints: files not restored")
        return step
    res = mgr.rollback_to_time(point.timestamp_ms, dry_run=dry_run, force=force)
    step.files = [f.to_json() for f in res.files]
    step.restored = len(res.changed)
    step.safety = res.safety_snapshot_id
    if res.from_position is None:
        # No snapshot at or after the prompt: no file change was recorded after it.
        step.skipped = True
        step.warnings.append(f"files not restored: {res.note}")
    for f in res.skipped:
        step.skipped = True
        step.warnings.append(f"{f.path}: skipped ({f.reason})")
        if f.reason and f.reason.startswith("write failed"):
            step.failed.append(f"{f.path}: {f.reason}")
    if dry_run:
        step.diffs = [d for f in res.changed if (d := unified_diff(f))]
    return step


def _diff_lines(data: bytes | None) -> list[str]:
    if not data:
        return []
    text = data.decode("utf-8", errors="replace")
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])  # last line without a newline
    return lines


def unified_diff(f, context: int = 3) -> str:
    """Unified diff current → restored for one :class:`~sidtui.core.checkpoints.manager.FileRestore`.

    Uses :func:`sidtui.core.checkpoints.diff.compute_ops` (prefix/suffix stripping, never quadratic),
    not difflib. Returns "" when nothing differs.
    """
    from sidtui.core.checkpoints.diff import edit_hunks

    old, new = _diff_lines(f.old), _diff_lines(f.new)
    if old == new:
        return ""
    hunks = edit_hunks(old, new, context)
    a = f"a{f.path}" if f.old is not None else "/dev/null"
    b = f"b{f.path}" if f.new is not None else "/dev/null"
    out = [f"--- {a}\n", f"+++ {b}\n"]
    for part in hunks:
        n_old = sum(1 for r in part if r[0] != "+")
        n_new = sum(1 for r in part if r[0] != "-")
        o0 = part[0][1] + (1 if n_old else 0)
        n0 = part[0][2] + (1 if n_new else 0)
        out.append(f"@@ -{o0},{n_old} +{n0},{n_new} @@\n")
        for tag, _, _, line in part:
            out.append(
                tag + line
                if line.endswith("\n")
                else f"{tag}{line}\n\\ No newline at end of file\n"
            )
    return "".join(out)


# --------------------------------------------------------------------------- rewind


def message_preview(m) -> str:
    """A message's first 60 text characters, else its tool calls/results in brackets."""
    text = m.preview(PREVIEW_CHARS)
    if text:
        return text
    if m.tool_names:
        return f"[{', '.join(m.tool_names)}]"
    results = sum(1 for b in m.blocks if b.type == "tool_result")
    if results:
        return f"[{results} tool result{'s' if results > 1 else ''}]"
    return "[" + ", ".join(str(t) for t in m.block_types) + "]"


def _dropped(view, point: RewindPoint) -> list[dict[str, Any]]:
    return [
        {"index": m.index, "uuid": m.uuid, "role": m.role, "preview": message_preview(m)}
        for m in view.loaded.messages[point.message_index :]
    ]


def _check_appendable(path: Path) -> None:
    """Open ``path`` for append and close it unwritten; raise when that is refused.

    Run before a rewind touches any project file, so a session file the marker cannot
    be appended to (read-only file or folder, gone) stops the rewind with nothing done.

    Raises:
        RewindError: the file cannot be opened for append.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)  # no O_CREAT: never makes a file
    except OSError as exc:
        raise RewindError(
            f"cannot append the rewind marker to {path}: {exc.strerror or exc}; "
            "nothing was changed (neither the files nor the conversation)"
        ) from None
    os.close(fd)


def _append_marker(view, parent_uuid: str | None, key: str, value: dict[str, Any]) -> str:
    """Append one metadata marker hanging off ``parent_uuid``; raise if it did not land."""
    path = view.file.path
    errors: list[str] = []
    store = SessionStore(path.parent, on_error=lambda f: errors.append(f.error))
    store.resume(path)
    store.last_uuid = parent_uuid
    marker = store.append_metadata(key, value)
    store.flush()
    if errors:
        raise RewindError(f"could not append the {key} marker to {path}: {errors[0]}")
    return marker


def rewind(
    view,
    point: int | RewindPoint,
    mode: str,
    *,
    as_fork: bool = False,
    force: bool = False,
    dry_run: bool = False,
    allow_outside_root: bool = False,
) -> RewindResult:
    """Rewind a session to just before a prompt (FORMAT.md §11.2, §11.4).

    Args:
        view: a :class:`sidtui.core.views.session.SessionView` of a loadable v3 session.
        point: a point number (1-based, see :func:`rewind_points`) or a point.
        mode: ``conversation``, ``code`` or ``conversation-and-code`` (``both``).
        as_fork: write the rewound conversation as a new session; the source file and its
            checkpoint index stay untouched (files are restored through the fork's index).
        force: rewind a live session anyway; restore files the index cannot prove.
        dry_run: report what would change (messages, unified diffs); write nothing.
        allow_outside_root: let the file step write outside the session's project root
            (the git top level of its cwd, else the cwd); refused files are otherwise
            reported as skipped.

    Returns:
        A :class:`RewindResult`.

    Raises:
        UnknownPoint / UsageError: bad point or mode, v1/v2/sidechain/unloadable file.
        SessionIsLive: a running agent writes this session (unless ``force``).
        RewindError: a write failed; files first, so a failed file step leaves the
            conversation untouched.
    """
    from sidtui.core.edits.fork import fork as fork_session

    mode = normalize_mode(mode)
    view = current_view(view)
    _require_rewindable(view)
    pt = get_point(view, point)
    convo = mode != "code"
    code = mode != "conversation"
    result = RewindResult(point=pt, mode=mode, dry_run=dry_run, session_id=view.session_id)
    if convo:
        result.dropped = _dropped(view, pt)
        result.messages_dropped = len(result.dropped)
    if not dry_run and (code or not as_fork):
        _refuse_live(
            view,
            force,
            "rewind marker" if convo and not as_fork else "restored files and checkpoint index",
        )
    elif view.liveness.live:
        result.warnings.append("the session is live: a real run would be refused without --force")
    flush_pending_writes(view.file.path)

    if dry_run:
        if code:
            step = _files_step(
                view,
                view.session_id,
                pt,
                dry_run=True,
                force=force,
                allow_outside_root=allow_outside_root,
            )
            _apply_step(result, step)
        return result

    if as_fork:
        child = fork_session(view, pt if convo else None, inherit_all=True)
        result.fork = child
        result.warnings.extend(child.warnings)
        if code:
            try:
                step = _files_step(
                    view,
                    child.session_id,
                    pt,
                    dry_run=False,
                    force=force,
                    allow_outside_root=allow_outside_root,
                )
            except Exception:
                _remove_fork(view, child)
                raise
            _apply_step(result, step)
            if step.failed:
                raise RewindError(
                    f"the file step failed for {len(step.failed)} file(s) ({step.failed[0]}); "
                    f"fork {child.session_id} was written; safety snapshot "
                    f"{step.safety} in its checkpoints holds the files as they were"
                )
        return result

    if convo:
        _check_appendable(view.file.path)  # before any file is touched: all or nothing
    if code:
        step = _files_step(
            view,
            view.session_id,
            pt,
            dry_run=False,
            force=force,
            allow_outside_root=allow_outside_root,
        )
        _apply_step(result, step)
        if step.failed:
            # Files first: a failed file step leaves the conversation untouched (FORMAT.md §11.2).
            raise RewindError(
                f"the file step failed for {len(step.failed)} file(s) ({step.failed[0]}); "
                f"the conversation was left untouched; safety snapshot {step.safety} holds "
                "the files as they were (`sidtui redo` takes the file step back)"
            )
    if convo:
        result.abandoned_tip = view.rf.records[view.chain.tail].uuid
        value: dict[str, Any] = {
            "toPoint": pt.id,
            "mode": mode,
            "promptUuid": pt.uuid,
            "abandonedTip": result.abandoned_tip,
            "messagesDropped": result.messages_dropped,
        }
        if result.safety_snapshot:
            value["safetySnapshot"] = result.safety_snapshot
        value["by"] = "sidtui"
        try:
            result.marker_uuid = _append_marker(view, pt.parent_uuid, "rewind", value)
        except (SidtuiError, OSError) as exc:
            if code and result.files_restored:
                raise RewindError(_half_done(result, exc), result) from None
            raise
    return result


def _half_done(result: RewindResult, exc: BaseException) -> str:
    """The message for files rewound but no marker: what changed and how to take it back."""
    changed = [f["path"] for f in result.files if f.get("action") in ("restored", "deleted")]
    shown = ", ".join(changed[:5]) + (f", … ({len(changed) - 5} more)" if len(changed) > 5 else "")
    reason = str(exc)
    return (
        f"the files WERE rewound ({result.files_restored} file(s): {shown or 'see checkpoints'}) "
        f"but the conversation was NOT: {reason}. "
        f"`sidtui redo {result.session_id}` takes the files back"
        + (
            f" (safety snapshot {result.safety_snapshot} holds them as they were)"
            if result.safety_snapshot
            else ""
        )
        + f"; or fix the cause and run `sidtui rewind {result.session_id} --to "
        f"{result.point.id} --mode conversation`"
    )


def _apply_step(result: RewindResult, step: _FileStep) -> None:
    result.files_restored = step.restored
    result.file_restore_skipped = step.skipped
    result.safety_snapshot = step.safety
    result.files = step.files
    result.diffs = step.diffs
    result.warnings.extend(step.warnings)


def _remove_fork(view, child) -> None:
    """Take back a fork whose file step failed (it was just created by us)."""
    try:
        child.path.unlink()
    except OSError:
        pass
    shutil.rmtree(view.home.checkpoints_dir / child.session_id, ignore_errors=True)


# --------------------------------------------------------------------------- branch switch


@dataclass
class BranchSwitch:
    """What :func:`switch_branch` did (or would do).

    Attributes:
        tip_uuid: the record made live.
        previous_tip_uuid: the live tail before the switch.
        marker_uuid: the ``branch_switch`` record (None for a dry run).
        messages_before / messages_after: conversation length before and after.
        leaving / joining: messages that leave / join the conversation
            (``{uuid, role, preview}``).
        dry_run: nothing was written.
    """

    tip_uuid: str
    previous_tip_uuid: str | None
    marker_uuid: str | None
    messages_before: int
    messages_after: int
    leaving: list[dict[str, Any]] = field(default_factory=list)
    joining: list[dict[str, Any]] = field(default_factory=list)
    dry_run: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "tip_uuid": self.tip_uuid,
            "previous_tip_uuid": self.previous_tip_uuid,
            "marker_uuid": self.marker_uuid,
            "messages_before": self.messages_before,
            "messages_after": self.messages_after,
            "leaving": self.leaving,
            "joining": self.joining,
            "dry_run": self.dry_run,
        }


def find_record(view, uuid_prefix: str) -> int:
    """The record index whose uuid starts with ``uuid_prefix`` (unique).

    Raises:
        UnknownPoint: none or several match (exit 2).
    """
    if not uuid_prefix:
        raise UnknownPoint("give a uuid or a uuid prefix")
    hits = [r.index for r in view.rf.records if r.uuid and r.uuid.startswith(uuid_prefix)]
    uniq = {view.rf.records[i].uuid for i in hits}
    if not hits:
        raise UnknownPoint(
            f"no record in {view.file.path.name} has a uuid starting {uuid_prefix!r}"
        )
    if len(uniq) > 1:
        raise UnknownPoint(
            f"{uuid_prefix!r} matches {len(uniq)} records; give more of the uuid "
            f"({', '.join(sorted(uniq)[:5])})"
        )
    return hits[-1]  # a duplicated uuid: the later line, as the agent's walk finds it


def _message_summaries(view, indexes: list[int]) -> list[dict[str, Any]]:
    from sidtui.core.transcript.chain import ChainResult
    from sidtui.core.transcript.loader import load_jsonl

    if not indexes:
        return []
    ls = load_jsonl(view.rf, ChainResult(chain=indexes, tail=indexes[-1] if indexes else None))
    return [{"uuid": m.uuid, "role": m.role, "preview": message_preview(m)} for m in ls.messages]


def switch_branch(view, tip: str, *, force: bool = False, dry_run: bool = False) -> BranchSwitch:
    """Make the record ``tip`` (a uuid or unique prefix) the live tip again.

    Appends ``metadata branch_switch {tip, previousTip}`` whose ``parentUuid`` is that
    record, so the loader's chain runs through it (FORMAT.md §11.4 [sidtui]).

    Raises:
        UnknownPoint: no unique record matches, or it is already the live tip.
        UsageError: v1 file, sidechain, or a linear (v2) file.
        RewindError: the chain from that record never reaches a ``session_start`` (the
            agent could not load it) and ``force`` is not set; or the write failed.
        SessionIsLive: a running agent writes this session (unless ``force``).
    """
    from sidtui.core.transcript.chain import ancestors

    view = current_view(view)
    if view.rf is None or view.file.kind != "main" or view.chain.linear:
        raise UsageError(f"{view.file.path.name} has no uuid chain to switch branches in")
    idx = find_record(view, tip)
    rf = view.rf
    target = rf.records[idx]
    prev_tip = rf.records[view.chain.tail].uuid if view.chain.tail is not None else None
    if idx == view.chain.tail:
        raise UnknownPoint(f"{target.uuid} is already the live tip")
    new_chain = ancestors(rf, idx)
    if rf.records[new_chain[0]].type != "session_start" and not force:
        raise RewindError(
            f"the chain ending at {target.uuid} never reaches a session_start: the agent "
            "could not load it (use --force to switch anyway, or `sidtui salvage`)"
        )
    old = set(view.chain.chain)
    new = set(new_chain)
    result = BranchSwitch(
        tip_uuid=target.uuid or "",
        previous_tip_uuid=prev_tip,
        marker_uuid=None,
        messages_before=len(view.loaded.messages),
        messages_after=len(_message_summaries(view, new_chain)),
        leaving=_message_summaries(view, [i for i in view.chain.chain if i not in new]),
        joining=_message_summaries(view, [i for i in new_chain if i not in old]),
        dry_run=dry_run,
    )
    if dry_run:
        return result
    _refuse_live(view, force, "branch switch")
    flush_pending_writes(view.file.path)
    result.marker_uuid = _append_marker(
        view,
        target.uuid,
        "branch_switch",
        {"tip": target.uuid, "previousTip": prev_tip, "by": "sidtui"},
    )
    return result

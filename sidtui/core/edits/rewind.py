"""Three-mode rewind and branch switch (FORMAT.md §11); the points are :mod:`~sidtui.core.edits.points`.

:func:`rewind` restores files first (through the checkpoint layer) and then appends a
``rewind`` marker (append-only), or writes the rewound conversation as a fork;
:func:`switch_branch` makes any record the live tip again with a ``branch_switch`` marker.
Nothing is ever deleted from a transcript; live sessions are refused unless forced.

Design notes: docs/ARCHITECTURE.md, “core/edits/rewind.py”.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sidtui.core.base.errors import SessionLive, SidtuiError, UsageError
from sidtui.core.base.project import project_root_for, user_home
from sidtui.core.checkpoints.journal import read_journal, remove_journal
from sidtui.core.checkpoints.manager import CheckpointManager
from sidtui.core.edits.batches import post_image_of
from sidtui.core.edits.fork import fork as fork_session
from sidtui.core.edits.fork import pending_journal
from sidtui.core.edits.interrupted import finish_forks, finish_interrupted
from sidtui.core.edits.marker import MarkerError, append_marker, settle_tail
from sidtui.core.edits.points import RewindPoint, UnknownPoint, get_point
from sidtui.core.edits.rewind_failures import half_done, step_failed
from sidtui.core.resume.process import live_refusal
from sidtui.core.transcript.chain import ChainResult, ancestors
from sidtui.core.transcript.loader import load_jsonl
from sidtui.core.transcript.writer import flush_pending_writes
from sidtui.core.views.rewind_result import RewindResult
from sidtui.core.views.rewind_text import (
    message_preview,
    normalize_mode,
    unified_diff,
)
from sidtui.core.views.session import current_view


class RewindError(SidtuiError):
    """A rewind, fork or branch switch could not be done (exit 1).

    Attributes:
        result: what was done before the failure (a :class:`RewindResult` whose files
            were restored but whose marker did not land), or None when nothing was.
    """

    def __init__(self, message: str, result: RewindResult | None = None) -> None:
        super().__init__(message)
        self.result = result


class SessionIsLive(RewindError, SessionLive):
    """The session is being written by a running agent; refused unless forced (exit 1)."""


# --------------------------------------------------------------------------- points


# --------------------------------------------------------------------------- guards


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


def _live_refusal(view, force: bool, what: str) -> SessionIsLive | None:
    """The refusal of a write to a live session (None: not live, or ``force``)."""
    lv = view.liveness
    if not lv.live or force:
        return None
    holds = "its in-memory tail" if what in ("rewind marker", "branch switch") else "memory"
    return SessionIsLive(
        live_refusal(
            view.session_id, lv, f"what it holds in {holds} would silently override the {what}"
        )
    )


def _refuse_live(view, force: bool, what: str) -> None:
    if (exc := _live_refusal(view, force, what)) is not None:
        raise exc


def project_root(view, env: Any = None):
    """The project root file restores are confined to (FORMAT.md §10.13):
    :func:`sidtui.core.base.project.project_root_for` of the session's ``cwd`` (its git top
    level, else the cwd; refused when relative, ``/``, or outside the user's home and not
    a git work tree).

    Returns:
        A :class:`sidtui.core.base.project.ProjectRoot`.
    """
    return project_root_for(view.loaded.cwd, user_home(os.environ if env is None else env))


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
    drift: list[dict[str, Any]] = field(default_factory=list)
    journal_token: str | None = None
    refusal: str | None = None
    unfinished: bool = False


def _files_step(
    view,
    session_id: str,
    point: RewindPoint,
    *,
    dry_run: bool,
    force: bool,
    allow_outside_root: bool = False,
    root=None,
    journal_extra: dict[str, Any] | None = None,
    keep_journal: bool = False,
) -> _FileStep:
    """Roll files back to what they were when ``point``'s prompt was submitted.

    Through :meth:`sidtui.core.checkpoints.manager.CheckpointManager.rollback_to_time`
    (first snapshot at or after the prompt; drift check; journal; safety snapshot;
    confinement to the project root).

    Raises:
        DriftRefused: files changed after the session, without ``force``.
    """
    step = _FileStep()
    if point.timestamp_ms is None:
        step.skipped = True
        step.warnings.append("the prompt has no timestamp: files cannot be matched to it")
        return step
    pr = root if root is not None else project_root(view)
    mgr = CheckpointManager.for_session(
        view.home,
        session_id,
        project_root=pr.path,
        root_refusal=pr.refusal,
        allow_outside_root=allow_outside_root,
        post_image=post_image_of(view.rf),
    )
    if not mgr.exists:
        step.skipped = True
        step.warnings.append("the session has no checkpoints: files not restored")
        return step
    res = mgr.rollback_to_time(
        point.timestamp_ms,
        dry_run=dry_run,
        force=force,
        journal_extra=journal_extra,
        keep_journal=keep_journal,
    )
    step.journal_token = res.journal_token
    step.refusal = res.refusal
    step.unfinished = res.unfinished
    step.files = [f.to_json() for f in res.files]
    step.restored = len(res.changed)
    step.safety = res.safety_snapshot_id
    step.drift = [
        {"path": f.path, "source": f.drift.source, "status": f.drift.status}
        for f in res.drifted
        if f.drift
    ]
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


# --------------------------------------------------------------------------- rewind


def _dropped(view, point: RewindPoint) -> list[dict[str, Any]]:
    return [
        {"index": m.index, "uuid": m.uuid, "role": m.role, "preview": message_preview(m)}
        for m in view.loaded.messages[point.message_index :]
    ]


def _check_appendable(path: Path) -> None:
    """Open ``path`` for append and close it unwritten; raise when that is refused.

    Run before a rewind touches any project file, so a session file the marker cannot
    be appended to (read-only file or folder, gone, a torn last record) stops the rewind.

    Raises:
        RewindError: the file cannot be opened for append. MarkerError: a torn last record.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)  # no O_CREAT: never makes a file
    except OSError as exc:
        raise RewindError(
            f"cannot append the rewind marker to {path}: {exc.strerror or exc}; "
            "nothing was changed (neither the files nor the conversation)"
        ) from None
    os.close(fd)
    settle_tail(path)  # "nothing was appended": nor was any file touched


def _append_marker(
    view, parent_uuid: str | None, key: str, value: dict[str, Any], policy=None
) -> str:
    """Append one metadata marker hanging off ``parent_uuid`` after a whole record
    (:func:`sidtui.core.edits.marker.append_marker`); raise if it did not land."""
    try:
        return append_marker(view.file.path, parent_uuid, key, value, policy=policy)
    except MarkerError as exc:
        raise RewindError(str(exc)) from None


def rewind(
    view,
    point: int | RewindPoint,
    mode: str,
    *,
    as_fork: bool = False,
    force: bool = False,
    dry_run: bool = False,
    allow_outside_root: bool = False,
    root=None,
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
        root: a :class:`sidtui.core.base.project.ProjectRoot` to use instead (``--root``).

    A run first finishes what an interrupted earlier run of this session left
    (:func:`sidtui.core.edits.interrupted.finish_interrupted`; ``as_fork``: the copies
    killed forks left); when that had changed something, it is all this run does
    (``result.resumed``). A dry run returns what a real run would do there instead.

    Returns:
        A :class:`RewindResult`.

    Raises:
        UnknownPoint / UsageError: bad point or mode, v1/v2/sidechain/unloadable file.
        SessionIsLive: a running agent writes this session (unless ``force``).
        DriftRefused: files changed after this session, or whose last change by it cannot be
            proven, would be replaced (unless ``force``).
        RewindError: a write failed; files first, so a failed file step leaves the
            conversation untouched.
        InterruptedError_: a pending journal cannot be finished (dry runs too: the real
            run stops there).
    """
    mode = normalize_mode(mode)
    view = current_view(view)
    _require_rewindable(view)
    convo = mode != "code"
    code = mode != "conversation"
    pr = root if root is not None else project_root(view)
    notes: list[str] = []
    live_what = "rewind marker" if convo and not as_fork else "restored files and checkpoint index"
    if not dry_run and (code or not as_fork):
        _refuse_live(view, force, live_what)
    if not as_fork:
        # What an interrupted earlier run left comes first (it may be this very rewind);
        # a dry run says what the real run does with it, and stops where that stops.
        finished = finish_interrupted(
            view.home, view.file.checkpoint_id, dry_run=dry_run, project_root=pr.path
        )
        if finished is not None and finished.changed:
            done = RewindResult(
                point=None,
                mode=mode,
                dry_run=dry_run,
                session_id=view.session_id,
                root=str(pr.path) if pr.path is not None else None,
                resumed=finished,
            )
            if dry_run:
                done.diffs = (
                    [unified_diff(f) for f in finished.restore.changed] if finished.restore else []
                )
                live = _live_refusal(view, force, live_what)
                done.refusal = str(live) if live is not None else None
            return done
        if finished is not None:
            notes.append(finished.describe())
            if not dry_run:
                view = current_view(view)
    pt = get_point(view, point)
    result = RewindResult(point=pt, mode=mode, dry_run=dry_run, session_id=view.session_id)
    result.warnings.extend(notes)
    result.root = str(pr.path) if pr.path is not None else None
    result.root_refusal = None if allow_outside_root else pr.refusal
    if convo:
        result.dropped = _dropped(view, pt)
        result.messages_dropped = len(result.dropped)
    if view.liveness.live and dry_run and (code or not as_fork):
        exc = _live_refusal(view, force, live_what)
        if exc is not None:
            result.refusal = str(exc)
        else:
            result.warnings.append("the session is live: --force, a real run writes anyway")
    elif view.liveness.live and as_fork and not code:  # the source is not touched
        result.warnings.append(
            "the session is live: the fork copies what is on disk now (the agent may still "
            "be adding to it)"
        )
    if as_fork and (pending := pending_journal(view)):
        result.warnings.append(pending)
    if dry_run and as_fork and _fork_leftovers(view, result, dry_run=True):
        return result
    flush_pending_writes(view.file.path)
    step_args = {"force": force, "allow_outside_root": allow_outside_root, "root": pr}

    if dry_run:
        if code:
            _apply_step(
                result, _files_step(view, view.file.checkpoint_id, pt, dry_run=True, **step_args)
            )
        return result

    if as_fork:
        return _rewind_as_fork(view, pt, result, convo, code, step_args)
    return _rewind_in_place(view, pt, result, convo, code, step_args)


def _rewind_in_place(
    view, pt: RewindPoint, result: RewindResult, convo: bool, code: bool, step_args
) -> RewindResult:
    """:func:`rewind` in the session itself: files first (journalled with the marker still
    to append), then the ``rewind`` marker."""

    if convo:
        _check_appendable(view.file.path)  # before any file is touched: all or nothing
        result.abandoned_tip = view.rf.records[view.chain.tail].uuid
    value: dict[str, Any] = {
        "toPoint": pt.id,
        "mode": result.mode,
        "promptUuid": pt.uuid,
        "abandonedTip": result.abandoned_tip,
        "messagesDropped": result.messages_dropped,
    }
    folder = view.home.checkpoint_folder(view.file.checkpoint_id)
    token: str | None = None
    if code:
        marker_part = {
            "transcript": str(view.file.path),
            "parentUuid": pt.parent_uuid,
            "key": "rewind",
            "value": value,
        }
        step = _files_step(
            view,
            view.file.checkpoint_id,
            pt,
            dry_run=False,
            journal_extra={"marker": marker_part} if convo else None,
            keep_journal=convo,
            **step_args,
        )
        _apply_step(result, step)
        token = step.journal_token
        if step.failed:
            if not step.unfinished:  # else its journal (the marker still to append) stays
                _drop_journal(folder, token)
            # Files first: a failed file step leaves the conversation untouched (FORMAT.md §11.2).
            raise RewindError(step_failed(step, view.session_id))
    if convo:
        if result.safety_snapshot:
            value["safetySnapshot"] = result.safety_snapshot
        if token is not None:
            value["journal"] = token
        value["by"] = "sidtui"
        try:
            result.marker_uuid = _append_marker(view, pt.parent_uuid, "rewind", value)
        except (SidtuiError, OSError) as exc:
            _drop_journal(folder, token)  # said in the message: no run finishes it silently
            if code and result.files_restored:
                raise RewindError(half_done(result, exc), result) from None
            raise
        _drop_journal(folder, token)
    return result


def _drop_journal(folder: Path, token: str | None) -> None:
    """Remove the journal of this run (``token``), if it kept one."""
    if token is None:
        return
    j = read_journal(folder)
    if j is not None and j.get("token") == token:
        remove_journal(folder)


def _rewind_as_fork(view, pt: RewindPoint, result: RewindResult, convo, code, step_args):
    """The rewound conversation as a new session; files through its inherited index.

    The file step runs once the copy is complete and before it becomes visible, so a
    kill never leaves a fork that looks like the result while its files were not rewound.
    """
    if _fork_leftovers(view, result, dry_run=False):
        return result
    steps: list[_FileStep] = []

    def file_step(child, journal) -> None:
        step = _files_step(
            view,
            child.session_id,
            pt,
            dry_run=False,
            journal_extra={"op": journal["op"], "fork": journal["fork"]},
            keep_journal=True,
            **step_args,
        )
        steps.append(step)
        journal["unfinished"] = step.unfinished  # the copy's journal then stays

    child = fork_session(
        view,
        pt if convo else None,
        inherit_all=True,
        op="rewind --fork",
        before_rename=file_step if code else None,
    )
    result.fork = child
    result.warnings.extend(w for w in child.warnings if w not in result.warnings)
    if steps:
        step = steps[0]
        _apply_step(result, step)
        if step.failed:
            raise RewindError(step_failed(step, view.session_id, child.session_id))
    return result


def _fork_leftovers(view, result: RewindResult, *, dry_run: bool) -> bool:
    """Finish or remove the copies killed forks left beside the session (a dry run: say
    what a real run does); True when one was this same rewind, which is then all it does."""
    for f in finish_forks(view.home, view.file.path.parent, dry_run=dry_run):
        same = f.op == "rewind --fork" and (f.fork or {}).get("source") == view.session_id
        if f.changed and same:
            result.resumed = f
            return True
        result.warnings.append(f.describe())
    return False


def _apply_step(result: RewindResult, step: _FileStep) -> None:
    result.files_restored = step.restored
    result.file_restore_skipped = step.skipped
    result.safety_snapshot = step.safety
    result.files = step.files
    result.diffs = step.diffs
    result.drift = step.drift
    result.warnings.extend(step.warnings)
    if result.refusal is None:
        result.refusal = step.refusal


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
        resumed: this run only finished an interrupted earlier one
            (:class:`sidtui.core.edits.interrupted.Finished`; no marker was appended).
    """

    tip_uuid: str
    previous_tip_uuid: str | None
    marker_uuid: str | None
    messages_before: int
    messages_after: int
    leaving: list[dict[str, Any]] = field(default_factory=list)
    joining: list[dict[str, Any]] = field(default_factory=list)
    dry_run: bool = False
    resumed: Any = None

    def to_json(self) -> dict[str, Any]:
        return {
            "resumed": self.resumed.to_json() if self.resumed is not None else None,
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
    if not dry_run:
        _refuse_live(view, force, "branch switch")
    finished = finish_interrupted(
        view.home, view.file.checkpoint_id, dry_run=dry_run, project_root=project_root(view).path
    )
    if finished is not None and finished.changed:
        result.resumed = finished  # the chain changes: that is all this run does
        return result
    if dry_run:
        return result
    flush_pending_writes(view.file.path)
    result.marker_uuid = _append_marker(
        view,
        target.uuid,
        "branch_switch",
        {"tip": target.uuid, "previousTip": prev_tip, "by": "sidtui"},
    )
    return result

"""Fork: a new session made from an existing one (FORMAT.md §8.7, §10.11, §11.5).

:func:`fork` writes a new session in the agent's own fork shape (``forked_from`` first,
fresh uuids, re-chained history) and inherits the source's checkpoints; the source file and
its index are never written. :func:`write_copy` is shared with :mod:`~sidtui.core.edits.salvage`.

Design notes: docs/ARCHITECTURE.md, “core/edits/fork.py”.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sidtui.core.base import safefs
from sidtui.core.base.errors import SidtuiError, UsageError
from sidtui.core.base.jsonparse import RawValue
from sidtui.core.checkpoints.evict import inherit_from
from sidtui.core.checkpoints.journal import (
    note_complete,
    read_journal,
    remove_journal,
    safety_written,
    write_journal,
)
from sidtui.core.edits.interrupted import finish_forks
from sidtui.core.edits.points import get_point
from sidtui.core.transcript.chain import ChainResult
from sidtui.core.transcript.loader import LoadedSession, load_jsonl
from sidtui.core.transcript.messages import MESSAGE_RECORD_TYPES
from sidtui.core.transcript.records import RecordFile
from sidtui.core.transcript.writer import SessionStore
from sidtui.core.views.session import current_view

#: Metadata keys never copied into a fork: process identity and sidtui's own markers.
NOT_COPIED_METADATA = frozenset({"trace_session_id", "forked_from", "rewind", "branch_switch"})
#: Record types never copied (a fork gets its own start; a mid-chain end is noise).
NOT_COPIED_TYPES = frozenset({"session_start", "session_end"})


class ForkError(SidtuiError):
    """A fork or salvage could not be written (exit 1)."""


@dataclass
class ForkResult:
    """A session written by :func:`fork` or :func:`salvage`.

    Attributes:
        session_id: the new session's id (a dry run's is provisional: the real run picks
            its own when it writes; unless ``resumed``: the copy a real run finishes).
        path: the new file.
        source_session_id: the source's id.
        source_path: the source file.
        source_tail_uuid: uuid of the last source record copied (``forked_from.uuid``).
        message_count: messages copied.
        records_copied: records copied (messages, metadata, compacts, opaque records).
        checkpoints_inherited: snapshots inherited (0 when the source has none).
        warnings: non-fatal problems (checkpoint inheritance failed, ...).
        left_out: for salvage, what was not copied (see :func:`salvage`).
        repairs: messages the agent's resume pipeline would throw on, repaired or left
            out in the copy: ``[{line, what}]``.
        dry_run: nothing was written.
        resumed: this run only finished the copy an interrupted earlier run had made
            (see :func:`sidtui.core.edits.interrupted.finish_forks`).
    """

    session_id: str
    path: Path
    source_session_id: str
    source_path: Path
    source_tail_uuid: str | None
    message_count: int
    records_copied: int
    checkpoints_inherited: int = 0
    warnings: list[str] = field(default_factory=list)
    left_out: dict[str, Any] = field(default_factory=dict)
    repairs: list[dict[str, Any]] = field(default_factory=list)
    dry_run: bool = False
    resumed: bool = False

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` shape; a dry run's ``session_id`` and ``path`` are null (the real
        run picks its id when it writes)."""
        return {
            "resumed": self.resumed,
            "session_id": None if self.dry_run and not self.resumed else self.session_id,
            "path": None if self.dry_run and not self.resumed else str(self.path),
            "source_session_id": self.source_session_id,
            "source_path": str(self.source_path),
            "source_tail_uuid": self.source_tail_uuid,
            "message_count": self.message_count,
            "records_copied": self.records_copied,
            "checkpoints_inherited": self.checkpoints_inherited,
            "warnings": self.warnings,
            "left_out": self.left_out,
            "repairs": self.repairs,
            "dry_run": self.dry_run,
        }


def new_session_id(folder: Path, now: float | None = None) -> str:
    """A fresh ``YYYYMMDD-HHMMSS-<8 hex>`` id (local time, as the agent) unused in ``folder``."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    while True:
        sid = f"{stamp}-{secrets.token_hex(4)}"
        if not (folder / f"{sid}.jsonl").exists() and not (folder / f"{sid}.json").exists():
            return sid


def _session_start_fields(rf: RecordFile, indexes: list[int], fallback_id: str) -> dict[str, Any]:
    """model/provider/cwd for the copy: the chain's session_start, else any in the file."""
    starts = [i for i in indexes if rf.records[i].type == "session_start"]
    starts += [r.index for r in rf.records if r.type == "session_start"]
    for i in starts:
        d = rf.decode(rf.records[i])
        if isinstance(d, dict):
            return {
                "sessionId": d.get("sessionId")
                if isinstance(d.get("sessionId"), str)
                else fallback_id,
                "model": d.get("model") if isinstance(d.get("model"), str) else "unknown",
                "provider": d.get("provider") if isinstance(d.get("provider"), str) else "unknown",
                "cwd": d.get("cwd") if isinstance(d.get("cwd"), str) else "",
            }
    cwd = ""
    for r in rf.records:
        if r.type == "user_message":
            d = rf.decode(r)
            if isinstance(d.get("cwd"), str):
                cwd = d["cwd"]
                break
    return {"sessionId": fallback_id, "model": "unknown", "provider": "unknown", "cwd": cwd}


def _copyable(rf: RecordFile, indexes: list[int]) -> list[int]:
    out = []
    for i in indexes:
        rec = rf.records[i]
        if not rec.is_object or rec.type in NOT_COPIED_TYPES:
            continue
        if rec.type == "metadata":
            key = rf.decode(rec).get("key")
            if key in NOT_COPIED_METADATA:
                continue
        out.append(i)
    return out


def _repaired_message(msg: dict[str, Any], line: int, repairs: list[dict[str, Any]]) -> dict | None:
    """``msg`` as the agent's resume pipeline can take it, or None to leave it out: a
    string content becomes one text block, null blocks go, content that is no list at all
    leaves the message out (each change is noted in ``repairs``)."""
    content = msg.get("content")
    if isinstance(content, RawValue):
        return msg  # more values than sidtui decodes in a line: copied verbatim, as it is
    if isinstance(content, str):
        repairs.append({"line": line, "what": "string content made one text block"})
        return {**msg, "content": [{"type": "text", "text": content}]}
    if not isinstance(content, list):
        repairs.append({"line": line, "what": "left out: its content is not a list"})
        return None
    if None in content:
        repairs.append({"line": line, "what": "null blocks removed"})
        return {**msg, "content": [b for b in content if b is not None]}
    return msg


def _copy_records(
    store: SessionStore,
    rf: RecordFile,
    indexes: list[int],
    loaded: LoadedSession,
    repairs: list[dict[str, Any]] | None = None,
) -> tuple[int, int]:
    """Append ``indexes`` (already filtered) to ``store``; returns (records, messages).

    Messages the agent's resume pipeline would throw on are repaired or left out
    (:func:`_repaired_message`; noted in ``repairs``), so the copy resumes.
    """
    by_record = {m.record: m for m in loaded.messages}
    records = messages = 0
    fixes: list[dict[str, Any]] = [] if repairs is None else repairs
    for i in indexes:
        rec = rf.records[i]
        m = by_record.get(i) if rec.type in MESSAGE_RECORD_TYPES else None
        if m is not None:  # its _meta read (and kept) first: the line it reads is freed
            m.meta  # noqa: B018 -- before the record is decoded whole beside it
        d = rf.decode(rec)
        if rec.type in MESSAGE_RECORD_TYPES:
            msg = d.get("message")
            if m is None or not isinstance(msg, dict):
                if m is not None or msg is not None or "message" in d:
                    fixes.append({"line": rec.line, "what": "left out: no message object"})
                continue  # the agent's loader fails on it or keeps an empty shell
            msg = _repaired_message(msg, rec.line, fixes)
            if msg is None:
                continue
            copied = dict(msg)
            if m.meta:
                copied["_meta"] = dict(m.meta)
            out: dict[str, Any] = {"type": rec.type, "message": copied}
            if isinstance(d.get("timestamp"), str):
                out["timestamp"] = d["timestamp"]
            store.append_record(out)
            messages += 1
        else:
            store.append_record({k: v for k, v in d.items() if k not in ("uuid", "parentUuid")})
        records += 1
    return records, messages


def _inherit_checkpoints(
    view,
    child_id: str,
    warnings: list[str],
    before_ms: int | None = None,
    dry_run: bool = False,
) -> int:
    """Inherit the source's checkpoints into the child through the checkpoint layer (FORMAT.md §10.11);
    a fork at a point inherits only the snapshots taken before that point's prompt
    (``dry_run``: only count them). The safety snapshot of a journal pending in the source
    is never inherited: the journal stays with the source (:func:`pending_journal`). The
    source's folder is ``view``'s (its file-name id, ``SessionFile.checkpoint_id``)."""
    home, source_id = view.home, view.file.checkpoint_id
    token = (read_journal(home.checkpoint_folder(source_id)) or {}).get("token")
    now = int(time.time() * 1000)
    leave_out = token if isinstance(token, str) else None
    res = inherit_from(home, source_id, child_id, now, before_ms, dry_run, leave_out)
    if res.warning:
        warnings.append(res.warning)
    return res.copied


def write_copy(
    view,
    indexes: list[int],
    *,
    forked_from_extra: dict[str, Any] | None = None,
    dry_run: bool = False,
    inherit: bool = True,
    inherit_before_ms: int | None = None,
    op: str = "fork",
    before_rename: Callable[[ForkResult, dict[str, Any]], None] | None = None,
) -> ForkResult:
    """Write a new session from chain records ``indexes`` of ``view`` (a SessionView).

    The copy is written under a temporary name (``.ID.jsonl.sidtui-PID-RANDOM.tmp``) and
    renamed into place only when complete, its checkpoints first; a journal in its
    checkpoint folder lets the next run finish or remove a copy a kill left behind
    (:func:`sidtui.core.edits.interrupted.finish_forks`). A copy is never visible half
    written.

    Args:
        view: the source (:class:`sidtui.core.views.session.SessionView` of a jsonl file).
        indexes: record indexes to copy, oldest first.
        forked_from_extra: extra keys for the ``forked_from`` value (after the agent's).
        dry_run: compute the result, write nothing.
        inherit: inherit the source's checkpoints.
        inherit_before_ms: inherit only snapshots taken before this time (ms).
        op: the operation named in the journal.
        before_rename: ``(result, journal) -> None`` run once the copy is complete but
            before it becomes visible (a rewind's file step); an exception it raises
            removes the copy (so it must raise before changing a project file).

    Raises:
        ForkError: the new file could not be written (nothing is left half-written:
            a failed copy is removed).
    """
    rf: RecordFile = view.rf
    src_path: Path = view.file.path
    folder = src_path.parent
    source_id = view.session_id
    start = _session_start_fields(rf, indexes, view.file.session_id)
    copy_idx = _copyable(rf, indexes)
    # The loader over exactly these records gives each message's ``_meta`` as the agent's.
    sub_loaded = (
        load_jsonl(rf, ChainResult(chain=list(copy_idx), tail=copy_idx[-1], reached_head=True))
        if copy_idx
        else LoadedSession()
    )
    tail_uuid = next((rf.records[i].uuid for i in reversed(indexes) if rf.records[i].uuid), None)
    message_count = len(sub_loaded.messages)
    new_id = new_session_id(folder)
    result = ForkResult(
        session_id=new_id,
        path=folder / f"{new_id}.jsonl",
        source_session_id=source_id,
        source_path=src_path,
        source_tail_uuid=tail_uuid,
        message_count=message_count,
        records_copied=len(copy_idx),
        dry_run=dry_run,
    )
    if dry_run:  # what the real run inherits, counted (its new id is not known yet)
        if inherit:
            result.checkpoints_inherited = _inherit_checkpoints(
                view, new_id, result.warnings, inherit_before_ms, dry_run=True
            )
        return result
    ckpt = view.home.checkpoint_folder(new_id)
    temp_name = safefs.temp_name(result.path.name)
    temp = folder / temp_name
    journal = _start_copy(ckpt, op, result, temp)
    try:
        if inherit:
            said = len(result.warnings)
            result.checkpoints_inherited = _inherit_checkpoints(
                view, new_id, result.warnings, inherit_before_ms
            )
            if before_rename is not None and len(result.warnings) > said:
                # the file step restores through the inherited index: without it, no copy
                raise ForkError(f"{result.warnings[-1]}; the file step needs it")
        _write_transcript(
            view,
            result,
            temp,
            temp_name,
            start,
            tail_uuid,
            forked_from_extra,
            copy_idx,
            rf,
            sub_loaded,
        )
        journal["fork"]["ready"] = True
        if before_rename is not None:
            before_rename(result, journal)
        with safefs.opened_dir(os.path.realpath(folder)) as dfd:
            if safefs.lstat_at(dfd, result.path.name) is not None:
                raise ForkError(f"{result.path} appeared while it was being written")
            note_complete(new_id, result.path)  # once the rename made it (it is atomic)
            safefs.rename_at(dfd, temp_name, result.path.name)
    except BaseException as exc:
        removed = _discard(temp, ckpt, result.path)
        if (failure := _failed_copy(exc, removed, result.path, source_id)) is not None:
            raise failure from None
        raise
    if not journal.get("unfinished"):  # else its file step is finished by the next run
        remove_journal(ckpt)
    if not (ckpt / "index.json").exists():
        try:
            ckpt.rmdir()
        except OSError:
            pass
    return result


def _write_transcript(
    view, result, temp, temp_name, start, tail_uuid, forked_from_extra, copy_idx, rf, sub_loaded
) -> None:
    """The copy's records into ``temp`` (created ``O_EXCL | O_NOFOLLOW``), fsynced."""
    folder = temp.parent
    try:
        with safefs.opened_dir(os.path.realpath(folder)) as dfd:
            fd = os.open(
                temp_name,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                0o644,
                dir_fd=dfd,
            )
            os.close(fd)
    except (OSError, SidtuiError) as exc:
        raise ForkError(f"could not create {temp}: {exc}") from None
    errors: list[str] = []
    store = SessionStore(folder, on_error=lambda f: errors.append(f.error))
    store.start_session(
        result.session_id,
        start["model"],
        start["provider"],
        start["cwd"],
        forked_from_session_id=result.source_session_id,
        file_name=temp_name,
    )
    value: dict[str, Any] = {"sessionId": result.source_session_id}
    if tail_uuid:
        value["uuid"] = tail_uuid
    value["messageCount"] = result.message_count
    if forked_from_extra:
        value.update(forked_from_extra)
    store.append_metadata("forked_from", value)
    repairs: list[dict[str, Any]] = []
    result.records_copied, result.message_count = _copy_records(
        store, rf, copy_idx, sub_loaded, repairs
    )
    result.repairs = repairs
    store.flush()
    if errors:
        raise ForkError(f"could not write {result.path}: {errors[0]}")
    try:
        safefs.fsync_path(temp)
    except OSError as exc:
        raise ForkError(f"could not write {result.path}: {exc.strerror or exc}") from None


def _start_copy(ckpt: Path, op: str, result: ForkResult, temp: Path) -> dict[str, Any]:
    """Write the journal of a copy about to be written (in its checkpoint folder
    ``ckpt``); returns it.

    Raises:
        ForkError: it cannot be written (nothing was).
    """
    journal: dict[str, Any] = {
        "op": op,
        "fork": {
            "transcript": str(result.path),
            "temp": str(temp),
            "ready": False,
            "source": result.source_session_id,
            "messageCount": result.message_count,
            "recordsCopied": result.records_copied,
        },
    }
    try:
        write_journal(ckpt, journal)
    except (OSError, SidtuiError) as exc:
        raise ForkError(f"cannot start the copy in {ckpt}: {exc}") from None
    return journal


def _failed_copy(exc: BaseException, removed: bool, path: Path, source_id: str) -> ForkError | None:
    """The one-line error for a copy that failed with ``exc`` (an ``OSError`` or a
    :class:`SidtuiError`), saying whether it was ``removed`` or kept for the next run to
    finish; None for anything else (an interrupt: raised as it is)."""
    kept = (
        f"its file step had begun: the copy and its safety snapshot are kept, and the "
        f"next fork or rewind of {source_id} finishes it"
    )
    if isinstance(exc, OSError):
        what = "nothing was written" if removed else kept
        return ForkError(f"could not write {path}: {exc.strerror or exc}; {what}")
    if isinstance(exc, SidtuiError) and not removed:
        return ForkError(f"{exc}; {kept}")
    return None


def _discard(temp: Path, ckpt: Path, final: Path) -> bool:
    """Remove a copy that did not become visible (its temp transcript and checkpoints) —
    unless it did (``final`` exists), or its file step had saved its safety snapshot
    (:func:`sidtui.core.checkpoints.journal.safety_written`): project files may have been
    written, and that snapshot is the only copy of what they were. Then everything stays,
    the journal included, for the next run to finish
    (:func:`sidtui.core.edits.interrupted.finish_forks`). Never raises.

    Returns:
        Whether the copy was removed.
    """
    import shutil

    try:
        if os.path.lexists(final) or safety_written(ckpt):
            return False
    except OSError:
        return False
    try:
        temp.unlink()
    except OSError:
        pass
    shutil.rmtree(ckpt, ignore_errors=True)
    return True


def _chain_before(view, point) -> list[int]:
    chain = view.chain.chain
    pos = chain.index(point.record)
    return chain[:pos]


def fork(
    view,
    point=None,
    *,
    dry_run: bool = False,
    inherit_all: bool = False,
    op: str = "fork",
    before_rename: Callable[[ForkResult, dict[str, Any]], None] | None = None,
) -> ForkResult:
    """Fork ``view`` into a new session holding its history up to ``point`` (FORMAT.md §8.7).

    Args:
        view: a :class:`sidtui.core.views.session.SessionView` of a loadable jsonl session.
        point: a :class:`sidtui.core.edits.points.RewindPoint`; the fork ends right before that
            prompt. None copies the whole live chain.
        dry_run: write nothing.
        inherit_all: inherit every checkpoint snapshot even when forking at a point (a
            rewind ``as_fork`` restores files from the snapshots after the point); by
            default a fork at a point inherits only the snapshots taken before it.
        op / before_rename: see :func:`write_copy` (a rewind ``--fork`` runs its file step
            there).

    Returns:
        A :class:`ForkResult`. The source file is byte-for-byte unchanged.

    Raises:
        UsageError: a v1/legacy file, or a file the agent cannot load (use salvage).
        ForkError: the new file could not be written.
    """
    view = current_view(view)
    require_chained(view, "fork")
    leftovers, resumed = finish_leftovers(view, op, dry_run=dry_run)
    if resumed is not None:
        return resumed
    if point is not None:
        point = get_point(view, point)  # still on the live chain of the file as it is now
    indexes = view.chain.chain if point is None else _chain_before(view, point)
    extra = {"toPoint": point.id} if point is not None else None
    result = write_copy(
        view,
        list(indexes),
        forked_from_extra=extra,
        dry_run=dry_run,
        inherit_before_ms=None if (point is None or inherit_all) else point.timestamp_ms,
        op=op,
        before_rename=before_rename,
    )
    pending = pending_journal(view)
    result.warnings[:0] = leftovers + ([pending] if pending else [])
    return result


def pending_journal(view) -> str | None:
    """The warning for a journal pending in ``view``'s session (a killed undo, redo,
    restore or rewind in place), which a fork leaves there; None when there is none."""
    j = read_journal(view.home.checkpoint_folder(view.file.checkpoint_id))
    if j is None:
        return None
    return (
        f"an interrupted sidtui {j.get('op', 'operation')} of this session is pending; a "
        "fork leaves it so (the next undo, redo, restore or rewind in place finishes it)"
    )


def finish_leftovers(
    view, op: str, *, dry_run: bool = False
) -> tuple[list[str], ForkResult | None]:
    """Finish or remove the copies killed runs left in ``view``'s folder.

    Args:
        dry_run: say what a real run would do first; write nothing.

    Returns:
        ``(what was done, the copy of this same request an interrupted run finished)``:
        when the latter is set, that is all this run does (a dry run: would do).
    """
    notes: list[str] = []
    resumed: ForkResult | None = None
    for f in finish_forks(view.home, view.file.path.parent, dry_run=dry_run):
        info = f.fork or {}
        if f.changed and resumed is None and f.op == op and info.get("source") == view.session_id:
            resumed = ForkResult(
                session_id=f.session_id or "",
                path=Path(str(info.get("transcript"))),
                source_session_id=view.session_id,
                source_path=view.file.path,
                source_tail_uuid=None,
                message_count=int(info.get("messageCount") or 0),
                records_copied=int(info.get("recordsCopied") or 0),
                warnings=[f.describe()],
                dry_run=dry_run,
                resumed=True,
            )
        else:
            notes.append(f.describe())
    if resumed is not None:
        resumed.warnings.extend(notes)
    return notes, resumed


def require_chained(view, verb: str) -> None:
    """Refuse a v1 file or a sidechain (and, unless salvaging, a file the agent cannot load).

    Raises:
        UsageError: with what to do instead.
    """
    if view.rf is None:
        raise UsageError(f"cannot {verb} a v1 whole-file JSON session ({view.file.path.name})")
    if view.file.kind != "main":
        raise UsageError(f"cannot {verb} a sidechain file; {verb} its parent session")
    if verb != "salvage" and not view.loaded.loadable:
        raise UsageError(
            f"the agent cannot load {view.file.path.name} "
            f"({view.loaded.load_failure}); use `sidtui salvage` instead"
        )

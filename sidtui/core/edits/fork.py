"""Fork and salvage: new sessions made from an existing one (FORMAT.md §8.7, §10.11, §11.5).

**Fork** (:func:`fork`) writes a new session file in the same project folder, in the agent's
own fork shape (the S05 fixture): ``session_start`` whose ``parentUuid`` is the *source
session id*; then ``metadata forked_from {sessionId, uuid, messageCount}`` (the anchor goes
first so a half-copied fork is still recognisable, FORMAT.md §8.7); then the history with fresh
uuids, re-chained, each message carrying ``message._meta`` as the agent's loader returns it.
Checkpoints are inherited through the checkpoint layer (deep copy into the empty child
index). The source file and its ``index.json`` are never written.

**Salvage** (:func:`salvage`) is a fork of a file the agent cannot load at all (its chain
never reaches ``session_start``: a torn line glued to the next record, a lost parent, a
cycle). The readable pieces are stitched back together: from the live tail, each piece
whose first record's parent is lost (or cyclic, or a head without ``session_start``) is
joined onto the chain ending at the physically preceding record, until a
``session_start`` is reached. The ``forked_from`` record names the source and what was
left out (bad lines, records not on the stitched chain, the joins made).

[sidtui] choices (docs/DECISIONS.md, issue 4): copied records keep their original
``timestamp`` (the agent re-stamps them) so rewind points of the copy still map onto the
inherited checkpoints; metadata on the copied chain is copied too (so todo/goal/usage state
restores as it was at that point), except ``trace_session_id``, ``forked_from`` and
sidtui's own markers; ``session_start``/``session_end`` of the source are not copied.
"""

from __future__ import annotations

import os
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sidtui.core.base.errors import SidtuiError, UsageError
from sidtui.core.transcript.chain import ChainResult, ancestors, longest_readable_chain
from sidtui.core.transcript.loader import MESSAGE_RECORD_TYPES, LoadedSession, load_jsonl
from sidtui.core.transcript.records import RecordFile
from sidtui.core.transcript.writer import SessionStore, flush_pending_writes

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
        session_id: the new session's id.
        path: the new file.
        source_session_id: the source's id.
        source_path: the source file.
        source_tail_uuid: uuid of the last source record copied (``forked_from.uuid``).
        message_count: messages copied.
        records_copied: records copied (messages, metadata, compacts, opaque records).
        checkpoints_inherited: snapshots inherited (0 when the source has none).
        warnings: non-fatal problems (checkpoint inheritance failed, ...).
        left_out: for salvage, what was not copied (see :func:`salvage`).
        dry_run: nothing was written.
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
    dry_run: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "path": str(self.path),
            "source_session_id": self.source_session_id,
            "source_path": str(self.source_path),
            "source_tail_uuid": self.source_tail_uuid,
            "message_count": self.message_count,
            "records_copied": self.records_copied,
            "checkpoints_inherited": self.checkpoints_inherited,
            "warnings": self.warnings,
            "left_out": self.left_out,
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


def _copy_records(
    store: SessionStore, rf: RecordFile, indexes: list[int], loaded: LoadedSession
) -> tuple[int, int]:
    """Append ``indexes`` (already filtered) to ``store``; returns (records, messages)."""
    by_record = {m.record: m for m in loaded.messages}
    records = messages = 0
    for i in indexes:
        rec = rf.records[i]
        d = rf.decode(rec)
        if rec.type in MESSAGE_RECORD_TYPES:
            m = by_record.get(i)
            msg = d.get("message")
            if m is None or not isinstance(msg, dict):
                continue  # the loader skips it too
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
    home, source_id: str, child_id: str, warnings: list[str], before_ms: int | None = None
) -> int:
    """Inherit the source's checkpoints into the child through the checkpoint layer (FORMAT.md §10.11);
    a fork at a point inherits only the snapshots taken before that point's prompt."""
    from sidtui.core.checkpoints.evict import inherit_from

    res = inherit_from(home, source_id, child_id, int(time.time() * 1000), before_ms)
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
) -> ForkResult:
    """Write a new session from chain records ``indexes`` of ``view`` (a SessionView).

    Args:
        view: the source (:class:`sidtui.core.views.session.SessionView` of a jsonl file).
        indexes: record indexes to copy, oldest first.
        forked_from_extra: extra keys for the ``forked_from`` value (after the agent's).
        dry_run: compute the result, write nothing.
        inherit: inherit the source's checkpoints.
        inherit_before_ms: inherit only snapshots taken before this time (ms).

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
    if dry_run:
        return result
    errors: list[str] = []
    store = SessionStore(folder, on_error=lambda f: errors.append(f.error))
    store.start_session(
        new_id,
        start["model"],
        start["provider"],
        start["cwd"],
        forked_from_session_id=source_id,
    )
    value: dict[str, Any] = {"sessionId": source_id}
    if tail_uuid:
        value["uuid"] = tail_uuid
    value["messageCount"] = message_count
    if forked_from_extra:
        value.update(forked_from_extra)
    store.append_metadata("forked_from", value)
    result.records_copied, result.message_count = _copy_records(store, rf, copy_idx, sub_loaded)
    store.flush()
    if errors:
        try:
            os.unlink(result.path)
        except OSError:
            pass
        raise ForkError(f"could not write {result.path}: {errors[0]}")
    if inherit:
        result.checkpoints_inherited = _inherit_checkpoints(
            view.home, source_id, new_id, result.warnings, inherit_before_ms
        )
    return result


def _chain_before(view, point) -> list[int]:
    chain = view.chain.chain
    pos = chain.index(point.record)
    return chain[:pos]


def fork(view, point=None, *, dry_run: bool = False, inherit_all: bool = False) -> ForkResult:
    """Fork ``view`` into a new session holding its history up to ``point`` (FORMAT.md §8.7).

    Args:
        view: a :class:`sidtui.core.views.session.SessionView` of a loadable jsonl session.
        point: a :class:`sidtui.core.edits.rewind.RewindPoint`; the fork ends right before that
            prompt. None copies the whole live chain.
        dry_run: write nothing.
        inherit_all: inherit every checkpoint snapshot even when forking at a point (a
            rewind ``as_fork`` restores files from the snapshots after the point); by
            default a fork at a point inherits only the snapshots taken before it.

    Returns:
        A :class:`ForkResult`. The source file is byte-for-byte unchanged.

    Raises:
        UsageError: a v1/legacy file, or a file the agent cannot load (use salvage).
        ForkError: the new file could not be written.
    """
    from sidtui.core.edits.rewind import current_view, get_point

    view = current_view(view)
    _require_chained(view, "fork")
    if point is not None:
        point = get_point(view, point)  # still on the live chain of the file as it is now
    indexes = view.chain.chain if point is None else _chain_before(view, point)
    extra = {"toPoint": point.id} if point is not None else None
    return write_copy(
        view,
        list(indexes),
        forked_from_extra=extra,
        dry_run=dry_run,
        inherit_before_ms=None if (point is None or inherit_all) else point.timestamp_ms,
    )


def _require_chained(view, verb: str) -> None:
    if view.rf is None:
        raise UsageError(f"cannot {verb} a v1 whole-file JSON session ({view.file.path.name})")
    if view.file.kind != "main":
        raise UsageError(f"cannot {verb} a sidechain file; {verb} its parent session")
    if verb != "salvage" and not view.loaded.loadable:
        raise UsageError(
            f"the agent cannot load {view.file.path.name} "
            f"({view.loaded.load_failure}); use `sidtui salvage` instead"
        )


# --------------------------------------------------------------------------- salvage


def stitch_readable(rf: RecordFile, tail: int) -> tuple[list[int], list[dict[str, Any]]]:
    """Join the readable pieces ending at ``tail`` into one chain (see module docstring).

    Returns:
        (record indexes oldest first, joins ``[{line, after_line, reason}]``).
        Terminates: each join moves strictly to earlier physical records.
    """
    recs = rf.records
    taken: set[int] = set()
    pieces: list[list[int]] = []
    joins: list[dict[str, Any]] = []
    seq = ancestors(rf, tail)
    while seq:
        pieces.append(seq)
        taken.update(seq)
        first = recs[seq[0]]
        if first.type == "session_start":
            break
        j = min(seq) - 1
        while j >= 0 and (recs[j].uuid is None or j in taken):
            j -= 1
        if j < 0:
            break
        if first.parent is None:
            reason = "a head without session_start"
        elif any(recs[i].uuid == first.parent for i in seq):
            reason = f"cycle at {first.parent}"
        else:
            reason = f"parent {first.parent} is not in the file"
        joins.append({"line": first.line, "after_line": recs[j].line, "reason": reason})
        seq = [i for i in ancestors(rf, j) if i not in taken]
    out = [i for piece in reversed(pieces) for i in piece]
    return out, joins


def salvage(view, *, dry_run: bool = False) -> ForkResult:
    """Write a loadable copy of a session the agent cannot load (issue 4 §5).

    The stitched chain (or, if it holds fewer messages, the longest readable chain) is
    copied into a new session with fresh uuids, a proper ``session_start`` and a
    ``forked_from`` record whose ``salvage`` field names the source file and what was
    left out: ``badLines`` ``[{line, reason}]``, ``recordsNotCopied`` (records off the
    salvaged chain), ``joins``. The source stays untouched.

    Raises:
        UsageError: the agent loads this file already (fork it instead), or it is a v1
            file/sidechain, or nothing in it is readable.
        ForkError: the new file could not be written.
    """
    from sidtui.core.edits.rewind import current_view

    view = current_view(view)
    _require_chained(view, "salvage")
    if view.loaded.loadable:
        raise UsageError(
            f"nothing to salvage: the agent loads {view.file.path.name} "
            "(use `sidtui fork` to copy it)"
        )
    rf: RecordFile = view.rf
    if not rf.records:
        raise UsageError(f"nothing readable in {view.file.path.name}")
    flush_pending_writes(view.file.path)
    if view.chain.linear:
        indexes, joins = list(view.chain.chain), []
    else:
        indexes, joins = stitch_readable(rf, view.chain.tail)
        longest = longest_readable_chain(rf, view.tree)

        def n_messages(ix: list[int]) -> int:
            return sum(1 for i in ix if rf.records[i].type in MESSAGE_RECORD_TYPES)

        if n_messages(longest) > n_messages(indexes):
            indexes, joins = longest, []
    on = set(indexes)
    left_out = {
        "badLines": [{"line": b.line, "reason": b.reason} for b in rf.bad_lines],
        "recordsNotCopied": sum(1 for r in rf.records if r.index not in on),
        "joins": joins,
    }
    extra = {"salvage": {"sourcePath": str(view.file.path), **left_out}}
    result = write_copy(view, indexes, forked_from_extra=extra, dry_run=dry_run)
    result.left_out = left_out
    return result

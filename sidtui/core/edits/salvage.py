"""Salvage: a loadable copy of a session the agent cannot load (FORMAT.md §11.5).

A salvage (:func:`salvage`) is a fork of a file the agent cannot load at all (its chain
never reaches ``session_start``: a torn line glued to the next record, a lost parent, a
cycle). The readable pieces are stitched back together: from the live tail, each piece
whose first record's parent is lost (or cyclic, or a head without ``session_start``) is
joined onto the chain ending at the physically preceding record, until a
``session_start`` is reached. The ``forked_from`` record names the source and what was
left out (bad lines, records not on the stitched chain, the joins made).
The copy is written as a fork (:func:`sidtui.core.edits.fork.write_copy`).
"""

from __future__ import annotations

from typing import Any

from sidtui.core.base.errors import UsageError
from sidtui.core.edits.fork import ForkResult, finish_leftovers, require_chained, write_copy
from sidtui.core.transcript.chain import ancestors, longest_readable_chain
from sidtui.core.transcript.messages import MESSAGE_RECORD_TYPES
from sidtui.core.transcript.records import RecordFile
from sidtui.core.transcript.writer import flush_pending_writes
from sidtui.core.views.session import current_view


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
    """Write a loadable copy of a session the agent cannot load, or cannot resume (its
    resume pipeline throws on a message: that copy repairs or leaves out such messages,
    :attr:`ForkResult.repairs`) (FORMAT.md §11.5).

    The stitched chain (or, if it holds fewer messages, the longest readable chain) is
    copied into a new session with fresh uuids, a proper ``session_start`` and a
    ``forked_from`` record whose ``salvage`` field names the source file and what was
    left out: ``badLines`` ``[{line, reason}]``, ``recordsNotCopied`` (records off the
    salvaged chain), ``joins``; :attr:`ForkResult.left_out` says the same in snake_case
    (``bad_lines``, ``records_not_copied``, ``joins``, ``resume_failure``). The source
    stays untouched.

    Raises:
        UsageError: the agent loads and resumes this file already (fork it instead), or it is a v1
            file/sidechain, or nothing in it is readable.
        ForkError: the new file could not be written.
    """
    view = current_view(view)
    require_chained(view, "salvage")
    rec = view.recovery
    fails = view.loaded.loadable and rec is not None and rec.failure is not None
    if view.loaded.loadable and not fails:
        raise UsageError(
            f"nothing to salvage: the agent loads {view.file.path.name} "
            "(use `sidtui fork` to copy it)"
        )
    rf: RecordFile = view.rf
    if not rf.records:
        raise UsageError(f"nothing readable in {view.file.path.name}")
    flush_pending_writes(view.file.path)
    joins: list[dict[str, Any]] = []
    if view.chain.linear or fails:  # (the agent loads it; only its resume fails)
        indexes = list(view.chain.chain)
    else:
        indexes, joins = stitch_readable(rf, view.chain.tail)
        longest = longest_readable_chain(rf, view.tree)

        def n_messages(ix: list[int]) -> int:
            return sum(1 for i in ix if rf.records[i].type in MESSAGE_RECORD_TYPES)

        if n_messages(longest) > n_messages(indexes):
            indexes, joins = longest, []
    on = set(indexes)
    left_out = {
        "bad_lines": [{"line": b.line, "reason": b.reason} for b in rf.bad_lines],
        "records_not_copied": sum(1 for r in rf.records if r.index not in on),
        "joins": joins,
    }
    if fails:
        left_out["resume_failure"] = rec.failure
    # the copy's ``forked_from.salvage`` is a record field: the agent's camelCase (FORMAT.md)
    extra = {
        "salvage": {
            "sourcePath": str(view.file.path),
            "badLines": left_out["bad_lines"],
            "recordsNotCopied": left_out["records_not_copied"],
            "joins": joins,
            **({"resumeFailure": rec.failure} if fails else {}),
        }
    }
    leftovers, resumed = finish_leftovers(view, "salvage", dry_run=dry_run)
    if resumed is not None:  # an interrupted salvage of this file was finished: that is all
        resumed.left_out = left_out
        return resumed
    result = write_copy(view, indexes, forked_from_extra=extra, dry_run=dry_run, op="salvage")
    result.left_out = left_out
    result.warnings[:0] = leftovers
    return result

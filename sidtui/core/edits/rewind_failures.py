"""The messages of a rewind that failed part-way: what was changed, what was not, and
the command that finishes or takes it back (:mod:`sidtui.core.edits.rewind`)."""

from __future__ import annotations

from typing import Any


def half_done(result: Any, exc: BaseException) -> str:
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
        f"{result.point.id if result.point else 'N'} --mode conversation`"
    )


def step_failed(step: Any, session_id: str, fork_id: str | None = None) -> str:
    """The message of a file step some files of which failed to be written: the
    conversation was left untouched (in place) or the fork written; an unfinished step's
    journal stays for the same rewind to finish (files, then the conversation)."""
    head = f"the file step failed for {len(step.failed)} file(s) ({step.failed[0]})"
    where = " in its checkpoints" if fork_id else ""
    held = f"safety snapshot {step.safety}{where} holds the files as they were"
    again = (
        f"; it is unfinished and its journal stays: once the cause is fixed, the same rewind "
        f"(or any undo, redo, restore or rewind of {fork_id or session_id}) finishes it"
    )
    if fork_id:
        return f"{head}; fork {fork_id} was written; {held}" + (again if step.unfinished else "")
    if step.unfinished:
        return f"{head}; the conversation was left untouched; {held}{again}"
    return f"{head}; the conversation was left untouched; {held} (`sidtui redo {session_id}` takes it back)"

"""What a Claude Code fork being written keeps beside the home, and what a killed one left.

:func:`~sidtui.core.claude.fork.write_fork` keeps a journal in
``<claude home>/sidtui/forks/<new id>/`` while it writes (:func:`forks_dir`); the next fork
removes what a dead writer left (:func:`clean_dead_forks`) and says so; until then the
read verbs say it pending (:func:`pending_forks`, through ``Source.pending_journals``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sidtui.core.base import safefs
from sidtui.core.checkpoints.journal import (
    JOURNAL_NAME,
    read_journal,
    remove_journal,
    writer_running,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

    from sidtui.core.checkpoints.journal import PendingJournal

#: what removes a killed fork's leftovers (:func:`clean_dead_forks` runs first in each)
FINISHED_BY = (
    "the next sidtui fork, branch, rewind or repair in this Claude Code home removes it first"
)


def forks_dir(blob_dir: Path) -> Path:
    """``<claude home>/sidtui/forks/`` of a fork whose blobs go to ``blob_dir``
    (``<claude home>/file-history/<new id>``): one folder per fork being written, holding
    its journal (sidtui's own folder: Claude Code never reads it)."""
    return blob_dir.parent.parent / "sidtui" / "forks"


def drop_journal(folder: Path) -> None:
    """Remove a fork's journal and its folder, and ``sidtui/forks/`` and ``sidtui/``
    when nothing else is left in them (a home sidtui leaves as it found it)."""
    remove_journal(folder)
    safefs.remove_stale_temps(folder)
    for d in (folder, folder.parent, folder.parent.parent):
        try:
            d.rmdir()
        except OSError:
            return


def clean_dead_forks(
    blob_dir: Path, sessions_folder: Path
) -> tuple[list[str], list[dict[str, Any]]]:
    """Remove what killed sidtui forks left: for each journal in :func:`forks_dir` whose
    writer is gone, the blob folder it made when its transcript never landed (a complete
    copy keeps everything), then the journal; and the dead writers' temp files in
    ``sessions_folder``. Never raises.

    Returns:
        ``(one sentence per copy removed, the complete copies: {id, op, part})``.
    """
    import shutil

    notes: list[str] = []
    complete: list[dict[str, Any]] = []
    base = forks_dir(blob_dir)
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except OSError:
        entries = []
    for e in entries:
        folder = Path(e.path)
        j = read_journal(folder)
        part = j.get("claudeFork") if isinstance(j, dict) else None
        if j is None:  # killed while writing its journal: only a dead writer's temp
            drop_journal(folder)
            continue
        if not isinstance(part, dict) or (
            j.get("pid") != os.getpid() and writer_running(j, folder)
        ):
            continue
        transcript = Path(str(part.get("transcript")))
        blobs = Path(str(part.get("blobDir")))
        if not transcript.exists():
            if part.get("madeDir") is True and blobs == blob_dir.parent / e.name:
                shutil.rmtree(blobs, ignore_errors=True)
            notes.append(f"removed the incomplete copy {e.name} a killed sidtui fork left")
        else:
            safefs.remove_stale_temps(blobs)
            complete.append({"id": e.name, "op": j.get("op"), "part": part})
        drop_journal(folder)
    safefs.remove_stale_temps(sessions_folder)
    return notes, complete


def pending_forks(folder: Path, session_ids: Iterable[str] | None = None) -> list[PendingJournal]:
    """The journals killed (or running) forks left in ``folder`` (a home's
    ``sidtui/forks/``), each as a pending fork of its source session; with
    ``session_ids``, only the forks of (or into) those sessions. Never raises; a home
    without the folder costs one ``scandir``.
    """
    from sidtui.core.checkpoints.journal import PendingJournal

    try:
        with os.scandir(folder) as it:
            names = sorted(e.name for e in it)
    except OSError:
        return []
    wanted = None if session_ids is None else set(session_ids)
    found = []
    for name in names:
        path = folder / name / JOURNAL_NAME
        j = read_journal(path.parent)
        if j is None:  # no journal (a dead writer's temp only), or finished meanwhile
            continue
        if "invalid" in j:
            if wanted is None or name in wanted:
                found.append(PendingJournal(name, path, invalid=str(j["invalid"])))
            continue
        part = j.get("claudeFork")
        part = part if isinstance(part, dict) else {}
        source = part.get("source")
        source = str(source) if source else None
        if wanted is not None and name not in wanted and source not in wanted:
            continue
        pid = j.get("pid")
        pid = pid if isinstance(pid, int) and not isinstance(pid, bool) else None
        transcript = part.get("transcript")
        found.append(
            PendingJournal(
                name,
                path,
                op=str(j.get("op") or "fork"),
                pid=pid,
                running=pid is not None and pid != os.getpid() and writer_running(j, path.parent),
                fork_of=source or name,
                then=FINISHED_BY,
                complete=isinstance(transcript, str) and os.path.lexists(transcript),
            )
        )
    return found

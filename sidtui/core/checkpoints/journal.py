"""The journal of a write in progress: ``checkpoints/<sessionId>/sidtui-journal.json``.

Written atomically before the safety snapshot and removed when every step is done, so a
killed undo, redo, restore, rewind or fork leaves it behind and the next mutating verb
finishes that work instead of starting another (docs/DECISIONS.md, "Writes on a hostile
disk"). Its ``token`` is also the safety snapshot's ``sidtuiJournal``.

Design notes (the shape): docs/ARCHITECTURE.md, “core/checkpoints/journal.py”.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson

from sidtui.core.base import safefs
from sidtui.core.base.regular import NotRegularFile, TooBig, read_regular

JOURNAL_NAME = "sidtui-journal.json"
VERSION = 1


def journal_path(folder: Path) -> Path:
    """The journal of the checkpoint folder ``folder`` (``checkpoints/<sessionId>/``)."""
    return Path(folder) / JOURNAL_NAME


def read_journal(folder: Path) -> dict[str, Any] | None:
    """The pending journal of ``folder``; None when there is none.

    A journal that is not a JSON object (hand-edited, a foreign file) is returned as
    ``{"invalid": reason}`` so the caller can report it rather than guess.
    """
    path = journal_path(folder)
    try:
        data = read_regular(path, 16 * 1024 * 1024, follow=False)
    except FileNotFoundError:
        return None
    except (NotRegularFile, TooBig):
        return {"invalid": f"{path} is not a journal sidtui wrote"}
    except OSError as exc:
        return {"invalid": f"cannot read {path}: {exc.strerror or exc}"}
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return {"invalid": f"{path} is not valid JSON"}
    if not isinstance(value, dict) or value.get("version") != VERSION:
        return {"invalid": f"{path} is not a journal sidtui wrote"}
    return value


def write_journal(folder: Path, journal: dict[str, Any]) -> None:
    """Write ``journal`` into ``folder`` atomically (the folder is created when missing)."""
    body = {"version": VERSION, "pid": os.getpid(), **journal}
    safefs.write_atomic(journal_path(folder), orjson.dumps(body, option=orjson.OPT_INDENT_2))


def remove_journal(folder: Path) -> None:
    """Remove the journal (done). Never raises."""
    try:
        safefs.remove(journal_path(folder))
    except OSError:
        pass


def safety_position(index: Any, token: str) -> int:
    """Position of the safety snapshot written under ``token``; -1 when there is none."""
    for i in range(len(index.snapshots) - 1, -1, -1):
        if index.snapshots[i].get("sidtuiJournal") == token:
            return i
    return -1

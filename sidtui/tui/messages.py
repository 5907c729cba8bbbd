"""Messages the workers post to the screens (facts, past tense; STYLE.md)."""

from __future__ import annotations

from typing import Any

from textual.message import Message


class SessionsScanned(Message):
    """A batch of summaries arrived from the scan worker.

    Attributes:
        rows: ``SessionSummary`` objects (new or changed; every row when ``replace``).
        files: their ``SessionFile`` objects, same order.
        done / total: files summarized so far / to summarize (progress).
        final: the scan is complete (the table may now be sorted once).
        removed: paths that disappeared since the last scan.
        errors: one line per unreadable file.
    """

    def __init__(
        self,
        rows: list[Any],
        files: list[Any],
        done: int,
        total: int,
        *,
        final: bool = False,
        removed: list[str] | None = None,
        errors: list[str] | None = None,
        incremental: bool = False,
        replace: bool = False,
    ) -> None:
        super().__init__()
        self.rows = rows
        self.files = files
        self.done = done
        self.total = total
        self.final = final
        self.removed = removed or []
        self.errors = errors or []
        self.incremental = incremental
        self.replace = replace


class SessionLoaded(Message):
    """A session finished loading in a worker: its view and the tab models built from it."""

    def __init__(self, view: Any, conversation: Any, chain: Any, *, reload: bool = False) -> None:
        super().__init__()
        self.view = view
        self.conversation = conversation
        self.chain = chain
        self.reload = reload


class SessionLoadFailed(Message):
    """Opening a session failed (``error`` is worded for users)."""

    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


class SessionChanged(Message):
    """The open session's file changed on disk (size/mtime), so it will be re-read."""


class LiveChanged(Message):
    """The watcher saw changes under the home (``paths``: files it named)."""

    def __init__(self, paths: set[str]) -> None:
        super().__init__()
        self.paths = paths

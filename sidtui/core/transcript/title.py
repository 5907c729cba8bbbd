"""A session's title as a user names it (``sidtui rename``): the rules every source shares.

What each agent writes for a title is its adapter's: sid-code's ``session_name`` metadata
(:mod:`sidtui.core.edits.title`, docs/FORMAT.md §3.7), Claude Code's ``custom-title`` +
``agent-name`` records (:mod:`sidtui.core.claude.title`, docs/CLAUDE-CODE.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sidtui.core.base.errors import UsageError

MAX_TITLE_CHARS = 200
"""The longest title taken (characters): a title is a name, not a note."""


def clean_title(text: str) -> str:
    """``text`` stripped, as a title.

    Raises:
        UsageError: empty after stripping, more than one line, a control character, not UTF-8, or
            longer than :data:`MAX_TITLE_CHARS` (exit 2; nothing is written).
    """
    title = text.strip()
    if not title:
        raise UsageError("a title needs at least one character that is not a space")
    if any(c in "\r\n\u2028\u2029" for c in title):
        raise UsageError("a title is one line: it holds a line break")
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in title):
        raise UsageError("a title holds a control character")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in title):
        raise UsageError("a title must be valid UTF-8 text")
    if len(title) > MAX_TITLE_CHARS:
        raise UsageError(
            f"a title is at most {MAX_TITLE_CHARS} characters (this one has {len(title)})"
        )
    return title


@dataclass(frozen=True)
class Renamed:
    """What ``rename`` did.

    Attributes:
        source: the source's name (``"sid-code"``, ``"claude-code"``).
        session_id, file: the session and its transcript.
        title: the new title; previous: the title it had (None: none was set).
        records: how many records were appended (0: the title was already this one).
    """

    source: str
    session_id: str
    file: Path
    title: str
    previous: str | None
    records: int

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "session_id": self.session_id,
            "file": str(self.file),
            "title": self.title,
            "previous_title": self.previous,
            "records_appended": self.records,
        }

"""Renaming a Claude Code session as its own ``/rename`` does (docs/CLAUDE-CODE.md §9).

Claude Code 2.1.332's ``/rename NAME`` appends two records outside the conversation tree,
``{"type":"custom-title","customTitle":NAME,"sessionId":ID}`` and
``{"type":"agent-name","agentName":NAME,"sessionId":ID}`` (seen in the lab; vendored in
``tests/fixtures/claude-code-rename/``); the last ``custom-title`` wins, and
``claude -p --resume NAME`` then finds the session by it. sidtui appends the same two lines
in one ``write()`` after a whole record; the conversation a resume sends does not change.
"""

from __future__ import annotations

from typing import Any

from sidtui.core.base.jsonout import stringify
from sidtui.core.transcript.append import AppendError, TailPolicy, append_records

_HEADS = (b'{"type":"custom-title","customTitle":', b'{"type":"agent-name","agentName":')


def title_records(title: str, session_id: str) -> bytes:
    """The two lines Claude Code writes for ``/rename title`` in session ``session_id``."""
    custom = {"type": "custom-title", "customTitle": title, "sessionId": session_id}
    agent = {"type": "agent-name", "agentName": title, "sessionId": session_id}
    return stringify(custom) + b"\n" + stringify(agent) + b"\n"


def title_of(view: Any) -> str | None:
    """The title a user or Claude Code gave the session (``custom-title`` > ``ai-title``)."""
    return view.title if view.title_source in ("custom-title", "ai-title") else None


def write_title(view: Any, title: str, *, policy: TailPolicy | None = None) -> int:
    """Append the ``/rename`` records for ``title`` to ``view``'s file; records written.

    Raises:
        AppendError: the file's tail is a torn record, or the append failed.
    """
    append_records(
        view.file.path,
        title_records(title, view.session_id),
        policy=policy,
        heads=_HEADS,
        error=AppendError,
        noun="title",
    )
    return 2

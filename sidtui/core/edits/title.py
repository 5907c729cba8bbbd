"""Renaming a sid-code session: a ``session_name`` metadata record (docs/FORMAT.md §3.7).

The agent's own ``/rename`` writes ``{type: metadata, key: session_name, value: NAME}`` on the
chain; the last one on the chain wins (§5.5). sidtui appends the same record hanging off the
record a resume continues from, so the conversation a resume loads does not change and the
title is the last ``session_name`` on the chain.
"""

from __future__ import annotations

from typing import Any

from sidtui.core.base.errors import SidtuiError
from sidtui.core.edits.marker import append_marker
from sidtui.core.transcript.append import TailPolicy


def title_of(view: Any) -> str | None:
    """The title a sid-code session has now (its last ``session_name`` on the chain)."""
    name = view.loaded.metadata.get("session_name")
    return name if isinstance(name, str) else None


def write_title(view: Any, title: str, *, policy: TailPolicy | None = None) -> int:
    """Append the ``session_name`` record for ``title`` to ``view``'s file; records written.

    Raises:
        SidtuiError: a v1 whole-file JSON session (the agent rewrites it whole), or one
            the agent cannot load (a title on it would never be seen).
        MarkerError: the file's tail is a torn record, or the append failed.
    """
    path = view.file.path
    if view.file.container == "json":
        raise SidtuiError(
            f"{path} is a v1 whole-file JSON session: records are not appended to it "
            "(the agent rewrites it whole when it resumes it)"
        )
    leaf = view.resume_leaf
    if not view.loaded.loadable or view.loaded.fatal is not None or leaf is None:
        why = view.loaded.load_failure or view.loaded.fatal or "no conversation on its chain"
        raise SidtuiError(
            f"the agent cannot load {path} ({why}): a title on it would never be seen — "
            "`sidtui salvage` writes a loadable copy to rename"
        )
    append_marker(view.file.path, leaf, "session_name", title, policy=policy)
    return 1

"""The agents whose homes sidtui reads, behind one interface (docs/ARCHITECTURE.md "Sources").

:class:`~.base.Source` is the interface; :class:`~.sidcode.SidCodeSource` (``~/.sid-code``)
and :class:`~.claude.ClaudeSource` (``~/.claude``) implement it. :func:`homes` picks the
sources a command reads from the home flags and the environment; :func:`source_of_file`
tells which agent wrote a transcript from its content.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from sidtui.core.sources.base import MUTATIONS, SessionModel, SessionRef, Source
from sidtui.core.sources.claude import ClaudeSource
from sidtui.core.sources.sidcode import SidCodeSource

__all__ = [
    "DEFAULT",
    "MUTATIONS",
    "SOURCES",
    "ClaudeSource",
    "SessionModel",
    "SessionRef",
    "SidCodeSource",
    "Source",
    "by_name",
    "homes",
    "source_for",
    "source_of_file",
]

#: Every source, in listing order.
SOURCES: tuple[type[SidCodeSource] | type[ClaudeSource], ...] = (SidCodeSource, ClaudeSource)

#: The source whose home is the default one (``--home``, ``$SID_CONFIG_DIR``): a session
#: argument no other source claims is resolved by its rules and said in its words.
DEFAULT = SidCodeSource


def by_name(name: str) -> type[SidCodeSource] | type[ClaudeSource]:
    """The source class called ``name`` (``sid-code``, ``claude-code``).

    Raises:
        KeyError: no such source.
    """
    for cls in SOURCES:
        if cls.name == name:
            return cls
    raise KeyError(name)


def source_for(model: SessionModel) -> Source:
    """The source of a session read into the common model (``model.source``): the writer
    the app's dialogs drive."""
    return by_name(model.source).of_model(model)


def homes(
    sid_home: str | os.PathLike[str] | None,
    claude_home: str | os.PathLike[str] | None,
    env: Mapping[str, str],
) -> tuple[list[Source], bool]:
    """The sources a command reads, and whether they were named.

    A home flag names its source (both flags: both). With neither, every source whose
    home (from its environment variable, else its default place) exists; when none
    exists, the sid-code one (so the usual "no home" message names it).

    Returns:
        ``(sources, named)``: ``named`` is True when a flag chose them.
    """
    named: list[Source] = []
    if sid_home is not None:
        named.append(SidCodeSource.resolve_home(sid_home, env))
    if claude_home is not None:
        named.append(ClaudeSource.resolve_home(claude_home, env))
    if named:
        return named, True
    found: list[Source] = [
        s for s in (cls.resolve_home(None, env) for cls in SOURCES) if s.exists()
    ]
    return (found or [SidCodeSource.resolve_home(None, env)]), False


def source_of_file(path: str | os.PathLike[str]) -> str | None:
    """Which agent wrote the transcript at ``path``: ``"claude-code"``, ``"sid-code"``, or
    None when its content does not tell (empty, unreadable, neither); an empty file in a
    Claude Code home's ``projects/<slug>/`` is Claude Code's."""
    from sidtui.core.claude.layout import home_of, read_head, sniff

    p = Path(path)
    found = sniff(read_head(p))
    if found is None and p.suffix == ".jsonl" and home_of(p) is not None:
        return "claude-code"
    return found

"""The agents whose homes sidtui reads, behind one interface (docs/ARCHITECTURE.md "Sources").

:class:`~.base.Source` is the interface; :class:`~.sidcode.SidCodeSource` (``~/.sid-code``),
:class:`~.claude.ClaudeSource` (``~/.claude``) and :class:`~.codex.CodexSource` (``~/.codex``)
implement it. :func:`homes` picks the
sources a command reads from the home flags and the environment; :func:`source_of_file`
tells which agent wrote a transcript from its content.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from sidtui.core.sources.base import MUTATIONS, SessionModel, SessionRef, Source
from sidtui.core.sources.claude import ClaudeSource
from sidtui.core.sources.codex import CodexSource
from sidtui.core.sources.sidcode import SidCodeSource

__all__ = [
    "MUTATIONS",
    "SOURCES",
    "ClaudeSource",
    "CodexSource",
    "SessionModel",
    "SessionRef",
    "SidCodeSource",
    "Source",
    "by_name",
    "homes",
    "source_of_file",
]

#: Every source, in listing order.
SourceClass = type[SidCodeSource] | type[ClaudeSource] | type[CodexSource]
SOURCES: tuple[SourceClass, ...] = (SidCodeSource, ClaudeSource, CodexSource)


def by_name(name: str) -> SourceClass:
    """The source class called ``name`` (``sid-code``, ``claude-code``, ``codex``).

    Raises:
        KeyError: no such source.
    """
    for cls in SOURCES:
        if cls.name == name:
            return cls
    raise KeyError(name)


def homes(
    sid_home: str | os.PathLike[str] | None,
    claude_home: str | os.PathLike[str] | None,
    env: Mapping[str, str],
    codex_home: str | os.PathLike[str] | None = None,
) -> tuple[list[Source], bool]:
    """The sources a command reads, and whether they were named.

    A home flag names its source (several flags: those). With none, every source whose
    home (from its environment variable, else its default place) exists and that is
    read without being named (a source may say ``found_unnamed = False``); when none exists,
    the sid-code one (so the usual "no home" message names it).

    Returns:
        ``(sources, named)``: ``named`` is True when a flag chose them.
    """
    named: list[Source] = []
    if sid_home is not None:
        named.append(SidCodeSource.resolve_home(sid_home, env))
    if claude_home is not None:
        named.append(ClaudeSource.resolve_home(claude_home, env))
    if codex_home is not None:
        named.append(CodexSource.resolve_home(codex_home, env))
    if named:
        return named, True
    found: list[Source] = [
        s
        for s in (
            cls.resolve_home(None, env) for cls in SOURCES if getattr(cls, "found_unnamed", True)
        )
        if s.exists()
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

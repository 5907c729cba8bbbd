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
    "DEFAULT",
    "MUTATIONS",
    "SOURCES",
    "ClaudeSource",
    "CodexSource",
    "SessionModel",
    "SessionRef",
    "SidCodeSource",
    "Source",
    "by_name",
    "flag_dest",
    "homes",
    "homes_from_flags",
    "sniff",
    "source_for",
    "source_of_file",
    "source_of_home",
]

#: Bytes of a transcript's head read to tell its agent.
HEAD_BYTES = 64 << 10

#: Every source, in listing order.
SourceClass = type[SidCodeSource] | type[ClaudeSource] | type[CodexSource]
SOURCES: tuple[SourceClass, ...] = (SidCodeSource, ClaudeSource, CodexSource)

#: The source whose home is the default one (``--home``, ``$SID_CONFIG_DIR``): a session
#: argument no other source claims is resolved by its rules and said in its words.
DEFAULT = SidCodeSource


def by_name(name: str) -> SourceClass:
    """The source class called ``name`` (``sid-code``, ``claude-code``, ``codex``).

    Raises:
        KeyError: no such source.
    """
    for cls in SOURCES:
        if cls.name == name:
            return cls
    raise KeyError(name)


def flag_dest(flag: str) -> str:
    """The option name a home flag goes by (``--claude-home`` → ``claude_home``): the
    parsed arguments' attribute, the app's keyword."""
    return flag.lstrip("-").replace("-", "_")


def source_for(model: SessionModel) -> Source:
    """The source of a session read into the common model (``model.source``): the writer
    the app's dialogs drive."""
    return by_name(model.source).of_model(model)


def source_of_home(home: object) -> Source:
    """The source reading ``home`` (a home object of one of :data:`SOURCES`).

    Raises:
        KeyError: no source reads such a home.
    """
    for cls in SOURCES:
        if isinstance(home, cls.home_class):
            src: Source = cls.resolve_home(home.root, {})
            return src
    raise KeyError(type(home).__name__)


def homes(
    sid_home: str | os.PathLike[str] | None,
    claude_home: str | os.PathLike[str] | None,
    env: Mapping[str, str],
    codex_home: str | os.PathLike[str] | None = None,
) -> tuple[list[Source], bool]:
    """:func:`homes_from_flags` with ``--home``, ``--claude-home`` and ``--codex-home``."""
    flags = {"--home": sid_home, "--claude-home": claude_home, "--codex-home": codex_home}
    return homes_from_flags(flags, env)


def homes_from_flags(
    flags: Mapping[str, str | os.PathLike[str] | None], env: Mapping[str, str]
) -> tuple[list[Source], bool]:
    """The sources a command reads, and whether they were named.

    ``flags`` maps a source's :attr:`~.base.Source.home_flag` to the flag's value (None or
    absent: not given). A home flag names its source (several flags: each, in
    :data:`SOURCES` order). With none, every source whose home (from its environment
    variable, else its default place) exists; when none exists, the first source's (so the
    usual "no home" message names it).

    Returns:
        ``(sources, named)``: ``named`` is True when a flag chose them.
    """
    named: list[Source] = [
        cls.resolve_home(flag, env)
        for cls in SOURCES
        if (flag := flags.get(cls.home_flag)) is not None
    ]
    if named:
        return named, True
    found: list[Source] = [
        s for s in (cls.resolve_home(None, env) for cls in SOURCES) if s.exists()
    ]
    return (found or [SOURCES[0].resolve_home(None, env)]), False


def source_of_file(path: str | os.PathLike[str]) -> str | None:
    """Which agent wrote the transcript at ``path``: the :attr:`~.base.Source.name` of the
    source :func:`sniff` names from its first bytes, else of the first source that claims
    the file by its place (:meth:`~.base.Source.claims_place`: an empty file in a Claude
    Code home's ``projects/<slug>/`` is Claude Code's), else None (empty, unreadable,
    neither)."""
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            head = fh.read(HEAD_BYTES)
    except OSError:
        head = b""
    found = sniff(head)
    if found is None:
        found = next((cls.name for cls in SOURCES if cls.claims_place(p)), None)
    return found


def sniff(head: bytes) -> str | None:
    """Which agent wrote a transcript, from its first lines: the :attr:`~.base.Source.name`
    of the first source whose :meth:`~.base.Source.claims_record` takes one of the first 50
    JSON object lines, or None (empty, or nothing that tells)."""
    import orjson

    for raw in head.split(b"\n")[:50]:
        raw = raw.strip()
        if not raw.startswith(b"{"):
            continue
        try:
            d = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(d, dict):
            continue
        for cls in SOURCES:
            if cls.claims_record(d):
                return cls.name
    return None

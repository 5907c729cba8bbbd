"""Which source a SESSION argument of a writing or checkpoint verb names (not a subcommand).

``checkpoints``, ``undo``, ``redo``, ``restore``, ``rewind``, ``fork``, ``branch``,
``repair`` and ``salvage`` call :func:`write_target` first, then drive the source it
gives through the write interface (:class:`sidtui.core.sources.base.Source`). The rule is
the read verbs' one (:func:`sidtui.cli.common.read_session`): a path by its content, an id
in the homes the flags name (else every home that exists; in several: ambiguous). A
session no other source claims goes to the default source
(:data:`sidtui.core.sources.DEFAULT`), which resolves it by its own rules (an id with only
a checkpoint folder too) and says a session found nowhere in its own words.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from typing import Any

from sidtui.core.base.errors import SessionNotFound


@dataclass
class Target:
    """The source of a session argument, and its file when that source found it (None:
    ``arg`` is resolved by the source's own rules, when the verb needs it)."""

    source: Any
    arg: str
    ref: Any = None

    def resolve(self) -> Any:
        """The session's file (:meth:`Source.resolve` of ``arg`` unless found already)."""
        if self.ref is None:
            self.ref = self.source.resolve(self.arg)
        return self.ref

    def open(self) -> Any:
        """The session read for a writing verb (:meth:`Source.open_for_write`)."""
        return self.source.open_for_write(self.resolve())

    def store_arg(self) -> Any:
        """What :meth:`Source.code_store` takes: the file, else the argument."""
        return self.ref if self.ref is not None else self.arg


def opened(args: argparse.Namespace) -> tuple[Any, Any]:
    """``(source, session)``: ``args.session`` read for a writing verb."""
    t = write_target(args)
    return t.source, t.open()


def write_target(args: argparse.Namespace, arg: str | None = None) -> Target:
    """The :class:`Target` of ``arg`` (default ``args.session``).

    Raises:
        AmbiguousSession: the id names sessions in several homes (exit 2).
        SessionNotFound: an id found in no home when the default source's home is not
            among those read (exit 2, in the words of the source that looked).
        UsageError: a home flag names a folder that is no home, or ``arg`` is a file
            outside any default home whose content is a session of no agent (exit 2:
            nothing is written for it, not even a checkpoints folder).
    """
    from sidtui.cli.common import read_session, session_home, sources_from_args
    from sidtui.core.base.errors import UsageError
    from sidtui.core.base.resolve import home_root_of, path_exists
    from sidtui.core.sources import DEFAULT, SOURCES, source_of_file

    if arg is None:
        arg = getattr(args, "session", None) or ""

    def default() -> Target:
        return Target(DEFAULT(session_home(args, arg)), arg)

    if not arg:
        return default()
    default_too = True  # a session found nowhere: the default source's words, when read
    looks_like_path = "/" in arg or arg.endswith((".jsonl", ".json"))
    if looks_like_path and arg != "latest" and path_exists(arg):
        p = os.path.expanduser(arg)
        found = source_of_file(p) if os.path.isfile(p) else None
        if found is None and os.path.isfile(p) and home_root_of(p) is None:
            agents = " or ".join(cls.label for cls in SOURCES)
            raise UsageError(
                f"{arg} is not a session file of either agent (no {agents} "
                f"record in its first lines, and it is in no {DEFAULT.label} home)"
            )
        if found in (None, DEFAULT.name):
            return default()
    else:
        sources, _ = sources_from_args(args)
        if all(s.name == DEFAULT.name for s in sources):
            return default()
        default_too = any(s.name == DEFAULT.name for s in sources)
    try:
        src, f = read_session(args, arg)
    except SessionNotFound:
        if not default_too:  # only another source's home: its words, as `show` says them
            raise
        return default()
    if src.name != DEFAULT.name:
        return Target(src, arg, f)
    return default()

"""Which source a SESSION argument of a writing/checkpoint verb names (not a subcommand).

``checkpoints``, ``undo``, ``redo``, ``restore``, ``rewind``, ``fork`` and ``branch`` call
:func:`claude_target` first: a Claude Code session goes to :mod:`sidtui.cli.claude_verbs`,
anything else on to the verb's sid-code code, unchanged. The rule is the read verbs' one
(:func:`sidtui.cli.common.read_session`): a path by its content, an id in the homes the flags
name (else every home that exists; in both: ambiguous).
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from sidtui.core.base.errors import SessionNotFound


def claude_target(args: argparse.Namespace, arg: str | None = None) -> tuple[Any, Any] | None:
    """``(ClaudeHome, ClaudeFile)`` when ``arg`` (default ``args.session``) is a Claude Code
    session, else None (the verb goes on with sid-code, which reports a session found
    nowhere in its own words).

    Raises:
        AmbiguousSession: the id names sessions in both homes (exit 2).
        UsageError: a home flag names a folder that is no home (exit 2).
    """
    from sidtui.cli.common import read_session, sources_from_args
    from sidtui.core.base.resolve import path_exists
    from sidtui.core.sources import ClaudeSource, source_of_file

    if arg is None:
        arg = getattr(args, "session", None)
    if not arg:
        return None
    looks_like_path = "/" in arg or arg.endswith((".jsonl", ".json"))
    if looks_like_path and arg != "latest" and path_exists(arg):
        p = os.path.expanduser(arg)
        if not (os.path.isfile(p) and source_of_file(p) == "claude-code"):
            return None
    else:
        sources, _ = sources_from_args(args)
        if not any(isinstance(s, ClaudeSource) for s in sources):
            return None
    try:
        src, f = read_session(args, arg)
    except SessionNotFound:
        return None
    if isinstance(src, ClaudeSource):
        return src.home, f
    return None

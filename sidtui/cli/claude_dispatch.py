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
        SessionNotFound: an id found in no home when Claude Code's is the only one
            (exit 2: ``no Claude Code session matches …``, as ``show`` says).
        UsageError: a home flag names a folder that is no home, or ``arg`` is a file
            outside any sid-code home whose content is a session of neither agent (exit 2:
            nothing is written for it, not even a checkpoints folder).
    """
    from sidtui.cli.common import read_session, sources_from_args
    from sidtui.core.base.errors import UsageError
    from sidtui.core.base.resolve import home_root_of, path_exists
    from sidtui.core.sources import ClaudeSource, SidCodeSource, source_of_file

    if arg is None:
        arg = getattr(args, "session", None)
    if not arg:
        return None
    sid_code_too = True  # a session found nowhere: sid-code's words when it has a home
    looks_like_path = "/" in arg or arg.endswith((".jsonl", ".json"))
    if looks_like_path and arg != "latest" and path_exists(arg):
        p = os.path.expanduser(arg)
        found = source_of_file(p) if os.path.isfile(p) else None
        if found is None and os.path.isfile(p) and home_root_of(p) is None:
            raise UsageError(
                f"{arg} is not a session file of either agent (no sid-code or Claude Code "
                "record in its first lines, and it is in no sid-code home)"
            )
        if found != "claude-code":
            return None
    else:
        sources, _ = sources_from_args(args)
        if not any(isinstance(s, ClaudeSource) for s in sources):
            return None
        sid_code_too = any(isinstance(s, SidCodeSource) for s in sources)
    try:
        src, f = read_session(args, arg)
    except SessionNotFound:
        if not sid_code_too:  # only Claude Code's home: its words, as `show` says them
            raise
        return None
    if isinstance(src, ClaudeSource):
        return src.home, f
    return None

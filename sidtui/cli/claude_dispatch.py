"""Which source a SESSION argument of a writing/checkpoint verb names (not a subcommand).

A minimal dispatch for ``checkpoints``, ``undo``, ``redo``, ``restore``, ``rewind``, ``fork``
and ``branch`` until the source interface takes it over:

1. a path: a Claude Code transcript by its content (or an empty file in
   ``projects/<folder>/``) is Claude Code's; anything else sid-code's;
2. ``--claude-home DIR`` given without ``--home``: Claude Code's;
3. otherwise sid-code's first; an id or prefix sid-code does not know is looked up in the
   Claude Code home (``--claude-home``, else ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from sidtui.core.base.errors import SessionNotFound, UsageError


def claude_home(args: argparse.Namespace) -> Any:
    """The Claude Code home for ``args`` (``--claude-home``, else the environment)."""
    from sidtui.core.claude.layout import ClaudeHome

    return ClaudeHome.resolve(getattr(args, "claude_home", None), os.environ)


def _is_claude_path(p: Path) -> bool:
    from sidtui.core.claude.layout import home_of, read_head, sniff

    head = read_head(p)
    if not head.strip():
        return home_of(p) is not None and p.name.endswith(".jsonl")
    return sniff(head) == "claude-code"


def claude_target(args: argparse.Namespace, arg: str | None = None) -> tuple[Any, Any] | None:
    """``(ClaudeHome, ClaudeFile)`` when ``arg`` (default ``args.session``) is a Claude Code
    session, else None (the verb goes on with sid-code).

    Raises:
        SessionNotFound / AmbiguousSession: ``--claude-home`` given and nothing (or several)
            match there.
    """
    from sidtui.core.claude.layout import ClaudeHome, file_for_path, home_of, resolve_session

    if arg is None:
        arg = getattr(args, "session", None)
    if not arg:
        return None
    explicit = getattr(args, "claude_home", None) is not None
    sid_home_given = getattr(args, "home", None) is not None
    p = Path(arg).expanduser()
    if ("/" in arg or arg.endswith(".jsonl")) and p.is_file():
        if not _is_claude_path(p):
            return None
        place = home_of(p)
        if explicit or place is None:
            home = claude_home(args)
        else:
            home = ClaudeHome(place[0])
        return home, file_for_path(p)
    if explicit and not sid_home_given:
        home = claude_home(args).require()
        return home, resolve_session(home, arg)
    if _sid_code_knows(args, arg):
        return None
    home = claude_home(args)
    if not home.exists:
        return None
    try:
        return home, resolve_session(home, arg)
    except SessionNotFound:
        return None


def _sid_code_knows(args: argparse.Namespace, arg: str) -> bool:
    """Whether sid-code's resolution finds ``arg`` (a missing sid-code home finds nothing)."""
    from sidtui.core.base.errors import AmbiguousSession
    from sidtui.core.base.home import Home, resolve_session

    home = Home.resolve(getattr(args, "home", None), os.environ)
    try:
        if not home.root.is_dir():
            return False
        resolve_session(home, arg)
    except (SessionNotFound, UsageError):
        return _checkpoint_only(home, arg)
    except AmbiguousSession:
        return True
    return True


def _checkpoint_only(home: Any, arg: str) -> bool:
    """sid-code's checkpoint verbs also take an id with only a ``checkpoints/<id>/`` folder."""
    try:
        with os.scandir(home.checkpoints_dir) as it:
            return any(e.name == arg or e.name.startswith(arg) for e in it if e.is_dir())
    except OSError:
        return False

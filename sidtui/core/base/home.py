"""The sid-code home and its layout (FORMAT.md §1).

``Home.resolve`` picks the root (``--home``, else ``$SID_CONFIG_DIR``, else ``~/.sid-code``);
core code never calls ``Path.home()`` elsewhere (but ``base.project.user_home``, for the
project root rule). Every path of the home derives from a :class:`Home`; a transcript found
in it is a :class:`SessionFile` (``base.discover`` finds them, ``base.resolve`` resolves a
session argument to one).

Design notes: docs/ARCHITECTURE.md, “core/base/home.py”.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from sidtui.core.base.errors import UsageError

SESSION_ID_RE = re.compile(r"^\d{8}-\d{6}-[0-9a-f]{8}$")
_SAFE_ID_RE = re.compile(r"[^A-Za-z0-9_-]")


def safe_id(session_id: str) -> str:
    """``safeId``: every char outside ``[A-Za-z0-9_-]`` replaced by ``_`` (FORMAT.md §1.2)."""
    return _SAFE_ID_RE.sub("_", session_id)


def absolute_path(p: str | os.PathLike[str]) -> Path:
    """``p`` with ``~`` expanded, made absolute against the current folder (``..`` folded,
    symbolic links kept)."""
    return Path(os.path.abspath(os.path.expanduser(os.fspath(p))))


@dataclass(frozen=True)
class Home:
    """A sid-code home root. All paths derive from here (injected, never global)."""

    root: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root))

    @classmethod
    def resolve(cls, home: str | os.PathLike[str] | None, env: Mapping[str, str]) -> Home:
        """``home`` if given, else ``env["SID_CONFIG_DIR"]``, else ``~/.sid-code``, made
        absolute once, here (a relative home means the folder sidtui was started in, for
        every verb: a watcher's events and printed paths are absolute).

        Raises:
            UsageError: ``home`` is an empty string (``--home ""``, e.g. an unset
                variable): never silently the default home.
        """
        if home is not None:
            if not os.fspath(home).strip():
                raise UsageError("--home needs a folder (it was given an empty string)")
            return cls(absolute_path(home))
        configured = env.get("SID_CONFIG_DIR")
        if configured:
            return cls(absolute_path(configured))
        return cls(absolute_path(Path(env.get("HOME") or Path.home()) / ".sid-code"))

    @property
    def sessions_dir(self) -> Path:
        return self.root / "sessions"

    @property
    def checkpoints_dir(self) -> Path:
        return self.root / "checkpoints"

    @property
    def active_sessions_dir(self) -> Path:
        return self.root / "active-sessions"

    @property
    def file_intents_dir(self) -> Path:
        return self.root / "file-intents"

    @property
    def history_path(self) -> Path:
        return self.root / "history.jsonl"

    def checkpoint_index(self, session_id: str) -> Path:
        """``checkpoints/<sessionId>/index.json``."""
        return self.checkpoints_dir / session_id / "index.json"

    def require(self) -> Home:
        """Raise :class:`UsageError` (exit 2) when the root is not a readable directory."""
        if not self.root.exists():
            raise UsageError(
                f"no sid-code home at {self.root} (pass --home DIR or set SID_CONFIG_DIR; "
                "`sidtui demo` builds one to explore)"
            )
        if not self.root.is_dir():
            raise UsageError(f"sid-code home {self.root} is not a directory")
        return self


@dataclass(frozen=True)
class SessionFile:
    """One transcript file found under ``sessions/``.

    Attributes:
        path: the file.
        session_id: for a main file its stem; for a sidechain ``<parentId>-<agentId>``.
        project: the folder name under ``sessions/`` (``_legacy``, or ``""`` for a flat file).
        kind: ``"main"`` or ``"sidechain"``.
        container: ``"jsonl"`` or ``"json"`` (v1 whole-file JSON).
        parent_session_id: for a sidechain, the parent's id (from its first record).
        agent_id: for a sidechain, the agent id (from its first record).
    """

    path: Path
    session_id: str
    project: str
    kind: str = "main"
    container: str = "jsonl"
    parent_session_id: str | None = None
    agent_id: str | None = None

    @property
    def summary_path(self) -> Path:
        """``summaries/<sessionId>.json`` beside the file (may not exist)."""
        return self.path.parent / "summaries" / f"{self.session_id}.json"

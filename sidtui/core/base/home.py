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

from sidtui.core.base.errors import SidtuiError, UsageError

SESSION_ID_RE = re.compile(r"^\d{8}-\d{6}-[0-9a-f]{8}$")
_SAFE_ID_RE = re.compile(r"[^A-Za-z0-9_-]")


def safe_id(session_id: str) -> str:
    """``safeId``: every char outside ``[A-Za-z0-9_-]`` replaced by ``_`` (FORMAT.md §1.2)."""
    return _SAFE_ID_RE.sub("_", session_id)


class UnsafeSessionId(SidtuiError):
    """A session id that would name a folder of the home is not a plain name (exit 1)."""


def require_plain_name(session_id: str, what: str = "session id") -> str:
    """``session_id`` when it can name one folder of a home: not empty, not ``.`` or
    ``..``, no ``/`` and no NUL. Every path built from a session id goes through it (a
    transcript is untrusted: its ``sessionId`` may be ``../../outside/pwn``).

    Raises:
        UnsafeSessionId: it is not a plain name (nothing is read or written with it).
    """
    if session_id in ("", ".", "..") or "/" in session_id or "\x00" in session_id:
        raise UnsafeSessionId(
            f"{what} {session_id!r} is not a plain name (a folder of the home is never "
            "named by a path); refused"
        )
    return session_id


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

    def checkpoint_folder(self, session_id: str) -> Path:
        """``checkpoints/<sessionId>/`` (an index, the journal of a write in progress).

        Args:
            session_id: :attr:`SessionFile.checkpoint_id` of a transcript (or a folder's name).

        Raises:
            UnsafeSessionId: not a plain name (:func:`require_plain_name`).
        """
        return self.checkpoints_dir / require_plain_name(session_id)

    def checkpoint_index(self, session_id: str) -> Path:
        """``checkpoints/<sessionId>/index.json`` (:meth:`checkpoint_folder`'s)."""
        return self.checkpoint_folder(session_id) / "index.json"

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
    def checkpoint_id(self) -> str:
        """The id naming this session's ``checkpoints/<id>/`` folder, for every verb: the
        file name's id (what ``--resume`` looks up and ``ls`` lists), never the
        ``session_start.sessionId`` inside, which a copied or renamed file shares with its
        original. A sidechain's is its parent's: the ``<parentId>-`` of its name (else its
        first record's ``sessionId``). Validated where a path is made of it
        (:meth:`Home.checkpoint_folder`)."""
        if self.kind != "sidechain":
            return self.session_id
        agent = self.agent_id
        if (
            agent
            and self.session_id.endswith("-" + agent)
            and len(self.session_id) > len(agent) + 1
        ):
            return self.session_id[: -len(agent) - 1]
        return self.parent_session_id or self.session_id

    @property
    def summary_path(self) -> Path:
        """``summaries/<sessionId>.json`` beside the file (may not exist)."""
        return self.path.parent / "summaries" / f"{self.session_id}.json"

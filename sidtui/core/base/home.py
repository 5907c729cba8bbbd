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
from dataclasses import dataclass
from pathlib import Path

from sidtui.core.base.errors import SidtuiError
from sidtui.core.base.roots import Folder, HomeRoot, TranscriptFile

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
class Home(HomeRoot):
    """A sid-code home root. All paths derive from here (injected, never global).

    :meth:`~HomeRoot.resolve`: ``home`` if given, else ``$SID_CONFIG_DIR``, else
    ``~/.sid-code``, made absolute once, here (a relative home means the folder sidtui was
    started in, for every verb: a watcher's events and printed paths are absolute).
    """

    label = "sid-code"
    flag = "--home"
    env_var = "SID_CONFIG_DIR"
    default_dir = ".sid-code"
    missing_hint = "; `sidtui demo` builds one to explore"

    @classmethod
    def place(cls, p: str | os.PathLike[str]) -> Path:
        return absolute_path(p)

    sessions_dir = Folder("sessions")
    checkpoints_dir = Folder("checkpoints")
    active_sessions_dir = Folder("active-sessions")
    file_intents_dir = Folder("file-intents")
    history_path = Folder("history.jsonl")

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


@dataclass(frozen=True)
class SessionFile(TranscriptFile):
    """One transcript file found under ``sessions/`` (fields: :class:`TranscriptFile`).

    ``session_id`` is a main file's stem, a sidechain's ``<parentId>-<agentId>``;
    ``project`` the folder under ``sessions/`` (``_legacy``, or ``""`` for a flat file);
    ``container`` ``"json"`` for a v1 whole-file session; a sidechain's
    ``parent_session_id`` and ``agent_id`` come from its first record.
    """

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

"""Where Codex CLI keeps its sessions, and finding them (docs/CODEX.md §1).

A home (``--codex-home``, else ``$CODEX_HOME``, else ``~/.codex``) holds
``sessions/YYYY/MM/DD/rollout-<local time>-<session id>.jsonl``, one file per session,
appended to by every ``codex resume``. The session id is the file name's last 36
characters (and the ``session_meta`` record's ``id``). Codex groups sessions by day, not
by project: a session's project here is the ``cwd`` its ``session_meta`` names.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from sidtui.core.base.errors import (
    AmbiguousSession,
    SessionNotFound,
    UnreadableInput,
    UsageError,
)
from sidtui.core.base.roots import Folder, HomeRoot

SOURCE = "codex"
#: ``rollout-2026-12-02T09-27-20-<uuid>.jsonl``
NAME = re.compile(
    r"^rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-"
    r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl$"
)
#: How much of a file's head is read to find its ``session_meta`` (it holds the base
#: instructions: tens of kilobytes).
HEAD_BYTES = 1 << 20


@dataclass(frozen=True)
class CodexHome(HomeRoot):
    """A Codex CLI home root (``~/.codex``).

    :meth:`~sidtui.core.base.roots.HomeRoot.resolve`: ``home`` if given, else
    ``$CODEX_HOME``, else ``~/.codex``.
    """

    label = "Codex CLI"
    flag = "--codex-home"
    env_var = "CODEX_HOME"
    default_dir = ".codex"

    sessions_dir = Folder("sessions")
    #: ``archived_sessions/``: where Codex moves archived rollouts (flat).
    archived_dir = Folder("archived_sessions")

    @property
    def exists(self) -> bool:
        return self.sessions_dir.is_dir()

    def require(self) -> CodexHome:
        if not self.exists:
            raise UsageError(f"no Codex CLI home at {self.root} (no sessions/ folder)")
        return self


@dataclass(frozen=True)
class CodexFile:
    """One rollout file (a :class:`~sidtui.core.sources.base.SessionRef`)."""

    path: Path
    session_id: str
    project: str = ""
    kind: str = "main"
    container: str = "jsonl"
    started: str | None = None  # from the file name (local time), ``YYYY-MM-DDTHH-MM-SS``


def file_for_path(path: Path, project: str | None = None) -> CodexFile:
    """A rollout at ``path``; its id from its name, else from its ``session_meta``."""
    m = NAME.match(path.name)
    meta = read_meta(path) if (project is None or m is None) else {}
    sid = m.group(2) if m else str(meta.get("id") or path.stem)
    cwd = project if project is not None else str(meta.get("cwd") or "")
    return CodexFile(path, sid, cwd, started=m.group(1) if m else None)


def read_meta(path: Path) -> dict:
    """The ``session_meta`` payload of the file's first line ({} when it has none)."""
    import json

    try:
        with path.open("rb") as f:
            head = f.readline(HEAD_BYTES)
    except OSError:
        return {}
    try:
        obj = json.loads(head)
    except ValueError:
        return {}
    if isinstance(obj, dict) and obj.get("type") == "session_meta":
        p = obj.get("payload")
        return p if isinstance(p, dict) else {}
    return {}


def discover(
    home: CodexHome, project: str | None = None, errors: list[str] | None = None
) -> list[CodexFile]:
    """Every rollout under ``sessions/`` (any depth: the dated folders), path order.

    ``project`` keeps the sessions whose ``cwd`` is that folder; a folder that cannot be
    listed gets a line in ``errors``.
    """
    found: list[CodexFile] = []

    def onerror(exc: OSError) -> None:
        if errors is not None:
            errors.append(f"cannot list {exc.filename}: {exc.strerror or exc}")

    if not home.sessions_dir.is_dir():
        return found
    for dirpath, dirnames, filenames in os.walk(home.sessions_dir, onerror=onerror):
        dirnames.sort()
        for name in sorted(filenames):
            if name.startswith("rollout-") and name.endswith(".jsonl"):
                f = file_for_path(Path(dirpath) / name)
                if project is None or f.project == project:
                    found.append(f)
    return found


def discover_paths(home: CodexHome, errors: list[str] | None = None) -> list[str]:
    """The path of every rollout under ``sessions/``, path order, no file opened."""
    found: list[str] = []

    def onerror(exc: OSError) -> None:
        if errors is not None:
            errors.append(f"cannot list {exc.filename}: {exc.strerror or exc}")

    if not home.sessions_dir.is_dir():
        return found
    for dirpath, dirnames, filenames in os.walk(home.sessions_dir, onerror=onerror):
        dirnames.sort()
        found += [
            os.path.join(dirpath, n)
            for n in sorted(filenames)
            if n.startswith("rollout-") and n.endswith(".jsonl")
        ]
    return found


def find_rollout(home: CodexHome, session_id: str) -> Path | None:
    """The rollout of ``session_id`` under ``sessions/`` (else ``archived_sessions/``), by
    its file name alone (None: not there)."""
    tail = f"-{session_id}.jsonl"
    for top in (home.sessions_dir, home.archived_dir):
        if not top.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames.sort()
            for name in sorted(filenames):
                if name.startswith("rollout-") and name.endswith(tail):
                    return Path(dirpath) / name
    return None


def resolve_session(
    home: CodexHome, arg: str, files: list[CodexFile] | None = None, cwd: Path | None = None
) -> CodexFile:
    """A session argument: a path, a full id, a unique id prefix, or ``latest`` (the
    newest rollout whose ``cwd`` is ``cwd``, default the process's).

    Raises:
        SessionNotFound, AmbiguousSession, UsageError, UnreadableInput.
    """
    if not arg.strip():
        raise UsageError("empty session id (give an id, a unique id prefix, a path or `latest`)")
    if "/" in arg or arg.endswith(".jsonl"):
        p = Path(arg).expanduser()
        try:
            if not p.exists():
                raise SessionNotFound(f"no such file: {arg}")
            if not p.is_file():
                raise UsageError(f"{arg} is not a file")
        except OSError as exc:
            raise UnreadableInput(f"cannot read {arg}: {exc.strerror or exc}") from None
        return file_for_path(p)
    if files is None:
        files = discover(home)
    if arg == "latest":
        here = str(cwd or Path.cwd())
        mine = [f for f in files if f.project == here]
        if not mine:
            raise SessionNotFound(f"no Codex CLI session ran in {here} (under {home.sessions_dir})")
        return max(mine, key=lambda f: (f.started or "", f.path.name))
    key = arg.removesuffix(".jsonl")
    for exact in (True, False):
        hits = [
            f for f in files if (f.session_id == key if exact else f.session_id.startswith(key))
        ]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            if exact:
                raise AmbiguousSession(
                    f"{len(hits)} Codex CLI rollouts hold session {key}",
                    [str(f.path) for f in hits],
                )
            raise AmbiguousSession(
                f"{key!r} matches {len(hits)} Codex CLI sessions; give more of the id",
                [f.session_id for f in hits],
            )
    near = [f.session_id for f in files if f.session_id[:4] == key[:4]][:5]
    raise SessionNotFound(f"no Codex CLI session {key!r} under {home.sessions_dir}", near)


def discover_files(
    home: CodexHome,
    project: str | None = None,
    errors: list[str] | None = None,
    *,
    include_sidechains: bool = True,
) -> list[CodexFile]:
    """:func:`discover` as every source's discoverer is called (Codex keeps no
    sub-agent transcripts of its own: ``include_sidechains`` changes nothing)."""
    return discover(home, project, errors)

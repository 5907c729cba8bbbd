"""The Claude Code home and its transcripts (docs/CLAUDE-CODE.md §1).

``ClaudeHome.resolve`` picks the root: ``--claude-home``, else ``$CLAUDE_CONFIG_DIR``, else
``~/.claude``. Transcripts live in ``projects/<slug>/``: ``<session-uuid>.jsonl`` (the
session id is the file stem), subagents in ``<session>/subagents/agent-<id>.jsonl`` (+
``agent-<id>.meta.json``, Claude Code 2.1.2 on) or, in older versions, ``agent-<id>.jsonl``
beside the sessions. A slug is never computed from a path to find anything (Claude Code's
rule is lossy and changed over versions): folders are listed and a session's place is
matched by the ``cwd`` its records carry. A zero-byte transcript is a normal session with
no messages. :func:`claims_record` tells a Claude Code record from a sid-code one (for
:func:`sidtui.core.sources.sniff`).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from sidtui.core.base.errors import AmbiguousSession, SessionNotFound, UsageError
from sidtui.core.base.home import require_plain_name
from sidtui.core.base.resolve import given_file, refuse_unreadable
from sidtui.core.base.roots import Folder, HomeRoot, TranscriptFile

#: Bytes of a transcript's head read to sniff its format or find its ``cwd``/``sessionId``.
HEAD_BYTES = 64 << 10
SOURCE = "claude-code"

#: Types only Claude Code writes (none of them is a sid-code type).
CLAUDE_ONLY_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "attachment",
        "progress",
        "summary",
        "file-history-snapshot",
        "file-history-delta",
        "queue-operation",
        "custom-title",
        "ai-title",
        "agent-name",
        "last-prompt",
        "permission-mode",
        "mode",
        "pr-link",
    }
)


@dataclass(frozen=True)
class ClaudeHome(HomeRoot):
    """A Claude Code home root (``~/.claude``); every path derives from here.

    :meth:`~sidtui.core.base.roots.HomeRoot.resolve`: ``home`` if given, else
    ``$CLAUDE_CONFIG_DIR``, else ``~/.claude`` (``~`` expanded, kept relative).
    """

    label = "Claude Code"
    flag = "--claude-home"
    env_var = "CLAUDE_CONFIG_DIR"
    default_dir = ".claude"

    projects_dir = Folder("projects")
    #: ``sessions/<pid>.json``: one file per running Claude Code process.
    sessions_dir = Folder("sessions")
    file_history_dir = Folder("file-history")

    def file_history(self, session_id: str) -> Path:
        """``file-history/<sessionId>/``: the checkpoint blobs of one session.

        Raises:
            UnsafeSessionId: the id is not a plain name (a subagent's records name it).
        """
        return self.file_history_dir / require_plain_name(session_id)

    #: ``sidtui/restores/`` (sidtui's own folder: Claude Code never reads it): per
    #: ``<session>/`` the safety snapshots of sidtui's restores and the journal of one in
    #: progress.
    restores_dir = Folder("sidtui", "restores")
    #: ``sidtui/forks/``: per ``<new id>/`` the journal of a fork being written
    #: (:mod:`sidtui.core.claude.fork_journal`).
    forks_dir = Folder("sidtui", "forks")

    def restore_folder(self, session_id: str) -> Path:
        """``sidtui/restores/<sessionId>/``.

        Raises:
            UnsafeSessionId: the id is not a plain name.
        """
        return self.restores_dir / require_plain_name(session_id)

    @property
    def exists(self) -> bool:
        """The root holds a ``projects/`` folder (what makes it a Claude Code home here)."""
        return self.projects_dir.is_dir()


@dataclass(frozen=True)
class ClaudeFile(TranscriptFile):
    """One Claude Code transcript file (fields: :class:`TranscriptFile`, and ``layout``).

    ``session_id`` is the file stem: the session id for a main file, ``agent-<id>`` for a
    subagent; ``project`` the folder under ``projects/`` (the slug, as Claude Code named
    it; ``""`` for a file outside a home); ``container`` always ``"jsonl"``; a subagent's
    ``parent_session_id`` is its folder's session (or its records' ``sessionId``), its
    ``agent_id`` from its file name.

    Attributes:
        layout: a subagent's place: ``"subagents"`` (``<session>/subagents/``) or
            ``"flat"`` (beside the sessions, before 2.1.2), ``"inline"`` (a sidechain
            written into its session's file, before 2.0: ``path`` is that file); None for
            a main file.
        inline_lines: for an inline sidechain, the lines of its records in ``path``.
    """

    layout: str | None = None
    inline_lines: tuple[int, ...] | None = None

    def inline_bytes(self) -> bytes:
        """An inline sidechain's records as a transcript of its own: the file's bytes with
        every other line left blank, so line numbers stay the file's (a reader skips
        blank lines, as Claude Code does)."""
        keep = frozenset(self.inline_lines or ())
        lines = self.path.read_bytes().split(b"\n")
        return b"\n".join(ln if n in keep else b"" for n, ln in enumerate(lines, 1))

    @property
    def meta_path(self) -> Path | None:
        """``agent-<id>.meta.json`` beside a subagent transcript (it may not exist)."""
        if self.kind != "sidechain":
            return None
        return self.path.with_name(self.path.name[: -len(".jsonl")] + ".meta.json")

    @property
    def source(self) -> str:
        return SOURCE


def read_head(path: Path, cap: int = HEAD_BYTES) -> bytes:
    """The first ``cap`` bytes of a file (b"" when it cannot be read)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(cap)
    except OSError:
        return b""


_SESSION_ID = re.compile(rb'"sessionId":"([^"\\]{1,200})"')
_CWD = re.compile(rb'"cwd":("(?:[^"\\]|\\.){0,4096}")')


def head_session_id(head: bytes) -> str | None:
    """The first ``sessionId`` written in a transcript's head (no full decode)."""
    m = _SESSION_ID.search(head)
    return m.group(1).decode("utf-8", "replace") if m else None


def head_cwd(head: bytes) -> str | None:
    """The first ``cwd`` written in a transcript's head (its JSON string decoded)."""
    m = _CWD.search(head)
    if not m:
        return None
    try:
        v = orjson.loads(m.group(1))
    except orjson.JSONDecodeError:
        return None
    return v if isinstance(v, str) else None


def claims_record(d: dict[str, Any]) -> bool:
    """Claude Code wrote this decoded record (how :func:`sidtui.core.sources.sniff` tells
    the agents' transcripts apart): a type only Claude Code writes, and a ``user`` /
    ``assistant`` / ``system`` record also carries ``sessionId``, ``isSidechain`` or
    ``userType`` (sid-code's never do)."""
    t = d.get("type")
    return t in CLAUDE_ONLY_TYPES and (
        t not in ("user", "assistant", "system")
        or "sessionId" in d
        or "isSidechain" in d
        or "userType" in d
    )


def _entries(folder: Path, errors: list[str] | None) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as it:
            return sorted(it, key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        if errors is not None:
            errors.append(f"cannot read folder {folder}: {exc.strerror or exc}")
        return []


def not_regular(path: str) -> str | None:
    """``PATH is not a regular file (a FIFO); skipped`` for a transcript name that is a
    FIFO, a device, a socket or a folder (None: a regular file, or nothing there)."""
    from sidtui.core.base.regular import kind_of

    try:
        st = os.stat(path)
    except OSError:
        return None
    if stat.S_ISREG(st.st_mode):
        return None
    return f"{path} is not a regular file ({kind_of(st.st_mode)}); skipped"


def odd_transcripts(home: ClaudeHome) -> list[tuple[Path, str]]:
    """``(path, reason)`` of every main transcript name under ``projects/`` that is not a
    regular file (a FIFO, a device, a folder, a link to one) or cannot be looked at: the
    entries :func:`discover` skips and names in its ``errors``."""
    from sidtui.core.base.discover import skipped_entry_reason

    out: list[tuple[Path, str]] = []
    for name in project_folders(home):
        for e in _entries(home.projects_dir / name, None):
            if not e.name.endswith(".jsonl") or e.name.startswith("agent-"):
                continue
            if why := skipped_entry_reason(e):
                out.append((Path(e.path), why))
    return out


def _is_file(e: os.DirEntry[str]) -> bool:
    try:
        return e.is_file()
    except OSError:
        return False


def _is_dir(e: os.DirEntry[str]) -> bool:
    try:
        return e.is_dir()
    except OSError:
        return False


def project_folders(home: ClaudeHome, errors: list[str] | None = None) -> list[str]:
    """Folder names under ``projects/`` (slugs), sorted."""
    return [e.name for e in _entries(home.projects_dir, errors) if _is_dir(e)]


def _agent_id(name: str) -> str:
    return name[len("agent-") : -len(".jsonl")]


def discover(
    home: ClaudeHome,
    project: str | None = None,
    errors: list[str] | None = None,
    *,
    include_sidechains: bool = True,
) -> list[ClaudeFile]:
    """Every transcript under ``projects/``: main files, then subagents, per project.

    Args:
        home: the home.
        project: only this folder under ``projects/``.
        errors: if given, one line per folder that could not be read.
        include_sidechains: also list subagent transcripts (flat ones are opened: their
            session is the ``sessionId`` their first record carries).

    Returns:
        ClaudeFiles sorted by project, then main files by name, then subagents.
    """
    folders = project_folders(home, errors) if project is None else [project]
    out: list[ClaudeFile] = []
    for name in folders:
        out.extend(_in_project(home, name, errors, include_sidechains))
    return out


def _in_project(
    home: ClaudeHome, name: str, errors: list[str] | None, include_sidechains: bool
) -> Iterator[ClaudeFile]:
    folder = home.projects_dir / name
    entries = _entries(folder, errors)
    mains = [e for e in entries if e.name.endswith(".jsonl") and not e.name.startswith("agent-")]
    for e in mains:
        if _is_file(e):
            yield ClaudeFile(Path(e.path), e.name[: -len(".jsonl")], name)
        elif errors is not None and (why := not_regular(e.path)) is not None:
            errors.append(why)
    if not include_sidechains:
        return
    for e in entries:
        if e.name.startswith("agent-") and e.name.endswith(".jsonl") and _is_file(e):
            p = Path(e.path)
            yield ClaudeFile(
                p,
                e.name[: -len(".jsonl")],
                name,
                kind="sidechain",
                parent_session_id=head_session_id(read_head(p, 4096)),
                agent_id=_agent_id(e.name),
                layout="flat",
            )
    for e in entries:
        if not _is_dir(e):
            continue
        for a in _entries(Path(e.path) / "subagents", errors):
            if a.name.startswith("agent-") and a.name.endswith(".jsonl") and _is_file(a):
                yield ClaudeFile(
                    Path(a.path),
                    a.name[: -len(".jsonl")],
                    name,
                    kind="sidechain",
                    parent_session_id=e.name,
                    agent_id=_agent_id(a.name),
                    layout="subagents",
                )


def subagent_files(home: ClaudeHome, cf: ClaudeFile) -> list[ClaudeFile]:
    """The subagent transcripts of a main session: its ``subagents/`` folder and the flat
    ``agent-*.jsonl`` of its project whose records name it, any depth (all flat)."""
    if cf.kind != "main":
        return []
    return (
        [
            f
            for f in _in_project(home, cf.project, None, True)
            if f.kind == "sidechain" and f.parent_session_id == cf.session_id
        ]
        if cf.project
        else _beside(cf)
    )


def _beside(cf: ClaudeFile) -> list[ClaudeFile]:
    """Subagents of a main file that lies outside a home: only its ``<stem>/subagents/``."""
    folder = cf.path.parent / cf.session_id / "subagents"
    return [
        ClaudeFile(
            Path(a.path),
            a.name[: -len(".jsonl")],
            "",
            kind="sidechain",
            parent_session_id=cf.session_id,
            agent_id=_agent_id(a.name),
            layout="subagents",
        )
        for a in _entries(folder, None)
        if a.name.startswith("agent-") and a.name.endswith(".jsonl") and _is_file(a)
    ]


def home_of(path: str | os.PathLike[str]) -> tuple[Path, str] | None:
    """``(home root, project folder)`` of a transcript from its place, or None.

    ``<root>/projects/<slug>/<file>`` and ``<root>/projects/<slug>/<session>/subagents/<file>``
    (folders resolved, the file name not followed).
    """
    try:
        parent = Path(path).expanduser().absolute().parent.resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    if parent.parent.name == "projects":
        return parent.parent.parent, parent.name
    if parent.name == "subagents" and parent.parent.parent.parent.name == "projects":
        return parent.parent.parent.parent.parent, parent.parent.parent.name
    return None


def file_for_path(path: Path, head: bytes | None = None) -> ClaudeFile:
    """A :class:`ClaudeFile` for a transcript anywhere on disk (its role from its place).

    ``head``: the file's first bytes when the caller read them (a flat subagent's session
    is the ``sessionId`` they carry; else they are read here).
    """
    place = home_of(path)
    project = place[1] if place else ""
    name = path.name
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else path.stem
    if name.startswith("agent-"):
        nested = path.parent.name == "subagents"
        return ClaudeFile(
            path,
            stem,
            project,
            kind="sidechain",
            parent_session_id=path.parent.parent.name
            if nested
            else head_session_id(head if head is not None else read_head(path, 4096)),
            agent_id=stem[len("agent-") :],
            layout="subagents" if nested else "flat",
        )
    return ClaudeFile(path, stem, project)


def resolve_session(
    home: ClaudeHome, arg: str, files: list[ClaudeFile] | None = None, cwd: Path | None = None
) -> ClaudeFile:
    """A session argument: a path, a full id, a unique id prefix, or ``latest``.

    Main sessions win over subagents. ``latest`` is the newest main session whose records'
    ``cwd`` is ``cwd`` (default: the process's), matched from the records, never a slug.

    Raises:
        SessionNotFound: nothing matches (``candidates`` lists near ids).
        AmbiguousSession: a prefix matches several sessions.
        UnreadableInput: a path that cannot be looked at.
    """
    if not arg.strip():
        raise UsageError("empty session id (give an id, a unique id prefix, a path or `latest`)")
    if arg == "latest":
        found = latest_for_cwd(home, cwd or Path.cwd())
        if found is None:
            raise SessionNotFound(
                f"no Claude Code session ran in {cwd or Path.cwd()} (under {home.projects_dir})"
            )
        return found
    if "/" in arg or arg.endswith(".jsonl"):
        return file_for_path(given_file(arg))
    if files is None:
        files = discover(home)
    key = arg.removesuffix(".jsonl")
    # names that are no regular file: looked for only when no readable session answers
    # at that level (as the sid-code resolver does), so a good match costs nothing more
    odd: list[tuple[Path, str]] | None = None
    for exact in (True, False):
        for kind in ("main", "sidechain"):
            hits = [
                f
                for f in files
                if f.kind == kind
                and (f.session_id == key if exact else f.session_id.startswith(key))
            ]
            if len(hits) == 1:
                return hits[0]
            if len(hits) > 1:
                raise AmbiguousSession(
                    f"{key!r} matches {len(hits)} Claude Code sessions; give more of the id",
                    [f"{f.session_id}  [{f.kind}, {f.project}]  {f.path}" for f in hits],
                )
        if odd is None:
            odd = odd_transcripts(home)
        stem = len(".jsonl")
        refuse_unreadable(
            arg,
            [
                (p, why)
                for p, why in odd
                if (p.name[:-stem] == key if exact else p.name[:-stem].startswith(key))
            ],
        )
    import difflib

    near = difflib.get_close_matches(
        key, [f.session_id for f in files if f.kind == "main"], n=5, cutoff=0.5
    )
    raise SessionNotFound(f"no Claude Code session matches {arg!r} under {home.projects_dir}", near)


def latest_for_cwd(home: ClaudeHome, cwd: Path) -> ClaudeFile | None:
    """The most recently written main session whose first ``cwd`` is ``cwd`` (resolved)."""
    try:
        here = str(Path(cwd).resolve())
    except (OSError, RuntimeError):
        here = str(cwd)
    best: tuple[float, str] | None = None
    found: ClaudeFile | None = None
    for f in discover(home, include_sidechains=False):
        c = head_cwd(read_head(f.path))
        if c is None or c.rstrip("/") != here.rstrip("/"):
            continue
        try:
            m = f.path.stat().st_mtime
        except OSError:
            continue
        if best is None or (m, f.session_id) > best:
            best, found = (m, f.session_id), f
    return found

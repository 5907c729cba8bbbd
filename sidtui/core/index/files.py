"""What the catalog reads from a home's disk: the transcript files of each source (stat'ed,
never opened on the warm path), their cache keys and the one digest of them all.

:class:`SidCodeFiles`, :class:`ClaudeFiles` and :class:`CodexFiles` give the catalog one
shape per source (:func:`files_for`): scan, summarize, registrations, the project of a path
and the session file of a row.
"""

from __future__ import annotations

import hashlib
import os
from array import array
from collections.abc import Iterable, Iterator
from itertools import chain
from operator import attrgetter
from pathlib import Path
from typing import Any

from sidtui.core.base.discover import odd_transcript_entry
from sidtui.core.base.home import Home, SessionFile
from sidtui.core.claude.layout import ClaudeHome
from sidtui.core.codex.layout import CodexHome
from sidtui.core.resume.process import read_registrations
from sidtui.core.views.listing import CHUNK_FILES, summarize_files
from sidtui.core.views.summary import SessionSummary


def scan_session_files(
    home: Home, stat: bool = True, errors: list[str] | None = None
) -> list[tuple[str, str, os.stat_result | None]]:
    """(path, project, stat) of every ``.jsonl``/``.json`` under ``sessions/``, by path — no
    file is opened (the warm path); with ``stat=False`` the stat is None (a cold cache
    needs none: each file is read anyway).

    ``errors``, if given, gets one line per transcript name that cannot be stat'ed (a
    symlink loop, ...), worded and ordered as :func:`~sidtui.core.base.discover.candidate_files`
    words them for ``ls --no-cache`` (flat files first, then each project folder, by
    name). Only a failing entry costs anything: the warm path does no more syscalls.
    """
    out: list[tuple[str, str, os.stat_result | None]] = []
    bad: list[tuple[str, str, str]] = []
    base = home.sessions_dir

    def files_in(folder: Path, project: str) -> None:
        try:
            with os.scandir(folder) as it:
                for e in it:
                    if e.name.endswith((".jsonl", ".json")):
                        try:
                            if e.is_file():
                                out.append((e.path, project, e.stat() if stat else None))
                            elif why := odd_transcript_entry(e):  # rare: a link, a folder
                                bad.append((project, e.name, f"cannot read {e.path}: {why}"))
                        except FileNotFoundError:  # removed meanwhile
                            continue
                        except OSError as exc:
                            bad.append(
                                (project, e.name, f"cannot read {e.path}: {exc.strerror or exc}")
                            )
                            continue
                    elif folder == base and e.name != "summaries":
                        try:
                            if e.is_dir(follow_symlinks=False):
                                files_in(Path(e.path), e.name)
                        except OSError:
                            continue
        except OSError:
            return

    files_in(base, "")
    out.sort(key=lambda t: t[0])
    if errors is not None and bad:
        bad.sort(key=lambda t: (t[0] != "", t[0], t[1]))
        errors += [line for _, _, line in bad]
    return out


def stat_key(st: os.stat_result) -> tuple[int, int, int, int]:
    """A row's cache key from a stat (besides the path)."""
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def keys_of(
    files: list[tuple[str, str, os.stat_result | None]],
) -> Iterator[tuple[str, int, int, int, int]]:
    """``(path, inode, size, mtime_ns, ctime_ns)`` of scanned files (stat taken)."""
    for p, _, st in files:
        if st is not None:
            yield (p, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def files_digest(keys: Iterable[tuple[str, int, int, int, int]]) -> str:
    """One digest of ``(path, inode, size, mtime_ns, ctime_ns)`` per file, in path order:
    the paths joined and the numbers packed (C-level work, not a string per file)."""
    rows = list(keys)
    return _digest([r[0] for r in rows], [v for r in rows for v in r[1:]])


_STAT_KEY = attrgetter("st_ino", "st_size", "st_mtime_ns", "st_ctime_ns")


def scanned_digest(files: list[tuple[str, str, os.stat_result | None]]) -> str:
    """``files_digest(keys_of(files))`` without a tuple per file (the warm ``ls`` path)."""
    kept = [f for f in files if f[2] is not None]
    stats = [f[2] for f in kept]
    return _digest([f[0] for f in kept], list(chain.from_iterable(map(_STAT_KEY, stats))))


def _digest(paths: list[str], nums: list[int]) -> str:
    h = hashlib.blake2b(digest_size=16)
    h.update("\0".join(paths).encode("utf-8", "surrogatepass"))
    h.update(b"\1")
    try:
        h.update(array("q", nums).tobytes())
    except OverflowError:  # an inode beyond 2**63 (some filesystems): as text then
        h.update(" ".join(map(str, nums)).encode())
    return h.hexdigest()


class SidCodeFiles:
    """What the catalog reads from a sid-code home: its files, rows, registrations."""

    def __init__(self, home: Home) -> None:
        self.home = home

    def scan(
        self, stat: bool, errors: list[str] | None
    ) -> list[tuple[str, str, os.stat_result | None]]:
        return scan_session_files(self.home, stat=stat, errors=errors)

    def summarize(self, items: list[tuple[str, str]], regs: list, chunk_files: int = CHUNK_FILES):
        return summarize_files(self.home, items, registrations=regs, chunk_files=chunk_files)

    def registrations(self) -> list:
        return read_registrations(self.home)

    def project_of(self, path: str) -> str:
        parent = Path(path).parent
        return "" if parent == self.home.sessions_dir else parent.name

    def session_file(self, s: SessionSummary) -> Any:
        return SessionFile(Path(s.path), s.session_id, s.project, s.kind)


class ClaudeFiles:
    """What the catalog reads from a Claude Code home (:mod:`sidtui.core.claude.listing`)."""

    def __init__(self, home: ClaudeHome) -> None:
        self.home = home

    def scan(
        self, stat: bool, errors: list[str] | None
    ) -> list[tuple[str, str, os.stat_result | None]]:
        from sidtui.core.claude.listing import scan_files

        return scan_files(self.home, stat=stat, errors=errors)

    def summarize(self, items: list[tuple[str, str]], regs: list, chunk_files: int = CHUNK_FILES):
        from sidtui.core.claude.listing import summarize_files as claude_summaries

        return claude_summaries(self.home, items, registrations=regs, chunk_files=chunk_files)

    def registrations(self) -> list:
        from sidtui.core.claude.liveness import read_processes

        return read_processes(self.home)

    def project_of(self, path: str) -> str:
        from sidtui.core.claude.layout import home_of

        place = home_of(path)
        return place[1] if place else ""

    def session_file(self, s: SessionSummary) -> Any:
        from sidtui.core.claude.layout import file_for_path

        return file_for_path(Path(s.path))


class CodexFiles:
    """What the catalog reads from a Codex CLI home (:mod:`sidtui.core.codex`): a rollout's
    project is its ``cwd``, read from its first line (kept per stat key in memory, so a
    warm scan opens only the files that changed)."""

    def __init__(self, home: CodexHome) -> None:
        self.home = home
        self._projects: dict[str, tuple[tuple[int, int, int, int], str]] = {}

    def scan(
        self, stat: bool, errors: list[str] | None
    ) -> list[tuple[str, str, os.stat_result | None]]:
        from sidtui.core.codex.layout import discover_paths

        out: list[tuple[str, str, os.stat_result | None]] = []
        for path in discover_paths(self.home, errors):
            try:
                st = os.stat(path)
            except FileNotFoundError:
                continue
            except OSError as exc:
                if errors is not None:
                    errors.append(f"cannot read {path}: {exc.strerror or exc}")
                continue
            out.append((path, self._project(path, st), st if stat else None))
        return out

    def _project(self, path: str, st: os.stat_result) -> str:
        key = stat_key(st)
        hit = self._projects.get(path)
        if hit is not None and hit[0] == key:
            return hit[1]
        project = self.project_of(path)
        self._projects[path] = (key, project)
        return project

    def summarize(self, items: list[tuple[str, str]], regs: list, chunk_files: int = CHUNK_FILES):
        from sidtui.core.codex.session import summarize_files as codex_summaries

        return codex_summaries(self.home, items, regs, chunk_files)

    def registrations(self) -> list:
        from sidtui.core.codex.liveness import read_locks

        return read_locks(self.home)

    def project_of(self, path: str) -> str:
        from sidtui.core.codex.layout import read_meta

        cwd = read_meta(Path(path)).get("cwd")
        return cwd if isinstance(cwd, str) else ""

    def session_file(self, s: SessionSummary) -> Any:
        from sidtui.core.codex.layout import CodexFile

        return CodexFile(Path(s.path), s.session_id, s.project or "")


HomeFiles = SidCodeFiles | ClaudeFiles | CodexFiles


def files_for(home: Any) -> HomeFiles:
    """The catalog's file layout of ``home`` (by its kind of home)."""
    if isinstance(home, ClaudeHome):
        return ClaudeFiles(home)
    if isinstance(home, CodexHome):
        return CodexFiles(home)
    return SidCodeFiles(home)

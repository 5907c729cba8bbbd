"""Which Claude Code sessions a running process writes now (docs/CLAUDE-CODE.md §8).

Claude Code registers each running process in ``sessions/<pid>.json`` (``pid``,
``sessionId``, ``cwd``, ``startedAt`` ms, ``procStart``, ``status`` idle/busy/…, ``kind``,
``entrypoint``, ``name``). A PID is reused after its process exits, so a registration is
live only when the PID runs *and* is the same process: on Linux ``procStart`` is that
process's start time in clock ticks since boot (``/proc/<pid>/stat`` field 22) and must
equal the running process's; without it (or elsewhere) the process must not have started
after ``startedAt`` (:func:`sidtui.core.resume.process.pid_alive`). Legacy ``pid-<n>.json`` files
are orphans of old versions and are ignored. The rows are sid-code's
:class:`~sidtui.core.resume.process.Registration` (one liveness model for both sources).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sidtui.core.base.values import json_int
from sidtui.core.claude.layout import ClaudeHome
from sidtui.core.resume.process import (
    Liveness,
    Registration,
    liveness_for,
    pid_alive,
    read_json_file,
)

_PID_FILE = re.compile(r"^\d+\.json$")


@dataclass
class ClaudeRegistration(Registration):
    """A ``sessions/<pid>.json`` entry (the extra fields Claude Code writes)."""

    proc_start: str | None = None
    status: str | None = None
    entrypoint: str | None = None
    name: str | None = None


def proc_start_ticks(pid: int, proc: Path = Path("/proc")) -> str | None:
    """Field 22 of ``/proc/<pid>/stat`` (the start time in clock ticks since boot), or
    None when it cannot be read (no such process, not Linux).

    The command name (field 2) is in parentheses and may hold spaces and parentheses, so
    the fields are counted after its last ``)``.
    """
    try:
        data = (proc / str(pid) / "stat").read_bytes()
    except OSError:
        return None
    rest = data[data.rfind(b")") + 1 :].split()
    # rest[0] is field 3 (state): field 22 is rest[19]
    return rest[19].decode() if len(rest) > 19 else None


def _text(v: Any) -> str | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, str)):
        return str(v)
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return None


def check_alive(
    pid: int, proc_start: str | None, started_at: int | None, proc: Path
) -> tuple[bool, str]:
    """Is ``pid`` still the registering process? ``(alive, reason)``.

    With a numeric ``procStart`` and a readable ``/proc``, the running process's start
    ticks must be exactly that value; otherwise :func:`~sidtui.core.resume.process.pid_alive`
    compares the process's creation time with ``startedAt``.
    """
    if pid <= 0:
        return False, f"invalid pid {pid}"
    if proc_start is not None and proc_start.isdigit() and (proc / "self" / "stat").exists():
        now = proc_start_ticks(pid, proc)
        if now is None:
            return False, f"pid {pid} is not running"
        if now != proc_start:
            return False, (
                f"pid {pid} was reused: the running process started at tick {now}, "
                f"the registration says {proc_start}"
            )
        return True, f"pid {pid} is alive (same start time)"
    return pid_alive(pid, started_at)


def read_processes(
    home: ClaudeHome, warnings: list[str] | None = None, proc: Path = Path("/proc")
) -> list[ClaudeRegistration]:
    """Every ``sessions/<pid>.json`` with its liveness, sorted by PID; ``pid-*.json``
    legacy files are skipped.

    Args:
        home: the Claude Code home.
        warnings: gets one line per file that cannot be read.
        proc: the proc filesystem (tests point it elsewhere).
    """
    out: list[ClaudeRegistration] = []
    try:
        names = [p for p in home.sessions_dir.iterdir() if _PID_FILE.match(p.name)]
    except OSError:
        return out
    names.sort(key=lambda p: int(p.name[: -len(".json")]))
    for p in names:
        d, why = read_json_file(p)
        if why is None and not isinstance(d, dict):
            why = "not a JSON object"
        if why is not None or not isinstance(d, dict):
            reg = _unreadable(p, why or "unreadable", warnings)
            if reg is not None:
                out.append(reg)
            continue
        pid = json_int(d.get("pid"), digits=True)
        if pid is None:
            pid = int(p.name[: -len(".json")])
        sid = d.get("sessionId")
        reg = ClaudeRegistration(
            path=p,
            session_id=sid if isinstance(sid, str) else None,
            pid=pid,
            kind=d.get("kind") if isinstance(d.get("kind"), str) else None,
            cwd=d.get("cwd") if isinstance(d.get("cwd"), str) else None,
            started_at=json_int(d.get("startedAt"), digits=True),
            proc_start=_text(d.get("procStart")),
            status=d.get("status") if isinstance(d.get("status"), str) else None,
            entrypoint=d.get("entrypoint") if isinstance(d.get("entrypoint"), str) else None,
            name=d.get("name") if isinstance(d.get("name"), str) else None,
        )
        reg.live, reg.reason = check_alive(pid, reg.proc_start, reg.started_at, proc)
        out.append(reg)
    return out


def _unreadable(p: Path, why: str, warnings: list[str] | None) -> ClaudeRegistration | None:
    """A ``sessions/<pid>.json`` that cannot be read (a FIFO, a folder, torn JSON): the
    process its name gives may write any session, so it is **possibly live** (``session_id``
    None: it matches every session) — unless no process has that PID (a dead process
    writes nothing). Either way one line in ``warnings``."""
    pid = int(p.name[: -len(".json")])
    alive, reason = pid_alive(pid)
    if not alive:
        if warnings is not None:
            warnings.append(f"{p}: {why}; ignored ({reason})")
        return None
    if warnings is not None:
        warnings.append(f"{p}: {why}; treated as a possibly live session ({reason})")
    return ClaudeRegistration(p, None, pid, live=True, possibly=True, reason=why)


def session_liveness(session_id: str, processes: list[ClaudeRegistration]) -> Liveness:
    """Whether a running process writes the session ``session_id`` (live), or only a dead
    one left its registration (stale). A registration that could not be read (its
    ``session_id`` None) makes every session possibly live."""
    lv = liveness_for(session_id, (), [r for r in processes if r.session_id is not None])
    unknown = [r for r in processes if r.session_id is None and r.live]
    if unknown:
        return Liveness(live=True, stale=False, registrations=[*lv.registrations, *unknown])
    return lv


def live_words(session_id: str, lv: Liveness) -> str:
    """``session S is live (Claude Code process 12)``, or ``… is possibly live (registration
    PATH: not a regular file (a FIFO))`` when only unreadable registrations make it so."""
    sure = [str(r.pid) for r in lv.registrations if r.live and not r.possibly]
    if sure:
        return f"session {session_id} is live (Claude Code process {', '.join(sure)})"
    where = "; ".join(f"{r.path}: {r.reason}" for r in lv.registrations if r.live)
    return f"session {session_id} is possibly live (registration {where})"

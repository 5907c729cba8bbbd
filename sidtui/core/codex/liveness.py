"""Whether a Codex CLI process writes a session now (docs/CODEX.md §6).

Codex 0.169.0 creates ``thread-writer-locks/<session id>.lock`` (empty) and holds an
exclusive ``flock`` on it while a process writes that session's rollout; a clean exit
removes the file, a killed process leaves it unlocked. sidtui never takes the lock (that
could stall a starting Codex): it looks the file's device and inode up in
``/proc/locks``, which also names the holder's PID. Without ``/proc/locks`` (not Linux) a
lock file says only "possibly running".
"""

from __future__ import annotations

import os
from pathlib import Path

from sidtui.core.codex.layout import CodexHome
from sidtui.core.resume.process import Liveness, Registration

LOCKS_DIR = "thread-writer-locks"
PROC_LOCKS = Path("/proc/locks")


def held_flocks(proc_locks: Path = PROC_LOCKS) -> dict[tuple[int, int, int], int] | None:
    """``(major, minor, inode) → pid`` of every ``FLOCK`` in ``proc_locks`` (None: it
    cannot be read)."""
    try:
        text = proc_locks.read_text()
    except OSError:
        return None
    out: dict[tuple[int, int, int], int] = {}
    for line in text.splitlines():
        parts = line.split()
        if "->" in parts:  # a waiter, not a holder
            continue
        if len(parts) < 6 or parts[1] != "FLOCK":
            continue
        try:
            pid = int(parts[4])
            maj, mino, ino = parts[5].split(":")
            out[(int(maj, 16), int(mino, 16), int(ino))] = pid
        except ValueError:
            continue
    return out


def read_locks(
    home: CodexHome, warnings: list[str] | None = None, proc_locks: Path = PROC_LOCKS
) -> list[Registration]:
    """One registration per ``thread-writer-locks/<id>.lock``: live when a process holds
    its flock, stale when none does, ``possibly`` live when that cannot be told."""
    folder = home.root / LOCKS_DIR
    try:
        names = sorted(
            n for n in os.listdir(folder) if n.endswith(".lock") and not n.startswith(".")
        )
    except FileNotFoundError:
        return []
    except OSError as exc:
        if warnings is not None:
            warnings.append(f"cannot list {folder}: {exc.strerror or exc}")
        return []
    held = held_flocks(proc_locks)
    out: list[Registration] = []
    for name in names:
        p = folder / name
        sid = name.removesuffix(".lock")
        try:
            st = p.stat()
        except OSError:
            continue
        if held is None:
            out.append(
                Registration(
                    p,
                    sid,
                    None,
                    live=True,
                    possibly=True,
                    reason="lock file present; its lock cannot be checked here",
                )
            )
            continue
        pid = held.get((os.major(st.st_dev), os.minor(st.st_dev), st.st_ino))
        if pid is not None:
            out.append(Registration(p, sid, pid, live=True, reason="alive"))
        else:
            out.append(Registration(p, sid, None, reason="lock file left by a process that exited"))
    return out


def session_liveness(regs: list[Registration], session_id: str) -> Liveness:
    mine = [r for r in regs if r.session_id == session_id]
    live = any(r.live for r in mine)
    return Liveness(live=live, stale=bool(mine) and not live, registrations=mine)

"""The simulated agent's process-layer files: registration, file intents, history, summaries.

Design notes: docs/ARCHITECTURE.md, “demo/registry.py”.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sidtui.core.base.home import Home, safe_id
from sidtui.core.base.jsonout import stringify, stringify_pretty
from sidtui.core.checkpoints.index import atomic_write_bytes


def write_pretty(path: Path, obj: Any, *, durable: bool = False) -> None:
    """``JSON.stringify(obj, null, 2)`` to ``path`` atomically (no final newline).

    Temp file + ``os.replace`` always (readers never see a torn file); ``durable`` adds the
    fsyncs. The registry and intent files are rewritten on every declaration and are
    worthless after a power loss (their PIDs are gone), so they skip the fsync.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    data = stringify_pretty(obj, 2).encode("utf-8", "surrogatepass")
    if durable:
        atomic_write_bytes(path, data)
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def register(
    home: Home,
    session_id: str,
    *,
    pid: int,
    kind: str,
    cwd: str,
    started_at: int,
    model: str | None,
    logical_session_id: str | None = None,
) -> Path:
    """Write this process's ``active-sessions`` entry; return its path."""
    reg: dict[str, Any] = {
        "sessionId": session_id,
        "pid": pid,
        "kind": kind,
        "cwd": cwd,
        "startedAt": started_at,
    }
    if model is not None:
        reg["model"] = model
    if logical_session_id is not None:
        reg["logicalSessionId"] = logical_session_id
    path = home.active_sessions_dir / f"{safe_id(session_id)}.json"
    write_pretty(path, reg)
    return path


def unregister(home: Home, session_id: str) -> None:
    """Remove the entry (the agent's exit hook). Missing is fine."""
    try:
        os.unlink(home.active_sessions_dir / f"{safe_id(session_id)}.json")
    except FileNotFoundError:
        pass


class IntentFile:
    """One process's ``file-intents`` file, rewritten on every declaration.

    Args:
        home: the home.
        session_id: the process's own session id.
        pid: its PID.
        cwd: its working directory.
    """

    def __init__(self, home: Home, session_id: str, pid: int, cwd: str) -> None:
        self.path = home.file_intents_dir / f"{safe_id(session_id)}.json"
        self.session_id = session_id
        self.pid = pid
        self.cwd = cwd
        self.files: dict[str, dict[str, Any]] = {}

    def declare(self, file_path: str, operation: str, now_ms: int) -> None:
        """Declare (or refresh) an intent on ``file_path`` (``read``/``edit``/``write``)."""
        cur = self.files.get(file_path)
        if cur is None:
            self.files[file_path] = {
                "path": file_path,
                "declaredAt": now_ms,
                "lastAccessAt": now_ms,
                "operation": operation,
            }
        else:
            cur["lastAccessAt"] = now_ms
            if operation != "read":
                cur["operation"] = operation
        write_pretty(
            self.path,
            {"sessionId": self.session_id, "pid": self.pid, "cwd": self.cwd, "files": self.files},
        )

    def remove(self) -> None:
        """Delete the file (clean exit)."""
        self.files = {}
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


def append_history(home: Home, display: str, timestamp: str, project: str, session_id: str) -> None:
    """Append one prompt line to ``history.jsonl``."""
    home.root.mkdir(parents=True, exist_ok=True)
    line = stringify(
        {
            "display": display,
            "pastedContents": [],
            "timestamp": timestamp,
            "project": project,
            "sessionId": session_id,
        }
    )
    with open(home.history_path, "ab") as fh:
        fh.write(line + b"\n")


def write_summary(
    session_dir: Path,
    session_id: str,
    summary: str,
    model: str,
    provider: str,
    created_at: str,
    message_count: int,
    estimated_tokens: int,
) -> Path:
    """Write ``summaries/<session_id>.json``; return its path."""
    path = session_dir / "summaries" / f"{session_id}.json"
    write_pretty(
        path,
        {
            "sessionId": session_id,
            "summary": summary,
            "model": model,
            "provider": provider,
            "createdAt": created_at,
            "messageCount": message_count,
            "estimatedTokens": estimated_tokens,
        },
    )
    return path

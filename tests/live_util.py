"""Builders for the live-layer tests (plausible v3 records, a tiny home)."""

from __future__ import annotations

from pathlib import Path

import orjson

SID = "20260101-000000-aaaaaaaa"


def line(d: dict) -> bytes:
    return orjson.dumps(d) + b"\n"


def start(uuid: str = "u0", sid: str = SID, parent: str | None = None) -> dict:
    return {"type": "session_start", "version": "3.0", "sessionId": sid, "model": "m",
            "provider": "p", "cwd": "/tmp/x", "timestamp": "2026-01-01T00:00:00.000Z",
            "uuid": uuid, "parentUuid": parent}


def user(uuid: str, parent: str | None, text: str = "hello") -> dict:
    return {"type": "user_message", "uuid": uuid, "parentUuid": parent,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": text}]}}


def assistant(uuid: str, parent: str | None, text: str = "ok", tool: str | None = None,
              path: str | None = None) -> dict:
    content: list[dict] = [{"type": "text", "text": text}]
    if tool:
        content.append({"type": "tool_use", "id": f"t-{uuid}", "name": tool,
                        "input": {"file_path": path or "/tmp/x/a.py"}})
    return {"type": "assistant_message", "uuid": uuid, "parentUuid": parent,
            "timestamp": "2026-01-01T00:00:02.000Z",
            "message": {"role": "assistant", "content": content}}


def make_home(root: Path, sessions: dict[str, bytes], project: str = "proj") -> Path:
    """A home with ``sessions/<project>/<id>.jsonl`` for each item."""
    d = root / "sessions" / project
    d.mkdir(parents=True, exist_ok=True)
    for sid, data in sessions.items():
        (d / f"{sid}.jsonl").write_bytes(data)
    for sub in ("active-sessions", "file-intents", "checkpoints"):
        (root / sub).mkdir(exist_ok=True)
    return root


def dead_pid() -> int:
    """A PID that is certainly not running now (a child we started and reaped)."""
    import subprocess
    import sys

    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def neutralize_fixture_pids(home: Path) -> None:
    """Never trust fixture PIDs: point every registration/intent at a reaped child."""
    pid = dead_pid()
    for sub in ("active-sessions", "file-intents"):
        for p in (home / sub).glob("*.json"):
            d = orjson.loads(p.read_bytes())
            if isinstance(d, dict) and "pid" in d:
                d["pid"] = pid
                p.write_bytes(orjson.dumps(d))

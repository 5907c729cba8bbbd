"""Hand-crafted files that no correct writer produces.

Design notes: docs/ARCHITECTURE.md, “demo/crafted.py”.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sidtui.core.base.jsonout import stringify
from sidtui.core.checkpoints.index import CheckpointIndex
from sidtui.demo.clock import SeededIds, SimClock
from sidtui.demo.projects import session_start_record
from sidtui.demo.registry import write_pretty


def _append_lines(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "ab") as fh:
        for rec in records:
            fh.write(stringify(rec) + b"\n")


def truncate_last_line(path: Path, keep_fraction: float = 0.55) -> int:
    """Cut the file's last line to ``keep_fraction`` of its length, without its newline.

    Returns:
        The number of bytes removed.
    """
    data = path.read_bytes()
    body = data[:-1] if data.endswith(b"\n") else data
    start = body.rfind(b"\n") + 1
    cut = start + max(1, int((len(body) - start) * keep_fraction))
    # Never cut inside a UTF-8 sequence: a torn multi-byte char is a different case.
    while cut > start and (body[cut] & 0xC0) == 0x80:
        cut -= 1
    with open(path, "r+b") as fh:
        fh.truncate(cut)
    return len(data) - cut


def _last_uuid(path: Path) -> str | None:
    from sidtui.core.transcript.scan import scan_records

    rf = scan_records(path.read_bytes())
    return rf.records[-1].uuid if rf.records else None


def glue_resume(
    path: Path,
    *,
    clock: SimClock,
    ids: SeededIds,
    process_id: str,
    cwd: str,
    model: str,
    prompt: str,
    answer: str,
) -> None:
    """Resume onto a torn last line *the agent's way* (no newline fix): the next process's
    first record (``trace_session_id``) lands glued to the torn bytes, and every later
    record chains to that now-unreadable record (fixture S16).

    The agent takes the last parseable line's uuid as the tail, so the glued record's
    parent is the record before the torn one.
    """
    parent = _last_uuid(path)
    recs: list[dict[str, Any]] = []
    clock.advance(3_600_000)
    trace = {
        "type": "metadata",
        "key": "trace_session_id",
        "value": process_id,
        "timestamp": clock.iso(),
        "uuid": ids.uuid(),
        "parentUuid": parent,
    }
    clock.advance(15_000)
    user = {
        "type": "user_message",
        "message": {"role": "user", "content": [{"type": "text", "text": prompt}]},
        "timestamp": clock.iso(),
        "cwd": cwd,
        "permissionMode": "default",
        "uuid": ids.uuid(),
        "parentUuid": trace["uuid"],
    }
    clock.advance(2_400)
    asst = {
        "type": "assistant_message",
        "message": {"role": "assistant", "content": [{"type": "text", "text": answer}]},
        "timestamp": clock.iso(),
        "usage": {
            "inputTokens": 88,
            "outputTokens": 120,
            "cacheReadInputTokens": 6250,
            "cacheCreationInputTokens": 411,
        },
        "model": model,
        "stopReason": "end_turn",
        "msgId": ids.msg_id(),
        "uuid": ids.uuid(),
        "parentUuid": user["uuid"],
    }
    recs = [trace, user, asst]
    with open(path, "ab") as fh:  # no "\n" first: this is the agent's bug, on purpose
        for rec in recs:
            fh.write(stringify(rec) + b"\n")


def _cycle_opening(session_id: str, model: str, cwd: str, ts, u: list[str]) -> list[dict]:
    """The cycle session's ``session_start`` and first prompt."""
    return [
        {
            **session_start_record(session_id, model, cwd),
            "timestamp": ts(0),
            "uuid": u[0],
            "parentUuid": None,
        },
        {
            "type": "user_message",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "Why does the import script run forever on the March data?",
                    }
                ],
            },
            "timestamp": ts(1),
            "cwd": cwd,
            "permissionMode": "default",
            "uuid": u[1],
            "parentUuid": u[0],
        },
    ]


def write_cycle_session(
    path: Path, *, session_id: str, clock: SimClock, ids: SeededIds, cwd: str, model: str
) -> None:
    """A session whose last record re-uses an earlier record's uuid.

    The parent walk from the tail meets that uuid again and stops (a cycle, FORMAT.md §4.4):
    the loader keeps only the records walked before the repeat.
    """
    u = [ids.uuid() for _ in range(5)]
    t0 = clock.ms()

    def ts(k: int) -> str:
        from sidtui.demo.clock import iso_ms

        return iso_ms(t0 + k * 4_100)

    tool_id = ids.tool_use_id()
    usage = {
        "inputTokens": 64,
        "outputTokens": 190,
        "cacheReadInputTokens": 5120,
        "cacheCreationInputTokens": 411,
    }
    recs = [
        *_cycle_opening(session_id, model, cwd, ts, u),
        {
            "type": "assistant_message",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Let me look for the loop."},
                    {
                        "type": "tool_use",
                        "id": tool_id,
                        "name": "grep",
                        "input": {"pattern": "while", "path": "."},
                    },
                ],
            },
            "timestamp": ts(2),
            "usage": usage,
            "model": model,
            "stopReason": "tool_use",
            "msgId": ids.msg_id(),
            "uuid": u[2],
            "parentUuid": u[1],
        },
        {
            "type": "user_message",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": tool_id,
                        "content": f"{cwd}/analyze.py:12:    while row:",
                    }
                ],
            },
            "timestamp": ts(3),
            "uuid": u[3],
            "parentUuid": u[2],
        },
        {
            "type": "assistant_message",
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "type": "text",
                        "text": "Line 12 never advances `row`; reading the next row inside the loop fixes it.",
                    }
                ],
            },
            "timestamp": ts(4),
            "usage": usage,
            "model": model,
            "stopReason": "end_turn",
            "msgId": ids.msg_id(),
            "uuid": u[4],
            "parentUuid": u[3],
        },
        # A record copied back in by a buggy sync tool: it re-uses u[2] as its own uuid.
        {
            "type": "metadata",
            "key": "session_name",
            "value": "Import loop",
            "timestamp": ts(5),
            "uuid": u[2],
            "parentUuid": u[4],
        },
    ]
    if path.exists():
        os.unlink(path)
    _append_lines(path, recs)
    clock.advance(6 * 4_100)


def write_v1_session(path: Path, data: dict[str, Any]) -> None:
    """A v1 whole-file JSON session (``JSON.stringify(x, null, 2)``, no final newline)."""
    write_pretty(path, data)


def write_v2_session(
    path: Path, records: list[dict[str, Any]], *, torn_tail: str | None = None
) -> None:
    """A v2 JSONL session (no uuid chain); ``torn_tail`` is appended without a newline."""
    if path.exists():
        os.unlink(path)
    _append_lines(path, records)
    if torn_tail:
        with open(path, "ab") as fh:
            fh.write(torn_tail.encode("utf-8"))


def write_legacy_checkpoints(
    index_path: Path, session_id: str, created_at: int, files: dict[str, list[dict[str, Any]]]
) -> None:
    """The legacy index ``{sessionId, createdAt, files: {path: {filePath, entries}}}``."""
    write_pretty(
        index_path,
        {
            "sessionId": session_id,
            "createdAt": created_at,
            "files": {p: {"filePath": p, "entries": e} for p, e in files.items()},
        },
    )


def evict_base_without_reanchor(index_path: Path, file_path: str) -> str | None:
    """Remove ``file_path``'s first full entry when a diff follows it, without re-anchoring.

    Returns:
        The id of the snapshot that lost its entry, or None when there was nothing to do.
    """
    index = CheckpointIndex.load(index_path)
    entries = index.entries_for(file_path)
    for n, (pos, entry) in enumerate(entries[:-1]):
        if entry.get("type") == "full" and entries[n + 1][1].get("type") == "diff":
            snap = index.snapshots[pos]
            snap["files"] = [f for f in snap["files"] if f.get("filePath") != file_path]
            sid = snap.get("id")
            if not snap["files"]:
                index.snapshots.pop(pos)
            lfm = index.data.get("latestFullMap")
            if isinstance(lfm, dict) and lfm.get(file_path) == sid:
                del lfm[file_path]
            index.invalidate()
            index.write(index_path)
            return str(sid)
    return None

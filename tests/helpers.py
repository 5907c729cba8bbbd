"""Small builders for hand-made transcripts in tests."""

from __future__ import annotations

from sidtui.core.jsonout import stringify


def rec(type_: str, uuid: str | None, parent: str | None, **fields) -> dict:
    d = {"type": type_, **fields}
    if uuid is not None:
        d["uuid"] = uuid
        d["parentUuid"] = parent
    return d


def start(uuid="S", parent=None, sid="20260101-000000-aaaaaaaa", **kw) -> dict:
    return rec("session_start", uuid, parent, version="3.0", sessionId=sid, model="m",
               provider="p", cwd="/tmp/x", timestamp="2026-01-01T00:00:00.000Z", **kw)


def user(uuid, parent, text="hi") -> dict:
    return rec("user_message", uuid, parent,
               message={"role": "user", "content": [{"type": "text", "text": text}]})


def tool_results(uuid, parent, *ids) -> dict:
    return rec("user_message", uuid, parent, message={"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": i, "content": "ok"} for i in ids]})


def assistant(uuid, parent, text="ok", tools=(), thinking=None) -> dict:
    content = []
    if thinking is not None:
        content.append({"type": "thinking", "thinking": thinking})
    if text is not None:
        content.append({"type": "text", "text": text})
    for tid, name in tools:
        content.append({"type": "tool_use", "id": tid, "name": name, "input": {}})
    return rec("assistant_message", uuid, parent, message={"role": "assistant", "content": content})


def jsonl(*records) -> bytes:
    out = []
    for r in records:
        out.append(r if isinstance(r, bytes) else stringify(r))
    return b"\n".join(out) + b"\n"

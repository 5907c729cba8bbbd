"""Our writer's files have the agent's record shapes, key order and line format.

Each single-writer fixture session is replayed through :class:`SessionStore` with the
same calls the agent made; the output must equal the fixture line for line once uuids and
times are normalised (structural comparison), and chain the same way.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sidtui.core.base.jsonout import stringify
from sidtui.core.transcript.writer import SessionStore, flush_pending_writes
from tests.helpers import REAL_HOME

SINGLE_WRITER = [
    "tmp-sidtui-fixture-projects-webapp/20261130-052907-9ff3799b.jsonl",
    "tmp-sidtui-fixture-projects-webapp/20261130-052907-87d4ce35.jsonl",
    "tmp-sidtui-fixture-projects-webapp/20261130-052911-4ee72b6a.jsonl",
    "tmp-sidtui-fixture-projects-webapp/20261130-052915-f2217f0e.jsonl",
    "tmp-sidtui-fixture-projects-cli-tool/20261130-052907-79e5ff19.jsonl",
    "tmp-sidtui-fixture-projects-cli-tool/20261130-052918-63b1c5f8.jsonl",
    "tmp-sidtui-fixture-projects-notes-1c8af1/20261130-052916-63e39b3e.jsonl",
    "tmp-sidtui-fixture-projects-evict-lab/20261130-052919-9c73281d.jsonl",
    "tmp-sidtui-fixture-projects-size-lab/20261130-052906-4d1e73cf.jsonl",
    "tmp-sidtui-fixture-projects-bigrepo/20261130-052919-7c46f0c3.jsonl",
]
SIDECHAINS = [
    "tmp-sidtui-fixture-projects-webapp/20261130-052917-0c88f996-a1f6n1kpu.jsonl",
    "tmp-sidtui-fixture-projects-webapp/20261130-052917-0c88f996-a5itgsvy2.jsonl",
]
VOLATILE = ("uuid", "parentUuid", "timestamp")


def normalise(rec: dict) -> dict:
    return {k: ("<v>" if k in VOLATILE and k != "parentUuid" else v) for k, v in rec.items()}


def replay(src: list[dict], folder: Path) -> Path:
    store = SessionStore(folder)
    ctx: dict[str, str | None] = {"cwd": None, "gitBranch": None, "permissionMode": None}
    for rec in src:
        t = rec["type"]
        if t == "session_start":
            parent = rec.get("parentUuid")
            store.start_session(
                rec["sessionId"],
                rec["model"],
                rec["provider"],
                rec["cwd"],
                forked_from_session_id=parent,
            )
        elif t == "user_message":
            for k in ctx:
                if k in rec:
                    ctx[k] = rec[k]
            store.append_message(
                rec["message"],
                cwd=ctx["cwd"],
                git_branch=ctx["gitBranch"],
                permission_mode=ctx["permissionMode"],
            )
        elif t == "assistant_message":
            store.append_message(
                rec["message"],
                usage=rec.get("usage"),
                model=rec.get("model"),
                stop_reason=rec.get("stopReason"),
                msg_id=rec.get("msgId"),
            )
        elif t == "metadata":
            store.append_metadata(rec["key"], rec["value"])
        elif t == "context_compact":
            store.append_compact(rec["summary"], rec["removedCount"], source=rec.get("source"))
        elif t == "session_end":
            store.end_session(rec["totalCostUSD"], rec["totalMessages"])
        else:  # pragma: no cover - the fixture has no other types
            raise AssertionError(t)
    flush_pending_writes(store.path)
    return store.path


@pytest.mark.parametrize("rel", SINGLE_WRITER, ids=lambda r: Path(r).stem)
def test_replay_matches_agent_file(rel, tmp_path):
    src_bytes = (REAL_HOME / "sessions" / rel).read_bytes()
    src = [json.loads(x) for x in src_bytes.splitlines() if x.strip()]
    out = replay(src, tmp_path)
    ours_raw = out.read_bytes()
    assert ours_raw.endswith(b"\n") and src_bytes.endswith(b"\n")
    ours = [json.loads(x) for x in ours_raw.splitlines()]
    assert len(ours) == len(src)
    for i, (a, b) in enumerate(zip(ours, src, strict=True)):
        assert list(a) == list(b), (i, b["type"])  # same keys, same order
        na, nb = normalise(a), normalise(b)
        na.pop("parentUuid", None)
        nb.pop("parentUuid", None)
        assert na == nb, (i, b["type"])
        # line format: our bytes are JSON.stringify of our record
        assert stringify(a) == ours_raw.splitlines()[i]
    # same chain shape: each record's parent is the previous line's uuid (or the head's)
    for i in range(1, len(ours)):
        assert ours[i]["parentUuid"] == ours[i - 1]["uuid"]
        assert src[i]["parentUuid"] == src[i - 1]["uuid"]
    assert ours[0]["parentUuid"] == src[0]["parentUuid"]
    # timestamps have the agent's format
    for a in ours:
        ts = a["timestamp"]
        assert len(ts) == 24 and ts[10] == "T" and ts.endswith("Z")


@pytest.mark.parametrize("rel", SIDECHAINS, ids=lambda r: Path(r).stem)
def test_sidechain_matches_agent_file(rel, tmp_path):
    from sidtui.core.transcript.writer import SidechainWriter

    src = [json.loads(x) for x in (REAL_HOME / "sessions" / rel).read_bytes().splitlines()]
    head = src[0]
    sc = SidechainWriter(tmp_path, head["sessionId"], head["agentId"])
    for rec in src:
        if rec["type"] == "sidechain_start":
            sc.start(rec["agentType"], rec["description"], rec["model"])
        elif rec["type"] == "message":
            sc.message(rec["role"], rec["content"], rec["turn"])
        else:
            sc.end(rec["status"])
    ours = [json.loads(x) for x in sc.path.read_bytes().splitlines()]
    assert sc.path.name == Path(rel).name
    assert [normalise(a) for a in ours] == [normalise(b) for b in src]
    assert [list(a) for a in ours] == [list(b) for b in src]

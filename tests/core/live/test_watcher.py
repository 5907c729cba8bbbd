"""Watcher: events from changed paths, liveness polls, the real notify thread."""

from __future__ import annotations

import asyncio
import os
import queue
import subprocess
import sys
import time

import orjson
import pytest

from sidtui.core.base.home import Home
from sidtui.core.live import events as ev
from sidtui.core.live.watcher import Watcher, needs_polling
from tests.helpers import SID, line, make_home
from tests.helpers import live_assistant as assistant
from tests.helpers import live_start as start
from tests.helpers import live_user as user


def _names(batch):
    return [type(e).__name__ for e in batch]


@pytest.fixture
def home(tmp_path):
    root = make_home(tmp_path / "home", {SID: line(start()) + line(user("u1", "u0"))})
    return Home(root)


def _path(home: Home, sid: str = SID) -> str:
    return str(home.sessions_dir / "proj" / f"{sid}.jsonl")


def _append(path: str, data: bytes) -> None:
    with open(path, "ab") as fh:
        fh.write(data)


def _child() -> subprocess.Popen:
    # a process that lives until we kill it (never trust fixture PIDs: use our own)
    return subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )


def _register(home: Home, sid: str, pid: int) -> None:
    (home.active_sessions_dir / f"{sid}.json").write_bytes(
        orjson.dumps(
            {
                "sessionId": sid,
                "pid": pid,
                "kind": "interactive",
                "cwd": "/tmp/x",
                "startedAt": int(time.time() * 1000),
            }
        )
    )


def test_appends_to_existing_file_report_only_new_records(home):
    w = Watcher(home, force_polling=True)
    w.prime()
    p = _path(home)
    _append(p, line(assistant("u2", "u1")) + line(user("u3", "u2")))
    batch = w.process_paths([p, p])
    assert _names(batch) == ["RecordsAppended"]
    assert [r.ref.uuid for r in batch[0].records] == ["u2", "u3"]
    assert batch[0].session_id == SID and batch[0].records[0].record["type"] == "assistant_message"
    assert w.tails[p].chain.chain == [0, 1, 2, 3]  # earlier records built the chain
    _append(p, line(user("b1", "u0")))  # a second writer continuing from u0
    batch = w.process_paths([p])
    assert _names(batch) == ["RecordsAppended", "ChainBranched"]
    assert (batch[1].old_tip, batch[1].new_tip) == ("u3", "b1")


def test_new_session_and_sidechain_lifecycle(home):
    w = Watcher(home, force_polling=True)
    w.prime()
    sid2 = "20260101-000001-bbbbbbbb"
    p2 = _path(home, sid2)
    _append(p2, b'{"type":"session_st')  # half of the first line: not created yet
    assert w.process_paths([p2]) == []
    _append(p2, line(start(sid=sid2))[len(b'{"type":"session_st') :])
    batch = w.process_paths([p2])
    assert _names(batch) == ["SessionCreated", "RecordsAppended"]
    assert batch[0].session_id == sid2 and batch[0].project == "proj"
    side = str(home.sessions_dir / "proj" / f"{SID}-agent1.jsonl")
    _append(
        side,
        line(
            {
                "type": "sidechain_start",
                "sessionId": SID,
                "agentId": "agent1",
                "agentType": "x",
                "description": "d",
                "model": "m",
                "timestamp": "t",
            }
        ),
    )
    batch = w.process_paths([side])
    assert _names(batch) == ["SidechainStarted", "RecordsAppended"]
    assert batch[0].parent_session_id == SID and batch[1].kind == "sidechain"
    _append(side, line({"type": "sidechain_end", "status": "completed"}))
    batch = w.process_paths([side])
    assert _names(batch) == ["RecordsAppended", "SidechainEnded"]
    assert batch[1].status == "completed"
    os.remove(side)
    assert _names(w.process_paths([side])) == ["FileReset"]


def test_checkpoint_index_changed(home):
    w = Watcher(home, force_polling=True)
    w.prime()
    idx = home.checkpoint_index(SID)
    idx.parent.mkdir(parents=True)
    idx.write_bytes(
        orjson.dumps(
            {
                "sessionId": SID,
                "createdAt": 1,
                "nextId": 2,
                "snapshots": [{"id": "s1", "files": []}],
            }
        )
    )
    batch = w.process_paths([str(idx)])
    assert batch == [ev.CheckpointIndexChanged(SID, str(idx), 1)]


def test_registered_then_killed_turns_stale_within_two_polls(home):
    w = Watcher(home, force_polling=True)
    w.prime()
    child = _child()
    try:
        _register(home, SID, child.pid)
        batch = w.poll_liveness()
        assert _names(batch) == ["SessionBecameLive"] and batch[0].pid == child.pid
        assert w.poll_liveness() == []
    finally:
        child.kill()
        child.wait()
    stale = w.poll_liveness() + w.poll_liveness()  # two poll periods at most
    assert _names(stale) == ["SessionBecameStale"] and stale[0].session_id == SID
    os.remove(home.active_sessions_dir / f"{SID}.json")
    assert _names(w.poll_liveness()) == ["SessionUnregistered"]


def test_dead_writer_decides_its_partial_line(home):
    w = Watcher(home, force_polling=True, settle_s=3600)
    w.prime()
    child = _child()
    _register(home, SID, child.pid)
    w.poll_liveness()
    p = _path(home)
    _append(p, b'{"type":"user_message","uu')
    assert w.process_paths([p]) == []  # held while the writer lives
    assert [e for e in w.tick() if isinstance(e, ev.BadLineFound)] == []
    child.kill()
    child.wait()
    batch = w.tick()
    bad = [e for e in batch if isinstance(e, ev.BadLineFound)]
    assert "SessionBecameStale" in _names(batch)
    assert len(bad) == 1 and bad[0].line.terminated is False and bad[0].line.line == 3


def test_file_intent_conflict_appeared(home):
    w = Watcher(home, force_polling=True)
    w.prime()
    now = int(time.time() * 1000)
    for sid, op in (("a", "edit"), ("b", "write")):
        (home.file_intents_dir / f"{sid}.json").write_bytes(
            orjson.dumps(
                {
                    "sessionId": sid,
                    "pid": os.getpid(),
                    "cwd": "/x",
                    "files": {
                        "/x/f.py": {
                            "path": "/x/f.py",
                            "declaredAt": now,
                            "lastAccessAt": now,
                            "operation": op,
                        }
                    },
                }
            )
        )
    batch = w.process_paths([str(home.file_intents_dir / "b.json")])
    assert _names(batch) == ["FileIntentConflictAppeared"] * 2
    assert {e.conflict.severity for e in batch} == {"critical"}
    assert w.process_paths([str(home.file_intents_dir / "b.json")]) == []  # not new


@pytest.mark.parametrize("polling", [False, True])
def test_thread_delivers_appends(home, polling):
    got: queue.Queue = queue.Queue()
    w = Watcher(home, got.put, force_polling=polling, poll_interval=0.2, poll_delay_ms=20)
    w.start()
    p = _path(home)
    parent = "u1"
    seen: list[str] = []

    def write_and_follow(uuids: list[str]) -> None:
        nonlocal parent
        for u in uuids:  # several appends within one second (same whole-second mtime)
            _append(p, line(user(u, parent)))
            parent = u
        want = seen + uuids
        while seen != want:
            batch = got.get(timeout=20)  # synchronisation, not timing
            for e in batch:
                if isinstance(e, ev.RecordsAppended):
                    seen.extend(r.ref.uuid for r in e.records)
            assert len(seen) <= len(want)

    try:
        write_and_follow([f"n{i}" for i in range(5)])  # possibly before the watch is ready
        assert w.ready.wait(20)
        for k in range(3):
            write_and_follow([f"m{k}-{i}" for i in range(3)])  # after it is
    finally:
        w.stop()
    assert w.errors == [] and w.warnings == []


async def test_async_batches_iterator(home):
    w = Watcher(home, force_polling=False, poll_interval=0.2)
    w.start()
    try:
        _append(_path(home), line(user("z1", "u1")))

        async def first_append():
            async for batch in w.batches():
                for e in batch:
                    if isinstance(e, ev.RecordsAppended):
                        return e

        e = await asyncio.wait_for(first_append(), 20)
        assert e.records[0].ref.uuid == "z1"
        assert e.to_json()["records"][0]["uuid"] == "z1"
    finally:
        w.stop()


def test_needs_polling_local_tmp(tmp_path):
    poll, fstype = needs_polling(tmp_path)
    assert poll is False and isinstance(fstype, str)


def test_truncated_and_replaced_file_reported_and_recovered(home):
    w = Watcher(home, force_polling=True)
    w.prime()
    p = _path(home)
    with open(p, "wb") as fh:  # truncated in place to a shorter history
        fh.write(line(start()))
    batch = w.process_paths([p])
    assert _names(batch) == ["FileReset", "RecordsAppended"]
    assert batch[0].reason == "truncated" and [r.ref.uuid for r in batch[1].records] == ["u0"]
    tmp = p + ".new"
    with open(tmp, "wb") as fh:
        fh.write(line(start("v0")) + line(user("v1", "v0")) + line(user("v2", "v1")))
    os.replace(tmp, p)
    batch = w.process_paths([p])
    assert batch[0] == ev.FileReset(SID, p, "replaced")
    assert [r.ref.uuid for r in batch[1].records] == ["v0", "v1", "v2"]
    assert w.tails[p].chain.chain == [0, 1, 2]


def test_unreadable_file_is_a_warning_not_a_crash(home, monkeypatch):
    w = Watcher(home, force_polling=True)
    w.prime()
    p = _path(home)
    _append(p, line(assistant("u2", "u1")))
    real_open = os.open

    def deny(path, *a, **k):
        if str(path) == p:
            raise PermissionError(13, "Permission denied")
        return real_open(path, *a, **k)

    monkeypatch.setattr(os, "open", deny)
    assert w.process_paths([p]) == [] and "Permission denied" in w.warnings[0]
    monkeypatch.setattr(os, "open", real_open)
    assert [r.ref.uuid for r in w.process_paths([p])[0].records] == ["u2"]


def test_following_a_sidechain_watches_its_parents_checkpoint_folder(home):
    """Regression: following one session watched ``checkpoints/<session_id>/``, but the
    folder is named by the checkpoint id (FORMAT.md §10.13: a sidechain's is its parent's),
    so a sidechain's checkpoint changes were never seen, in either watching mode."""
    from sidtui.core.base.discover import discover

    side = home.sessions_dir / "proj" / f"{SID}-agent1.jsonl"
    side.write_bytes(
        line({"type": "sidechain_start", "sessionId": SID, "agentId": "agent1", "timestamp": "t"})
    )
    [sf] = [f for f in discover(home) if f.kind == "sidechain"]
    assert sf.session_id == f"{SID}-agent1" and sf.checkpoint_id == SID
    w = Watcher(home, session=sf, force_polling=True)
    w.prime()
    idx = home.checkpoint_index(SID)
    idx.parent.mkdir(parents=True)
    idx.write_bytes(orjson.dumps({"sessionId": SID, "snapshots": [{"id": "s1", "files": []}]}))
    assert str(idx) in w._signatures()  # polled
    assert w.process_paths([str(idx)]) == [ev.CheckpointIndexChanged(SID, str(idx), 1)]
    other = home.checkpoint_index("20260101-000009-cccccccc")
    other.parent.mkdir(parents=True)
    other.write_bytes(orjson.dumps({"sessionId": "x", "snapshots": []}))
    assert w.process_paths([str(other)]) == []  # another session's index: not followed


def test_a_codex_home_is_followed_through_its_layout(tmp_path):
    """Rollouts three folders down (``sessions/YYYY/MM/DD``); an appended line is one
    record of that session; a new rollout is a new session with its ``cwd`` as project."""
    import shutil

    from sidtui.core.codex.layout import CodexHome
    from tests.helpers import FIXTURES

    root = tmp_path / "codex"
    shutil.copytree(FIXTURES / "codex-lab" / "home", root)
    w = Watcher(CodexHome(root), force_polling=True)
    w.prime()
    day = root / "sessions" / "2026" / "12" / "02"
    p = str(next(day.glob("*01a23620-82d0-7a90-a3de-26e5efe19e46.jsonl")))
    rec = {"timestamp": "2026-12-02T09:41:00.000Z", "type": "event_msg", "payload": {}}
    _append(p, orjson.dumps(rec) + b"\n")
    batch = w.process_paths([p])
    assert _names(batch) == ["RecordsAppended"]
    assert batch[0].session_id == "01a23620-82d0-7a90-a3de-26e5efe19e46"
    assert [r.record["type"] for r in batch[0].records] == ["event_msg"]
    new = day / "rollout-2026-12-02T09-42-00-01a23620-ffff-7000-8000-000000000001.jsonl"
    meta = {"type": "session_meta", "payload": {"id": "x", "cwd": "/tmp/proj"}}
    new.write_bytes(orjson.dumps(meta) + b"\n")
    batch = w.process_paths([str(new)])
    assert _names(batch) == ["SessionCreated", "RecordsAppended"]
    assert batch[0].session_id == "01a23620-ffff-7000-8000-000000000001"
    assert batch[0].project == "/tmp/proj"

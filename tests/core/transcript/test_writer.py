"""SessionStore: torn line, version and last-wins, resume; FORMAT.md §8 rules, failures, sidechains."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sidtui.core.base.jsonout import stringify
from sidtui.core.transcript import writer as w
from sidtui.core.transcript.chain import rebuild_chain
from sidtui.core.transcript.loader import load_jsonl
from sidtui.core.transcript.scan import scan_records
from sidtui.core.transcript.writer import SessionStore, SidechainWriter, flush_pending_writes
from tests.helpers import REPO

SID = "20261130-120000-0a1b2c3d"


def load(path: Path):
    flush_pending_writes(path)
    rf = scan_records(path.read_bytes())
    chain = rebuild_chain(rf)
    return rf, chain, load_jsonl(rf, chain, path.stem)


def user(text: str) -> dict:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def assistant(text: str) -> dict:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_bytes().splitlines() if x.strip()]


def test_lazy_creation_tail_points_at_pending_start(tmp_path):
    s = SessionStore(tmp_path / "proj")
    start_uuid = s.start_session(SID, "m", "anthropic", "/p")
    assert s.last_uuid == start_uuid
    assert not (tmp_path / "proj").exists()
    u = s.append_message(user("hi"))
    s.flush()
    recs = lines(s.path)
    assert [r["type"] for r in recs] == ["session_start", "user_message"]
    assert recs[0]["uuid"] == start_uuid and recs[0]["parentUuid"] is None
    assert recs[1]["parentUuid"] == start_uuid and recs[1]["uuid"] == u


def test_open_and_end_leaves_no_file(tmp_path):
    """FORMAT.md §8.4: opening and immediately ending writes nothing at all."""
    s = SessionStore(tmp_path)
    s.start_session(SID, "m", "anthropic", "/p")
    assert s.end_session(0, 0) is None
    flush_pending_writes()
    assert list(tmp_path.iterdir()) == []


def test_session_start_is_synchronous_and_queued_records_wait(tmp_path):
    s = SessionStore(tmp_path, flush_interval=60)
    s.start_session(SID, "m", "anthropic", "/p")
    s.append_message(user("a"))
    # session_start is on disk at once; the message waits in the queue.
    assert [r["type"] for r in lines(s.path)] == ["session_start"]
    assert w.pending_count(s.path) == 1
    s.flush()
    assert w.pending_count(s.path) == 0
    assert len(lines(s.path)) == 2


def test_session_end_lands_after_queued_records(tmp_path):
    """FORMAT.md §8.3: a critical record flushes the queue first, so it never overtakes it."""
    s = SessionStore(tmp_path, flush_interval=60)
    s.start_session(SID, "m", "anthropic", "/p")
    s.append_message(user("a"))
    s.append_message(assistant("b"))
    s.append_metadata("session_name", "x")
    s.end_session(0.25, 2)
    types = [r["type"] for r in lines(s.path)]
    assert types == [
        "session_start",
        "user_message",
        "assistant_message",
        "metadata",
        "session_end",
    ]
    _, chain, ls = load(s.path)
    assert ls.loadable and len(ls.messages) == 2
    assert len(chain.chain) == 5


def test_half_line_appended_by_hand_is_skipped(tmp_path):
    """FORMAT.md §2.2: a torn half line at the end is ignored; everything before it loads."""
    s = SessionStore(tmp_path)
    s.start_session(SID, "m", "anthropic", "/p")
    s.append_message(user("q1"))
    s.append_message(assistant("a1"))
    s.append_message(user("q2"))
    s.flush()
    with open(s.path, "ab") as fh:
        fh.write(b'{"role":"user","cont')
    rf, chain, ls = load(s.path)
    assert len(rf.bad_lines) == 1
    assert ls.loadable
    assert [m.preview() for m in ls.messages] == ["q1", "a1", "q2"]


def test_metadata_last_wins_and_interruption_shapes(tmp_path):
    """FORMAT.md §5.4–5.5: session_start has a version; metadata is last-wins."""
    s = SessionStore(tmp_path)
    s.start_session(SID, "m", "anthropic", "/p")
    s.append_metadata("session_name", "one")
    s.append_message(user("q"))
    s.append_metadata("session_name", "two")
    _, _, ls = load(s.path)
    assert ls.version == "3.0"
    assert ls.metadata["session_name"] == "two"
    assert ls.messages[-1].is_human_prompt  # last is a prompt: interrupted_prompt shape


def test_resume_continues_chain(tmp_path):
    """FORMAT.md §8.6: one session_start, one null parent, full history on reload."""
    s1 = SessionStore(tmp_path)
    s1.start_session(SID, "m", "anthropic", "/p")
    s1.append_message(user("q1"))
    s1.append_message(assistant("a1"))
    s1.end_session(0.1, 2)
    old_tail = lines(s1.path)[-1]["uuid"]

    s2 = SessionStore(tmp_path)
    assert s2.resume(s1.path) == old_tail
    s2.append_metadata("trace_session_id", "20261130-120100-ffffffff")
    s2.append_message(user("q2"))
    s2.append_message(assistant("a2"))
    s2.end_session(0.2, 4)

    recs = lines(s1.path)
    assert sum(r["type"] == "session_start" for r in recs) == 1
    assert sum(r["parentUuid"] is None for r in recs) == 1
    assert recs[4]["parentUuid"] == old_tail
    _, chain, ls = load(s1.path)
    assert chain.reached_head and len(chain.chain) == len(recs)
    assert [m.preview() for m in ls.messages] == ["q1", "a1", "q2", "a2"]


def test_resume_after_torn_tail_keeps_session_loadable(tmp_path):
    """[sidtui] The S16 fixture: resume after a torn last line must not glue onto it."""
    s1 = SessionStore(tmp_path)
    s1.start_session(SID, "m", "anthropic", "/p")
    s1.append_message(user("q1"))
    s1.append_message(assistant("a1"))
    s1.flush()
    data = s1.path.read_bytes()
    end = stringify({"type": "session_end", "totalCostUSD": 0, "totalMessages": 2})
    s1.path.write_bytes(data + end[: len(end) // 2])  # torn session_end
    s2 = SessionStore(tmp_path)
    tail = s2.resume(s1.path)
    assert tail == lines_before_torn_tail(s1.path)
    s2.append_message(user("q2"))
    rf, chain, ls = load(s1.path)
    assert len(rf.bad_lines) == 1
    assert ls.loadable
    assert [m.preview() for m in ls.messages] == ["q1", "a1", "q2"]


def lines_before_torn_tail(path: Path) -> str:
    good = []
    for x in path.read_bytes().split(b"\n"):
        try:
            good.append(json.loads(x))
        except ValueError:
            pass
    return good[-1]["uuid"]


def test_fork_start_parent_is_source_session_id(tmp_path):
    s = SessionStore(tmp_path)
    s.start_session(SID, "m", "anthropic", "/p", forked_from_session_id="20261130-000000-00000000")
    s.append_metadata("forked_from", {"sessionId": "20261130-000000-00000000", "messageCount": 0})
    recs = lines(s.path)
    assert recs[0]["parentUuid"] == "20261130-000000-00000000"
    _, chain, ls = load(s.path)
    assert ls.loadable and chain.fork_source == "20261130-000000-00000000"


def test_user_context_written_only_when_changed(tmp_path):
    s = SessionStore(tmp_path)
    s.start_session(SID, "m", "anthropic", "/p")
    s.append_message(user("a"), cwd="/p", git_branch="main", permission_mode="default")
    s.append_message(user("b"), cwd="/p", git_branch="main", permission_mode="default")
    s.append_message(user("c"), cwd="/p", git_branch="dev", permission_mode="default")
    s.flush()
    recs = lines(s.path)[1:]
    assert list(recs[0]) == [
        "type",
        "message",
        "timestamp",
        "cwd",
        "gitBranch",
        "permissionMode",
        "uuid",
        "parentUuid",
    ]
    assert list(recs[1]) == ["type", "message", "timestamp", "uuid", "parentUuid"]
    assert list(recs[2]) == ["type", "message", "timestamp", "gitBranch", "uuid", "parentUuid"]


def test_lines_are_json_stringify_bytes(tmp_path):
    s = SessionStore(tmp_path)
    s.start_session(SID, "m", "anthropic", "/p")
    s.append_message(user("héllo 工作 \u2028 \x01 😀"))
    s.append_metadata("usage_stats", {"totalCostUSD": 1.0, "x": 1e21, "y": 5e-7})
    s.flush()
    raw = s.path.read_bytes().splitlines()
    assert "héllo 工作".encode() in raw[1]
    assert b"\\u0001" in raw[1] and "\u2028".encode() in raw[1]
    assert b'"totalCostUSD":1,' in raw[2] and b'"x":1e+21' in raw[2] and b'"y":5e-7' in raw[2]
    for line in raw:
        assert stringify(json.loads(line)) == line
    ts = json.loads(raw[1])["timestamp"]
    assert len(ts) == 24 and ts.endswith("Z") and ts[19] == "."


def test_timer_flushes_without_explicit_call(tmp_path):
    s = SessionStore(tmp_path, flush_interval=0.01)
    s.start_session(SID, "m", "anthropic", "/p")
    s.append_message(user("a"))
    timer = w._timers.get(os.fspath(s.path))
    assert timer is not None and timer.daemon
    timer.join(timeout=10)  # wait for the timer thread itself, not a guessed duration
    assert w.pending_count(s.path) == 0
    assert len(lines(s.path)) == 2


def test_exit_hook_flushes_and_timer_does_not_keep_process_alive(tmp_path):
    script = (
        "import sys\n"
        "from sidtui.core.transcript.writer import SessionStore\n"
        "s = SessionStore(sys.argv[1], flush_interval=3600)\n"
        f"s.start_session({SID!r}, 'm', 'anthropic', '/p')\n"
        "for i in range(5):\n"
        "    s.append_message({'role': 'user', 'content': [{'type': 'text', 'text': str(i)}]})\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], cwd=REPO, timeout=60, capture_output=True
    )
    assert proc.returncode == 0, proc.stderr
    recs = lines(tmp_path / f"{SID}.jsonl")
    assert len(recs) == 6


def test_permission_error_reported_not_raised(tmp_path, monkeypatch):
    """EACCES on mkdir and on every write: logged, kept in errors, passed to on_error."""

    def denied(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(w.os, "makedirs", denied)
    monkeypatch.setattr(w.os, "open", denied)
    seen = []
    s = SessionStore(tmp_path / "proj", on_error=seen.append)
    s.start_session(SID, "m", "anthropic", "/p")
    s.append_message(user("a"))
    s.flush()
    s.end_session(0, 1)
    assert s.errors and seen == s.errors
    assert [f.operation for f in s.errors] == ["mkdir", "append", "flush", "append"]
    assert all("Permission denied" in f.error for f in s.errors)


def test_disk_full_reported_not_raised(tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    path = tmp_path / f"{SID}.jsonl"
    s = SessionStore(tmp_path)
    s.start_session(SID, "m", "anthropic", "/p")
    full = os.open("/dev/full", os.O_WRONLY)
    real_open = os.open

    def open_full(p, flags, *a, **kw):  # every write of the session hits a full disk
        return os.dup(full) if os.fspath(p) == str(path) else real_open(p, flags, *a, **kw)

    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(os, "open", open_full)
            s.append_message(user("a"))
            s.flush()
            s.end_session(0, 1)
    finally:
        os.close(full)
    assert s.errors
    assert all("No space" in f.error for f in s.errors)
    assert sum(f.records_lost for f in s.errors) == 3


def test_new_session_never_written_through_a_planted_symlink(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    (tmp_path / f"{SID}.jsonl").symlink_to(victim)
    s = SessionStore(tmp_path)
    s.start_session(SID, "m", "anthropic", "/p")
    s.append_message(user("a"))
    s.flush()
    assert s.errors and victim.read_text() == "keep\n"


def test_partial_write_is_terminated_before_next_write(tmp_path, monkeypatch):
    s = SessionStore(tmp_path)
    s.start_session(SID, "m", "anthropic", "/p")
    s.append_message(user("a"))
    s.flush()
    real_write = os.write
    calls = {"n": 0}

    def flaky(fd, data):
        calls["n"] += 1
        if calls["n"] == 1:  # a short write, then the disk is full
            return real_write(fd, bytes(data[:10]))
        if calls["n"] == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(w.os, "write", flaky)
    s.append_message(user("lost"))
    s.flush()
    assert s.errors and s.errors[0].partial
    s.append_message(user("kept"))
    s.flush()
    monkeypatch.setattr(w.os, "write", real_write)
    rf = scan_records(s.path.read_bytes())
    assert len(rf.bad_lines) == 1  # the 10 torn bytes, alone on their line
    last = rf.decode(rf.records[-1])
    assert last["message"]["content"][0]["text"] == "kept"


def test_bad_value_writes_nothing(tmp_path):
    s = SessionStore(tmp_path)
    s.start_session(SID, "m", "anthropic", "/p")
    with pytest.raises(TypeError):
        s.append_metadata("x", {1, 2})
    assert not s.path.exists()


def test_append_before_start_is_a_usage_error(tmp_path):
    from sidtui.core.base.errors import UsageError

    with pytest.raises(UsageError):
        SessionStore(tmp_path).append_metadata("k", "v")


def test_sidechain_writer(tmp_path):
    sc = SidechainWriter(tmp_path, SID, "a1b2c3d4e")
    sc.start("Explore", "look around", "claude-sonnet-4-6")
    sc.message("user", [{"type": "text", "text": "go"}], 1)
    sc.message("assistant", [{"type": "text", "text": "done"}], 1)
    sc.end("completed")
    recs = lines(sc.path)
    assert sc.path.name == f"{SID}-a1b2c3d4e.jsonl"
    assert [list(r) for r in recs] == [
        ["type", "sessionId", "agentId", "agentType", "description", "model", "timestamp"],
        ["type", "role", "content", "turn", "timestamp"],
        ["type", "role", "content", "turn", "timestamp"],
        ["type", "status", "timestamp"],
    ]
    assert not any("uuid" in r for r in recs)


# --------------------------------------------------------------------------- crash safety

_ZYGOTE = r"""
import os, random, sys
from sidtui.core.transcript.writer import SessionStore

SID = "20261130-120000-0a1b2c3d"


def child(folder, seed):
    rnd = random.Random(seed)
    out = 1
    interval = rnd.choice([0.0005, 0.002, 0.01, 0.1])
    store = SessionStore(folder, flush_interval=interval)
    store.start_session(SID, "m", "anthropic", "/p")
    path = os.path.join(folder, SID + ".jsonl")
    for step in range(200000):
        r = rnd.random()
        if r < 0.55:
            role = rnd.choice(["user", "assistant"])
            text = "x" * rnd.choice([1, 50, 2000, 30000]) + " 工作"
            store.append_message({"role": role, "content": [{"type": "text", "text": text}]})
        elif r < 0.8:
            store.append_metadata(rnd.choice(["usage_stats", "todo_state"]), {"n": step})
        elif not store.materialized:
            continue  # nothing written yet: nothing is durable
        elif r < 0.93:
            store.flush()
            os.write(out, f"D {store.last_uuid}\n".encode())
        elif r < 0.97:
            store.end_session(0.5, step)
            os.write(out, f"D {store.last_uuid}\n".encode())
            store = SessionStore(folder, flush_interval=interval)
            store.resume(path)
    os._exit(0)


os.write(1, b"ready\n")
for line in sys.stdin:
    folder, seed = line.split()
    pid = os.fork()
    if pid == 0:
        try:
            child(folder, int(seed))
        finally:
            os._exit(0)
    os.write(1, f"pid {pid}\n".encode())
    os.waitpid(pid, 0)
    os.write(1, b"reaped\n")
"""


def test_crash_safety_sigkill_50_times(tmp_path):
    """A child writing a session is SIGKILLed at random moments, 50 times.

    Every file rebuilds, has exactly one session_start, and every record the child knew
    to be on disk (after a flush or a critical record) is on the chain. Progress comes
    through a pipe; kills land after a random number of reports (no sleeps).
    """
    import random
    import signal

    rnd = random.Random(20261130)
    proc = subprocess.Popen(
        [sys.executable, "-c", _ZYGOTE],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        bufsize=0,
    )
    try:
        assert proc.stdout.readline() == b"ready\n"
        for run in range(50):
            folder = tmp_path / f"run{run}"
            folder.mkdir()
            kill_after = rnd.randint(1, 40)
            proc.stdin.write(f"{folder} {rnd.randrange(1 << 30)}\n".encode())
            pid = None
            durable: list[str] = []
            killed = False
            while True:
                line = proc.stdout.readline()
                assert line, "zygote died"
                if line.startswith(b"pid "):
                    pid = int(line.split()[1])
                elif line.startswith(b"D "):
                    durable.append(line.split()[1].decode())
                elif line == b"reaped\n":
                    break
                if not killed and pid is not None and len(durable) >= kill_after:
                    os.kill(pid, signal.SIGKILL)
                    killed = True
            assert killed
            path = folder / f"{SID}.jsonl"
            rf = scan_records(path.read_bytes())
            chain = rebuild_chain(rf)
            assert chain.reached_head and not chain.cycle, run
            assert sum(r.type == "session_start" for r in rf.records) == 1, run
            on_chain = {rf.records[i].uuid for i in chain.chain}
            missing = [u for u in durable if u not in on_chain]
            assert not missing, (run, missing[:3])
            assert load_jsonl(rf, chain).loadable
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)


def test_new_uuid_is_v4_and_unique():
    import uuid

    seen = {w.new_uuid() for _ in range(20_000)}
    assert len(seen) == 20_000
    for u in list(seen)[:500]:
        parsed = uuid.UUID(u)
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122 and str(parsed) == u

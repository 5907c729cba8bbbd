"""Process layer: registrations, PID liveness, file intents (FORMAT.md §12).

The fixture PIDs are machine-local and may belong to anything here: every test rewrites
them in a temp copy of the home.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from sidtui.core.base.home import Home
from sidtui.core.base.resolve import resolve_session
from sidtui.core.resume.process import (
    FileIntent,
    find_conflicts,
    liveness_for,
    pid_alive,
    read_file_intents,
    read_registrations,
    trace_session_ids,
    trace_session_ids_of,
)
from sidtui.core.views.listing import list_sessions
from sidtui.core.views.session import open_session


def dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def set_reg(home, name, **fields):
    path = home / "active-sessions" / f"{name}.json"
    d = json.loads(path.read_text())
    d.update(fields)
    path.write_text(json.dumps(d))


def test_fixture_registrations_are_stale_when_pids_dead(real_home_copy):
    pid = dead_pid()
    for name in ("20261130-052915-f2217f0e", "20261130-052917-0c88f996"):
        set_reg(real_home_copy, name, pid=pid)
    regs = read_registrations(Home(real_home_copy))
    assert regs and not any(r.live for r in regs)
    rows, _ = list_sessions(Home(real_home_copy))
    by_id = {r.session_id: r for r in rows}
    assert by_id["20261130-052915-f2217f0e"].stale and not by_id["20261130-052915-f2217f0e"].live


def test_live_registration_marks_session_live(real_home_copy):
    now_ms = int(time.time() * 1000)
    set_reg(real_home_copy, "20261130-052915-f2217f0e", pid=os.getpid(), startedAt=now_ms)
    home = Home(real_home_copy)
    v = open_session(home, resolve_session(home, "20261130-052915-f2217f0e"))
    assert v.liveness.live and any("running agent" in w for w in v.warnings)


def test_reused_pid_is_not_our_agent(real_home_copy):
    # our own process started long before this fake registration time? no: after it.
    import psutil

    # an hour before this process was created: it cannot be the registering agent
    old_ms = int((psutil.Process().create_time() - 3600) * 1000)
    set_reg(real_home_copy, "20261130-052915-f2217f0e", pid=os.getpid(), startedAt=old_ms)
    (reg,) = [
        r for r in read_registrations(Home(real_home_copy)) if r.session_id.endswith("f2217f0e")
    ]
    assert not reg.live and "reused" in reg.reason


def test_resumed_process_registers_under_trace_id(real_home_copy):
    """A resumed process registers under its own id, recorded in the file as trace_session_id."""
    home = Home(real_home_copy)
    reg = real_home_copy / "active-sessions" / "20261130-052910-3f250dcf.json"
    reg.write_text(
        json.dumps(
            {
                "sessionId": "20261130-052910-3f250dcf",
                "pid": os.getpid(),
                "kind": "interactive",
                "cwd": "/x",
                "startedAt": int(time.time() * 1000),
            }
        )
    )
    v = open_session(home, resolve_session(home, "20261130-052907-f197a796"))
    assert "20261130-052910-3f250dcf" in v.trace_ids and v.liveness.live


def test_logical_session_id_matches():
    from pathlib import Path

    from sidtui.core.resume.process import Registration

    r = Registration(Path("x"), "other", os.getpid(), logical_session_id="S", live=True)
    assert liveness_for("S", [], [r]).live
    assert not liveness_for("T", [], [r]).live


def test_pid_alive_basics():
    assert pid_alive(os.getpid())[0]
    assert not pid_alive(dead_pid())[0]
    assert not pid_alive(0)[0]


def test_torn_registration_is_ignored_with_warning(real_home_copy):
    (real_home_copy / "active-sessions" / "torn.json").write_text('{"sessionId": "x", "pi')
    warnings: list[str] = []
    regs = read_registrations(Home(real_home_copy), warnings)
    assert all(r.session_id != "x" for r in regs) and warnings


def test_intents_expire_by_pid_and_time(real_home_copy):
    home = Home(real_home_copy)
    intents = read_file_intents(home)
    assert intents and all(i.expired for i in intents)  # fixture PID: dead or not ours here
    path = real_home_copy / "file-intents" / "20261130-052915-f2217f0e.json"
    d = json.loads(path.read_text())
    d["pid"] = os.getpid()
    path.write_text(json.dumps(d))
    last = max(f["lastAccessAt"] for f in d["files"].values())
    fresh = read_file_intents(home, now_ms=last + 60_000)
    assert not any(i.expired for i in fresh)
    old = read_file_intents(home, now_ms=last + 6 * 60_000)
    assert all(i.expired for i in old)


def test_conflicts_critical_vs_warning():
    a = FileIntent("A", 1, "/p/f.py", "edit", 0, 0)
    b = FileIntent("B", 2, "/p/f.py", "read", 0, 0)
    c = FileIntent("C", 3, "/p/g.py", "write", 0, 0)
    got = {(x.session_id, x.other_session_id): x.severity for x in find_conflicts([a, b, c])}
    assert got == {("A", "B"): "warning", ("B", "A"): "critical"}


def test_trace_ids_of_a_file_read_line_by_line_in_pieces(tmp_path, monkeypatch):
    """A big file with an odd line (the per-line scan, read in pieces): its trace ids are
    every ``trace_session_id`` value, found from the decoded keys without reading each
    metadata line again — and a line the typed decode refused is still read."""
    from sidtui.core.transcript import source as transcript_source
    from sidtui.core.transcript.chain import rebuild_chain
    from sidtui.core.transcript.loader import load_jsonl
    from sidtui.core.transcript.scan import scan_records
    from sidtui.core.transcript.source import read_transcript

    monkeypatch.setattr(transcript_source, "PIECE_MIN_BYTES", 1)
    monkeypatch.setattr(transcript_source, "PIECE_BYTES", 256)
    lines = [
        {"type": "session_start", "uuid": "a", "parentUuid": None, "sessionId": "s1"},
        {
            "type": "metadata",
            "uuid": "b",
            "parentUuid": "a",
            "key": "trace_session_id",
            "value": "t1",
        },
        {"type": "metadata", "uuid": "c", "parentUuid": "b", "key": "summary", "value": "t9"},
        {
            "type": "metadata",
            "uuid": 5,
            "parentUuid": "c",
            "key": "trace_session_id",
            "value": "t2",
        },
        {
            "type": "metadata",
            "uuid": "d",
            "parentUuid": "c",
            "key": "trace_session_id",
            "value": "t1",
        },
    ]
    data = b"\n".join(json.dumps(x).encode() for x in lines)
    data = data.replace(b"\n", b"\n   \n", 1) + b"\n"  # a blank line: the per-line scan
    p = tmp_path / "s.jsonl"
    p.write_bytes(data)
    rf = scan_records(read_transcript(p))
    assert rf.source is not None and not rf.is_fast
    chain = rebuild_chain(rf)
    got = trace_session_ids_of(rf, load_jsonl(rf, chain), chain)
    assert got == trace_session_ids(data) == ["t1", "t2"]

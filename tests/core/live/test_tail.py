"""Incremental tail: exact against a full read, partial lines held, resets."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sidtui.core.live.tail import FileTail
from sidtui.core.transcript.chain import extend_chain, rebuild_chain
from sidtui.core.transcript.scan import scan_records
from tests.helpers import line
from tests.helpers import live_assistant as assistant
from tests.helpers import live_start as start
from tests.helpers import live_user as user


def _heads(rf):
    return [(r.line, r.offset, r.end, r.type, r.uuid, r.parent, r.is_object) for r in rf.records]


def _assert_exact(tail: FileTail, data: bytes) -> None:
    complete = data[: data.rfind(b"\n") + 1] if not tail._unterminated else data
    full = scan_records(complete)
    assert _heads(tail.rf) == _heads(full)
    assert [(b.line, b.offset, b.reason) for b in tail.rf.bad_lines] == [
        (b.line, b.offset, b.reason) for b in full.bad_lines
    ]
    want = rebuild_chain(full)
    assert tail.chain.chain == want.chain
    assert tail.chain.tail == want.tail
    assert tail.chain.linear == want.linear
    assert tail.chain.cycle_uuid == want.cycle_uuid
    assert tail.chain.lost_parent == want.lost_parent


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


# --- the file as a sequence of lines: chained records, branches, junk ----------------------


@st.composite
def transcripts(draw):
    n = draw(st.integers(1, 30))
    lines: list[bytes] = [line(start("u0"))]
    uuids = ["u0"]
    for i in range(1, n):
        kind = draw(
            st.sampled_from(["next", "next", "next", "branch", "bad", "blank", "dup", "nouuid"])
        )
        if kind == "next":
            lines.append(line(user(f"u{i}", uuids[-1])))
            uuids.append(f"u{i}")
        elif kind == "branch":
            p = draw(st.sampled_from(uuids + [None, "ghost"]))
            lines.append(line(assistant(f"u{i}", p)))
            uuids.append(f"u{i}")
        elif kind == "dup":
            u = draw(st.sampled_from(uuids))
            lines.append(line(user(u, uuids[-1])))
        elif kind == "bad":
            lines.append(b'{"type":"user_message","uuid":"x\n')
        elif kind == "blank":
            lines.append(b"   \n")
        else:
            lines.append(line({"type": "metadata", "key": "k", "value": i}))
    data = b"".join(lines)
    if draw(st.booleans()):
        data = data[:-1]  # final line without "\n"
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=12)))
    return data, cuts


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(transcripts())
def test_tail_equals_full_read_for_any_split(tmp_path_factory, case):
    data, cuts = case
    path = tmp_path_factory.mktemp("t") / "s.jsonl"
    path.write_bytes(b"")
    clock = Clock()
    tail = FileTail(path, clock=clock)
    seen: list[tuple[int, str | None]] = []
    prev = 0
    for c in [*cuts, len(data)]:
        with open(path, "ab") as fh:
            fh.write(data[prev:c])
        prev = c
        upd = tail.poll()
        seen += [(r.ref.line, r.ref.uuid) for r in upd.records]
        assert all(b.terminated for b in upd.bad_lines)  # a partial line is never reported
        _assert_exact(tail, data[:c])
    # the writer died: the final partial line is decided exactly as a full read decides it
    upd = tail.poll(writer_alive=False)
    seen += [(r.ref.line, r.ref.uuid) for r in upd.records]
    full = scan_records(data)
    assert seen == [(r.line, r.uuid) for r in full.records]  # none lost, none duplicated
    _assert_exact(tail, data)
    tail.close()


def test_partial_line_held_then_settles_or_completes(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(start()))
    clock = Clock()
    tail = FileTail(path, clock=clock, settle_s=5)
    assert [r.ref.uuid for r in tail.poll().records] == ["u0"]
    whole = line(user("u1", "u0"))
    with open(path, "ab") as fh:
        fh.write(whole[:-1])  # valid JSON, no "\n" yet
    upd = tail.poll()
    assert upd.records == [] and upd.pending == len(whole) - 1
    clock.t = 4.9
    assert tail.poll().records == []
    clock.t = 5.0
    assert [r.ref.uuid for r in tail.poll().records] == ["u1"]  # settled: decided as a record
    with open(path, "ab") as fh:
        fh.write(b"\n" + line(user("u2", "u1")))
    upd = tail.poll()
    assert [r.ref.uuid for r in upd.records] == ["u2"]  # the late "\n" adds no duplicate
    _assert_exact(tail, path.read_bytes())
    # a torn line that settles is bad (terminated False) — only after the settle period
    with open(path, "ab") as fh:
        fh.write(b'{"type":"user_me')
    assert tail.poll().bad_lines == []
    clock.t = 20
    bad = tail.poll().bad_lines
    assert len(bad) == 1 and bad[0].terminated is False
    # the same line grows after being decided: the tail starts over, still exact
    with open(path, "ab") as fh:
        fh.write(b'ssage"}\n')
    upd = tail.poll()
    assert upd.reset == "rewritten"
    _assert_exact(tail, path.read_bytes())


def test_writer_death_decides_partial_line(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(start()) + b'{"type":"user')
    tail = FileTail(path)
    upd = tail.poll()
    assert [r.ref.uuid for r in upd.records] == ["u0"] and upd.bad_lines == []
    upd = tail.poll(writer_alive=False)
    assert len(upd.bad_lines) == 1 and not upd.bad_lines[0].terminated


def test_start_at_reports_only_new_records(tmp_path):
    path = tmp_path / "s.jsonl"
    first = line(start()) + line(user("u1", "u0"))
    path.write_bytes(first)
    tail = FileTail(path, start_at=len(first))
    assert tail.poll().records == []
    assert tail.chain.chain == [0, 1]
    with open(path, "ab") as fh:
        fh.write(line(assistant("u2", "u1")))
    upd = tail.poll()
    assert [r.ref.uuid for r in upd.records] == ["u2"] and not upd.rebuilt


def test_second_writer_branches_and_equals_full_rebuild(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(start()) + line(user("a1", "u0")) + line(assistant("a2", "a1")))
    tail = FileTail(path)
    tail.poll()
    with open(path, "ab") as fh:  # writer B continues from u0 (its own in-memory tail)
        fh.write(line(user("b1", "u0")))
    upd = tail.poll()
    assert upd.branched == ("a2", "b1") and upd.rebuilt
    _assert_exact(tail, path.read_bytes())
    with open(path, "ab") as fh:  # A writes again: the tip jumps back to A's branch
        fh.write(line(user("a3", "a2")))
    upd = tail.poll()
    assert upd.branched == ("b1", "a3")
    _assert_exact(tail, path.read_bytes())
    with open(path, "ab") as fh:
        fh.write(
            line(
                {
                    "type": "metadata",
                    "key": "rewind",
                    "value": {"toPoint": 1},
                    "uuid": "r1",
                    "parentUuid": "u0",
                }
            )
        )
    upd = tail.poll()
    assert upd.branched == ("a3", "r1") and upd.rewind


def test_truncation_and_replacement_recover(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(start()) + line(user("u1", "u0")) + line(user("u2", "u1")))
    tail = FileTail(path)
    assert len(tail.poll().records) == 3
    path.write_bytes(line(start()))  # truncated in place (same inode)
    upd = tail.poll()
    assert upd.reset == "truncated" and [r.ref.uuid for r in upd.records] == ["u0"]
    _assert_exact(tail, path.read_bytes())
    tmp = tmp_path / "new.jsonl"
    tmp.write_bytes(line(start("v0")) + line(user("v1", "v0")) + line(user("v2", "v1")))
    os.replace(tmp, path)  # replaced (new inode), larger than before
    upd = tail.poll()
    assert upd.reset == "replaced" and [r.ref.uuid for r in upd.records] == ["v0", "v1", "v2"]
    _assert_exact(tail, path.read_bytes())
    path.unlink()
    assert tail.poll().reset == "removed"


def test_extend_chain_refuses_what_it_cannot_prove(tmp_path):
    data = line(start()) + line(user("u1", "u0"))
    rf = scan_records(data)
    res = rebuild_chain(rf)
    more = scan_records(data + line(user("u2", "u1")) + line(user("u1", "u2")))
    assert extend_chain(more, res, 2, {"u0", "u1"}) is False  # repeated uuid: maybe a cycle
    assert res.chain == [0, 1]
    ok = scan_records(data + line(user("u2", "u1")))
    assert extend_chain(ok, res, 2, {"u0", "u1"}) is True
    assert res.chain == rebuild_chain(ok).chain


_WRITER = textwrap.dedent(
    """
    import os, sys
    path, n_bursts, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    def rec(i, parent):
        return ('{"type":"user_message","uuid":"w%d","parentUuid":%s,"message":'
                '{"role":"user","content":[{"type":"text","text":"burst ' + "x" * 50 + '"}]}}\\n'
                ) % (i, "null" if parent is None else '"w%d"' % parent)
    i = 0
    for b in range(n_bursts):
        sys.stdin.readline()              # wait for "go"
        chunk = "".join(rec(i + k, (i + k - 1) if i + k else None) for k in range(per)).encode()
        i += per
        half = len(chunk) - 17            # the last line is flushed in two writes
        os.write(fd, chunk[:half])
        print("half", flush=True)
        sys.stdin.readline()
        os.write(fd, chunk[half:])
        print("done", flush=True)
    """
)


def test_writer_in_another_process_followed_record_for_record(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"")
    script = tmp_path / "writer.py"
    script.write_text(_WRITER)
    bursts, per = 20, 7
    proc = subprocess.Popen(
        [sys.executable, str(script), str(path), str(bursts), str(per)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    tail = FileTail(path)
    got: list[str | None] = []
    try:
        for _ in range(bursts):
            proc.stdin.write("go\n")
            proc.stdin.flush()
            assert proc.stdout.readline() == "half\n"
            upd = tail.poll(writer_alive=True)
            assert upd.bad_lines == [] and upd.pending > 0  # the half line is held
            got += [r.ref.uuid for r in upd.records]
            proc.stdin.write("go\n")
            proc.stdin.flush()
            assert proc.stdout.readline() == "done\n"
            upd = tail.poll(writer_alive=True)
            assert upd.bad_lines == [] and upd.pending == 0
            got += [r.ref.uuid for r in upd.records]
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert got == [f"w{i}" for i in range(bursts * per)]
    assert tail.chain.chain == list(range(bursts * per))
    _assert_exact(tail, path.read_bytes())


_PEER = textwrap.dedent(
    """
    import os, sys
    path, prefix, parent = sys.argv[1], sys.argv[2], sys.argv[3]
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    i = 0
    for cmd in sys.stdin:                   # one record per "go", parent = own last uuid
        uuid = "%s%d" % (prefix, i)
        os.write(fd, ('{"type":"user_message","uuid":"%s","parentUuid":"%s"}\\n'
                      % (uuid, parent)).encode())
        parent, i = uuid, i + 1
        print("ok", flush=True)
    """
)


def test_two_writer_processes_branch_and_equal_full_rebuild(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(start()))
    script = tmp_path / "peer.py"
    script.write_text(_PEER)
    peers = {
        name: subprocess.Popen(
            [sys.executable, str(script), str(path), name, "u0"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for name in ("a", "b")
    }
    tail = FileTail(path)
    tail.poll()
    branches = []
    try:
        for who in "aabab":  # A writes twice, then B (from u0: its own history), A, B
            peers[who].stdin.write("go\n")
            peers[who].stdin.flush()
            assert peers[who].stdout.readline() == "ok\n"
            upd = tail.poll()
            if upd.branched:
                branches.append(upd.branched)
            _assert_exact(tail, path.read_bytes())
    finally:
        for p in peers.values():
            p.stdin.close()
            p.wait(timeout=30)
    assert branches == [("a1", "b0"), ("b0", "a2"), ("a2", "b1")]

"""`sidtui search` and `sidtui watch`."""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time

from sidtui.cli import main
from tests.helpers import SID, line, make_home
from tests.helpers import live_assistant as assistant
from tests.helpers import live_start as start
from tests.helpers import live_user as user


def _home(tmp_path):
    return make_home(
        tmp_path / "h",
        {
            SID: line(start())
            + line(user("u1", "u0", "tune the ocelot"))
            + line(assistant("u2", "u1", "done", tool="Bash"))
        },
    )


def test_search_json_and_text(tmp_path, capsys):
    root = _home(tmp_path)
    assert main(["search", "ocelot", "--home", str(root), "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert [(h["session_id"], h["uuid"], h["line"], h["kind"]) for h in hits] == [
        (SID, "u1", 2, "prompt")
    ]
    assert main(["search", "ocelot", "--home", str(root)]) == 0
    out = capsys.readouterr().out
    assert SID in out and "ocelot" in out
    assert main(["search", "nothing-like-this", "--home", str(root)]) == 0
    assert "no matches" in capsys.readouterr().out
    assert main(["search", "ocelot", "--home", str(root), "--project", "nope"]) == 2
    assert main(["search", "ocelot", "--home", str(tmp_path / "missing")]) == 2


def test_watch_streams_json_lines_and_stops_on_ctrl_c(tmp_path):
    root = _home(tmp_path)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "sidtui", "watch", SID, "--json", "--home", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stderr.readline().startswith("watching ")  # ready: the watch is registered
        p = root / "sessions" / "proj" / f"{SID}.jsonl"
        with open(p, "ab") as fh:
            whole = line(user("u3", "u2", "half and half"))
            fh.write(whole[:20])
            fh.flush()
            fh.write(whole[20:])
        got = json.loads(proc.stdout.readline())
        assert got["event"] == "RecordAppended" and got["uuid"] == "u3" and got["line"] == 4
        assert got["record"]["message"]["content"][0]["text"] == "half and half"
    finally:
        proc.send_signal(signal.SIGINT)
        rc = proc.wait(timeout=30)
    assert rc == 0
    assert "Traceback" not in proc.stderr.read()


def test_watch_text_lines(tmp_path):
    from sidtui.cli.watch import event_lines
    from sidtui.core.live import events as ev
    from sidtui.core.live.tail import FileTail

    root = _home(tmp_path)
    t = FileTail(root / "sessions" / "proj" / f"{SID}.jsonl")
    upd = t.poll()
    lines = event_lines(
        [
            ev.RecordsAppended(SID, "p", tuple(upd.records)),
            ev.SessionBecameStale(SID, 123, "pid 123 is not running"),
        ],
        False,
    )
    assert lines[1].startswith(f"{SID}  line 2") and "tune the ocelot" in lines[1]
    assert "[Bash]" in lines[2]
    # words, not the event's class name (which --json keeps)
    assert lines[-1].startswith("-- session became stale:") and "pid=123" in lines[-1]
    changed = event_lines([ev.CheckpointIndexChanged(SID, "p", 3)], False)
    assert changed[0].startswith("-- checkpoint index changed:"), changed


def test_watch_stops_cleanly_on_sigterm(tmp_path):
    root = _home(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "sidtui", "watch", "--home", str(root), "--polling"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert "(polling)" in proc.stderr.readline()
    proc.terminate()
    assert proc.wait(timeout=30) == 0


def test_watch_writes_what_it_read_when_stopped_with_its_stdout_backed_up(tmp_path):
    # The reader does not read until after the Ctrl-C: the watch has read every record
    # (appended while it was stopped: one poll reads them all) but printed only what fits
    # in the pipe. Before, the watcher thread blocked in that write was given up on after
    # 2 s and the rest was lost.
    import fcntl
    import termios

    root = _home(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "sidtui", "watch", SID, "--home", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        pipe = fcntl.fcntl(proc.stdout.fileno(), 1031, 4096)  # F_SETPIPE_SZ: a small pipe
        assert proc.stderr.readline().startswith(b"watching ")
        p = root / "sessions" / "proj" / f"{SID}.jsonl"
        n = 2000
        recs = [
            user(f"x{i}", f"x{i - 1}" if i else "u2", f"record number {i:05d}") for i in range(n)
        ]
        proc.send_signal(signal.SIGSTOP)  # the records are whole before it reads any
        with open(p, "ab") as fh:
            fh.write(b"".join(line(r) for r in recs))
        proc.send_signal(signal.SIGCONT)
        deadline = time.monotonic() + 60
        buf = bytearray(4)
        while True:  # the condition: the pipe is full (the watch is blocked writing)
            fcntl.ioctl(proc.stdout.fileno(), termios.FIONREAD, buf)
            if int.from_bytes(buf, sys.byteorder) >= pipe or proc.poll() is not None:
                break
            assert time.monotonic() < deadline, "the watch never filled its pipe"
            select.select([], [], [], 0.01)
        proc.send_signal(signal.SIGINT)
        said = proc.stderr.readline()  # the watch says it stops (before: it exited, EOF)
        out = proc.stdout.read().decode()
        rc = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    printed = re.findall(r"record number (\d{5})", out)
    assert printed == [f"{i:05d}" for i in range(n)]  # before: 53 (what fitted the pipe)
    assert said.startswith(b"sidtui: stopping: writing what was already read")
    assert rc == 0

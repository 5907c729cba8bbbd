"""Which Claude Code sessions a running process writes: ``sessions/<pid>.json`` + start ticks."""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson
import pytest

from sidtui.core.claude.layout import ClaudeHome, resolve_session
from sidtui.core.claude.liveness import proc_start_ticks, read_processes, session_liveness
from sidtui.core.claude.session import open_claude_session
from tests.helpers import CC_SESSION, cc_assistant, cc_home, cc_lines, cc_user, dead_pid


def _fake_proc(root: Path, pids: dict[int, str]) -> Path:
    """A /proc with one ``stat`` per pid (a command name with spaces and parentheses)."""
    (root / "self").mkdir(parents=True)
    (root / "self" / "stat").write_text("1 (x) S")
    for pid, ticks in pids.items():
        fields = ["S"] + [str(k) for k in range(4, 22)] + [ticks, "0", "0"]
        (root / str(pid)).mkdir()
        (root / str(pid) / "stat").write_text(f"{pid} (claude (v2) x) " + " ".join(fields))
    return root


def _register(home: Path, pid: int, name: str | None = None, **kw) -> None:
    d = home / "sessions"
    d.mkdir(parents=True, exist_ok=True)
    rec = {
        "pid": pid,
        "sessionId": CC_SESSION,
        "cwd": "/tmp/cc",
        "startedAt": int(time.time() * 1000),
        **kw,
    }
    (d / (name or f"{pid}.json")).write_bytes(orjson.dumps(rec))


def test_field_22_is_counted_after_the_command_name(tmp_path):
    proc = _fake_proc(tmp_path / "proc", {4242: "777123"})
    assert proc_start_ticks(4242, proc) == "777123"
    assert proc_start_ticks(4343, proc) is None


def test_a_reused_pid_is_not_live(tmp_path):
    proc = _fake_proc(tmp_path / "proc", {4242: "777123", 4343: "555"})
    home = tmp_path / "claude"
    _register(home, 4242, procStart="777123", status="busy")
    _register(home, 4343, procStart="554")  # the PID runs, but it is another process
    _register(home, 4444, procStart="1")  # not running at all
    _register(home, 4545, name="pid-4545.json", procStart="1")  # legacy: ignored
    regs = read_processes(ClaudeHome(home), proc=proc)
    assert [(r.pid, r.live) for r in regs] == [(4242, True), (4343, False), (4444, False)]
    assert (
        regs[0].status == "busy" and "reused" in regs[1].reason and "not running" in regs[2].reason
    )
    lv = session_liveness(CC_SESSION, regs)
    assert lv.live and len(lv.registrations) == 3


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_this_process_with_its_real_start_ticks_is_live(tmp_path):
    pid = os.getpid()
    ticks = proc_start_ticks(pid)
    assert ticks is not None and ticks.isdigit()
    home = tmp_path / "claude"
    _register(home, pid, procStart=ticks)
    (reg,) = read_processes(ClaudeHome(home))
    assert reg.live
    _register(home, pid, procStart=str(int(ticks) + 1))
    (reg,) = read_processes(ClaudeHome(home))
    assert not reg.live and "reused" in reg.reason


def test_without_proc_start_the_creation_time_decides(tmp_path):
    home = tmp_path / "claude"
    _register(home, os.getpid())
    _register(home, dead_pid())
    regs = {r.pid: r for r in read_processes(ClaudeHome(home))}
    assert regs[os.getpid()].live and not [
        r for p, r in regs.items() if p != os.getpid() and r.live
    ]
    stale = session_liveness(CC_SESSION, [r for r in regs.values() if not r.live])
    assert stale.stale and not stale.live


def test_a_live_session_says_so(tmp_path):
    home = cc_home(
        tmp_path / "claude",
        {"-p": {f"{CC_SESSION}.jsonl": cc_lines(cc_user("a", None), cc_assistant("b", "a"))}},
    )
    _register(home, os.getpid())
    h = ClaudeHome(home)
    v = open_claude_session(h, resolve_session(h, CC_SESSION))
    assert v.liveness.live and any("running Claude Code process" in w for w in v.warnings)
    j = v.to_json()
    assert j["live"] and j["registrations"][0]["pid"] == os.getpid()

"""`sidtui demo --live`: a real background agent; SIGTERM ends cleanly, SIGKILL does not."""

from __future__ import annotations

import os
import signal
import sys
import time

import orjson
import pytest

from sidtui.cli.demo import start_live
from sidtui.core.base.discover import discover
from sidtui.core.base.home import Home
from sidtui.core.resume.process import read_file_intents, read_registrations
from sidtui.core.views.session import open_session

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def wait_for(cond, timeout: float = 60.0) -> bool:
    """Poll a condition until it holds (a deadline, not a timing assumption)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return False


def _main_file(home: Home):
    mains = [f for f in discover(home) if f.kind == "main"]
    return mains[0] if mains else None


def _records(home: Home) -> list[dict]:
    sf = _main_file(home)
    if sf is None:
        return []
    out = []
    for line in sf.path.read_bytes().splitlines():
        try:
            out.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            pass
    return out


@pytest.fixture
def live(short_tmp_path):
    root = short_tmp_path / "demo"
    root.mkdir()
    home = Home(root / "home")
    proc = start_live(root, home.root, seed=3, rate=40)
    yield proc, home, root
    if proc.poll() is None:
        proc.kill()
        proc.wait(timeout=30)


def _working(home: Home) -> bool:
    recs = _records(home)
    return (
        len(recs) >= 12
        and any(r.get("key") == "file_changes" for r in recs)
        and home.checkpoints_dir.exists()
    )


def test_live_agent_sigterm_writes_session_end(live):
    proc, home, root = live
    assert wait_for(lambda: _working(home)), (root / "live-agent.log").read_text()
    regs = read_registrations(home)
    assert len(regs) == 1 and regs[0].pid == proc.pid and regs[0].live
    sf = _main_file(home)
    assert open_session(home, sf).liveness.live
    intents = read_file_intents(home)
    assert any(i.expired for i in intents)  # declared "six minutes ago"
    assert any(not i.expired and i.operation == "edit" for i in intents)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0
    recs = _records(home)
    assert recs[-1]["type"] == "session_end"
    assert not read_registrations(home)
    assert not list(home.file_intents_dir.glob("*.json"))
    view = open_session(home, _main_file(home))
    assert view.loaded.loadable and len(view.tree.tips) == 1 and not view.liveness.live


def test_live_agent_sigkill_leaves_crash_shapes(live):
    proc, home, root = live
    assert wait_for(lambda: _working(home)), (root / "live-agent.log").read_text()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    assert _records(home)[-1]["type"] != "session_end"
    regs = read_registrations(home)
    assert len(regs) == 1 and not regs[0].live  # stale: the PID is dead
    view = open_session(home, _main_file(home))
    assert view.liveness.stale and view.loaded.loadable
    assert view.recovery.interruption.kind in ("none", "interrupted_prompt", "interrupted_turn")
    assert all(i.expired for i in read_file_intents(home))

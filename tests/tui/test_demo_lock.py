"""The fixed demo home the snapshots read is locked while a test process reads it, so a
checkout with other demo code cannot rebuild it under a running suite."""

from __future__ import annotations

import fcntl
import subprocess
import sys

from tests.tui_support import REPO, SNAP_DEMO, demo_home_fixed

_TRY_EXCLUSIVE = """
import fcntl, sys
with open(sys.argv[1], "a") as fh:
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        sys.exit(3)
"""


def _exclusive_free() -> bool:
    r = subprocess.run(
        [sys.executable, "-c", _TRY_EXCLUSIVE, str(SNAP_DEMO / "seed0.lock")], check=False
    )
    assert r.returncode in (0, 3), r
    return r.returncode == 0


def test_a_reader_holds_the_demo_so_no_rebuild_can_start():
    home, cases = demo_home_fixed()
    assert (home / "sessions").is_dir() and cases
    assert not _exclusive_free()  # a rebuild (exclusive) waits for this process
    again, _ = demo_home_fixed()  # a second call in the same process takes no new lock
    assert again == home


_CALL = """
import sys, time
from pathlib import Path
import sidtui.demo.scenarios as scenarios
import tests.tui_support as ts

ts.SNAP_DEMO, ts.REBUILD_WAIT_S = Path(sys.argv[1]), float(sys.argv[2])
ts._demo_sources_digest = lambda: sys.argv[3]


class Built:
    cases = {"case": "id"}


def build(base, seed, use_git=False):
    time.sleep(0.5)  # a build takes a while: the other process asks meanwhile
    (base / "home" / "sessions").mkdir(parents=True)
    return Built()


scenarios.build_demo_home = build
home, cases = ts.demo_home_fixed()
print(home, cases)
"""


def _start(snap, digest: str, wait: float = 60.0) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", _CALL, str(snap), str(wait), digest],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_workers_building_the_demo_at_once_both_get_it(tmp_path):
    """The first build with two test workers asking at once: one builds, the other waits
    for it and reads the result (it used to wait forever for the builder's shared lock)."""
    procs = [_start(tmp_path, "v1"), _start(tmp_path, "v1")]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert all(o.startswith(str(tmp_path / "seed0" / "home")) for o, _ in outs)


def test_a_rebuild_while_another_demo_is_read_fails_with_a_reason(tmp_path):
    """Other demo code cannot replace the home under a run that reads it: it gives up with
    a reason after the wait, and rebuilds once nobody reads it."""
    assert _start(tmp_path, "v1").communicate(timeout=120) and True
    with open(tmp_path / "seed0.lock", "a") as reader:
        fcntl.flock(reader, fcntl.LOCK_SH)  # a run of demo code v1 is reading
        p = _start(tmp_path, "v2", wait=0.5)
        _, err = p.communicate(timeout=120)
        assert p.returncode == 1
        assert "read by a test run of other demo code" in err
    p = _start(tmp_path, "v2")
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    assert (tmp_path / "seed0.stamp").read_text() == "v2"

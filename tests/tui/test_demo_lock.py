"""The fixed demo home the snapshots read is locked while a test process reads it, so a
checkout with other demo code cannot rebuild it under a running suite."""

from __future__ import annotations

import subprocess
import sys

from tests.tui_support import SNAP_DEMO, demo_home_fixed

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

"""index.json survives SIGKILL mid-write; fork inheritance never touches the parent; cleanup."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap

from sidtui.core.base.home import Home
from sidtui.core.checkpoints.evict import cleanup_old_sessions, evict, inherit_from
from sidtui.core.checkpoints.index import CheckpointIndex, CorruptIndex
from sidtui.core.checkpoints.manager import CheckpointManager
from sidtui.core.checkpoints.rebuild import chain_health
from tests.helpers import REAL_HOME, REPO

WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from sidtui.core.checkpoints.index import CheckpointIndex
    path = Path(sys.argv[1])
    idx = CheckpointIndex.load(path)
    big = "".join(f"line {i} " + "x" * 40 + "\\n" for i in range(4000))
    idx.snapshots[0]["files"][0]["compressed"] = False
    idx.snapshots[0]["files"][0]["content"] = big
    i = 0
    while True:
        i += 1
        idx.data["nextId"] = i
        sys.stdout.write("."); sys.stdout.flush()   # about to write: kill me now
        idx.write(path)
    """
)


def test_sigkill_during_index_write_leaves_a_readable_index(tmp_path):
    src = REAL_HOME / "checkpoints/20261130-052907-9ff3799b/index.json"
    path = tmp_path / "index.json"
    path.write_bytes(src.read_bytes())
    rng = random.Random(1234)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for _ in range(20):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, env=env
        )
        assert proc.stdout is not None
        # Let it start a random number of writes, then kill it right after it signals.
        for _ in range(rng.randint(1, 3)):
            assert proc.stdout.read(1) == b"."
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        idx = CheckpointIndex.load(path)  # never torn: the old or the new version
        assert [s["id"] for s in idx.snapshots] == ["s1", "s2", "s3"]
    # The temp files left by killed writers are never mistaken for the index.
    assert json.loads(path.read_text())["sessionId"] == "20261130-052907-9ff3799b"


def test_corrupt_index_is_a_clear_error(tmp_path):
    path = tmp_path / "index.json"
    path.write_text('{"sessionId": "x", "snapshots": [')
    try:
        CheckpointIndex.load(path)
    except CorruptIndex as exc:
        assert "not valid JSON" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("expected CorruptIndex")


def test_inherit_then_evict_leaves_parent_bytes_unchanged(real_home_copy):
    home = Home(real_home_copy)
    parent = "20261130-052907-9ff3799b"
    child = "20261201-000000-deadbeef"
    before = home.checkpoint_index(parent).read_bytes()
    res = inherit_from(home, parent, child, 1)
    assert (res.copied, res.warning) == (3, None)
    data = json.loads(home.checkpoint_index(child).read_text())
    assert data["sessionId"] == child and data["nextId"] == 4
    assert list(data) == ["sessionId", "createdAt", "nextId", "snapshots", "latestFullMap"]
    assert data["createdAt"] == json.loads(before)["createdAt"]
    mgr = CheckpointManager.for_session(home, child, max_per_file=1)
    index = mgr.reload()
    report = evict(index, 1, 10**12)
    assert report.reanchored  # login.ts s3 became a full in the child
    mgr.save()
    assert home.checkpoint_index(parent).read_bytes() == before
    for p in index.tracked_files():
        assert chain_health(index, p).healthy


def test_inherit_only_into_empty_and_failure_is_a_warning(real_home_copy):
    home = Home(real_home_copy)
    parent = "20261130-052907-9ff3799b"
    # S05 already has snapshots: no insertion.
    res = inherit_from(home, parent, "20261130-052911-4ee72b6a", 1)
    assert res.copied == 0 and "already has 4 snapshots" in res.warning
    bad = home.checkpoint_index("20261202-000000-badbad00")
    bad.parent.mkdir(parents=True)
    bad.write_text("{torn")
    res = inherit_from(home, "20261202-000000-badbad00", "20261202-000000-child000", 1)
    assert res.copied == 0 and "inheritance failed" in res.warning
    assert not home.checkpoint_index("20261202-000000-child000").exists()


def test_inherit_legacy_source_is_migrated(real_home_copy):
    home = Home(real_home_copy)
    res = inherit_from(home, "20260301-101010-1111aaaa", "20261203-000000-legacy00", 1)
    assert res.copied == 3
    data = json.loads(home.checkpoint_index("20261203-000000-legacy00").read_text())
    assert [s["id"] for s in data["snapshots"]] == ["s1", "s3", "s2"]
    assert "files" not in data


def test_cleanup_removes_old_folders_but_never_protected(real_home_copy):
    home = Home(real_home_copy)
    now_ms = 1_900_000_000_000
    old = (now_ms - 31 * 24 * 3600 * 1000) / 1000
    for d in home.checkpoints_dir.iterdir():
        os.utime(d / "index.json", (old, old))
    fresh = "20261130-052907-9ff3799b"
    os.utime(home.checkpoint_index(fresh), (now_ms / 1000, now_ms / 1000))
    protected = "20261130-052911-4ee72b6a"
    removed = cleanup_old_sessions(home, {protected}, now_ms)
    left = sorted(d.name for d in home.checkpoints_dir.iterdir())
    assert left == sorted([fresh, protected])
    assert fresh not in removed and protected not in removed and len(removed) == 9

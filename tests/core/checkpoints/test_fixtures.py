"""Every entry of every real index rebuilds to the file's true bytes.

Truth is the oracle's ``truthAtSnapshotTime`` (the harness read the file just before the
agent's ``createSnapshot``). Where we differ from the agent's own rebuild, the test names
the agent's bug label from the oracle.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidtui.core.checkpoints.index import CheckpointIndex
from sidtui.core.checkpoints.rebuild import (
    chain_health,
    rebuild,
    rebuild_all,
    state_at,
    uncertain_reason,
)
from tests.helpers import REAL_HOME, REAL_ORACLE

INDEXES = sorted(p.parent.name for p in (REAL_HOME / "checkpoints").glob("*/index.json"))


def _oracle(session: str) -> dict:
    p = REAL_ORACLE / "checkpoints" / session / "index.json.oracle.json"
    return json.loads(p.read_text())


def _truth_matches(truth: dict, content: str | bytes | None, exists: bool) -> bool:
    if truth.get("absent"):
        return not exists
    if not exists or content is None:
        return False
    data = content if isinstance(content, bytes) else content.encode("utf-8")
    if truth.get("content") is not None:
        return data == truth["content"].encode("utf-8")
    return hashlib.sha256(data).hexdigest() == truth["sha256"]


def _cases():
    for session in INDEXES:
        oracle = _oracle(session)
        for pos, snap in enumerate(oracle["snapshots"]):
            for path, f in snap["files"].items():
                yield session, pos, snap["id"], path, f


@pytest.mark.parametrize("session", INDEXES)
def test_every_entry_rebuilds_to_truth(session):
    index = CheckpointIndex.load(REAL_HOME / "checkpoints" / session / "index.json")
    oracle = _oracle(session)
    assert [s["id"] for s in index.snapshots] == [s["id"] for s in oracle["snapshots"]]
    checked = unrecoverable = 0
    for pos, snap in enumerate(oracle["snapshots"]):
        for path, f in snap["files"].items():
            truth = f.get("truthAtSnapshotTime")
            bugs = " ".join(f.get("knownBugs") or [])
            if f["entry"] is None:
                continue
            r = rebuild(index, path, pos)
            if f"EMPTY_OPS_DIFF_AT_{snap['id']}" in bugs:
                # The agent rebuilds "" here (EMPTY_OPS_DIFF_AT_sN); we report it.
                assert not r.recoverable, (session, snap["id"], path)
                assert "EMPTY_OPS_DIFF_AT" in (r.reason or "")
                unrecoverable += 1
                continue
            assert r.recoverable, (session, snap["id"], path, r.reason)
            if isinstance(truth, dict):
                assert _truth_matches(truth, r.content, r.exists), (session, snap["id"], path)
                checked += 1
            elif f["rebuilt"]["content"] is not None:
                # Hand-written legacy index (no truth): match the agent's own rebuild.
                assert r.content == f["rebuilt"]["content"]
    assert checked or unrecoverable or session == "20260301-101010-1111aaaa"


@pytest.mark.parametrize("session", INDEXES)
def test_state_at_every_snapshot_matches_truth(session):
    """Files without an entry in a snapshot: the first entry at or after it.

    The agent's rebuild returns the content at or *before* the snapshot instead
    (REBUILD_STALE_FOR_FILE_NOT_IN_THIS_SNAPSHOT) and its undo restores one entry too
    far back (UNDO_RESTORES_PREVIOUS_SNAPSHOT).
    """
    index = CheckpointIndex.load(REAL_HOME / "checkpoints" / session / "index.json")
    oracle = _oracle(session)
    for pos, snap in enumerate(oracle["snapshots"]):
        for path, f in snap["files"].items():
            truth = f.get("truthAtSnapshotTime")
            if not isinstance(truth, dict):
                continue
            r = state_at(index, path, pos)
            if r is None:
                continue  # no entry at or after: the state is the file on disk
            if not r.recoverable:
                assert "EMPTY_OPS_DIFF_AT" in (r.reason or "")
                continue
            if uncertain_reason(index, path, pos, r.position):
                continue  # history evicted: restores skip it (checked below)
            assert _truth_matches(truth, r.content, r.exists), (session, snap["id"], path)


def test_empty_ops_entries_reported_unrecoverable_with_file_and_snapshot():
    session = "20261130-052919-7c46f0c3"
    index = CheckpointIndex.load(REAL_HOME / "checkpoints" / session / "index.json")
    bad = {
        (r.snapshot_id, Path(r.file_path).name)
        for p in index.tracked_files()
        for r in rebuild_all(index, p)
        if not r.recoverable
    }
    assert bad == {("s2", "huge.log"), ("s2", "edge-9999.txt"), ("s3", "huge.log")}
    health = {Path(p).name: chain_health(index, p) for p in index.tracked_files()}
    assert health["huge.log"].drawing == "full·gz → diff(∅) ✗ → diff(∅) ✗"
    assert health["app.js"].drawing == "full → diff"
    assert not health["huge.log"].healthy and health["app.js"].healthy


def test_legacy_index_migrates_like_the_agent():
    session = "20260301-101010-1111aaaa"
    index = CheckpointIndex.load(REAL_HOME / "checkpoints" / session / "index.json")
    oracle = _oracle(session)
    assert index.migrated and oracle["legacyMigrated"]
    assert [s["id"] for s in index.snapshots] == ["s1", "s3", "s2"]
    assert index.data["nextId"] == oracle["nextId"]
    assert index.data["latestFullMap"] == oracle["latestFullMap"]
    for snap, want in zip(index.snapshots, oracle["listSnapshots"], strict=True):
        assert snap["timestamp"] == want["timestamp"]
        assert snap["toolName"] == want["toolName"]
        assert snap["toolSummary"] == want["toolSummary"]
    for pos, snap in enumerate(oracle["snapshots"]):
        for path, f in snap["files"].items():
            if f["entry"]:
                e = index.entry_at(path, pos)
                assert e["existedBefore"] == f["entry"]["existedBefore"]


@pytest.mark.parametrize("session", [s for s in INDEXES if s != "20260301-101010-1111aaaa"])
def test_rewrite_is_byte_identical(session):
    """What we write is what the agent wrote (same keys, order, 2-space JSON)."""
    raw = (REAL_HOME / "checkpoints" / session / "index.json").read_bytes()
    assert CheckpointIndex.parse(raw).to_bytes() == raw


def test_unknown_fields_survive_rewrite(tmp_path):
    raw = json.loads((REAL_HOME / "checkpoints/20261130-052907-9ff3799b/index.json").read_text())
    raw["futureTop"] = {"x": 1}
    raw["snapshots"][0]["futureSnap"] = [1, 2]
    raw["snapshots"][0]["files"][0]["futureEntry"] = "y"
    p = tmp_path / "index.json"
    p.write_text(json.dumps(raw))
    index = CheckpointIndex.load(p)
    index.write(p)
    again = json.loads(p.read_text())
    assert again["futureTop"] == {"x": 1}
    assert again["snapshots"][0]["futureSnap"] == [1, 2]
    assert again["snapshots"][0]["files"][0]["futureEntry"] == "y"


@pytest.mark.parametrize("session", INDEXES)
def test_uncertain_flags_every_wrong_state(session):
    """Where the first-entry-after rule misses the truth, the file is reported uncertain."""
    index = CheckpointIndex.load(REAL_HOME / "checkpoints" / session / "index.json")
    oracle = _oracle(session)
    for pos, snap in enumerate(oracle["snapshots"]):
        for path, f in snap["files"].items():
            truth = f.get("truthAtSnapshotTime")
            r = state_at(index, path, pos)
            if not isinstance(truth, dict) or r is None or not r.recoverable:
                continue
            if not _truth_matches(truth, r.content, r.exists):
                assert uncertain_reason(index, path, pos, r.position), (snap["id"], path)


@pytest.mark.parametrize("session", [s for s in INDEXES if s != "20260301-101010-1111aaaa"])
def test_rollback_from_every_k_restores_truth_where_the_agent_does_not(
    session, real_home_with_projects
):
    """rollback_from(k) targets the truth at snapshot k for every file it does not skip.

    The agent's undo restores rebuild(S-1) (UNDO_RESTORES_PREVIOUS_SNAPSHOT), does nothing
    at the first snapshot (UNDO_NOOP_ON_FIRST_SNAPSHOT) and its restore skips files first
    seen after the target (NO_BASE_FILE_FIRST_SEEN_LATER); we do none of these.
    """
    from sidtui.core.base.home import Home
    from sidtui.core.checkpoints.manager import CheckpointManager
    from tests.helpers import FIXTURE_PREFIX

    home, projects = real_home_with_projects
    mgr = CheckpointManager.for_session(Home(home), session, project_root=projects)
    oracle = _oracle(session)
    agent_wrong = 0
    for k, snap in enumerate(oracle["snapshots"]):
        res = mgr.rollback_from(k, dry_run=True)
        for f in res.files:
            fixture_path = f.path.replace(str(projects), FIXTURE_PREFIX)
            o = snap["files"][fixture_path]
            truth = o.get("truthAtSnapshotTime")
            if f.action == "skipped":
                assert "EMPTY_OPS_DIFF_AT" in f.reason or f.uncertain, f.reason
                continue
            if not isinstance(truth, dict):
                continue
            if truth.get("absent"):
                assert f.new is None and f.action in ("deleted", "unchanged")
            else:
                assert _truth_matches(truth, f.new, True), (snap["id"], fixture_path)
            undo = o.get("undoWouldRestore")
            if undo is not None and o.get("undoMatchesTruth") is False:
                agent_wrong += 1
    assert agent_wrong or len(oracle["snapshots"]) == 1 or session.endswith("7c46f0c3")


def test_fast_writer_matches_the_exact_encoder():
    from sidtui.core.base.jsonout import stringify_pretty

    for data in (
        {"a": [1.0, -0.0, 1e21, 5e-7], "s": "x"},
        {"s": "lone \ud800 surrogate", "t": "\u2028\x1f\x7f é 中 😀"},
        {"snapshots": [], "n": {}, "m": [[]]},
    ):
        idx = CheckpointIndex(data)
        assert idx.to_bytes() == stringify_pretty(data, 2).encode("utf-8", "surrogatepass")


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(),
        lambda kids: (
            st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=3), kids, max_size=4)
        ),
        max_leaves=12,
    )
)
@settings(max_examples=300, deadline=None)
def test_fast_writer_matches_exact_encoder_property(value):
    from sidtui.core.base.jsonout import stringify_pretty

    data = {"k": value}
    assert CheckpointIndex(data).to_bytes() == stringify_pretty(data, 2).encode(
        "utf-8", "surrogatepass"
    )

"""CheckpointManager: snapshots, rebuild, rollback_from(k), undo/redo, confinement."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from sidtui.core.base.errors import UsageError
from sidtui.core.checkpoints.evict import evict
from sidtui.core.checkpoints.manager import RESTORE_TOOL, CheckpointManager, known_ids
from sidtui.core.checkpoints.rebuild import chain_health, rebuild, rebuild_all


class Clock:
    def __init__(self, start: int = 1_800_000_000_000) -> None:
        self.t = start

    def __call__(self) -> int:
        self.t += 7
        return self.t


def make_manager(tmp: Path, **kw) -> tuple[CheckpointManager, Path]:
    root = tmp / "proj"
    root.mkdir(exist_ok=True)
    mgr = CheckpointManager(
        tmp / "home" / "checkpoints" / "sess" / "index.json",
        "sess",
        project_root=root,
        clock=Clock(),
        **kw,
    )
    return mgr, root


def disk(paths: list[Path]) -> dict[str, bytes | None]:
    return {str(p): (p.read_bytes() if p.exists() else None) for p in paths}


def put(path: Path, data: bytes | None) -> None:
    if data is None:
        if path.exists():
            path.unlink()
    else:
        path.write_bytes(data)


# --- write side --------------------------------------------------------------------------


def test_full_then_diff_then_nothing_when_unchanged(tmp_path):
    mgr, root = make_manager(tmp_path)
    f = root / "a.txt"
    f.write_text("one\ntwo\n")
    assert mgr.create_snapshot([str(f)], ["edit"], str(f)) == "s1"
    f.write_text("one\n2\n")
    assert mgr.create_snapshot([str(f)], ["edit"], str(f)) == "s2"
    assert mgr.create_snapshot([str(f)], ["edit"], str(f)) is None  # unchanged: no snapshot
    data = json.loads(mgr.index_path.read_text())
    assert data["nextId"] == 3
    assert [s["id"] for s in data["snapshots"]] == ["s1", "s2"]
    e1, e2 = data["snapshots"][0]["files"][0], data["snapshots"][1]["files"][0]
    assert list(e1) == ["filePath", "existedBefore", "type", "content", "compressed"]
    assert list(e2) == ["filePath", "existedBefore", "type", "diff"]
    assert e2["diff"]["ops"]
    assert list(data) == ["sessionId", "createdAt", "nextId", "snapshots", "latestFullMap"]
    assert data["latestFullMap"] == {str(f): "s1"}
    # The index is exactly JSON.stringify(index, null, 2), no trailing newline.
    assert mgr.index_path.read_text() == json.dumps(data, indent=2, ensure_ascii=False)


def test_missing_file_and_compression_threshold(tmp_path):
    mgr, root = make_manager(tmp_path)
    new, big, cjk = root / "new.py", root / "big.txt", root / "说明.md"
    big.write_text("x" * 1025)
    cjk.write_text("说" * 1000)  # 1000 UTF-16 units, 3000 UTF-8 bytes: not compressed
    sid = mgr.create_snapshot([str(new), str(big), str(cjk)], ["write", "edit"], "s")
    files = {Path(e["filePath"]).name: e for e in mgr.index.snapshots[0]["files"]}
    assert sid == "s1"
    assert files["new.py"] == {
        "filePath": str(new),
        "existedBefore": False,
        "type": "full",
        "content": "",
        "compressed": False,
    }
    assert files["big.txt"]["compressed"] is True
    assert files["说明.md"]["compressed"] is False
    assert mgr.index.snapshots[0]["toolName"] == "write, edit"


def test_binary_content_round_trips(tmp_path):
    mgr, root = make_manager(tmp_path)
    f = root / "blob.bin"
    f.write_bytes(b"\xff\xfe\x00raw\x80")
    mgr.create_snapshot([str(f)], ["bash"], "b")
    f.write_bytes(b"text now\n")
    mgr.create_snapshot([str(f)], ["bash"], "b")
    e = mgr.index.snapshots[0]["files"][0]
    assert e["binary"] is True and e["type"] == "full"
    assert mgr.index.snapshots[1]["files"][0]["type"] == "full"  # no line diff over bytes
    assert rebuild(mgr.index, str(f), 0).content == b"\xff\xfe\x00raw\x80"
    res = mgr.restore_before("s1")
    assert f.read_bytes() == b"\xff\xfe\x00raw\x80"
    assert [x.action for x in res.files] == ["restored"]


def test_no_empty_ops_for_existence_change_with_empty_text(tmp_path):
    """A file that did not exist and now exists empty: a full, never a diff with no ops."""
    mgr, root = make_manager(tmp_path)
    f = root / "e.txt"
    mgr.create_snapshot([str(f)], ["write"], "w")
    f.write_text("")
    assert mgr.create_snapshot([str(f)], ["edit"], "e") == "s2"
    e = mgr.index.snapshots[1]["files"][0]
    assert e["type"] == "full" and e["existedBefore"] is True


# --- property: every entry rebuilds, rollback_from(k) is exact for every k ---------------

line = st.text(alphabet=st.sampled_from(["a", "b", "\r", "é", "中", " ", "😀"]), max_size=6)
version = st.one_of(
    st.none(),  # deleted / does not exist
    st.lists(line, max_size=8).map(lambda ls: "\n".join(ls).encode()),
    st.binary(max_size=11).map(lambda b: b"\xff" + b),  # not UTF-8
)
NAMES = ["a.txt", "b.md", "sub/c.py"]
batch = st.lists(st.tuples(st.sampled_from(NAMES), version), min_size=1, max_size=3)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(batch, min_size=1, max_size=8), cap=st.integers(1, 4))
def test_property_rebuild_and_rollback_every_k(tmp_path_factory, steps, cap):
    tmp = tmp_path_factory.mktemp("prop")
    mgr, root = make_manager(tmp)
    (root / "sub").mkdir()
    paths = [root / n for n in NAMES]
    truth: dict[str, dict[str, bytes | None]] = {}
    for b in steps:
        before = disk(paths)
        # Every write changes its file: a batch that leaves a file as it was stores no
        # entry for it (as the agent), and an unsaved batch is invisible to any index.
        changes = {n: d for n, d in dict(b).items() if before[str(root / n)] != d}
        if not changes:
            continue
        files = [str(root / n) for n in changes]
        sid = mgr.create_snapshot(files, ["edit"] * len(files), ", ".join(files))
        if sid is not None:
            truth[sid] = before
        for n, data in changes.items():
            put(root / n, data)
    final = disk(paths)
    index = mgr.reload()

    def check_entries():
        for p in index.tracked_files():
            for r in rebuild_all(index, p):
                assert r.recoverable, r.reason
                want = truth[r.snapshot_id][p]
                assert (r.data() if r.exists else None) == want

    check_entries()
    n = len(index.snapshots)
    for k in range(n):
        sid = index.snapshots[k]["id"]
        res = mgr.rollback_from(k, dry_run=True)
        for f in res.files:
            assert f.action != "skipped", f.reason
            assert f.new == truth[sid][f.path]
        # For real: every file as it was when snapshot k was taken.
        for p, data in final.items():
            put(Path(p), data)
        mgr.rollback_from(k, force=True)  # the files were reset by hand: drift
        assert disk(paths) == {p: truth[sid][p] if p in truth[sid] else final[p] for p in final}
        mgr.reload()
        index = mgr.index
    # Evictions keep every remaining entry rebuildable to its truth.
    index = mgr.reload()
    truth.update(
        {
            s["id"]: {p: None for p in final}  # restore snapshots: not checked below
            for s in index.snapshots
            if s["toolName"] == RESTORE_TOOL
        }
    )
    agent_ids = {s["id"] for s in index.snapshots if s["toolName"] != RESTORE_TOOL}
    evict(index, cap, 10**12)
    for p in index.tracked_files():
        for r in rebuild_all(index, p):
            assert r.recoverable, r.reason
            if r.snapshot_id in agent_ids:
                assert (r.data() if r.exists else None) == truth[r.snapshot_id][p]
        assert len(index.entries_for(p)) <= cap


# --- undo / redo ----------------------------------------------------------------------------


def test_undo_undo_redo_redo(tmp_path):
    mgr, root = make_manager(tmp_path)
    a, b = root / "a.txt", root / "b.txt"
    a.write_text("a0")
    b.write_text("b0")
    mgr.create_snapshot([str(a)], ["edit"], str(a))
    a.write_text("a1")
    mgr.create_snapshot([str(b)], ["edit"], str(b))
    b.write_text("b1")
    mgr.create_snapshot([str(a), str(b)], ["edit", "edit"], "both")
    a.write_text("a2")
    b.write_text("b2")

    def state():
        return a.read_text(), b.read_text()

    before = mgr.index_path.read_bytes()
    r1 = mgr.undo()
    assert state() == ("a1", "b1") and r1.target_snapshot_id == "s3"
    assert {f.action for f in r1.files} == {"restored"}
    r2 = mgr.undo()
    assert state() == ("a1", "b0") and r2.target_snapshot_id == "s2"
    r3 = mgr.redo()
    assert state() == ("a1", "b1") and r3.reverts == [r2.safety_snapshot_id]
    r4 = mgr.redo()
    assert state() == ("a2", "b2") and r4.reverts == [r1.safety_snapshot_id]
    assert mgr.redo().note == "nothing to redo"
    # Nothing disappeared: the original snapshots are still there, restores appended.
    ids = [s["id"] for s in mgr.reload().snapshots]
    assert ids[:3] == ["s1", "s2", "s3"] and len(ids) == 7
    old = json.loads(before)["snapshots"]
    assert mgr.index.snapshots[:3] == old
    # Undo after redo steps back again from the latest agent batch.
    mgr.undo()
    assert state() == ("a1", "b1")


def test_undo_dry_run_writes_nothing_and_previews_bytes(tmp_path):
    mgr, root = make_manager(tmp_path)
    a = root / "a.txt"
    a.write_text("old\n")
    mgr.create_snapshot([str(a)], ["edit"], str(a))
    a.write_text("new\n")
    before = mgr.index_path.read_bytes()
    res = mgr.undo(dry_run=True)
    assert res.dry_run and res.safety_snapshot_id is None
    (f,) = res.files
    assert (f.action, f.old, f.new) == ("restored", b"new\n", b"old\n")
    assert a.read_text() == "new\n" and mgr.index_path.read_bytes() == before


def test_undo_file_only_touches_that_file(tmp_path):
    mgr, root = make_manager(tmp_path)
    a, b = root / "a.txt", root / "b.txt"
    a.write_text("a0")
    b.write_text("b0")
    mgr.create_snapshot([str(a), str(b)], ["edit"], "both")
    a.write_text("a1")
    b.write_text("b1")
    res = mgr.undo_file(str(a))
    assert (a.read_text(), b.read_text()) == ("a0", "b1")
    assert [f.path for f in res.files] == [str(a)]
    # undo() still sees s1 as not rolled back (only one file of it was)
    mgr.undo()
    assert (a.read_text(), b.read_text()) == ("a0", "b0")


def test_restore_deletes_created_files_and_recreates_deleted_ones(tmp_path):
    mgr, root = make_manager(tmp_path)
    new, gone = root / "new.txt", root / "d" / "gone.txt"
    gone.parent.mkdir()
    gone.write_text("keep me")
    mgr.create_snapshot([str(new), str(gone)], ["write", "bash"], "x")
    new.write_text("created")
    gone.unlink()
    gone.parent.rmdir()
    res = mgr.restore_before("s1")
    acts = {Path(f.path).name: f.action for f in res.files}
    assert acts == {"new.txt": "deleted", "gone.txt": "restored"}
    assert not new.exists() and gone.read_text() == "keep me"
    mgr.redo()
    assert new.read_text() == "created" and not gone.exists()


def test_rollback_to_time(tmp_path):
    mgr, root = make_manager(tmp_path)
    a = root / "a.txt"
    a.write_text("v0")
    mgr.create_snapshot([str(a)], ["edit"], str(a))
    t1 = mgr.index.snapshots[0]["timestamp"]
    a.write_text("v1")
    mgr.create_snapshot([str(a)], ["edit"], str(a))
    a.write_text("v2")
    assert mgr.rollback_to_time(t1 + 1).target_snapshot_id == "s2"
    assert a.read_text() == "v1"
    res = mgr.rollback_to_time(10**15)
    assert res.from_position is None and res.note


def test_uncertain_files_are_skipped_unless_forced(tmp_path):
    """Per-file eviction cut a's history; restoring before a kept snapshot must not guess."""
    mgr, root = make_manager(tmp_path, max_per_file=2)
    a, b = root / "a.txt", root / "b.txt"
    a.write_text("a0")
    b.write_text("b0")
    mgr.create_snapshot([str(a), str(b)], ["edit"], f"{a}, {b}")  # s1
    b.write_text("b1")
    for i in range(1, 4):  # s2..s4 touch only a
        a.write_text(f"a{i}")
        mgr.create_snapshot([str(a)], ["edit"], str(a))
    # a keeps 2 entries (s3 re-anchored, s4); s1 survives for b.
    ids = [s["id"] for s in mgr.reload().snapshots]
    assert ids == ["s1", "s3", "s4"]
    res = mgr.restore_before("s1", dry_run=True)
    acts = {Path(f.path).name: f for f in res.files}
    assert acts["a.txt"].action == "skipped" and acts["a.txt"].uncertain
    assert "uncertain" in acts["a.txt"].reason
    assert acts["b.txt"].action == "restored"
    forced = mgr.restore_before("s1", dry_run=True, force=True)
    assert {Path(f.path).name: f.action for f in forced.files}["a.txt"] == "restored"


def test_unchanged_file_in_a_batch_is_restored_to_its_state_then(tmp_path):
    """The agent skips a file equal to its latest entry; the batch still names it."""
    mgr, root = make_manager(tmp_path)
    a = root / "a.txt"
    a.write_text("A")
    mgr.create_snapshot([str(a)], ["edit"], str(a))  # s1: failed edit, a unchanged
    assert mgr.create_snapshot([str(a)], ["edit"], str(a)) is None  # retry: skipped
    other = root / "o.txt"
    other.write_text("o")
    mgr.create_snapshot([str(other), str(a)], ["edit"], f"{other}, {a}")  # s2 names a
    a.write_text("B")  # changed by the s2 batch
    mgr.create_snapshot([str(a)], ["edit"], str(a))  # s3
    a.write_text("C")
    mgr.restore_before("s2")
    assert a.read_text() == "A"


# --- confinement ----------------------------------------------------------------------------


def _crafted_index(mgr: CheckpointManager, paths: list[str]) -> None:
    snap = {
        "id": "s1",
        "timestamp": 1,
        "toolName": "edit",
        "toolSummary": "x",
        "files": [
            {
                "filePath": p,
                "existedBefore": True,
                "type": "full",
                "content": "PWNED",
                "compressed": False,
            }
            for p in paths
        ],
    }
    data = {"sessionId": "sess", "createdAt": 1, "nextId": 2, "snapshots": [snap]}
    mgr.index_path.parent.mkdir(parents=True, exist_ok=True)
    mgr.index_path.write_text(json.dumps(data))


def test_hostile_paths_write_nothing_outside(tmp_path):
    mgr, root = make_manager(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.txt"
    victim.write_text("safe")
    (root / "link").symlink_to(outside)
    paths = [
        str(root / ".." / "outside" / "victim.txt"),
        str(victim),
        str(root / "link" / "victim.txt"),
        str(root) + "/nul\x00.txt",
        "relative/path.txt",
        str(root / "ok.txt"),
    ]
    _crafted_index(mgr, paths)
    res = mgr.restore_before("s1")
    by = {f.path: f for f in res.files}
    assert victim.read_text() == "safe"
    assert "'..'" in by[paths[0]].reason
    assert "outside the project root" in by[paths[1]].reason
    assert "symlink" in by[paths[2]].reason
    assert "NUL" in by[paths[3]].reason
    assert "not absolute" in by[paths[4]].reason
    assert all(by[p].action == "skipped" for p in paths[:5])
    assert by[paths[5]].action == "restored" and (root / "ok.txt").read_text() == "PWNED"
    assert sorted(os.listdir(outside)) == ["victim.txt"]


def test_outside_root_allowed_explicitly(tmp_path):
    mgr, root = make_manager(tmp_path, allow_outside_root=True)
    victim = tmp_path / "elsewhere.txt"
    victim.write_text("now")
    _crafted_index(mgr, [str(victim)])
    mgr.restore_before("s1")
    assert victim.read_text() == "PWNED"


# --- eviction -------------------------------------------------------------------------------


def test_evicting_oldest_full_reanchors_and_keeps_every_point(tmp_path):
    """FORMAT.md §10.9: full → diff → diff → diff, evict the full, undo still works."""
    mgr, root = make_manager(tmp_path, max_per_file=3)
    f = root / "f.txt"
    versions = [f"line {i}\ncommon\n" for i in range(5)]
    for v in versions[:4]:
        f.write_text(v)
        mgr.create_snapshot([str(f)], ["edit"], str(f))
    index = mgr.reload()
    assert chain_health(index, str(f)).drawing == "full → diff → diff"
    assert [s["id"] for s in index.snapshots] == ["s2", "s3", "s4"]
    for pos, (sid, want) in enumerate(zip(["s2", "s3", "s4"], versions[1:4], strict=True)):
        r = rebuild(index, str(f), pos)
        assert (r.snapshot_id, r.content) == (sid, want)
    assert index.data["latestFullMap"] == {str(f): "s2"}
    f.write_text(versions[4])
    mgr.undo()  # s4's pre-image after evicting s1 and re-anchoring s2
    assert f.read_text() == versions[3]
    mgr.restore_before("s2")
    assert f.read_text() == versions[1]


def test_reanchor_failure_stops_eviction_over_quota_but_intact(tmp_path):
    mgr, root = make_manager(tmp_path, max_per_file=50)
    f = root / "f.txt"
    for i in range(4):
        f.write_text(f"v{i}\n")
        mgr.create_snapshot([str(f)], ["edit"], str(f))
    index = mgr.reload()
    index.snapshots[1]["files"][0]["diff"] = {"ops": []}  # the agent's empty-ops bug
    index.invalidate()
    before = [s["id"] for s in index.snapshots]
    report = evict(index, 1, 10**12)
    assert report.stopped and "s2" in report.stopped[0][1]
    assert [s["id"] for s in index.snapshots] == before  # nothing cut
    assert rebuild(index, str(f), 0).content == "v0\n"


def test_size_eviction_keeps_min_keep_and_reanchors(tmp_path):
    mgr, root = make_manager(tmp_path, max_total_bytes=2_000)
    files = [root / n for n in ("x.txt", "y.txt", "z.txt")]
    for i in range(15):
        f = files[i % 3]
        f.write_text("".join(f"{f.name} line {j} v{i}\n" for j in range(20)))
        mgr.create_snapshot([str(f)], ["edit"], str(f))
    index = mgr.reload()
    assert len(index.snapshots) == 11  # MIN_KEEP: over quota rather than fewer
    assert mgr.last_eviction.over_quota
    for p in index.tracked_files():
        assert chain_health(index, p).healthy
        assert index.entries_for(p)[0][1]["type"] == "full"


def test_undo_passes_over_a_batch_already_undone_by_hand(tmp_path):
    mgr, root = make_manager(tmp_path)
    a = root / "a.txt"
    a.write_text("v0")
    mgr.create_snapshot([str(a)], ["edit"], str(a))
    a.write_text("v1")
    mgr.create_snapshot([str(a)], ["edit"], str(a))
    a.write_text("v2")
    a.write_text("v1")  # the user reverted the last batch by hand
    res = mgr.undo()
    assert res.target_snapshot_id == "s1" and a.read_text() == "v0"


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    steps=st.lists(batch, min_size=1, max_size=16),
    cap=st.integers(1, 4),
    quota=st.sampled_from([300, 1_000, 10**9]),
)
# 8d4f8f1: a base whose file did not exist before (existedBefore false) and whose older
# entries were evicted was taken as a recorded creation: rolling back to s2 deleted b.md
@example(
    steps=[[("b.md", b"")], [("a.txt", b"")], [("b.md", None)], [("b.md", b"")]], cap=1, quota=300
)
def test_property_eviction_during_writes_never_cuts_or_lies(tmp_path_factory, steps, cap, quota):
    """Evicting while snapshots are written: every remaining entry still rebuilds to its
    truth, and rollback_from(k) either restores the truth at k or says the file is uncertain."""
    tmp = tmp_path_factory.mktemp("evict")
    mgr, root = make_manager(tmp, max_per_file=cap, max_total_bytes=quota)
    (root / "sub").mkdir()
    paths = [root / n for n in NAMES]
    truth: dict[str, dict[str, bytes | None]] = {}
    for b in steps:
        before = disk(paths)
        changes = {n: d for n, d in dict(b).items() if before[str(root / n)] != d}
        if not changes:
            continue
        files = [str(root / n) for n in changes]
        sid = mgr.create_snapshot(files, ["edit"] * len(files), ", ".join(files))
        if sid is not None:
            truth[sid] = before
        for n, data in changes.items():
            put(root / n, data)
    index = mgr.reload()
    if mgr.last_eviction is not None and mgr.last_eviction.removed_snapshots:
        event("evicted whole snapshots")
    for p in index.tracked_files():
        assert len(index.entries_for(p)) <= cap
        for r in rebuild_all(index, p):
            assert r.recoverable, r.reason
            assert (r.data() if r.exists else None) == truth[r.snapshot_id][p]
    for k, s in enumerate(index.snapshots):
        for f in mgr.rollback_from(k, dry_run=True).files:
            if f.action == "skipped":
                assert f.uncertain, f.reason
            else:
                assert f.new == truth[s["id"]][f.path], (s["id"], f.path)


def test_lone_surrogate_in_stored_text_is_written_as_replacement_char(tmp_path):
    mgr, root = make_manager(tmp_path)
    _crafted_index(mgr, [str(root / "s.txt")])
    data = json.loads(mgr.index_path.read_text())
    data["snapshots"][0]["files"][0]["content"] = "a\ud800b"
    mgr.index_path.write_text(json.dumps(data))
    mgr.restore_before("s1")
    assert (root / "s.txt").read_bytes() == "a\ufffdb".encode()


def test_undo_file_cli(real_home_with_projects, capsys):
    from sidtui.cli import main

    home, projects = real_home_with_projects
    s11 = "20261130-052918-63b1c5f8"
    cfg = projects / "cli-tool" / "config.ini"
    util_before = (projects / "cli-tool" / "src" / "util.py").read_bytes()
    rc = main(["--home", str(home), "undo", s11, "--file", "config.ini"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    assert cfg.read_bytes().startswith(b"[server]\r\nhost_name = localhost\r\nport_number")
    assert (projects / "cli-tool" / "src" / "util.py").read_bytes() == util_before


def test_undo_file_redo_undo_file_again(tmp_path):
    mgr, root = make_manager(tmp_path)
    a = root / "a.txt"
    a.write_text("a0")
    mgr.create_snapshot([str(a)], ["edit"], str(a))
    a.write_text("a1")
    mgr.undo_file(str(a))
    assert a.read_text() == "a0"
    mgr.redo()
    assert a.read_text() == "a1"
    mgr.undo_file(str(a))
    assert a.read_text() == "a0"


def test_safety_snapshot_failure_changes_no_file(tmp_path, monkeypatch):
    import pytest

    from sidtui.core.checkpoints import index as checkpoint_index
    from sidtui.core.checkpoints.restore import CheckpointError

    mgr, root = make_manager(tmp_path)
    a = root / "a.txt"
    a.write_text("old")
    mgr.create_snapshot([str(a)], ["edit"], str(a))
    a.write_text("new")

    def boom(*_a, **_k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(checkpoint_index, "atomic_write_bytes", boom)
    with pytest.raises(CheckpointError, match="no file was changed"):
        mgr.undo()
    assert a.read_text() == "new"


def test_failed_undo_does_not_count_as_done(tmp_path, monkeypatch):
    """Fresh-user finding: an undo whose every write failed still claimed the batch undone."""
    import sidtui.core.checkpoints.manager as cp

    mgr, root = make_manager(tmp_path)
    a = root / "a.txt"
    a.write_text("a0")
    mgr.create_snapshot([str(a)], ["edit"], str(a))
    a.write_text("a1")

    from sidtui.core.base import safefs

    real_replace = safefs.replace_at

    def refuse(dir_fd, name, *args, **kw):
        if name == "a.txt":
            raise PermissionError(1, "Operation not permitted")
        return real_replace(dir_fd, name, *args, **kw)

    monkeypatch.setattr(safefs, "replace_at", refuse)
    r = mgr.undo()
    assert r.skipped and r.safety_snapshot_id is None and a.read_text() == "a1"
    snaps = mgr.reload().snapshots
    assert snaps[-1]["toolName"] == cp.RESTORE_TOOL and snaps[-1]["sidtuiFailed"] is True
    assert mgr.redo().note == "nothing to redo"
    monkeypatch.undo()
    r = mgr.undo()  # the same batch is still the one to undo
    assert r.target_snapshot_id == "s1" and a.read_text() == "a0"


def test_a_path_swapped_while_confine_resolves_it_is_refused_with_a_reason(tmp_path, monkeypatch):
    # a folder replaced between realpath's lstat and readlink raised FileNotFoundError
    # ("internal error") in 2 of 40 folder-swap trials; it is a refusal of that file now
    from sidtui.core.checkpoints import restore

    def swapped(p, *a, **k):
        raise FileNotFoundError(2, "No such file or directory", p)

    monkeypatch.setattr(restore.os.path, "realpath", swapped)
    reason, real = restore.confine(str(tmp_path / "src" / "a.ts"), tmp_path)
    assert real == str(tmp_path / "src" / "a.ts")
    assert (
        reason == "the path changed while it was checked (No such file or directory): run it again"
    )


def test_a_full_entry_is_not_split_into_lines_unless_a_diff_needs_them(tmp_path, monkeypatch):
    from sidtui.core.checkpoints import rebuild as rebuild_mod
    from sidtui.core.checkpoints.manager import CheckpointManager

    root = tmp_path / "p"
    root.mkdir()
    f = root / "a.txt"
    f.write_text("abc\n" * 1000)
    mgr = CheckpointManager(tmp_path / "ck" / "index.json", "s", project_root=root, clock=lambda: 1)
    mgr.create_snapshot([str(f)], "edit", "batch")
    f.write_text("now\n")
    real_split = rebuild_mod.split_lines

    def no_split(text):  # a 60 MiB full cost 4 s a split and 1 s a join, twice a plan
        raise AssertionError("a full rebuilt without a diff was split into lines")

    monkeypatch.setattr(rebuild_mod, "split_lines", no_split)
    res = mgr.rollback_from(0, dry_run=True, force=True)
    assert res.files[0].new == b"abc\n" * 1000 and res.files[0].action == "restored"
    monkeypatch.setattr(rebuild_mod, "split_lines", real_split)
    mgr.create_snapshot([str(f)], "edit", "batch 2")  # a diff on top: lines are needed
    f.write_text("later\n")
    assert mgr.rebuild_at(str(f), "s2").content == "now\n"
    assert mgr.rebuild_at(str(f), "s1").content == "abc\n" * 1000


def test_unknown_snapshot_names_the_whole_range_not_the_last_dozen(tmp_path):
    mgr, root = make_manager(tmp_path)
    f = root / "a.txt"
    for k in range(18):
        f.write_text(f"v{k}\n")
        mgr.create_snapshot([str(f)], ["edit"], str(f))
    with pytest.raises(UsageError) as e:
        mgr.position("banana")
    assert "(have: s1–s18)" in str(e.value)
    assert known_ids([]) == "none"
    assert known_ids(["s1", "s2"]) == "s1, s2"
    assert known_ids([f"s{k}" for k in (1, 2, 3, 5, 6, 7, 8)]) == "s1–s3, s5–s8"
    # s1–s6 are never hidden behind the newest ids (it said "s7, s8, … s18")
    assert known_ids([f"s{k}" for k in range(1, 19)]) == "s1–s18"
    assert known_ids([f"s{k}" for k in (1, 3, 4, 9, *range(11, 19))]) == "s1, s3, s4, s9, s11–s18"
    many = [f"s{k}" for k in range(1, 40, 3)]  # 13 runs of one
    assert known_ids(many) == "s1, s4, s7, …, s34, s37 (13 snapshots)"
    assert known_ids(["a1", "b2"]) == "a1, b2"

"""Rewind points, three-mode rewind, branch switch, fork and salvage."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from sidtui.core.base.errors import UsageError
from sidtui.core.base.home import Home
from sidtui.core.base.resolve import resolve_session
from sidtui.core.checkpoints.manager import CheckpointManager
from sidtui.core.edits.fork import fork
from sidtui.core.edits.points import UnknownPoint, get_point, rewind_points
from sidtui.core.edits.rewind import SessionIsLive, rewind, switch_branch
from sidtui.core.edits.salvage import salvage
from sidtui.core.views.session import open_session
from tests.helpers import FIXTURE_PREFIX, REAL_ORACLE

S01 = "20261130-052907-9ff3799b"
S16 = "20261130-052921-ad7240fb"


def view_of(home: Path, sid: str):
    h = Home(home)
    return open_session(h, resolve_session(h, sid), with_sidechains=False)


def uuids(view) -> list[str | None]:
    return [m.uuid for m in view.loaded.messages]


def truth_at(snapshot_id: str, session: str, projects: Path) -> dict[str, bytes | None]:
    """The oracle's truthAtSnapshotTime for every file of one snapshot (remapped paths)."""
    data = json.loads(
        (REAL_ORACLE / "checkpoints" / session / "index.json.oracle.json").read_text()
    )
    snap = next(s for s in data["snapshots"] if s["id"] == snapshot_id)
    out: dict[str, bytes | None] = {}
    for path, f in snap["files"].items():
        t = f["truthAtSnapshotTime"]
        if not isinstance(t, dict):
            continue  # "unknown": the harness had not tracked the file yet
        real = path.replace(FIXTURE_PREFIX, str(projects))
        out[real] = None if t.get("absent") else t["sha256"]
    return out


def disk_state(paths) -> dict[str, str | None]:
    out = {}
    for p in paths:
        try:
            out[p] = hashlib.sha256(Path(p).read_bytes()).hexdigest()
        except FileNotFoundError:
            out[p] = None
    return out


def all_bytes(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# --------------------------------------------------------------------------- points


def test_rewind_points_of_s01(real_home_with_projects):
    home, _ = real_home_with_projects
    v = view_of(home, S01)
    pts = rewind_points(v)
    assert [p.id for p in pts] == [1, 2, 3]
    assert [p.message_index for p in pts] == [0, 10, 16]
    assert [p.snapshot_id for p in pts] == ["", "s1", "s2"]
    assert [p.restore_from for p in pts] == ["s1", "s2", "s3"]
    assert pts[0].preview.startswith("The login form accepts empty passwords")
    assert len(pts[0].preview) == 60
    assert all(v.loaded.messages[p.message_index].is_human_prompt for p in pts)


def test_unknown_point_and_mode(real_home_with_projects):
    home, _ = real_home_with_projects
    v = view_of(home, S01)
    with pytest.raises(UnknownPoint) as exc:
        rewind(v, 4, "conversation")
    assert exc.value.exit_code == 2
    with pytest.raises(UsageError):
        rewind(v, 1, "everything")


# --------------------------------------------------------------------------- rewind on the fixture


def test_rewind_both_on_fixture_matches_oracle_truth(real_home_with_projects):
    home, projects = real_home_with_projects
    v = view_of(home, S01)
    src = v.file.path
    before_bytes = src.read_bytes()
    before_uuids = uuids(v)
    truth = truth_at("s2", S01, projects)
    pre_rewind = disk_state(truth)

    r = rewind(v, 2, "both", force=True)
    assert r.mode == "conversation-and-code"
    assert r.messages_dropped == 10 and r.files_restored >= 2
    assert not r.file_restore_skipped and r.safety_snapshot and r.marker_uuid
    assert disk_state(truth) == truth  # files as they were when prompt 2 was submitted
    after = src.read_bytes()
    assert after.startswith(before_bytes)  # append-only: every original line unchanged
    v2 = view_of(home, S01)
    assert uuids(v2) == before_uuids[:10]
    assert [p.id for p in rewind_points(v2)] == [1]  # points at/after the target are gone
    last = json.loads(after.splitlines()[-1])
    assert last["type"] == "metadata" and last["key"] == "rewind"
    assert last["parentUuid"] == rewind_points(v)[1].parent_uuid

    # the safety snapshot takes the file step back
    mgr = CheckpointManager.for_session(Home(home), S01, project_root=projects / "webapp")
    mgr.redo()
    assert disk_state(truth) == pre_rewind

    # switch back to the old tip: the conversation is the one before the rewind
    res = switch_branch(v2, r.abandoned_tip[:10])
    assert res.messages_after == 20
    assert uuids(view_of(home, S01)) == before_uuids


def test_rewind_conversation_only_leaves_files(real_home_with_projects):
    home, projects = real_home_with_projects
    before = all_bytes(projects)
    r = rewind(view_of(home, S01), 3, "conversation")
    assert r.files_restored == 0 and r.safety_snapshot is None
    assert all_bytes(projects) == before
    assert len(view_of(home, S01).loaded.messages) == 16


def test_rewind_code_only_keeps_conversation(real_home_with_projects):
    home, projects = real_home_with_projects
    v = view_of(home, S01)
    before = src_bytes = v.file.path.read_bytes()
    r = rewind(v, 1, "code", force=True)
    assert r.marker_uuid is None and r.messages_dropped == 0
    assert r.files_restored >= 2
    assert v.file.path.read_bytes() == src_bytes == before
    assert disk_state(truth_at("s1", S01, projects)) == truth_at("s1", S01, projects)


def test_dry_run_writes_nothing(real_home_with_projects):
    home, projects = real_home_with_projects
    before_home, before_proj = all_bytes(home), all_bytes(projects)
    r = rewind(view_of(home, S01), 2, "both", dry_run=True)
    assert r.dry_run and r.messages_dropped == 10 and len(r.dropped) == 10
    assert r.diffs and all(d.startswith("--- ") for d in r.diffs)
    assert any("+++ /dev/null" in d for d in r.diffs)  # validate.test.ts would be deleted
    assert all_bytes(home) == before_home and all_bytes(projects) == before_proj


def test_no_checkpoints_files_skipped_conversation_rewound(real_home_with_projects):
    home, _ = real_home_with_projects
    sid = "20261130-052907-87d4ce35"  # S02 has no checkpoint index
    v = view_of(home, sid)
    r = rewind(v, 2, "both", force=True)
    assert r.file_restore_skipped and r.files_restored == 0
    assert r.marker_uuid is not None
    assert len(view_of(home, sid).loaded.messages) == rewind_points(v)[1].message_index


def _register_live(home: Path, session_id: str, key: str | None = None) -> None:
    reg = home / "active-sessions"
    reg.mkdir(exist_ok=True)
    (reg / f"{key or session_id}.json").write_text(
        json.dumps(
            {
                "sessionId": session_id,
                "pid": os.getpid(),
                "kind": "interactive",
                "cwd": "/",
                "startedAt": int(time.time() * 1000),
            }
        )
    )


def test_live_session_refused_unless_forced(real_home_with_projects):
    home, _ = real_home_with_projects
    _register_live(home, S01)
    v = view_of(home, S01)
    before = v.file.path.read_bytes()
    with pytest.raises(SessionIsLive):
        rewind(v, 2, "conversation")
    with pytest.raises(SessionIsLive):
        switch_branch(v, v.loaded.messages[3].uuid)
    assert v.file.path.read_bytes() == before
    # a fork of the conversation does not touch the live session: allowed
    r = rewind(v, 2, "conversation", as_fork=True)
    assert r.fork is not None and v.file.path.read_bytes() == before
    r = rewind(v, 2, "conversation", force=True)
    assert r.marker_uuid


def test_live_via_trace_session_id(real_home_with_projects):
    home, _ = real_home_with_projects
    sid = "20261130-052907-f197a796"  # S04, resumed by …052910-3f250dcf
    _register_live(home, "20261130-052910-3f250dcf")
    with pytest.raises(SessionIsLive):
        rewind(view_of(home, sid), 1, "conversation")


def test_rewind_as_fork_leaves_source_untouched(real_home_with_projects):
    home, projects = real_home_with_projects
    v = view_of(home, S01)
    src, idx = v.file.path, Home(home).checkpoint_index(S01)
    src_bytes, idx_bytes = src.read_bytes(), idx.read_bytes()
    r = rewind(v, 2, "both", as_fork=True, force=True)
    assert src.read_bytes() == src_bytes and idx.read_bytes() == idx_bytes
    child = view_of(home, r.fork.session_id)
    assert child.loaded.loadable
    assert [m.preview() for m in child.loaded.messages] == [
        m.preview() for m in v.loaded.messages[:10]
    ]
    truth = truth_at("s2", S01, projects)
    assert disk_state(truth) == truth
    assert r.safety_snapshot  # recorded in the child's own index
    assert Home(home).checkpoint_index(r.fork.session_id).exists()


# --------------------------------------------------------------------------- fork


def test_fork_copies_history_and_leaves_parent_untouched(real_home_with_projects):
    home, _ = real_home_with_projects
    v = view_of(home, S01)
    src, idx = v.file.path, Home(home).checkpoint_index(S01)
    src_bytes, idx_bytes = src.read_bytes(), idx.read_bytes()
    res = fork(v)
    assert src.read_bytes() == src_bytes and idx.read_bytes() == idx_bytes
    assert res.path.parent == src.parent and res.message_count == 20
    assert res.checkpoints_inherited == 3
    child = view_of(home, res.session_id)
    assert child.loaded.loadable and child.chain.fork_source == S01
    lines = [json.loads(x) for x in res.path.read_bytes().splitlines()]
    assert lines[0]["type"] == "session_start" and lines[0]["parentUuid"] == S01
    assert lines[1]["key"] == "forked_from"
    assert lines[1]["value"] == {
        "sessionId": S01,
        "uuid": v.rf.records[v.chain.tail].uuid,
        "messageCount": 20,
    }
    assert [(m.role, m.block_types, m.preview()) for m in child.loaded.messages] == [
        (m.role, m.block_types, m.preview()) for m in v.loaded.messages
    ]
    assert not set(uuids(child)) & set(uuids(v))  # fresh uuids
    # the agent's fork shape: message._meta carries what the loader moved there
    assert child.loaded.messages[1].meta == v.loaded.messages[1].meta


def test_fork_at_point(real_home_with_projects):
    home, _ = real_home_with_projects
    v = view_of(home, S01)
    res = fork(v, get_point(v, 3))
    child = view_of(home, res.session_id)
    assert len(child.loaded.messages) == 16
    assert child.loaded.metadata["forked_from"]["toPoint"] == 3
    # at the first prompt: an empty conversation, still a loadable session
    res = fork(v, get_point(v, 1))
    child = view_of(home, res.session_id)
    assert child.loaded.loadable and child.loaded.messages == []


def test_fork_of_unloadable_session_points_to_salvage(real_home_with_projects):
    home, _ = real_home_with_projects
    with pytest.raises(UsageError, match="salvage"):
        fork(view_of(home, S16))


# --------------------------------------------------------------------------- salvage


def test_salvage_fixture_the_agent_cannot_load(real_home_with_projects):
    home, _ = real_home_with_projects
    v = view_of(home, S16)
    assert not v.loaded.loadable
    src_bytes = v.file.path.read_bytes()
    res = salvage(v)
    assert v.file.path.read_bytes() == src_bytes
    child = view_of(home, res.session_id)
    assert child.loaded.loadable
    assert [m.preview() for m in child.loaded.messages] == [
        "Explain main.go.",
        "It declares package main with an empty main function.",
        "Could it print hello?",
        'Yes: import fmt and call fmt.Println("hello").',
        "Continue after the crash.",
        "Continuing.",
    ]
    ff = child.loaded.metadata["forked_from"]
    assert ff["sessionId"] == S16
    assert ff["salvage"]["badLines"][0]["line"] == 12
    assert ff["salvage"]["joins"][0] == {
        "line": 13,
        "after_line": 11,
        "reason": "parent 66b6c955-807e-40c1-ba80-5ae921f06835 is not in the file",
    }
    assert child.recovery is not None


def test_salvage_refuses_a_loadable_session(real_home_with_projects):
    home, _ = real_home_with_projects
    with pytest.raises(UsageError, match="nothing to salvage"):
        salvage(view_of(home, S01))


def test_salvage_dry_run_writes_nothing(real_home_with_projects):
    home, _ = real_home_with_projects
    before = all_bytes(home)
    res = salvage(view_of(home, S16), dry_run=True)
    assert res.message_count == 6 and all_bytes(home) == before


# --------------------------------------------------------------------------- CLI


def test_cli_rewind_fork_branch_salvage(real_home_with_projects, capsys):
    from sidtui.cli import main

    home, _ = real_home_with_projects
    h = ["--home", str(home)]
    assert main(["rewind", S01, *h, "--json"]) == 0
    pts = json.loads(capsys.readouterr().out)["points"]
    assert len(pts) == 3
    assert main(["rewind", S01, *h, "--to", "9"]) == 2
    assert "no rewind point 9" in capsys.readouterr().err
    # S05 (a fork) changed login.ts after S01: the real run is refused, so the dry run says
    # so and exits 1 (its preview is still printed)
    assert main(["rewind", S01, *h, "--to", "2", "--mode", "both", "--dry-run"]) == 1
    out, err = capsys.readouterr()
    assert "messages to drop: 10" in out and "+++ /dev/null" in out
    assert "a real run is refused" in err and "login.ts" in err
    assert main(["rewind", S01, *h, "--to", "3", "--mode", "conversation", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["messages_dropped"] == 4 and res["marker_uuid"]
    assert main(["branch", S01, *h, "--tip", res["abandoned_tip"][:8], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["messages_after"] == 20
    assert main(["fork", S01, *h, "--at", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["message_count"] == 10
    assert main(["salvage", S16, *h, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["message_count"] == 6
    assert main(["salvage", S01, *h]) == 2
    assert main(["branch", S01, *h, "--tip", "zzzz"]) == 2


def test_agent_fork_points_map_to_inherited_checkpoints(real_home_with_projects):
    """S05 (the agent's fork of S01) re-stamped the copied prompts; the inherited
    snapshots kept S01's times. Points use the source prompt times, so a code rewind of
    the fork to its first prompt rolls back S01's changes too."""
    home, projects = real_home_with_projects
    s05 = "20261130-052911-4ee72b6a"
    v = view_of(home, s05)
    pts = rewind_points(v)
    assert [p.restore_from for p in pts] == ["s1", "s2", "s3", "s4"]
    assert pts[0].timestamp == "2026-11-29T21:29:07.204Z"  # the source prompt's time
    r = rewind(v, 1, "code", force=True)
    truth = truth_at("s1", s05, projects)
    assert truth and disk_state(truth) == truth
    assert r.files_restored >= 2


def test_out_of_root_file_is_skipped_and_reported(real_home_with_projects, tmp_path):
    home, projects = real_home_with_projects
    idx = Home(home).checkpoint_index(S01)
    inside = str(projects / "webapp" / "README.md")
    outside = tmp_path / "elsewhere" / "README.md"
    outside.parent.mkdir()
    outside.write_text("changed later\n")
    idx.write_bytes(idx.read_bytes().replace(inside.encode(), str(outside).encode()))
    r = rewind(view_of(home, S01), 1, "code", force=True)
    assert r.file_restore_skipped
    assert any(str(outside) in w for w in r.warnings)
    assert outside.read_text() == "changed later\n"  # nothing written outside the root
    r = rewind(view_of(home, S01), 1, "code", allow_outside_root=True, force=True)
    assert outside.read_text() != "changed later\n"


def test_cli_live_session_refused_exit_1(real_home_with_projects, capsys):
    from sidtui.cli import main

    home, _ = real_home_with_projects
    _register_live(home, S01)
    before = view_of(home, S01).file.path.read_bytes()
    assert main(["rewind", S01, "--home", str(home), "--to", "2", "--mode", "conversation"]) == 1
    assert "is live" in capsys.readouterr().err
    assert view_of(home, S01).file.path.read_bytes() == before


def _write_lines(path: Path, recs: list[dict]) -> None:
    from sidtui.core.base.jsonout import stringify

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(stringify(r) + b"\n" for r in recs))


def _msg(uuid: str, parent: str | None, role: str, text: str) -> dict:
    return {
        "type": f"{role}_message",
        "message": {"role": role, "content": [{"type": "text", "text": text}]},
        "timestamp": "2026-11-29T21:00:00.000Z",
        "uuid": uuid,
        "parentUuid": parent,
    }


START = {
    "type": "session_start",
    "version": "3.0",
    "sessionId": "20261130-000000-00c0ffee",
    "model": "m",
    "provider": "p",
    "cwd": "/w",
    "timestamp": "2026-11-29T21:00:00.000Z",
    "uuid": "a",
    "parentUuid": None,
}


@pytest.mark.parametrize(
    "tail",
    [
        # a cycle: d -> e -> d
        [_msg("d", "e", "user", "q2"), _msg("e", "d", "assistant", "r2")],
        # a resume that restarted the chain with a null parent and no session_start
        [_msg("d", None, "user", "q2"), _msg("e", "d", "assistant", "r2")],
        # a lost parent
        [_msg("d", "zzz", "user", "q2"), _msg("e", "d", "assistant", "r2")],
    ],
    ids=["cycle", "headless-restart", "lost-parent"],
)
def test_salvage_stitches_pieces(tmp_path, tail):
    home = tmp_path / "h"
    path = home / "sessions" / "proj" / "20261130-000000-00c0ffee.jsonl"
    _write_lines(
        path,
        [START, _msg("b", "a", "user", "q1"), _msg("c", "b", "assistant", "r1"), *tail],
    )
    v = view_of(home, "20261130-000000-00c0ffee")
    assert not v.loaded.loadable
    res = salvage(v)
    child = view_of(home, res.session_id)
    assert child.loaded.loadable
    assert [m.preview() for m in child.loaded.messages] == ["q1", "r1", "q2", "r2"]
    assert len(res.left_out["joins"]) == 1


def test_failed_file_write_leaves_conversation_untouched(real_home_with_projects, monkeypatch):
    from sidtui.core.base import safefs
    from sidtui.core.edits.rewind import RewindError

    home, _ = real_home_with_projects
    v = view_of(home, S01)
    before = v.file.path.read_bytes()
    real = safefs.replace_at

    def failing(dir_fd, name, *args, **kw):
        if name == "login.ts":
            raise OSError(28, "No space left on device")
        return real(dir_fd, name, *args, **kw)

    monkeypatch.setattr(safefs, "replace_at", failing)
    with pytest.raises(RewindError, match="conversation was left untouched"):
        rewind(v, 2, "both", force=True)
    assert v.file.path.read_bytes() == before


def test_stale_view_is_reread_before_writing(real_home_with_projects):
    from sidtui.core.transcript.writer import SessionStore

    home, _ = real_home_with_projects
    v = view_of(home, S01)
    store = SessionStore(v.file.path.parent)
    store.resume(v.file.path)
    new_tail = store.append_message(
        {"role": "user", "content": [{"type": "text", "text": "one more"}]}
    )  # still queued: rewind flushes it before reading
    r = rewind(v, 2, "conversation")
    assert r.abandoned_tip == new_tail
    assert r.messages_dropped == 11
    res = switch_branch(v, new_tail[:12])
    assert res.messages_after == 21


def test_fork_at_point_inherits_only_earlier_snapshots(real_home_with_projects):
    """[sidtui] a fork at prompt N must not carry later batches: undoing one from the fork
    would revert an edit its history never made (fresh-user finding)."""
    home, _ = real_home_with_projects
    v = view_of(home, S01)
    pt = get_point(v, 2)
    idx = json.loads(Home(home).checkpoint_index(S01).read_text())
    earlier = [s["id"] for s in idx["snapshots"] if s["timestamp"] < pt.timestamp_ms]
    assert 0 < len(earlier) < len(idx["snapshots"])
    before = sorted(p.name for p in Home(home).checkpoints_dir.iterdir())
    dry = fork(v, pt, dry_run=True)  # the dry run counts what the real run inherits
    assert dry.checkpoints_inherited == len(earlier)
    assert fork(v, dry_run=True).checkpoints_inherited == len(idx["snapshots"])
    assert sorted(p.name for p in Home(home).checkpoints_dir.iterdir()) == before
    res = fork(v, pt)
    child_idx = json.loads(Home(home).checkpoint_index(res.session_id).read_text())
    assert [s["id"] for s in child_idx["snapshots"]] == earlier
    assert res.checkpoints_inherited == len(earlier)
    kept = {s["id"] for s in child_idx["snapshots"]}
    assert set(child_idx["latestFullMap"].values()) <= kept
    # the whole-session fork still inherits everything
    assert fork(v).checkpoints_inherited == len(idx["snapshots"])


# --------------------------------------------------------------------------- marker cannot land


def _deny_append(monkeypatch, path: Path) -> None:
    """Opening ``path`` for writing fails with EACCES (as for a read-only file; the
    tests may run as root, where chmod does not stop a write)."""
    import errno

    import sidtui.core.edits.rewind as rw

    real_open = os.open

    def fake_open(p, flags, *a, **kw):
        if os.fspath(p) == os.fspath(path) and flags & (os.O_WRONLY | os.O_RDWR):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(p))
        return real_open(p, flags, *a, **kw)

    monkeypatch.setattr(rw.os, "open", fake_open)


def test_rewind_both_refused_before_any_file_when_session_not_appendable(
    real_home_with_projects, monkeypatch
):
    from sidtui.core.edits.rewind import RewindError

    home, projects = real_home_with_projects
    v = view_of(home, S01)
    before_projects = all_bytes(projects)
    before_home = all_bytes(home)
    _deny_append(monkeypatch, v.file.path)
    with pytest.raises(RewindError, match="nothing was changed") as exc:
        rewind(v, 2, "both", force=True)
    assert exc.value.exit_code == 1 and exc.value.result is None
    assert all_bytes(projects) == before_projects  # no project file touched
    assert all_bytes(home) == before_home  # no safety snapshot, no marker


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files")
def test_rewind_both_read_only_session_file_changes_nothing(real_home_with_projects):
    from sidtui.core.edits.rewind import RewindError

    home, projects = real_home_with_projects
    v = view_of(home, S01)
    before_projects = all_bytes(projects)
    v.file.path.chmod(0o444)
    with pytest.raises(RewindError, match="nothing was changed"):
        rewind(v, 2, "both", force=True)
    assert all_bytes(projects) == before_projects


def test_rewind_both_marker_failing_after_files_says_files_were_rewound(
    real_home_with_projects, monkeypatch
):
    import sidtui.core.edits.rewind as rw

    home, projects = real_home_with_projects
    v = view_of(home, S01)
    src_before = v.file.path.read_bytes()
    truth = truth_at("s2", S01, projects)
    pre_rewind = disk_state(truth)

    def fail(*_a, **_k):
        raise rw.RewindError("could not append the rewind marker to X: No space left on device")

    monkeypatch.setattr(rw, "_append_marker", fail)
    with pytest.raises(rw.RewindError) as exc:
        rewind(v, 2, "both", force=True)
    msg = str(exc.value)
    res = exc.value.result
    assert res is not None and res.files_restored >= 2 and res.safety_snapshot
    assert "the files WERE rewound" in msg and "the conversation was NOT" in msg
    assert f"{res.files_restored} file(s)" in msg and "No space left on device" in msg
    assert f"`sidtui redo {S01}` takes the files back" in msg and res.safety_snapshot in msg
    assert any(p in msg for p in truth)  # the files are named
    assert v.file.path.read_bytes() == src_before
    assert disk_state(truth) == truth
    # and redo does take them back
    CheckpointManager.for_session(Home(home), S01, project_root=projects / "webapp").redo()
    assert disk_state(truth) == pre_rewind


def test_cli_rewind_marker_failure_exit_1_says_what_changed(
    real_home_with_projects, monkeypatch, capsys
):
    import sidtui.core.edits.rewind as rw
    from sidtui.cli import main

    home, _ = real_home_with_projects

    def fail(*_a, **_k):
        raise rw.RewindError("could not append the rewind marker to X: Read-only file system")

    monkeypatch.setattr(rw, "_append_marker", fail)
    code = main(["rewind", S01, "--home", str(home), "--to", "2", "--mode", "both", "--force"])
    err = capsys.readouterr().err
    assert code == 1
    # the follow-up runs as printed: with this run's --home
    assert "the files WERE rewound" in err and f"`sidtui --home {home} redo {S01}`" in err


@pytest.mark.parametrize("force", [False, True])
def test_cli_rewind_refuses_a_half_written_last_record(
    real_home_with_projects, monkeypatch, capsys, force
):
    # A live appender writing one record in two write() calls, caught between them.
    import sidtui.core.edits.marker as marker
    from sidtui.cli import main

    monkeypatch.setattr(
        marker, "DEFAULT_TAIL_POLICY", marker.TailPolicy(attempts=3, wait=lambda _s: None)
    )
    home, projects = real_home_with_projects
    path = view_of(home, S01).file.path
    with open(path, "ab") as fh:
        fh.write(b'{"type":"user_message","message":{"role":"user","content":[{"type":"te')
    before, before_projects = path.read_bytes(), all_bytes(projects)
    args = ["rewind", S01, "--home", str(home), "--to", "2", "--mode", "both"]
    code = main(args + (["--force"] if force else []))
    err = capsys.readouterr().err
    assert code == 1
    assert len(err.strip().splitlines()) == 1 and "incomplete record" in err
    assert path.read_bytes() == before and all_bytes(projects) == before_projects
    with open(path, "ab") as fh:  # the writer's second write(): its record is whole
        fh.write(b'xt","text":"hi"}]}}\n')
    assert view_of(home, S01).loaded.messages  # still loadable

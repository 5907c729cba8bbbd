"""Code rewind of a Claude Code session from outside: plan, skips, drift, live, root, safety
snapshot and redo."""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson
import pytest

from sidtui.core.claude.code_restore import (
    CodeRestoreError,
    CodeRestorer,
    SessionIsLive,
    journal_path,
    session_root,
)
from sidtui.core.claude.layout import ClaudeHome, resolve_session
from sidtui.core.claude.liveness import proc_start_ticks
from sidtui.core.claude.session import open_claude_session
from sidtui.core.views.rewind_text import unified_diff
from tests.helpers import CC_SESSION, cc_edit_session


@pytest.fixture
def sess(tmp_path):
    home = tmp_path / "claude"
    s = cc_edit_session(home, tmp_path / "work" / "app")
    s["home"] = ClaudeHome(home)
    return s


def _restorer(s, **kw):
    h = s["home"]
    view = open_claude_session(h, resolve_session(h, CC_SESSION))
    return CodeRestorer(view, **kw)


def _disk(s):
    return {k: s[k].read_bytes() if s[k].exists() else None for k in ("a", "b", "new")}


AFTER = {"a": b"A3\n", "b": b"B1\n", "new": b"N\n"}


def test_dry_run_plans_and_diffs_and_writes_nothing(sess):
    r = _restorer(sess)
    assert r.root == Path(sess["cwd"]) and r.root_refusal is None
    res = r.restore_before("c2", dry_run=True)
    acts = {Path(f.path).name: (f.action, f.source_snapshot) for f in res.files}
    assert acts == {
        "a.txt": ("restored", "c2"),
        "new.txt": ("deleted", "c2"),
        "b.txt": ("restored", "c2"),  # back-filled by the delta
    }
    diff = unified_diff(next(f for f in res.files if f.path.endswith("a.txt")))
    assert "-A3\n+A1\n" in diff
    assert _disk(sess) == AFTER and not journal_path(sess["home"], CC_SESSION).exists()
    assert res.to_json()["root"] == sess["cwd"] and res.reverts == ["u2", "u3"]


def test_restore_then_redo_then_undo_steps(sess):
    res = _restorer(sess).restore_before("c2")
    assert _disk(sess) == {"a": b"A1\n", "b": b"B0\n", "new": None}
    assert res.safety_snapshot_id == "s1"
    jp = journal_path(sess["home"], CC_SESSION)
    # the journal is sidtui's own folder: never under projects/ or file-history/
    assert jp == sess["home"].root / "sidtui" / "restores" / CC_SESSION / "index.json"
    snap = orjson.loads(jp.read_bytes())["snapshots"][0]
    assert snap["toolName"] == "sidtui-restore" and snap["sidtuiReverts"] == ["u2", "u3"]
    assert {e["filePath"]: e["existedBefore"] for e in snap["files"]} == {
        str(sess["a"]): True,
        str(sess["new"]): True,
        str(sess["b"]): True,
    }
    red = _restorer(sess).redo()
    assert red.op == "redo" and _disk(sess) == AFTER
    # undo: before the latest prompt, then one further back
    u1 = _restorer(sess).undo()
    assert (u1.target_snapshot_id, _disk(sess)) == (
        "c3",
        {"a": b"A2\n", "b": b"B1\n", "new": b"N\n"},
    )
    u2 = _restorer(sess).undo()
    assert (u2.target_snapshot_id, _disk(sess)) == ("c2", {"a": b"A1\n", "b": b"B0\n", "new": None})
    u3 = _restorer(sess).undo()
    assert (u3.target_snapshot_id, _disk(sess)) == ("c1", {"a": b"A0\n", "b": b"B0\n", "new": None})
    assert "nothing to undo" in (_restorer(sess).undo().note or "")
    _restorer(sess).redo()
    assert _disk(sess) == {"a": b"A1\n", "b": b"B0\n", "new": None}


def test_undo_one_file(sess):
    r = _restorer(sess)
    res = r.undo(path=str(sess["a"]))
    assert res.op == "undo-file" and [Path(f.path).name for f in res.files] == ["a.txt"]
    assert _disk(sess) == {"a": b"A2\n", "b": b"B1\n", "new": b"N\n"}


def test_equal_bytes_are_not_written(sess):
    before = os.stat(sess["b"]).st_mtime_ns
    res = _restorer(sess).restore_before("c3")
    acts = {Path(f.path).name: f.action for f in res.files}
    assert acts == {"a.txt": "restored", "new.txt": "unchanged", "b.txt": "unchanged"}
    assert os.stat(sess["b"]).st_mtime_ns == before


def test_symlink_and_hard_link_are_skipped_and_said(sess, tmp_path):
    outside = tmp_path / "elsewhere.txt"
    outside.write_bytes(b"keep\n")
    sess["b"].unlink()
    os.symlink(outside, sess["b"])
    os.link(sess["a"], tmp_path / "second-name")
    res = _restorer(sess).restore_before("c2")
    why = {Path(f.path).name: (f.action, f.reason or "") for f in res.files}
    assert why["b.txt"][0] == "skipped" and "symbolic link" in why["b.txt"][1]
    assert why["a.txt"][0] == "skipped" and "hard links" in why["a.txt"][1]
    assert why["new.txt"][0] == "deleted"
    assert outside.read_bytes() == b"keep\n" and sess["a"].read_bytes() == b"A3\n"


def test_pruned_blob_is_skipped_as_unrecoverable(sess):
    (sess["home"].file_history(CC_SESSION) / sess["blobs"]["a2"]).unlink()
    res = _restorer(sess).restore_before("c2")
    a = next(f for f in res.files if f.path.endswith("a.txt"))
    assert a.action == "skipped" and a.reason.startswith("unrecoverable:")
    assert sess["a"].read_bytes() == b"A3\n" and sess["b"].read_bytes() == b"B0\n"


def test_drift_is_listed_and_needs_force(sess):
    sess["b"].write_bytes(b"B1 and a hand edit\n")  # mtime now: after the session
    r = _restorer(sess)
    dry = r.restore_before("c2", dry_run=True)
    b = next(f for f in dry.files if f.path.endswith("b.txt"))
    assert b.drift is not None and b.drift.status == "changed" and b.to_json()["drift"] == "changed"
    assert dry.refusal is not None and "b.txt" in dry.refusal  # named once: by the refusal
    assert not any("changed after this session" in w for w in dry.warnings)
    with pytest.raises(CodeRestoreError, match="changed after this session"):
        r.restore_before("c2")
    assert sess["b"].read_bytes() == b"B1 and a hand edit\n" and sess["a"].read_bytes() == b"A3\n"
    _restorer(sess).restore_before("c2", force=True)
    assert sess["b"].read_bytes() == b"B0\n"
    _restorer(sess).redo()  # the hand edit is in the safety snapshot
    assert sess["b"].read_bytes() == b"B1 and a hand edit\n"


def test_our_own_restore_is_not_drift(sess):
    _restorer(sess).restore_before("c3")  # writes a.txt now
    res = _restorer(sess).restore_before("c2")
    assert not res.drifted and _disk(sess) == {"a": b"A1\n", "b": b"B0\n", "new": None}


def test_live_session_is_refused_unless_forced(sess):
    reg = sess["home"].sessions_dir / f"{os.getpid()}.json"
    reg.parent.mkdir(parents=True)
    reg.write_bytes(
        orjson.dumps(
            {
                "pid": os.getpid(),
                "sessionId": CC_SESSION,
                "cwd": sess["cwd"],
                "startedAt": int(time.time() * 1000),
                "procStart": proc_start_ticks(os.getpid()),
            }
        )
    )
    r = _restorer(sess)
    assert r.view.liveness.live
    with pytest.raises(SessionIsLive, match="is live"):
        r.restore_before("c2")
    assert _disk(sess) == AFTER
    dry = r.restore_before("c2", dry_run=True)  # predicts the real run: the same refusal
    assert dry.refusal is not None and "is live" in dry.refusal and "--force" in dry.refusal
    assert r.restore_before("c2", dry_run=True, force=True).refusal is None
    r.restore_before("c2", force=True)
    assert sess["a"].read_bytes() == b"A1\n"


@pytest.mark.parametrize("cwd", ["relative/dir", ".", None])
def test_no_or_relative_cwd_refuses_the_root(cwd):
    pr = session_root(cwd)
    assert pr.path is None and pr.refusal


def test_the_root_is_sid_codes_rule(tmp_path):
    # tmp_path is inside HOME (tests/conftest.py): the cwd is the root
    (tmp_path / "p").mkdir()
    assert session_root(str(tmp_path / "p")).path == (tmp_path / "p").resolve()
    assert session_root(str(tmp_path / "p")).refusal is None
    assert "whole file system" in (session_root("/").refusal or "")
    (tmp_path / ".git").mkdir()  # in a git work tree: its top level
    assert session_root(str(tmp_path / "p")).path == tmp_path.resolve()
    assert session_root(None, root=tmp_path / "p").source == "--root"


def test_refused_root_writes_nothing_and_the_dry_run_says_why(sess, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "someone-else"))
    r = _restorer(sess)
    dry = r.restore_before("c2", dry_run=True)
    assert all(f.action == "skipped" and "refused" in f.reason for f in dry.files)
    with pytest.raises(CodeRestoreError, match="--allow-outside-root") as exc:
        r.restore_before("c2")
    assert dry.refusal == str(exc.value)  # the dry run says what the real run says
    assert _disk(sess) == AFTER
    _restorer(sess, allow_outside_root=True).restore_before("c2")
    assert sess["a"].read_bytes() == b"A1\n"


def test_a_file_outside_the_root_is_refused_unless_allowed(sess, tmp_path):
    from tests.helpers import cc_backup, cc_lines, cc_snapshot

    plan = tmp_path / ".claude-plans" / "p.md"
    plan.parent.mkdir(parents=True)
    plan.write_bytes(b"plan\n")
    os.utime(plan, (0, 0))
    path = sess["path"]
    path.write_bytes(
        path.read_bytes()
        + cc_lines(cc_snapshot("u3", {str(plan): cc_backup(None, 1)}, 30, update=True))
    )
    res = _restorer(sess).restore_before("c3")
    p = next(f for f in res.files if f.path == str(plan))
    assert p.action == "skipped" and "outside the project root" in p.reason and plan.exists()
    _restorer(sess, allow_outside_root=True).restore_before("c3")
    assert not plan.exists()


def test_safety_snapshot_failure_changes_nothing(sess, monkeypatch):
    def boom(*a, **kw):
        raise OSError(28, "No space left on device")

    r = _restorer(sess)
    monkeypatch.setattr(r.journal, "create_snapshot", boom)
    with pytest.raises(CodeRestoreError, match="no file was changed"):
        r.restore_before("c2")
    assert _disk(sess) == AFTER


def test_a_failed_write_is_reported_and_the_rest_goes_on(sess, monkeypatch):
    from sidtui.core.base import safefs

    real = safefs.replace_at

    def flaky(dir_fd, name, data, mode=None, **kw):
        if name == "a.txt":
            raise OSError(5, "Input/output error")
        return real(dir_fd, name, data, mode, **kw)

    monkeypatch.setattr(safefs, "replace_at", flaky)
    res = _restorer(sess).restore_before("c2")
    a = next(f for f in res.files if f.path.endswith("a.txt"))
    assert a.action == "skipped" and "write failed" in a.reason
    assert sess["b"].read_bytes() == b"B0\n" and res.safety_snapshot_id is not None


def test_a_folder_swapped_between_the_check_and_the_read_is_not_followed(sess, tmp_path):
    from sidtui.core.checkpoints import restore as plan  # the plan's confine + read

    project = Path(sess["cwd"])
    outside = tmp_path / "outside"
    outside.mkdir()
    for n in ("a.txt", "b.txt", "new.txt"):
        (outside / n).write_bytes(b"outside\n")
    moved = project.with_name("app.real")
    real_confine = plan.confine
    swaps = []

    def confine(path, *a, **kw):  # the project is a symlink to outside/ from just after
        if project.is_symlink():  # a.txt's check until the next check
            project.unlink()
            os.rename(moved, project)
        out = real_confine(path, *a, **kw)
        if path.endswith("a.txt") and not swaps:
            swaps.append(path)
            os.rename(project, moved)
            project.symlink_to(outside, target_is_directory=True)
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(plan, "confine", confine)
        res = _restorer(sess).restore_before("c2", force=True)
    assert swaps and not project.is_symlink()
    a = next(f for f in res.files if f.path.endswith("a.txt"))
    assert a.action == "skipped" and "not followed" in (a.reason or "") and a.old is None
    _restorer(sess).redo(force=True)  # never copies outside bytes into the project
    assert _disk(sess) == AFTER
    jp = journal_path(sess["home"], CC_SESSION)
    assert b"outside" not in jp.read_bytes()


def test_a_backup_above_the_ceiling_or_not_a_file_is_unrecoverable_not_read(sess, monkeypatch):
    blobs = sess["home"].root / "file-history" / CC_SESSION
    plan = _restorer(sess).restore_before("c2", dry_run=True)
    blob = blobs / next(f.backup for f in plan.files if f.path.endswith("a.txt"))
    blob.write_bytes(b"x" * 100)
    monkeypatch.setenv("SIDTUI_MAX_INFLATE_BYTES", "50")
    res = _restorer(sess).restore_before("c2", dry_run=True)
    a = next(f for f in res.files if f.path.endswith("a.txt"))
    assert a.action == "skipped" and "SIDTUI_MAX_INFLATE_BYTES" in (a.reason or ""), a
    monkeypatch.delenv("SIDTUI_MAX_INFLATE_BYTES")
    blob.unlink()
    os.mkfifo(blob)  # opening it to read would wait for a writer
    res = _restorer(sess).restore_before("c2", dry_run=True)
    a = next(f for f in res.files if f.path.endswith("a.txt"))
    assert a.action == "skipped" and "unrecoverable" in (a.reason or ""), a  # no wait


def test_a_journal_sidtui_did_not_write_refuses_every_entry_point(sess):
    """The core refuses, not only the CLI's finish-first step: ``restore_to`` (rewind's
    code step), ``undo``, ``redo`` and ``finish_interrupted``, dry run or not."""
    r = _restorer(sess)
    journal = journal_path(sess["home"], CC_SESSION).parent / "sidtui-journal.json"
    journal.parent.mkdir(parents=True)
    journal.write_bytes(b'{"op": "undo"}')  # JSON, but no version: not sidtui's
    calls = (
        lambda d: r.restore_before("c2", dry_run=d, force=True),
        lambda d: r.restore_to(0, dry_run=d, force=True, op="rewind"),
        lambda d: r.undo(dry_run=d, force=True),
        lambda d: r.redo(dry_run=d, force=True),
        lambda d: r.finish_interrupted(dry_run=d),
    )
    for call in calls:
        for dry in (True, False):
            with pytest.raises(CodeRestoreError, match="is not a journal sidtui wrote; left"):
                call(dry)
    assert journal.read_bytes() == b'{"op": "undo"}' and _disk(sess) == AFTER
    assert not journal_path(sess["home"], CC_SESSION).exists()  # no safety snapshot either

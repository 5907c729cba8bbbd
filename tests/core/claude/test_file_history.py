"""Claude Code checkpoints: snapshot records folded per prompt, deltas, keys, blobs, health."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sidtui.core.base.errors import UsageError
from sidtui.core.claude.file_history import path_hash, read_file_history, unrecoverable_backups
from sidtui.core.claude.layout import ClaudeHome, resolve_session
from sidtui.core.claude.session import open_claude_session
from tests.helpers import (
    CC_SESSION,
    CLAUDE_HOME,
    cc_assistant,
    cc_backup,
    cc_blob_name,
    cc_blobs,
    cc_delta,
    cc_edit_session,
    cc_home,
    cc_lines,
    cc_snapshot,
    cc_user,
)

FIXTURES = ClaudeHome(CLAUDE_HOME)


def _fixture(arg):
    return open_claude_session(FIXTURES, resolve_session(FIXTURES, arg))


def _built(tmp_path, *records, cwd="/w/app"):
    # records keep a cwd of their own; the helpers' default one becomes ``cwd``
    recs = [{**r, "cwd": cwd} if r.get("cwd") == "/tmp/cc" else r for r in records]
    home = cc_home(tmp_path / "h", {"-w-app": {f"{CC_SESSION}.jsonl": cc_lines(*recs)}})
    h = ClaudeHome(home)
    return h, open_claude_session(h, resolve_session(h, CC_SESSION))


# --------------------------------------------------------------------------- real files


def test_real_update_is_keyed_by_the_snapshot_message_id():
    # 491e126e: the update line's top-level messageId is the editing assistant record,
    # snapshot.messageId the prompt: both lines are one checkpoint
    fh = read_file_history(_fixture("491e126e"))
    assert [(c.id, c.message_id[:8], c.updates, c.lines) for c in fh.checkpoints] == [
        ("c1", "cc2c7130", 1, [1, 60]),
        ("c2", "091e0ff4", 0, [70]),
    ]
    (b1,) = fh.checkpoints[0].backups.values()
    assert (b1.key, b1.path, b1.name, b1.existed, b1.restorable) == (
        "plan.md",
        "/home/marco/projects/spotter/plan.md",
        None,
        False,
        True,  # a null backup needs no blob: the file did not exist, a rewind deletes it
    )
    (b2,) = fh.checkpoints[1].backups.values()
    assert b2.name == "b872f856d78f0425@v2" and b2.hash_matches is True
    assert path_hash("/home/marco/projects/spotter/plan.md") == "b872f856d78f0425"
    # the fixture has no file-history/ folder: the v2 blob is unrecoverable, never guessed
    assert not fh.folder_exists and not b2.present and "lost" in (b2.reason or "")
    assert [b.name for b in fh.unrecoverable()] == ["b872f856d78f0425@v2"]
    assert [ch.drawing for ch in fh.chains()] == ["absent → v2 ✗"]


def test_real_large_file_folds_27_lines_into_3_checkpoints():
    v = _fixture("fa812bfe")
    assert len(v.snapshots) == 27
    fh = read_file_history(v)
    assert [(c.updates, len(c.backups)) for c in fh.checkpoints] == [(0, 0), (9, 9), (15, 24)]
    assert fh.checkpoints[0].prompt is None  # its prompt is in another file
    # the reading side's snapshot records name the same prompts (one rule)
    assert [c.message_id for c in fh.checkpoints] == list(
        dict.fromkeys(s.message_id for s in v.snapshots)
    )
    assert unrecoverable_backups(v) == len(fh.unrecoverable()) == 23
    # the winning line is the last update for each prompt
    last = v.full_record(v.snapshots[-1].record)
    assert set(fh.checkpoints[2].backups) == {
        os.path.join(v.cwd, k) for k in last["snapshot"]["trackedFileBackups"]
    }


def test_real_absolute_keys_outside_cwd_stay_absolute():
    fh = read_file_history(_fixture("8463c716"))
    plan = [b for c in fh.checkpoints for b in c.backups.values() if b.key.startswith("/")]
    assert plan and {b.path for b in plan} == {
        "/home/USER/.claude/plans/drifting-tumbling-whisper.md"
    }


def test_sessions_without_file_history_have_no_checkpoints():
    fh = read_file_history(_fixture("07f2e15c"))
    assert fh.checkpoints == [] and fh.unrecoverable() == [] and fh.chains() == []


# --------------------------------------------------------------------------- built files


def test_last_line_wins_per_prompt(tmp_path):
    p = "/w/app/x.py"
    _, v = _built(
        tmp_path,
        cc_snapshot("u1", {"x.py": cc_backup(cc_blob_name(p, 1), 1)}),
        cc_user("u1", None, "go", 1),
        cc_assistant("a1", "u1", "ok", 2),
        cc_snapshot("u1", {"x.py": cc_backup(cc_blob_name(p, 2), 2)}, update=True, editor="a1"),
    )
    fh = read_file_history(v)
    (c,) = fh.checkpoints
    assert c.updates == 1 and c.backups[p].version == 2 and c.prompt is not None


def test_delta_adds_an_absent_path_and_never_overwrites(tmp_path):
    p, q = "/w/app/x.py", "/w/app/y.py"
    _, v = _built(
        tmp_path,
        cc_snapshot("u1", {"x.py": cc_backup(cc_blob_name(p, 1), 1)}),
        cc_user("u1", None, "go", 1),
        cc_delta("u1", "x.py", cc_backup(cc_blob_name(p, 9), 9)),  # present: ignored
        cc_delta("u1", "y.py", cc_backup(None, 1)),  # absent: added
        cc_delta("u7", "z.py", cc_backup(None, 1)),  # a prompt without a snapshot line
    )
    fh = read_file_history(v)
    c1, c2 = fh.checkpoints
    assert c1.deltas == 2 and c1.backups[p].version == 1 and not c1.backups[p].from_delta
    assert c1.backups[q].from_delta and not c1.backups[q].existed
    assert (c2.message_id, list(c2.backups)) == ("u7", ["/w/app/z.py"])


def test_relative_key_resolves_against_the_cwd_whose_hash_matches(tmp_path):
    # the session moved: the prompt ran in /w/app/sub, the first record in /w/app
    name = cc_blob_name("/w/app/sub/x.py", 1)
    _, v = _built(
        tmp_path,
        cc_user("u0", None, "start", 0),
        cc_snapshot("u1", {"x.py": cc_backup(name, 1)}),
        {**cc_user("u1", "u0", "go", 1), "cwd": "/w/app/sub"},
    )
    (b,) = read_file_history(v).checkpoints[0].backups.values()
    assert (b.path, b.hash_matches) == ("/w/app/sub/x.py", True)


def test_pruned_intermediate_blob_is_unrecoverable(tmp_path):
    p = "/w/app/x.py"
    names = [cc_blob_name(p, n) for n in (1, 2, 3)]
    h, v = _built(
        tmp_path,
        cc_snapshot("u1", {"x.py": cc_backup(names[0], 1)}),
        cc_user("u1", None, "one", 1),
        cc_snapshot("u2", {"x.py": cc_backup(names[1], 2)}),
        cc_user("u2", "u1", "two", 2),
        cc_snapshot("u3", {"x.py": cc_backup(names[2], 3)}),
        cc_user("u3", "u2", "three", 3),
    )
    cc_blobs(h.root, CC_SESSION, {names[0]: b"1", names[2]: b"3"})  # v2 pruned
    fh = read_file_history(open_claude_session(h, resolve_session(h, CC_SESSION)))
    (ch,) = fh.chains()
    assert ch.drawing == "v1 → v2 ✗ → v3" and not ch.healthy
    assert [b.name for b in fh.unrecoverable()] == [names[1]]
    assert fh.checkpoints[0].backups[p].read() == b"1"


def test_unsafe_backup_name_is_never_a_path(tmp_path):
    _, v = _built(
        tmp_path,
        cc_snapshot("u1", {"x.py": cc_backup("../../etc/passwd", 1)}),
        cc_user("u1", None, "go", 1),
    )
    (b,) = read_file_history(v).checkpoints[0].backups.values()
    assert b.blob is None and not b.restorable and "plain file name" in (b.reason or "")


def test_a_symlinked_blob_is_not_read(tmp_path):
    p = "/w/app/x.py"
    name = cc_blob_name(p, 1)
    h, v = _built(tmp_path, cc_snapshot("u1", {"x.py": cc_backup(name, 1)}), cc_user("u1", None))
    folder = h.root / "file-history" / CC_SESSION
    folder.mkdir(parents=True)
    (tmp_path / "secret").write_text("s")
    os.symlink(tmp_path / "secret", folder / name)
    (b,) = read_file_history(v).checkpoints[0].backups.values()
    assert not b.present
    with pytest.raises(OSError):
        b.read()


def test_state_before_walks_forward_first_wins(tmp_path):
    home = tmp_path / "h"
    s = cc_edit_session(home, tmp_path / "app")
    h = ClaudeHome(home)
    fh = read_file_history(open_claude_session(h, resolve_session(h, str(s["path"]))))
    assert [c.id for c in fh.checkpoints] == ["c1", "c2", "c3"]

    def state(k):
        return {
            Path(p).name: (b.name is not None and b.read(), c.id)
            for p, (b, c) in fh.state_before(k).items()
        }

    assert state(0) == {
        "a.txt": (b"A0\n", "c1"),
        "new.txt": (False, "c2"),
        "b.txt": (b"B0\n", "c2"),
    }
    assert state(1) == {
        "a.txt": (b"A1\n", "c2"),
        "new.txt": (False, "c2"),
        "b.txt": (b"B0\n", "c2"),
    }
    assert state(2) == {
        "a.txt": (b"A2\n", "c3"),
        "new.txt": (b"N\n", "c3"),
        "b.txt": (b"B1\n", "c3"),
    }
    assert fh.unrecoverable() == [] and all(ch.healthy for ch in fh.chains())


def test_get_by_id_number_and_message_id(tmp_path):
    home = tmp_path / "h"
    cc_edit_session(home, tmp_path / "app")
    h = ClaudeHome(home)
    fh = read_file_history(open_claude_session(h, resolve_session(h, CC_SESSION)))
    assert fh.get("c2").message_id == fh.get("2").message_id == fh.get("u2").message_id == "u2"
    with pytest.raises(UsageError, match="c1–c3"):
        fh.get("c9")
    with pytest.raises(UsageError, match="no checkpoint"):
        fh.get("zz")
    with pytest.raises(UsageError, match="matches 3"):
        fh.get("u")


def test_check_counts_unrecoverable_backups():
    from sidtui.core.sources.claude import ClaudeSource

    src = ClaudeSource(FIXTURES)
    assert src.supports("rewind") and src.supports("redo") and not src.supports("salvage")
    j = src.check(session=resolve_session(FIXTURES, "fa812bfe")).to_json()
    assert j["backups"] == {
        "checked": True,
        "checkpoints": 3,
        "backups": 23,
        "unrecoverable": 23,  # the vendored home has no file-history/ folder
        "null_backups": 10,  # distinct (path, version) pairs
        "sessions_with_unrecoverable": 1,
    }
    assert src.checkpoints(_fixture("fa812bfe")).unrecoverable()


def test_check_counts_a_pruned_blob(tmp_path):
    from sidtui.core.claude.check import run_claude_check
    from sidtui.core.claude.file_history import backup_counts

    home = tmp_path / "h"
    s = cc_edit_session(home, tmp_path / "app")
    (home / "file-history" / CC_SESSION / s["blobs"]["a2"]).unlink()
    h = ClaudeHome(home)
    j = run_claude_check(h, backups=backup_counts).to_json()
    assert (j["backups"]["backups"], j["backups"]["unrecoverable"]) == (6, 1)


@pytest.mark.parametrize(
    "kind, why",
    [
        ("fifo", "not a regular file (a FIFO)"),
        ("folder", "not a regular file (a folder)"),
        ("dev-zero", "not a regular file (a symbolic link to /dev/zero)"),
    ],
)
def test_a_blob_that_is_not_a_regular_file_is_said_so_not_pruned(tmp_path, kind, why):
    p = "/w/app/x.py"
    name = cc_blob_name(p, 1)
    h, _ = _built(
        tmp_path,
        cc_snapshot("u1", {"x.py": cc_backup(name, 1)}),
        cc_user("u1", None, "one", 1),
    )
    blob = h.root / "file-history" / CC_SESSION / name
    blob.parent.mkdir(parents=True)
    if kind == "fifo":
        os.mkfifo(blob)
    elif kind == "folder":
        blob.mkdir()
    else:
        blob.symlink_to("/dev/zero")
    fh = read_file_history(open_claude_session(h, resolve_session(h, CC_SESSION)))
    b = fh.checkpoints[0].backups[p]
    assert not b.present and [u.name for u in fh.unrecoverable()] == [name]
    assert b.reason is not None and why in b.reason and "pruned" not in b.reason

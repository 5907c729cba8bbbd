"""What a Claude Code session last left in a file, from its tool results, and the drift
check and interrupted-run journal of a code restore."""

from __future__ import annotations

import orjson
import pytest

from sidtui.core.claude import code_restore
from sidtui.core.claude.code_restore import CodeRestoreError, CodeRestorer
from sidtui.core.claude.drift import UNKNOWN, post_image
from sidtui.core.claude.layout import ClaudeHome, resolve_session
from sidtui.core.claude.session import open_claude_session
from tests.helpers import CC_PROJECTS, CC_SESSION, cc_edit_session, cc_lines, cc_results, set_mtime


def test_post_images_of_write_edit_and_multiedit():
    assert post_image({"filePath": "/a", "type": "create", "content": "x\n"}) == b"x\n"
    edit = {"filePath": "/a", "oldString": "b", "newString": "B", "originalFile": "abcb"}
    assert post_image(edit) == b"aBcb"
    assert post_image({**edit, "replaceAll": True}) == b"aBcB"
    assert post_image({**edit, "oldString": "zz"}) == UNKNOWN  # not in the original
    assert post_image({**edit, "originalFile": None}) == UNKNOWN
    assert post_image({**edit, "userModified": True}) == UNKNOWN
    multi = {
        "filePath": "/a",
        "originalFileContents": "one two",
        "edits": [
            {"old_string": "one", "new_string": "1"},
            {"old_string": "two", "new_string": "2"},
        ],
    }
    assert post_image(multi) == b"1 2"
    assert post_image({**multi, "edits": [{"old_string": "x", "new_string": "y"}]}) == UNKNOWN


def test_real_consecutive_edits_agree_with_the_post_image():
    """In the vendored transcripts, an edit's post-image is the next edit's original file
    97 times of 106; the 9 others differ by what ran in between (a formatter's quotes):
    why a content mismatch alone is not drift (docs/DECISIONS.md)."""
    agree = differ = 0
    for f in sorted(CC_PROJECTS.rglob("*.jsonl")):
        last: dict[str, bytes | str] = {}
        for line in f.read_bytes().splitlines():
            try:
                r = orjson.loads(line).get("toolUseResult")
            except (orjson.JSONDecodeError, AttributeError):
                continue
            if not isinstance(r, dict) or not isinstance(r.get("filePath"), str):
                continue
            orig = r.get("originalFile", r.get("originalFileContents"))
            prev = last.get(r["filePath"])
            if isinstance(prev, bytes) and isinstance(orig, str):
                if prev == orig.encode():
                    agree += 1
                else:
                    differ += 1
            last[r["filePath"]] = post_image(r)
    assert (agree, differ) == (97, 9)


@pytest.fixture
def sess(tmp_path):
    home = tmp_path / "claude"
    s = cc_edit_session(home, tmp_path / "work" / "app")
    s["home"] = ClaudeHome(home)
    return s


def _restorer(s):
    h = s["home"]
    return CodeRestorer(open_claude_session(h, resolve_session(h, CC_SESSION)))


def test_a_file_touched_later_but_as_the_session_left_it_is_not_drift(sess):
    set_mtime(sess["b"], 3600)  # modified an hour after the session, same bytes
    with pytest.raises(CodeRestoreError, match="changed after this session"):
        _restorer(sess).restore_before("c2")  # its tool results prove nothing yet
    write = {"filePath": str(sess["b"]), "type": "update", "content": "B1\n"}
    kw = {"cwd": sess["cwd"], "sessionId": CC_SESSION}
    with open(sess["path"], "ab") as fh:
        fh.write(cc_lines(cc_results("r9", "a4b", "t9", ts=41, toolUseResult=write, **kw)))
    plan = {f.path: f.drift for f in _restorer(sess).plan(1)}
    b = plan[str(sess["b"])]
    assert b is not None and b.status == "same" and "tool result" in b.source
    _restorer(sess).restore_before("c2")
    assert sess["b"].read_bytes() == b"B0\n"


def test_a_killed_restore_is_finished_by_the_next_run(sess, monkeypatch):
    def killed(todo):
        raise KeyboardInterrupt  # the process dies after its journal and safety snapshot

    real = code_restore.write_files
    monkeypatch.setattr(code_restore, "write_files", killed)
    with pytest.raises(KeyboardInterrupt):
        _restorer(sess).restore_before("c2")
    monkeypatch.setattr(code_restore, "write_files", real)
    r = _restorer(sess)
    assert r.pending_journal() is not None and sess["a"].read_bytes() == b"A3\n"
    with pytest.raises(CodeRestoreError, match="interrupted"):
        r.restore_before("c3")
    done = r.finish_interrupted()
    assert done is not None and done.safety_snapshot_id is not None, done
    assert sess["a"].read_bytes() == b"A1\n" and not sess["new"].exists()
    assert r.pending_journal() is None and r.finish_interrupted() is None
    r2 = _restorer(sess)
    r2.redo()  # the finished restore is taken back like any other
    assert sess["a"].read_bytes() == b"A3\n"


def test_a_run_killed_before_its_safety_snapshot_changed_nothing(sess, monkeypatch):
    def killed(*a, **kw):
        raise KeyboardInterrupt

    r = _restorer(sess)
    monkeypatch.setattr(r.journal, "create_snapshot", killed)
    with pytest.raises(KeyboardInterrupt):
        r.restore_before("c2")
    r = _restorer(sess)
    done = r.finish_interrupted()
    assert done is not None and done.safety_snapshot_id is None and done.note is None
    assert "had changed nothing" in done.warnings[0]
    assert r.pending_journal() is None and sess["a"].read_bytes() == b"A3\n"


def test_a_killed_redo_is_finished_by_the_next_run(sess, monkeypatch):
    from sidtui.core.checkpoints import manager

    _restorer(sess).restore_before("c2")
    assert sess["a"].read_bytes() == b"A1\n"
    real = manager.write_files

    def killed(todo):
        raise KeyboardInterrupt

    monkeypatch.setattr(manager, "write_files", killed)
    with pytest.raises(KeyboardInterrupt):
        _restorer(sess).redo()
    monkeypatch.setattr(manager, "write_files", real)
    r = _restorer(sess)
    assert r.pending_journal() is not None and sess["a"].read_bytes() == b"A1\n"
    done = r.finish_interrupted()
    assert done is not None and "interrupted sidtui redo" in done.warnings[0]
    assert sess["a"].read_bytes() == b"A3\n" and r.pending_journal() is None

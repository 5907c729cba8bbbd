"""Rewind a Claude Code session from outside: points, code, conversation (a new session),
both, and what a refused or failed step leaves."""

from __future__ import annotations

import os

import pytest

from sidtui.core.base.errors import UsageError
from sidtui.core.claude.code_restore import CodeRestoreError, CodeRestorer
from sidtui.core.claude.layout import ClaudeHome, file_for_path, resolve_session
from sidtui.core.claude.rewind import ClaudeRewindError, rewind, rewind_points
from sidtui.core.claude.session import open_claude_session
from tests.helpers import CC_SESSION, cc_edit_session


@pytest.fixture
def sess(tmp_path):
    home = tmp_path / "claude"
    s = cc_edit_session(home, tmp_path / "work" / "app")
    s["home"] = ClaudeHome(home)
    return s


def _view(s):
    return open_claude_session(s["home"], resolve_session(s["home"], CC_SESSION))


def _disk(s):
    return {k: s[k].read_bytes() if s[k].exists() else None for k in ("a", "b", "new")}


def _sessions(s):
    return sorted(p.name for p in s["path"].parent.glob("*.jsonl"))


def test_points_map_to_each_prompts_checkpoint(sess):
    pts = rewind_points(_view(sess))
    assert [(p.id, p.preview, p.checkpoint, p.exact) for p in pts] == [
        (1, "edit a", "c1", True),
        (2, "edit all", "c2", True),
        (3, "edit a again", "c3", True),
    ]
    assert pts[1].to_json()["restore_from"] == "c2" and pts[1].message_index == 4


def test_a_prompt_without_its_own_checkpoint_uses_the_next(sess):
    path = sess["path"]
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(x for x in lines if not (b"file-history" in x and b'"u2"' in x)))
    pts = rewind_points(_view(sess))
    assert (pts[1].checkpoint, pts[1].exact) == ("c2", False)  # (now u3's)
    res = rewind(_view(sess), 2, "code", dry_run=True)
    assert any("no checkpoint of its own" in w for w in res.warnings)


def test_code_rewind_restores_files_and_writes_no_session(sess):
    before = sess["path"].read_bytes()
    res = rewind(_view(sess), 2, "code")
    assert _disk(sess) == {"a": b"A1\n", "b": b"B0\n", "new": None}
    assert res.files_restored == 3 and res.safety_snapshot and res.fork is None
    assert sess["path"].read_bytes() == before and _sessions(sess) == [f"{CC_SESSION}.jsonl"]
    assert res.to_json()["marker_uuid"] is None and res.root == sess["cwd"]
    CodeRestorer(_view(sess)).redo()
    assert sess["a"].read_bytes() == b"A3\n"


def test_conversation_rewind_writes_a_new_session(sess):
    before = sess["path"].read_bytes()
    res = rewind(_view(sess), 3, "conversation")
    assert res.fork is not None and res.messages_dropped == 4  # u3, a4, r4, a4b
    assert sess["path"].read_bytes() == before and _disk(sess)["a"] == b"A3\n"
    back = open_claude_session(sess["home"], file_for_path(res.fork.path))
    assert [m.preview() for m in back.messages if m.is_human_prompt] == ["edit a", "edit all"]
    assert back.scan.objs[back.tree.leaf].uuid == res.fork.leaf_uuid


def test_both_restores_files_and_forks(sess):
    res = rewind(_view(sess), 2, "both")
    assert _disk(sess) == {"a": b"A1\n", "b": b"B0\n", "new": None}
    back = open_claude_session(sess["home"], file_for_path(res.fork.path))
    assert [m.preview() for m in back.messages if m.is_human_prompt] == ["edit a"]


def test_dry_run_both_shows_diffs_and_drops_and_writes_nothing(sess):
    before = sorted(sess["home"].root.rglob("*"))
    res = rewind(_view(sess), 2, "both", dry_run=True)
    assert res.dry_run and res.fork.dry_run and res.messages_dropped == 10
    assert any("-A3\n+A1\n" in d for d in res.diffs)
    assert sorted(sess["home"].root.rglob("*")) == before and _disk(sess)["a"] == b"A3\n"


def test_point_one_has_no_conversation_before_it(sess):
    with pytest.raises(UsageError, match="first message"):
        rewind(_view(sess), 1, "both")
    rewind(_view(sess), 1, "code")
    assert _disk(sess) == {"a": b"A0\n", "b": b"B0\n", "new": None}


def test_refused_file_step_writes_no_fork_either(sess):
    sess["a"].write_bytes(b"A3 and a hand edit\n")
    with pytest.raises(CodeRestoreError, match="changed after this session"):
        rewind(_view(sess), 2, "both")
    assert _sessions(sess) == [f"{CC_SESSION}.jsonl"] and sess["b"].read_bytes() == b"B1\n"


def test_a_fork_failing_after_the_files_says_what_was_done(sess, monkeypatch):
    real_link = os.link

    def link(src, dst, *a, **kw):
        if str(dst).endswith(".jsonl"):
            raise OSError(28, "No space left on device")
        return real_link(src, dst, *a, **kw)

    monkeypatch.setattr(os, "link", link)
    with pytest.raises(ClaudeRewindError, match="WERE rewound.*sidtui redo"):
        rewind(_view(sess), 2, "both")
    assert sess["a"].read_bytes() == b"A1\n" and _sessions(sess) == [f"{CC_SESSION}.jsonl"]


def test_bad_points_and_modes(sess):
    with pytest.raises(UsageError, match="choose 1–3"):
        rewind(_view(sess), 9, "code")
    with pytest.raises(UsageError, match="unknown rewind mode"):
        rewind(_view(sess), 2, "sideways")

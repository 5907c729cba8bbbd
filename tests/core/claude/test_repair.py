"""``repair``: a new Claude Code session holding every complete record of the conversation,
one per line, each parent a record of the copy (bridged parents, salvaged lines, replies
hidden behind an API error put back, subagent files carried over); the source untouched."""

from __future__ import annotations

import os

import orjson
import pytest

from sidtui.core.base.errors import UsageError
from sidtui.core.claude.fork import ForkError
from sidtui.core.claude.layout import ClaudeHome, file_for_path, resolve_session
from sidtui.core.claude.repair import hidden_replies, repair_session
from sidtui.core.claude.session import open_claude_session
from tests.helpers import CC_SESSION, cc_assistant, cc_edit_session, cc_home, cc_lines, cc_user


def _open(tmp_path, data: bytes, extra: dict[str, bytes] | None = None):
    files = {f"{CC_SESSION}.jsonl": data, **(extra or {})}
    h = ClaudeHome(cc_home(tmp_path, {"-p": files}))
    return h, open_claude_session(h, resolve_session(h, CC_SESSION))


def _copy(res) -> list[dict]:
    return [orjson.loads(x) for x in res.fork.path.read_bytes().splitlines()]


def _texts(view) -> list[str]:
    return [m.preview() for m in view.messages]


def _api_error(uuid: str, parent: str, ts: float) -> dict:
    return cc_assistant(
        uuid, parent, "API Error: 500", ts, model="<synthetic>", isApiErrorMessage=True
    )


def test_a_reply_behind_an_api_error_sibling_is_put_back(tmp_path):
    recs = [
        cc_user("u1", None, "one", 1),
        cc_assistant("a1", "u1", "the reply", 2),
        _api_error("err", "u1", 3),
        cc_user("u2", "err", "two", 4),  # the next prompt hangs off the error
        cc_assistant("a2", "u2", "ok", 5),
    ]
    h, view = _open(tmp_path, cc_lines(*recs))
    assert "the reply" not in _texts(view)
    assert list(hidden_replies(view).items()) == [(2, 1)]
    before = view.file.path.read_bytes()
    res = repair_session(view)
    assert view.file.path.read_bytes() == before  # the source is never written
    back = open_claude_session(h, file_for_path(res.fork.path))
    assert _texts(back) == ["one", "the reply", "two", "ok"]
    # the error stays in the copy, a side leaf off the prompt it answered
    (t,) = back.tree.branches
    assert back.scan.objs[t.index].isApiErrorMessage is True
    assert [f["what"] for f in res.fixes] == ["reply"]


def test_an_api_error_nothing_follows_follows_the_reply(tmp_path):
    recs = [
        cc_user("u1", None, "one", 1),
        cc_assistant("a1", "u1", "the reply", 2),
        _api_error("err", "u1", 3),
    ]
    h, view = _open(tmp_path, cc_lines(*recs))
    res = repair_session(view)
    back = open_claude_session(h, file_for_path(res.fork.path))
    assert _texts(back) == ["one", "the reply", "API Error: 500"] and not back.tree.branches


def test_a_rewind_branch_is_no_hidden_reply(tmp_path):
    recs = [
        cc_user("u1", None, "one", 1),
        cc_assistant("a1", "u1", "ok", 2),
        cc_user("old", "a1", "first try", 3),
        cc_assistant("oa", "old", "first answer", 4),
        cc_user("new", "a1", "second try", 5),
        cc_assistant("na", "new", "second answer", 6),
    ]
    h, view = _open(tmp_path, cc_lines(*recs))
    assert hidden_replies(view) == {}
    res = repair_session(view)
    assert res.branches_left == 1 and any("branch" in w for w in res.fork.warnings)
    back = open_claude_session(h, file_for_path(res.fork.path))
    assert _texts(back) == _texts(view)


def test_torn_glued_and_missing_lines_become_whole_lines(tmp_path):
    a2 = cc_lines(cc_assistant("a2", "u2", "glued", 4)).rstrip(b"\n")
    torn = cc_lines(cc_assistant("gone", "a2", "torn away", 5)).rstrip(b"\n")
    data = (
        cc_lines(cc_user("u1", None, "one", 1), cc_assistant("a1", "u1", "ok", 2))
        + cc_lines(cc_user("u2", "a1", "two", 3)).rstrip(b"\n")
        + a2
        + b"\n"
        + torn[: len(torn) // 2]
        + cc_lines(cc_user("u3", "gone", "three", 6)).rstrip(b"\n")
        + b"\n"
        + cc_lines(cc_assistant("a3", "u3", "end", 7))
    )
    h, view = _open(tmp_path, data)
    assert view.scan.bad_lines
    res = repair_session(view)
    back = open_claude_session(h, file_for_path(res.fork.path))
    assert not back.scan.bad_lines and not back.tree.bridges
    assert _texts(back) == ["one", "ok", "two", "glued", "three", "end"] == _texts(view)
    whats = sorted({f["what"] for f in res.fixes})
    assert whats == ["bridged", "salvaged"]
    assert [b["line"] for b in res.lost] == []  # every damaged line held a whole record
    copy = _copy(res)
    assert all(d["sessionId"] == res.fork.session_id for d in copy)


def test_inline_sidechains_come_along(tmp_path):
    recs = [
        cc_user("u1", None, "main prompt", 1),
        cc_assistant("a1", "u1", None, 2, tools=(("t1", "Task"),)),
        cc_user("s1", None, "agent prompt", 3, isSidechain=True),
        cc_assistant("s2", "s1", "agent reply", 4, isSidechain=True),
        cc_assistant("a2", "a1", "done", 5),
    ]
    h, view = _open(tmp_path, cc_lines(*recs))
    res = repair_session(view)
    copy = _copy(res)
    assert sum(d.get("isSidechain") is True for d in copy) == 2
    back = open_claude_session(h, file_for_path(res.fork.path))
    assert _texts(back) == _texts(view)


def test_subagent_files_and_blobs_are_carried_over(tmp_path):
    home = tmp_path / "claude"
    cc_edit_session(home, tmp_path / "app")
    h = ClaudeHome(home)
    view = open_claude_session(h, resolve_session(h, CC_SESSION))
    sub = view.file.path.parent / CC_SESSION / "subagents"
    sub.mkdir(parents=True)
    agent = cc_lines(cc_user("x1", None, "agent", 1, isSidechain=True))
    (sub / "agent-a1.jsonl").write_bytes(agent)
    (sub / "agent-a1.meta.json").write_bytes(b'{"agentType":"general-purpose"}')
    os.symlink("/etc/passwd", sub / "agent-link.jsonl")  # never followed, never copied
    res = repair_session(view)
    new_sub = view.file.path.parent / res.fork.session_id / "subagents"
    assert sorted(p.name for p in new_sub.iterdir()) == ["agent-a1.jsonl", "agent-a1.meta.json"]
    assert (new_sub / "agent-a1.jsonl").read_bytes() == agent
    assert res.files_copied == 2
    assert res.fork.blobs_copied == len(os.listdir(h.file_history(CC_SESSION))) > 0


def test_dry_run_writes_nothing(tmp_path):
    home = tmp_path / "claude"
    cc_edit_session(home, tmp_path / "app")
    h = ClaudeHome(home)
    view = open_claude_session(h, resolve_session(h, CC_SESSION))
    before = sorted(home.rglob("*"))
    res = repair_session(view, dry_run=True)
    assert res.fork.dry_run and res.to_json()["session_id"] is None
    assert res.to_json()["kind"] == "repair"
    assert sorted(home.rglob("*")) == before


def test_a_failed_write_leaves_nothing(tmp_path, monkeypatch):
    home = tmp_path / "claude"
    cc_edit_session(home, tmp_path / "app")
    h = ClaudeHome(home)
    view = open_claude_session(h, resolve_session(h, CC_SESSION))
    sub = view.file.path.parent / CC_SESSION / "subagents"
    sub.mkdir(parents=True)
    (sub / "agent-a1.jsonl").write_bytes(b"{}\n")
    before = sorted(home.rglob("*"))
    real_link = os.link

    def link(src, dst, *a, **kw):
        if str(dst).endswith(".jsonl") and "subagents" not in str(dst):  # the transcript
            raise OSError(28, "No space left on device")
        return real_link(src, dst, *a, **kw)

    monkeypatch.setattr(os, "link", link)
    with pytest.raises(ForkError, match="nothing was written"):
        repair_session(view)
    assert sorted(home.rglob("*")) == before  # subagent copies and blobs taken back


def test_nothing_to_repair_is_a_usage_error(tmp_path):
    h, view = _open(tmp_path, cc_lines({"type": "summary", "summary": "s", "leafUuid": "x"}))
    with pytest.raises(UsageError, match="no conversation"):
        repair_session(view)


def test_a_live_session_is_repaired_as_read_and_said(tmp_path):
    from sidtui.core.resume.process import Liveness

    h, view = _open(
        tmp_path, cc_lines(cc_user("u1", None, "one", 1), cc_assistant("a1", "u1", "ok", 2))
    )
    view.liveness = Liveness(live=True)
    res = repair_session(view, dry_run=True)
    assert any("the session is live" in w for w in res.fork.warnings)


def test_a_parent_on_a_nul_line_is_named_by_its_line_not_as_never_written(tmp_path):
    zeroed = cc_lines(cc_assistant("a2", "u2", "lost reply", 4))
    data = (
        cc_lines(cc_user("u1", None, "one", 1), cc_assistant("a1", "u1", "ok", 2))
        + cc_lines(cc_user("u2", "a1", "two", 3))
        + b"\0" * (len(zeroed) - 1)
        + b"\n"
        + cc_lines(cc_user("u3", "a2", "three", 5), cc_assistant("a3", "u3", "end", 6))
    )
    h, view = _open(tmp_path, data)
    res = repair_session(view, dry_run=True)
    bridged = [f for f in res.fixes if f["what"] == "bridged"]
    assert [f["line"] for f in bridged] == [5]
    assert "a2 is on damaged line 4; it follows line 3" in bridged[0]["detail"]
    assert "never written" not in bridged[0]["detail"]


def test_a_parent_with_no_damaged_line_before_it_was_never_written(tmp_path):
    data = cc_lines(
        cc_user("u1", None, "one", 1),
        cc_assistant("a1", "u1", "ok", 2),
        cc_user("u3", "gone", "three", 5),
        cc_assistant("a3", "u3", "end", 6),
    )
    h, view = _open(tmp_path, data)
    res = repair_session(view, dry_run=True)
    bridged = [f for f in res.fixes if f["what"] == "bridged"]
    assert [f["detail"] for f in bridged] == [
        "its parent gone was never written; it follows line 2"
    ]

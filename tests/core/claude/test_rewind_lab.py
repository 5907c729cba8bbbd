"""Conversation rewind against Claude Code's own (vendored answers under
``tests/fixtures/claude-code-rewind/``): the session ``sidtui rewind --to k --mode
conversation`` writes, resumed by the real Claude Code 2.1.332, sends what Claude Code's own
rewind of the source (``--resume-session-at`` prompt k's parent) sends — but for the turn
Claude Code adds on a resume that ends on a user record, and the points before a compaction
its own rewind cannot reach; sidtui says both in the fork's warnings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sidtui.core.claude.fork import branch_tips, prepare_fork
from sidtui.core.claude.layout import ClaudeFile, ClaudeHome, resolve_session
from sidtui.core.claude.listing import list_sessions
from sidtui.core.claude.rewind import rewind, rewind_points
from sidtui.core.claude.session import open_claude_session
from sidtui.core.claude.transcript import load_transcript
from tests.helpers import FIXTURES, cc_home, lab_items, lab_sendable, missing_in_order

CASES = sorted((FIXTURES / "claude-code-rewind").glob("*.json"))
ADDED = ("text", "No response requested.")


def _points():
    for case in CASES:
        c = json.loads(case.read_text())
        for p in c["points"]:
            yield pytest.param(case, c, p, id=f"{case.stem}-{p['k']}")


@pytest.mark.parametrize(("case", "c", "p"), list(_points()))
def test_the_fork_resumes_as_claude_codes_own_rewind(case: Path, c: dict, p: dict, tmp_path):
    data = (case.parent / c["input"]).read_bytes()
    sid = Path(c["input"]).stem
    h = ClaudeHome(cc_home(tmp_path, {"-p": {f"{sid}.jsonl": data}}))
    view = open_claude_session(h, resolve_session(h, sid))
    pt = next(m for m in view.messages if m.uuid == p["prompt_uuid"])
    prepared = prepare_fork(view, before=pt.index)
    res = prepared.result
    back = load_transcript(ClaudeFile(res.path, res.session_id, "-p"), prepared.data)
    own, fork = p["claude_code_rewind"], p["fork_resumed"]
    assert fork["ok"]  # the fork always loads
    held = sum(b.text == ADDED[1] for m in back.messages for b in m.blocks)  # written on disk
    added = lab_items(fork).count(ADDED) > held
    ends_on_user = view.messages[pt.index - 1].role == "user"
    assert any("No response requested" in w for w in res.warnings) == ends_on_user
    assert ends_on_user or not added  # said whenever Claude Code adds it (not after /compact)
    code = rewind(view, p["k"], "code", dry_run=True).warnings  # (no blob vendored: skipped)
    if not own["ok"]:  # Claude Code cannot rewind there: said, and the fork is kept
        assert "No message found" in own["error"] and pt.compacted
        assert any("cannot go back this far" in w for w in res.warnings)
        # nor its code rewind ("No file checkpoint found for this message.", lab rewind-files)
        assert any("cannot restore files to before this prompt" in w for w in code)
        return
    assert not any("cannot restore files" in w for w in code)
    assert not any("cannot go back this far" in w for w in res.warnings)
    # the same turns, in order, but for Claude Code's own added one
    assert [x for x in lab_items(fork) if x != ADDED] == [x for x in lab_items(own) if x != ADDED]
    assert missing_in_order(lab_sendable(back), lab_items(own)) == []


def test_an_older_branch_written_last_is_the_conversation_everywhere(tmp_path):
    # Claude Code resumes the leaf written last, not the latest in time (the case's
    # "resume": the lab's answer): the tree, its tips, ls, the rewind points and a fork of
    # the whole conversation follow that branch, not the newer turns written before it
    case = FIXTURES / "claude-code-rewind" / "rewind-lab-branch-appended.json"
    c = json.loads(case.read_text())
    data = (case.parent / c["input"]).read_bytes()
    sid = Path(c["input"]).stem
    h = ClaudeHome(cc_home(tmp_path, {"-p": {f"{sid}.jsonl": data}}))
    view = open_claude_session(h, resolve_session(h, sid))
    objs = view.scan.objs
    assert view.resume is not None and view.resume.chain[-1] == view.tree.leaf
    last = objs[view.tree.leaf]
    latest = max((t for t in view.tree.tips), key=lambda t: t.timestamp or "")
    assert last.uuid == view.resume_leaf and last.uuid != objs[latest.index].uuid
    rows = {r["uuid"]: r for r in view.tip_rows}
    assert rows[last.uuid]["resume"] and rows[last.uuid]["live"]
    assert not rows[objs[latest.index].uuid]["resume"]
    assert rows[objs[latest.index].uuid]["kind"] == "branch"
    assert [t["uuid"] for t in branch_tips(view) if t["live"]] == [last.uuid]
    # what the app and `show` draw is what Claude Code sends
    assert missing_in_order(lab_sendable(view), lab_items(c["resume"])) == []
    prompts = [m.uuid for m in view.prompts]
    assert [p.uuid for p in rewind_points(view)] == prompts
    assert prompts[1:] == [p["prompt_uuid"] for p in c["points"]]
    assert "now remove the README" not in {b.text for m in view.prompts for b in m.blocks}
    # ls: the session ends on the branch's finished reply, not on the interrupted newer turn
    (row,), _ = list_sessions(h)
    assert row.interruption == "none" and view.interruption.kind == "none"
    # the fork of the conversation resume loads resumes as the original does (lab)
    prepared = prepare_fork(view)
    back = load_transcript(
        ClaudeFile(prepared.result.path, prepared.result.session_id, "-p"), prepared.data
    )
    assert lab_items(c["whole_fork_resumed"]) == lab_items(c["resume"])
    assert lab_sendable(back) == lab_sendable(view)
    assert back.tree.tips and all(t.kind != "branch" for t in back.tree.tips)

"""The Claude Code session view and its ``show --json`` contract; titles; kept records."""

from __future__ import annotations

import orjson

from sidtui.core.claude.layout import ClaudeFile, ClaudeHome, resolve_session
from sidtui.core.claude.session import open_claude_session
from tests.helpers import (
    CC_SESSION,
    CLAUDE_HOME,
    cc_assistant,
    cc_home,
    cc_lines,
    cc_user,
)

HOME = ClaudeHome(CLAUDE_HOME)


def _view(arg):
    return open_claude_session(HOME, resolve_session(HOME, arg))


def _built(tmp_path, *records, data=None):
    home = cc_home(
        tmp_path, {"-p": {f"{CC_SESSION}.jsonl": data if data is not None else cc_lines(*records)}}
    )
    h = ClaudeHome(home)
    return open_claude_session(h, resolve_session(h, CC_SESSION))


def test_the_json_contract():
    v = _view("55604662")
    j = orjson.loads(orjson.dumps(v.to_json()))  # plain JSON all the way down
    assert j["format"] == j["source"] == "claude-code"
    assert j["session_id"] == "55604662-cf2a-4331-851a-ec234028f8ca" == v.file.path.stem
    assert [set(m) >= {"uuid", "line", "role", "blocks"} for m in j["messages"]] == [True] * 5
    assert j["messages"][0] == {
        "uuid": "7d48cbd2-6615-4dd8-87f6-38f12b8167d6",
        "line": 4,
        "role": "user",
        "blocks": ["text"],
        "kind": "prompt",
        "uuids": ["7d48cbd2-6615-4dd8-87f6-38f12b8167d6"],
        "lines": [4],
        "compacted": False,
        "sidechain": False,
        "sent": True,  # on --resume, Claude Code sends it (resume prediction, §11)
    }
    assert j["resume"]["agent_version"] == "2.1.332" and j["resume"]["error"] is None
    assert j["leaf"] == v.scan.objs[v.tree.leaf].uuid and j["leaf_line"] == 13
    assert [(t["line"], t["kind"], t["resume"]) for t in j["tips"]] == [
        (11, "parallel", False),
        (13, "resume", True),
    ]
    assert j["interruption"] == {
        "kind": "interrupted_turn",
        "tool_names": ["Bash", "Glob"],
        "marker_line": 13,
        "pending": [],
    }
    assert j["bad_lines"] == [] and isinstance(j["warnings"], list)
    assert j["chain"]["lines"] == [2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13]
    assert j["chain"]["after_leaf_lines"] == [14, 15]
    assert [r["type"] for r in j["records"][:2]] == ["file-history-snapshot", "progress"]
    assert len(j["records"]) == 15 and j["records"][0]["on_chain"] is False
    assert j["branches"]["heads"][0]["line"] == 2 and j["branches"]["skipped_records"] == 0
    assert j["record_types"] == {
        "assistant": 5,
        "file-history-snapshot": 1,
        "progress": 3,
        "system": 2,
        "user": 4,
    }
    # the snapshot line before the prompt names the prompt's uuid (for checkpoints)
    assert j["file_history"]["snapshots"] == [
        {"line": 1, "message_id": j["messages"][0]["uuid"], "update": False, "delta": False}
    ]


def test_a_zero_byte_session_is_a_session_with_no_messages():
    v = _view("62b71fe7")
    j = v.to_json()
    assert j["empty"] and j["messages"] == [] and j["warnings"] == [] and j["leaf"] is None
    assert j["interruption"]["kind"] == "none" and j["tips"] == []


def test_head_summaries_of_other_sessions_do_not_title_this_one():
    v = _view("07f2e15c")
    assert len(v.summaries) == 4 and not any(s.here for s in v.summaries)
    assert v.title_source == "first-prompt" and v.title.startswith("Can you please update")
    only = _view("4e27c414")
    assert only.title is None and any("other sessions" in w for w in only.warnings)


def test_title_precedence(tmp_path):
    base = [cc_user("a", None, "the first prompt", ts=0), cc_assistant("b", "a", ts=1)]
    assert _built(tmp_path / "1", *base).title == "the first prompt"
    own = {"type": "summary", "summary": "Fix the parser", "leafUuid": "b"}
    v = _built(tmp_path / "2", own, *base)
    assert (v.title, v.title_source) == ("Fix the parser", "summary")
    stale = [
        base[0],
        cc_user("old", "a", "old branch", ts=0.5),
        base[1],  # written last: the conversation resume loads
        {"type": "summary", "summary": "Old branch", "leafUuid": "old"},
    ]
    assert _built(tmp_path / "3", *stale).title == "the first prompt"  # its leaf is on a branch
    # the same branch written after the conversation is what Claude Code resumes: its title
    appended = [*base, cc_user("old", "a", "old branch", ts=0.5), stale[-1]]
    assert _built(tmp_path / "6", *appended).title == "Old branch"
    ai = {"type": "ai-title", "aiTitle": "Parser work", "sessionId": CC_SESSION}
    custom = {"type": "custom-title", "customTitle": "my name", "sessionId": CC_SESSION}
    assert _built(tmp_path / "4", own, *base, ai).title_source == "ai-title"
    v = _built(tmp_path / "5", own, *base, custom, ai, {**custom, "customTitle": "renamed"})
    assert (v.title, v.title_source) == ("renamed", "custom-title")  # the last rename wins
    assert v.metadata["custom-title"]["customTitle"] == "renamed"


def test_damaged_lines_in_the_json(tmp_path):
    a, b = cc_user("a", None, ts=0), cc_assistant("b", "a", ts=1)
    data = cc_lines(a)[:-1] + cc_lines(b) + cc_lines(cc_user("c", "b", ts=2))[:30]
    v = _built(tmp_path, data=data)
    j = v.to_json()
    assert [m["uuid"] for m in j["messages"]] == ["a", "b"]
    assert [(x["line"], x["recovered"], x["terminated"]) for x in j["bad_lines"]] == [
        (1, 2, True),
        (2, 0, False),
    ]
    assert sum("is damaged" in w for w in j["warnings"]) == 2


def test_file_history_records_are_kept_for_checkpoints():
    v = _view("fa812bfe")
    snaps = [s for s in v.snapshots if not s.delta]
    assert len(snaps) == 27 and sum(s.update for s in snaps) == 24
    assert all(s.message_id for s in snaps)
    # grouped by the prompt (snapshot.messageId), not the editing record (top-level messageId)
    assert len({s.message_id for s in snaps}) == 3
    for s in snaps:
        d = v.full_record(s.record)
        assert s.message_id == d["snapshot"]["messageId"]
        assert not s.update or d["messageId"] != s.message_id
    one = v.full_record(snaps[0].record)
    assert one["type"] == "file-history-snapshot" and "trackedFileBackups" in one["snapshot"]


def test_a_file_outside_any_home_reads_the_same(tmp_path):
    src = (
        CLAUDE_HOME
        / "projects/-src-experiments-claude_p/94604a7b-062f-4369-bdf0-da948381c3e5.jsonl"
    )
    p = tmp_path / "copy.jsonl"
    p.write_bytes(src.read_bytes())
    v = open_claude_session(None, ClaudeFile(p, "copy", ""))
    assert len(v.messages) == 2 and v.to_json()["session_id"] == "copy" and not v.liveness.live
    assert v.cwd == "/src/experiments/claude_p" and v.model and v.version == "2.1.17"

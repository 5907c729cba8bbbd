"""What `show` and `ls` say about Claude Code's own --resume (docs/CLAUDE-CODE.md §11)."""

from __future__ import annotations

import json

from sidtui.cli import main
from tests.helpers import (
    CC_SESSION,
    cc_assistant,
    cc_home,
    cc_lines,
    cc_rec,
    cc_user,
)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _broken(tmp_path):
    """A session whose chain breaks at line 4 (a parent never written, 10 s later)."""
    data = cc_lines(
        cc_user("u1", None, "first prompt", ts=1),
        cc_assistant("a1", "u1", "first reply", ts=2),
        cc_user("u2", "a1", "second prompt", ts=3),
        cc_assistant("a2", "gone", "second reply", ts=13),
        cc_user("u3", "a2", "third prompt", ts=14),
        cc_rec("api-request", None, None, ts=14, id="req_1"),
        cc_rec("tools-used", None, None, ts=14, tools=["Read"]),
    )
    home = cc_home(tmp_path / "home", {"-p": {f"{CC_SESSION}.jsonl": data}})
    return home, home / "projects" / "-p" / f"{CC_SESSION}.jsonl"


def test_show_json_has_the_resume_contract(tmp_path, capsys):
    home, path = _broken(tmp_path)
    code, out, err = run(capsys, "show", str(path), "--json")
    assert code == 0, err
    d = json.loads(out)
    r = d["resume"]
    assert (r["agent"], r["agent_version"], r["error"]) == ("claude-code", "2.1.332", None)
    assert r["messages"] == [
        {"role": "assistant", "blocks": [{"type": "text", "text": "second reply"}]},
        {"role": "user", "blocks": [{"type": "text", "text": "third prompt"}]},
        {"role": "assistant", "blocks": [{"type": "text", "text": "No response requested."}]},
    ]
    assert r["lost"] == [
        {
            "reason": "parent_missing",
            "messages": 3,
            "records": 3,
            "lines": [1, 3],
            "at_line": 4,
            "missing_parent": "gone",
            "damaged_line": None,
        }
    ]
    assert [a["why"] for a in r["added"]] == ["ends_on_user_turn"]
    assert [m["sent"] for m in d["messages"]] == [False, False, False, True, True]
    assert not any("do not know" in w for w in d["warnings"])  # 2.1.332's record types


def test_show_says_what_claude_code_will_not_load_in_place(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    home, path = _broken(tmp_path)
    code, out, err = run(capsys, "show", str(path))
    assert code == 0, err
    assert "will not load 3 messages on disk" in out
    notice = "Claude Code will not load the 3 messages above: the chain breaks at line 4"
    assert notice in out
    assert out.index(notice) < out.index("second reply")  # set apart in place
    assert "No response requested.  (Claude Code's own)" in out


def test_ls_flags_sessions_resume_loses_history(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    home, _ = _broken(tmp_path)
    code, out, err = run(capsys, "ls", "--claude-home", str(home), "--json")
    assert code == 0, err
    (row,) = json.loads(out)
    assert row["resume_lost"] == 3
    code, out, err = run(capsys, "ls", "--claude-home", str(home))
    assert "(resume loses 3)" in out and "resume loses: Claude Code's --resume" in out


def test_a_file_with_no_conversation_is_claude_codes_refusal(tmp_path, capsys):
    data = b'{"type":"summary","summary":"old","leafUuid":"x"}\n'
    home = cc_home(tmp_path / "home", {"-p": {f"{CC_SESSION}.jsonl": data}})
    path = home / "projects" / "-p" / f"{CC_SESSION}.jsonl"
    code, out, err = run(capsys, "show", str(path), "--json")
    assert code == 0, err
    r = json.loads(out)["resume"]
    assert r["error"] == f"No conversation found with session ID: {CC_SESSION}"
    assert r["messages"] == []


def test_show_marks_the_error_results_claude_code_adds_for_a_pending_tool(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("COLUMNS", "250")
    data = cc_lines(
        cc_user("u1", None, "go", ts=1),
        cc_assistant("a1", "u1", "running", ts=2, tools=(("t1", "Bash"),)),
    )
    home = cc_home(tmp_path / "home", {"-p": {f"{CC_SESSION}.jsonl": data}})
    path = home / "projects" / "-p" / f"{CC_SESSION}.jsonl"
    code, out, err = run(capsys, "show", str(path))
    assert code == 0, err
    assert "an error result for 1 tool use nothing answered  (Claude Code's own)" in out
    assert "No response requested.  (Claude Code's own)" in out

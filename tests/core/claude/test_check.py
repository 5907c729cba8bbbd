"""``sidtui check`` counts of a Claude Code home."""

from __future__ import annotations

from sidtui.core.claude.check import run_claude_check
from sidtui.core.claude.layout import ClaudeHome, resolve_session
from tests.helpers import CC_SESSION, CLAUDE_HOME, cc_assistant, cc_home, cc_lines, cc_user

HOME = ClaudeHome(CLAUDE_HOME)


def test_counts_of_the_real_home():
    r = run_claude_check(HOME)
    j = r.to_json()
    assert r.exit_code == 0 and not j["faults"]
    assert j["files"] == {"main": 40, "sidechain": 51, "zero_bytes": 16, "without_messages": 17}
    assert j["records"] == 5276 and j["record_types"]["progress"] == 2555 and not j["unknown_types"]
    assert j["leaves_per_file"]["0"] == 17 and j["leaves_per_file"]["25"] == 1
    assert j["branches"] == {
        "parallel_tool_leaves": 58,
        "branches": 5,
        "rewinds": 0,
        "files_with_branches": 4,
    }
    assert j["dangling_parents"] == {"records": 14, "files": 1}  # the compact worker
    assert j["subagents"] == {
        "warmup": 38,
        "orphan": 11,
        "missing": 3,
        "completed": 1,
        "internal": 1,
    }
    assert j["user_records"]["interrupt"] == 10 and j["compactions"] == 2
    assert j["backups"] == {"checked": False}


def test_damage_is_a_fault_and_a_salvage_is_not(tmp_path):
    a, b = cc_user("a", None, ts=0), cc_assistant("b", "a", ts=1)
    glued = cc_lines(a)[:-1] + cc_lines(b)  # two records on one line: both recovered
    torn = cc_lines(a, b) + b'{"type":"user","uu'
    home = ClaudeHome(
        cc_home(
            tmp_path,
            {
                "-p": {
                    "11111111-0000-4000-8000-000000000001.jsonl": glued,
                    f"{CC_SESSION}.jsonl": torn,
                }
            },
        )
    )
    r = run_claude_check(home)
    assert [f.kind for f in r.faults] == ["damaged_line"] and r.exit_code == 1
    assert [w.kind for w in r.warnings] == ["salvaged_line"]
    assert r.to_json()["recovered_records"] == 2


def test_one_session_and_the_backup_hook():
    seen = []

    def backups(home, view):
        seen.append(view.session_id)
        return {"backups": len(view.snapshots), "missing": len(view.snapshots)}

    sf = resolve_session(HOME, "fa812bfe")
    r = run_claude_check(HOME, session=sf, backups=backups)
    j = r.to_json()
    assert (
        j["scope"].startswith("session fa812bfe")
        and j["files"]["main"] == 1
        and j["files"]["sidechain"] == 2
    )
    assert seen == [sf.session_id] and j["backups"] == {
        "checked": True,
        "backups": 27,
        "missing": 27,
    }

"""The read verbs on Claude Code homes: ls, show, check, search; the home flags and sources."""

from __future__ import annotations

import json
import shutil

import pytest

from sidtui.cli import main
from tests.helpers import (
    CC_SESSION,
    CLAUDE_HOME,
    REAL_HOME,
    cc_assistant,
    cc_home,
    cc_lines,
    cc_path,
    cc_user,
    copy_real_home,
)

CC = str(CLAUDE_HOME)
SPOTTER = "-home-marco-projects-spotter"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_ls_json_rows_name_their_source(capsys):
    code, out, err = run(capsys, "ls", "--claude-home", CC, "--json", "--no-cache")
    assert code == 0, err
    rows = json.loads(out)
    assert len(rows) == 40 and {r["source"] for r in rows} == {"claude-code"}
    empty = next(r for r in rows if r["session_id"].startswith("62b71fe7"))
    assert (empty["records"], empty["loadable"], empty["interruption"]) == (0, False, None)
    code, out, _ = run(
        capsys, "--claude-home", CC, "ls", "--json", "--sidechains"
    )  # flag before the verb
    assert code == 0 and len(json.loads(out)) == 91
    code, out, _ = run(capsys, "--home", str(REAL_HOME), "ls", "--json", "--no-cache")
    assert code == 0 and {r["source"] for r in json.loads(out)} == {"sid-code"}


def test_ls_without_home_flags_lists_every_home(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("SID_CONFIG_DIR", str(copy_real_home(tmp_path / "sid")))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", CC)
    code, out, err = run(capsys, "ls", "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert {r["source"] for r in rows} == {"sid-code", "claude-code"}
    acts = [r["last_activity"] or "" for r in rows]
    assert acts == sorted(acts, reverse=True)
    code, out, _ = run(capsys, "ls", "--json", "--source", "claude-code")
    assert {r["source"] for r in json.loads(out)} == {"claude-code"}
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run(capsys, "ls", f"--project={SPOTTER}")
    assert code == 0 and "[Claude Code]" not in out  # one source left: no source column
    code, out, _ = run(capsys, "ls")
    assert code == 0 and "│ Claude Code │" in out and "│ sid-code    │" in out and "empty" in out


def test_ls_of_one_claude_project_and_bad_ones(capsys):
    code, out, _ = run(capsys, "ls", "--claude-home", CC, f"--project={SPOTTER}", "--json")
    assert code == 0 and len(json.loads(out)) == 3
    code, _, err = run(capsys, "ls", "--claude-home", CC, "--project=nope")
    assert code == 2 and "no project folder 'nope'" in err


def test_a_project_key_starting_with_a_dash_needs_no_equals_sign(capsys):
    code, joined, _ = run(capsys, "ls", "--claude-home", CC, f"--project={SPOTTER}", "--json")
    code2, spaced, err = run(capsys, "ls", "--claude-home", CC, "--project", SPOTTER, "--json")
    assert (code, code2) == (0, 0) and spaced == joined, err
    code, out, err = run(capsys, "--claude-home", CC, "search", "plan", "--project", SPOTTER)
    assert code == 0 and SPOTTER in out, err
    # a missing key of two characters is joined too: the usual "no project folder"
    for verb in ("ls", "check", "search"):
        argv = [verb, "--claude-home", CC, "--project", "-x"] + (
            ["plan"] if verb == "search" else []
        )
        code, _, err = run(capsys, *argv)
        assert code == 2 and "no project folder '-x'" in err, (verb, err)
    # a value argparse still cannot take names the form that works
    code, _, err = run(capsys, "ls", "--claude-home", CC, "--project", "--", SPOTTER)
    assert code == 2 and "write --project=KEY" in err
    code, _, err = run(capsys, "ls", "--claude-home", "")
    assert code == 2 and "--claude-home needs a folder" in err


def test_show_json_of_a_transcript_anywhere(capsys, tmp_path):
    # a Claude Code transcript outside any home is recognised by its content
    p = tmp_path / "some-name.jsonl"
    shutil.copy(cc_path(f"{SPOTTER}/55604662-cf2a-4331-851a-ec234028f8ca.jsonl"), p)
    code, out, err = run(capsys, "show", str(p), "--json")
    assert code == 0, err
    j = json.loads(out)
    assert j["format"] == "claude-code" and j["session_id"] == "some-name"
    assert [m["role"] for m in j["messages"]] == ["user", "assistant", "user", "user", "user"]
    assert {"uuid", "line", "role", "blocks"} <= j["messages"][0].keys()
    assert j["leaf"] == j["tips"][-1]["uuid"] and j["tips"][-1]["resume"]
    assert j["interruption"]["kind"] == "interrupted_turn" and j["interruption"]["tool_names"] == [
        "Bash",
        "Glob",
    ]
    assert j["bad_lines"] == [] and "branches" in j and "records" in j and "chain" in j


def test_show_by_id_and_the_human_output(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")
    code, out, err = run(capsys, "--claude-home", CC, "show", "0d3a8e6f", "--messages", "3")
    assert code == 0, err
    assert "sidtui show (Claude Code)" in out and "branch" in out and "the last 3 of 39" in out
    code, _, err = run(capsys, "--claude-home", CC, "show", "agent-")
    assert code == 2 and "give more of the id" in err


def test_an_id_in_both_homes_or_neither(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("SID_CONFIG_DIR", str(copy_real_home(tmp_path / "sid")))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", CC)
    code, out, _ = run(capsys, "show", "55604662", "--json")
    assert code == 0 and json.loads(out)["format"] == "claude-code"
    code, out, _ = run(capsys, "show", "20261130-052907-79e5", "--json")
    assert code == 0 and "format" not in json.loads(out)  # the sid-code contract as before
    code, _, err = run(capsys, "show", "ffffffff-nothing")
    assert code == 2 and "no session matches" in err


def test_show_of_a_damaged_transcript_recovers_its_records(capsys, tmp_path):
    a, b = cc_user("a", None, "hello", ts=0), cc_assistant("b", "a", ts=1)
    data = cc_lines(a)[:-1] + cc_lines(b)[:-1] + b"\x00" * 10 + cc_lines(cc_user("c", "b", ts=2))
    home = cc_home(tmp_path, {"-p": {f"{CC_SESSION}.jsonl": data}})
    code, out, err = run(
        capsys, "show", str(home / "projects" / "-p" / f"{CC_SESSION}.jsonl"), "--json"
    )
    assert code == 0, err
    j = json.loads(out)
    assert [m["uuid"] for m in j["messages"]] == ["a", "b", "c"]
    assert j["bad_lines"][0]["recovered"] == 3 and any("damaged" in w for w in j["warnings"])


def test_check_counts_and_faults(capsys, tmp_path):
    code, out, err = run(capsys, "check", "--claude-home", CC, "--json")
    assert code == 0, err
    j = json.loads(out)
    assert j["source"] == "claude-code" and j["files"]["main"] == 40
    assert j["dangling_parents"]["records"] == 14 and j["leaves_per_file"]["0"] == 17
    torn = cc_lines(cc_user("a", None), cc_assistant("b", "a")) + b'{"type":"user","uu'
    home = cc_home(tmp_path, {"-p": {f"{CC_SESSION}.jsonl": torn}})
    code, out, _ = run(capsys, "check", "--claude-home", str(home))
    assert code == 1 and "damaged_line" in out and "structural fault" in out
    code, out, _ = run(capsys, "check", "--claude-home", CC, "--session", "55604662", "--json")
    assert code == 0 and json.loads(out)["files"]["main"] == 1


def test_check_of_both_homes_is_one_object_per_source(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("SID_CONFIG_DIR", str(copy_real_home(tmp_path / "sid")))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", CC)
    code, out, _ = run(capsys, "check", "--json")
    j = json.loads(out)
    assert set(j) == {"sid-code", "claude-code"} and j["claude-code"]["files"]["main"] == 40
    # --project names a folder of one home (as ls and search): that home is checked
    code, out, err = run(capsys, "check", "--project", SPOTTER, "--json")
    assert code == 0 and json.loads(out)["source"] == "claude-code", err
    code, _, err = run(capsys, "check", "--project", "nope")
    assert code == 2 and "no project folder 'nope'" in err and SPOTTER in err


def test_search_of_both_homes_refuses_a_project_of_neither(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("SID_CONFIG_DIR", str(copy_real_home(tmp_path / "sid")))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", CC)
    for key in ("nope", "-nope"):  # as ls: exit 2 with the folders of both homes
        code, out, err = run(capsys, "search", "plan", "--project", key)
        assert (code, out) == (2, "") and f"no project folder {key!r}" in err and SPOTTER in err


def test_search_a_claude_home(capsys):
    code, out, err = run(
        capsys, "search", "phoenix", "server", "--claude-home", CC, "--json", "--limit", "5"
    )
    assert code == 0, err
    hits = json.loads(out)
    assert hits and {h["source"] for h in hits} == {"claude-code"}
    assert hits[0]["session_id"].startswith("d6e0bada")


@pytest.mark.parametrize("verb", ["ls", "check"])
def test_a_named_claude_home_that_is_missing(capsys, tmp_path, verb):
    code, _, err = run(capsys, verb, "--claude-home", str(tmp_path / "none"))
    assert code == 2 and "no Claude Code home" in err

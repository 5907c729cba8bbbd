"""Rules every verb keeps (docs/DECISIONS.md, "Reading a hostile disk"; README exit codes):
the home is resolved once, printed follow-up commands run as printed, one exit-code rule for
skipped files, messages that say what happened, narrow terminals keep the id/number columns,
and the small things of a careful user's afternoon."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len

from sidtui.cli import main
from tests.helpers import (
    SID,
    assistant,
    copy_real_home,
    jsonl,
    line,
    live_start,
    live_user,
    make_home,
    neutralize_fixture_pids,
    settle_s01_drift,
    start,
    user,
)

S01 = "20261130-052907-9ff3799b"
WEBAPP = "tmp-sidtui-fixture-projects-webapp"


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture
def fx(tmp_path):
    """(home, webapp project) of a fixture-home copy with dead PIDs."""
    home = copy_real_home(tmp_path / "home", tmp_path / "projects")
    neutralize_fixture_pids(home)
    return home, tmp_path / "projects" / "webapp"


def _live(home: Path, sid: str) -> None:
    import time

    (home / "active-sessions" / f"{sid}.json").write_text(
        json.dumps(
            {
                "sessionId": sid,
                "pid": os.getpid(),
                "kind": "interactive",
                "startedAt": int(time.time() * 1000),
            }
        )
    )


# ------------------------------------------------------------------ one home, resolved once


def _readline(stream, timeout: float) -> str:
    import selectors

    sel = selectors.DefaultSelector()
    sel.register(stream, selectors.EVENT_READ)
    return stream.readline() if sel.select(timeout) else ""


@pytest.mark.parametrize("how", ["--home ./h", "SID_CONFIG_DIR=./h", "relative session path"])
def test_watch_with_a_relative_home_reports_records(tmp_path, how):
    folder = tmp_path / "h" / "sessions" / "proj"
    folder.mkdir(parents=True)
    session = folder / f"{SID}.jsonl"
    session.write_bytes(line(live_start()) + line(live_user("u1", "u0")))
    env = {k: v for k, v in os.environ.items() if k != "SID_CONFIG_DIR"}
    env["PYTHONUNBUFFERED"] = "1"
    args = ["watch", "--json"]
    if how == "--home ./h":
        args += ["--home", "./h"]
    elif how == "SID_CONFIG_DIR=./h":
        env["SID_CONFIG_DIR"] = "./h"
    else:
        args.append(f"h/sessions/proj/{SID}.jsonl")
    proc = subprocess.Popen(
        [sys.executable, "-m", "sidtui", *args],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert _readline(proc.stderr, 30).startswith("watching ")
        with open(session, "ab") as fh:
            fh.write(line(live_user("u2", "u1", "relative")))
        got = _readline(proc.stdout, 30)
        assert got and json.loads(got)["uuid"] == "u2", got
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def test_show_json_path_is_absolute(fx, capsys, monkeypatch):
    home, _ = fx
    monkeypatch.chdir(home.parent)
    rel = f"home/sessions/{WEBAPP}/{S01}.jsonl"
    rc, out, _ = run(capsys, "show", rel, "--json")
    assert rc == 0 and json.loads(out)["path"] == str(home / "sessions" / WEBAPP / f"{S01}.jsonl")
    rc, out, _ = run(capsys, "--home", "./home", "show", S01, "--json")
    assert rc == 0 and Path(json.loads(out)["path"]).is_absolute()


# ------------------------------------------------------------------ follow-up commands


def _commands(text: str) -> list[list[str]]:
    """Every `sidtui …` command printed between backticks, split as a shell would."""
    return [shlex.split(c)[1:] for c in re.findall(r"`(sidtui [^`]+)`", text)]


def test_printed_follow_up_commands_run_as_printed(fx, capsys, monkeypatch):
    home, project = fx
    elsewhere = home.parent / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(home.parent)
    login = project / "src" / "login.ts"
    settle_s01_drift(project.parent)  # S05's later edit of login.ts is drift: not this test's
    before = login.read_bytes()
    rc, out, err = run(capsys, "--home", "./home", "undo", S01)
    assert rc == 0, err
    cmds = _commands(out + err)
    assert cmds and cmds[0][:2] == ["--home", str(home)] and "redo" in cmds[0], out
    monkeypatch.chdir(elsewhere)
    rc, out, err = run(capsys, *cmds[0])
    assert rc == 0, err
    assert login.read_bytes() == before
    back = _commands(out + err)
    assert back and "undo" in back[0]
    rc, _, err = run(capsys, *back[0])
    assert rc == 0, err

    rc, out, err = run(
        capsys, "--home", str(home), "rewind", S01, "--to", "2", "--mode", "conversation"
    )
    assert rc == 0, err
    branch = [c for c in _commands(out + err) if "branch" in c]
    assert branch and branch[0][:2] == ["--home", str(home)], out
    rc, out, err = run(capsys, *branch[0])
    assert rc == 0, err


def test_rewind_code_fork_names_the_new_sessions_safety_snapshot(fx, capsys):
    home, project = fx
    settle_s01_drift(project.parent)
    rc, out, err = run(
        capsys, "--home", home, "rewind", S01, "--to", "1", "--mode", "code", "--fork", "--json"
    )
    assert rc == 0, err
    child = json.loads(out)["fork"]["session_id"]
    rc, out, err = run(
        # the first fork's rewind changed the files after S01: drift, replaced knowingly
        capsys,
        "--home",
        home,
        "rewind",
        S01,
        "--to",
        "2",
        "--mode",
        "code",
        "--fork",
        "--force",
    )
    assert rc == 0, err
    safety = [ln for ln in out.splitlines() if "safety snapshot" in ln]
    assert safety and "new session" in safety[0], out
    redo = [c for c in _commands(out) if "redo" in c]
    assert redo and redo[0][-1] != S01 and redo[0][-1].startswith("2"), out  # the fork's id
    assert child  # the first fork exists too


# ------------------------------------------------------------------ one exit-code rule


def _skip_login(project: Path) -> None:
    """src/login.ts replaced by a folder: every restore of it is skipped."""
    login = project / "src" / "login.ts"
    login.unlink()
    login.mkdir()


SKIPPING = [
    ["undo", S01],
    ["undo", S01, "--dry-run"],
    ["undo", S01, "--json"],
    ["restore", S01, "--before", "s1"],
    ["restore", S01, "--before", "s1", "--dry-run"],
    ["rewind", S01, "--to", "1", "--mode", "code"],
    ["rewind", S01, "--to", "1", "--mode", "code", "--dry-run"],
    ["rewind", S01, "--to", "1", "--mode", "code", "--json"],
    ["rewind", S01, "--to", "1", "--mode", "code", "--fork"],
    ["rewind", S01, "--to", "1", "--mode", "both"],
]


@pytest.mark.parametrize("argv", SKIPPING, ids=lambda a: " ".join(a[:1] + a[2:]))
def test_a_skipped_file_is_exit_1_and_said_once(fx, capsys, argv):
    home, project = fx
    _skip_login(project)
    rc, out, err = run(capsys, "--home", home, *argv)
    assert rc == 1, (out, err)
    if "--json" not in argv:
        said = [ln for ln in (out + err).splitlines() if "login.ts" in ln and "skip" in ln]
        assert len(said) == 1, out + err


def _closed_stdout(argv: list[str]) -> int:
    r, w = os.pipe()
    os.close(r)  # the reader is gone before the first write (`| head` that already quit)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "sidtui", *argv],
            stdout=w,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            timeout=60,
            text=True,
        )
    finally:
        os.close(w)
    assert "Traceback" not in proc.stderr
    return proc.returncode


def test_a_closed_stdout_never_changes_the_exit_code(fx):
    home, project = fx
    h = ["--home", str(home)]
    assert _closed_stdout([*h, "check"]) == 1  # the fixture home has structural faults
    assert _closed_stdout([*h, "check", "--json"]) == 1
    assert _closed_stdout([*h, "ls", "--no-cache"]) == 0
    assert _closed_stdout([*h, "show", S01]) == 0
    _skip_login(project)
    assert _closed_stdout([*h, "undo", S01, "--dry-run"]) == 1


# ------------------------------------------------------------------ messages


def test_every_file_refused_is_not_every_file_as_it_was(fx, capsys, tmp_path):
    home, project = fx
    other = tmp_path / "other"
    other.mkdir()
    rc, out, err = run(capsys, "--home", home, "undo", S01, "--root", other)
    assert rc == 1
    assert "already as it was" not in out + err
    assert "outside the project root" in err


def test_a_real_fork_of_a_live_session_is_not_a_dry_run(fx, capsys):
    home, _ = fx
    _live(home, S01)
    rc, out, err = run(
        capsys, "--home", home, "rewind", S01, "--to", "2", "--mode", "conversation", "--fork"
    )
    assert rc == 0, err
    assert "would be refused" not in out + err
    assert "new session" in out


def test_a_rewind_dry_run_says_the_drift_once(fx, capsys):
    home, _ = fx  # S05, a fork of S01, edited login.ts after S01: drift
    rc, _, err = run(
        capsys, "--home", home, "rewind", S01, "--to", "2", "--mode", "code", "--dry-run"
    )
    said = [ln for ln in err.splitlines() if "changed after this session" in ln]
    assert rc == 1 and len(said) == 1 and "a real run is refused" in said[0], err
    assert err.count("project root:") == 1
    rc, _, err = run(
        capsys, "--home", home, "rewind", S01, "--to", "2", "--mode", "code", "--dry-run", "--force"
    )
    said = [ln for ln in err.splitlines() if "changed after this session" in ln]
    assert rc == 0 and len(said) == 1 and "--force: a real run replaces them" in err, err


def test_a_fork_dry_run_names_no_id_the_real_run_will_not_use(fx, capsys):
    home, _ = fx
    rc, out, err = run(capsys, "--home", home, "fork", S01, "--dry-run", "--json")
    doc = json.loads(out)
    assert rc == 0 and (doc["session_id"], doc["path"]) == (None, None), err
    rc, out, err = run(capsys, "--home", home, "fork", S01, "--json")
    doc = json.loads(out)
    assert rc == 0 and Path(doc["path"]).name == f"{doc['session_id']}.jsonl", err
    assert Path(doc["path"]).is_file()


def test_an_empty_fork_is_not_shown_as_a_clean_conversation(fx, capsys):
    home, _ = fx
    rc, out, err = run(
        capsys,
        "--home",
        home,
        "rewind",
        S01,
        "--to",
        "1",
        "--mode",
        "conversation",
        "--fork",
        "--json",
    )
    assert rc == 0, err
    child = json.loads(out)["fork"]["session_id"]
    rc, out, _ = run(capsys, "--home", home, "show", child, "--json")
    doc = json.loads(out)
    assert doc["messages"] == [] and doc["resume_note"] is None
    rc, out, _ = run(capsys, "--home", home, "show", child)
    assert "messages above" not in out and "clean" not in out
    assert "no messages" in out


@pytest.mark.parametrize("flag", [["--mode", "code"], ["--fork"], ["--dry-run"], ["--force"]])
def test_rewind_flags_without_to_are_a_usage_error(fx, capsys, flag):
    home, _ = fx
    rc, _, err = run(capsys, "--home", home, "rewind", S01, *flag)
    assert rc == 2 and "--to" in err


def test_live_refusal_wording(fx, capsys):
    home, _ = fx
    _live(home, S01)
    rc, _, err = run(capsys, "--home", home, "rewind", S01, "--to", "1", "--mode", "conversation")
    assert rc == 1 and "is live" in err
    assert "in in-memory" not in err


# ------------------------------------------------------------------ narrow terminals


@pytest.mark.parametrize("columns", [80, 60, 40])
def test_rewind_points_keep_their_numbers_on_narrow_terminals(fx, capsys, monkeypatch, columns):
    home, _ = fx
    monkeypatch.setenv("COLUMNS", str(columns))
    rc, out, _ = run(capsys, "--home", home, "rewind", S01)
    assert rc == 0
    rows = [ln for ln in out.splitlines() if ln.startswith("│")]
    numbers = [ln.split("│")[1].strip() for ln in rows if ln.split("│")[1].strip()]
    assert numbers == ["1", "2", "3"], out
    assert all(cell_len(ln) <= columns for ln in out.splitlines()), out


@pytest.mark.parametrize("columns", [80, 60])
def test_ls_tables_fit_and_keep_whole_ids(fx, capsys, monkeypatch, columns):
    home, _ = fx
    monkeypatch.setenv("COLUMNS", str(columns))
    rc, out, _ = run(capsys, "--home", home, "ls", "--no-cache")
    assert rc == 0
    for ln in out.splitlines():
        assert cell_len(ln) <= columns, ln
        if ln[:1] in "┏┃┡│└":
            assert ln.rstrip()[-1] in "┓┃┩│┘", ln  # the right border is there
    assert S01 in out and "20261130-052917-0c88f996" in out


# ------------------------------------------------------------------ small things


def test_latest_from_a_projects_top_folder_without_git(tmp_path, capsys, monkeypatch):
    project = tmp_path / "proj"
    (project / "sub").mkdir(parents=True)
    home = tmp_path / "home"
    sub_id, top_id = "20260101-000000-aaaaaaaa", "20260102-000000-bbbbbbbb"
    # a home copied from elsewhere: the folder name is not this machine's project key
    starts = {sub_id: start(sid=sub_id), top_id: start(sid=top_id)}
    starts[sub_id]["cwd"], starts[top_id]["cwd"] = str(project / "sub"), str(project)
    make_home(
        home,
        {sid: jsonl(s, user("u1", "S")) for sid, s in starts.items()},
        project="copied-from-another-machine",
    )
    folder = home / "sessions" / "copied-from-another-machine"
    os.utime(folder / f"{sub_id}.jsonl", (1e9, 1e9))
    monkeypatch.chdir(project)
    rc, out, err = run(capsys, "--home", home, "show", "latest", "--json")
    assert rc == 0, err
    assert json.loads(out)["session_id"] == top_id


def test_demo_refuses_home(tmp_path, capsys):
    rc, _, err = run(capsys, "demo", "--home", tmp_path / "d", "--no-open")
    assert rc == 2 and "--dir" in err
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize("root", ["missing", "a file"])
def test_root_must_be_an_existing_folder(fx, capsys, tmp_path, root):
    home, project = fx
    arg = tmp_path / "nope"
    if root == "a file":
        arg.write_text("x")
    before = (project / "src" / "login.ts").read_bytes()
    for verb in (["undo", S01], ["restore", S01, "--before", "s1"], ["redo", S01]):
        rc, _, err = run(capsys, "--home", home, *verb, "--root", arg)
        assert rc == 2 and "--root" in err, (verb, err)
    assert (project / "src" / "login.ts").read_bytes() == before


def test_symlink_loop_index_is_unreadable_not_missing(fx, capsys):
    home, _ = fx
    index = home / "checkpoints" / S01 / "index.json"
    index.unlink()
    index.symlink_to(index)
    rc, _, err = run(capsys, "--home", home, "checkpoints", S01)
    assert rc == 1
    assert "does not exist" not in err and "symbolic links" in err


def test_branch_of_an_unloadable_session_marks_no_tip_live(tmp_path, capsys):
    d = jsonl(
        start(sid=SID),
        user("u1", "S"),
        assistant("a1", "u1"),
        user("u2", "a1"),
        assistant("a2", "u2"),
        user("x", "nowhere"),
    )
    home = make_home(tmp_path / "h", {SID: d})
    rc, out, _ = run(capsys, "--home", home, "branch", SID)
    assert rc == 0
    assert "(live)" not in out and "1 messages" not in out
    assert "loads nothing" in out


def test_dev_zero_linked_as_a_session_is_named_for_what_it_is(tmp_path, capsys):
    home = make_home(tmp_path / "h", {SID: line(live_start())})
    (home / "sessions" / "proj" / "20260101-000000-bbbbbbbb.jsonl").symlink_to("/dev/zero")
    rc, _, err = run(capsys, "--home", home, "ls", "--no-cache")
    assert rc == 0
    assert "does not exist" not in err and "not a regular file" in err


def test_search_help_says_every_word_is_a_prefix(capsys):
    rc = main(["search", "--help"])
    out = capsys.readouterr().out
    assert rc == 0 and "end a word with * for a prefix" not in out
    assert "prefix" in out


def test_search_finds_emoji_and_shows_the_hit_at_80_columns(tmp_path, capsys, monkeypatch):
    long = "word " * 40 + "the needle is here " + "tail " * 40
    home = make_home(
        tmp_path / "h",
        {
            SID: line(live_start())
            + line(live_user("u1", "u0", "ship it 🎉 today"))
            + line(live_user("u2", "u1", long))
        },
    )
    rc, out, _ = run(capsys, "--home", home, "search", "🎉", "--json")
    assert rc == 0 and [h["uuid"] for h in json.loads(out)] == ["u1"]
    monkeypatch.setenv("COLUMNS", "80")
    rc, out, _ = run(capsys, "--home", home, "search", "needle")
    assert rc == 0 and "needle" in out, out
    assert all(cell_len(ln) <= 80 for ln in out.splitlines())

"""The checkpoint and rewind verbs on Claude Code sessions, and which source a SESSION names."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from sidtui.cli import main
from tests.helpers import CC_SESSION, CLAUDE_HOME, REAL_HOME, cc_edit_session, cc_path


def run(capsys, *argv):
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture
def sess(tmp_path):
    home = tmp_path / "claude"
    s = cc_edit_session(home, tmp_path / "work" / "app")
    s["home"] = home
    return s


SPOTTER = "projects/-home-marco-projects-spotter/491e126e-1e71-469c-ade2-fcc8af567c74.jsonl"


# --------------------------------------------------------------------------- checkpoints


def test_checkpoints_of_a_real_session(capsys):
    rc, out, _ = run(capsys, "--claude-home", str(CLAUDE_HOME), "checkpoints", "491e126e", "--json")
    assert rc == 0
    doc = json.loads(out)
    assert doc["source"] == "claude-code" and [s["id"] for s in doc["snapshots"]] == ["c1", "c2"]
    assert doc["files"] == [
        {
            "file_path": "/home/marco/projects/spotter/plan.md",
            "drawing": "absent → v2 ✗",
            "healthy": False,
            "entries": doc["files"][0]["entries"],
        }
    ]
    assert doc["unrecoverable"] == ["b872f856d78f0425@v2"]
    rc, out, _ = run(capsys, "checkpoints", str(CLAUDE_HOME / SPOTTER))  # by path, no flag
    assert rc == 0 and "absent → v2 ✗" in out and "c2" in out


def test_show_a_backup_and_its_exit_codes(capsys, sess):
    base = ["--claude-home", str(sess["home"]), "checkpoints", CC_SESSION, "--show"]
    rc, out, _ = run(capsys, *base, "a.txt@c2")
    assert (rc, out) == (0, "A1\n")
    rc, out, err = run(capsys, *base, "new.txt@c2")
    assert rc == 1 and "did not exist before c2" in err
    (sess["home"] / "file-history" / CC_SESSION / sess["blobs"]["a1"]).unlink()
    rc, _, err = run(capsys, *base, "a.txt@c1")
    assert rc == 1 and "unrecoverable" in err
    rc, _, err = run(capsys, *base, "a.txt")
    assert rc == 2 and "PATH@CHECKPOINT" in err
    rc, _, err = run(capsys, *base, "nope.txt@c1")
    assert rc == 2 and "not tracked" in err


def test_show_to_a_terminal_is_bounded(capsys, sess, monkeypatch):
    from sidtui.cli import common

    base = ["--claude-home", str(sess["home"]), "checkpoints", CC_SESSION, "--show", "a.txt@c2"]
    monkeypatch.setattr(common, "stdout_is_terminal", lambda: True)
    monkeypatch.setenv("SIDTUI_MAX_DIFF_BYTES", "2")
    rc, out, err = run(capsys, *base)
    assert (rc, out) == (1, "") and "--full" in err
    rc, out, _ = run(capsys, *base, "--full")
    assert (rc, out) == (0, "A1\n")


# --------------------------------------------------------------------------- undo / redo / restore


def test_restore_redo_undo_through_the_cli(capsys, sess):
    h = ["--claude-home", str(sess["home"])]
    rc, out, err = run(capsys, *h, "restore", CC_SESSION, "--before", "c2", "--dry-run")
    assert rc == 0 and "-A3\n+A1\n" in out and f"project root: {sess['cwd']}" in err
    assert "nothing written" in err and sess["a"].read_bytes() == b"A3\n"
    rc, out, err = run(capsys, *h, "restore", CC_SESSION, "--before", "c2")
    assert rc == 0 and f"--claude-home {sess['home']} redo" in out
    assert sess["a"].read_bytes() == b"A1\n"
    assert not sess["new"].exists()
    rc, out, _ = run(capsys, *h, "redo", CC_SESSION, "--json")
    assert rc == 0 and json.loads(out)["op"] == "redo" and sess["a"].read_bytes() == b"A3\n"
    rc, out, _ = run(capsys, *h, "undo", CC_SESSION, "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["target"] == "c3" and doc["root"] == sess["cwd"]
    assert sess["a"].read_bytes() == b"A2\n"
    rc, _, _ = run(capsys, *h, "undo", CC_SESSION, "--file", "a.txt")
    assert rc == 0 and sess["a"].read_bytes() == b"A1\n" and sess["new"].exists()


def test_drift_through_the_cli(capsys, sess):
    h = ["--claude-home", str(sess["home"])]
    sess["a"].write_bytes(b"edited by hand\n")
    rc, _, err = run(capsys, *h, "undo", CC_SESSION)
    assert rc == 1 and "changed after this session" in err and "a.txt" in err
    assert sess["a"].read_bytes() == b"edited by hand\n"
    rc, out, err = run(capsys, *h, "undo", CC_SESSION, "--dry-run")  # predicts the real run
    assert rc == 1 and "sidtui: dry run: a real run is refused: 1 file(s) changed" in err
    assert "a.txt" in err and "+A2" in out  # the diff is still shown
    assert err.count("project root:") == 1 and err.count("changed after this session") == 1
    rc, _, err = run(capsys, *h, "undo", CC_SESSION, "--dry-run", "--force")
    assert rc == 0 and "a real run is refused" not in err
    assert err.count("project root:") == 1 and err.count("changed after this session") == 1
    rw = ["rewind", CC_SESSION, "--to", "2", "--mode", "code"]
    rc, _, err = run(capsys, *h, *rw)
    assert rc == 1 and "changed after this session" in err
    refusal = err.split("sidtui: error: ", 1)[1].strip()
    rc, _, err = run(capsys, *h, *rw, "--dry-run")
    assert rc == 1 and f"sidtui: dry run: a real run is refused: {refusal}" in err
    rc, out, _ = run(capsys, *h, "undo", CC_SESSION, "--dry-run", "--json")
    drift = {Path(f["path"]).name: f["drift"] for f in json.loads(out)["files"]}
    assert drift["a.txt"] == "changed"
    rc, _, err = run(capsys, *h, "undo", CC_SESSION, "--force")
    assert rc == 0 and sess["a"].read_bytes() == b"A2\n"
    assert err.count("project root:") == 1 and err.count("changed after this session") == 1
    rc, _, _ = run(capsys, *h, "redo", CC_SESSION)
    assert rc == 0 and sess["a"].read_bytes() == b"edited by hand\n"


def test_a_skipped_file_exits_1(capsys, sess):
    (sess["home"] / "file-history" / CC_SESSION / sess["blobs"]["a2"]).unlink()
    rc, _, err = run(
        capsys, "--claude-home", str(sess["home"]), "restore", CC_SESSION, "--before", "c2"
    )
    assert rc == 1 and "unrecoverable" in err and sess["b"].read_bytes() == b"B0\n"


def test_rewind_dry_run_exits_as_the_real_run(capsys, sess):
    (sess["home"] / "file-history" / CC_SESSION / sess["blobs"]["a2"]).unlink()
    rw = ["--claude-home", str(sess["home"]), "rewind", CC_SESSION, "--to", "2", "--mode", "code"]
    for extra in (["--dry-run"], ["--dry-run", "--json"], []):  # the real run last
        rc, out, err = run(capsys, *rw, *extra)
        assert rc == 1 and "unrecoverable" in out + err, (extra, rc, out, err)


# --------------------------------------------------------------------------- rewind / fork / branch


def test_rewind_points_and_modes(capsys, sess):
    h = ["--claude-home", str(sess["home"])]
    rc, out, _ = run(capsys, *h, "rewind", CC_SESSION, "--json")
    pts = json.loads(out)["points"]
    assert rc == 0 and [(p["id"], p["restore_from"]) for p in pts] == [
        (1, "c1"),
        (2, "c2"),
        (3, "c3"),
    ]
    rc, out, err = run(capsys, *h, "rewind", CC_SESSION, "--to", "2", "--dry-run")
    assert rc == 0 and "would rewind to point 2" in out and "-A3" in out
    assert "claude --resume" in err
    rc, out, _ = run(capsys, *h, "rewind", CC_SESSION, "--to", "2", "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["files_restored"] == 3 and doc["marker_uuid"] is None
    new = Path(doc["fork"]["path"])
    assert new.exists() and new.parent == sess["path"].parent
    assert sess["a"].read_bytes() == b"A1\n"
    rc, _, err = run(capsys, *h, "rewind", CC_SESSION, "--to", "9")
    assert rc == 2 and "choose 1–3" in err


def test_a_rewind_or_restore_dry_run_says_the_drift_once(capsys, sess):
    sess["a"].write_bytes(b"mine\n")  # changed after the session
    h = ["--claude-home", str(sess["home"])]
    for verb in (["rewind", CC_SESSION, "--to", "2"], ["restore", CC_SESSION, "--before", "c2"]):
        rc, out, err = run(capsys, *h, *verb, "--dry-run")
        said = [ln for ln in err.splitlines() if "changed after this session" in ln]
        assert rc == 1 and len(said) == 1 and "a real run is refused" in said[0], err
        assert err.count("project root:") == 1, err


def test_a_dry_run_names_no_session_id_the_real_run_will_not_use(capsys, sess):
    import re

    uuid = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
    rw = ["--claude-home", str(sess["home"]), "rewind", CC_SESSION, "--to", "2"]
    rw += ["--mode", "conversation"]
    rc, out, err = run(capsys, *rw, "--dry-run")
    assert rc == 0 and set(uuid.findall(out + err)) <= {CC_SESSION}, out + err
    assert "new session: a new id" in out and "the real run prints" in err
    rc, out, _ = run(capsys, *rw, "--dry-run", "--json")
    fork = json.loads(out)["fork"]
    assert (fork["session_id"], fork["path"], fork["resume"], fork["leaf_uuid"]) == (None,) * 4
    rc, out, _ = run(
        capsys, "--claude-home", str(sess["home"]), "fork", CC_SESSION, "--dry-run", "--json"
    )
    assert rc == 0 and json.loads(out)["session_id"] is None
    rc, out, err = run(capsys, *rw)  # the real run prints the id it wrote
    [new] = set(uuid.findall(out + err)) - {CC_SESSION}
    assert f"new session: {new}" in out and f"claude --resume {new}" in err
    assert (sess["path"].parent / f"{new}.jsonl").is_file()


def _printed_command(out: str) -> list[str]:
    import re
    import shlex

    [cmd] = re.findall(r"`(sidtui [^`]*)`", " ".join(out.split()))
    return shlex.split(cmd)[1:]


def test_printed_follow_ups_carry_both_homes_and_run(capsys, sess, tmp_path):
    """The 'take this back' command of a Claude Code write names the homes it was run with
    (--claude-home as --home), so it runs as printed."""
    (tmp_path / "sid" / "sessions").mkdir(parents=True)
    h = ["--home", str(tmp_path / "sid"), "--claude-home", str(sess["home"])]
    rc, out, err = run(capsys, *h, "restore", CC_SESSION, "--before", "c2")
    assert rc == 0, err
    assert sess["a"].read_bytes() == b"A1\n"
    back = _printed_command(out)
    assert back[:4] == h and back[4:] == ["redo", CC_SESSION]
    rc, out, _ = run(capsys, *back)
    assert rc == 0 and sess["a"].read_bytes() == b"A3\n"
    again = _printed_command(out)
    assert again[4:] == ["undo", CC_SESSION]
    rc, _, _ = run(capsys, *again)
    assert rc == 0 and sess["a"].read_bytes() == b"A2\n"  # undo: back to before c3


def test_fork_and_branch(capsys, tmp_path):
    home = tmp_path / "claude"
    shutil.copytree(CLAUDE_HOME, home)
    h = ["--claude-home", str(home)]
    rc, out, _ = run(capsys, *h, "fork", "d6e0bada", "--at", "2", "--json")
    doc = json.loads(out)
    assert (
        rc == 0 and doc["kind"] == "before-prompt" and doc["resume"].startswith("claude --resume")
    )
    rc, out, _ = run(capsys, *h, "branch", "0d3a8e6f", "--json")
    tips = json.loads(out)["tips"]
    assert [t["kind"] for t in tips].count("resume") == 1
    stranded = next(t for t in tips if t["kind"] == "branch")
    rc, out, _ = run(capsys, *h, "branch", "0d3a8e6f", "--tip", stranded["uuid"][:8], "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["kind"] == "branch" and doc["source_leaf_uuid"] == stranded["uuid"]
    resume = next(t for t in tips if t["kind"] == "resume")
    rc, _, err = run(capsys, *h, "branch", "0d3a8e6f", "--tip", resume["uuid"][:8])
    assert rc == 2 and "resume already picks" in err
    rc, out, _ = run(capsys, *h, "branch", "0d3a8e6f")
    flat = " ".join(out.split())  # (the console may wrap)
    assert rc == 0 and "resume picks this" in flat
    assert f"sidtui --claude-home {home} branch 0d3a8e6f" in flat and "--tip UUID_PREFIX" in flat


def test_repair(capsys, tmp_path):
    home = tmp_path / "claude"
    shutil.copytree(CLAUDE_HOME, home)
    h = ["--claude-home", str(home)]
    src = home / SPOTTER
    before = src.read_bytes()
    rc, out, _ = run(capsys, *h, "repair", "491e126e", "--dry-run", "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["kind"] == "repair" and doc["dry_run"] and doc["session_id"] is None
    rc, out, _ = run(capsys, *h, "repair", "491e126e")
    flat = " ".join(out.split())
    new = flat.split("repaired into: ")[1].split()[0]
    assert rc == 0 and f"claude --resume {new}" in flat
    assert f"sidtui --claude-home {home} show {new}" in flat  # as it must be typed
    assert src.read_bytes() == before and (src.parent / f"{new}.jsonl").is_file()
    rc, _, err = run(
        capsys,
        *h,
        "repair",
        str(cc_path("-Users-dain-workspace-JSSoundRecorder/agent-388fb764.jsonl")),
    )
    assert rc == 2 and "subagent" in err


@pytest.mark.parametrize("verb", ["repair", "fork"])
def test_a_text_dry_run_of_a_claude_code_session_says_what_it_would_write(capsys, tmp_path, verb):
    home = tmp_path / "claude"
    shutil.copytree(CLAUDE_HOME, home)
    rc, out, err = run(capsys, "--claude-home", str(home), verb, "491e126e", "--dry-run")
    assert rc == 0 and "would write" in out and "nothing written" in out and not err


@pytest.mark.parametrize("verb", ["repair", "salvage", "fork"])
@pytest.mark.parametrize("dry", [[], ["--dry-run"]])
def test_a_stray_jsonl_of_neither_agent_is_refused_and_nothing_is_made(
    capsys, tmp_path, monkeypatch, verb, dry
):
    stray = tmp_path / "x" / "min.jsonl"
    stray.parent.mkdir()
    stray.write_text('{"type":"user"}\n')
    monkeypatch.setenv("SID_CONFIG_DIR", str(tmp_path / "nohome"))
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    rc, out, err = run(capsys, "--claude-home", str(CLAUDE_HOME), verb, str(stray), *dry)
    assert rc == 2 and "not a session file of either agent" in err and not out
    assert len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x"]  # no home, no checkpoints
    assert [p.name for p in stray.parent.iterdir()] == ["min.jsonl"]


def test_repair_says_the_messages_claude_code_resumes_from_the_new_session(capsys, tmp_path):
    home = tmp_path / "claude"
    shutil.copytree(CLAUDE_HOME, home)
    h = ["--claude-home", str(home)]
    rc, out, _ = run(capsys, *h, "repair", "491e126e", "--json")
    doc = json.loads(out)
    rc, out, _ = run(capsys, *h, "show", doc["session_id"], "--json")
    sent = len(json.loads(out)["resume"]["messages"])
    assert doc["resume_messages"] == sent != doc["message_count"]  # turns merged on resume
    rc, out, _ = run(capsys, *h, "repair", "491e126e")
    flat = " ".join(out.split())
    assert rc == 0 and f"{doc['message_count']} messages (claude --resume sends {sent})" in flat


@pytest.mark.parametrize("verb", ["repair", "fork", "undo", "show"])
def test_an_id_found_nowhere_with_only_a_claude_home_is_said_as_show_says_it(
    capsys, tmp_path, monkeypatch, verb
):
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.sid-code
    monkeypatch.delenv("SID_CONFIG_DIR", raising=False)
    rc, out, err = run(capsys, "--claude-home", str(CLAUDE_HOME), verb, "nosuch")
    assert rc == 2 and "no Claude Code session matches 'nosuch'" in err and not out
    assert "sid-code" not in err and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("verb", ["repair", "fork"])
@pytest.mark.parametrize("dry", [[], ["--dry-run"]])
def test_a_session_file_named_in_bytes_not_utf8_is_refused_in_one_line(capsys, tmp_path, verb, dry):
    home = tmp_path / "claude"
    shutil.copytree(CLAUDE_HOME, home)
    src = home / SPOTTER
    bad = src.parent / os.fsdecode(b"bad\xff\xfename.jsonl")
    try:
        shutil.copyfile(src, bad)
    except OSError:  # a file system that only takes UTF-8 names
        pytest.skip("no non-UTF-8 file names here")
    before = sorted(os.listdir(home)), sorted(os.listdir(src.parent))
    rc, out, err = run(capsys, "--claude-home", str(home), verb, str(bad), *dry)
    assert rc == 1 and "not valid UTF-8" in err and "internal error" not in err
    assert len(err.strip().splitlines()) == 1 and "\\xff\\xfe" in err
    assert (sorted(os.listdir(home)), sorted(os.listdir(src.parent))) == before


def test_repair_of_a_sid_code_session_is_salvage(capsys, tmp_path):
    home = tmp_path / "home"
    shutil.copytree(REAL_HOME, home)
    rc, _, err = run(capsys, "--home", str(home), "repair", "20261130-052907-9ff3799b")
    assert rc == 2 and "nothing to salvage" in err  # salvage's own word for a loadable session


@pytest.mark.parametrize("verb", ["checkpoints", "undo", "redo"])
def test_a_session_without_checkpoints_is_an_error(capsys, verb):
    rc, _, err = run(capsys, "--claude-home", str(CLAUDE_HOME), verb, "07f2e15c")
    assert rc == 1 and "has no file checkpoints" in err


def test_subagent_transcripts_are_refused_for_writes(capsys):
    p = cc_path("-Users-dain-workspace-JSSoundRecorder/agent-388fb764.jsonl")
    rc, _, err = run(capsys, "fork", str(p))
    assert rc == 2 and "subagent" in err


# --------------------------------------------------------------------------- dispatch


def test_sid_code_sessions_still_go_to_sid_code(capsys, tmp_path):
    home = tmp_path / "home"
    shutil.copytree(REAL_HOME, home)
    rc, out, _ = run(
        capsys,
        "--home",
        str(home),
        "--claude-home",
        str(CLAUDE_HOME),
        "rewind",
        "20261130-052907-9ff3799b",
        "--json",
    )
    assert rc == 0 and "source" not in json.loads(out)


def test_without_home_flags_every_home_is_searched(capsys, tmp_path, monkeypatch):
    home = tmp_path / "home"
    shutil.copytree(REAL_HOME, home)
    monkeypatch.setenv("SID_CONFIG_DIR", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(CLAUDE_HOME))
    rc, out, _ = run(capsys, "checkpoints", "491e126e", "--json")
    assert rc == 0 and json.loads(out)["source"] == "claude-code"
    rc, out, _ = run(capsys, "rewind", "20261130-052907-9ff3799b", "--json")
    assert rc == 0 and "source" not in json.loads(out)
    rc, _, err = run(capsys, "checkpoints", "ffffffff-none")
    assert rc == 2 and "no session" in err.lower()
    # a home flag names its home: the Claude Code id is not looked up beside it
    rc, _, err = run(capsys, "--home", str(home), "checkpoints", "491e126e")
    assert rc == 2


def test_claude_home_flag_after_the_verb(capsys):
    rc, out, _ = run(capsys, "rewind", "d6e0bada", "--claude-home", str(CLAUDE_HOME), "--json")
    assert rc == 0 and json.loads(out)["source"] == "claude-code"


def test_a_killed_restore_is_finished_by_the_next_verb(capsys, sess, monkeypatch):
    from sidtui.core.claude import code_restore

    real = code_restore.write_files

    def killed(todo):
        raise KeyboardInterrupt

    monkeypatch.setattr(code_restore, "write_files", killed)
    rc = main(["--claude-home", str(sess["home"]), "restore", CC_SESSION, "--before", "c2"])
    assert rc != 0  # interrupted (Ctrl-C) after its journal and safety snapshot
    monkeypatch.setattr(code_restore, "write_files", real)
    capsys.readouterr()
    h = ["--claude-home", str(sess["home"])]
    rc, _, err = run(capsys, *h, "undo", CC_SESSION, "--dry-run")
    assert rc == 0 and "a real run only finishes an interrupted sidtui restore" in err
    assert sess["a"].read_bytes() == b"A3\n"
    rc, _, err = run(capsys, *h, "undo", CC_SESSION)
    assert rc == 0 and "interrupted sidtui restore" in err and "project root:" in err
    assert sess["a"].read_bytes() == b"A1\n"  # that run's work, and only that


def test_a_restore_killed_before_its_safety_snapshot_is_said_once_then_done(
    capsys, sess, monkeypatch
):
    from sidtui.core.checkpoints.manager import CheckpointManager

    def killed(*a, **kw):
        raise KeyboardInterrupt

    argv = ["--claude-home", str(sess["home"]), "restore", CC_SESSION, "--before", "c2"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(CheckpointManager, "create_snapshot", killed)
        assert main(argv) != 0  # its journal is written, its safety snapshot never lands
    capsys.readouterr()
    rc, out, err = run(capsys, *argv)
    assert rc == 0, err
    said = [ln for ln in (out + err).splitlines() if "interrupted" in ln]
    assert len(said) == 1 and "had changed nothing" in said[0], said
    assert sess["a"].read_bytes() == b"A1\n"  # and this run did what was asked


def test_piped_output_is_never_wrapped(capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    home = tmp_path / "claude"
    s = cc_edit_session(home, tmp_path / ("a-long-folder-name-" * 7) / "app")
    assert len(str(s["a"])) > 200  # wider than a piped stdout's tables
    (home / "file-history" / CC_SESSION / s["blobs"]["a1"]).unlink()  # a warning on stderr
    rc, out, err = run(
        capsys, "--claude-home", str(home), "rewind", CC_SESSION, "--to", "2", "--dry-run"
    )
    assert rc == 0, err
    assert f"  restored  {s['a']}" in out.splitlines(), out
    assert f"--- a{s['a']}" in out.splitlines()
    warning = "were already gone from the source (unrecoverable there too)"
    assert any(ln.startswith("warning: 1 backup(s)") and warning in ln for ln in err.splitlines())


# --------------------------------------------------------------------------- odd files


def _make_odd(path: Path, kind: str) -> None:
    import os

    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()


_ODD_WHY = {
    "fifo": "not a regular file (a FIFO)",
    "dev-zero": "a symbolic link to /dev/zero, a character device: not a regular file",
    "folder": "a folder, not a file",
}


@pytest.mark.parametrize("kind", sorted(_ODD_WHY))
@pytest.mark.parametrize(
    "argv", [["show"], ["checkpoints"], ["undo", "--dry-run"], ["rewind"]], ids=str
)
def test_a_transcript_that_is_not_a_regular_file_is_named_by_id(capsys, sess, tmp_path, kind, argv):
    """As sid-code's: `cannot read PATH: not a regular file (a FIFO)`, exit 1 — not 'no
    session matches' under the other home."""
    (tmp_path / "sid" / "sessions").mkdir(parents=True)
    _make_odd(sess["path"], kind)
    h = ["--home", str(tmp_path / "sid"), "--claude-home", str(sess["home"])]
    for arg in (CC_SESSION, CC_SESSION[:8]):
        rc, _, err = run(capsys, *h, argv[0], arg, *argv[1:])
        assert rc == 1 and err.strip() == (
            f"sidtui: error: cannot read {sess['path']}: {_ODD_WHY[kind]}"
        )


def _odd_registration(home: Path, pid: int) -> Path:
    import os

    reg = home / "sessions" / f"{pid}.json"
    reg.parent.mkdir(exist_ok=True)
    os.mkfifo(reg)
    return reg


def test_an_unreadable_registration_of_a_running_pid_is_possibly_live(capsys, sess):
    import os

    reg = _odd_registration(sess["home"], os.getpid())  # a process that surely runs
    h = ["--claude-home", str(sess["home"])]
    rc, _, err = run(capsys, *h, "ls")
    assert rc == 0
    assert f"warning: {reg}: not a regular file (a FIFO); treated as a possibly live" in err
    for argv in (["undo", CC_SESSION], ["restore", CC_SESSION, "--before", "c2"]):
        rc, _, err = run(capsys, *h, *argv)
        assert rc == 1 and f"is possibly live (registration {reg}: not a regular file" in err
        assert sess["a"].read_bytes() == b"A3\n"
    rc, _, err = run(capsys, *h, "undo", CC_SESSION, "--dry-run")
    assert rc == 1 and "a real run is refused" in err and "possibly live" in err
    rc, out, err = run(capsys, *h, "show", CC_SESSION)
    assert rc == 0 and "possibly live" in out + err
    rc, _, _ = run(capsys, *h, "undo", CC_SESSION, "--force")
    assert rc == 0 and sess["a"].read_bytes() == b"A2\n"


def test_an_unreadable_registration_of_a_dead_pid_is_only_a_warning(capsys, sess):
    reg = _odd_registration(sess["home"], 2**31 - 2)  # above any pid_max: no such process
    h = ["--claude-home", str(sess["home"])]
    rc, _, err = run(capsys, *h, "ls")
    assert rc == 0 and f"warning: {reg}: not a regular file (a FIFO); ignored" in err
    rc, _, _ = run(capsys, *h, "undo", CC_SESSION)
    assert rc == 0 and sess["a"].read_bytes() == b"A2\n"


def test_salvage_of_a_claude_code_session_is_a_usage_error_and_writes_nothing(capsys, sess):
    before = sorted(p.name for p in sess["path"].parent.iterdir())
    h = ["--home", str(REAL_HOME), "--claude-home", str(sess["home"])]
    for arg in (CC_SESSION, str(sess["path"])):
        rc, _, err = run(capsys, *h, "salvage", arg)
        assert rc == 2 and "is a Claude Code session: salvage is for sid-code sessions" in err
    assert sorted(p.name for p in sess["path"].parent.iterdir()) == before


def test_ls_project_in_neither_home_names_both(capsys):
    h = ["--home", str(REAL_HOME), "--claude-home", str(CLAUDE_HOME)]
    rc, out, err = run(capsys, *h, "ls", "--project", "nosuch")
    assert rc == 2 and out == ""
    assert f"under {REAL_HOME / 'sessions'} or {CLAUDE_HOME / 'projects'}" in err
    assert "sid-code: " in err and "claude-code: " in err


@pytest.mark.parametrize("columns", [80, 160])
def test_show_all_of_a_long_conversation_keeps_one_table_header(
    tmp_path, capsys, monkeypatch, columns
):
    """More than TABLE_MAX_ROWS messages: still the table's columns under one header (it used
    to print headerless rows), every row lined up with it, at 80 and 160 columns."""
    from rich.cells import cell_len

    from sidtui.cli import show as show_cli
    from tests.helpers import CC_SESSION, cc_assistant, cc_home, cc_lines, cc_user

    recs, parent = [], None
    for i in range(130):  # 260 messages
        recs.append(cc_user(f"u{i}", parent, text=f"prompt {i} " + "word " * 30, ts=2 * i))
        recs.append(cc_assistant(f"a{i}", f"u{i}", text=f"reply {i}", ts=2 * i + 1))
        parent = f"a{i}"
    home = cc_home(tmp_path / "claude", {"-tmp-cc": {f"{CC_SESSION}.jsonl": cc_lines(*recs)}})
    monkeypatch.setenv("COLUMNS", str(columns))  # the terminal's width
    rc, out, err = run(capsys, "--claude-home", str(home), "show", CC_SESSION, "--messages", "all")
    assert rc == 0, err
    assert len(recs) > show_cli.TABLE_MAX_ROWS
    lines = out.splitlines()
    headers = [i for i, ln in enumerate(lines) if ln.split()[:3] == ["#", "line", "role"]]
    assert len(headers) == 1
    rows = [ln for ln in lines[headers[0] + 2 :] if ln.strip() and ln.split()[0].isdigit()]
    assert len(rows) == 260
    # each column starts where its header does
    head = lines[headers[0]]
    starts = [head.index(c) for c in (" line", " role ", " kind", " blocks", " preview")]
    for ln in rows:
        assert cell_len(ln) <= columns
        for s in starts:
            assert ln[s] == " ", (ln, s)
    assert "prompt 0 word" in out and "reply 129" in out

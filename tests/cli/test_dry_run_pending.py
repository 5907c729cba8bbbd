"""While a killed sidtui write's journal is pending, every dry run predicts the real run.

Each case makes the pending state by a deterministic injected kill (the N-th rename a
write makes raises, as SIGKILL would stop it there), then runs the verb with
``--dry-run --json`` (which must write nothing) and for real with ``--json`` on the same
state, and compares: the exit code, whether the run only finishes the interrupted one, the
files it writes, the marker it appends, the copy it makes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sidtui.cli import main
from tests.helpers import (
    CC_SESSION,
    cc_edit_session,
    copy_real_home,
    dead_pid,
    neutralize_fixture_pids,
)

S01 = "20261130-052907-9ff3799b"
JOURNAL = "sidtui-journal.json"


class Killed(BaseException):
    """Stands in for SIGKILL: nothing after it runs (``except Exception`` cannot catch it)."""


def kill_at(argv: list[str], should_die) -> None:
    """Run the CLI on ``argv``, killed at the first ``os.replace``/``os.rename`` for which
    ``should_die(target_name)`` says ``"before"`` (the rename does not land) or
    ``"after"`` (it lands)."""
    real_replace, real_rename = os.replace, os.rename

    def wrap(real):
        def f(src, dst, *a, **kw):
            when = should_die(os.path.basename(os.fsdecode(dst)))
            if when == "before":
                raise Killed
            out = real(src, dst, *a, **kw)
            if when == "after":
                raise Killed
            return out

        return f

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(os, "replace", wrap(real_replace))
        mp.setattr(os, "rename", wrap(real_rename))
        with pytest.raises(Killed):
            main(argv)


def first_project_file(name: str) -> str | None:
    """Die before the first project file lands (the journal and safety snapshot did)."""
    return None if name.startswith(".") or name in (JOURNAL, "index.json") else "before"


def tree(*roots: Path) -> dict[str, bytes]:
    out = {}
    for root in roots:
        for p in sorted(root.rglob("*")):
            if p.is_file() and not p.is_symlink():
                out[str(p)] = p.read_bytes()
    return out


def run(capsys, argv: list[str]) -> tuple[int, dict | None, str]:
    rc = main(argv)
    out = capsys.readouterr()
    return rc, (json.loads(out.out) if out.out.strip() else None), out.err


def changed(files: list[dict] | None) -> list[tuple[str, str]]:
    return sorted((f["path"], f["action"]) for f in files or [] if f["action"] != "unchanged")


def finish_of(doc: dict | None) -> dict | None:
    """The finished (or, dry, to-be-finished) interrupted run in a sid-code ``--json``."""
    r = (doc or {}).get("resumed")
    return r if isinstance(r, dict) and r.get("changed") else None


def outcome(doc: dict | None, dry: bool) -> tuple:
    """What a run does, from its ``--json`` (the same tuple for a dry run and its real run)."""
    if doc is None:
        return ("refused",)
    fin = finish_of(doc)
    if fin is not None:
        restore = fin.get("restore") or {}
        marker = fin["marker_due"] if dry else fin["marker_uuid"] is not None
        return ("finish", fin["op"], changed(restore.get("files")), marker)
    if dry and doc.get("refusal"):
        return ("refused",)
    said = sum("interrupted" in w for w in doc.get("warnings") or [])  # leftovers it meets
    if "message_count" in doc:  # a fork
        return ("fork", doc["message_count"], doc["records_copied"], said)
    return ("run", changed(doc.get("files")), doc.get("messages_dropped"), said)


@pytest.fixture
def home(tmp_path) -> Path:
    h = copy_real_home(tmp_path / "home", tmp_path / "projects")
    neutralize_fixture_pids(h)
    return h


def _pending(home: Path, kind: str) -> None:
    h = ["--home", str(home)]
    if kind == "files":  # a restore killed after its safety snapshot, before any file
        kill_at([*h, "restore", S01, "--before", "s1", "--force"], first_project_file)
    elif kind == "nothing":  # killed before its safety snapshot: it changed nothing
        kill_at(
            [*h, "restore", S01, "--before", "s1", "--force"],
            lambda n: "before" if n == "index.json" else None,
        )
    elif kind == "marker":  # a rewind whose files landed, its marker not yet
        kill_at(
            [*h, "rewind", S01, "--to", "3", "--mode", "both", "--force"],
            lambda n: "after" if n == "login.ts" else None,
        )
    elif kind == "fork":  # a rewind --fork killed in its file step: the copy is not visible
        from sidtui.core.edits import fork

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(fork, "_discard", lambda *a: None)  # a kill runs no clean-up
            kill_at([*h, "rewind", S01, "--to", "2", "--fork", "--force"], first_project_file)
    journals = list((home / "checkpoints").rglob(JOURNAL))
    assert len(journals) == 1, journals
    j = json.loads(journals[0].read_text())
    index = json.loads((journals[0].parent / "index.json").read_text())
    safety = any(s.get("sidtuiJournal") == j["token"] for s in index["snapshots"])
    assert safety == (kind != "nothing"), kind  # else the kill was not where it is said
    assert ("marker" in j) == (kind == "marker") and ("fork" in j) == (kind == "fork")
    j["pid"] = dead_pid()  # its writer is gone, as after a real kill (not this process)
    journals[0].write_text(json.dumps(j))


VERBS = {
    "undo": ["undo", S01],
    "undo-force": ["undo", S01, "--force"],
    "redo": ["redo", S01],
    "restore": ["restore", S01, "--before", "s2", "--force"],
    "rewind-code": ["rewind", S01, "--to", "2", "--mode", "code"],
    "rewind-both": ["rewind", S01, "--to", "2", "--mode", "both", "--force"],
    "rewind-conversation": ["rewind", S01, "--to", "2", "--mode", "conversation"],
    "rewind-fork": ["rewind", S01, "--to", "2", "--fork", "--force"],
    "fork": ["fork", S01, "--at", "2"],
}
CASES = [("files", v) for v in VERBS] + [
    ("nothing", "undo-force"),
    ("nothing", "rewind-both"),
    ("marker", "undo"),
    ("marker", "rewind-conversation"),
    ("fork", "rewind-fork"),
    ("fork", "fork"),
    ("fork", "undo-force"),
]


@pytest.mark.parametrize(("kind", "verb"), CASES, ids=[f"{k}-{v}" for k, v in CASES])
def test_the_dry_run_predicts_the_real_run(home, capsys, kind, verb):
    _pending(home, kind)
    capsys.readouterr()
    argv = ["--home", str(home), *VERBS[verb], "--json"]
    before = tree(home, home.parent / "projects")
    dry_rc, dry, dry_err = run(capsys, [*argv, "--dry-run"])
    assert tree(home, home.parent / "projects") == before, "a dry run wrote"
    real_rc, real, real_err = run(capsys, argv)
    assert dry_rc == real_rc, (dry_err, real_err)
    assert outcome(dry, dry=True) == outcome(real, dry=False), (dry, real_err)
    if finish_of(real) is not None:
        assert not list((home / "checkpoints").rglob(JOURNAL))  # finished: gone
        again_rc, again, _ = run(capsys, [*argv, "--dry-run"])  # now: the verb's own plan
        assert finish_of(again) is None


def test_the_reported_case_says_one_thing(home, capsys):
    """The tester's case: a code rewind while a killed restore is pending said both "a
    real run finishes it first" and "a real run is refused", exit 1; undo said "nothing to
    undo". Each now says only what the real run does, with its exit code (0)."""
    _pending(home, "files")
    capsys.readouterr()
    h = ["--home", str(home)]
    for verb in ("rewind-code", "undo", "redo"):
        rc = main([*h, *VERBS[verb], "--dry-run"])
        out, err = capsys.readouterr()
        assert rc == 0, err
        said = [ln for ln in err.splitlines() if ln.startswith("sidtui:")]
        assert len(said) == 1, err
        assert said[0].startswith(
            "sidtui: dry run: a real run only finishes an interrupted restore"
        )
        assert "nothing else is done" in said[0] and "refused" not in err
        assert "nothing to undo" not in err
        assert out.startswith("---") and "+++" in out  # the diffs of the files it writes
    # a journal it cannot finish: the dry run stops where the real run does
    path = home / "checkpoints" / S01 / JOURNAL
    path.write_text("[]")
    for argv in (VERBS["undo"], VERBS["rewind-code"]):
        dry = run(capsys, [*h, *argv, "--dry-run", "--json"])
        real = run(capsys, [*h, *argv, "--json"])
        assert dry[0] == real[0] == 1 and "not a journal sidtui wrote" in dry[2], dry
    assert path.read_text() == "[]"


def test_a_fork_leaves_the_pending_restore_and_its_safety_snapshot(home, capsys):
    """The tester's case: ``fork S`` while a killed restore was pending said nothing, and
    the fork inherited that run's safety snapshot (which "reverts" every agent batch) but
    not its journal, so undo on the fork said "nothing to undo" though no file had been
    restored. It now warns as ``rewind --fork`` does and inherits the history as it was."""
    _pending(home, "files")
    capsys.readouterr()
    h = ["--home", str(home)]
    token = json.loads((home / "checkpoints" / S01 / JOURNAL).read_text())["token"]
    assert main([*h, "fork", S01, "--dry-run"]) == 0
    assert "a fork leaves it so" in " ".join(capsys.readouterr().out.split())  # Rich wraps
    _, dry, _ = run(capsys, [*h, "fork", S01, "--dry-run", "--json"])
    rc, real, err = run(capsys, [*h, "fork", S01, "--json"])
    assert rc == 0, err
    for doc in (dry, real):
        assert any("a fork leaves it so" in w for w in doc["warnings"]), doc
    assert dry["checkpoints_inherited"] == real["checkpoints_inherited"] > 0
    child = json.loads((home / "checkpoints" / real["session_id"] / "index.json").read_text())
    assert len(child["snapshots"]) == real["checkpoints_inherited"]
    assert all(s.get("sidtuiJournal") != token for s in child["snapshots"])
    assert (home / "checkpoints" / S01 / JOURNAL).exists()  # the source's, left so
    rc = main([*h, "undo", real["session_id"], "--dry-run", "--force"])  # fixture drift
    out, err = capsys.readouterr()
    assert rc == 0 and "nothing to undo" not in err + out, err
    assert out.startswith("---") and "+++" in out  # the files the fork's undo writes


# --------------------------------------------------------------------------- Claude Code


@pytest.fixture
def cc(tmp_path) -> list[str]:
    claude = tmp_path / "claude"
    cc_edit_session(claude, tmp_path / "work" / "app")
    return ["--claude-home", str(claude)]


def cc_outcome(doc: dict | None, err: str, dry: bool) -> tuple:
    if doc is None:
        return ("refused",)
    if dry and doc.get("refusal"):
        return ("refused",)
    finishing = "only finishes an interrupted" in err if dry else "is finished first" in err
    return (finishing, changed(doc.get("files")))


CC_VERBS = {
    "undo": ["undo", CC_SESSION, "--force"],
    "redo": ["redo", CC_SESSION],
    "restore": ["restore", CC_SESSION, "--before", "c2", "--force"],
    "rewind-code": ["rewind", CC_SESSION, "--to", "1", "--mode", "code", "--force"],
}


@pytest.mark.parametrize("kind", ["files", "nothing"])
@pytest.mark.parametrize("verb", list(CC_VERBS))
def test_claude_code_dry_run_predicts_the_real_run(cc, tmp_path, capsys, kind, verb):
    if kind == "files":
        kill_at([*cc, "restore", CC_SESSION, "--before", "c1", "--force"], first_project_file)
    else:
        kill_at(
            [*cc, "restore", CC_SESSION, "--before", "c1", "--force"],
            lambda n: "before" if n == "index.json" else None,
        )
    capsys.readouterr()
    argv = [*cc, *CC_VERBS[verb], "--json"]
    before = tree(tmp_path)
    dry_rc, dry, dry_err = run(capsys, [*argv, "--dry-run"])
    assert tree(tmp_path) == before, "a dry run wrote"
    real_rc, real, real_err = run(capsys, argv)
    assert dry_rc == real_rc, (dry_err, real_err)
    assert cc_outcome(dry, dry_err, True) == cc_outcome(real, real_err, False), (dry_err, real_err)
    if kind == "files":
        assert "only finishes an interrupted" in dry_err


@pytest.mark.parametrize("writer", ["reused", "reused-old-journal", "alive"])
def test_a_reused_pid_does_not_hold_a_killed_runs_journal(home, capsys, writer):
    """After a reboot or a pid wrap another process may hold the journal's pid: it is not
    the writer when it started after it (the start time recorded, else the journal's last
    write), so the next undo finishes the killed run instead of refusing for good."""
    import subprocess
    import sys

    import psutil

    _pending(home, "files")
    path = next((home / "checkpoints").rglob(JOURNAL))
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        started = psutil.Process(child.pid).create_time()
        j = json.loads(path.read_text())
        j["pid"] = child.pid
        if writer == "reused":
            j["pidStarted"] = started - 3600
        elif writer == "alive":
            j["pidStarted"] = started
        path.write_text(json.dumps(j))
        if writer == "reused-old-journal":  # a journal from before start times were kept
            os.utime(path, (started - 3600, started - 3600))
        code, _, err = run(capsys, ["--home", str(home), "undo", S01])
        if writer == "alive":
            assert code == 1 and f"another sidtui (process {child.pid})" in err
            assert path.exists()
        else:
            assert code == 0 and "finished an interrupted" in err, err
            assert not path.exists()
    finally:
        child.kill()
        child.wait()

"""Registrations sidtui cannot read or whose shape the agent never writes count as possibly
live: every change is refused (naming the file) unless ``--force`` (docs/DECISIONS.md,
"Reading a hostile disk"). One matching rule for every verb: a registration names a session
file when its id is the file's name, its ``session_start.sessionId``, a
``trace_session_id`` in it, or its ``logicalSessionId``."""

from __future__ import annotations

import json
import os
import shutil
import time

import pytest

from sidtui.cli import main
from tests.helpers import copy_real_home, neutralize_fixture_pids, settle_s01_drift

S01 = "20261130-052907-9ff3799b"
WEBAPP = "tmp-sidtui-fixture-projects-webapp"


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture
def fixture(tmp_path):
    home = copy_real_home(tmp_path / "home", tmp_path / "projects")
    neutralize_fixture_pids(home)
    return home, tmp_path / "projects"


def _now_ms() -> int:
    return int(time.time() * 1000)


SHAPES = {
    "torn JSON": b'{"sessionId": "' + S01.encode() + b'", "pid": 12',
    "a folder": None,
    "pid as a string": {"pid": str(os.getpid()), "startedAt": "now"},
    "startedAt in seconds": {"pid": os.getpid(), "startedAt": "seconds"},
    "startedAt as a string": {"pid": os.getpid(), "startedAt": "text"},
    "no pid": {"startedAt": "now"},
}


def _register(home, name: str, shape) -> None:
    reg = home / "active-sessions" / f"{name}.json"
    if shape is None:
        reg.mkdir()
        return
    if isinstance(shape, bytes):
        reg.write_bytes(shape)
        return
    d = {"sessionId": name, "kind": "interactive", "cwd": "/tmp/x", **shape}
    started = d.get("startedAt")
    if started == "now":
        d["startedAt"] = _now_ms()
    elif started == "seconds":
        d["startedAt"] = int(time.time())
    elif started == "text":
        d["startedAt"] = "2026-01-01T00:00:00Z"
    reg.write_text(json.dumps(d))


@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
def test_odd_registration_is_possibly_live(fixture, capsys, shape):
    home, projects = fixture
    _register(home, S01, SHAPES[shape])
    login = projects / "webapp" / "src" / "login.ts"
    before = login.read_bytes()
    for argv in (
        ["undo", S01],
        ["restore", S01, "--before", "s1"],
        ["rewind", S01, "--to", "1", "--mode", "code"],
        ["rewind", S01, "--to", "1", "--mode", "conversation"],
    ):
        rc, out, err = run(capsys, "--home", home, *argv)
        assert rc == 1, (argv, out, err)
        assert f"{S01}.json" in err and "possibly live" in err, (argv, err)
        assert login.read_bytes() == before
    rc, out, err = run(capsys, "--home", home, "undo", S01, "--dry-run")  # as the real run
    assert rc == 1 and "a real run is refused" in err and "possibly live" in err, err
    rc, out, _ = run(capsys, "--home", home, "ls", "--json", "--no-cache")
    assert next(s for s in json.loads(out) if s["session_id"] == S01)["live"] is True
    rc, out, err = run(capsys, "--home", home, "undo", S01, "--force")
    assert rc == 0, err
    assert login.read_bytes() != before


def test_a_well_formed_dead_registration_is_stale_not_live(fixture, capsys):
    home, projects = fixture
    reg = home / "active-sessions" / f"{S01}.json"
    reg.write_text(
        json.dumps(
            {"sessionId": S01, "pid": 4_999_999, "kind": "interactive", "startedAt": _now_ms()}
        )
    )
    settle_s01_drift(projects)  # a later session's edit is not what this test is about
    rc, _, err = run(capsys, "--home", home, "undo", S01)
    assert rc == 0, err


def _renamed(home, new: str):
    """S01's transcript and checkpoints copied under another file name (its session_start
    still says S01)."""
    folder = home / "sessions" / WEBAPP
    shutil.copy(folder / f"{S01}.jsonl", folder / f"{new}.jsonl")
    (folder / f"{S01}.jsonl").unlink()
    shutil.copytree(home / "checkpoints" / S01, home / "checkpoints" / new)


def _live(home, name: str) -> None:
    (home / "active-sessions" / f"{name}.json").write_text(
        json.dumps(
            {"sessionId": name, "pid": os.getpid(), "kind": "interactive", "startedAt": _now_ms()}
        )
    )


@pytest.mark.parametrize("registered", ["file name", "session_start id"])
def test_one_rule_matches_a_registration_to_a_file(fixture, capsys, registered):
    home, projects = fixture
    new = "20261130-052907-0000aaaa"
    _renamed(home, new)
    _live(home, new if registered == "file name" else S01)
    login = projects / "webapp" / "src" / "login.ts"
    before = login.read_bytes()
    first = (home / "sessions" / WEBAPP / f"{new}.jsonl").read_bytes().splitlines()[1]
    tip = json.loads(first)["uuid"]
    for argv in (
        ["undo", new],
        ["rewind", new, "--to", "1", "--mode", "conversation"],
        ["rewind", new, "--to", "1", "--mode", "code"],
        ["branch", new, "--tip", tip],
    ):
        rc, _, err = run(capsys, "--home", home, *argv)
        assert rc == 1 and "live" in err, (argv, err)
    assert login.read_bytes() == before
    rc, out, _ = run(capsys, "--home", home, "show", new, "--json")
    assert json.loads(out)["live"] is True
    rc, out, _ = run(capsys, "--home", home, "ls", "--json", "--no-cache")
    assert next(s for s in json.loads(out) if s["session_id"] == new)["live"] is True

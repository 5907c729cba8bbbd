"""`sidtui checkpoints / undo / restore / redo` on the real fixture home."""

from __future__ import annotations

import json
import shutil

from sidtui.cli import main
from tests.helpers import REAL_ORACLE

S01 = "20261130-052907-9ff3799b"
S11 = "20261130-052918-63b1c5f8"
S14 = "20261130-052919-7c46f0c3"


def run(capsys, *argv):
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_checkpoints_json_lists_snapshots_and_health(real_home_with_projects, capsys):
    home, _ = real_home_with_projects
    rc, out, _ = run(capsys, "--home", str(home), "checkpoints", S11, "--json")
    assert rc == 0
    doc = json.loads(out)
    assert [s["id"] for s in doc["snapshots"]] == [f"s{i}" for i in (1, 2, 3, 4, 5, 7, 8, 9, 10)]
    s3 = doc["snapshots"][2]
    assert s3["tool_name"] == "edit, write"
    assert {(f["type"], f["compressed"], f["existed_before"]) for f in s3["files"]} == {
        ("full", True, True),
        ("full", False, False),
    }
    drawings = {f["file_path"].rsplit("/", 1)[1]: f["drawing"] for f in doc["files"]}
    assert drawings["util.py"] == "full·gz → diff"
    assert drawings["extra.py"] == "absent → diff → absent"


def test_show_prints_raw_pre_image_or_fails_with_reason(real_home_with_projects, capsys):
    home, _ = real_home_with_projects
    rc, out, _ = run(capsys, "--home", str(home), "checkpoints", S11, "--show", "config.ini@s2")
    assert rc == 0 and out.startswith("[server]\r\nhost_name = localhost\r\n")
    rc, out, err = run(capsys, "--home", str(home), "checkpoints", S14, "--show", "huge.log@s2")
    assert rc == 1 and out == "" and "EMPTY_OPS_DIFF_AT_s2" in err
    rc, _, err = run(capsys, "--home", str(home), "checkpoints", S11, "--show", "nope")
    assert rc == 2 and "PATH@SNAPSHOT" in err


def test_undo_dry_run_then_undo_then_redo(real_home_with_projects, capsys):
    home, projects = real_home_with_projects
    login = projects / "webapp" / "src" / "login.ts"
    index = home / "checkpoints" / S01 / "index.json"
    current, index_before = login.read_bytes(), index.read_bytes()
    rc, out, err = run(capsys, "--home", str(home), "undo", S01, "--force", "--dry-run")
    assert rc == 0 and out.startswith("--- a") and "@@" in out and "nothing written" in err
    assert login.read_bytes() == current and index.read_bytes() == index_before
    rc, out, _ = run(capsys, "--home", str(home), "undo", S01, "--force", "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["target"] == "s3" and doc["safety_snapshot"] == "s4"
    truth = json.loads((REAL_ORACLE / "checkpoints" / S01 / "index.json.oracle.json").read_text())[
        "snapshots"
    ][2]["files"]["/tmp/sidtui-fixture-projects/webapp/src/login.ts"]
    assert login.read_text() == truth["truthAtSnapshotTime"]["content"]  # s3's pre-image
    rc, out, _ = run(capsys, "--home", str(home), "redo", S01, "--force")
    assert rc == 0 and login.read_bytes() == current
    assert json.loads(index.read_text())["snapshots"][:3] == json.loads(index_before)["snapshots"]


def test_restore_before_first_snapshot(real_home_with_projects, capsys):
    home, projects = real_home_with_projects
    webapp = projects / "webapp"
    rc, out, err = run(capsys, "--home", str(home), "restore", S01, "--force", "--before", "s1")
    assert rc == 0, err
    assert "deleted" in out and f"`sidtui --home {home} redo {S01}`" in out
    assert not (webapp / "src" / "validate.test.ts").exists()
    assert (webapp / "src" / "validate.ts").read_text().startswith("export function isNonEmpty")
    rc, _, err = run(capsys, "--home", str(home), "restore", S01, "--before", "s99")
    assert rc == 2 and "no snapshot 's99'" in err


def test_checkpoint_only_session_needs_a_root(real_home_with_projects, capsys):
    home, _ = real_home_with_projects
    orphan = "20261205-000000-cafecafe"
    shutil.copytree(home / "checkpoints" / S01, home / "checkpoints" / orphan)
    rc, out, _ = run(capsys, "--home", str(home), "checkpoints", orphan, "--json")
    assert rc == 0 and json.loads(out)["project_root"] is None
    rc, _, err = run(capsys, "--home", str(home), "undo", orphan)
    assert rc == 1 and "no project root is known" in err
    rc, _, err = run(capsys, "--home", str(home), "undo", "20261299")
    assert rc == 2


def test_live_session_is_refused_unless_forced(real_home_with_projects, capsys):
    import os
    import time

    home, projects = real_home_with_projects
    reg = home / "active-sessions" / f"{S01}.json"
    reg.parent.mkdir(exist_ok=True)
    reg.write_text(
        json.dumps(
            {
                "sessionId": S01,
                "pid": os.getpid(),
                "kind": "interactive",
                "cwd": str(projects / "webapp"),
                "startedAt": int(time.time() * 1000),
            }
        )
    )
    login = projects / "webapp" / "src" / "login.ts"
    before = login.read_bytes()
    rc, _, err = run(capsys, "--home", str(home), "undo", S01)
    assert rc == 1 and "is live" in err and login.read_bytes() == before
    rc, _, err = run(capsys, "--home", str(home), "undo", S01, "--dry-run")
    assert rc == 1 and "sidtui: dry run: a real run is refused: " in err and "is live" in err
    rc, out, _ = run(capsys, "--home", str(home), "undo", S01, "--dry-run", "--json")
    assert rc == 1 and "is live" in json.loads(out)["refusal"]
    rc, _, err = run(capsys, "--home", str(home), "undo", S01, "--dry-run", "--force")
    assert rc == 0 and "a real run is refused" not in err
    rc, _, _ = run(capsys, "--home", str(home), "undo", S01, "--force")
    assert rc == 0 and login.read_bytes() != before


def test_v1_json_session_root_comes_from_its_directories(real_home_with_projects, capsys):
    home, projects = real_home_with_projects
    rc, out, _ = run(
        capsys, "--home", str(home), "checkpoints", "20260301-101010-1111aaaa", "--json"
    )
    doc = json.loads(out)
    assert rc == 0 and doc["legacy_migrated"]
    assert doc["project_root"] == str(projects / "legacy-proj")


def test_entry_without_file_path_is_reported_not_a_crash(real_home_copy, capsys):
    """Fresh-user finding: an entry with no filePath made `checkpoints` fail internally."""
    import json

    from sidtui.cli import main

    p = real_home_copy / "checkpoints" / "20261130-052907-9ff3799b" / "index.json"
    d = json.loads(p.read_text())
    del d["snapshots"][2]["files"][0]["filePath"]
    p.write_text(json.dumps(d, indent=2))
    code = main(["--home", str(real_home_copy), "checkpoints", "20261130-052907-9ff3799b"])
    out, err = capsys.readouterr()
    assert code == 0 and "has no filePath" in err and "internal error" not in err
    assert "(entry without filePath)" in out


def test_undo_redo_restore_print_markup_paths_literally(tmp_path, capsys, monkeypatch):
    """A project path holding Rich markup ('[/]') is printed as written after the files were
    restored (it raised MarkupError after the change: the user was told "internal error")."""
    from tests.helpers import REAL_HOME, REAL_PROJECTS, remap_fixture_paths

    monkeypatch.setenv("COLUMNS", "1000")  # tmp paths are long: keep each line whole
    home, projects = tmp_path / "home", tmp_path / "pro[/]j[bold]"
    shutil.copytree(REAL_HOME, home)
    shutil.copytree(REAL_PROJECTS, projects, symlinks=True)
    remap_fixture_paths(home, projects)
    rc, out, err = run(capsys, "--home", str(home), "undo", S01, "--force")
    assert rc == 0, err
    assert f"{projects}/webapp/src/login.ts" in out and f"redo {S01}`" in out
    rc, out, err = run(capsys, "--home", str(home), "redo", S01, "--force")
    assert rc == 0 and "pro[/]j[bold]" in out, err
    rc, out, err = run(capsys, "--home", str(home), "restore", S01, "--force", "--before", "s1")
    assert rc == 0 and "pro[/]j[bold]" in out, err

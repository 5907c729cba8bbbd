"""A directory's project folder as the agent's ``-c`` finds it, and the project key
(FORMAT.md §1.3, §1.5).
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from sidtui.core.base.errors import SessionNotFound
from sidtui.core.base.home import Home
from sidtui.core.base.project import (
    ProjectKeyTooLong,
    check_key_fits,
    latest_in_project,
    lookup_project,
    project_key,
)
from sidtui.core.base.resolve import resolve_session
from tests.helpers import REAL_HOME


def test_latest_in_project_scans_only_that_project(real_home_with_projects):
    home_dir, projects = real_home_with_projects
    (projects / "webapp" / ".git").mkdir()  # webapp was a git repo (the copy has no .git)
    home = Home(home_dir)
    latest = latest_in_project(home, projects / "webapp" / "src")
    assert latest is not None and latest.project == "tmp-sidtui-fixture-projects-webapp"
    # a newer file in another project must not be picked
    other = (
        home_dir
        / "sessions"
        / "tmp-sidtui-fixture-projects-cli-tool"
        / "20261130-052907-79e5ff19.jsonl"
    )
    os.utime(other, (2_000_000_000, 2_000_000_000))
    again = latest_in_project(home, projects / "webapp")
    assert again.project == "tmp-sidtui-fixture-projects-webapp"
    assert latest_in_project(home, home_dir) is None
    assert resolve_session(home, "latest", cwd=projects / "webapp").project.endswith("webapp")
    with pytest.raises(SessionNotFound):
        resolve_session(home, "latest", cwd=home_dir)


def test_project_key_matches_the_agents_folders():
    assert (
        project_key("/tmp/sidtui-fixture-projects/webapp") == "tmp-sidtui-fixture-projects-webapp"
    )
    key = project_key("/tmp/sidtui-fixture-projects/工作 notes")
    assert key == "tmp-sidtui-fixture-projects-notes-1c8af1"
    assert (REAL_HOME / "sessions" / key).is_dir()


def _two_projects(tmp_path):
    """A home with sessions of projects a/ and b/ under tmp/projects/ (keys computed)."""
    projects = tmp_path.resolve() / "projects"
    home = tmp_path / "home"
    for name, stamp in (("a", 1_000_000_000), ("b", 2_000_000_000)):
        root = projects / name
        root.mkdir(parents=True)
        folder = home / "sessions" / project_key(root)
        folder.mkdir(parents=True)
        sid = f"20261130-05290{name == 'b':d}-0000000{name == 'b':d}"
        f = folder / f"{sid}.jsonl"
        start = {
            "type": "session_start",
            "version": "3.0",
            "sessionId": sid,
            "cwd": str(root),
            "timestamp": "2026-11-29T21:29:00.000Z",
            "uuid": "u1",
            "parentUuid": None,
        }
        f.write_bytes(orjson.dumps(start) + b"\n")
        os.utime(f, (stamp, stamp))
    return Home(home), projects


def test_a_cwd_whose_key_is_too_long_for_a_folder_name_has_no_folder(short_tmp_path):
    """Regression: from a folder nested so deep that its key is longer than a file name may
    be (255 bytes), ``latest`` failed with an internal error (ENAMETOOLONG); the agent
    cannot have made that folder, so there is none, and a folder whose session ran there
    still stands for it."""
    home, projects = _two_projects(short_tmp_path)
    deep = projects / ("d" * 200) / ("e" * 100)
    assert len(project_key(deep)) > 255
    found = lookup_project(home, deep)
    assert found.folder is None and found.key == project_key(deep)
    with pytest.raises(SessionNotFound):
        resolve_session(home, "latest", cwd=deep)


@pytest.mark.parametrize("where", ["/", "parent", "projects", "home"])
def test_latest_outside_any_project_picks_no_other_project(short_tmp_path, where):
    home, projects = _two_projects(short_tmp_path)
    cwd = {"/": Path("/"), "parent": short_tmp_path, "projects": projects, "home": home.root}[where]
    assert lookup_project(home, cwd).folder is None
    assert latest_in_project(home, cwd) is None
    with pytest.raises(SessionNotFound) as exc:
        resolve_session(home, "latest", cwd=cwd)
    msg = str(exc.value)
    assert f"no session of the project for {cwd.resolve()}" in msg
    assert f"(folder {project_key(cwd.resolve())})" in msg
    # the hint names the projects below, never silently picks one
    if where in ("parent", "projects"):
        assert [c.split("  ")[0] for c in exc.value.candidates] == [
            str((projects / "a").resolve()),
            str((projects / "b").resolve()),
        ]


def test_latest_uses_the_computed_folder_even_when_another_is_newer(short_tmp_path):
    home, projects = _two_projects(short_tmp_path)
    assert resolve_session(home, "latest", cwd=projects / "a").session_id.endswith("00000000")
    assert resolve_session(home, "latest", cwd=projects / "b").session_id.endswith("00000001")
    # a plain subfolder of a non-git project is its own project for the agent
    (projects / "a" / "sub").mkdir()
    with pytest.raises(SessionNotFound):
        resolve_session(home, "latest", cwd=projects / "a" / "sub")
    # inside a git repo, the top level is the project
    (projects / "a" / ".git").mkdir()
    assert resolve_session(home, "latest", cwd=projects / "a" / "sub").project == project_key(
        (projects / "a").resolve()
    )


def test_latest_empty_project_folder_is_not_found(short_tmp_path):
    home, projects = _two_projects(short_tmp_path)
    (projects / "c").mkdir()
    (home.sessions_dir / project_key((projects / "c").resolve())).mkdir()
    with pytest.raises(SessionNotFound, match="no session of the project for"):
        resolve_session(home, "latest", cwd=projects / "c")


def test_the_agent_keeps_the_whole_path_in_a_key_however_long():
    """What sid-code 0.1.601 does with a long project path (its loader run from a folder
    whose key is 228 characters made ``sessions/<that key>/`` as is; from one of 331 its
    ``mkdir`` failed with ENAMETOOLONG, once, with no shorter name tried): the key is never
    cut, and a writer refuses a key a folder name cannot hold."""
    long_root = "/tmp/i32k/" + "/".join(["ffffffffff"] * 18) + "/sid-oracle-I0sqQz/cwd"
    key = project_key(long_root)
    assert len(key) == 228
    assert key == "tmp-i32k-" + "-".join(["ffffffffff"] * 18) + "-sid-oracle-I0sqQz-cwd"
    assert check_key_fits(long_root) == key
    too_long = "/tmp/" + "/".join(["d" * 50] * 6) + "/sid-oracle-31G3I8/cwd"
    assert len(project_key(too_long)) == 331
    with pytest.raises(ProjectKeyTooLong) as exc:
        check_key_fits(too_long)
    assert exc.value.exit_code == 2 and "331 bytes here" in str(exc.value)
    # the boundary is the file system's: 255 bytes fit, 256 do not (the hash suffix counts)
    assert check_key_fits("/" + "a" * 255) == "a" * 255
    with pytest.raises(ProjectKeyTooLong):
        check_key_fits("/" + "a" * 256)
    with pytest.raises(ProjectKeyTooLong):
        check_key_fits("/" + "a" * 249 + "/é")  # 249 + "-" + 6 hex digits

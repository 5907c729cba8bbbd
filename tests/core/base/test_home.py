"""Layout discovery and session resolution (FORMAT.md §1)."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from sidtui.core.base.errors import AmbiguousSession, SessionNotFound
from sidtui.core.base.home import (
    Home,
    discover,
    latest_in_project,
    lookup_project,
    project_key,
    resolve_session,
    safe_id,
)
from tests.helpers import REAL_HOME


def test_resolve_home_order(tmp_path):
    assert Home.resolve(str(tmp_path), {"SID_CONFIG_DIR": "/nope"}).root == tmp_path
    assert Home.resolve(None, {"SID_CONFIG_DIR": str(tmp_path)}).root == tmp_path
    assert Home.resolve(None, {"HOME": str(tmp_path)}).root == tmp_path / ".sid-code"


def test_sidechains_told_apart_by_first_record():
    files = {f.session_id: f for f in discover(Home(REAL_HOME))}
    assert files["20261130-052917-0c88f996"].kind == "main"
    sc = files["20261130-052917-0c88f996-a5g0r1q4l"]
    assert sc.kind == "sidechain" and sc.parent_session_id == "20261130-052917-0c88f996"
    assert files["8f3c2a1b"].container == "json"
    assert files["5d2e9f01"].project == "_legacy"


def test_flat_files_of_old_layout(tmp_path):
    (tmp_path / "sessions").mkdir()
    (tmp_path / "sessions" / "abcd1234.jsonl").write_text('{"type":"session_start"}\n')
    (f,) = discover(Home(tmp_path))
    assert f.project == "" and f.session_id == "abcd1234"


def test_resolve_prefix_main_wins_over_sidechains():
    home = Home(REAL_HOME)
    assert resolve_session(home, "20261130-052917-0c88f996").kind == "main"
    assert resolve_session(home, "20261130-052917-0c88f996-a5g").kind == "sidechain"
    with pytest.raises(AmbiguousSession) as e:
        resolve_session(home, "20261130-0529")
    assert len(e.value.candidates) > 2
    with pytest.raises(SessionNotFound):
        resolve_session(home, "20261130-052907-9ff3799c")


def test_resolve_by_path():
    p = REAL_HOME / "sessions" / "_legacy" / "5d2e9f01.jsonl"
    f = resolve_session(Home(REAL_HOME), str(p))
    assert f.session_id == "5d2e9f01" and f.project == "_legacy"


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


def test_safe_id():
    assert safe_id("a/b.c-d_e") == "a_b_c-d_e"


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


@pytest.mark.parametrize("where", ["/", "parent", "projects", "home"])
def test_latest_outside_any_project_picks_no_other_project(tmp_path, where):
    home, projects = _two_projects(tmp_path)
    cwd = {"/": Path("/"), "parent": tmp_path, "projects": projects, "home": home.root}[where]
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


def test_latest_uses_the_computed_folder_even_when_another_is_newer(tmp_path):
    home, projects = _two_projects(tmp_path)
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


def test_latest_empty_project_folder_is_not_found(tmp_path):
    home, projects = _two_projects(tmp_path)
    (projects / "c").mkdir()
    (home.sessions_dir / project_key((projects / "c").resolve())).mkdir()
    with pytest.raises(SessionNotFound, match="no session of the project for"):
        resolve_session(home, "latest", cwd=projects / "c")


@pytest.mark.parametrize(
    "layout, hint",
    [
        ("demo", "home/sessions exists: try sidtui --home {root}/home"),
        ("dot", ".sid-code exists: try sidtui --home {root}/.sid-code"),
        ("empty", None),
        ("bare", None),
    ],
)
def test_empty_home_hint_says_what_was_looked_for_and_where(tmp_path, layout, hint):
    """Regression: ``sidtui --home DIR`` on a demo's ``--dir`` (the home is DIR/home) or on
    a home with no sessions showed a blank table and ``ls`` said only "no sessions"."""
    from sidtui.core.base.home import empty_home_hint

    root = tmp_path / "dir"
    root.mkdir()
    if layout == "demo":
        (root / "home" / "sessions" / "proj").mkdir(parents=True)
    elif layout == "dot":
        (root / ".sid-code").mkdir()
    elif layout == "empty":
        (root / "sessions").mkdir()
    lines = empty_home_hint(Home(root)).splitlines()
    if layout == "empty":
        assert lines == [
            f"no sessions under {root}/sessions (looked for <project>/<id>.jsonl and .json files)"
        ]
    else:
        assert (
            lines[0]
            == f"no sessions: {root}/sessions does not exist (sessions live in <home>/sessions/)"
        )
    if hint is None:
        assert len(lines) == 1
    else:
        assert lines[1].endswith(hint.format(root=root)), lines

"""Layout discovery and session resolution (DESIGN §2, seed §4.1–4.2)."""

from __future__ import annotations

import os

import pytest

from sidtui.core.errors import AmbiguousSession, SessionNotFound
from sidtui.core.home import Home, discover, latest_in_project, resolve_session, safe_id
from tests.conftest import REAL_HOME


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
    home = Home(home_dir)
    latest = latest_in_project(home, projects / "webapp" / "src")
    assert latest is not None and latest.project == "tmp-sidtui-fixture-projects-webapp"
    # a newer file in another project must not be picked
    other = home_dir / "sessions" / "tmp-sidtui-fixture-projects-cli-tool" / "20261130-052907-79e5ff19.jsonl"
    os.utime(other, (2_000_000_000, 2_000_000_000))
    again = latest_in_project(home, projects / "webapp")
    assert again.project == "tmp-sidtui-fixture-projects-webapp"
    assert latest_in_project(home, home_dir) is None
    assert resolve_session(home, "latest", cwd=projects / "webapp").project.endswith("webapp")
    with pytest.raises(SessionNotFound):
        resolve_session(home, "latest", cwd=home_dir)


def test_safe_id():
    assert safe_id("a/b.c-d_e") == "a_b_c-d_e"

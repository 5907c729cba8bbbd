"""Project roots refused for writing: ``/`` and the user's home folder itself."""

from __future__ import annotations

from sidtui.core.base.project import explicit_root, project_root_for


def test_the_home_folder_itself_is_refused_as_a_session_root(tmp_path):
    home = tmp_path / "me"
    (home / "proj").mkdir(parents=True)
    r = project_root_for(str(home), home)
    assert r.refusal == f"{home.resolve()} is your home folder"
    assert project_root_for(str(home / "proj"), home).refusal is None


def test_the_home_folder_itself_is_refused_as_an_explicit_root(tmp_path):
    home = tmp_path / "me"
    (home / "proj").mkdir(parents=True)
    assert explicit_root(str(home), home).refusal == f"{home.resolve()} is your home folder"
    assert explicit_root(str(home / "proj"), home).refusal is None
    assert explicit_root("/", home).refusal == "/ is the whole file system"

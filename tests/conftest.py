"""Shared fixtures. The real home is off limits: tests use tmp_path copies."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
FIXTURES = SHARED / "fixtures"
REAL_HOME = FIXTURES / "real-home"
REAL_ORACLE = FIXTURES / "real-home-oracle"
REAL_PROJECTS = FIXTURES / "real-projects"
FIXTURE_PREFIX = "/tmp/sidtui-fixture-projects"


@pytest.fixture(autouse=True)
def _no_real_home(monkeypatch, tmp_path_factory):
    """Point HOME and SID_CONFIG_DIR away from the user's real ~/.sid-code."""
    fake = tmp_path_factory.mktemp("fakehome")
    monkeypatch.setenv("HOME", str(fake))
    monkeypatch.setenv("SID_CONFIG_DIR", str(fake / ".sid-code-must-not-be-used"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(fake / ".cache"))


@pytest.fixture
def real_home_copy(tmp_path) -> Path:
    """A writable copy of the real-home fixture (never mutate the committed one)."""
    dst = tmp_path / "home"
    shutil.copytree(REAL_HOME, dst)
    return dst


def remap_fixture_paths(home: Path, projects_root: Path) -> None:
    """Rewrite ``/tmp/sidtui-fixture-projects`` to ``projects_root`` in every home file."""
    old = FIXTURE_PREFIX.encode()
    new = str(projects_root).encode()
    for p in home.rglob("*"):
        if p.is_file():
            data = p.read_bytes()
            if old in data:
                p.write_bytes(data.replace(old, new))


@pytest.fixture
def real_home_with_projects(tmp_path) -> tuple[Path, Path]:
    """(home, projects): copies of real-home and real-projects with paths remapped."""
    home = tmp_path / "home"
    projects = tmp_path / "projects"
    shutil.copytree(REAL_HOME, home)
    shutil.copytree(REAL_PROJECTS, projects, symlinks=True)
    remap_fixture_paths(home, projects)
    return home, projects


def pytest_report_header(config):
    return f"sidtui fixtures: {FIXTURES} ({'present' if FIXTURES.exists() else 'MISSING'})"


os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

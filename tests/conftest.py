"""Pytest fixtures. The user's real home is off limits: tests use tmp_path copies.

Paths and builders live in ``tests/helpers.py``; test modules import them from there.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.helpers import FIXTURES, copy_real_home, short_folder

# Hypothesis (CONTRIBUTING.md, "Hypothesis"): "ci" when $CI is set — derandomized (the same
# examples on every run and machine); "dev" elsewhere — one random seed per run, named in the
# log (pytest_configure below). Neither keeps an example database (a forced seed turns it
# off anyway): a failure is repeated by its seed or its printed blob, and kept by an
# @example. $SIDTUI_HYPOTHESIS_PROFILE picks one by name. A test's own @settings
# (max_examples, deadline) overrides only what it names.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True, deadline=None)
settings.register_profile("dev", database=None, print_blob=True, deadline=None)
settings.load_profile(
    os.environ.get("SIDTUI_HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)


#: The deepest temporary folder (bytes) under which a test's demo projects still have keys
#: that fit a folder name: the agent names a project's session folder after its whole path
#: and cannot make it past 255 bytes (FORMAT.md §1.3); a test's ``tmp_path`` adds ~40, a
#: demo project ~35.
SHORT_BASE_MAX = 120


@pytest.fixture(scope="session")
def short_base(tmp_path_factory) -> Iterator[Path]:
    """A folder for tests whose projects' keys must fit a folder name (``sessions/<key>/``
    folders made from the project's path): the run's temporary folder when it is shallow
    enough, else (a ``TMPDIR`` ~200 characters deep) a fresh folder under ``/tmp``, removed
    at the end. While a test uses it, HOME is this folder (``_no_real_home``)."""
    base = tmp_path_factory.getbasetemp()
    if len(os.fsencode(base)) <= SHORT_BASE_MAX:
        yield base
        return
    short = Path(tempfile.mkdtemp(prefix="sidtui-short-", dir="/tmp"))
    try:
        yield short
    finally:
        shutil.rmtree(short, ignore_errors=True)


@pytest.fixture
def short_tmp_path(short_base, tmp_path, request) -> Path:
    """``tmp_path``, or a fresh folder under :func:`short_base` when ``tmp_path`` is too deep
    for a project key made from it to fit a folder name (tests that are not about long
    paths)."""
    if short_base in tmp_path.parents:
        return tmp_path
    return short_folder(short_base, request.node.name)


@pytest.fixture(autouse=True)
def _no_real_home(monkeypatch, tmp_path_factory, request):
    """Point HOME and SID_CONFIG_DIR away from the user's real ~/.sid-code.

    HOME is the folder holding every ``tmp_path``: a project a test makes there is inside
    the user's home, as real projects are (a root outside it is refused unless it is a
    git work tree: ``project_root_for``). A test using :func:`short_base` (directly or
    through a fixture) whose short folder is elsewhere gets that folder as HOME.
    """
    fake = tmp_path_factory.mktemp("fakehome")
    home = tmp_path_factory.getbasetemp()
    if "short_base" in request.fixturenames:
        home = request.getfixturevalue("short_base")
    # The terminal: every test sees what a pipe gets (:func:`sidtui.cli.common._piped_width`:
    # tables 200 wide, text never wrapped), whatever the caller's terminal, whether xdist
    # set COLUMNS=80/LINES=24 in its workers, and whatever an earlier test left behind; a
    # test that wants a width sets COLUMNS itself.
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)  # ~/.codex: under the fake HOME
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SID_CONFIG_DIR", str(fake / ".sid-code-must-not-be-used"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(fake / ".cache"))


@pytest.fixture
def real_home_copy(tmp_path) -> Path:
    """A writable copy of the real-home fixture (never mutate the committed one)."""
    return copy_real_home(tmp_path / "home")


@pytest.fixture
def real_home_with_projects(tmp_path) -> tuple[Path, Path]:
    """(home, projects): copies of real-home and real-projects with paths remapped."""
    home, projects = tmp_path / "home", tmp_path / "projects"
    copy_real_home(home, projects)
    return home, projects


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    """Outside the derandomized profile, one seed for the run's Hypothesis tests, chosen
    here unless ``--hypothesis-seed`` gives it (xdist workers get the controller's through
    the environment): the log names it, and ``--hypothesis-seed=N`` repeats the run."""
    if settings.default.derandomize or config.getoption("hypothesis_seed") is not None:
        return
    import random

    seed = os.environ.setdefault("SIDTUI_HYPOTHESIS_SEED", str(random.getrandbits(32)))
    config.option.hypothesis_seed = seed


def pytest_sessionstart(session):
    """Say the Hypothesis profile (and seed) in the log, even under ``-q`` (not in xdist
    workers)."""
    tr = session.config.pluginmanager.get_plugin("terminalreporter")
    if tr is None or hasattr(session.config, "workerinput"):
        return
    p = settings.default
    seed = session.config.getoption("hypothesis_seed")
    tr.write_line(
        f"hypothesis profile {settings.get_current_profile_name()!r}: derandomize={p.derandomize}, "
        f"database={'off' if p.database is None else 'on'}, print_blob={p.print_blob}"
        + (f", seed {seed} (--hypothesis-seed={seed} repeats it)" if seed is not None else "")
    )


def pytest_report_header(config):
    return f"sidtui fixtures: {FIXTURES} ({'present' if FIXTURES.exists() else 'MISSING'})"


os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
# Local times on screen (the rewind preview's "taken at", ages in lists) are the product's
# choice; the tests' answer must not be the machine's: one zone for this process and the
# children it starts. A test about zones sets TZ itself (monkeypatch + time.tzset()).
os.environ["TZ"] = "UTC"
time.tzset()

"""The repository stands alone: no code names a path outside it, tests import only helpers.

A clean clone has nothing next to it (``.ci/run`` proves that by running the suite in one);
these checks name the offending line before a run would fail on a missing file.
"""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.helpers import REPO

CODE_DIRS = ("tests", "bench", "scripts", "sidtui")
# Paths that lead out of the repository: the old shared folder next to the checkout, the
# workplace's absolute folders, or a walk up from the repository root.
OUTSIDE = re.compile(r"""\.\./shared|["']shared["']|/work/|\b(?:REPO|ROOT)\.parents?\b""")
TEST_MODULE_IMPORT = re.compile(
    r"^\s*(?:from\s+(?:tests\.(?:\w+\.)*)?(?:conftest|test_\w+)\s+import|import\s+(?:tests\.(?:\w+\.)*)?(?:conftest|test_\w+)\b)",
    re.M,
)


def _tracked(*dirs: str) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z", "--", *dirs],
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [p for p in out.split("\0") if p]


def _code_files() -> list[str]:
    files = [
        p
        for p in _tracked(*CODE_DIRS)
        if not p.startswith(("tests/fixtures/", "tests/tui/__snapshots__/"))
        and p != "tests/test_repo_hygiene.py"
    ]
    if not files:
        pytest.skip("not a git checkout")
    return files


def test_no_code_names_a_path_outside_the_repository():
    hits = []
    for rel in _code_files():
        try:
            text = (REPO / rel).read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                hits.append(f"{rel}:{n}: {line.strip()}")
    assert not hits, "paths outside the repository:\n" + "\n".join(hits)


def test_outside_pattern_catches_what_it_should():
    for bad in (
        'ROOT / ".." / "shared"',
        "../shared/oracle/run",
        "REPO.parent / 'x'",
        "ROOT.parents[1]",
        'x = "/work/shared/fixtures"',
    ):
        assert OUTSIDE.search(bad), bad
    for ok in (
        "shared_buffer = 1",
        "REPO / 'tests'",
        "self._shared = None",
        "# shared by both",
        "home = path.parents[2]",
    ):
        assert not OUTSIDE.search(ok), ok


def test_tests_import_helpers_never_conftest_or_test_modules():
    hits = []
    for rel in _code_files():
        if not rel.startswith("tests/") or not rel.endswith(".py"):
            continue
        for m in TEST_MODULE_IMPORT.finditer((REPO / rel).read_text(encoding="utf-8")):
            hits.append(f"{rel}: {m.group(0).strip()}")
    assert not hits, "\n".join(hits)


def test_fixture_data_is_in_the_repository():
    tracked = _tracked("tests/fixtures")
    for folder in ("real-home/sessions/", "real-home-oracle/sessions/", "real-projects/"):
        assert any(p.startswith("tests/fixtures/" + folder) for p in tracked), folder

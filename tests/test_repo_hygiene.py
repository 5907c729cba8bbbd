"""The repository stands alone: no code names a path outside it, tests import only helpers.

A clean clone has nothing next to it (``.ci/run`` proves that by running the suite in one);
these checks name the offending line before a run would fail on a missing file.
"""

from __future__ import annotations

import ast
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
        "../" + "shared/oracle/run",  # (assembled: this file reads nothing outside)
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


PROJECT_PACKAGES = ("sidtui", "bench", "scripts", "tests")


def _private_imports(source: str) -> list[tuple[int, str]]:
    """``(line, "from M import _name")`` for every private name imported from a module of
    the project (an alias that is private, ``import x as _x``, is not counted)."""
    hits = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] not in PROJECT_PACKAGES:
                continue
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    hits.append((node.lineno, f"from {node.module} import {alias.name}"))
    return hits


def test_no_module_imports_another_modules_private_names():
    """A name another module needs is public where it belongs. Tests may look inside the
    modules they test (reference implementations compared with private fast paths)."""
    hits = []
    for rel in _code_files():
        if rel.endswith(".py") and not rel.startswith("tests/"):
            for n, what in _private_imports((REPO / rel).read_text(encoding="utf-8")):
                hits.append(f"{rel}:{n}: {what}")
    assert not hits, "private names imported across modules:\n" + "\n".join(hits)


def test_private_import_finder_catches_what_it_should():
    src = (
        "from sidtui.core.transcript.loader import _message_from_record\n"
        "from sidtui.core.base.jsonparse import would_strict_parser_reject as _strict\n"
        "from collections import _chain_map\n"
        "def f():\n"
        "    from sidtui.core.views.listing import _Job, summarize\n"
        "    from sidtui.core import __version__\n"
    )
    assert _private_imports(src) == [
        (1, "from sidtui.core.transcript.loader import _message_from_record"),
        (5, "from sidtui.core.views.listing import _Job"),
    ]

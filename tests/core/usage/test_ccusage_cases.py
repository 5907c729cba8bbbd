"""``sidtui usage --by day`` equals ccusage's daily report on every vendored case.

Each folder of tests/fixtures/usage-cases/ is a Claude Code home built by
``python -m scripts.usage_compare vendor`` (one rule of counting each: streamed lines,
forks, sub-agents, refused lines, time zones, prices) with ccusage 20.0.24's
``daily --offline --json`` answer for it; the ``claude-code-fixture-*`` ones hold the answer
for tests/fixtures/claude-code in three zones. The comparison is the script's own.
"""

from __future__ import annotations

import json

import pytest

from scripts.usage_compare import cases, compare, run_sidtui
from tests.helpers import CLAUDE_HOME, FIXTURES

CASES = sorted((FIXTURES / "usage-cases").glob("*/ccusage.json"))


def test_cases_are_vendored() -> None:
    names = {p.parent.name for p in CASES}
    assert set(cases()) <= names, sorted(set(cases()) - names)
    assert len(CASES) >= 30


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.parent.name)
def test_agrees_with_ccusage(case) -> None:
    d = json.loads(case.read_text())
    home = CLAUDE_HOME if d.get("home") == "claude-code" else case.parent / "home"
    ours = run_sidtui(home, d["tz"])
    assert compare(ours, d["answer"]) == []
    assert ours["rows"] or case.parent.name == "zero-usage-only-no-row"


def test_the_vendored_homes_are_what_the_script_builds(tmp_path) -> None:
    """A rule changed in the script is vendored again (its answer would be stale)."""
    from scripts.usage_compare import write_home

    for name, (files, _) in cases().items():
        built = write_home(files, tmp_path / name)
        stored = FIXTURES / "usage-cases" / name / "home"
        a = sorted(p.relative_to(built) for p in built.rglob("*.jsonl"))
        b = sorted(p.relative_to(stored) for p in stored.rglob("*.jsonl"))
        assert a == b, name
        for rel in a:
            assert (built / rel).read_bytes() == (stored / rel).read_bytes(), f"{name}/{rel}"

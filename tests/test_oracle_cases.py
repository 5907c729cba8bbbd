"""sidtui agrees with the agent's own loader on every vendored differential case.

Each case under tests/fixtures/oracle-cases/ is a file the differential loop
(``python -m scripts.difftest``) found sidtui reading differently from the agent, with the
agent's loader's output beside it; the comparison is the loop's own, so no oracle is needed.
"""

from __future__ import annotations

import pytest

from tests.helpers import oracle_case_disagreements, oracle_cases

CASES = oracle_cases()


def test_cases_are_vendored() -> None:
    assert len(CASES) >= 20
    classes = {p.parent.name for p in CASES}
    assert len(classes) >= 15, sorted(classes)


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.name[:-12]}")
def test_agrees_with_the_agent(case, tmp_path) -> None:
    assert oracle_case_disagreements(case, tmp_path) == []


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.name[:-12]}")
def test_agrees_with_the_agent_read_in_pieces(case, tmp_path, monkeypatch) -> None:
    """The same, with every file read in pieces as a big file is (``FileSource``, 4 KiB a
    piece): the piece path must read each case as the whole-buffer path does."""
    from sidtui.core.transcript import source as transcript_source

    monkeypatch.setattr(transcript_source, "PIECE_MIN_BYTES", 1)
    monkeypatch.setattr(transcript_source, "PIECE_BYTES", 4096)
    assert oracle_case_disagreements(case, tmp_path) == []

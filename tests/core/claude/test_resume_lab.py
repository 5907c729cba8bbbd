"""sidtui's resume prediction equals what the real Claude Code 2.1.332 sent, on every
vendored lab case (tests/fixtures/claude-code-lab/: the transcript and the lab's capture of
``claude -p --resume``, made by ``python -m scripts.ccdifftest``). No lab is needed here.

Cases stored with ``"sidtui_agreed": false`` are the open classes (docs/CLAUDE-CODE.md
§11.6): they must keep failing until the class is understood (strict xfail), so a fix
shows up here.
"""

from __future__ import annotations

import pytest

from tests.helpers import claude_lab_case, claude_lab_cases, sidtui_resume

CASES = claude_lab_cases()


def test_cases_are_vendored() -> None:
    assert len(CASES) >= 60
    assert (
        len({p.parent.name if p.parent.parent.name != "claude-code-lab" else p.name for p in CASES})
        >= 20
    )


def _id(p) -> str:
    return (
        f"{p.parent.parent.name}/{p.parent.name}"
        if p.parent.name.startswith(("m", "model-"))
        else f"{p.parent.name}/{p.name[:8]}"
    )


def _agrees(ours: dict, lab: dict) -> bool:
    if lab["error"] is not None:
        return ours["error"] == lab["error"] and ours["messages"] == []
    return ours["error"] is None and ours["messages"] == lab["messages"]


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_resume_as_claude_code_sends_it(case) -> None:
    path, lab = claude_lab_case(case)
    ours = sidtui_resume(path)
    assert ours["agent_version"] == lab["agent_version"]
    if lab["sidtui_agreed"]:
        assert ours["error"] == lab["error"]
        assert ours["messages"] == (lab["messages"] or [])
    else:  # an open class (docs/CLAUDE-CODE.md §11.6): a fix shows up here
        assert not _agrees(ours, lab), "now agrees: store the case with sidtui_agreed true"

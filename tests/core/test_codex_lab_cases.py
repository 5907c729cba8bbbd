"""sidtui's Codex resume prediction and usage against what the real Codex CLI 0.169.0 and
ccusage 20.0.24 answered in the lab (tests/fixtures/codex-lab/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sidtui.core.codex.history import predict
from sidtui.core.codex.layout import CodexHome
from sidtui.core.codex.rollout import read_rollout
from sidtui.core.sources.codex import CodexSource
from sidtui.core.sources.usage import usage_report

LAB = Path(__file__).resolve().parents[1] / "fixtures" / "codex-lab"
CASES = sorted(p.name for p in (LAB / "cases").iterdir() if p.is_dir())


def test_every_lab_case_is_here():
    assert len(CASES) == 66
    assert {c.rsplit("-", 1)[-1] for c in CASES} >= {"tail", "line", "type", "call", "custom"}
    # sidtui's own forks, resumed by Codex (scripts/codexlab/forks.py), and a fork of Codex's
    assert sum(c.startswith("sidtui-fork-") for c in CASES) == 14
    assert any((LAB / "cases" / c / "bases").is_dir() for c in CASES if c.startswith("fork-"))


@pytest.mark.parametrize("name", CASES)
def test_resume_prediction_equals_what_codex_sent(name):
    case = LAB / "cases" / name
    sent = json.loads((case / "request.json").read_text())
    pred = predict(read_rollout(case / "rollout.jsonl"), _bases(case))
    predicted = pred.payloads()
    got = [dict(x) for x in sent["input"][: len(predicted)]]
    for item, x in zip(pred.items, got, strict=True):
        if item.added:  # an item Codex adds carries an id of its own making
            assert x.pop("id", "").startswith(("fco_", "ctco_"))
    assert got == predicted
    # what follows the history is the new turn: context Codex re-sends, then the prompt
    rest = sent["input"][len(predicted) :]
    assert rest[-1]["role"] == "user"
    assert rest[-1]["content"] == [{"type": "input_text", "text": sent["prompt"]}]
    assert all(r["type"] == "message" and r["role"] in ("user", "developer") for r in rest)


def _bases(case: Path):
    def load(session_id: str):
        p = case / "bases" / f"{session_id}.jsonl"
        return read_rollout(p) if p.exists() else None

    return load


def test_damage_shows_in_the_prediction():
    lost = predict(read_rollout(LAB / "cases" / "shell-output-without-call" / "rollout.jsonl"))
    assert [x["reason"] for x in lost.lost] == ["output without its call"]
    cut = predict(read_rollout(LAB / "cases" / "patch-cut-after-custom" / "rollout.jsonl"))
    assert [a.payload for a in cut.added] == [
        {"type": "custom_tool_call_output", "call_id": "call_001_0", "output": "aborted"}
    ]
    comp = predict(read_rollout(LAB / "cases" / "compact-2" / "rollout.jsonl"))
    assert comp.compactions == 1 and comp.replaced == 6


def _ccusage(kind: str) -> dict:
    return json.loads((LAB / f"ccusage-codex-{kind}.json").read_text())


#: The one session where ccusage counts less: a fork Codex made (``codex exec fork``) whose
#: parent is in the home. ccusage 20.0.24 leaves out the fork's first response (600 input,
#: 500 cache read, 51 output); sidtui counts every response the fork's rollout records
#: (docs/CODEX.md §5).
CODEX_FORK = "01a23620-dd87-7f53-84c7-cdc9343ef52a"
FORK_GAP = (600, 500, 51, 0)


def test_usage_per_session_equals_ccusage():
    src = CodexSource(CodexHome(LAB / "home"))
    rep = usage_report([src], "session", use_cache=False)
    ours = {
        r.key: (r.input_tokens, r.cache_read_tokens, r.output_tokens, r.cache_creation_tokens)
        for r in rep.rows
    }
    theirs = {
        s["sessionFile"][-36:]: (
            s["inputTokens"],
            s["cacheReadTokens"],
            s["outputTokens"],
            s["cacheCreationTokens"],
        )
        for s in _ccusage("session")["sessions"]
    }
    assert len(ours) == len(theirs) == 11
    fork_ours, fork_theirs = ours.pop(CODEX_FORK), theirs.pop(CODEX_FORK)
    assert ours == theirs
    assert tuple(a - b for a, b in zip(fork_ours, fork_theirs, strict=True)) == FORK_GAP


def test_usage_totals_equal_ccusage_daily():
    src = CodexSource(CodexHome(LAB / "home"))
    rep = usage_report([src], "day", use_cache=False)
    t = _ccusage("daily")["totals"]
    assert (
        rep.totals.input_tokens - FORK_GAP[0],
        rep.totals.cache_read_tokens - FORK_GAP[1],
        rep.totals.output_tokens - FORK_GAP[2],
    ) == (t["inputTokens"], t["cacheReadTokens"], t["outputTokens"])
    assert rep.totals.total_tokens - sum(FORK_GAP) == t["totalTokens"]

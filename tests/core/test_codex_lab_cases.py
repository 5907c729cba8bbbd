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
    assert len(CASES) == 48
    assert {c.rsplit("-", 1)[-1] for c in CASES} >= {"tail", "line", "type", "call", "custom"}


@pytest.mark.parametrize("name", CASES)
def test_resume_prediction_equals_what_codex_sent(name):
    case = LAB / "cases" / name
    sent = json.loads((case / "request.json").read_text())
    pred = predict(read_rollout(case / "rollout.jsonl"))
    predicted = pred.payloads()
    got = [dict(x) for x in sent["input"][: len(predicted)]]
    for item, x in zip(pred.items, got, strict=True):
        if item.record is None:  # an item Codex adds carries an id of its own making
            assert x.pop("id", "").startswith(("fco_", "ctco_"))
    assert got == predicted
    # what follows the history is the new turn: context Codex re-sends, then the prompt
    rest = sent["input"][len(predicted) :]
    assert rest[-1]["role"] == "user"
    assert rest[-1]["content"] == [{"type": "input_text", "text": sent["prompt"]}]
    assert all(r["type"] == "message" and r["role"] in ("user", "developer") for r in rest)


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
    assert ours == theirs
    assert len(ours) == 9


def test_usage_totals_equal_ccusage_daily():
    src = CodexSource(CodexHome(LAB / "home"))
    rep = usage_report([src], "day", use_cache=False)
    t = _ccusage("daily")["totals"]
    assert (
        rep.totals.input_tokens,
        rep.totals.cache_read_tokens,
        rep.totals.output_tokens,
    ) == (t["inputTokens"], t["cacheReadTokens"], t["outputTokens"])
    assert rep.totals.total_tokens == t["totalTokens"]

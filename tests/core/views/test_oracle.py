"""`show --json` agrees with what sid-code's own loader returns, for every fixture.

The test iterates over the oracle folder, so a new fixture is checked automatically.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sidtui.core.base.home import Home
from sidtui.core.base.resolve import resolve_session
from sidtui.core.views.session import open_session
from tests.helpers import REAL_HOME, REAL_ORACLE

ORACLES = sorted((REAL_ORACLE / "sessions").rglob("*.oracle.json"))


def _id(p: Path) -> str:
    return str(p.relative_to(REAL_ORACLE / "sessions")).removesuffix(".oracle.json")


@pytest.fixture(scope="module")
def home() -> Home:
    return Home(REAL_HOME)


def test_every_session_file_has_an_oracle():
    files = sorted(
        p for p in (REAL_HOME / "sessions").rglob("*.json*") if "summaries" not in p.parts
    )
    assert files, "fixtures missing"
    for f in files:
        rel = f.relative_to(REAL_HOME / "sessions")
        assert (REAL_ORACLE / "sessions" / f"{rel}.oracle.json").exists(), rel


@pytest.mark.parametrize("oracle_path", ORACLES, ids=_id)
def test_show_json_matches_oracle(home, oracle_path):
    oracle = json.loads(oracle_path.read_text())
    session_path = REAL_HOME / oracle["file"]
    sf = resolve_session(home, str(session_path))
    out = open_session(home, sf).to_json()
    result = oracle["result"]

    assert out["loadable"] == (result is not None)
    if result is None:
        assert out["messages"] == [] and out["resumed"] == []
        assert out["load_failure"]
        return
    assert out["load_failure"] is None
    assert out["session_id"] == result["id"]
    assert out["format_version"] == result["version"]
    assert [(m["uuid"], m["line"], m["role"], m["blocks"]) for m in out["messages"]] == [
        (m["uuid"], m["line"], m["role"], m["blocks"]) for m in result["messages"]
    ]
    rec = oracle["recovery"]
    assert [
        (m["src_index"], m["uuid"], m["line"], m["role"], m["blocks"], m["changed"])
        for m in out["resumed"]
    ] == [
        (m["srcIndex"], m["uuid"], m["line"], m["role"], m["blocks"], m["changed"])
        for m in rec["messages"]
    ]
    dropped_messages = sorted({d["index"] for d in out["dropped"] if d["block"] is None})
    assert dropped_messages == rec["droppedSrcIndexes"]
    state = rec["turnInterruptionState"]
    assert out["interruption"]["kind"] == state["kind"]
    assert out["interruption"]["tool_names"] == state.get("lastToolNames", [])
    if state["kind"] == "interrupted_prompt":
        assert out["interruption"]["message"]["src_index"] == state["message"]["srcIndex"]
        assert out["interruption"]["message"]["uuid"] == state["message"]["uuid"]
    integ = oracle["integrity"]
    assert out["integrity"]["orphans"] == [o["toolUseId"] for o in integ["loaded"]["orphans"]]
    assert out["integrity"]["dangling"] == [
        d["toolUseId"] if isinstance(d, dict) else d for d in integ["loaded"]["dangling"]
    ]
    assert out["metadata"].keys() == set(result["metadataKeys"]) or result["metadata"] is None


@pytest.mark.parametrize(
    "oracle_path", [p for p in ORACLES if "sidechain" in json.loads(p.read_text())], ids=_id
)
def test_sidechains_match_oracle(home, oracle_path):
    oracle = json.loads(oracle_path.read_text())
    sf = resolve_session(home, str(REAL_HOME / oracle["file"]))
    out = open_session(home, sf).to_json()
    sc = oracle["sidechain"]
    assert out["kind"] == "sidechain"
    assert out["sidechain"]["unfinished"] == sc["unfinished"]
    assert out["sidechain"]["agent_id"] == sc["agentIdFromRecord"]
    assert out["sidechain"]["parent_session_id"] == sc["parentSessionId"]
    assert [(m["role"], m["blocks"]) for m in out["sidechain"]["messages"]] == [
        (m["role"], m["blocks"]) for m in sc["reconstructed"]["messages"]
    ]


def test_unfinished_sidechain_is_restored_state_item(home):
    sf = resolve_session(home, "20261130-052917-0c88f996")
    out = open_session(home, sf).to_json()
    item = next(i for i in out["state"] if i["name"] == "unfinished_sidechains")
    assert [s["agentId"] for s in item["value"]] == ["a5g0r1q4l"]

"""The demo's Codex CLI home reads as planned (:mod:`sidtui.demo.codex`)."""

from __future__ import annotations

import shutil

import pytest

from sidtui.core.codex.layout import CodexHome
from sidtui.core.sources.codex import CodexSource
from sidtui.demo.codex import build_codex_demo


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("cx")
    demo = build_codex_demo(root, seed=3)
    return root, demo, CodexSource(CodexHome(demo.home))


def test_every_case_reads_as_planned(built):
    _root, demo, src = built
    assert set(demo.cases) == {
        "shell",
        "patch",
        "interrupted",
        "killed",
        "compaction",
        "fork",
        "torn",
    }
    v = {c: src.open(src.resolve(sid)) for c, sid in demo.cases.items()}
    assert v["shell"].interruption.kind == "none" and len(v["shell"].prompts) == 2
    assert v["interrupted"].interruption.kind == "interrupted_prompt"
    assert v["interrupted"].interruption.recorded
    killed = v["killed"]
    assert killed.interruption.kind == "interrupted_turn"
    assert killed.interruption.tool_names == ["exec_command"]
    assert [a.payload["output"] for a in killed.resume.added] == ["aborted"]
    assert killed.liveness.stale and not killed.liveness.live
    assert v["compaction"].resume.compactions == 1
    assert [b.torn for b in v["torn"].bad_lines] == [True]
    fork = v["fork"]
    assert fork.resume.bases[0]["session_id"] == demo.cases["shell"]
    cut = v["shell"].prompts[1].items[0]
    assert fork.resume.payloads() == v["shell"].resume.payloads()[:cut]
    assert "custom_tool_call" in [i.type for i in v["patch"].resume.items]


def test_listing_usage_and_check(built):
    _root, demo, src = built
    rows, errors = src.list_sessions()
    assert errors == [] and len(rows) == len(demo.cases)
    assert rows[0].session_id == demo.cases["fork"]  # the newest first
    from sidtui.core.sources.usage import usage_report

    rep = usage_report([src], "session", use_cache=False)
    assert rep.totals.output_tokens > 0 and {r.key for r in rep.rows} <= set(demo.cases.values())
    report = src.check().to_json()
    assert (report["torn_tails"], report["aborted_calls"], report["stale_locks"]) == (1, 1, 1)
    assert report["exit_code"] == 1


def test_same_seed_same_bytes(tmp_path):
    def snapshot() -> dict[str, bytes]:
        return {
            str(p.relative_to(tmp_path)): p.read_bytes()
            for p in sorted(tmp_path.rglob("*"))
            if p.is_file()
        }

    a = build_codex_demo(tmp_path, seed=5)
    first = snapshot()
    shutil.rmtree(tmp_path / "codex")
    build_codex_demo(tmp_path, seed=5)
    assert snapshot() == first
    shutil.rmtree(tmp_path / "codex")
    assert build_codex_demo(tmp_path, seed=6).cases["shell"] != a.cases["shell"]

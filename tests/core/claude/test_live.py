"""The catalog, the search index and the watcher on a Claude Code home."""

from __future__ import annotations

import shutil
from pathlib import Path

from sidtui.core.base.home import Home
from sidtui.core.claude.layout import ClaudeHome, resolve_session
from sidtui.core.index.catalog import Catalog, default_db_path
from sidtui.core.index.search import SearchIndex
from sidtui.core.live import events as ev
from sidtui.core.live.watcher import Watcher
from sidtui.core.sources import ClaudeSource, SidCodeSource, homes, source_of_file
from tests.helpers import CC_PROJECTS, CLAUDE_HOME, REAL_HOME, cc_assistant, cc_lines, cc_user

SPOTTER = "-home-marco-projects-spotter"
SHORT = "55604662-cf2a-4331-851a-ec234028f8ca"


def _copy(tmp_path: Path) -> ClaudeHome:
    root = tmp_path / "claude"
    shutil.copytree(CC_PROJECTS / SPOTTER, root / "projects" / SPOTTER)
    return ClaudeHome(root)


def test_catalog_rows_warm_and_changed(tmp_path):
    home = _copy(tmp_path)
    cat = Catalog(home, db_path=tmp_path / "c.sqlite3")
    res = cat.refresh()
    assert (res.total, res.changed, res.errors) == (3, 3, [])
    rows = cat.rows()
    assert [r.source for r in rows] == ["claude-code"] * 3
    assert {r.session_id for r in rows} == {
        SHORT,
        "d6e0bada-1959-4eec-a9d2-0bfade768d8f",
        "491e126e-1e71-469c-ade2-fcc8af567c74",
    }
    assert cat.refresh().changed == 0  # warm: nothing read again
    p = home.projects_dir / SPOTTER / f"{SHORT}.jsonl"
    with open(p, "ab") as fh:
        fh.write(
            cc_lines(
                cc_assistant("late", "c06a9fe4-d8b8-4c1c-b1a2-d1b1aaa3c4f4", "a late reply", ts=9e6)
            )
        )
    assert cat.refresh().changed == 1
    cat.close()


def test_a_claude_home_and_a_sid_code_home_at_one_root_keep_apart(tmp_path):
    assert default_db_path(ClaudeHome(tmp_path)) != default_db_path(Home(tmp_path))


def test_search_finds_claude_prompts_replies_tools_and_files(tmp_path):
    cat = Catalog(ClaudeHome(CLAUDE_HOME), db_path=tmp_path / "c.sqlite3")
    cat.refresh()
    idx = SearchIndex(cat)
    idx.fill()
    kinds = {h.kind for h in idx.search("phoenix", limit=50)}
    assert {"assistant", "tool"} <= kinds
    assert idx.search("mix phx.server doesnt")[0].session_id == SHORT  # a typed prompt
    files = idx.search("lib spotter", limit=50)
    assert any(h.kind == "file" for h in files)  # paths a file-history snapshot tracks
    assert not idx.search("Caveat generated local commands")  # injected text is not indexed


def test_the_watcher_follows_a_claude_home(tmp_path):
    home = _copy(tmp_path)
    w = Watcher(home, force_polling=True)
    w.prime()
    p = home.projects_dir / SPOTTER / f"{SHORT}.jsonl"
    with open(p, "ab") as fh:
        fh.write(
            cc_lines(cc_user("n1", "c06a9fe4-d8b8-4c1c-b1a2-d1b1aaa3c4f4", "and now?", ts=9e6))
        )
    new = home.projects_dir / SPOTTER / "aaaa0000-0000-4000-8000-000000000000.jsonl"
    new.write_bytes(cc_lines(cc_user("x", None, "hi")))
    sub = new.with_suffix("") / "subagents"
    sub.mkdir(parents=True)
    (sub / "agent-abc1234.jsonl").write_bytes(
        cc_lines(dict(cc_user("y", None, "go"), isSidechain=True))
    )
    batch = w.process_paths(str(x) for x in (p, new, sub / "agent-abc1234.jsonl"))
    names = [(type(e).__name__, e.session_id) for e in batch]
    assert names == [
        ("RecordsAppended", SHORT),
        ("SessionCreated", new.stem),
        ("RecordsAppended", new.stem),
        ("SidechainStarted", "agent-abc1234"),
        ("RecordsAppended", "agent-abc1234"),
    ]
    assert not any(isinstance(e, ev.ChainBranched) for e in batch)  # no sid-code chain here
    rec = batch[0].records[0]
    assert rec.ref.uuid == "n1" and rec.record["message"]["content"] == "and now?"
    one = Watcher(home, session=resolve_session(home, new.stem), force_polling=True)
    one.prime()
    assert sorted(Path(x).name for x in one._signatures()) == [new.name, "agent-abc1234.jsonl"]


def test_sources_from_flags_and_environment(tmp_path):
    env = {
        "HOME": str(tmp_path),
        "CLAUDE_CONFIG_DIR": str(CLAUDE_HOME),
        "SID_CONFIG_DIR": str(REAL_HOME),
    }
    found, named = homes(None, None, env)
    assert [s.name for s in found] == ["sid-code", "claude-code"] and not named
    found, named = homes(None, str(CLAUDE_HOME), env)
    assert [type(s) for s in found] == [ClaudeSource] and named
    found, _ = homes(None, None, {"HOME": str(tmp_path)})
    assert [type(s) for s in found] == [SidCodeSource]  # none there: the sid-code default
    claude = homes(None, str(CLAUDE_HOME), env)[0][0]
    assert claude.supports("rewind") and not claude.supports("salvage")  # cli/salvage refuses
    assert SidCodeSource(Home(REAL_HOME)).supports("rewind")
    assert source_of_file(CC_PROJECTS / SPOTTER / f"{SHORT}.jsonl") == "claude-code"
    assert (
        source_of_file(
            CC_PROJECTS
            / "-Users-dain-workspace-JSSoundRecorder"
            / "2c5941bd-b9de-41d6-9414-221d175776f7.jsonl"
        )
        == "claude-code"
    )  # empty, by its place
    real = next((REAL_HOME / "sessions").rglob("*.jsonl"))
    assert source_of_file(real) == "sid-code"


def test_a_source_opens_the_common_model():
    src = ClaudeSource(ClaudeHome(CLAUDE_HOME))
    m = src.open(src.resolve("55604662"))
    assert m.source == "claude-code" and m.session_id == SHORT
    assert m.resume_leaf == m.tip_rows[-1]["uuid"] and m.interruption_kind == "interrupted_turn"
    assert m.interruption_tools == ["Bash", "Glob"] and m.bad_lines == []
    assert [x.role for x in m.conversation][:2] == ["user", "assistant"]
    sid = SidCodeSource(Home(REAL_HOME))
    v = sid.open(sid.resolve("20261130-052907-79e5"))
    assert v.source == "sid-code" and v.resume_leaf == next(
        t["uuid"] for t in v.tip_rows if t["resume"]
    )
    assert v.interruption_kind in ("none", "interrupted_prompt", "interrupted_turn")

"""Finding Claude Code transcripts: the home, both subagent layouts, ids, ``latest``, sniffing."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidtui.core.base.errors import AmbiguousSession, SessionNotFound, UsageError
from sidtui.core.claude.layout import (
    ClaudeHome,
    discover,
    file_for_path,
    head_cwd,
    home_of,
    latest_for_cwd,
    resolve_session,
    subagent_files,
)
from sidtui.core.sources import sniff
from tests.helpers import (
    CC_PROJECTS,
    CLAUDE_HOME,
    REAL_HOME,
    cc_assistant,
    cc_home,
    cc_lines,
    cc_user,
)

HOME = ClaudeHome(CLAUDE_HOME)


def test_root_comes_from_the_flag_then_the_variable_then_home():
    assert ClaudeHome.resolve("/x/y", {"CLAUDE_CONFIG_DIR": "/z"}).root == Path("/x/y")
    assert ClaudeHome.resolve(None, {"CLAUDE_CONFIG_DIR": "/z", "HOME": "/h"}).root == Path("/z")
    assert ClaudeHome.resolve(None, {"HOME": "/h"}).root == Path("/h/.claude")
    with pytest.raises(UsageError):
        ClaudeHome.resolve("  ", {})


def test_discovery_lists_every_transcript_of_the_real_home():
    files = discover(HOME)
    assert len(files) == len(list(CC_PROJECTS.rglob("*.jsonl"))) == 91
    mains = [f for f in files if f.kind == "main"]
    agents = [f for f in files if f.kind == "sidechain"]
    assert len(mains) == 40 and len(agents) == 51
    empty = [f for f in mains if f.path.stat().st_size == 0]
    assert len(empty) == 16  # zero-byte sessions are sessions
    assert {f.layout for f in agents} == {"flat", "subagents"}
    assert all(f.session_id == f.path.stem for f in files)


def test_a_nested_subagent_belongs_to_its_folder():
    (f,) = [f for f in discover(HOME) if f.agent_id == "a36efb2a1231c41e2"]
    assert f.layout == "subagents" and f.parent_session_id == "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    assert f.meta_path is not None and f.meta_path.name == "agent-a36efb2a1231c41e2.meta.json"
    assert f.project == "-experiments-worktrees"


def test_a_flat_subagent_belongs_to_the_session_its_records_name():
    sess = next(f for f in discover(HOME) if f.session_id == "7acd37a8-2745-4b58-a8a9-46164b22ad9e")
    names = sorted(f.agent_id for f in subagent_files(HOME, sess))
    assert names == ["388fb764", "88061e52", "8d27fe83"]
    empty = next(
        f for f in discover(HOME) if f.session_id == "2c5941bd-b9de-41d6-9414-221d175776f7"
    )
    assert sorted(f.agent_id for f in subagent_files(HOME, empty)) == ["650d3273", "aa1e905b"]


def test_sessions_resolve_by_id_prefix_and_path():
    f = resolve_session(HOME, "7acd37a8")
    assert f.session_id == "7acd37a8-2745-4b58-a8a9-46164b22ad9e"
    assert resolve_session(HOME, "agent-a36efb").kind == "sidechain"
    p = CC_PROJECTS / "-src-deep-manifest" / "agent-c8d9b115.jsonl"
    g = resolve_session(HOME, str(p))
    assert g.kind == "sidechain" and g.project == "-src-deep-manifest" and g.layout == "flat"
    with pytest.raises(AmbiguousSession):
        resolve_session(HOME, "agent-")
    with pytest.raises(SessionNotFound):
        resolve_session(HOME, "ffffffff")


def test_latest_matches_the_cwd_in_the_records_never_a_slug(tmp_path):
    work = tmp_path / "my.project_dir"
    work.mkdir()
    rec = lambda u, ts: cc_user(u, None, ts=ts, cwd=str(work))  # noqa: E731
    home = cc_home(
        tmp_path / "claude",
        {
            # a folder name no slug rule gives for this path: found anyway, by the records
            "renamed-by-hand": {
                "aaaa1111-0000-4000-8000-000000000001.jsonl": cc_lines(rec("a", 1))
            },
            "-elsewhere": {
                "bbbb2222-0000-4000-8000-000000000002.jsonl": cc_lines(
                    cc_user("b", None, cwd="/else")
                )
            },
        },
    )
    found = latest_for_cwd(ClaudeHome(home), work)
    assert found is not None and found.project == "renamed-by-hand"
    assert resolve_session(ClaudeHome(home), "latest", cwd=work).session_id.startswith("aaaa1111")
    with pytest.raises(SessionNotFound):
        resolve_session(ClaudeHome(home), "latest", cwd=tmp_path)


def test_sniff_tells_the_two_formats_apart():
    for p in CC_PROJECTS.rglob("*.jsonl"):
        head = p.read_bytes()[:65536]
        assert sniff(head) == ("claude-code" if head else None), p
    for p in (REAL_HOME / "sessions").rglob("*.jsonl"):
        assert sniff(p.read_bytes()[:65536]) in ("sid-code", None), p
    assert sniff(b'{"type":"user","message":{"role":"user","content":"x"}}\n') is None


def test_home_and_project_come_from_a_files_place():
    p = (
        CC_PROJECTS
        / "-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-aef063ba534d73153.jsonl"
    )
    assert home_of(p) == (CLAUDE_HOME.resolve(), "-experiments-worktrees")
    f = file_for_path(p)
    assert (f.kind, f.layout, f.parent_session_id) == (
        "sidechain",
        "subagents",
        "ef958aa1-0e93-49f0-bb71-150f63befcd1",
    )
    assert home_of(Path("/tmp/x.jsonl")) is None


def test_head_cwd_decodes_escapes():
    rec = cc_lines(cc_assistant("a", None, cwd='C:\\work\\"q"'))
    assert head_cwd(rec) == 'C:\\work\\"q"'

"""One interface over both homes (core/sources): sniffing, the adapters' reader functions."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidtui.core.base.discover import discover
from sidtui.core.base.home import Home
from sidtui.core.claude import layout
from sidtui.core.claude.layout import ClaudeHome
from sidtui.core.sources import SOURCES, ClaudeSource, SidCodeSource, sniff, source_of_file
from sidtui.core.sources.base import Source
from sidtui.core.transcript import records
from tests.helpers import CLAUDE_HOME, REAL_HOME, cc_assistant, cc_home, cc_lines, cc_user, jsonl
from tests.helpers import start as sid_start


def test_each_source_claims_only_its_own_records():
    sid = {"type": "session_start", "sessionId": "x"}
    side = {"type": "sidechain_start"}
    cc = {"type": "user", "sessionId": "s", "message": {}}
    bare = {"type": "user", "message": {}}  # no sessionId/isSidechain/userType: undecided
    assert records.claims_record(sid) and records.claims_record(side)
    assert not records.claims_record(cc) and not layout.claims_record(sid)
    assert layout.claims_record(cc) and layout.claims_record({"type": "summary"})
    assert not layout.claims_record(bare) and not records.claims_record(bare)
    assert SidCodeSource.claims_record(sid) and ClaudeSource.claims_record(cc)


def test_sniff_asks_every_source_line_by_line():
    assert sniff(b"") is None
    assert sniff(b'not json\n[1]\n{"type":"user","message":{}}\n') is None
    assert sniff(jsonl(sid_start())) == "sid-code"
    assert sniff(cc_lines(cc_user("u1", None))) == "claude-code"
    # the first line that tells decides
    assert sniff(b'{"type":"x"}\n' + jsonl(sid_start()) + cc_lines(cc_user("u", None))) == (
        "sid-code"
    )
    assert sniff(cc_lines(cc_user("u", None)) + jsonl(sid_start())) == "claude-code"
    # only the first 50 lines are looked at
    assert sniff(b"{}\n" * 50 + jsonl(sid_start())) is None
    assert [cls.name for cls in SOURCES] == ["sid-code", "claude-code", "codex"]


def test_source_of_file_on_the_vendored_homes(tmp_path):
    cc = next(p for p in sorted((CLAUDE_HOME / "projects").rglob("*.jsonl")) if p.stat().st_size)
    assert source_of_file(cc) == "claude-code"
    sid = next(f.path for f in discover(Home(REAL_HOME)) if f.kind == "main")
    assert source_of_file(sid) == "sid-code"
    home = cc_home(tmp_path / "c", {"p": {"s.jsonl": b""}})
    assert source_of_file(home / "projects" / "p" / "s.jsonl") == "claude-code"  # by place
    (tmp_path / "e.jsonl").write_bytes(b"")
    assert source_of_file(tmp_path / "e.jsonl") is None


def test_sid_code_discover_leaves_sidechains_out_when_asked():
    every = discover(Home(REAL_HOME))
    mains = discover(Home(REAL_HOME), include_sidechains=False)
    assert any(f.kind == "sidechain" for f in every)
    assert mains == [f for f in every if f.kind == "main"]
    src = SidCodeSource(Home(REAL_HOME))
    assert src.discover(include_sidechains=False) == mains
    assert src.discover() == every


def test_the_readers_a_binding_names_exist_and_take_the_home(tmp_path):
    for cls in SOURCES:
        assert issubclass(cls, Source)
        for attr in ("discoverer", "resolver", "lister", "checker", "usage_reader", "registry"):
            assert callable(Source.reader(getattr(cls, attr))), (cls.name, attr)


def test_both_sources_answer_through_the_same_calls(tmp_path):
    reply = cc_assistant("a1", "u1")
    reply["message"]["usage"] = {"input_tokens": 3, "output_tokens": 4}
    home = cc_home(tmp_path / "claude", {"-p": {"s1.jsonl": cc_lines(cc_user("u1", None), reply)}})
    cc = ClaudeSource.resolve_home(str(home), {})
    assert cc.home == ClaudeHome(home) and cc.root == home and cc.exists()
    assert cc.require() is cc
    files = cc.discover()
    assert [f.session_id for f in files] == ["s1"]
    assert cc.resolve("s1") == files[0]
    rows, errors = cc.list_sessions()
    assert [r.session_id for r in rows] == ["s1"] and errors == []
    assert rows[0].source == "claude-code"
    report = cc.check()
    assert report.exit_code == 0 and report.to_json()
    assert cc.registrations([]) == []
    assert cc.check_options() == {"backups": cc.backups}
    usage = cc.usage_events(use_cache=False)
    assert [Path(u.path).name for u in usage] == ["s1.jsonl"]
    assert [e.total_tokens for e in usage[0].load()] == [7]

    sid = SidCodeSource.resolve_home(str(REAL_HOME), {})
    assert sid.home == Home(REAL_HOME) and sid.check_options() == {}
    one = sid.discover(include_sidechains=False)[0]
    assert sid.resolve(str(one.path)) == one
    rows, _ = sid.list_sessions()
    assert rows and {r.source for r in rows} == {"sid-code"}


def test_a_missing_home_is_the_source_s_own_usage_error(tmp_path):
    from sidtui.core.base.errors import UsageError

    with pytest.raises(UsageError, match="no Claude Code home"):
        ClaudeSource(ClaudeHome(tmp_path / "none")).require()
    with pytest.raises(UsageError, match="no sid-code home"):
        SidCodeSource(Home(tmp_path / "none")).require()
    assert not ClaudeSource(ClaudeHome(tmp_path)).exists()
    assert not SidCodeSource(Home(Path(tmp_path))).exists()


def test_the_flags_name_their_sources_by_each_source_s_flag(tmp_path):
    from sidtui.core.sources import homes, homes_from_flags

    sid, cc = tmp_path / "s", tmp_path / "c"
    both, named = homes_from_flags({"--claude-home": str(cc), "--home": str(sid)}, {})
    assert named and [(s.name, s.root) for s in both] == [("sid-code", sid), ("claude-code", cc)]
    one, named = homes_from_flags({"--claude-home": str(cc), "--home": None}, {})
    assert named and [s.name for s in one] == ["claude-code"]
    assert [s.root for s in homes(None, str(cc), {})[0]] == [cc]
    # no flag: every home that exists; none: the first source's, so its message names it
    none, named = homes_from_flags({}, {"HOME": str(tmp_path)})
    assert not named and [(s.name, s.root) for s in none] == [("sid-code", tmp_path / ".sid-code")]
    (tmp_path / ".claude" / "projects").mkdir(parents=True)
    found, named = homes_from_flags({}, {"HOME": str(tmp_path)})
    assert not named and [s.name for s in found] == ["claude-code"]


def test_an_empty_transcript_is_claimed_by_its_place(tmp_path):
    home = cc_home(tmp_path / "c", {"p": {"s.jsonl": b"", "n.txt": b""}})
    assert ClaudeSource.claims_place(home / "projects" / "p" / "s.jsonl")
    assert not ClaudeSource.claims_place(home / "projects" / "p" / "n.txt")
    assert not ClaudeSource.claims_place(tmp_path / "s.jsonl")
    assert not SidCodeSource.claims_place(home / "projects" / "p" / "s.jsonl")
    assert source_of_file(tmp_path / "missing.jsonl") is None


def test_a_project_no_folder_of_a_source_has_is_its_usage_error(tmp_path):
    from sidtui.core.base.errors import UsageError

    home = tmp_path / "cc"
    (home / "projects" / "-home-me-app").mkdir(parents=True)
    src = ClaudeSource(ClaudeHome(home))
    src.require_project(None)
    src.require_project("-home-me-app")
    src.require_project("")  # the projects folder itself is a folder: not refused
    with pytest.raises(
        UsageError, match=r"no project folder 'nope' under .*\(projects: -home-me-app\)"
    ):
        src.require_project("nope")
    with pytest.raises(UsageError, match="not a path"):
        src.require_project("a/b")
    sid = SidCodeSource(Home(tmp_path / "sid"))
    (tmp_path / "sid" / "sessions").mkdir(parents=True)
    with pytest.raises(UsageError, match="not an empty name"):
        sid.require_project("")


def test_a_transcript_given_by_path_is_read_in_the_home_it_lies_in(tmp_path):
    from sidtui.core.sources import flag_dest

    assert [flag_dest(c.home_flag) for c in SOURCES] == ["home", "claude_home", "codex_home"]
    f = tmp_path / "cc" / "projects" / "-p" / "s.jsonl"
    assert ClaudeSource.home_of_file(f) == (tmp_path / "cc").resolve()
    assert ClaudeSource.home_of_file(tmp_path / "s.jsonl") is None
    assert SidCodeSource.home_of_file(f) is None  # sid-code's rules find its home themselves

"""The demo's Claude Code home: every case reads as planned, rewinds work on it, and the
sid-code home beside it is the same bytes with or without it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import orjson
import pytest

from sidtui.cli import main
from sidtui.core.claude.code_restore import CodeRestorer
from sidtui.core.claude.file_history import read_file_history
from sidtui.core.claude.layout import ClaudeHome, discover, resolve_session
from sidtui.core.claude.session import open_claude_session
from sidtui.demo import build_demo_home
from sidtui.demo.claude import build_claude_demo, claude_slug
from tests.helpers import short_folder


@pytest.fixture(scope="module")
def demo(short_base):
    return build_demo_home(short_folder(short_base, "cdemo") / "d", seed=0, use_git=False)


def _view(demo, case):
    h = ClaudeHome(demo.claude_home)
    return open_claude_session(h, resolve_session(h, demo.claude_cases[case]))


def test_every_claude_session_opens(demo):
    h = ClaudeHome(demo.claude_home)
    files = discover(h)
    assert sum(f.kind == "main" for f in files) == len(demo.claude_cases) == 8
    assert sum(f.kind == "sidechain" for f in files) == 3
    for f in files:
        open_claude_session(h, f).to_json()
    assert demo.claude_home == demo.root / "claude"


def test_checkpoints_case(demo):
    v = _view(demo, "checkpoints")
    fh = read_file_history(v)
    assert [c.id for c in fh.checkpoints] == ["c1", "c2", "c3", "c4"]
    assert [c.deltas for c in fh.checkpoints] == [2, 0, 1, 0]
    assert [Path(b.path).name for b in fh.unrecoverable()] == ["app.py"]  # v2 pruned
    assert fh.unrecoverable()[0].version == 2
    drawings = {Path(ch.file_path).name: ch.drawing for ch in fh.chains()}
    assert drawings == {
        "search.py": "absent → v2 → v3",
        "app.py": "v1 → v2 ✗ → v3",
        "test_search.py": "absent → v2",
    }
    assert any(t.kind == "parallel" for t in v.tree.tips)  # two reads in one response
    plan = CodeRestorer(v, allow_outside_root=True).plan(3)
    drift = {Path(f.path).name: f.drift and f.drift.status for f in plan}
    assert drift["search.py"] == "changed"  # edited by hand after the session


def test_other_cases(demo):
    rw = _view(demo, "rewind")
    (br,) = rw.tree.branches
    assert br.rewind and rw.title == "README work"
    assert [c.updates for c in read_file_history(rw).checkpoints] == [1, 0, 0]  # 2.1.114: updates
    cp = _view(demo, "compaction")
    assert cp.tree.compactions and any(m.kind == "compact_summary" for m in cp.messages)
    sa = _view(demo, "subagents")
    assert sorted((a.status, a.depth) for a in sa.subagents) == [
        ("completed", 1),
        ("completed", 2),
        ("unfinished", 1),
    ]
    assert sa.liveness.stale and not sa.liveness.live
    it = _view(demo, "interrupted")
    assert it.interruption.kind == "interrupted_turn" and it.interruption.marker is not None
    torn = _view(demo, "torn")
    (bad,) = torn.scan.bad_lines
    assert not torn.scan.ends_with_newline and bad.line == torn.scan.line_count
    empty = _view(demo, "empty")
    assert empty.scan.size == 0 and not empty.messages


def test_fork_case_is_sidtuis_own_fork(demo):
    v = _view(demo, "fork")
    src = demo.claude_cases["checkpoints"]
    recs = [orjson.loads(x) for x in v.file.path.read_bytes().splitlines()]
    assert all(r["forkedFrom"]["sessionId"] == src for r in recs if "uuid" in r)
    assert [p.preview() for p in v.prompts] == [
        "Add a search function to the notes app",
        "Make the search case-insensitive",
    ]
    fh = read_file_history(v)
    assert len(fh.checkpoints) == 2 and [Path(b.path).name for b in fh.unrecoverable()] == [
        "app.py"
    ]


def test_rewind_and_redo_on_the_demo(tmp_path, capsys):
    d = build_claude_demo(tmp_path / "d", seed=0, use_git=False)
    sid = d.cases["checkpoints"]
    app = d.projects["notes-app"].root / "app.py"
    now = app.read_bytes()
    h = ["--claude-home", str(d.home)]
    rc = main([*h, "rewind", sid, "--to", "1", "--mode", "code", "--allow-outside-root", "--force"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    assert b"search" not in app.read_bytes()  # app.py as it was before the first prompt
    assert not (d.projects["notes-app"].root / "search.py").exists()
    assert main([*h, "redo", sid, "--allow-outside-root"]) == 0
    assert app.read_bytes() == now


def test_the_sid_code_home_is_the_same_bytes_with_or_without_claude(short_tmp_path):
    tmp_path = short_tmp_path

    def snap(root: Path) -> dict[str, bytes]:
        return {
            str(p.relative_to(root)): re.sub(rb'"pid": \d+', b'"pid": 0', p.read_bytes())
            for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.parts
        }

    a = build_demo_home(tmp_path / "a", seed=3, use_git=False, claude=False)
    shutil.move(str(tmp_path / "a"), str(tmp_path / "x"))
    b = build_demo_home(tmp_path / "a", seed=3, use_git=False)
    assert a.claude_home is None and b.claude_home is not None
    with_claude = snap(tmp_path / "a")
    without = snap(tmp_path / "x")
    assert {k: v for k, v in with_claude.items() if k.startswith(("home/", "projects/"))} == without


def test_slug_rule():
    assert claude_slug("/home/u/my_project.v2") == "-home-u-my-project-v2"
    long = "/" + "a" * 250
    s = claude_slug(long)
    assert s.startswith("-" + "a" * 199) and len(s) > 201 and re.fullmatch(r"-a{199}-[0-9a-z]+", s)

"""`sidtui demo`: the seeded home opens everywhere and shows every planned case."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sidtui.cli import main
from sidtui.core.base.discover import discover
from sidtui.core.base.home import Home
from sidtui.core.base.jsonparse import js_json_parse
from sidtui.core.base.project import ProjectKeyTooLong
from sidtui.core.base.resolve import resolve_session
from sidtui.core.checkpoints.manager import CheckpointManager
from sidtui.core.edits.batches import apply_structured_patch
from sidtui.core.resume.process import read_file_intents, read_registrations
from sidtui.core.views.session import open_session
from sidtui.demo import build_demo_home
from sidtui.demo.agent import NO_NEWLINE, structured_patch
from sidtui.demo.live import main as live_main
from sidtui.demo.scenarios import DEMO_PROJECTS
from tests.helpers import short_folder


@pytest.fixture(scope="module")
def demo(short_base):
    return build_demo_home(short_folder(short_base, "demo") / "d", seed=0)


def view(demo, case):
    home = Home(demo.home)
    return open_session(home, resolve_session(home, demo.cases[case]))


def test_every_session_opens_and_shows(demo, capsys):
    home = Home(demo.home)
    files = discover(home)
    assert len(files) >= 25
    for sf in files:
        open_session(home, sf).to_json()
        assert main(["--home", str(demo.home), "show", str(sf.path), "--json"]) == 0
        json.loads(capsys.readouterr().out)
    assert main(["--home", str(demo.home), "ls"]) == 0


def test_package_docstring_lists_the_seed0_ids(demo):
    import sidtui.demo as pkg

    rows = re.findall(
        r"^(\S[^\n]*?)\s{2,}(\d{8}-\d{6}-[0-9a-f]{8}|[0-9a-f]{8})\s", pkg.__doc__, re.M
    )
    listed = {}
    for names, sid in rows:
        for name in names.replace(",", " ").split():
            listed[name] = sid
    for case, sid in demo.cases.items():
        if case in listed:
            assert listed[case] == sid, case
    assert {"clean", "killed", "concurrent", "evicted_base", "cycle", "torn_glued"} <= set(listed)


def test_scripted_tools_really_ran(demo):
    """Every scripted edit found its text: the only error result is the failed sub-agent."""
    errors = {}
    merged = 0
    for sf in discover(Home(demo.home)):
        if sf.kind != "main" or sf.container != "jsonl":
            continue
        for line in sf.path.read_bytes().splitlines():
            if b'"is_error":true' in line:
                errors[sf.session_id] = errors.get(sf.session_id, 0) + line.count(
                    b'"is_error":true'
                )
            if line.startswith(b'{"type":"user_message"'):
                merged = max(merged, line.count(b'"type":"tool_result"'))
    assert errors == {demo.cases["sidechains"]: 1}
    assert merged == 8  # FORMAT.md §3.10: up to 8 parallel results in one record


def test_interruption_states(demo):
    assert view(demo, "clean").to_json()["interruption"]["kind"] == "none"
    assert (
        view(demo, "interrupted_prompt").to_json()["interruption"]["kind"] == "interrupted_prompt"
    )
    j = view(demo, "interrupted_turn").to_json()
    assert j["interruption"]["kind"] == "interrupted_turn"
    assert j["interruption"]["tool_names"] == ["bash", "bash"]
    k = view(demo, "killed").to_json()
    assert k["interruption"]["kind"] == "interrupted_prompt"
    assert len(k["dropped"]) == 2  # the orphan tool_use, then the thinking-only remnant


def test_metadata_keys_and_usage(demo):
    j = view(demo, "clean").to_json()
    meta = j["metadata"]
    for key in (
        "file_changes",
        "usage_stats",
        "todo_state",
        "agent_setting",
        "goal_state",
        "session_name",
        "summary",
    ):
        assert key in meta, key
    assert json.loads(meta["goal_state"])["status"] == "complete"
    assert meta["file_changes"]["snapshotIds"] == ["s1", "s2", "s3"]
    data = Path(j["path"]).read_bytes().splitlines()
    assistants = [orjson.loads(x) for x in data if b'"type":"assistant_message"' in x[:40]]
    assert all(
        set(a["usage"]) >= {"inputTokens", "outputTokens", "cacheReadInputTokens"}
        for a in assistants
    )
    users = [orjson.loads(x) for x in data if x.startswith(b'{"type":"user_message"')]
    assert max(sum(b["type"] == "tool_result" for b in u["message"]["content"]) for u in users) == 3


def test_branches_forks_resumes_rewinds(demo):
    assert len(view(demo, "concurrent").to_json()["branches"]["tips"]) == 2
    r = view(demo, "rewind")
    assert len(r.to_json()["branches"]["tips"]) == 2
    assert r.loaded.metadata["rewind"]["toPoint"] == 2
    from sidtui.core.edits.points import rewind_points

    assert len(rewind_points(r)) == 1  # prompts 2 and 3 are off the live chain now
    fork_idx = CheckpointManager.for_session(Home(demo.home), demo.cases["fork"]).index
    assert [s["id"] for s in fork_idx.snapshots] == ["s1", "s2", "s3", "s4"]
    f = view(demo, "fork").to_json()
    assert f["chain"]["fork_source"] == demo.cases["clean"]
    assert f["metadata"]["forked_from"]["sessionId"] == demo.cases["clean"]
    res = view(demo, "resumed")
    assert len(res.trace_ids) == 2
    assert sum(1 for r in res.rf.records if r.type == "session_end") == 3
    assert len(view(demo, "reused_id").to_json()["branches"]["heads"]) == 2


def test_corrupt_files(demo):
    c = view(demo, "cycle").to_json()
    assert c["cycle"] and not c["loadable"]
    h = view(demo, "half_line").to_json()
    assert h["loadable"] and len(h["bad_lines"]) == 1 and not h["bad_lines"][0]["terminated"]
    t = view(demo, "torn_glued").to_json()
    assert not t["loadable"] and t["bad_lines"]
    s = view(demo, "lone_surrogate")
    assert not s.rf.bad_lines  # JSON.parse accepts it ...
    raw = [x for x in s.file.path.read_bytes().splitlines() if b"\\ud83d" in x]
    assert raw
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(raw[0])  # ... a strict parser does not
    assert js_json_parse(raw[0].decode()) is not None


def test_legacy_formats(demo):
    assert view(demo, "legacy_v1").to_json()["format_version"] == "1.0"
    assert view(demo, "legacy_v1_no_version").loaded.loadable
    v2 = view(demo, "legacy_v2").to_json()
    assert v2["format_version"] == "2.0" and v2["chain"]["linear"] and v2["bad_lines"]
    assert view(demo, "legacy_flat").file.project == "_legacy"
    m = CheckpointManager.for_session(Home(demo.home), demo.cases["legacy_checkpoints"])
    assert m.index.snapshots  # the legacy index migrates


def test_sidechains_and_compact(demo):
    v = view(demo, "sidechains")
    assert sorted(str(s.status) for s in v.sidechains) == ["None", "completed", "failed"]
    assert sum(s.unfinished for s in v.sidechains) == 1
    c = view(demo, "context_compact")
    assert any(r.type == "context_compact" for r in c.rf.records)
    assert c.file.path.with_name("summaries").joinpath(f"{c.session_id}.json").exists()


def test_checkpoints(demo):
    home = Home(demo.home)
    m = CheckpointManager.for_session(home, demo.cases["checkpoints"])
    entries = [f for s in m.index.snapshots for f in s["files"]]
    assert any(f["type"] == "full" and f.get("compressed") for f in entries)
    assert any(f["type"] == "full" and not f.get("compressed") for f in entries)
    assert any(f["type"] == "diff" for f in entries)
    assert any(f["existedBefore"] is False for f in entries)
    assert all(c.healthy for c in m.chain_health())
    assert len(m.index.snapshots) < m.index.data["nextId"] - 1  # eviction happened
    clean = CheckpointManager.for_session(home, demo.cases["clean"])
    assert any(f.get("compressed") for s in clean.index.snapshots for f in s["files"])
    ev = CheckpointManager.for_session(home, demo.cases["evicted_base"])
    assert [c for c in ev.chain_health() if not c.healthy]  # an unrecoverable entry


def test_process_layer(demo):
    home = Home(demo.home)
    regs = read_registrations(home)
    assert [r.session_id for r in regs] == [demo.cases["killed"]]
    assert not regs[0].live and regs[0].pid == demo.dead_pid
    assert view(demo, "killed").liveness.stale
    intents = read_file_intents(home)
    assert intents and all(i.expired for i in intents)
    assert {i.operation for i in intents} == {"edit", "read"}
    hist = [orjson.loads(x) for x in (demo.home / "history.jsonl").read_bytes().splitlines()]
    assert list(hist[0]) == ["display", "pastedContents", "timestamp", "project", "sessionId"]


def _snapshot(root: Path) -> dict[str, bytes]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and ".git" not in p.parts:
            out[str(p.relative_to(root))] = re.sub(rb'"pid": \d+', b'"pid": 0', p.read_bytes())
    return out


def test_same_seed_same_bytes(short_tmp_path):
    root = short_tmp_path / "d"
    a = build_demo_home(root, seed=7, use_git=False)
    first = _snapshot(root)
    shutil.rmtree(root)
    build_demo_home(root, seed=7, use_git=False)
    assert _snapshot(root) == first
    shutil.rmtree(root)
    other = build_demo_home(root, seed=8, use_git=False)
    assert _snapshot(root) != first
    assert other.cases["clean"] != a.cases["clean"]


def test_without_git(short_tmp_path):
    d = build_demo_home(short_tmp_path / "d", seed=0, use_git=False)
    assert not any((p.root / ".git").exists() for p in d.projects.values())
    first = (d.home / "sessions").rglob(f"{d.cases['clean']}.jsonl").__next__().read_bytes()
    assert b"gitBranch" not in first
    assert open_session(
        Home(d.home), resolve_session(Home(d.home), d.cases["clean"])
    ).loaded.loadable


def test_demo_is_core_level():
    code = "import sys, sidtui.demo, sidtui.demo.live, sidtui.demo.scale; print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_cli_demo(short_tmp_path, capsys, monkeypatch):
    tmp_path = short_tmp_path
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / ".cache"))  # the fresh folder's place
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here"))  # a machine without git
    target = tmp_path / "x"
    assert main(["demo", "--dir", str(target), "--no-open"]) == 0
    assert capsys.readouterr().out.strip() == str(target / "home")
    assert main(["demo", "--dir", str(target), "--no-open"]) == 2  # not empty
    assert main(["demo", "--no-open"]) == 0  # fresh folder in the user cache dir
    out = capsys.readouterr()
    home = Path(out.out.strip())
    assert home.exists() and "sidtui" in str(home) and str(home) in out.err
    assert main(["demo", "--dir", str(tmp_path / "s"), "--scale", "3", "--no-open"]) == 0
    capsys.readouterr()
    assert len(discover(Home(tmp_path / "s" / "home"))) == 3
    # Not a terminal: the listing instead of the full-screen app, and it says so.
    assert main(["demo", "--dir", str(tmp_path / "y")]) == 0
    out = capsys.readouterr()
    assert "webshop" in out.out
    assert "the app needs a terminal" in out.err and "session list instead" in out.err


@pytest.mark.parametrize("n", ["0", "-1", "100001", "10" * 12])
def test_cli_demo_scale_out_of_range_is_a_usage_error(tmp_path, capsys, n):
    target = tmp_path / "z"
    assert main(["demo", "--scale", n, "--dir", str(target), "--no-open"]) == 2
    err = capsys.readouterr().err
    assert "--scale needs a number of sessions from 1 to 100,000" in err
    assert "open it any time" not in err and len(err.strip().splitlines()) == 1
    assert not target.exists() or not any(target.iterdir())


def test_cli_demo_hint_shell_quotes_the_home(tmp_path, capsys):
    import shlex

    target = tmp_path / "with space's"
    assert main(["demo", "--scale", "1", "--dir", str(target), "--no-open"]) == 0
    err = capsys.readouterr().err
    assert f"open it any time with: sidtui --home {shlex.quote(str(target / 'home'))}" in err


def _key_orders(home: Path) -> dict[str, set[tuple[str, ...]]]:
    out: dict[str, set[tuple[str, ...]]] = {}

    def add(kind, obj):
        out.setdefault(kind, set()).add(tuple(obj))

    for f in (home / "sessions").rglob("*.jsonl"):
        for line in f.read_bytes().splitlines():
            try:
                r = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if not isinstance(r, dict):
                continue
            kind = str(r.get("type"))
            if kind == "user_message":  # per-message context: any subset, in this order
                r = {k: v for k, v in r.items() if k not in ("cwd", "gitBranch", "permissionMode")}
            add(kind, r)
            if kind in ("user_message", "assistant_message"):
                for b in r["message"]["content"]:
                    add("block:" + b["type"], b)
    for f in (home / "checkpoints").glob("*/index.json"):
        d = json.loads(f.read_text())
        add("index", d)
        for s in d.get("snapshots", []):
            add("snapshot", s)
            for e in s["files"]:
                add("entry:" + e["type"], e)
    for f in (home / "active-sessions").glob("*.json"):
        add("registration", json.loads(f.read_text()))
    for f in (home / "file-intents").glob("*.json"):
        d = json.loads(f.read_text())
        add("intents", d)
        for v in d["files"].values():
            add("intent", v)
    for f in (home / "sessions").glob("*/summaries/*.json"):
        add("summary", json.loads(f.read_text()))
    for line in (home / "history.jsonl").read_text().splitlines():
        add("history", json.loads(line))
    return out


def test_shapes_match_the_real_agent_files(demo):
    """Every record/file shape (keys and key order) the demo writes also occurs in the files
    the agent's own code wrote (fixtures/real-home)."""
    from tests.helpers import REAL_HOME

    real = _key_orders(REAL_HOME)
    mine = _key_orders(demo.home)
    for kind, orders in mine.items():
        if kind == "registration":  # + logicalSessionId for resumed processes (FORMAT.md §12.3)
            orders = {o for o in orders if "logicalSessionId" not in o}
        assert orders <= real.get(kind, set()), (kind, orders - real.get(kind, set()))


_TEXT = st.lists(st.sampled_from(["a", "b", "c", ""]), max_size=6).map("\n".join)


@given(old=_TEXT, new=_TEXT, old_nl=st.booleans(), new_nl=st.booleans())
def test_demo_patches_apply_back_to_the_new_text(old, new, old_nl, new_nl):
    """The demo's ``structuredPatch`` writer and the drift check's applier agree, a file
    without a final newline included (the marker, as the agent writes it)."""
    old += "\n" if old_nl and old else ""
    new += "\n" if new_nl and new else ""
    assert apply_structured_patch(old, structured_patch(old, new)) == new


def test_demo_patch_marks_a_missing_final_newline():
    """As in the agent's own files (fixtures/real-home cli-tool, todo.md)."""
    lines = structured_patch("x\n- [ ] a", "x\n- [x] a")[0]["lines"]
    assert lines == [" x", "-- [ ] a", NO_NEWLINE, "+- [x] a", NO_NEWLINE]
    assert structured_patch("a", "a\n")[0]["lines"] == ["-a", NO_NEWLINE, "+a"]


def test_demo_undo_example_has_no_false_drift(demo, capsys):
    """notes/todo.md has no final newline; the session's edit is the last one on it."""
    [path] = [
        p
        for p in (demo.home / "sessions").rglob("*.jsonl")
        if b"And tick the release item." in p.read_bytes()
    ]
    home = ["--home", str(demo.home)]
    assert main([*home, "undo", path.stem, "--dry-run"]) == 0
    out = capsys.readouterr()
    assert "todo.md" in out.out and "changed after" not in out.out + out.err


def test_cli_demo_dir_that_cannot_be_made_is_one_line(short_tmp_path, capsys, monkeypatch):
    tmp_path = short_tmp_path
    (tmp_path / "f").write_text("a file in the way")
    assert main(["demo", "--dir", str(tmp_path / "f" / "x"), "--no-open"]) == 1
    err = capsys.readouterr().err
    assert err == f"sidtui: error: cannot create {tmp_path / 'f' / 'x'}: Not a directory\n"

    def full(*_a, **_k):
        raise OSError(28, "No space left on device", str(tmp_path / "d" / "home"))

    monkeypatch.setattr("sidtui.demo.scale.write_scale_home", full)
    assert main(["demo", "--dir", str(tmp_path / "d"), "--scale", "1", "--no-open"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"sidtui: error: cannot build the demo in {tmp_path / 'd'}: No space")
    assert len(err.splitlines()) == 1


def test_the_demo_names_every_project_folder_it_makes(demo):
    """``check_demo_root`` checks DEMO_PROJECTS before anything is written: the list must
    be the demo's folders (live-app is made by --live)."""
    made = {p.root.name for p in demo.projects.values()}
    assert made | {"live-app"} == set(DEMO_PROJECTS)


def test_a_demo_folder_too_deep_for_a_project_key_is_refused_in_one_line(tmp_path, capsys):
    """Regression: from a ``--dir`` so deep that a project's key (its whole path) is longer
    than a folder name, the demo failed half-way with "File name too long" after writing
    projects; sid-code cannot store sessions for such a project (its mkdir fails: FORMAT.md
    §1.3), so the demo refuses before writing anything."""
    deep = tmp_path / ("d" * 120) / ("e" * 120)
    assert main(["demo", "--dir", str(deep), "--no-open"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert "sid-code cannot store sessions for it; use a shorter folder" in err
    assert f"{deep / 'projects'}" in err and "a folder name holds 255" in err
    assert not deep.exists()
    with pytest.raises(ProjectKeyTooLong):
        build_demo_home(deep, seed=0, use_git=False)
    assert not deep.exists()


def test_the_live_agent_refuses_a_project_too_deep_for_its_key(tmp_path, capsys):
    deep = tmp_path / ("d" * 150) / ("e" * 150)
    deep.mkdir(parents=True)
    assert live_main(["--home", str(tmp_path / "home"), "--project", str(deep)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "sid-code cannot store sessions for it" in err
    assert not (tmp_path / "home").exists()


def test_hand_made_sessions_open_with_one_session_start():
    from sidtui.demo.projects import session_start_record

    rec = session_start_record("s1", "m", "/w")
    assert list(rec) == [
        "type",
        "version",
        "schemaCompat",
        "sessionId",
        "model",
        "provider",
        "cwd",
    ]
    assert rec["type"] == "session_start" and rec["sessionId"] == "s1" and rec["cwd"] == "/w"
    assert session_start_record("s1", "m", "/w") is not rec  # a fresh dict each time


def test_a_dead_pid_is_seeded_and_not_running():
    import random

    import psutil

    from sidtui.demo import scenarios
    from sidtui.demo.clock import find_dead_pid

    pid = find_dead_pid(random.Random("x"))
    assert pid == find_dead_pid(random.Random("x")) and not psutil.pid_exists(pid)
    assert scenarios.find_dead_pid is find_dead_pid  # still importable where it was

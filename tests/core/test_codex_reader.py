"""The Codex rollout reader on damaged input (hypothesis), discovery, liveness, and the
conversation built from the lab's rollouts."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sidtui.core.base.errors import AmbiguousSession, SessionNotFound
from sidtui.core.codex.history import predict
from sidtui.core.codex.layout import CodexHome, discover, resolve_session
from sidtui.core.codex.liveness import held_flocks, read_locks
from sidtui.core.codex.rollout import parse
from sidtui.core.sources.codex import CodexSource

LAB = Path(__file__).resolve().parents[1] / "fixtures" / "codex-lab"
SHELL = (LAB / "cases" / "shell-2" / "rollout.jsonl").read_bytes()
COMPACT = (LAB / "cases" / "compact-2" / "rollout.jsonl").read_bytes()


def _nonblank_lines(data: bytes) -> int:
    return sum(1 for ln in data.split(b"\n") if ln.strip())


@given(st.binary(max_size=400))
@example(b'{"type": "response_item", "payload": []}\n')
@example(b"\xff\xfe\n{}")
@example(b'[1]\n"x"\n{"type": 3, "payload": {}}')
def test_any_bytes_read_without_error(data):
    ro = parse(data)
    assert len(ro.records) + len(ro.bad_lines) == _nonblank_lines(data)
    assert [b.torn for b in ro.bad_lines].count(True) <= 1
    predict(ro)  # and the prediction never fails on what the reader kept


@settings(max_examples=60)
@given(st.sampled_from([SHELL, COMPACT]), st.data())
def test_a_torn_tail_loses_only_the_last_line(full, data):
    cut = data.draw(st.integers(0, len(full)))
    whole, part = parse(full), parse(full[:cut])
    assert [r.payload for r in part.records] == [r.payload for r in whole.records][
        : len(part.records)
    ]
    assert len(part.bad_lines) <= 1
    if part.bad_lines:
        assert part.bad_lines[0].torn and cut < len(full)


_JUNK = st.one_of(
    st.binary(min_size=1, max_size=40).filter(lambda b: b"\n" not in b),
    st.builds(
        lambda t, p: json.dumps(
            {"timestamp": "2026-01-01T00:00:00Z", "type": t, "payload": p}
        ).encode(),
        st.sampled_from(["future_record", "event_msg", "turn_context", "world_state"]),
        st.dictionaries(st.sampled_from(["type", "x", "turn_id"]), st.text(max_size=5), max_size=2),
    ),
)


@settings(max_examples=60)
@given(st.lists(st.tuples(st.integers(0, 60), _JUNK), max_size=5))
@example([(3, b"{not json")])
def test_lines_that_are_no_history_do_not_change_the_prediction(inserts):
    lines = SHELL.split(b"\n")
    for at, junk in sorted(inserts, reverse=True):
        lines.insert(min(at, len(lines)), junk)
    damaged = parse(b"\n".join(lines))
    assert predict(damaged).payloads() == predict(parse(SHELL)).payloads()


def test_interruptions_by_shape():
    def kind(name: str) -> tuple[str, list[str], bool, bool]:
        src = CodexSource(CodexHome(LAB / "home"))
        from sidtui.core.codex.layout import file_for_path

        v = src.open(file_for_path(LAB / "cases" / name / "rollout.jsonl"))
        i = v.interruption
        return i.kind, i.tool_names, i.recorded, i.unfinished

    assert kind("kill-tool-2") == ("interrupted_turn", ["exec_command"], False, True)
    assert kind("kill-text-3") == ("interrupted_prompt", [], True, False)
    assert kind("kill-term-2") == ("interrupted_prompt", [], False, True)
    assert kind("shell-2") == ("none", [], False, False)


def test_messages_pair_calls_and_outputs():
    from sidtui.core.codex.layout import file_for_path

    v = CodexSource(CodexHome(LAB / "home")).open(
        file_for_path(LAB / "cases" / "parallel-2" / "rollout.jsonl")
    )
    roles = [m.role for m in v.messages if not m.context]
    assert roles == ["user", "assistant", "tool", "assistant"]
    calls = [b.call_id for b in v.messages[3].blocks]
    results = [b.call_id for b in v.messages[4].blocks]
    assert calls == results and len(calls) == 2
    assert v.title == "read both files"
    assert v.to_json()["resume"]["items"] == len(v.resume.items)


def _home(tmp_path: Path) -> CodexHome:
    for day, sid in (
        ("2026/01/02", "aaaaaaaa-0000-7000-8000-000000000001"),
        ("2026/01/03", "aaaaaaaa-0000-7000-8000-000000000002"),
        ("2025/12/31", "bbbbbbbb-0000-7000-8000-000000000003"),
    ):
        d = tmp_path / "sessions" / day
        d.mkdir(parents=True, exist_ok=True)
        meta = {"type": "session_meta", "payload": {"id": sid, "cwd": f"/p/{sid[0]}"}}
        (d / f"rollout-{day.replace('/', '-')}T10-00-00-{sid}.jsonl").write_text(
            json.dumps(meta) + "\n"
        )
    return CodexHome(tmp_path)


def test_discovery_and_resolution(tmp_path):
    home = _home(tmp_path)
    files = discover(home)
    assert [f.session_id[-1] for f in files] == ["3", "1", "2"]
    assert [f.project for f in discover(home, "/p/a")] == ["/p/a", "/p/a"]
    assert resolve_session(home, "bbbb").session_id.endswith("3")
    with pytest.raises(AmbiguousSession):
        resolve_session(home, "aaaa")
    with pytest.raises(SessionNotFound):
        resolve_session(home, "cccc")
    assert resolve_session(home, "latest", cwd=Path("/p/a")).session_id.endswith("2")
    env = {"CODEX_HOME": str(tmp_path), "HOME": "/nowhere"}
    assert CodexSource.resolve_home(None, env).root == tmp_path
    assert CodexSource.resolve_home(None, {"HOME": "/h"}).root == Path("/h/.codex")


def test_liveness_from_proc_locks(tmp_path):
    locks = tmp_path / "thread-writer-locks"
    locks.mkdir()
    live, dead = locks / "s-live.lock", locks / "s-dead.lock"
    live.touch()
    dead.touch()
    (locks / ".coordination.lock").touch()
    st_ = live.stat()
    dev = f"{os.major(st_.st_dev):02x}:{os.minor(st_.st_dev):02x}:{st_.st_ino}"
    proc = tmp_path / "locks"
    proc.write_text(
        f"1: FLOCK  ADVISORY  WRITE 4242 {dev} 0 EOF\n"
        f"1: -> FLOCK  ADVISORY  WRITE 99 {dev} 0 EOF\n"
        "2: POSIX  ADVISORY  READ 7 00:01:5 0 EOF\n"
    )
    assert held_flocks(proc)[(os.major(st_.st_dev), os.minor(st_.st_dev), st_.st_ino)] == 4242
    regs = {r.session_id: r for r in read_locks(CodexHome(tmp_path), proc_locks=proc)}
    assert set(regs) == {"s-live", "s-dead"}
    assert regs["s-live"].live and regs["s-live"].pid == 4242
    assert not regs["s-dead"].live
    unknown = read_locks(CodexHome(tmp_path), proc_locks=tmp_path / "missing")
    assert all(r.possibly and r.live for r in unknown)

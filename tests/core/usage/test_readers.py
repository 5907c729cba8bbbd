"""Each source's usage reader: what a transcript records of its API calls.

Claude Code: sidtui.core.claude.usage; sid-code: sidtui.core.views.sidcode_usage; the line
finder both use: sidtui.core.usage.lines.
"""

from __future__ import annotations

import json
from pathlib import Path

from scripts.usage_compare import progress, rec
from sidtui.core.claude.usage import read_usage as claude_usage
from sidtui.core.usage.lines import lines_with
from sidtui.core.views.sidcode_usage import read_usage as sid_usage
from tests.helpers import REAL_HOME

M = "claude-sonnet-4-20250514"
T = "2025-03-01T12:00:00.000Z"


def write(path: Path, *lines) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(
            (x if isinstance(x, str) else json.dumps(x, separators=(",", ":"))) + "\n"
            for x in lines
        )
    )
    return path


def test_claude_lines_give_one_event_each_with_their_fields(tmp_path) -> None:
    r = rec(T, M, "m1", "r1", 1, 2, 3, 4, session="sess")
    r["message"]["usage"]["cache_creation"] = {
        "ephemeral_5m_input_tokens": 1,
        "ephemeral_1h_input_tokens": 2,
    }
    r["message"]["usage"]["speed"] = "fast"
    f = write(
        tmp_path / "projects/p/sess.jsonl", r, rec(T, M, "m1", "r1", 1, 9, 3, 4, session="sess")
    )
    a, b = claude_usage(f, "p")
    assert (a.message_id, a.request_id, a.model, a.model_name) == ("m1", "r1", M, M + "-fast")
    assert (
        a.input_tokens,
        a.output_tokens,
        a.cache_creation_tokens,
        a.cache_creation_1h_tokens,
        a.cache_read_tokens,
    ) == (1, 2, 3, 2, 4)
    assert (a.session, a.project, a.ts_ms, a.offset) == ("sess", "p", 1740830400000, 0)
    assert b.output_tokens == 9 and b.offset > 0 and not b.fast


def test_claude_refuses_a_line_as_ccusage_does(tmp_path) -> None:
    bad = rec(T, M, "m1", "r1", 1)
    del bad["message"]["usage"]["output_tokens"]
    f = write(
        tmp_path / "projects/p/s.jsonl",
        bad,
        rec(T, M, "m2", "r2", "1"),
        rec(T, M, 5, "r3", 1),
        rec("2025-03-01T12:00:00", M, "m4", "r4", 1),
        rec(T, M, "m5", "r5", 1, costUSD="5"),
        "not json",
        rec(T, M, "m6", "r6", 6),
    )
    assert [e.message_id for e in claude_usage(f, "p")] == ["m6"]


def test_a_sub_agents_response_streamed_into_the_parent_is_read(tmp_path) -> None:
    inner = rec("2025-03-03T12:00:00Z", M, "m1", "r1", 5)
    f = write(tmp_path / "projects/p/s.jsonl", progress(T, inner))
    (e,) = claude_usage(f, "p")
    assert (e.message_id, e.ts_ms, e.input_tokens) == ("m1", 1741003200000, 5)


def test_a_sub_agent_file_belongs_to_its_session(tmp_path) -> None:
    r = rec(T, M, "m1", "r1", 5)
    del r["sessionId"]
    f = write(tmp_path / "projects/p/sess-1/subagents/agent-x.jsonl", r)
    assert claude_usage(f, "p")[0].session == "sess-1"


def test_a_lone_surrogate_escape_is_read_as_json_parse_reads_it(tmp_path) -> None:
    line = json.dumps(rec(T, M, "m1", "r1", 5), separators=(",", ":")).replace(
        '"text":"ok"', '"text":"\\ud800"'
    )
    f = write(tmp_path / "projects/p/s.jsonl", line)
    assert [e.input_tokens for e in claude_usage(f, "p")] == [5]


def test_lines_with_finds_the_last_line_without_a_newline_and_bounds_lines(
    tmp_path, monkeypatch
) -> None:
    f = tmp_path / "t.jsonl"
    f.write_bytes(b'{"a":1}\n{"usage":1}\n' + b'{"usage":' + b"9" * 100 + b"}")
    assert [o for o, _ in lines_with(f, b'"usage"')] == [8, 20]
    monkeypatch.setenv("SIDTUI_MAX_LINE_BYTES", "50")
    errors: list[str] = []
    assert [o for o, _ in lines_with(f, b'"usage"', errors)] == [8]
    assert len(errors) == 1 and "not counted" in errors[0]
    (tmp_path / "empty.jsonl").write_bytes(b"")
    assert list(lines_with(tmp_path / "empty.jsonl", b"x")) == []


def _sid_files() -> list[Path]:
    return sorted((REAL_HOME / "sessions").rglob("*.json*"))


def test_sid_code_counts_each_call_it_recorded() -> None:
    """Where the last ``usage_stats`` covers every call of the file (its ``requests``), the
    calls' own records add up to its flow counts (FORMAT.md §3.11)."""
    agreeing = 0
    for f in _sid_files():
        events = sid_usage(f, "p")
        stats = None
        for line in f.read_text(errors="replace").splitlines():
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if (
                isinstance(r, dict)
                and r.get("type") == "metadata"
                and r.get("key") == "usage_stats"
            ):
                stats = r["value"]
        for model, mu in ((stats or {}).get("modelUsage") or {}).items():
            mine = [e for e in events if e.model == model]
            if mu.get("requests") == len(mine):
                assert sum(e.output_tokens for e in mine) == mu["outputTokens"], f.name
                assert sum(e.cache_read_tokens for e in mine) == mu["cacheReadInputTokens"], f.name
                agreeing += 1
    assert agreeing >= 8


def test_sid_code_sidechains_and_v1_sessions_record_no_usage() -> None:
    for f in _sid_files():
        head = f.read_bytes()[:4096]
        if f.suffix == ".json" or b'"sidechain_start"' in head.split(b"\n", 1)[0]:
            assert sid_usage(f, "p") == [], f


def test_sid_code_event_fields(tmp_path) -> None:
    start = {
        "type": "session_start",
        "sessionId": "20260101-000000-aaaaaaaa",
        "model": "claude-sonnet-4-6",
        "timestamp": T,
    }
    a = {
        "type": "assistant_message",
        "message": {"role": "assistant", "content": []},
        "timestamp": T,
        "usage": {"inputTokens": 1, "outputTokens": 2},
        "msgId": "msg_1",
    }
    b = {
        **a,
        "usage": {
            "inputTokens": 3,
            "outputTokens": 4,
            "cacheReadInputTokens": 5,
            "cacheCreationInputTokens": None,
        },
        "model": "deepseek-chat",
        "msgId": "msg_2",
    }
    c = {**a, "usage": {"inputTokens": "3", "outputTokens": 4}}
    f = write(tmp_path / "sessions/p/x.jsonl", start, a, b, c)
    e1, e2 = sid_usage(f, "p")
    assert (e1.model, e1.message_id, e1.request_id, e1.session) == (
        "claude-sonnet-4-6",
        "msg_1",
        None,
        "20260101-000000-aaaaaaaa",
    )
    assert (e2.model, e2.input_tokens, e2.cache_read_tokens, e2.cache_creation_tokens) == (
        "deepseek-chat",
        3,
        5,
        0,
    )


def test_a_line_with_spaces_after_its_colons_counts(tmp_path) -> None:
    """ccusage skips such a line (docs/DECISIONS.md); it is valid JSON, and sidtui counts it."""
    f = tmp_path / "projects/p/s.jsonl"
    f.parent.mkdir(parents=True)
    f.write_text(json.dumps(rec(T, M, "m1", "r1", 7)) + "\n")
    assert [e.input_tokens for e in claude_usage(f, "p")] == [7]

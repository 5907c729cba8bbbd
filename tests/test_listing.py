"""The fast summary (tail walk by byte search) agrees with the full reader."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sidtui.core.home import Home, SessionFile, discover
from sidtui.core.listing import _full_summary, count_records, list_sessions, summarize
from tests.conftest import REAL_HOME
from tests.helpers import assistant, jsonl, rec, start, tool_results, user

FIELDS = ["session_id", "format_version", "started", "model", "interruption", "tool_names",
          "loadable", "ended", "cost_usd", "first_prompt", "last_activity"]


def agree(home, sf):
    data = sf.path.read_bytes()
    fast = summarize(home, sf, registrations=[], data=data)
    full = _full_summary(home, sf, data, [])
    return {k: (getattr(fast, k), getattr(full, k)) for k in FIELDS if getattr(fast, k) != getattr(full, k)}


def test_fast_and_full_agree_on_every_fixture():
    home = Home(REAL_HOME)
    for sf in discover(home):
        assert agree(home, sf) == {}, sf.path


def test_records_count_is_non_blank_lines():
    assert count_records(b"") == 0
    assert count_records(b"a\n\nb\n") == 2
    assert count_records(b"a\nb") == 2
    assert count_records(b"\na\n") == 1


def test_list_sessions_sorted_newest_first():
    rows, errors = list_sessions(Home(REAL_HOME))
    assert not errors
    acts = [r.last_activity for r in rows]
    assert acts == sorted(acts, reverse=True)


BLOCKS = st.sampled_from(["prompt", "answer", "tools", "results", "meta", "bad", "end", "restart"])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(BLOCKS, max_size=14), st.integers(0, 3))
def test_fast_and_full_agree_on_generated_files(tmp_path, kinds, branch_at):
    recs = [start("S")]
    last = "S"
    n = 0
    pending: list[str] = []
    for k in kinds:
        n += 1
        u = f"u{n}"
        if k == "prompt":
            recs.append(user(u, last, f"prompt {n}"))
        elif k == "answer":
            recs.append(assistant(u, last, f"answer {n}"))
        elif k == "tools":
            pending = [f"t{n}a", f"t{n}b"]
            recs.append(assistant(u, last, None, tools=[(pending[0], "bash"), (pending[1], "read")]))
        elif k == "results":
            recs.append(tool_results(u, last, *(pending or ["zz"])))
        elif k == "meta":
            recs.append(rec("metadata", u, last, key="usage_stats", value={"totalCostUSD": n / 10}))
        elif k == "bad":
            recs.append(b'{"type":"user_message","uuid":"' + u.encode() + b'"')
            continue
        elif k == "end":
            recs.append(rec("session_end", u, last, totalCostUSD=1.5, totalMessages=n))
        elif k == "restart":
            recs.append(start(u, None))
        last = u
    if branch_at and len(recs) > branch_at:
        parent = recs[branch_at]["uuid"] if isinstance(recs[branch_at], dict) else "S"
        recs.insert(branch_at + 1, user("X1", parent, "other writer"))
    p = tmp_path / "sessions" / "p" / "20260101-000000-aaaaaaaa.jsonl"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(jsonl(*recs))
    home = Home(tmp_path)
    sf = SessionFile(p, p.stem, "p")
    assert agree(home, sf) == {}

"""The fast summary (tail walk by byte search) agrees with the full reader."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sidtui.core.views.listing as listing
from sidtui.core.base.discover import discover
from sidtui.core.base.home import Home, SessionFile
from sidtui.core.resume.process import trace_session_ids
from sidtui.core.views.fast_summary import _LineIndex
from sidtui.core.views.listing import (
    _full_summary,
    count_records,
    list_sessions,
    summarize,
)
from tests.helpers import REAL_HOME, assistant, jsonl, rec, start, tool_results, user

FIELDS = [
    "session_id",
    "format_version",
    "started",
    "model",
    "interruption",
    "tool_names",
    "loadable",
    "ended",
    "cost_usd",
    "first_prompt",
    "last_activity",
]


def agree(home, sf, fields=FIELDS):
    data = sf.path.read_bytes()
    fast = summarize(home, sf, registrations=[], data=data)
    full = _full_summary(home, sf, data, [])
    if sf.container == "jsonl":
        full.records = sum(1 for line in data.split(b"\n") if line.strip())  # ASCII blanks here
    diff = {
        k: (getattr(fast, k), getattr(full, k))
        for k in fields
        if getattr(fast, k) != getattr(full, k)
    }
    if sf.kind == "main" and fast.trace_ids != trace_session_ids(data):
        diff["trace_ids"] = (fast.trace_ids, trace_session_ids(data))
    return diff


def test_fast_and_full_agree_on_every_fixture():
    home = Home(REAL_HOME)
    for sf in discover(home):
        assert agree(home, sf) == {}, sf.path


def test_records_count_is_non_blank_lines():
    assert count_records(b"") == 0
    assert count_records(b"a\n\nb\n") == 2
    assert count_records(b"a\nb") == 2
    assert count_records(b"\na\n") == 1
    # whitespace-only lines are blank too (the agent skips `!line.trim()` lines)
    assert count_records(b"a\n  \nb\n") == 2
    assert count_records(b"a\n\t\r\n \xc2\xa0\n") == 1
    assert count_records(b" {}\n") == 1


def test_records_skip_whitespace_only_lines(tmp_path):
    p = tmp_path / "sessions" / "p" / "20260101-000000-aaaaaaaa.jsonl"
    p.parent.mkdir(parents=True)
    p.write_bytes(jsonl(start("S"), b"   ", user("u1", "S"), b"\t", assistant("a1", "u1")))
    (row,) = list_sessions(Home(tmp_path))[0]
    assert row.records == 3
    assert agree(Home(tmp_path), SessionFile(p, p.stem, "p")) == {}


@given(
    st.lists(
        st.binary(min_size=1, max_size=6).map(lambda b: b.replace(b"\n", b"x")),
        min_size=1,
        max_size=12,
    ),
    st.booleans(),
    st.data(),
)
def test_line_index_bounds_from_either_end(lines, trailing_nl, data):
    raw = b"\n".join(lines) + (b"\n" if trailing_nl else b"")
    idx = _LineIndex(raw, len(lines))
    want, pos = [], 0
    for line in lines:
        want.append((pos, pos + len(line)))
        pos += len(line) + 1
    for i in data.draw(st.permutations(range(len(lines)))):
        assert idx.bounds(i) == want[i]


def _rows(home, **kw):
    rows, errors = list_sessions(home, **kw)
    return [r.to_json() for r in rows], errors


def test_parallel_listing_equals_in_process(real_home_copy, monkeypatch):
    home = Home(real_home_copy)
    for kw in ({}, {"include_sidechains": True}):
        monkeypatch.setattr(listing, "PARALLEL_MIN_FILES", 10**9)
        serial = _rows(home, **kw)
        monkeypatch.setattr(listing, "PARALLEL_MIN_FILES", 1)
        monkeypatch.setattr(listing, "CHUNK_FILES", 3)
        assert _rows(home, **kw) == serial


def test_workers_only_for_big_homes_without_threads(monkeypatch):
    import threading

    assert listing.workers_for(listing.PARALLEL_MIN_FILES - 1) == 1
    done = threading.Event()
    t = threading.Thread(target=done.wait)
    t.start()
    try:
        assert listing.workers_for(10**6) == 1  # fork with other threads running: in-process
    finally:
        done.set()
        t.join()


def test_short_first_reads_give_the_same_listing(real_home_copy, monkeypatch):
    """A file longer than the first read (and a first line longer than it) reads whole."""
    home = Home(real_home_copy)
    want = _rows(home, include_sidechains=True)
    monkeypatch.setattr(listing, "HEAD_READ", 7)
    assert _rows(home, include_sidechains=True) == want
    assert _rows(home) == ([r for r in want[0] if r["kind"] == "main"], want[1])


def test_list_sessions_sorted_newest_first():
    rows, errors = list_sessions(Home(REAL_HOME))
    assert not errors
    acts = [r.last_activity for r in rows]
    assert acts == sorted(acts, reverse=True)


BLOCKS = st.sampled_from(
    [
        "prompt",
        "answer",
        "tools",
        "results",
        "meta",
        "bad",
        "end",
        "restart",
        "name",
        "trace",
        "blank",
    ]
)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
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
            recs.append(
                assistant(u, last, None, tools=[(pending[0], "bash"), (pending[1], "read")])
            )
        elif k == "results":
            recs.append(tool_results(u, last, *(pending or ["zz"])))
        elif k == "meta":
            recs.append(rec("metadata", u, last, key="usage_stats", value={"totalCostUSD": n / 10}))
        elif k == "name":
            recs.append(rec("metadata", u, last, key="session_name", value=f"name {n}"))
        elif k == "trace":
            recs.append(rec("metadata", u, last, key="trace_session_id", value=f"T{n % 3}"))
        elif k == "blank":
            recs.append(b"  ")
            continue
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
    assert agree(home, sf, [*FIELDS, "title", "records"]) == {}


def test_a_record_without_uuid_is_not_read_as_a_linear_chain(tmp_path):
    """uuids [a, -, c] with parents [-, a, -] look consecutive column-wise, but the agent's
    walk from c stops at c's null parent: the file is not loadable (ls shares the chain's
    own linear test now)."""
    folder = tmp_path / "sessions" / "p"
    folder.mkdir(parents=True)
    sid = "20260101-000000-abababab"
    p = folder / f"{sid}.jsonl"
    no_uuid = {"type": "metadata", "key": "k", "value": 1, "parentUuid": "a"}  # no uuid
    p.write_bytes(jsonl(start(uuid="a", sid=sid), no_uuid, user("c", None, text="hi")))
    home = Home(tmp_path)
    sf = next(sf for sf in discover(home) if sf.session_id == sid)
    assert summarize(home, sf, registrations=[]).loadable is False
    # (no timestamps here: ls shows the file's mtime as last activity, the reader None)
    assert agree(home, sf, [f for f in FIELDS if f != "last_activity"]) == {}

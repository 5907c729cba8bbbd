"""``show --json``'s column-wise rows equal the straightforward per-object rows, byte for byte.

The reference below is how ``session_to_json`` first built the per-record parts: one dict
per :class:`RecordRef` / :class:`CleanMessage` / loader message, each written by its own
``orjson`` call. The streamed output (chunked rows from :mod:`sidtui.core.views.show_rows`) must
be the same bytes, for every fixture session, with chunks small enough to split every
array, and with the cleaned messages' wrappers built or not.
"""

from __future__ import annotations

import io

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sidtui.core.views.show_rows as show_rows
from sidtui.core.base.home import Home
from sidtui.core.base.resolve import resolve_session
from sidtui.core.transcript.scan import scan_records
from sidtui.core.views.session import open_session
from sidtui.core.views.show_json import session_to_json, write_json_stream
from tests.helpers import REAL_HOME

SESSIONS = sorted(
    p for p in (REAL_HOME / "sessions").rglob("*.json*") if "summaries" not in p.parts
)
OPTS = orjson.OPT_NON_STR_KEYS


def _ref_json(v) -> dict:
    """``to_json()`` with every per-record part rebuilt the straightforward way."""
    out = session_to_json(v)
    recs = v.rf.records if v.rf else []
    on_chain = set(v.chain.chain)
    if out["loadable"]:
        out["messages"] = [
            {"uuid": m.uuid, "line": m.line, "role": m.role, "blocks": m.block_types}
            for m in v.loaded.messages
        ]
        out["resumed"] = [
            {
                "uuid": c.message.uuid,
                "line": c.message.line,
                "role": c.message.role,
                "blocks": c.message.block_types,
                "changed": c.changed,
                "src_index": c.src_index,
            }
            for c in v.recovery.messages
        ]
    out["records"] = [
        {
            "line": r.line,
            "offset": r.offset,
            "uuid": r.uuid,
            "parent": r.parent,
            "type": r.type,
            "on_chain": r.index in on_chain,
        }
        for r in recs
    ]
    tree = v.tree
    tips = []
    for t in tree.tips:
        br = next((b for b in tree.branches if b.tip == t), None)
        tips.append(
            {
                "line": recs[t].line,
                "uuid": recs[t].uuid,
                "live": t == tree.live_tip,
                "skipped": br.skipped if br else 0,
                "joins_at_line": recs[br.joins_at].line if br and br.joins_at is not None else None,
            }
        )
    out["branches"].update(
        {
            "heads": [{"line": recs[h].line, "uuid": recs[h].uuid} for h in tree.heads],
            "forked_heads": [
                {"line": recs[h].line, "uuid": recs[h].uuid, "source": recs[h].parent}
                for h in tree.forked_heads
            ],
            "tips": tips,
            "branch_points": [recs[b].line for b in tree.branch_points],
        }
    )
    out["chain"].update(
        {
            "lines": [recs[i].line for i in v.chain.chain] if v.rf else [],
            "longest_readable_lines": [recs[i].line for i in v.longest_chain()] if v.rf else [],
        }
    )
    return out


def _ref_stream(v) -> bytes:
    """The reference object written the old way: one orjson call per array element."""
    buf = io.BytesIO()
    obj = _ref_json(v)
    for k in ("messages", "resumed", "records"):
        obj[k] = (x for x in obj[k])
    write_json_stream(obj, buf)
    return buf.getvalue()


def _stream(v) -> bytes:
    buf = io.BytesIO()
    write_json_stream(session_to_json(v, lazy=True), buf)
    return buf.getvalue()


@pytest.fixture(scope="module")
def home() -> Home:
    return Home(REAL_HOME)


@pytest.mark.parametrize("chunk", [2, 4096])
@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.name)
def test_stream_equals_reference(home, path, chunk, monkeypatch):
    monkeypatch.setattr(show_rows, "ROW_CHUNK", chunk)
    sf = resolve_session(home, str(path))
    want = _ref_stream(open_session(home, sf))
    v = open_session(home, sf)
    got = _stream(v)
    assert got == want
    assert got == orjson.dumps(v.to_json(), option=OPTS, default=str) + b"\n"
    if v.recovery is not None:  # the cleaned messages' wrappers already built
        list(v.recovery.messages)
        assert _stream(v) == want


def test_fixtures_cover_the_row_paths(home):
    """The fixtures hold the cases the rows treat apart: a tolerant scan, rewritten
    messages among the resumed ones, and a re-queued prompt."""
    tolerant = changed = requeued = False
    for path in SESSIONS:
        v = open_session(home, resolve_session(home, str(path)))
        tolerant |= v.rf is not None and not v.rf.is_fast
        if v.recovery is not None:
            changed |= any(c.changed for c in v.recovery.messages)
            requeued |= v.recovery.interruption.message is not None
    assert tolerant and changed and requeued


_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.none() | _text, st.none() | _text, st.none() | _text), min_size=1, max_size=12
    ),
    st.lists(st.integers(0, 11), max_size=12),
    st.integers(1, 5),
)
def test_encoded_record_rows_equal_orjson_rows(recs, chain, chunk):
    """msgspec's bytes for the fast records rows are orjson's, for any string."""
    data = b"".join(
        orjson.dumps({"type": t, "uuid": u, "parentUuid": p}) + b"\n" for t, u, p in recs
    )
    rf = scan_records(data)
    assert rf.is_fast
    on = [i for i in chain if i < len(recs)]
    got = b"".join(show_rows.record_rows(rf, on, chunk, encoded=True))
    want = b"".join(orjson.dumps(rows) for rows in show_rows.record_rows(rf, on, chunk))
    assert got == want


def test_lone_surrogates_are_written_escaped(tmp_path):
    """JSON.parse accepts a lone surrogate escape, orjson refuses to write one: the value
    is written with the escape kept (valid UTF-8 out), instead of failing half-way."""
    import json

    d = tmp_path / "home" / "sessions" / "p"
    d.mkdir(parents=True)
    f = d / "20260101-000000-aaaaaaaa.jsonl"
    f.write_bytes(
        b'{"type":"session_start","uuid":"a","parentUuid":null,"sessionId":"20260101-000000-aaaaaaaa"}\n'
        b'{"type":"user_message","uuid":"b\\ud800","parentUuid":"a",'
        b'"message":{"role":"user","content":[{"type":"text","text":"hi \\udc00"}]}}\n'
    )
    home = Home(tmp_path / "home")
    out = _stream(open_session(home, resolve_session(home, str(f))))
    j = json.loads(out.decode("utf-8"))
    assert [m["uuid"] for m in j["messages"]] == ["b\ud800"]
    assert [r["uuid"] for r in j["records"]] == ["a", "b\ud800"]
    assert b'"b\\ud800"' in out

"""A line is decoded within a budget of JSON values (SIDTUI_MAX_LINE_VALUES): a field that
does not fit is kept as its exact bytes and written back verbatim."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sidtui.core.base.jsonout import dumps_lenient, stringify, stringify_pretty
from sidtui.core.base.jsonparse import (
    VALUES_ENV,
    JSONParseError,
    RawValue,
    parse_bounded,
    parse_line,
    value_count,
)

BOMB = b"[" + b"[]," * 30_000 + b"[]]"  # above the 64 KiB below which no line is bounded


def test_a_small_line_is_decoded_whole_as_before(monkeypatch):
    monkeypatch.setenv(VALUES_ENV, "100")
    assert parse_line(b'{"a":[1,2,3],"b":{"c":"x,y"}}') == {"a": [1, 2, 3], "b": {"c": "x,y"}}


def test_an_unknown_field_of_many_values_is_kept_as_bytes(monkeypatch):
    monkeypatch.setenv(VALUES_ENV, "100")
    raw = b'{"type":"user_message","uuid":"u1","zz":' + BOMB + b',"message":{"role":"user"}}'
    d = parse_line(raw)
    assert d["type"] == "user_message" and d["uuid"] == "u1"
    assert d["message"] == {"role": "user"}
    assert isinstance(d["zz"], RawValue) and d["zz"].data == BOMB
    assert stringify(d) == raw  # written back verbatim


def test_an_object_over_budget_is_opened_one_level_down(monkeypatch):
    monkeypatch.setenv(VALUES_ENV, "100")
    blocks = b",".join([b'{"type":"text","text":"a"}'] * 3000)
    raw = b'{"message":{"role":"user","content":[' + blocks + b"]}}"
    d = parse_line(raw)
    assert d["message"]["role"] == "user" and isinstance(d["message"]["content"], RawValue)
    assert orjson.loads(stringify(d)) == orjson.loads(raw)


def test_commas_inside_strings_do_not_count():
    text = b'{"a":"' + b"," * 100_000 + b'"}'
    assert value_count(text, 100) <= 3
    assert parse_bounded(text, 100) == {"a": "," * 100_000}


def test_a_top_level_bomb_is_one_raw_value_and_bad_json_is_still_bad(monkeypatch):
    monkeypatch.setenv(VALUES_ENV, "100")
    assert isinstance(parse_line(BOMB), RawValue)
    with pytest.raises(JSONParseError):
        parse_line(BOMB[:-1])
    with pytest.raises(JSONParseError):
        parse_line(b'{"a":' + BOMB[:-1] + b"}")


def test_every_writer_writes_a_raw_value_verbatim(monkeypatch):
    monkeypatch.setenv(VALUES_ENV, "100")
    d = parse_line(b'{"n":1.0,"zz":' + BOMB.replace(b"[]", b"[1.0]", 3) + b"}")
    for out in (stringify(d), stringify_pretty(d).encode(), dumps_lenient(d)):
        assert orjson.loads(out)["zz"][:3] == [[1.0], [1.0], [1.0]]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=5),
    lambda kids: (
        st.lists(kids, max_size=6) | st.dictionaries(st.text(max_size=4), kids, max_size=6)
    ),
    max_leaves=60,
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=4), json_values, max_size=6), st.integers(1, 80))
@example({"a": [[]] * 50, "b": {"c": [1] * 30}}, 10)
def test_any_budget_gives_back_the_same_json(obj, limit):
    raw = orjson.dumps(obj)
    d = parse_bounded(raw, limit)
    assert orjson.loads(stringify(d)) == obj


def test_fork_copies_a_line_over_budget_verbatim_and_keeps_its_message(
    real_home_with_projects, monkeypatch, capsys
):
    from sidtui.cli import main

    home, _ = real_home_with_projects
    sid = "20261130-052907-9ff3799b"
    path = next(home.rglob(f"{sid}.jsonl"))
    lines = path.read_bytes().split(b"\n")
    i = next(n for n, line in enumerate(lines) if b'"user_message"' in line)
    rec = orjson.loads(lines[i])
    blocks = [{"type": "text", "text": f"block {n}"} for n in range(3000)]
    rec["message"]["content"] = blocks
    rec["zzUnknown"] = [[] for _ in range(30_000)]
    lines[i] = orjson.dumps(rec)
    path.write_bytes(b"\n".join(lines))
    before = set(home.rglob("*.jsonl"))
    monkeypatch.setenv(VALUES_ENV, "200")
    assert main(["fork", sid, "--home", str(home)]) == 0
    (new,) = set(home.rglob("*.jsonl")) - before
    copied = [orjson.loads(line) for line in new.read_bytes().split(b"\n") if b"block 2" in line]
    assert [c["message"]["content"] for c in copied] == [blocks]  # not left out


def _values(obj) -> int:
    if isinstance(obj, (list, dict)):
        kids = obj.values() if isinstance(obj, dict) else obj
        return 1 + sum(_values(x) for x in kids) + max(0, len(obj) - 1)
    return 0


def _strings(obj) -> int:
    if isinstance(obj, str):
        return 1
    if isinstance(obj, list):
        return sum(_strings(x) for x in obj)
    if isinstance(obj, dict):
        return len(obj) + sum(_strings(v) for v in obj.values())
    return 0


tricky = st.text(alphabet='a,[{"\\', max_size=6)


@settings(max_examples=500, deadline=None)
@given(
    st.recursive(
        st.none() | tricky | st.integers(-10, 10),
        lambda kids: st.lists(kids, max_size=5) | st.dictionaries(tricky, kids, max_size=4),
        max_leaves=30,
    ),
    st.integers(0, 20),
)
@example({"": None, "[": None, "[[": None, "[[[": None}, 0)
@example(['\\"', '\\\\"', ",,"], 1)
def test_value_count_is_an_upper_bound_and_exact_when_it_looked(obj, limit):
    raw = orjson.dumps(obj)
    n = value_count(raw, limit)
    assert n >= _values(obj) + 1
    if n > limit and _strings(obj) <= 2 * limit + 2:
        assert n == _values(obj) + 1


def test_a_bounded_decode_copies_only_what_it_keeps(monkeypatch):
    """A field kept as a RawValue three levels down is the one copy made of it: the
    levels above are views into the line (a 110 MB prompt of tiny blocks held four
    copies of itself at once, one per level)."""
    import tracemalloc

    import sidtui.core.base.jsonparse as jp
    from sidtui.core.base.jsonparse import RawValue, parse_bounded, value_count

    monkeypatch.setattr(jp, "_COUNT_WINDOW", 64 << 10)  # (4 MiB: the line is smaller)
    blocks = b",".join([b'{"type":"text","text":"a"}'] * 120_000)
    line = b'{"type":"user","message":{"role":"user","content":[' + blocks + b']},"n":1}'
    tracemalloc.start()
    try:
        d = parse_bounded(line, 1000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    content = d["message"]["content"]
    assert isinstance(content, RawValue) and content.data == b"[" + blocks + b"]"
    assert (d["type"], d["n"], d["message"]["role"]) == ("user", 1, "user")
    assert peak < 1.5 * len(line), (peak, len(line))
    # a view is counted as its bytes are
    for limit in (10, 400_000, 10**7):
        assert value_count(memoryview(line), limit) == value_count(line, limit)


@given(
    st.recursive(
        st.none() | st.booleans() | st.floats() | st.integers() | st.text(),
        lambda c: st.lists(c) | st.dictionaries(st.text(), c),
        max_leaves=8,
    )
)
@example({"a": 1.0})
@example("\udc80")
@example(10**30)
def test_a_line_is_the_value_and_its_newline(value):
    """``stringify(v, line=True)`` (the writer's JSONL line, not copied to add the
    newline) is ``stringify(v)`` and ``\\n``, on the orjson path and the exact one."""
    assert stringify(value, line=True) == stringify(value) + b"\n"
    raw = {"c": RawValue(b"[1, 2]")}
    assert stringify(raw, line=True) == b'{"c":[1, 2]}\n'

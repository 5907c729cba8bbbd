"""The line parser accepts exactly what JSON.parse accepts (FORMAT.md §2.4)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidtui.core.base.jsonout import js_number, stringify, stringify_pretty
from sidtui.core.base.jsonparse import (
    JSONParseError,
    is_blank,
    parse_line_slow,
    would_strict_parser_reject,
)
from sidtui.core.transcript.scan import scan_records

ACCEPTED = [
    b'{"a":"\\ud800"}',  # lone surrogate escape: JSON.parse accepts, jq/orjson refuse
    b'{"a":"\\udc00\\ud800"}',
    b'{"a":"\xff"}',  # invalid UTF-8 is read as U+FFFD by the agent
    b'{"a":1e400}',  # Infinity after parsing, but the text is valid
    b'  {"a":1}\r',
    b"5",
    b"null",
    b"[1]",
]
REJECTED = [
    b'{"a":NaN}',
    b'{"a":Infinity}',
    b'{"a":1,}',
    b"{'a':1}",
    b'{"a":"\x01"}',
    b'\xef\xbb\xbf{"a":1}',
    b'{"a":1} x',
    b'{"a":01}',
    b"{",
    b'{"a":"\\x41"}',
]


@pytest.mark.parametrize("raw", ACCEPTED)
def test_accepts_what_json_parse_accepts(raw):
    parse_line_slow(raw)
    rf = scan_records(raw + b"\n")
    assert len(rf.records) == 1 and not rf.bad_lines


@pytest.mark.parametrize("raw", REJECTED)
def test_rejects_what_json_parse_rejects(raw):
    with pytest.raises(JSONParseError):
        parse_line_slow(raw)
    # a line of a file, not the file: the agent trims a whole file first (a leading BOM
    # then loads; tests/fixtures/oracle-cases/whitespace-around-file)
    rf = scan_records(raw + b"\n", whole_file=False)
    assert rf.bad_lines and rf.bad_lines[0].line == 1 and rf.bad_lines[0].reason


def test_strict_parser_disagreement_is_detectable():
    assert would_strict_parser_reject(b'{"a":"\\ud83d"}')
    assert not would_strict_parser_reject(b'{"a":1}')


def test_blank_lines():
    assert is_blank(b"") and is_blank(b"  \t\r") and is_blank("\u00a0\ufeff".encode())
    assert not is_blank(b" x ")


def test_bad_line_positions_are_physical():
    data = b'{"type":"a"}\n\n{oops\n{"type":"b"}\n'
    rf = scan_records(data)
    assert [(b.line, b.offset) for b in rf.bad_lines] == [(3, 14)]
    assert [r.line for r in rf.records] == [1, 4] and rf.blank_lines == 1


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**60), 2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_stringify_round_trips_and_parses(value):
    raw = stringify(value)
    assert b"\n" not in raw
    assert js_equal(parse_line_slow(raw), value)
    assert js_equal(json.loads(stringify_pretty({"v": value}))["v"], value)


def js_equal(a, b) -> bool:
    """Equality as JS numbers see it (JS prints 7.1e16 as the integer 71393986040453530)."""
    if isinstance(b, float) and isinstance(a, (int, float)) and not isinstance(a, bool):
        return float(a) == b
    if isinstance(b, list):
        return isinstance(a, list) and len(a) == len(b) and all(map(js_equal, a, b))
    if isinstance(b, dict):
        return isinstance(a, dict) and a.keys() == b.keys() and all(js_equal(a[k], b[k]) for k in b)
    return a == b and type(a) is type(b)


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_js_number_round_trips(x):
    assert float(js_number(x)) == x


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=60))
def test_scanner_never_raises_on_random_bytes(data):
    rf = scan_records(data)
    assert rf.line_count == (data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1))

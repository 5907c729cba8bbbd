"""What both usage readers share: one line's decode and the token sum
(core/usage/lines.decode_line, core/usage/events.TokenCounts)."""

from __future__ import annotations

import json

import msgspec
from hypothesis import example, given
from hypothesis import strategies as st

from sidtui.core.usage.aggregate import UsageRow
from sidtui.core.usage.events import UsageEvent
from sidtui.core.usage.lines import UNSET, decode_line


class _S(msgspec.Struct):
    a: int | None = None
    b: str | None = None


_DEC = msgspec.json.Decoder(_S).decode


def test_fast_path_then_json_parse_then_nothing():
    assert decode_line(_DEC, b'{"a":1,"b":"x"}') == _S(1, "x")
    # a lone surrogate escape: msgspec refuses it, JSON.parse reads it
    lone = b'{"a":2,"b":"\\ud800"}'
    assert decode_line(_DEC, lone) == {"a": 2, "b": "\ud800"}
    got = decode_line(_DEC, lone, _S)
    assert isinstance(got, _S) and got.a == 2 and got.b == "\ud800"
    assert decode_line(_DEC, b"[1,2]") is None
    assert decode_line(_DEC, b"not json") is None
    assert decode_line(_DEC, b'{"a":"wrong type"}') == {"a": "wrong type"}
    assert decode_line(_DEC, b'{"a":"wrong type"}', _S) is None
    assert UNSET is msgspec.UNSET


@given(st.binary(max_size=60))
@example(b'{"a":1e999}')
@example(b"{" * 3000)
def test_decode_line_never_raises(raw):
    for struct in (None, _S):
        got = decode_line(_DEC, raw, struct)
        assert got is None or isinstance(got, (_S, dict))


@given(st.dictionaries(st.sampled_from("ab"), st.integers(-5, 5) | st.text(max_size=3)))
def test_a_dict_the_fast_path_refuses_is_json_parse_s(d):
    raw = json.dumps(d).encode()
    got = decode_line(_DEC, raw)
    try:
        assert got == _DEC(raw)
    except msgspec.ValidationError:
        assert got == d


def test_events_and_rows_sum_their_tokens_alike():
    e = UsageEvent(0, "m", None, None, 1, 2, 3, 4)
    r = UsageRow("k", 1, 2, 3, 4)
    assert e.total_tokens == r.total_tokens == 10
    # the mixin adds no field: the cached array form is unchanged
    assert "total_tokens" not in UsageEvent.__struct_fields__
    assert msgspec.json.decode(msgspec.json.encode(e), type=UsageEvent) == e

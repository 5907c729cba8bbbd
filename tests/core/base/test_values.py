"""Typed reads of decoded JSON values (core/base/values.py)."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from sidtui.core.base.values import json_int, json_str

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=5,
)


def test_json_int():
    assert [json_int(v) for v in (3, 3.0, -2, 2.5, True, False, None, "7", [1])] == [
        3,
        3,
        -2,
        None,
        None,
        None,
        None,
        None,
        None,
    ]
    assert json_int("42", digits=True) == 42
    assert json_int("٤٢", digits=True) == 42  # Arabic-Indic decimal digits: int() reads them
    assert json_int("²", digits=True) is None  # isdigit() but not a decimal: no crash
    assert json_int("-1", digits=True) is None and json_int("", digits=True) is None


@given(JSON)
@example("²")
@example(float("inf"))
@example(float("nan"))
def test_never_raises_and_is_typed(v):
    for digits in (False, True):
        n = json_int(v, digits=digits)
        assert n is None or (type(n) is int)
    s = json_str(v)
    assert s is None or (s is v and isinstance(s, str))

"""stringify's orjson fast path never differs from the exact JS encoder.

Regression: the risky-float check used to match inside strings (every uuid with "4e5"),
sending most transcript records down the slow exact path (writer benchmark).
"""

from __future__ import annotations

import uuid

from hypothesis import given, settings
from hypothesis import strategies as st

from sidtui.core.base import jsonout

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([5.0, -0.0, 1e21, 1e16, 1e-7, 123.0, 1.05, 0.1, 2.5e-5])
    | st.text(alphabet='0123456789eE.:,[]-+ab"\\é工', max_size=12)
)
values = st.recursive(
    scalars,
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=5), kids, max_size=4)
    ),
    max_leaves=12,
)


def exact(obj) -> bytes:
    parts: list[str] = []
    jsonout._encode(obj, None, 0, parts)
    return "".join(parts).encode("utf-8", "surrogatepass")


@settings(max_examples=400)
@given(values)
def test_fast_path_equals_exact_encoder(obj):
    assert jsonout.stringify(obj) == exact(obj)


def test_uuids_take_the_fast_path():
    import orjson

    for _ in range(200):
        rec = {"uuid": str(uuid.uuid4()), "parentUuid": str(uuid.uuid4()), "n": 5}
        assert jsonout._RISKY_FLOAT.search(orjson.dumps(rec)) is None

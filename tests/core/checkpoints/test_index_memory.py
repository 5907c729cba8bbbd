"""An index holding a field too big to decode is written and measured without a str of
it: the same text and size as the exact encoder's, from the bytes."""

from __future__ import annotations

import tracemalloc

from hypothesis import example, given
from hypothesis import strategies as st

import sidtui.core.checkpoints.index as index_mod
from sidtui.core.base.jsonout import stringify_pretty
from sidtui.core.base.jsonparse import RawValue
from sidtui.core.checkpoints.index import CheckpointIndex, utf16_len, utf16_len_of_utf8


@given(st.text(), st.integers(1, 16))
@example("\udc80é\U0001f600", 1)
@example("\ud83d\ude00", 2)
def test_utf16_length_from_the_bytes_is_that_of_the_text(text, window):
    data = text.encode("utf-8", "surrogatepass")
    saved = index_mod._WINDOW
    index_mod._WINDOW = window
    try:
        assert utf16_len_of_utf8(data) == utf16_len(text)
    finally:
        index_mod._WINDOW = saved


def test_an_index_with_a_raw_field_is_written_without_a_str_of_it():
    bomb = b"[" + b"[]," * 1_000_000 + b"[]]"
    idx = CheckpointIndex.empty("s", 1)
    idx.data["zzUnknown"] = RawValue(bomb)
    tracemalloc.start()
    try:
        out = idx.to_bytes()
        size = idx.serialized_size()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out == stringify_pretty(idx.data, 2).encode("utf-8")  # verbatim, as before
    assert size == len(out)
    # the text written and one more while measured (no str of it, no UTF-16 copy): the
    # exact encoder held ~5× the field
    assert peak < 3.5 * len(bomb), (peak, len(bomb))  # (orjson grows its buffer)

"""Side-by-side diff rows (sidtui.core.checkpoints.sidebyside): both sides rebuild their texts exactly."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sidtui.core.checkpoints.sidebyside import side_by_side, unified_rows, word_spans

lines = st.lists(
    st.sampled_from(["a", "b", "c", "", "def f():", "  return 1", "x = 2"]), max_size=30
)


@settings(max_examples=200, deadline=None)
@given(lines, lines)
def test_rows_rebuild_both_texts(a, b):
    old, new = "\n".join(a), "\n".join(b)
    sbs = side_by_side(old, new, context=None)
    assert [r.old_text for r in sbs.rows if r.old_text is not None] == old.split("\n")
    assert [r.new_text for r in sbs.rows if r.new_text is not None] == new.split("\n")
    assert sbs.identical == (old == new)
    # line numbers count up from 1 on each side
    olds = [r.old_no for r in sbs.rows if r.old_no is not None]
    assert olds == list(range(1, len(olds) + 1))
    uni = unified_rows(sbs)
    assert [t for tag, _, _, t in uni if tag in " -"] == old.split("\n")
    assert [t for tag, _, _, t in uni if tag in " +"] == new.split("\n")


@settings(max_examples=100, deadline=None)
@given(lines, lines)
def test_folding_keeps_every_change_and_marks_hunks(a, b):
    sbs = side_by_side("\n".join(a), "\n".join(b), context=1)
    changed = [i for i, r in enumerate(sbs.rows) if r.tag in ("replace", "delete", "insert")]
    full = side_by_side("\n".join(a), "\n".join(b), context=None)
    assert len(changed) == sum(1 for r in full.rows if r.tag != "equal")
    for h in sbs.hunks:
        assert sbs.rows[h].tag in ("replace", "delete", "insert")
        assert h == 0 or sbs.rows[h - 1].tag in ("equal", "fold")


def test_word_spans_mark_the_changed_word():
    sa, sb = word_spans("total = price * qty", "total = price * quantity")
    assert sa == [(16, 19)] and sb == [(16, 24)]
    assert word_spans("x" * 5000, "y") == ([], [])

"""Side-by-side diff rows (sidtui.core.checkpoints.sidebyside): both sides rebuild their texts exactly."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sidtui.core.checkpoints.sidebyside import side_by_side, unified_rows, word_spans

lines = st.lists(
    st.sampled_from(["a", "b", "c", "", "def f():", "  return 1", "x = 2"]), max_size=30
)


def _shown(text: str) -> str:
    """What the rows of a side hold, joined: the text less its final newline."""
    return text[:-1] if text.endswith("\n") else text


@settings(max_examples=200, deadline=None)
@given(lines, lines, st.booleans(), st.booleans())
def test_rows_rebuild_both_texts(a, b, a_nl, b_nl):
    old, new = "\n".join(a) + "\n" * a_nl, "\n".join(b) + "\n" * b_nl
    sbs = side_by_side(old, new, context=None)
    olds = [r.old_text for r in sbs.rows if r.old_text is not None]
    news = [r.new_text for r in sbs.rows if r.new_text is not None]
    if not old or not new or old.endswith("\n") == new.endswith("\n"):  # it ends the last line
        assert "\n".join(olds) == _shown(old) and (olds == []) == (old == "")
        assert "\n".join(news) == _shown(new) and (news == []) == (new == "")
    else:  # only one ends in a newline: the agent's split, so the difference shows
        assert olds == old.split("\n") and news == new.split("\n")
    assert sbs.identical == (old == new)
    # line numbers count up from 1 on each side
    nos = [r.old_no for r in sbs.rows if r.old_no is not None]
    assert nos == list(range(1, len(nos) + 1))
    uni = unified_rows(sbs)
    assert [t for tag, _, _, t in uni if tag in " -"] == olds
    assert [t for tag, _, _, t in uni if tag in " +"] == news


def test_a_final_newline_is_no_line_of_its_own():
    """Regression: a deleted file's diff ended in an unchanged empty line numbered one past
    its last line (the "" after the final newline matched the empty text's "")."""
    gone = side_by_side("import csv\n\ndef f():\n", "", context=None)
    assert [r.tag for r in gone.rows] == ["delete"] * 3 and gone.removed == 3
    grown = side_by_side("a\n", "a\nb\n", context=None)
    assert [(r.tag, r.new_text) for r in grown.rows] == [("equal", "a"), ("insert", "b")]
    ended = side_by_side("a", "a\n", context=None)  # only the newline differs: it shows
    assert not ended.identical and [r.tag for r in ended.rows] == ["equal", "insert"]


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

"""The core's counts in words: one helper, the rule of ``sidtui.fmt.plural``."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sidtui import fmt
from sidtui.core.base.words import plural
from sidtui.core.checkpoints.sidebyside import side_by_side


def test_one_is_singular_and_the_rest_plural():
    assert plural(1, "record") == "1 record"
    assert plural(2, "record") == "2 records"
    assert plural(0, "record") == "0 records"
    assert plural(0, "file", zero="no") == "no files"
    assert plural(1, "branch", "branches") == "1 branch"
    assert plural(3, "branch", "branches") == "3 branches"


@given(st.integers(min_value=0, max_value=10**6), st.sampled_from(["record", "line", "file"]))
def test_the_core_and_the_app_count_alike(n, noun):
    assert plural(n, noun) == fmt.plural(n, noun)
    assert plural(n, noun, zero="no") == fmt.plural(n, noun, zero="no")


def test_a_fold_of_one_line_says_line():
    old = "".join(f"{i}\n" for i in range(1, 10))
    new = old.replace("1\n", "one\n").replace("9\n", "nine\n")
    folds = [r for r in side_by_side(old, new, context=3).rows if r.tag == "fold"]
    assert [r.old_text for r in folds] == ["1 unchanged line"]

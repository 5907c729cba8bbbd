"""The Conversation view's wrapping: lines fit, no character other than spaces is lost, and
the cheap measure agrees with what is drawn (virtual height = drawn lines)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from sidtui.tui.widgets.conversation_view import wrap

text = st.text(alphabet=st.sampled_from(list("ab cd  e\n会议x\t")), max_size=300)


@settings(max_examples=300, deadline=None)
@given(text, st.integers(min_value=8, max_value=60))
def test_lines_fit_and_keep_every_character(t, width):
    lines = wrap(t, width)
    assert all(cell_len(line) <= width for line in lines)
    squash = lambda s: s.replace(" ", "").replace("\n", "")  # noqa: E731
    assert squash("".join(lines)) == squash(t.replace("\t", "    "))


@settings(max_examples=200, deadline=None)
@given(text, st.integers(min_value=8, max_value=60), st.integers(min_value=1, max_value=15))
def test_limit_only_cuts_the_tail(t, width, limit):
    full = wrap(t, width)
    cut = wrap(t, width, limit)
    assert cut == full[: len(cut)] and len(cut) >= min(len(full), limit)

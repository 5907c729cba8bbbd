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


def _reference_wrap_para(para: str, width: int) -> list[str]:
    """The greedy wrap measured with cell_len only (what the ASCII fast path must equal)."""
    import re

    from rich.cells import chop_cells

    out: list[str] = []
    line, used = "", 0
    for word in re.findall(r"[^ ]*(?: +|$)", para):
        if not word:
            continue
        w = cell_len(word)
        if used + w <= width:
            line, used = line + word, used + w
            continue
        bare = word.rstrip(" ")
        if used + cell_len(bare) <= width:
            out.append(line + bare)
            line, used = "", 0
            continue
        if line:
            out.append(line.rstrip(" ") or line)
        if w > width:
            parts = chop_cells(word, width)
            out.extend(parts[:-1])
            line = parts[-1]
            used = cell_len(line)
        else:
            line, used = word, w
    if line or not out:
        out.append(line)
    return out


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("abcdefgh   ijklmnopqrstuvwxyz.,-")), max_size=400),
    st.integers(min_value=8, max_value=60),
)
def test_the_ascii_fast_path_wraps_as_cell_len_does(para, width):
    from sidtui.tui.widgets.conversation_view import _wrap_para

    assert _wrap_para(para, width) == _reference_wrap_para(para, width)


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("ab cd  会议x—é\x1b")), max_size=300), st.integers(8, 60)
)
def test_the_word_fast_path_wraps_as_cell_len_does(para, width):
    from sidtui.tui.widgets.conversation_view import _wrap_para

    assert _wrap_para(para, width) == _reference_wrap_para(para, width)

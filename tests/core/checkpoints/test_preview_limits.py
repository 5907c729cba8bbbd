"""Previews of texts too large to diff, and over-long lines: one rule for CLI and app."""

from __future__ import annotations

from types import SimpleNamespace

from sidtui.core.checkpoints.sidebyside import PREVIEW_LINE_CHARS, side_by_side
from sidtui.core.views.rewind_text import unified_diff


def _restore(old: bytes, new: bytes) -> SimpleNamespace:
    return SimpleNamespace(path="/README.md", old=old, new=new)


def test_unified_diff_above_the_line_limit_says_too_large(monkeypatch):
    monkeypatch.setenv("SIDTUI_MAX_DIFF_LINES", "100")
    d = unified_diff(_restore(b"now\n", b"abc\n" * 200))
    assert d == "--- a/README.md\n+++ b/README.md\ntoo large to diff here (201 lines, 804 bytes)\n"
    assert "@@" in unified_diff(_restore(b"now\n", b"abc\n" * 50))


def test_unified_diff_above_the_byte_limit_says_too_large(monkeypatch):
    monkeypatch.setenv("SIDTUI_MAX_DIFF_BYTES", "1000")
    d = unified_diff(_restore(b"x\n", b"\0" * 5000))
    assert d.endswith("too large to diff here (2 lines, 5,002 bytes)\n")
    assert unified_diff(_restore(b"\0" * 5000, b"\0" * 5000)) == ""


def test_a_long_line_is_cut_with_a_marker():
    d = unified_diff(_restore(b"x\n", b"y" * (PREVIEW_LINE_CHARS + 500)))
    plus = [line for line in d.splitlines() if line.startswith("+y")]
    assert plus == ["+" + "y" * PREVIEW_LINE_CHARS + " … [500 more characters]"]


def test_side_by_side_uses_the_same_rule(monkeypatch):
    monkeypatch.setenv("SIDTUI_MAX_DIFF_LINES", "100")
    sbs = side_by_side("now\n", "abc\n" * 200)
    assert sbs.too_large == "too large to diff here (201 lines, 804 bytes)"
    assert sbs.rows == [] and not sbs.identical
    assert side_by_side("now\n", "abc\n" * 50).too_large is None

"""Counts and refusals as a person reads them, in the app and the CLI (issue 30)."""

from __future__ import annotations

from sidtui.core.checkpoints.sidebyside import side_by_side
from sidtui.fmt import cut_path, plural, refused_line


def test_plural_one_many_irregular_and_zero():
    assert plural(1, "record") == "1 record"
    assert plural(2, "record") == "2 records"
    assert plural(0, "record") == "0 records"
    assert plural(0, "file", zero="no") == "no files"
    assert plural(1, "file", zero="no") == "1 file"
    assert plural(3, "entry", "entries") == "3 entries"


def test_refusal_does_not_say_refused_twice():
    assert (
        refused_line("refused: the project root is /")
        == "a real run is refused: the project root is /"
    )
    assert refused_line("the session is live") == "a real run is refused: the session is live"


def test_one_folded_line_is_singular():
    old = "".join(f"line {i}\n" for i in range(9))
    new = old.replace("line 0\n", "zero\n").replace("line 8\n", "eight\n")
    folds = [r.old_text for r in side_by_side(old, new, context=3).rows if r.tag == "fold"]
    assert folds == ["1 unchanged line"], folds


def test_cut_path_keeps_the_file_name_and_cuts_the_middle():
    p = "/Users/someone/workspace/a-long-project-name/src/components/Widget.tsx"
    assert cut_path(p, 200) == p
    short = cut_path(p, 30)
    assert len(short) == 30 and short.endswith("/Widget.tsx") and short.startswith("/Users/")
    assert "…" in short
    assert cut_path("a-very-long-file-name.py", 10) == "…e-name.py"
    assert cut_path(p, 1) == "…" and cut_path(p, 0) == ""


def test_a_path_in_a_narrow_table_is_cut_in_the_middle_not_wrapped():
    """Regression: the Claude Code rewind preview wrapped absolute paths mid-name."""
    from rich.console import Console
    from rich.table import Table

    from sidtui.tui.fmt import PathCell

    p = "/Users/someone/workspace/a-long-project-name/src/components/Widget.tsx"
    t = Table(show_edge=False, expand=True)
    t.add_column("action", width=10)
    t.add_column("path", ratio=1)
    t.add_column("why", ratio=1)
    t.add_row("restored", PathCell(p), "")
    c = Console(width=80, record=True, color_system=None)
    c.print(t)
    rows = [ln for ln in c.export_text().splitlines() if "restored" in ln or "Widget" in ln]
    assert len(rows) == 1 and "/Widget.tsx" in rows[0] and "…" in rows[0], rows

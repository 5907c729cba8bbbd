"""The Tips tab of a source whose reader lists every leaf of the record tree (``leaves``
in :attr:`~sidtui.core.sources.base.Source.views`): which one a resume picks, the
stranded branches it will not, and ``b`` to fork the selected one into a session of its
own (the screen's ``fork_branch``)."""

from __future__ import annotations

from textual.containers import Vertical
from textual.widgets import Static

from sidtui.fmt import plural
from sidtui.tui.fmt import plain, short_time
from sidtui.tui.widgets.row_table import RowTable


def tip_cells(tip: dict) -> tuple:
    """``(kind, line, messages, records, time, uuid)`` cells of a leaf row."""
    kind = "resume (picked)" if tip["live"] else tip["kind"]
    return (
        kind,
        str(tip["line"]),
        str(tip["messages"]),
        str(tip["records"]),
        short_time(tip["timestamp"]),
        (tip["uuid"] or "")[:8],
    )


class TipsPanel(Vertical, can_focus=False):
    """A note and the table of every leaf (:meth:`~sidtui.core.sources.base.Source.leaves`)."""

    DEFAULT_CSS = """
    TipsPanel { height: 1fr; }
    TipsPanel #tips-note { height: auto; padding: 0 1; }
    TipsPanel #tips-table { height: 1fr; }
    """
    HELP_NAME = "tips"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.tips: list[dict] = []

    def compose(self):
        yield Static("", id="tips-note")
        yield RowTable(id="tips-table")

    def on_mount(self) -> None:
        tips = self.query_one("#tips-table", RowTable)
        for label in ("tip", "line", "messages", "records", "time", "uuid"):
            tips.add_column(label, key=label)

    def focus(self, scroll_visible: bool = True):
        self.query_one("#tips-table", RowTable).focus(scroll_visible)
        return self

    def show(self, tips: list[dict]) -> None:
        """Attributes down: the leaves of the session just read."""
        self.tips = tips
        table = self.query_one("#tips-table", RowTable)
        row = table.cursor_row
        table.clear()
        for i, t in enumerate(tips):
            table.add_row(*tip_cells(t), key=str(i))
        if tips:
            table.move_cursor(row=min(row, len(tips) - 1), animate=False)
        stranded = sum(1 for t in tips if t["kind"] == "branch")
        note = (
            f"{plural(stranded, 'stranded branch', 'stranded branches')}: resume will not "
            "pick them; b forks the selected one into a session of its own"
            if stranded
            else "every leaf of the record tree; b forks the selected one into a new session"
        )
        self.query_one("#tips-note", Static).update(plain(note))

    def selected(self) -> dict | None:
        """The leaf under the cursor (None: there are none)."""
        if not self.tips:
            return None
        return self.tips[
            min(self.query_one("#tips-table", RowTable).cursor_row, len(self.tips) - 1)
        ]

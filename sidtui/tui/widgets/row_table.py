"""A row-cursor ``DataTable`` whose Home/End go to the first/last row.

Textual's ``DataTable`` binds Home/End to "scroll to the leftmost/rightmost column",
which does nothing visible in a table of rows that fits its width; every list in the app
(sessions, snapshots, files, rewind points, search results, sidechains) is a table of
rows, so Home and End move the row cursor as in a list, and ``g``/``G`` do the same
where letters are not typed into a filter.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import DataTable


class RowTable(DataTable):
    """A ``DataTable`` of rows (``cursor_type="row"``) with list-like Home/End."""

    HELP_NAME = "list"  # what the help table calls it
    BINDINGS = [
        Binding("home", "first_row", "First row", show=False),
        Binding("end", "last_row", "Last row", show=False),
    ]

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("cursor_type", "row")
        super().__init__(*args, **kwargs)

    def action_first_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=0, animate=False)

    def action_last_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=self.row_count - 1, animate=False)

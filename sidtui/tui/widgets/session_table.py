"""The browser's session table: one row per session, cells from ``SessionSummary``."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from sidtui.tui.fmt import cost, human_size, state_badge

COLUMNS = (
    ("id", "id"),
    ("started", "started"),
    ("last", "last activity"),
    ("model", "model"),
    ("records", "records"),
    ("size", "size"),
    ("cost", "cost"),
    ("state", "state"),
    ("ended", "ended"),
)


def _when(iso: str | None) -> str:
    return (iso or "")[5:16].replace("T", " ")


def row_cells(s) -> tuple:
    """The cells of one summary (times as written in the file, UTC)."""
    label, colour = state_badge(s)
    return (
        s.session_id,
        _when(s.started),
        _when(s.last_activity),
        (s.model or "")[:18],
        Text(str(s.records), justify="right"),
        Text(human_size(s.bytes), justify="right"),
        Text(cost(s.cost_usd), justify="right"),
        Text(label, style=colour),
        "yes" if s.ended else "no",
    )


class SessionTable(DataTable):
    """Sessions, newest activity first; row keys are file paths."""

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        for key, label in COLUMNS:
            self.add_column(label, key=key)

"""The browser's session table: one row per session, cells from ``SessionSummary``."""

from __future__ import annotations

from rich.text import Text

from sidtui.tui.fmt import cell, cost, human_size, state_badge
from sidtui.tui.widgets.row_table import RowTable

# The state badge comes right after the id: it is what the browser is for, and it must be
# visible without scrolling sideways at 120 columns.
COLUMNS = (
    ("id", "id"),
    ("state", "state"),
    ("last", "last activity"),
    ("started", "started"),
    ("model", "model"),
    ("records", "records"),
    ("size", "size"),
    ("cost", "cost"),
    ("ended", "ended"),
)
# Fixed widths: auto-sized columns were re-measured whenever rows were refilled, so the
# layout jumped while a scan or a live update ran (and a screenshot could catch it half
# measured). Session ids are 24 characters; longer legacy ids are cut here with an
# ellipsis and shown whole in the preview and on the session screen.
WIDTHS = {
    "id": 24,
    "state": 26,
    "last": 13,
    "started": 11,
    "model": 18,
    "records": 7,
    "size": 8,
    "cost": 8,
    "ended": 5,
}


def _when(iso: str | None) -> str:
    return (iso or "")[5:16].replace("T", " ")


def row_cells(s) -> tuple:
    """The cells of one summary (times as written in the file, UTC; session text literal)."""
    label, colour = state_badge(s)
    state = Text(label, style=colour)
    if getattr(s, "source", "") == "claude-code":  # the source marker: sid-code's rows carry none
        state = Text.assemble(("claude ", "bold cyan"), state)
    return (
        cell(s.session_id),
        state,
        _when(s.last_activity),
        _when(s.started),
        cell(s.model or ""),
        Text(str(s.records), justify="right"),
        Text(human_size(s.bytes), justify="right"),
        Text(cost(s.cost_usd), justify="right"),
        "yes" if s.ended else "no",
    )


class SessionTable(RowTable):
    """Sessions, newest activity first; row keys are file paths."""

    def on_mount(self) -> None:
        self.zebra_stripes = True
        for key, label in COLUMNS:
            self.add_column(label, key=key, width=WIDTHS[key])

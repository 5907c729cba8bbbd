"""The browser's session table: one row per session, cells from ``SessionSummary``."""

from __future__ import annotations

from functools import cache

from rich.text import Text
from textual.widgets.data_table import ColumnKey

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


@cache
def _badges() -> dict[str, str | None]:
    """Each source's marker by its name (:attr:`~sidtui.core.sources.base.Source.badge`)."""
    from sidtui.core.sources import SOURCES

    return {c.name: c.badge for c in SOURCES}


def row_cells(s) -> tuple:
    """The cells of one summary (times as written in the file, UTC; session text literal)."""
    label, colour = state_badge(s)
    state = Text(label, style=colour)
    badge = _badges().get(getattr(s, "source", ""))
    if badge:  # the source's marker (sid-code's rows carry none)
        state = Text.assemble((f"{badge} ", "bold cyan"), state)
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


#: The column that takes the room left when the next column does not fit (long badges).
GROWS = "state"


def fitted_widths(room: int, padding: int = 1) -> dict[str, int]:
    """:data:`WIDTHS` for a view ``room`` cells wide: the columns that fit whole keep
    their width and :data:`GROWS` (else the last of them) takes what is left, so the next
    column starts at the right edge instead of showing cut ("starte", "$0."); scrolling
    sideways shows the rest. ``padding``: the table's cell padding, each side."""
    out = dict(WIDTHS)
    used, fit = 0, []
    for key, _ in COLUMNS:
        w = WIDTHS[key] + 2 * padding
        if used + w > room:
            break
        used += w
        fit.append(key)
    if fit and len(fit) < len(COLUMNS):
        out[GROWS if GROWS in fit else fit[-1]] += room - used
    return out


class SessionTable(RowTable):
    """Sessions, newest activity first; row keys are file paths. Column widths are fixed
    (:data:`WIDTHS`) and fitted to the view's width on resize (:func:`fitted_widths`)."""

    HELP_NAME = "session list"  # what the help table calls it

    def on_mount(self) -> None:
        self.zebra_stripes = True
        for key, label in COLUMNS:
            self.add_column(label, key=key, width=WIDTHS[key])

    def on_resize(self) -> None:
        self.fit_columns()

    def watch_show_vertical_scrollbar(self) -> None:
        self.call_after_refresh(self.fit_columns)  # the scrollbar takes room from the columns

    def fit_columns(self) -> None:
        """Give the columns their :func:`fitted_widths` for the width shown now."""
        room = self.scrollable_content_region.width
        if room <= 0:
            return
        widths = fitted_widths(room, self.cell_padding)
        changed = False
        for key, w in widths.items():
            col = self.columns.get(ColumnKey(key))
            if col is not None and col.width != w:
                col.width = w
                changed = True
        if changed:  # DataTable has no public call for new widths: its own refresh steps
            self._clear_caches()
            self._require_update_dimensions = True
            self.refresh()

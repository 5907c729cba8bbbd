"""The browser's session table: one row per session, cells from ``SessionSummary``.

A picker's rows say what each session was about: the title (a custom or the agent's own
title; sid-code's ``session_name``) or else the first prompt is the widest column and the
last to go as the terminal narrows. The id is cut to 8 characters (whole in the preview
line and on the session screen), the agent is a short badge of its own and the state a
short word. At 80 columns a row is id, agent, state and the prompt; wider terminals add
the last activity, the model, the start and the rest, each only while the prompt keeps
:data:`PROMPT_MIN` cells.
"""

from __future__ import annotations

from functools import cache

from rich.text import Text
from textual.widgets.data_table import ColumnKey

from sidtui.tui.fmt import cell, cost, human_size, state_badge
from sidtui.tui.widgets.row_table import RowTable

#: Every column ``(key, label)`` in display order.
COLUMNS = (
    ("id", "id"),
    ("agent", "agent"),
    ("state", "state"),
    ("prompt", "title / first prompt"),
    ("last", "last active"),
    ("started", "started"),
    ("model", "model"),
    ("records", "records"),
    ("size", "size"),
    ("cost", "cost"),
    ("ended", "ended"),
)
# Fixed widths: auto-sized columns were re-measured whenever rows were refilled, so the
# layout jumped while a scan or a live update ran. The prompt's is its least: it takes
# every cell the others leave (:func:`fitted_columns`).
WIDTHS = {
    "id": 8,
    "agent": 6,
    "state": 11,
    "prompt": 24,
    "last": 11,
    "started": 11,
    "model": 18,
    "records": 7,
    "size": 8,
    "cost": 8,
    "ended": 5,
}
#: Always shown, however narrow.
ALWAYS = ("id", "agent", "state", "prompt")
#: The other columns in the order they join as the terminal widens.
OPTIONAL = ("last", "model", "started", "records", "size", "cost", "ended")
#: An optional column joins only while the prompt keeps this many cells.
PROMPT_MIN = 40
#: The column that takes the room the others leave.
GROWS = "prompt"

#: Short state words (``ls`` and the preview line say them whole).
SHORT_STATES = {
    "interrupted prompt": "int. prompt",
    "interrupted turn": "int. turn",
}


def _when(iso: str | None) -> str:
    return (iso or "")[5:16].replace("T", " ")


@cache
def _badges() -> dict[str, str]:
    """Each source's short mark by its name (its :attr:`~sidtui.core.sources.base.Source.
    badge`, else its :attr:`~sidtui.core.sources.base.Source.short` word)."""
    from sidtui.core.sources import SOURCES

    return {c.name: c.badge or c.short or c.name for c in SOURCES}


def agent_badge(source: str) -> str:
    """The short mark of a source's rows (``claude``, ``sid``, ``codex``)."""
    return _badges().get(source, source)


def short_state(s) -> tuple[str, str]:
    """(word, Rich style) of a session's state, short: :func:`~sidtui.fmt.state_badge`
    with its two long words cut and a stale registration as a trailing ``*``."""
    label, colour = state_badge(s)
    stale = label.endswith(" (stale)")
    if stale:
        label = label[: -len(" (stale)")]
    label = SHORT_STATES.get(label, label)
    return (f"{label}*" if stale else label), colour


def short_id(session_id: str, width: int = 8) -> str:
    """The ``width`` characters of an id that tell sessions apart: its first dash-separated
    group at least that long that is not all digits (a UUID's first group, the random tail
    of a ``YYYYMMDD-HHMMSS-xxxxxxxx`` id, not its date), else its first characters."""
    for part in session_id.split("-"):
        if len(part) >= width and not part.isdigit():
            return part[:width]
    return session_id[:width]


def prompt_cell(s) -> Text:
    """What the session was about: its title (bold), else its first prompt, else why the
    agent loads nothing; a fork, rewind or repair starts with where it came from
    (``from 3d7d6def ·``)."""
    if s.title:
        out = cell(s.title, "bold")
    elif s.first_prompt:
        out = cell(" ".join(s.first_prompt.split()))
    elif not s.loadable and s.kind == "main":
        out = cell(s.load_failure or "", "dim")
    else:
        out = cell("")
    origin = getattr(s, "forked_from", None)
    if origin:
        out = Text.assemble(cell(f"from {short_id(origin)} · ", "cyan"), out)
        out.no_wrap, out.overflow, out.end = True, "ellipsis", ""
    return out


def all_cells(s) -> dict[str, object]:
    """Every column's cell of one summary (times as written in the file, UTC; session
    text literal)."""
    label, colour = short_state(s)
    return {
        "id": cell(short_id(s.session_id)),
        "agent": Text(agent_badge(getattr(s, "source", "")), style="cyan"),
        "state": Text(label, style=colour),
        "prompt": prompt_cell(s),
        "last": _when(s.last_activity),
        "started": _when(s.started),
        "model": cell(s.model or ""),
        "records": Text(str(s.records), justify="right"),
        "size": Text(human_size(s.bytes), justify="right"),
        "cost": Text(cost(s.cost_usd), justify="right"),
        "ended": "yes" if s.ended else "no",
    }


def row_cells(s, keys: tuple[str, ...] | None = None) -> tuple:
    """The cells of one summary for the columns ``keys`` (default: every column)."""
    cells = all_cells(s)
    return tuple(cells[k] for k, _ in COLUMNS if keys is None or k in keys)


def fitted_columns(room: int, padding: int = 1) -> tuple[tuple[str, ...], dict[str, int]]:
    """``(shown column keys in display order, their widths)`` for a view ``room`` cells
    wide: :data:`ALWAYS`, then each of :data:`OPTIONAL` in turn while the prompt keeps
    :data:`PROMPT_MIN` cells; the prompt takes what is left (at least its
    :data:`WIDTHS`). ``padding``: the table's cell padding, each side."""

    def cost_of(keys) -> int:
        return sum(WIDTHS[k] + 2 * padding for k in keys if k != GROWS) + 2 * padding

    shown = list(ALWAYS)
    for key in OPTIONAL:
        if room - cost_of([*shown, key]) >= PROMPT_MIN:
            shown.append(key)
        else:
            break
    keys = tuple(k for k, _ in COLUMNS if k in shown)
    widths = {k: WIDTHS[k] for k in keys}
    widths[GROWS] = max(WIDTHS[GROWS], room - cost_of(keys))
    return keys, widths


class SessionTable(RowTable):
    """Sessions, newest activity first; row keys are file paths. The columns shown and
    their widths follow the view's width (:func:`fitted_columns`); the rows are kept
    (:attr:`sessions`) so a change of columns draws them again."""

    HELP_NAME = "session list"  # what the help table calls it

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        #: the summary of each row by its key, in table order
        self.sessions: dict[str, object] = {}
        self.shown: tuple[str, ...] = ()

    def on_mount(self) -> None:
        self.zebra_stripes = True
        keys, widths = fitted_columns(max(self.size.width, 80) - 2, self.cell_padding)
        self._set_columns(keys, widths)

    def _set_columns(self, keys: tuple[str, ...], widths: dict[str, int]) -> None:
        self.shown = keys
        for key, label in COLUMNS:
            if key in keys:
                self.add_column(label, key=key, width=widths[key])

    # ------------------------------------------------------------------ rows

    def add_session(self, s) -> None:
        """Append the row of summary ``s`` (its key: the file path)."""
        key = str(s.path)
        self.sessions[key] = s
        self.add_row(*row_cells(s, self.shown), key=key)

    def update_session(self, s) -> None:
        """Draw the row of ``s`` again (a row not in the table: nothing)."""
        key = str(s.path)
        if key not in self.rows:
            return
        self.sessions[key] = s
        for col, value in zip(self.shown, row_cells(s, self.shown), strict=True):
            self.update_cell(key, col, value)

    def clear(self, columns: bool = False):  # type: ignore[override]
        self.sessions = {}
        return super().clear(columns)

    # ------------------------------------------------------------------ layout

    def on_resize(self) -> None:
        self.fit_columns()

    def watch_show_vertical_scrollbar(self) -> None:
        self.call_after_refresh(self.fit_columns)  # the scrollbar takes room from the columns

    def fit_columns(self) -> None:
        """Show the :func:`fitted_columns` of the width shown now (a new set of columns
        draws the rows again, the cursor on the same row)."""
        room = self.scrollable_content_region.width
        if room <= 0:
            return
        keys, widths = fitted_columns(room, self.cell_padding)
        if keys != self.shown:
            self._rebuild(keys, widths)
            return
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

    def _rebuild(self, keys: tuple[str, ...], widths: dict[str, int]) -> None:
        rows = list(self.sessions.values())
        at = self.cursor_row
        super().clear(columns=True)
        self._set_columns(keys, widths)
        for s in rows:
            self.add_row(*row_cells(s, keys), key=str(s.path))
        if rows:
            self.move_cursor(row=min(at, len(rows) - 1), animate=False)

"""Search (``/``): full-text search across every session through the catalog's FTS index.

The index is :class:`sidtui.core.live.SearchIndex` (filled incrementally in a worker the
first time the screen opens, then kept current); queries run in a worker too. Results list
the session, its start time, what matched (prompt / assistant / tool / file) and a snippet;
Enter opens the session with the Conversation scrolled to that record.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Static

from sidtui.tui.fmt import cell, short_time


def snippet_text(snippet: str) -> Text:
    """Render « » marks of a snippet as bold highlights."""
    t = Text()
    rest = snippet.replace("\n", " ")
    while "«" in rest:
        before, _, after = rest.partition("«")
        hit, _, rest = after.partition("»")
        t.append(before)
        t.append(hit, style="bold reverse")
    t.append(rest)
    return t


class SearchScreen(ModalScreen[None]):
    """Type words, Enter to search; Enter on a result opens it."""

    CSS_PATH = "modal.tcss"
    BINDINGS = [Binding("escape", "close", "Close")]

    class Results(Message):
        def __init__(self, hits, error: str | None = None, status: str | None = None) -> None:
            super().__init__()
            self.hits = hits
            self.error = error
            self.status = status

    def __init__(self) -> None:
        super().__init__()
        self.hits = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            yield Static(
                "Search every session (all words required; word* = prefix)", classes="modal-title"
            )
            yield Input(placeholder="search words…", id="search-input")
            yield Static("", id="search-status")
            yield DataTable(id="search-results", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        t = self.query_one("#search-results", DataTable)
        for c in ("session", "started", "line", "kind", "snippet"):
            t.add_column(c, key=c)
        self.query_one("#search-input", Input).focus()
        self.run_search("")

    @on(Input.Submitted, "#search-input")
    def _submitted(self, event: Input.Submitted) -> None:
        self.query_one("#search-status", Static).update(" searching…")
        self.run_search(event.value)

    @work(thread=True, exclusive=True, group="search")
    def run_search(self, query: str) -> None:
        """Fill the index if needed (with progress), then search."""
        from sidtui.core.base.errors import SidtuiError

        try:
            idx = self.app.search_index(
                progress=lambda p: self.post_message(
                    self.Results(None, status=f" indexing {p.done}/{p.total} files…")
                )
            )
            if not query.strip():
                self.post_message(
                    self.Results([], status=" index ready: type words and press Enter")
                )
                return
            hits = idx.search(query, limit=200)
        except (SidtuiError, OSError, ValueError) as exc:
            self.post_message(self.Results(None, error=str(exc)))
            return
        except Exception as exc:  # noqa: BLE001 - sqlite errors become a message
            self.post_message(self.Results(None, error=f"search failed: {exc}"))
            return
        self.post_message(self.Results(hits, status=f" {len(hits)} result(s)"))

    def on_search_screen_results(self, msg: Results) -> None:
        status = self.query_one("#search-status", Static)
        if msg.error:
            status.update(Text(" " + msg.error, style="red"))
            return
        if msg.status:
            status.update(msg.status)
        if msg.hits is None:
            return
        self.hits = msg.hits
        t = self.query_one("#search-results", DataTable)
        t.clear()
        started = self.app.started_by_path()
        for i, h in enumerate(msg.hits):
            t.add_row(
                cell(h.session_id),
                short_time(started.get(h.path)),
                str(h.line),
                cell(h.kind),
                snippet_text(h.snippet),
                key=str(i),
            )
        if msg.hits:
            t.focus()

    @on(DataTable.RowSelected, "#search-results")
    def _open(self, event: DataTable.RowSelected) -> None:
        h = self.hits[int(event.row_key.value)]
        from sidtui.core.base.home import classify_file

        sf = classify_file(Path(h.path), h.project)
        if sf is None:
            self.notify(f"{h.path} is no longer a session file", severity="error", markup=False)
            return
        self.dismiss(None)
        self.app.open_session(sf, scroll_to_line=h.line)

    def action_close(self) -> None:
        self.dismiss(None)

"""Search (``/``): full-text search across every session through the catalogs' FTS index.

The index is :class:`sidtui.core.index.search.SearchIndex` (filled incrementally in a worker
the first time the screen opens, then kept current), one per home (sid-code's, Claude
Code's: one ranking over both); queries run in a worker too. Results list
the session, its start time, what matched (prompt / assistant / tool / file) and a snippet;
Enter opens the session at that record with the words found and highlighted (the Chain tab
when the record is not a message of the conversation the agent resumes). At 100 columns or
fewer the start time is left out, so the snippet keeps the room to show its hit.
"""

from __future__ import annotations

import re
from pathlib import Path

import orjson
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Static

from sidtui.fmt import plural, printable
from sidtui.tui.fmt import cell, short_time
from sidtui.tui.messages import SearchAnswered
from sidtui.tui.widgets.row_table import RowTable
from sidtui.tui.worker_errors import ReportsWorkerErrors

#: A JSON string escape (tool-call documents hold the input as JSON text).
_JSON_ESCAPE = re.compile(r'\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})')


def _unescape(m: re.Match[str]) -> str:
    try:
        text = orjson.loads(f'"{m.group()}"')
    except orjson.JSONDecodeError:  # half a surrogate pair: leave it as written
        return m.group()
    return " " if text in "\n\r\t\f\b" else text


#: Results shown (over every home).
LIMIT = 200
#: Characters of a snippet kept before its first hit (so a narrow column shows the hit).
SNIPPET_LEAD = 16


def snippet_text(snippet: str, kind: str = "", lead: int = SNIPPET_LEAD) -> Text:
    """A snippet with its « » marks as highlights, on one line: whitespace and control
    characters never reach the terminal, and a tool call's JSON escapes (``\\n``,
    ``\\"``, ``\\u00e9``) are shown as the characters they stand for. At most ``lead``
    characters are kept before the first hit (cut ones are shown as ``…``)."""
    if kind == "tool":
        snippet = _JSON_ESCAPE.sub(_unescape, snippet)
    rest = " ".join(printable(snippet).split())
    before, mark, after = rest.partition("«")
    if mark and len(before) > lead:
        rest = "…" + before[len(before) - lead :].lstrip() + mark + after
    t = Text(no_wrap=True, overflow="ellipsis")
    while "«" in rest:
        before, _, after = rest.partition("«")
        hit, _, rest = after.partition("»")
        t.append(before)
        t.append(hit, style="bold reverse")
    t.append(rest)
    return t


class SearchScreen(ReportsWorkerErrors, ModalScreen[None]):
    """Type words, Enter to search; Enter on a result opens it."""

    CSS_PATH = "modal.tcss"
    BINDINGS = [Binding("escape", "close", "Close")]

    def __init__(self) -> None:
        super().__init__()
        self.hits = []
        self.sources: list[str] = []  # each hit's source
        self.query_text = ""

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            yield Static(
                "Search every session (all words required; word* = prefix)", classes="modal-title"
            )
            yield Input(placeholder="search words…", id="search-input", select_on_focus=False)
            yield Static("", id="search-status")
            yield RowTable(id="search-results", zebra_stripes=True)

    def on_mount(self) -> None:
        t = self.query_one("#search-results", DataTable)
        for c in self._columns():
            t.add_column(c, key=c)
        self.query_one("#search-input", Input).focus()
        self.run_search("")

    def _columns(self) -> tuple[str, ...]:
        if self.app.size.width <= 100:  # the app's narrow breakpoint
            return ("session", "line", "kind", "snippet")
        return ("session", "started", "line", "kind", "snippet")

    def on_key(self, event) -> None:
        """Typing in the results list goes on in the search box (the list keeps Enter,
        the arrows, Home and End)."""
        box = self.query_one("#search-input", Input)
        if (
            self.focused is self.query_one("#search-results")
            and event.is_printable
            and event.character
        ):
            box.focus()
            box.cursor_position = len(box.value)
            box.insert_text_at_cursor(event.character)
            event.stop()
            event.prevent_default()

    @on(Input.Submitted, "#search-input")
    def _submitted(self, event: Input.Submitted) -> None:
        self.query_one("#search-status", Static).update(" searching…")
        self.query_text = event.value
        self.run_search(event.value)

    @work(
        thread=True,
        exclusive=True,
        group="search",
        exit_on_error=False,
        description="searching",
    )
    def run_search(self, query: str) -> None:
        """Fill the index if needed (with progress), then search."""
        import sqlite3

        from sidtui.core.base.errors import SidtuiError

        try:
            indexes = self.app.search_indexes(
                progress=lambda p: self.post_message(
                    SearchAnswered(None, status=f" indexing {p.done}/{p.total} files…")
                )
            )
            if not query.strip():
                self.post_message(
                    SearchAnswered([], status=" index ready: type words and press Enter")
                )
                return
            found = [(name, h) for name, idx in indexes for h in idx.search(query, limit=LIMIT)]
        except (SidtuiError, OSError, ValueError, sqlite3.Error) as exc:
            self.post_message(SearchAnswered(None, error=f"search failed: {exc}"))
            return
        if len(indexes) > 1:  # one ranking over every home, as `sidtui search`
            found = sorted(found, key=lambda sh: -sh[1].score)[:LIMIT]
        self.post_message(
            SearchAnswered(
                [h for _, h in found],
                status=f" {plural(len(found), 'result')}",
                sources=[name for name, _ in found],
            )
        )

    def on_search_answered(self, msg: SearchAnswered) -> None:
        status = self.query_one("#search-status", Static)
        if msg.error:
            status.update(Text(" " + msg.error, style="red"))
            return
        if msg.status:
            status.update(msg.status)
        if msg.hits is None:
            return
        self.hits = msg.hits
        self.sources = msg.sources
        t = self.query_one("#search-results", DataTable)
        t.clear()
        started = self.app.started_by_path()
        wide = "started" in t.columns
        for i, h in enumerate(msg.hits):
            cells = [
                cell(h.session_id),
                short_time(started.get(h.path)),
                str(h.line),
                cell(h.kind),
                snippet_text(h.snippet, h.kind),
            ]
            if not wide:
                del cells[1]
            t.add_row(*cells, key=str(i))
        if msg.hits:
            t.focus()

    @on(DataTable.RowSelected, "#search-results")
    def _open(self, event: DataTable.RowSelected) -> None:
        i = int(event.row_key.value)
        h = self.hits[i]
        src = self.app.source_named(self.sources[i])
        try:
            sf = src.file_at(Path(h.path), h.project) if Path(h.path).is_file() else None
        except (OSError, ValueError):
            sf = None
        if sf is None:
            self.notify(f"{h.path} is no longer a session file", severity="error", markup=False)
            return
        self.dismiss(None)
        words = " ".join(w.rstrip("*") for w in self.query_text.split())  # word* = prefix
        self.app.open_session(sf, find=words, at_line=h.line)

    def action_close(self) -> None:
        self.dismiss(None)

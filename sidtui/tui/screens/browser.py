"""Browser (start screen): projects on the left, their sessions on the right.

The scan runs in a thread worker (:meth:`BrowserScreen.scan`) that posts
:class:`~sidtui.tui.messages.SessionsScanned` batches (every ~250 ms or 200 files), so
first rows appear while a large home is still being read and input never waits. A poll
worker re-summarizes only files whose size or mtime changed (and sessions with a
registration, whose liveness may change without a write), so live rows update in place
and new sessions appear without a refresh key. Rows come from
:func:`sidtui.core.views.listing.summarize`, the function ``sidtui ls`` uses.
"""

from __future__ import annotations

import threading
import time

from rapidfuzz import fuzz, process
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, OptionList, Static
from textual.widgets.data_table import CellDoesNotExist
from textual.widgets.option_list import Option

from sidtui.fmt import printable
from sidtui.tui.fmt import one_line, plain, short_time, state_badge
from sidtui.tui.messages import SessionsScanned
from sidtui.tui.widgets.session_table import COLUMNS, SessionTable, row_cells

ALL = "__all__"
BATCH_SECONDS = 0.25
BATCH_FILES = 200
FIRST_CHUNK = 300
DEBOUNCE_ABOVE = 2000
LATER_CHUNK = 1000


def haystack(s) -> str:
    """What type-to-filter searches: id, project, title and first prompt (lower case)."""
    return " ".join(
        x for x in (s.session_id, s.project, s.title or "", s.first_prompt or "") if x
    ).lower()


def matches(query: str, s) -> bool:
    """Fuzzy match of ``query`` on one summary (see :func:`filter_rows` for many)."""
    return bool(filter_rows(query, [s]))


def filter_rows(query: str, rows: list) -> list:
    """The rows whose id, project, title or first prompt contain ``query`` or match it
    fuzzily (rapidfuzz ``partial_ratio`` ≥ 85, computed in C over all rows at once)."""
    q = query.lower().strip()
    if not q:
        return rows
    hays = [haystack(s) for s in rows]
    hit = {i for i, h in enumerate(hays) if q in h}
    if len(q) >= 3:
        for _, _, i in process.extract(
            q, hays, scorer=fuzz.partial_ratio, score_cutoff=85, limit=None
        ):
            hit.add(i)
    return [s for i, s in enumerate(rows) if i in hit]


def common_key_prefix(names: list[str]) -> str:
    """The dash-ended prefix every project key shares (``tmp-x-projects-``), for short labels."""
    keys = [n for n in names if not n.startswith("_") and n != "(flat)"]
    if len(keys) < 2:
        return ""
    import os.path

    prefix = os.path.commonprefix(keys)
    return prefix[: prefix.rfind("-") + 1] if "-" in prefix else ""


class BrowserScreen(Screen):
    """Every session of the home, per project, newest activity first."""

    CSS_PATH = "browser.tcss"
    BINDINGS = [
        Binding("enter", "open_session", "Open", show=True),
        Binding("ctrl+f", "focus_filter", "Filter"),
        Binding("escape", "clear_filter", "Clear filter", show=False),
        Binding("tab", "focus_next", "Next pane", show=False),
        Binding("ctrl+r", "rescan", "Rescan", show=False),
        # Letters go to type-to-filter here, so fork/salvage is on a control key.
        Binding("ctrl+s", "fork", "Fork/Salvage"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.summaries: dict[str, object] = {}
        self.project: str = ALL
        self.scanning = False
        self.filling = False
        self._fill_generation = 0
        self.first_rows_at: float | None = None  # perf_counter() when rows first showed (bench)
        self._shown = threading.Event()
        self._filter_timer = None
        self.errors: list[str] = []
        self._projects_shown: list[tuple[str, int]] = []

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="browser-body"):
            yield OptionList(id="projects")
            with Vertical(id="browser-right"):
                yield Input(
                    placeholder="type to filter: id, project, first prompt",
                    id="filter",
                    select_on_focus=False,
                )
                yield SessionTable(id="sessions")
                yield Static("", id="preview")
        yield Static("", id="scan-status")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = printable(self.app.home_label)
        self.query_one("#projects", OptionList).border_title = "Projects"
        self.query_one("#sessions", SessionTable).focus()
        self.scan()
        interval = getattr(self.app, "poll_interval", 0)
        if interval:
            self.set_interval(interval, self.poll)

    # ------------------------------------------------------------------ workers

    @work(thread=True, exclusive=True, group="scan")
    def scan(self) -> None:
        """Fill the table: the catalog's cached rows at once (warm start), then refresh it.

        Without a usable catalog every file is summarized here, in batches.
        """
        worker = self._current_worker()
        self.scanning = True
        try:
            cat = self.app.catalog()
        except Exception as exc:  # noqa: BLE001 - an unusable cache must not stop the browser
            self.app.call_from_thread(
                self.notify,
                f"catalog unusable, reading files directly: {exc}",
                severity="warning",
                markup=False,
            )
            cat = None
        if cat is None:
            self._scan_direct(worker)
            return
        try:
            rows = self.app.warm_rows()
        except Exception:  # noqa: BLE001 - fall back to a plain read of the cache
            rows = cat.rows()
        if rows:
            self._shown.clear()
            self.post_message(SessionsScanned(rows, [], len(rows), len(rows), replace=True))
            # Let the UI thread show the first rows before the refresh competes for the GIL.
            self._shown.wait(0.5)
        cold = not rows
        last = [time.monotonic()]

        def progress(p) -> None:
            now = time.monotonic()
            if now - last[0] < BATCH_SECONDS and p.done < p.total:
                return
            last[0] = now
            batch = cat.rows() if cold else []
            self.post_message(SessionsScanned(batch, [], p.done, p.total, replace=cold))

        try:
            res = cat.refresh(
                progress=progress, cancel=lambda: bool(worker and worker.is_cancelled)
            )
        except Exception as exc:  # noqa: BLE001
            self.app.call_from_thread(
                self.notify, f"catalog refresh failed: {exc}", severity="error", markup=False
            )
            self._scan_direct(worker)
            return
        rows = cat.rows()
        self.post_message(
            SessionsScanned(
                rows, [], len(rows), len(rows), final=True, replace=True, errors=res.errors
            )
        )

    def _scan_direct(self, worker) -> None:
        from sidtui.core.base.errors import SidtuiError
        from sidtui.core.base.home import discover
        from sidtui.core.resume.process import read_registrations
        from sidtui.core.views.listing import summarize

        home = self.app.home
        try:
            files = [f for f in discover(home) if f.kind == "main"]
            regs = read_registrations(home)
        except OSError as exc:
            self.app.call_from_thread(
                self.notify, f"cannot read {home.root}: {exc}", severity="error", markup=False
            )
            files, regs = [], []
        rows, errors = [], []
        last = time.monotonic()
        for i, sf in enumerate(files):
            if worker is not None and worker.is_cancelled:
                return
            try:
                rows.append(summarize(home, sf, registrations=regs))
            except (SidtuiError, OSError) as exc:
                errors.append(str(exc))
            now = time.monotonic()
            if len(rows) >= BATCH_FILES or (rows and now - last >= BATCH_SECONDS):
                self.post_message(SessionsScanned(rows, [], i + 1, len(files), errors=errors))
                rows, errors, last = [], [], now
        self.post_message(
            SessionsScanned(rows, [], len(files), len(files), final=True, errors=errors)
        )

    @work(thread=True, exclusive=True, group="poll")
    def poll(self) -> None:
        """Bring the catalog up to date (only changed files are re-read) and post changes."""
        if self.scanning:
            return
        try:
            cat = self.app.catalog()
            res = cat.refresh()
            rows = cat.rows()
        except Exception:  # noqa: BLE001 - the next poll tries again
            return
        known = dict(self.summaries)
        changed = [
            r
            for r in rows
            if (old := known.get(str(r.path))) is None or old.to_json() != r.to_json()
        ]
        present = {str(r.path) for r in rows}
        removed = [k for k in known if k not in present]
        if changed or removed or res.errors:
            self.post_message(
                SessionsScanned(
                    changed,
                    [],
                    len(rows),
                    len(rows),
                    final=True,
                    removed=removed,
                    errors=res.errors,
                    incremental=True,
                )
            )

    def _current_worker(self):
        from textual.worker import get_current_worker

        try:
            return get_current_worker()
        except RuntimeError:
            return None

    # ------------------------------------------------------------------ handlers

    def on_sessions_scanned(self, msg: SessionsScanned) -> None:
        table = self.query_one("#sessions", SessionTable)
        new_keys = []
        unchanged = False
        if msg.replace:
            fresh = {str(s.path): s for s in msg.rows}
            unchanged = fresh.keys() == self.summaries.keys() and all(
                self.summaries[k] == v for k, v in fresh.items()
            )
            self.summaries = fresh if not unchanged else self.summaries
            msg.rows = [] if unchanged else msg.rows
        for s in msg.rows:
            key = str(s.path)
            if key not in self.summaries or msg.replace:
                new_keys.append(key)
            self.summaries[key] = s
        for key in msg.removed:
            self.summaries.pop(key, None)
        for e in msg.errors:
            self.errors.append(e)
            self.notify(e, title="unreadable session", severity="warning", markup=False)
        status = self.query_one("#scan-status", Static)
        if msg.incremental:
            if new_keys or msg.removed:
                self.refresh_table()
            else:
                for s in msg.rows:
                    self._update_row(table, s)
                self._update_preview()
            self.refresh_projects()
            return
        if msg.final:
            self.scanning = False
            self.app.start_watching()
            status.update(
                f" {len(self.summaries)} sessions · {len(self._project_counts())} projects"
                + (f" · {len(self.errors)} unreadable" if self.errors else "")
            )
            if not unchanged:
                self.refresh_table()
            self.refresh_projects()
        else:
            status.update(f" scanning {msg.done}/{msg.total} …")
            if msg.replace:
                if not unchanged:
                    self.refresh_table()
                self.refresh_projects()
                return
            # First batches: append as they come (sorted once at the end).
            q = self.query_one("#filter", Input).value
            for key in new_keys:
                s = self.summaries[key]
                if self._visible(s, q):
                    table.add_row(*row_cells(s), key=key)
            if self.first_rows_at is None and table.row_count:
                self.first_rows_at = time.perf_counter()
            if table.row_count and table.cursor_row == 0:
                self._update_preview()

    def _update_row(self, table: SessionTable, s) -> None:
        key = str(s.path)
        if key not in table.rows:
            return
        for (col, _), value in zip(COLUMNS, row_cells(s), strict=True):
            table.update_cell(key, col, value)

    def _project_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for s in self.summaries.values():
            counts[s.project or "(flat)"] = counts.get(s.project or "(flat)", 0) + 1
        return counts

    def refresh_projects(self) -> None:
        counts = sorted(self._project_counts().items())
        if counts == self._projects_shown:
            return
        self._projects_shown = counts
        ol = self.query_one("#projects", OptionList)
        highlighted = self.project
        ol.clear_options()
        ol.add_option(Option(f"All sessions ({len(self.summaries)})", id=ALL))
        prefix = common_key_prefix([n for n, _ in counts])
        for name, n in counts:
            label = name[len(prefix) :] if name.startswith(prefix) else name
            label = label if len(label) <= 22 else "…" + label[-21:]
            ol.add_option(Option(plain(f"{label} ({n})"), id=name))  # folder names are literal
        ids = [ALL] + [n for n, _ in counts]
        ol.highlighted = ids.index(highlighted) if highlighted in ids else 0

    def _visible(self, s, query: str) -> bool:
        if self.project != ALL and (s.project or "(flat)") != self.project:
            return False
        return matches(query, s)

    def visible_rows(self) -> list:
        q = self.query_one("#filter", Input).value
        rows = [
            s
            for s in self.summaries.values()
            if self.project == ALL or (s.project or "(flat)") == self.project
        ]
        rows = filter_rows(q, rows)
        rows.sort(key=lambda s: (s.last_activity or "", s.session_id), reverse=True)
        return rows

    def refresh_table(self) -> None:
        """Rebuild the table from the summaries (filter, project, sort), keeping the cursor.

        The first :data:`FIRST_CHUNK` rows are added at once and the rest in chunks on
        later event-loop turns, so a 10,000-session home shows its first rows (and takes
        key presses) without waiting for every row to be built.
        """
        table = self.query_one("#sessions", SessionTable)
        current = self.current_key()
        self._fill_generation += 1
        self.filling = True
        table.clear()
        rows = self.visible_rows()
        self._add_rows(rows, 0, current, self._fill_generation)
        self._update_preview()

    def _add_rows(self, rows: list, start: int, current: str | None, generation: int) -> None:
        if generation != self._fill_generation:
            return  # a newer refresh replaced this one
        table = self.query_one("#sessions", SessionTable)
        end = min(len(rows), start + (FIRST_CHUNK if start == 0 else LATER_CHUNK))
        for s in rows[start:end]:
            key = str(s.path)
            if key not in table.rows:
                table.add_row(*row_cells(s), key=key)
        if current is not None and current in table.rows:
            table.move_cursor(row=table.get_row_index(current), animate=False)
            current = None
        if self.first_rows_at is None and table.row_count:
            self.first_rows_at = time.perf_counter()
        self._shown.set()
        if end < len(rows):
            self.set_timer(0.001, lambda: self._add_rows(rows, end, current, generation))
        else:
            self.filling = False

    def current_key(self) -> str | None:
        table = self.query_one("#sessions", SessionTable)
        if not table.row_count:
            return None
        try:
            return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        except CellDoesNotExist:
            return None

    def current_summary(self):
        key = self.current_key()
        return self.summaries.get(key) if key else None

    def _update_preview(self) -> None:
        s = self.current_summary()
        preview = self.query_one("#preview", Static)
        if s is None:
            preview.update("no sessions" if not self.scanning else "")
            return
        label, colour = state_badge(s)
        text = s.title or s.first_prompt or "(no prompt)"
        where = printable(s.project or "(flat)")
        extra = "" if s.loadable else "  ·  the agent cannot load it: ctrl+s salvages a copy"
        # Session text goes in as template variables: literal, never read as markup.
        preview.update(
            Content.from_markup(
                f"[b]$text[/b]\n[dim]$where · started $started · [{colour}]$label[/]$extra[/]",
                text=one_line(text, 200),
                where=where,
                started=short_time(s.started),
                label=label,
                extra=extra,
            )
        )

    @on(DataTable.RowHighlighted, "#sessions")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._update_preview()

    @on(DataTable.RowSelected, "#sessions")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        self.open_key(event.row_key.value)

    @on(OptionList.OptionHighlighted, "#projects")
    def _project_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        pid = event.option.id or ALL
        if pid != self.project:
            self.project = pid
            self.refresh_table()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        # Large homes: wait for a pause in typing instead of filtering on every key.
        if self._filter_timer is not None:
            self._filter_timer.stop()
            self._filter_timer = None
        if len(self.summaries) > DEBOUNCE_ABOVE:
            self._filter_timer = self.set_timer(0.15, self.refresh_table)
        else:
            self.refresh_table()

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self.query_one("#sessions", SessionTable).focus()

    def on_key(self, event) -> None:
        # Type-to-filter: a printable key in the table goes to the filter box.
        table = self.query_one("#sessions", SessionTable)
        if (
            self.focused is table
            and event.is_printable
            and event.character
            and event.character not in "/? "
        ):
            inp = self.query_one("#filter", Input)
            inp.focus()
            inp.insert_text_at_cursor(event.character)
            event.stop()
            event.prevent_default()

    # ------------------------------------------------------------------ actions

    def action_focus_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_clear_filter(self) -> None:
        inp = self.query_one("#filter", Input)
        if inp.value:
            inp.value = ""
        self.query_one("#sessions", SessionTable).focus()

    def action_rescan(self) -> None:
        self.summaries.clear()
        self.query_one("#sessions", SessionTable).clear()
        self.scan()

    def action_open_session(self) -> None:
        key = self.current_key()
        if key:
            self.open_key(key)

    def session_file(self, key: str):
        """The ``SessionFile`` of a row (built from its summary)."""
        from pathlib import Path

        from sidtui.core.base.home import SessionFile

        s = self.summaries.get(key)
        if s is None:
            return None
        return SessionFile(
            Path(s.path),
            s.session_id,
            s.project,
            kind=s.kind,
            container=s.container,
            parent_session_id=s.parent_session_id,
        )

    def open_key(self, key: str) -> None:
        sf = self.session_file(key)
        if sf is not None:
            self.app.open_session(sf)

    def action_fork(self) -> None:
        """Fork (or salvage) the highlighted session: open it, then ask."""
        key = self.current_key()
        sf = self.session_file(key) if key else None
        if sf is not None:
            self.app.open_session(sf, then="fork")

    def command_entries(self):
        """(title, help, callback) for the command palette on this screen."""
        return [
            ("Open session", "Open the highlighted session", self.action_open_session),
            (
                "Fork / salvage session",
                "Fork the highlighted session (salvage if unloadable)",
                self.action_fork,
            ),
            (
                "Filter sessions",
                "Type to filter by id, project or first prompt",
                self.action_focus_filter,
            ),
            ("Rescan home", "Read every session again", self.action_rescan),
        ]

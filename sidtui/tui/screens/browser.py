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

import os
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

from sidtui.fmt import plural, printable
from sidtui.tui.fmt import one_line, plain, short_time, state_badge
from sidtui.tui.messages import SessionsScanned
from sidtui.tui.widgets.session_table import SessionTable
from sidtui.tui.worker_errors import ReportsWorkerErrors

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


#: Keys typed in the filter box that move the list's cursor instead (its actions).
LIST_KEYS = {
    "down": "cursor_down",
    "up": "cursor_up",
    "pagedown": "page_down",
    "pageup": "page_up",
}


def _badge(source: str) -> str | None:
    """The mark of a source's rows and projects (None: unmarked)."""
    from sidtui.core.sources import by_name

    try:
        return by_name(source).badge
    except KeyError:
        return None


def project_key(s) -> str:
    """The projects pane's id of a summary's project: grouped per source (a marked
    source's keys start with ``BADGE:``: its folder names and another's could coincide)."""
    name = s.project or "(flat)"
    badge = _badge(getattr(s, "source", ""))
    return f"{badge}:{name}" if badge else name


def _sources():
    from sidtui.core.sources import SOURCES

    return SOURCES


def _label(source: str) -> str:
    return next((c.label for c in _sources() if c.name == source), source)


def _key_badge(key: str) -> str:
    """The badge a project key starts with (``""``: an unmarked source's)."""
    badge, sep, _ = key.partition(":")
    return badge if sep and any(c.badge == badge for c in _sources()) else ""


def split_source(query: str) -> tuple[list[str], str]:
    """``(source words, the rest)`` of a filter query: ``source:claude`` (any prefix of a
    source's name: ``source:c``, ``source:sid``) keeps only that source's rows."""
    words, rest = [], []
    for tok in query.split():
        if tok.lower().startswith("source:"):
            words.append(tok[7:].lower())
        else:
            rest.append(tok)
    return words, " ".join(rest)


def split_dates(query: str):
    """``(day range, the rest, error)`` of a filter query: ``since:D`` / ``until:D`` (D:
    ``YYYY-MM-DD``, ``today``, ``yesterday``, ``7d``) keep the rows last active in that
    range of local days (:class:`~sidtui.core.views.dates.DayRange`, as ``ls --since``);
    ``error``: why a word is no date (its rows are then not narrowed by it)."""
    from sidtui.core.base.errors import UsageError
    from sidtui.core.views.dates import DayRange

    since = until = None
    rest = []
    for tok in query.split():
        low = tok.lower()
        if low.startswith("since:"):  # "since:" alone (still typing): no bound yet
            since = tok[6:] or None
        elif low.startswith("until:"):
            until = tok[6:] or None
        else:
            rest.append(tok)
    try:
        days = DayRange.parse(since, until, names=("since:", "until:"))
    except UsageError as exc:
        return DayRange(), " ".join(rest), str(exc)
    return days, " ".join(rest), None


def empty_state(home, others: list) -> str:
    """What the browser says when it lists nothing: per home, what was looked for where
    (a missing home named with its flag), and how to get one. ``others``: ``(source
    class, home or None)`` of each other source the app reads (``app.other_homes()``)."""
    from sidtui.core.base.discover import empty_home_hint
    from sidtui.core.sources import DEFAULT

    lines = []
    sid = home.root.is_dir()
    if sid:
        lines.append(empty_home_hint(home))
    else:
        lines.append(
            f"no {DEFAULT.label} home at {home.root} ({DEFAULT.home_flag} DIR or ${DEFAULT.home_env})"
        )
    for cls, other in others:
        if other is not None and other.exists:
            lines.append(f"no {cls.label} sessions under {cls(other).projects_dir}")
        else:
            where = (
                other.root
                if other is not None
                else f"${cls.home_env} or ~/{cls.home_class.default_dir}"
            )
            lines.append(f"no {cls.label} home at {where} ({cls.home_flag} DIR)")
            if not sid:
                lines.append("`sidtui demo` builds both homes to explore")
    return "\n".join(lines)


def filter_rows(query: str, rows: list) -> list:
    """The rows whose id, project, title or first prompt contain ``query`` or match it
    fuzzily (rapidfuzz ``partial_ratio`` ≥ 85, computed in C over all rows at once);
    ``source:NAME`` words keep only the rows of the sources whose name starts with one,
    ``since:D`` / ``until:D`` those last active in that range (:func:`split_dates`)."""
    wanted, query = split_source(query)
    if wanted:
        rows = [s for s in rows if any(getattr(s, "source", "").startswith(w) for w in wanted)]
    days, query, _ = split_dates(query)
    if days:
        rows = days.filter(rows)
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


class BrowserScreen(ReportsWorkerErrors, Screen):
    """Every session of the home, per project, newest activity first.

    At 100 columns or fewer (the app's ``-narrow`` breakpoint) the projects pane is hidden
    and ``ctrl+b`` shows it; above, ``ctrl+b`` hides it. Tab moves between the panes.
    """

    CSS_PATH = "browser.tcss"
    HELP_NAME = "session browser"  # what the help table calls it
    BINDINGS = [
        Binding("enter", "open_session", "Open", show=True),
        # the box and its "type to filter" are on screen: the footer keeps room for ^o
        Binding("ctrl+f", "focus_filter", "Filter", show=False),
        Binding("escape", "clear_filter", "Clear filter", show=False),
        Binding("tab", "app.focus_next", "Next pane", show=False),
        Binding("shift+tab", "app.focus_previous", "Previous pane", show=False),
        # Letters go to type-to-filter here, so the browser's actions are on control keys.
        Binding("ctrl+b", "toggle_projects", "Projects"),
        Binding("ctrl+r", "rescan", "Rescan", show=False),
        Binding("ctrl+s", "fork", "Fork/Salvage"),
        Binding("f2", "rename", "Rename (give the session a title)", show=False),
        Binding("ctrl+g", "resume", "Resume it in its agent (the app waits)", show=False),
        # in the footer only when both homes are read (check_action)
        Binding(
            "ctrl+o",
            "cycle_source",
            "Source",
            tooltip="Source filter: every source, sid-code, Claude Code in turn",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.summaries: dict[str, object] = {}
        # False until the person moves the cursor: till then it follows the newest session
        # (row 0) as rows arrive and are sorted — Claude Code rows come after sid-code's
        # first batches, and keeping "the row it was on" put it on the third row.
        self.cursor_chosen = False
        self.project: str = ALL
        self.scanning = False
        self.filling = False
        self._fill_generation = 0
        self.first_rows_at: float | None = None  # perf_counter() when rows first showed (bench)
        self.both_sources = False  # set on mount
        self._shown = threading.Event()
        self._filter_timer = None
        self.errors: list[str] = []
        self._projects_shown: list[tuple[str, int]] = []
        self.shown_count = 0  # rows the filter and the project leave
        self.empty_hint: str | None = None  # why the home lists nothing (core's words)
        self._progress: str | None = None  # "scanning 12/300" while a scan runs

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="browser-body"):
            yield OptionList(id="projects")
            with Vertical(id="browser-right"):
                yield Input(
                    placeholder="type to filter: id, title, prompt · since:7d until:2026-01-31",
                    id="filter",
                    select_on_focus=False,
                )
                yield SessionTable(id="sessions")
                yield Static("", id="empty-state")
                yield Static("", id="preview")
        yield Static("", id="scan-status")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = printable(self.app.home_label)
        #: several homes are read: the source filter (ctrl+o) is in the footer
        there = [r for r in (self.app.home.root, *(s.root for s in self.app.others)) if r.is_dir()]
        self.both_sources = len(there) > 1
        self.query_one("#projects", OptionList).border_title = "Projects"
        self.query_one("#sessions", SessionTable).border_title = "Sessions"
        self.query_one("#sessions", SessionTable).focus()
        self.scan()
        interval = getattr(self.app, "poll_interval", 0)
        if interval:
            self.set_interval(interval, self.poll)

    # ------------------------------------------------------------------ workers

    def scan(self) -> None:
        """Fill the table (see :meth:`_scan`); ``scanning`` until its final batch."""
        self.scanning = True
        self._scan()

    @work(
        thread=True,
        exclusive=True,
        group="scan",
        exit_on_error=False,
        description="reading the session list",
    )
    def _scan(self) -> None:
        """The catalog's cached rows at once (warm start), then a refresh of it.

        Without a usable catalog every file is summarized here, in batches.
        """
        import sqlite3

        from textual.worker import get_current_worker

        from sidtui.core.base.errors import SidtuiError

        worker = get_current_worker()
        broken = (sqlite3.Error, OSError, SidtuiError)  # what an unusable cache raises
        try:
            cat = self.app.catalog()
        except broken as exc:  # an unusable cache must not stop the browser
            self.notify(
                f"catalog unusable, reading files directly: {exc}",
                severity="warning",
                markup=False,
            )
            self._scan_direct(worker)
            return
        if cat.warning:  # the cache folder cannot be used: the catalog runs in memory
            self.notify(cat.warning, severity="warning", markup=False)
        try:
            rows = self.app.warm_rows()
        except broken:  # the prefetch failed: a plain read of the cache
            rows = cat.rows()
        if rows:
            self._shown.clear()
            self.post_message(SessionsScanned(rows, len(rows), len(rows), replace=True))
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
            self.post_message(SessionsScanned(batch, p.done, p.total, replace=cold))

        try:
            res = cat.refresh(progress=progress, cancel=lambda: worker.is_cancelled)
        except broken as exc:  # a broken cache: read the files instead
            self.notify(f"catalog refresh failed: {exc}", severity="error", markup=False)
            self._scan_direct(worker)
            return
        rows = cat.rows()
        try:  # the Claude Code rows as cached: its refresh (maybe long) follows
            cached = self.app.other_rows(refresh=False)[0]
        except broken:
            cached = []
        rows += cached
        self.post_message(
            SessionsScanned(
                rows,
                len(rows),
                len(rows),
                final=True,
                replace=True,
                errors=res.errors,
                empty_hint=self._empty_hint() if not rows else None,
            )
        )
        self._refresh_claude({str(r.path): r for r in cached})

    def _refresh_claude(self, known: dict) -> None:
        """Bring the Claude Code catalog up to date; post its changes against ``known``."""
        from sidtui.core.base.errors import SidtuiError

        if not self.app.others:
            return
        import sqlite3

        try:
            rows, errors = self.app.other_rows()
        except (sqlite3.Error, OSError, SidtuiError) as exc:  # the sid-code rows still show
            rows, errors = list(known.values()), [f"Claude Code catalog unusable: {exc}"]
        changed = [
            r
            for r in rows
            if (old := known.get(str(r.path))) is None or old.to_json() != r.to_json()
        ]
        present = {str(r.path) for r in rows}
        removed = [k for k in known if k not in present]
        if changed or removed or errors:
            n = len(rows)
            self.post_message(
                SessionsScanned(
                    changed, n, n, final=True, removed=removed, errors=errors, incremental=True
                )
            )

    def _empty_hint(self) -> str:
        return empty_state(self.app.home, self.app.other_homes())

    def _scan_direct(self, worker) -> None:
        from sidtui.core.base.discover import discover
        from sidtui.core.base.errors import SidtuiError
        from sidtui.core.resume.process import read_registrations
        from sidtui.core.views.listing import summarize

        home = self.app.home
        try:
            files = [f for f in discover(home) if f.kind == "main"]
            regs = read_registrations(home)
        except OSError as exc:
            self.notify(f"cannot read {home.root}: {exc}", severity="error", markup=False)
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
                self.post_message(SessionsScanned(rows, i + 1, len(files), errors=errors))
                rows, errors, last = [], [], now
        self.post_message(
            SessionsScanned(
                rows,
                len(files),
                len(files),
                final=True,
                errors=errors,
                empty_hint=self._empty_hint() if not files else None,
            )
        )

    def poll(self) -> None:
        """Bring the catalog up to date (only changed files are re-read) and post changes."""
        if not self.scanning:
            self._poll(dict(self.summaries))

    @work(
        thread=True,
        exclusive=True,
        group="poll",
        exit_on_error=False,
        description="checking for changed sessions",
    )
    def _poll(self, known: dict) -> None:
        import sqlite3

        from sidtui.core.base.errors import SidtuiError

        try:
            cat = self.app.catalog()
            res = cat.refresh()
            claude, claude_errors = self.app.other_rows()
            rows = cat.rows() + claude
        except (sqlite3.Error, SidtuiError, OSError):  # the next poll tries again
            return
        changed = [
            r
            for r in rows
            if (old := known.get(str(r.path))) is None or old.to_json() != r.to_json()
        ]
        present = {str(r.path) for r in rows}
        removed = [k for k in known if k not in present]
        if changed or removed or res.errors or claude_errors:
            self.post_message(
                SessionsScanned(
                    changed,
                    len(rows),
                    len(rows),
                    final=True,
                    removed=removed,
                    errors=[*res.errors, *claude_errors],
                    incremental=True,
                )
            )

    # ------------------------------------------------------------------ handlers

    def on_sessions_scanned(self, msg: SessionsScanned) -> None:
        table = self.query_one("#sessions", SessionTable)
        new_keys = []
        rows = msg.rows
        unchanged = False
        if msg.replace:
            fresh = {str(s.path): s for s in rows}
            unchanged = fresh.keys() == self.summaries.keys() and all(
                self.summaries[k] == v for k, v in fresh.items()
            )
            if unchanged:
                rows = []
            else:
                self.summaries = fresh
        for s in rows:
            key = str(s.path)
            if key not in self.summaries or msg.replace:
                new_keys.append(key)
            self.summaries[key] = s
        for key in msg.removed:
            self.summaries.pop(key, None)
        for e in msg.errors:
            if e in self.errors:  # a refresh reports the same file again: said once
                continue
            self.errors.append(e)
            self.notify(e, title="unreadable session", severity="warning", markup=False)
        if msg.incremental:
            if new_keys or msg.removed:
                self.refresh_table()
            else:
                for s in rows:
                    self._update_row(table, s)
                self._update_preview()
            self.refresh_projects()
            self._update_counts()
            return
        if msg.final:
            self.scanning = False
            self._progress = None
            self.empty_hint = msg.empty_hint
            self.app.start_watching()
            if not unchanged:
                self.refresh_table()
            self.refresh_projects()
            self._update_counts()
            return
        self._progress = f"scanning {msg.done}/{msg.total} …"
        if msg.replace:
            if not unchanged:
                self.refresh_table()
            self.refresh_projects()
            self._update_counts()
            return
        # First batches: append as they come (sorted once at the end).
        q = self.query_one("#filter", Input).value
        for key in new_keys:
            s = self.summaries[key]
            if self._visible(s, q):
                table.add_session(s)
        self.shown_count = table.row_count
        if self.first_rows_at is None and table.row_count:
            self.first_rows_at = time.perf_counter()
        if table.row_count and table.cursor_row == 0:
            self._update_preview()
        self._update_counts()

    def _update_counts(self) -> None:
        """The status line, the table's title and the empty state, from one count.

        Everything that changes the rows (a scan batch, a poll, the filter, the project)
        ends here, so the projects pane, the table and the status line never disagree.
        """
        total = len(self.summaries)
        projects = len(self._project_counts())
        narrowed = self.project != ALL or bool(self.query_one("#filter", Input).value.strip())
        sessions = (
            f"{self.shown_count} of {plural(total, 'session')}"
            if narrowed
            else plural(total, "session")
        )
        parts = [sessions, plural(projects, "project")]
        if self.errors:
            parts.append(f"{len(self.errors)} unreadable")
        bad_date = split_dates(self.query_one("#filter", Input).value)[2]
        if bad_date:
            parts.append(bad_date)
        if self._progress:
            parts.append(self._progress)
        self.query_one("#scan-status", Static).update(" " + " · ".join(parts))
        title = "Sessions"
        if self.project != ALL:
            title += f" · {self._project_label(self.project)}"
        self.query_one("#sessions", SessionTable).border_title = plain(
            f"{title} · {self.shown_count}" if total else title
        )
        nothing = not self.scanning and total == 0
        self.set_class(nothing, "-empty")
        if nothing:
            self.query_one("#empty-state", Static).update(
                plain(self.empty_hint or "no sessions in this home")
            )

    def _update_row(self, table: SessionTable, s) -> None:
        table.update_session(s)

    def _project_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for s in self.summaries.values():
            key = project_key(s)
            counts[key] = counts.get(key, 0) + 1
        return counts

    def refresh_projects(self) -> None:
        # the unmarked source's projects first, then each marked one's (each by name)
        marks = [""] + [c.badge for c in _sources() if c.badge]
        counts = sorted(
            self._project_counts().items(), key=lambda kv: (marks.index(_key_badge(kv[0])), kv[0])
        )
        if counts == self._projects_shown:
            return
        self._projects_shown = counts
        ol = self.query_one("#projects", OptionList)
        highlighted = self.project
        ol.clear_options()
        ol.add_option(Option(f"All sessions ({len(self.summaries)})", id=ALL))
        for name, n in counts:
            # folder names are literal
            ol.add_option(Option(plain(f"{self._project_label(name)} ({n})"), id=name))
        ids = [ALL] + [n for n, _ in counts]
        ol.highlighted = ids.index(highlighted) if highlighted in ids else 0

    def _project_label(self, name: str) -> str:
        """A project key without the prefix every key of its source shares, cut from the
        left; a marked source's project starts with its badge (``claude·``)."""
        badge, sep, rest = name.partition(":")
        if not sep or not any(cls.badge == badge for cls in _sources()):
            badge, rest = "", name
        mark = f"{badge}:" if badge else ""
        same = [n[len(mark) :] for n, _ in self._projects_shown if _key_badge(n) == badge]
        prefix = common_key_prefix(same)
        label = rest[len(prefix) :] if prefix and rest.startswith(prefix) else rest
        if badge:
            label = label if len(label) <= 15 else "…" + label[-14:]
            return f"{badge}·{label}"
        return label if len(label) <= 22 else "…" + label[-21:]

    def _visible(self, s, query: str) -> bool:
        if self.project != ALL and project_key(s) != self.project:
            return False
        return matches(query, s)

    def visible_rows(self) -> list:
        q = self.query_one("#filter", Input).value
        rows = [
            s
            for s in self.summaries.values()
            if self.project == ALL or project_key(s) == self.project
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
        current = self.current_key() if self.cursor_chosen else None
        self._fill_generation += 1
        self.filling = True
        table.clear()
        rows = self.visible_rows()
        self.shown_count = len(rows)
        self._add_rows(rows, 0, current, self._fill_generation)
        self._update_preview()
        self._update_counts()

    def _add_rows(self, rows: list, start: int, current: str | None, generation: int) -> None:
        if generation != self._fill_generation:
            return  # a newer refresh replaced this one
        table = self.query_one("#sessions", SessionTable)
        end = min(len(rows), start + (FIRST_CHUNK if start == 0 else LATER_CHUNK))
        for s in rows[start:end]:
            key = str(s.path)
            if key not in table.rows:
                table.add_session(s)
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
            if self.summaries and not self.shown_count and not self.filling:
                what = "filter" if self.query_one("#filter", Input).value.strip() else "project"
                preview.update(f"no session matches the {what} (Esc clears the filter)")
            else:
                preview.update("")
            return
        label, colour = state_badge(s)
        text = s.title or s.first_prompt or "(no prompt)"
        extra = "" if s.loadable else "  ·  the agent cannot load it: ctrl+s salvages a copy"
        if _badge(s.source):
            extra = f"  ·  {_label(s.source)}"
        if getattr(s, "forked_from", None):
            extra += f"  ·  forked from {printable(s.forked_from)}"
        # Session text goes in as template variables: literal, never read as markup.
        preview.update(
            Content.from_markup(
                f"[b]$text[/b]\n[dim]$sid · $where · started $started · [{colour}]$label[/]$extra[/]",
                text=one_line(text, 200),
                sid=printable(s.session_id),
                where=printable(s.project or "(flat)"),
                started=short_time(s.started),
                label=label,
                extra=extra,
            )
        )

    @on(DataTable.RowHighlighted, "#sessions")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row != 0:  # the app only ever leaves an unchosen cursor on row 0
            self.cursor_chosen = True
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
        """Enter opens the highlighted row (the one the preview shows), as in the table;
        with no row left the box keeps the focus, to change the words."""
        if self._filter_timer is not None:  # typed faster than the debounce: filter first
            self._filter_timer.stop()
            self._filter_timer = None
            self.refresh_table()
        if self.current_key() is not None:
            self.query_one("#sessions", SessionTable).focus()
            self.action_open_session()

    def on_key(self, event) -> None:
        # Type-to-filter: a printable key in the table goes to the filter box; the arrows
        # in the box move the list's cursor (and the focus) as they would in the list.
        table = self.query_one("#sessions", SessionTable)
        if self.focused is self.query_one("#filter", Input) and event.key in LIST_KEYS:
            table.focus()
            getattr(table, f"action_{LIST_KEYS[event.key]}")()
            event.stop()
            event.prevent_default()
            return
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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cycle_source":
            return self.both_sources  # one source: nothing to cycle
        return True

    def action_focus_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_clear_filter(self) -> None:
        inp = self.query_one("#filter", Input)
        if inp.value:
            inp.value = ""
        self.query_one("#sessions", SessionTable).focus()

    def action_cycle_source(self) -> None:
        """Filter by source in turn: every source, then each listed source's (the filter
        box's ``source:`` word, so what is shown is what is typed)."""
        inp = self.query_one("#filter", Input)
        wanted, rest = split_source(inp.value)
        listed = {s.source for s in self.summaries.values()}
        label = {"": "every source"} | {
            f"source:{c.short}": c.label for c in _sources() if c.name in listed
        }
        order = list(label)
        now = f"source:{wanted[0]}" if len(wanted) == 1 else ""
        nxt = order[(order.index(now) + 1) % len(order)] if now in order else ""
        inp.value = " ".join(x for x in (nxt, rest) if x)
        self.notify(f"showing {label[nxt]}'s sessions", timeout=2)

    def action_rescan(self) -> None:
        """Check every file again; the rows (and the cursor) stay until the new ones come."""
        self.scan()

    def action_toggle_projects(self) -> None:
        """Show or hide the projects pane (hidden by default at 100 columns or fewer)."""
        self.toggle_class("-projects-toggled")
        projects = self.query_one("#projects", OptionList)
        self.call_after_refresh(self._focus_after_toggle, projects)

    def _focus_after_toggle(self, projects: OptionList) -> None:
        if projects.display and projects.region.width:
            projects.focus()
        elif self.focused is None or self.focused is projects:
            self.query_one("#sessions", SessionTable).focus()

    def action_open_session(self) -> None:
        key = self.current_key()
        if key:
            self.open_key(key)

    def session_file(self, key: str):
        """The session file of a row (built from its summary by its source)."""
        s = self.summaries.get(key)
        if s is None:
            return None
        return self.app.source_named(s.source).file_of(s)

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

    def action_rename(self) -> None:
        """Give the highlighted session a title (:class:`~sidtui.tui.screens.rename.
        RenameScreen`, the core's ``Source.rename``)."""
        from sidtui.tui.screens.rename import RenameScreen

        s = self.current_summary()
        if s is None:
            return
        src = self.app.source_named(s.source)
        if not src.supports("rename"):
            self.notify(f"{src.label} sessions cannot be renamed by sidtui", severity="warning")
            return
        self.app.push_screen(
            RenameScreen(src, src.file_of(s), session_id=s.session_id, title=s.title, live=s.live),
            self._renamed,
        )

    def _renamed(self, res) -> None:
        if res is None:
            return
        import msgspec

        key = next((k for k, v in self.summaries.items() if v.session_id == res.session_id), None)
        if key is not None:  # the row says it at once; the next poll reads the file again
            s = msgspec.structs.replace(self.summaries[key], title=res.title)
            self.summaries[key] = s
            self._update_row(self.query_one("#sessions", SessionTable), s)
            self._update_preview()
        self.notify(printable(f"renamed {res.session_id} to “{res.title}”"), markup=False)
        self.poll()

    def resume_refusal(self, s) -> str | None:
        """Why the highlighted session cannot be resumed from here (None: it can)."""
        import shlex
        import shutil

        src = self.app.source_named(s.source)
        command = src.resume_command(s.session_id)
        if command is None:
            return f"sidtui does not know how to resume a {src.label} session"
        if s.kind != "main":
            return "a sub-agent's transcript is resumed with the session that spawned it"
        if s.live:
            return f"{s.session_id} is live: a running {src.label} writes it now"
        program = shlex.split(command)[0]
        if shutil.which(program) is None:
            return f"{program!r} is not on PATH: is {src.label} installed?"
        if s.cwd and not os.path.isdir(s.cwd):
            return f"its project folder {s.cwd} is gone"
        return None

    def action_resume(self) -> None:
        """Suspend the app and run the agent's own resume command for the highlighted
        session in its project folder; back in the app when it exits."""
        import shlex

        s = self.current_summary()
        if s is None:
            return
        why = self.resume_refusal(s)
        if why is not None:
            self.notify(printable(f"cannot resume: {why}"), severity="warning", markup=False)
            return
        command = self.app.source_named(s.source).resume_command(s.session_id)
        self.run_resume(shlex.split(command), s.cwd or None)
        self.poll()

    def run_resume(self, argv: list[str], cwd: str | None) -> None:
        """Run ``argv`` in ``cwd`` with the app suspended (tests replace this)."""
        import subprocess

        from textual.app import SuspendNotSupported

        try:
            with self.app.suspend():
                subprocess.run(argv, cwd=cwd, check=False)
        except SuspendNotSupported:
            self.notify(
                "this terminal cannot hand the screen to another program", severity="warning"
            )
        except OSError as exc:
            self.notify(printable(f"cannot run {argv[0]}: {exc}"), severity="error", markup=False)

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
            ("Rename session", "Give the highlighted session a title (F2)", self.action_rename),
            (
                "Resume session",
                "Run the agent's own resume of the highlighted session (ctrl+g)",
                self.action_resume,
            ),
            ("Show / hide projects", "The projects pane (ctrl+b)", self.action_toggle_projects),
            ("Rescan home", "Check every session file again (ctrl+r)", self.action_rescan),
            (
                "Filter by source",
                "Every source, sid-code, Claude Code in turn: the filter's source:NAME (ctrl+o)",
                self.action_cycle_source,
            ),
        ]

"""The sidtui app: a session browser and rewind manager over one sid-code home.

:func:`make_app` is the factory (tests and the screenshot script call it on fixture and
demo homes); :func:`run` is what ``sidtui`` with no subcommand calls. The app holds only
the injected :class:`~sidtui.core.base.home.Home` and display options; every screen drives the
same core functions as the CLI (``summarize``, ``open_session``, ``rewind``, ``fork``,
``salvage``, ``CheckpointManager``) from thread workers.

Themes: ``dark`` (``textual-dark``) and ``light`` (``textual-light``); ``ctrl+t`` flips.
Every action is in the command palette (``ctrl+p``): app-wide entries plus the current
screen's ``command_entries()``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from concurrent.futures import Future
from pathlib import Path

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from sidtui.core.base.home import Home
from sidtui.tui.fmt import NARROW_MAX, SHORT_BELOW
from sidtui.tui.messages import LiveChanged, WatcherStarted
from sidtui.tui.worker_errors import ReportsWorkerErrors

THEMES = {"dark": "textual-dark", "light": "textual-light"}


class SidtuiApp(ReportsWorkerErrors, App):
    """Browse sessions, read one as the agent will resume it, rewind, fork, undo."""

    CSS_PATH = "app.tcss"
    TITLE = "sidtui"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW_MAX + 1, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (SHORT_BELOW, "-tall")]
    BINDINGS = [
        Binding("question_mark", "help", "Help"),
        Binding("slash", "search", "Search"),
        Binding("ctrl+u", "usage", "Usage", show=False),
        Binding("ctrl+e", "export", "Export", show=False),
        Binding("ctrl+t", "toggle_theme", "Theme", show=False),
        Binding("ctrl+q", "quit", "Quit"),
    ]

    def __init__(
        self,
        home: Home,
        *,
        theme: str | None = None,
        home_label: str | None = None,
        poll_interval: float = 2.0,
        catalog_path: str | None = None,
        claude_home=None,
        homes=(),
    ) -> None:
        super().__init__()
        # One spelling of the home for every path the app compares (catalog rows, watcher
        # events, open screens): the resolved one. The header keeps the user's spelling.
        self.home = Home(Path(os.path.realpath(home.root)))
        self.catalog_path = catalog_path
        self._catalog = None
        # The Claude Code home read beside the sid-code one (None: none given or found).
        self.claude_home = (
            type(claude_home)(Path(os.path.realpath(claude_home.root))) if claude_home else None
        )
        # Every home read beside the sid-code one (any source's; the Claude Code one first).
        self.other_homes = [type(h)(Path(os.path.realpath(h.root))) for h in homes if h is not None]
        if self.claude_home is not None:
            self.other_homes.insert(0, self.claude_home)
        self._other_catalogs: dict[str, object] = {}
        self._search = None
        self._search_filled = False
        self._other_search: dict[str, object] = {}
        self._lock = threading.Lock()
        self.home_label = home_label if home_label is not None else str(home.root)
        self.poll_interval = poll_interval
        self._watcher = None  # None: not started; False: starting; else the latest started
        self._watchers: list = []
        self._warm_rows: Future | None = None
        self.theme = THEMES.get(theme or "dark", theme or "textual-dark")

    def on_load(self) -> None:
        # Read the catalog's cached rows while Textual starts and mounts the browser: the
        # warm start overlaps the app's own start-up instead of following it.
        self._warm_rows = Future()
        threading.Thread(target=self._prefetch_rows, name="sidtui-warm-rows", daemon=True).start()

    def _prefetch_rows(self) -> None:
        assert self._warm_rows is not None
        try:
            self._warm_rows.set_result(self.catalog().rows() + self.claude_rows(refresh=False)[0])
        except BaseException as exc:  # noqa: BLE001 - handed to the browser's worker
            self._warm_rows.set_exception(exc)

    def warm_rows(self) -> list:
        """The catalog's cached rows: the start-up prefetch the first time (blocking until
        it is done), a fresh read after."""
        fut, self._warm_rows = self._warm_rows, None
        if fut is None:
            return self.catalog().rows() + self.claude_rows(refresh=False)[0]
        return fut.result()

    def on_mount(self) -> None:
        # A mode (not get_default_screen) so the browser's own .tcss is loaded.
        from sidtui.tui.screens.browser import BrowserScreen

        self.add_mode("browser", BrowserScreen)
        self.switch_mode("browser")

    # ------------------------------------------------------------------ navigation

    def open_session(
        self,
        sf,
        *,
        then: str | None = None,
        find: str | None = None,
        at_line: int | None = None,
    ) -> None:
        """Push the Session screen for ``sf`` (any source's file; see ``SessionScreen``)."""
        from sidtui.tui.screens.session import SessionScreen

        src = self.source_for(sf)
        self.push_screen(SessionScreen(sf, source=src, then=then, find=find, at_line=at_line))

    # ------------------------------------------------------------------ sources

    @property
    def sources(self) -> list:
        """The :class:`~sidtui.core.sources.base.Source` of each home the app reads
        (sid-code's, then each other home's)."""
        from sidtui.core.sources import SidCodeSource, source_of_home

        return [SidCodeSource(self.home), *(source_of_home(h) for h in self.other_homes)]

    def source_for(self, sf):
        """The source whose session file ``sf`` is."""
        return next(s for s in self.sources if s.owns(sf))

    def source_named(self, name: str):
        """The source called ``name`` (``SessionSummary.source``, a search hit's)."""
        return next(s for s in self.sources if s.name == name)

    # ------------------------------------------------------------------ $PAGER, $EDITOR

    def open_external(self, text: str, name: str, *, editor: bool = False) -> None:
        """Show ``text`` in ``$PAGER`` (``less``), or ``$VISUAL``/``$EDITOR`` (``vi``), with
        the app suspended as Textual documents. The text goes to a read-only file in a new
        temporary folder (removed afterwards): editing it changes nothing of the session.
        """
        import shlex
        import shutil
        import tempfile

        env = os.environ
        command = (
            (env.get("VISUAL") or env.get("EDITOR") or "vi")
            if editor
            else (env.get("PAGER") or "less")
        )
        folder = tempfile.mkdtemp(prefix="sidtui-")
        path = os.path.join(folder, os.path.basename(name) or "sidtui.txt")
        try:
            with open(path, "x", encoding="utf-8", errors="replace") as fh:
                fh.write(text)
            os.chmod(path, 0o400)
            argv = [*shlex.split(command), path]
            try:
                self.run_external(argv)
            except FileNotFoundError:
                self.notify(
                    f"cannot run {command!r} (set $PAGER / $EDITOR)", severity="error", markup=False
                )
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def run_external(self, argv: list[str]) -> None:
        """Run ``argv`` in the terminal with the app suspended (tests replace this).

        Raises:
            FileNotFoundError: no such program.
        """
        import subprocess

        from textual.app import SuspendNotSupported

        try:
            with self.suspend():
                subprocess.run(argv, check=False)
        except SuspendNotSupported:
            self.notify(
                "this terminal cannot hand the screen to another program", severity="warning"
            )

    # ------------------------------------------------------------------ shared core objects

    def catalog(self):
        """The home's :class:`~sidtui.core.index.catalog.Catalog` (opened on first use, any thread)."""
        with self._lock:
            if self._catalog is None:
                from sidtui.core.index import Catalog

                self._catalog = Catalog(self.home, self.catalog_path)
            return self._catalog

    def other_catalog(self, home):
        """The catalog of one of :attr:`other_homes` (opened on first use, any thread)."""
        from sidtui.core.sources import source_of_home

        key = str(home.root)
        with self._lock:
            cat = self._other_catalogs.get(key)
            if cat is None:
                from sidtui.core.index import Catalog

                path = self.catalog_path
                if path is not None and path != ":memory:":
                    path = f"{path}.{source_of_home(home).short}"
                cat = self._other_catalogs[key] = Catalog(home, path)
            return cat

    def claude_catalog(self):
        """The Claude Code home's catalog (None without one; opened on first use, any thread)."""
        return None if self.claude_home is None else self.other_catalog(self.claude_home)

    def claude_rows(self, *, refresh: bool = True) -> tuple[list, list[str]]:
        """``(rows, errors)`` of every home beside the sid-code one (``([], [])`` without
        one); with ``refresh`` their changed files are read first. Blocking: call in a
        worker.

        Raises:
            sqlite3.Error, OSError, SidtuiError: a cache cannot be used.
        """
        rows: list = []
        errors: list[str] = []
        for home in self.other_homes:
            cat = self.other_catalog(home)
            errors += cat.refresh().errors if refresh else []
            rows += cat.rows()
        return rows, errors

    def search_index(self, progress=None):
        """The FTS index, filled (incrementally) before first use. Blocking: call in a worker."""
        from sidtui.core.index import SearchIndex

        cat = self.catalog()
        with self._lock:
            if self._search is None:
                self._search = SearchIndex(cat)
            idx = self._search
        if not self._search_filled:
            cat.refresh()
            idx.fill(progress=progress)
            self._search_filled = True
        return idx

    def search_indexes(self, progress=None) -> list[tuple[str, object]]:
        """``(source, SearchIndex)`` of every home: sid-code's (when it exists) and the
        Claude Code one's, each filled before first use. Blocking: call in a worker."""
        from sidtui.core.index import SearchIndex
        from sidtui.core.sources import source_of_home

        out: list[tuple[str, object]] = []
        if self.home.root.is_dir() or not self.other_homes:
            out.append(("sid-code", self.search_index(progress)))
        for home in self.other_homes:
            cat = self.other_catalog(home)
            key = str(home.root)
            with self._lock:
                idx = self._other_search.get(key)
                fresh = idx is None
                if idx is None:
                    idx = self._other_search[key] = SearchIndex(cat)
            if fresh:
                cat.refresh()
                idx.fill(progress=progress)
            out.append((source_of_home(home).name, idx))
        return out

    def started_by_path(self) -> dict[str, str | None]:
        """Start time of every session the browser knows, by path."""
        b = self.browser()
        if b is None:
            return {}
        return {k: s.started for k, s in b.summaries.items()}

    # ------------------------------------------------------------------ live updates

    def start_watching(self) -> None:
        """Start a watcher on each home that exists (once); its batches trigger the
        browser's and the open sessions' incremental re-reads at once instead of at the
        next poll."""
        if self.poll_interval and self._watcher is None:
            self._watcher = False  # starting
            homes = [self.home, *self.other_homes]
            self._start_watcher([h for h in homes if h.root.is_dir()])

    @work(
        thread=True,
        exclusive=True,
        group="watcher",
        exit_on_error=False,
        description="starting the live watcher",
    )
    def _start_watcher(self, homes: list) -> None:
        from sidtui.core.live import Watcher

        for home in homes:
            w = Watcher(home, on_batch=self._on_live_batch)
            w.start()
            self.post_message(WatcherStarted(w))

    def on_watcher_started(self, msg: WatcherStarted) -> None:
        self._watchers.append(msg.watcher)
        self._watcher = msg.watcher

    def worker_failed(self, worker, error: BaseException) -> None:
        if worker.group == "watcher":  # polling keeps working without it
            self.notify(
                f"live watching unavailable ({error}); polling instead",
                severity="warning",
                markup=False,
            )
            return
        super().worker_failed(worker, error)

    def _on_live_batch(self, batch) -> None:
        from sidtui.core.live.events import (
            SessionBecameLive,
            SessionBecameStale,
            SessionUnregistered,
        )

        paths = {str(p) for e in batch if (p := getattr(e, "path", None))}
        process = (SessionBecameLive, SessionBecameStale, SessionUnregistered)
        self.post_message(LiveChanged(paths, any(isinstance(e, process) for e in batch)))

    def on_live_changed(self, msg: LiveChanged) -> None:
        from sidtui.tui.live_session import LiveSessionScreen

        b = self.browser()
        if b is not None:
            b.poll()
        for screen in self.screen_stack:
            if not isinstance(screen, LiveSessionScreen):
                continue
            if str(screen.sf.path) in msg.paths:
                screen.check_file()
            elif msg.processes:
                screen.process_changed()

    def on_unmount(self) -> None:
        for w in self._watchers:
            try:
                w.stop(1.0)
            except Exception:  # noqa: BLE001
                pass
        for cat in (self._catalog, *self._other_catalogs.values()):
            if cat is not None:
                try:
                    cat.close()
                except Exception:  # noqa: BLE001 - closing a cache must not fail the exit
                    pass

    def browser(self):
        from sidtui.tui.screens.browser import BrowserScreen

        for s in self.screen_stack:
            if isinstance(s, BrowserScreen):
                return s
        return None

    def refresh_browser(self) -> None:
        """Ask the browser to pick up new or changed sessions now (after a write)."""
        b = self.browser()
        if b is not None:
            b.poll()

    # ------------------------------------------------------------------ actions

    def action_help(self) -> None:
        from sidtui.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def action_search(self) -> None:
        from sidtui.tui.screens.search import SearchScreen

        if not isinstance(self.screen, SearchScreen):
            self.push_screen(SearchScreen())

    def action_usage(self) -> None:
        from sidtui.tui.screens.usage import UsageScreen

        if not isinstance(self.screen, UsageScreen):
            s = getattr(self.screen, "current_summary", lambda: None)()
            self.push_screen(UsageScreen(getattr(s, "session_id", None)))

    def action_export(self) -> None:
        from sidtui.tui.screens.export import open_export

        open_export(self)

    def action_toggle_theme(self) -> None:
        self.theme = "textual-light" if self.theme == "textual-dark" else "textual-dark"

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Help", "Every key binding of this screen (?)", self.action_help)
        yield SystemCommand(
            "Search sessions", "Full-text search across every session (/)", self.action_search
        )
        yield SystemCommand(
            "Usage",
            "Tokens and cost per day, by model, per project, the selected session's share (ctrl+u)",
            self.action_usage,
        )
        yield SystemCommand(
            "Export session",
            "The open session as an HTML page, Markdown or JSON, then open it (ctrl+e)",
            self.action_export,
        )
        yield SystemCommand(
            "Dark theme", "Switch to the dark theme", lambda: setattr(self, "theme", "textual-dark")
        )
        yield SystemCommand(
            "Light theme",
            "Switch to the light theme",
            lambda: setattr(self, "theme", "textual-light"),
        )
        entries = getattr(screen, "command_entries", None)
        if entries is not None:
            for title, help_text, callback in entries():
                yield SystemCommand(title, help_text, callback)


def make_app(home: Home | str, **opts) -> SidtuiApp:
    """Build the app on ``home`` (a :class:`Home` or a path).

    Args:
        home: the sid-code home.
        **opts: ``theme`` ("dark"/"light"), ``home_label`` (what the header shows instead
            of the path: snapshot tests pass a fixed one), ``poll_interval`` (seconds
            between live checks; 0 turns polling off), ``catalog_path`` (the catalog
            database; default: the user's cache directory), ``claude_home`` (a
            :class:`ClaudeHome` or a path: its sessions are listed beside sid-code's),
            ``homes`` (the homes of further sources, listed beside them).
    """
    if not isinstance(home, Home):
        home = Home(home)
    ch = opts.get("claude_home")
    if isinstance(ch, (str, os.PathLike)):
        opts["claude_home"] = _claude_home(ch)
    return SidtuiApp(home, **opts)


def _claude_home(path: str | os.PathLike[str]):
    """The Claude Code home at ``path`` (through its source)."""
    from sidtui.core.sources import ClaudeSource

    return ClaudeSource.resolve_home(path, {}).home


def run(home: Home, theme: str | None = None, claude_home=None, homes=()) -> int:
    """Run the app full screen (with ``claude_home``'s sessions beside); return the exit code.

    A missing sid-code home is no refusal: the app lists the Claude Code home alone, and
    with neither home says in its empty state where it looked.

    Raises:
        UsageError: the sid-code home is there but is no directory (exit 2).
    """
    if home.root.exists():
        home.require()
    if isinstance(claude_home, (str, os.PathLike)):
        claude_home = _claude_home(claude_home)
    label = str(home.root)
    if not home.root.exists():
        from sidtui.core.sources import source_of_home

        there = [h for h in (claude_home, *homes) if h is not None and h.exists]
        if there:
            label = f"{there[0].root} ({source_of_home(there[0]).label})"
    app = make_app(home, theme=theme, claude_home=claude_home, home_label=label, homes=homes)
    app.run()
    return app.return_code or 0

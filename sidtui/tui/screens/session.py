"""Session screen: one session in tabs — Conversation, Chain, Checkpoints, State, Sidechains.

The file is read in a thread worker through :func:`sidtui.core.views.session.open_session` (the
function ``sidtui show`` uses); the tab models are built in the same worker and handed to
the widgets in :class:`~sidtui.tui.messages.SessionLoaded` (attributes down), so a 100 MB
session never blocks input. While the screen is open a poll worker watches the file's
size and mtime; a change re-reads it and the Conversation follows the end like
``tail -f`` (``t`` toggles), or counts "new records" when the user has scrolled up.

``Esc Esc`` (two presses within half a second) or ``r`` opens the Rewind modal; a single
``Esc`` (or Backspace) goes back to the browser.
"""

from __future__ import annotations

import time
from pathlib import Path

from rich.syntax import Syntax
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static, TabbedContent, TabPane

from sidtui.core.base.gcpause import gc_paused
from sidtui.fmt import printable
from sidtui.tui.conversation_model import ConversationModel
from sidtui.tui.fmt import human_size, plain, pretty_json, short_time
from sidtui.tui.messages import SessionLoaded, SessionLoadFailed
from sidtui.tui.widgets.chain_view import ChainIndex, ChainView
from sidtui.tui.widgets.checkpoints_panel import CheckpointsPanel
from sidtui.tui.widgets.conversation_view import ConversationView, layout
from sidtui.tui.widgets.sidechains_panel import SidechainsTable
from sidtui.tui.widgets.state_panel import StatePanel

DOUBLE_ESCAPE_SECONDS = 0.5
TABS = ("conversation", "chain", "checkpoints", "state", "sidechains")


#: A live session is re-read at most once per this many times the last read's duration.
RELOAD_SPACING = 2.0
#: Reads quicker than this (seconds) are never spaced.
RELOAD_SPACED_FROM = 0.25


class SessionScreen(Screen):
    """Everything about one session file."""

    CSS_PATH = "session.tcss"
    BINDINGS = [
        Binding("escape", "escape", "Back (Esc Esc: rewind)"),
        Binding("backspace", "back", "Back", show=False),
        Binding("r", "rewind", "Rewind"),
        Binding("f", "fork", "Fork/Salvage"),
        Binding("u", "undo_preview", "Undo preview"),
        Binding("t", "toggle_follow", "Follow"),
        Binding("e", "expand_all", "Expand all", show=False),
        Binding("E", "collapse_all", "Collapse all", show=False),
        Binding("1", "show_tab('conversation')", "Conversation", show=False),
        Binding("2", "show_tab('chain')", "Chain", show=False),
        Binding("3", "show_tab('checkpoints')", "Checkpoints", show=False),
        Binding("4", "show_tab('state')", "State", show=False),
        Binding("5", "show_tab('sidechains')", "Sidechains", show=False),
        Binding("ctrl+r", "reload", "Reload", show=False),
    ]

    def __init__(self, sf, *, then: str | None = None, scroll_to_line: int | None = None) -> None:
        super().__init__()
        self.sf = sf
        self.view = None
        self.then = then
        self.scroll_to_line = scroll_to_line
        self._last_escape = 0.0
        self._escape_timer = None
        self._stat: tuple[int, int] | None = None
        self._reload_pending = False
        self._load_seconds = 0.0  # how long the last read took
        self._loaded_at = 0.0  # time.monotonic() when it ended
        self._reload_timer = None

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(plain(f" {self.sf.session_id}  loading…"), id="session-head")
        with TabbedContent(id="tabs", initial="conversation"):
            with TabPane("Conversation", id="conversation"):
                yield ConversationView(id="conversation-view")
                yield Static("", id="new-records")
            with TabPane("Chain", id="chain"):
                with Horizontal():
                    yield ChainView(id="chain-view")
                    with VerticalScroll(id="raw"):
                        yield Static("", id="raw-json")
            with TabPane("Checkpoints", id="checkpoints"):
                yield CheckpointsPanel(id="checkpoints-panel")
            with TabPane("State", id="state"):
                yield StatePanel(id="state-panel")
            with TabPane("Sidechains", id="sidechains"):
                with Vertical():
                    yield SidechainsTable(id="sidechains-table")
                    yield Static("", id="sidechains-note")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = printable(f"{self.sf.project or '(flat)'} / {self.sf.session_id}")
        self.query_one("#tabs").loading = True
        conv = self._conv = self.query_one("#conversation-view", ConversationView)
        self.watch(conv, "new_records", lambda _: self._refresh_indicator())
        self.watch(conv, "follow", lambda _: self._refresh_indicator())
        self.load()
        interval = getattr(self.app, "poll_interval", 0)
        if interval:
            self.set_interval(interval, self.check_file)

    # ------------------------------------------------------------------ workers

    @work(thread=True, exclusive=True, group="open-session")
    def load(self, reload: bool = False) -> None:
        """Read the session (open_session) and build the tab models, off the UI thread."""
        from sidtui.core.base.errors import SidtuiError
        from sidtui.core.views.session import open_session

        try:
            t0 = time.monotonic()
            st = self.sf.path.stat()
            conv_view = self._conv
            with gc_paused(freeze=True):
                view = open_session(self.app.home, self.sf)
                conversation = ConversationModel.from_view(view)
                chain = ChainIndex(view)
                # The layout (line of every entry) is O(messages): done here, not in the UI.
                width = conv_view._content_width()
                starts = layout(conversation, width)
        except (SidtuiError, OSError) as exc:
            self.post_message(SessionLoadFailed(str(exc)))
            return
        except Exception as exc:  # noqa: BLE001 - a bug must become a message, never a crash
            self.post_message(
                SessionLoadFailed(
                    f"internal error reading the session: {type(exc).__name__}: {exc}"
                )
            )
            return
        from textual.worker import get_current_worker

        if get_current_worker().is_cancelled:
            return  # a newer load replaced this one
        self._stat = (st.st_size, st.st_mtime_ns)
        self._loaded_at = time.monotonic()
        self._load_seconds = self._loaded_at - t0
        msg = SessionLoaded(view, conversation, chain, reload=reload)
        msg.starts, msg.width = starts, width
        self.post_message(msg)

    @work(thread=True, exclusive=True, group="watch-session")
    def check_file(self) -> None:
        """Re-read the session when its file grew or changed (the live tail)."""
        try:
            st = self.sf.path.stat()
        except OSError:
            return
        if self._stat is not None and (st.st_size, st.st_mtime_ns) != self._stat:
            self._stat = (st.st_size, st.st_mtime_ns)
            self.app.call_from_thread(self.reload_when_idle)

    # ------------------------------------------------------------------ handlers

    def reload_when_idle(self) -> None:
        """Re-read now, or right after the read in progress (a busy live session must not
        start a new full read on every append).

        Reads of a live session that took a quarter second or more are spaced by twice
        their duration, so a huge session being written keeps at most a third of a core
        busy instead of re-reading back to back; quicker ones re-read at once.
        """
        if any(
            w.node is self and w.group == "open-session" and not w.is_finished for w in self.workers
        ):
            self._reload_pending = True
            return
        wait = self.reload_wait()
        if wait <= 0:
            self.load(True)
        elif self._reload_timer is None:
            self._reload_timer = self.set_timer(wait, self._timed_reload)

    def reload_wait(self) -> float:
        """Seconds to wait before the next live re-read (0 when it may start now)."""
        if self._load_seconds < RELOAD_SPACED_FROM:
            return 0.0  # a quick read: re-read at once
        return RELOAD_SPACING * self._load_seconds - (time.monotonic() - self._loaded_at)

    def _timed_reload(self) -> None:
        self._reload_timer = None
        self.reload_when_idle()

    def on_session_load_failed(self, msg: SessionLoadFailed) -> None:
        self.query_one("#tabs").loading = False
        self.query_one("#session-head", Static).update(Text(f" {msg.error}", style="bold red"))
        self.notify(msg.error, title="cannot open session", severity="error", markup=False)

    def on_session_loaded(self, msg: SessionLoaded) -> None:
        try:
            self._show_loaded(msg)
        except Exception as exc:  # noqa: BLE001 - shown, never a crash
            self.query_one("#tabs").loading = False
            self.notify(
                f"internal error showing the session: {type(exc).__name__}: {exc}",
                severity="error",
                markup=False,
            )

    def _show_loaded(self, msg: SessionLoaded) -> None:
        if self._reload_pending:
            self._reload_pending = False
            self.call_after_refresh(self.reload_when_idle)
        self.view = msg.view
        self.query_one("#tabs").loading = False
        self._show_head()
        conv = self.query_one("#conversation-view", ConversationView)
        conv.set_model(
            msg.conversation,
            keep_position=msg.reload,
            starts=getattr(msg, "starts", None),
            width=getattr(msg, "width", None),
        )
        if not msg.reload:
            if self.scroll_to_line is not None:
                conv.scroll_to_line(self.scroll_to_line)
            else:
                conv.action_last()
            conv.focus()
        self.query_one("#chain-view", ChainView).set_index(msg.chain)
        if msg.view.rf is None:
            self.query_one("#raw-json", Static).update(
                "A v1 whole-file JSON session: no records, no chain (the agent reads it in one piece)."
            )
        self.query_one("#state-panel", StatePanel).show(msg.view)
        self.query_one("#sidechains-table", SidechainsTable).show(msg.view)
        self.query_one("#sidechains-note", Static).update(
            "" if msg.view.sidechains else " no sub-agent transcripts for this session"
        )
        self.query_one("#checkpoints-panel", CheckpointsPanel).show(msg.view)
        if not msg.reload and self.then:
            then, self.then = self.then, None
            getattr(self, f"action_{then}")()

    def _show_head(self) -> None:
        v = self.view
        if v.file.kind == "sidechain":
            state = "sidechain"
            colour = "cyan"
        elif not v.loaded.loadable:
            state, colour = "the agent cannot load it", "bold red"
        elif v.recovery is not None:
            state = v.recovery.interruption.kind
            state = "clean" if state == "none" else state.replace("_", " ")
            colour = {"clean": "green", "interrupted prompt": "yellow"}.get(state, "red")
        else:
            state, colour = "—", "dim"
        if v.liveness.live:
            state, colour = "live: " + state, "bold magenta"
        size = human_size(self._stat[0] if self._stat else 0)
        records = len(v.rf.records) if v.rf is not None else len(v.loaded.messages)
        line1 = Text.assemble(
            (f" {v.session_id}", "bold"),
            f"  {v.format_version or ''}  {v.loaded.model or ''}  ",
            (state, colour),
        )
        line2 = Text(
            f" {records} records · {size} · {len(v.loaded.messages)} messages · started "
            f"{short_time(v.loaded.created_at)} · {len(v.warnings)} warnings",
            style="dim",
        )
        self.query_one("#session-head", Static).update(Text("\n").join([line1, line2]))

    @on(ChainView.NodeSelected)
    def _node_selected(self, event: ChainView.NodeSelected) -> None:
        raw = self.query_one("#raw-json", Static)
        v = self.view
        if v is None or v.rf is None or event.row is None:
            raw.update("")
            return
        if event.row.kind == "bad":
            b = v.rf.bad_lines[event.row.index]
            data = v.rf.data[b.offset : b.offset + min(b.length, 4000)]
            raw.update(
                Text.assemble(
                    (f"line {b.line}: {b.reason}\n\n", "bold red"),
                    data.decode("utf-8", errors="replace"),
                )
            )
            return
        rec = v.rf.records[event.row.index]
        text = pretty_json(v.rf.decode(rec))
        if len(text) > 20000:
            text = text[:20000] + "\n… (cut)"
        raw.update(
            Syntax(
                text,
                "json",
                word_wrap=True,
                theme="ansi_dark" if self.app.current_theme.dark else "ansi_light",
            )
        )

    @on(SidechainsTable.SidechainOpened)
    def _open_sidechain(self, event: SidechainsTable.SidechainOpened) -> None:
        from sidtui.core.base.home import classify_file

        sf = classify_file(Path(event.path), self.sf.project)
        if sf is None:
            self.notify(f"{event.path} is not a transcript", severity="error", markup=False)
            return
        self.app.open_session(sf)

    def _refresh_indicator(self) -> None:
        conv = self.query_one("#conversation-view", ConversationView)
        ind = self.query_one("#new-records", Static)
        parts = []
        if conv.new_records:
            parts.append(f"▼ {conv.new_records} new records — End to jump")
        parts.append("following (t)" if conv.follow else "not following (t)")
        ind.update(" " + " · ".join(parts))
        ind.set_class(bool(conv.new_records), "-has-new")

    # ------------------------------------------------------------------ actions

    def action_escape(self) -> None:
        now = time.monotonic()
        if now - self._last_escape <= DOUBLE_ESCAPE_SECONDS:
            self._last_escape = 0.0
            if self._escape_timer is not None:
                self._escape_timer.stop()
                self._escape_timer = None
            self.action_rewind()
            return
        self._last_escape = now
        self._escape_timer = self.set_timer(DOUBLE_ESCAPE_SECONDS, self._single_escape)

    def _single_escape(self) -> None:
        self._escape_timer = None
        if self.app.screen is self:
            self.action_back()

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()

    def action_show_tab(self, tab: str) -> None:
        self.query_one("#tabs", TabbedContent).active = tab
        # Focus must move into the new pane: TabbedContent follows the focus.
        focus = {
            "conversation": "#conversation-view",
            "chain": "#chain-view",
            "checkpoints": "#checkpoints-panel",
            "state": "#state-panel",
            "sidechains": "#sidechains-table",
        }.get(tab)
        if focus:
            self.query_one(focus).focus()

    def action_toggle_follow(self) -> None:
        conv = self.query_one("#conversation-view", ConversationView)
        conv.follow = not conv.follow
        if conv.follow:
            conv.action_last()
        self._refresh_indicator()
        self.notify("following the end of the session" if conv.follow else "follow off")

    def action_expand_all(self) -> None:
        self.query_one("#conversation-view", ConversationView).set_all_collapsed(False)

    def action_collapse_all(self) -> None:
        self.query_one("#conversation-view", ConversationView).set_all_collapsed(True)

    def action_reload(self) -> None:
        self.load(True)

    def _require_view(self) -> bool:
        if self.view is None:
            self.notify("the session is still loading", severity="warning")
            return False
        return True

    def action_rewind(self) -> None:
        if not self._require_view():
            return
        from sidtui.tui.screens.rewind import RewindScreen

        self.app.push_screen(RewindScreen(self.view), self._after_write)

    def action_fork(self) -> None:
        if not self._require_view():
            return
        from sidtui.tui.screens.fork import ForkScreen

        self.app.push_screen(ForkScreen(self.view), self._after_fork)

    def action_undo_preview(self) -> None:
        if not self._require_view():
            return
        panel = self.query_one("#checkpoints-panel", CheckpointsPanel)
        self.query_one("#tabs", TabbedContent).active = "checkpoints"
        panel.action_undo_preview()

    def action_switch_branch(self) -> None:
        """Make the record under the Chain cursor the live tip (append-only marker)."""
        if not self._require_view():
            return
        chain = self.query_one("#chain-view", ChainView)
        rows = chain.index.rows if chain.index else []
        if not rows or chain.cursor >= len(rows) or rows[chain.cursor].kind != "record":
            self.notify("select a record in the Chain tab first", severity="warning")
            return
        rec = self.view.rf.records[rows[chain.cursor].index]
        if not rec.uuid:
            self.notify(
                f"line {rec.line} has no uuid: it cannot be a tip", severity="warning", markup=False
            )
            return
        self.branch_switch(rec.uuid, rec.line, dry_run=True, force=False)

    @work(thread=True, exclusive=True, group="branch-switch")
    def branch_switch(self, uuid: str, line: int, *, dry_run: bool, force: bool) -> None:
        from sidtui.core.base.errors import SidtuiError
        from sidtui.core.edits.rewind import SessionIsLive, switch_branch

        try:
            res = switch_branch(self.view, uuid, dry_run=dry_run, force=force)
        except SessionIsLive as exc:
            self.app.call_from_thread(self._confirm_branch, uuid, line, None, str(exc))
            return
        except (SidtuiError, OSError, ValueError) as exc:
            self.app.call_from_thread(
                self.notify, str(exc), title="branch switch", severity="error", markup=False
            )
            return
        if dry_run:
            self.app.call_from_thread(self._confirm_branch, uuid, line, res, None)
        else:
            self.app.call_from_thread(
                self.notify,
                f"line {line} is the live tip now ({res.messages_after} messages; marker {res.marker_uuid})",
                title="branch switch",
                markup=False,
            )
            self.app.call_from_thread(self.load, True)

    def _confirm_branch(self, uuid: str, line: int, res, live_reason: str | None) -> None:
        from sidtui.tui.screens.confirm import ConfirmScreen

        if live_reason is not None:
            question = f"{live_reason}\n\nSwitch branch anyway (force)?"

            def forced(yes: bool | None) -> None:
                if yes:
                    self.branch_switch(uuid, line, dry_run=False, force=True)

            self.app.push_screen(ConfirmScreen(question, yes="Force switch", danger=True), forced)
            return
        question = (
            f"Make line {line} the live tip?\n"
            f"{len(res.leaving)} message(s) leave the conversation, {len(res.joining)} join "
            f"({res.messages_before} → {res.messages_after}). Nothing is deleted: a "
            "branch_switch marker is appended."
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self.branch_switch(uuid, line, dry_run=False, force=False)

        self.app.push_screen(ConfirmScreen(question, yes="Switch"), answered)

    def _after_write(self, result) -> None:
        if result:
            self.load(True)

    def _after_fork(self, result) -> None:
        if result is None:
            return
        self.app.refresh_browser()
        from sidtui.core.base.home import classify_file

        sf = classify_file(Path(result.path), self.sf.project)
        if sf is not None:
            self.app.open_session(sf)

    def command_entries(self):
        return [
            (
                "Rewind…",
                "Rewind conversation, code or both to a prompt (Esc Esc, r)",
                self.action_rewind,
            ),
            (
                "Fork / salvage…",
                "Fork this session at a point (salvage if unloadable) (f)",
                self.action_fork,
            ),
            (
                "Undo preview…",
                "What /undo would change, then confirm (u)",
                self.action_undo_preview,
            ),
            (
                "Toggle follow",
                "Follow the end of a live session like tail -f (t)",
                self.action_toggle_follow,
            ),
            (
                "Expand all",
                "Expand every thinking block, tool call and result (e)",
                self.action_expand_all,
            ),
            ("Collapse all", "Collapse every block (E)", self.action_collapse_all),
            ("Reload session", "Read the file again (ctrl+r)", self.action_reload),
            (
                "Make branch live…",
                "Make the record under the Chain cursor the live tip (b in Chain)",
                self.action_switch_branch,
            ),
            ("Back to browser", "Return to the session list (Esc)", self.action_back),
        ] + [
            (
                f"Show {t} tab",
                f"Switch to the {t} tab ({i + 1})",
                lambda t=t: self.action_show_tab(t),
            )
            for i, t in enumerate(TABS)
        ]

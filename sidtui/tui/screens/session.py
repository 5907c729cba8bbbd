"""Session screen: one session of any source, in tabs.

Every source gets the same screen (:class:`SessionScreen`): the file is read in a thread
worker through :meth:`Source.open <sidtui.core.sources.base.Source.open>` (the call
``sidtui show`` makes), the Conversation is laid out from the model's
:meth:`~sidtui.core.sources.base.SessionModel.reading` in the same worker and handed to
the widgets in :class:`~sidtui.tui.messages.SessionLoaded` (attributes down), so a 100 MB
session never blocks input. A live session is re-read in full when its file changes and
the Conversation follows its end (``t``), as :mod:`sidtui.tui.live_session` does.

Tabs differ only where the source's reader gives something the other does not
(:attr:`~sidtui.core.sources.base.Source.views`, said in each tab's note): Chain (every
record in file order with its raw JSON; ``b`` makes a branch live with a marker) or Tips
(every leaf; ``b`` forks one into a session of its own); Checkpoints as snapshots with a
diff pane or as a file history; State and Sidechains where the reader has them.

``Esc Esc`` (two presses within half a second) or ``r`` opens the Rewind dialog; a single
``Esc`` (or Backspace) goes back to the browser. ``/`` or ``ctrl+f`` finds words in the
conversation (``n`` / ``N``: next / previous match). The pane a key names gets the focus
(``1``–``5`` the tab's first list), so arrows reach the list on screen.
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
from textual.widgets import Footer, Header, Input, Static, TabbedContent, TabPane

from sidtui.core.base.gcpause import gc_paused
from sidtui.fmt import plural, printable
from sidtui.tui.conversation_model import ConversationModel
from sidtui.tui.fmt import human_size, one_line, plain, pretty_json, short_time
from sidtui.tui.live_session import FOLLOW_BINDING, LiveSessionScreen, load_error_text
from sidtui.tui.messages import (
    BranchSwitched,
    BranchSwitchPlanned,
    RecordFetched,
    SessionLoaded,
    SessionLoadFailed,
)
from sidtui.tui.widgets.chain_view import ChainIndex, ChainView
from sidtui.tui.widgets.checkpoints_panel import CheckpointsPanel
from sidtui.tui.widgets.conversation_view import ConversationView, layout
from sidtui.tui.widgets.file_history_panel import FileHistoryPanel
from sidtui.tui.widgets.follow_line import FollowLine
from sidtui.tui.widgets.row_table import RowTable
from sidtui.tui.widgets.sidechains_panel import SidechainsTable
from sidtui.tui.widgets.state_panel import StatePanel
from sidtui.tui.widgets.tips_panel import TipsPanel
from sidtui.tui.worker_errors import ReportsWorkerErrors, describe_failure

DOUBLE_ESCAPE_SECONDS = 0.5
#: Every tab a session screen may have, in order: ``(id, title, the reader's view it
#: needs)`` (None: every source has it).
ALL_TABS = (
    ("conversation", "Conversation", None),
    ("chain", "Chain", "records"),
    ("tips", "Tips", "leaves"),
    ("checkpoints", "Checkpoints", None),
    ("state", "State", "state"),
    ("sidechains", "Sidechains", None),
)
#: What a tab key focuses in each tab (the pane it names).
TAB_FOCUS = {
    "conversation": "#conversation-view",
    "chain": "#chain-view",
    "tips": "#tips-panel",
    "checkpoints": "#checkpoints-panel",
    "state": "#state-panel",
    "sidechains": "#sidechains-table",
}
#: Tones of the header's pieces (:attr:`ConversationReading.head`) as Rich styles.
TONES = {
    "strong": "bold",
    "ok": "green",
    "warn": "yellow",
    "bad": "red",
    "fatal": "bold red",
    "live": "bold magenta",
    "side": "cyan",
    "muted": "dim",
    "pending": "bold yellow",
}
#: Keys of the actions that need a reader's view or a capability (see ``check_action``).
NEEDS_VIEW = {"switch_branch": "records", "fork_branch": "leaves"}
#: The actions that write files back from checkpoints (off where a source has none).
CODE_ACTIONS = frozenset({"undo_preview", "redo_preview", "restore_before"})


class SessionScreen(ReportsWorkerErrors, LiveSessionScreen, Screen):
    """Everything about one session file, of any source.

    Args:
        sf: the session file (a :class:`~sidtui.core.sources.base.SessionRef`).
        source: its :class:`~sidtui.core.sources.base.Source` (default: the app's
            source that owns ``sf``).
        then: an action to run once loaded (``"fork"`` from the browser).
        find: words to find in the conversation once loaded (a search hit's query).
        at_line: the file line to open at (a search hit's record); with ``find``, the
            match in that message.
        inherited: sub-agent links of the session that opened this sub-agent.
    """

    CSS_PATH = "session.tcss"
    BINDINGS = [
        Binding("escape", "escape", "Back (Esc Esc: rewind)"),
        Binding("backspace", "back", "Back", show=False),
        Binding("r", "rewind", "Rewind"),
        Binding("f", "fork", "Fork/Salvage"),
        Binding("f", "fork_session", "Fork"),
        Binding("u", "undo_preview", "Undo…"),
        Binding("U", "redo_preview", "Redo…", show=False),
        Binding("slash,ctrl+f", "find", "Find"),
        Binding("n", "find_next(1)", "Next match", show=False),
        Binding("N", "find_next(-1)", "Previous match", show=False),
        Binding("c", "copy", "Copy…", show=False),
        Binding("o", "open_record(False)", "Open in $PAGER", show=False),
        Binding("O", "open_record(True)", "Open in $EDITOR", show=False),
        FOLLOW_BINDING,
        Binding("e", "expand_all", "Expand all", show=False),
        Binding("E", "collapse_all", "Collapse all", show=False),
        Binding("1", "show_tab('conversation')", "Conversation", show=False),
        Binding("2", "show_tab('chain')", "Chain", show=False),
        Binding("2", "show_tab('tips')", "Tips", show=False),
        Binding("3", "show_tab('checkpoints')", "Checkpoints", show=False),
        Binding("4", "show_tab('state')", "State", show=False),
        Binding("5", "show_tab('sidechains')", "Sidechains", show=False),
        Binding("ctrl+r", "reload", "Reload", show=False),
        Binding("f2", "rename", "Rename (give the session a title)", show=False),
        Binding("b", "fork_branch", "Fork branch", show=False),
        Binding("M", "repair", "Repair…", show=False),
        Binding("R", "restore_before", "Restore before…", show=False),
    ]

    def __init__(
        self,
        sf,
        *,
        source=None,
        then: str | None = None,
        find: str | None = None,
        at_line: int | None = None,
        inherited: list | None = None,
    ) -> None:
        super().__init__()
        self.sf = sf
        #: the sub-agents of the session that opened this one (a sub-agent's transcript:
        #: Enter on the agents it spawned opens theirs too)
        self.inherited = list(inherited or ())
        self._source = source
        self.view = None
        self.pending: list = []  # journals killed sidtui writes of this session left
        self.then = then
        self.find_query = find
        self.at_line = at_line
        self._last_escape = 0.0
        self._escape_timer = None
        #: ``time.perf_counter()`` when the conversation's first rows were first drawn
        self.conversation_shown_at: float | None = None

    @property
    def source(self):
        """The :class:`~sidtui.core.sources.base.Source` the session is read through."""
        if self._source is None:
            self._source = self.app.source_for(self.sf)
        return self._source

    @property
    def HELP_NAME(self) -> str:
        return f"{self.source.label} session"

    def has(self, view: str) -> bool:
        """The source's reader gives ``view`` (:attr:`Source.views`)."""
        return view in self.source.views

    @property
    def tabs(self) -> list[str]:
        """This screen's tabs, in order (keys 1, 2…)."""
        return [tab for tab, _, needs in ALL_TABS if needs is None or self.has(needs)]

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(plain(f" {self.sf.session_id}  loading…"), id="session-head")
        with TabbedContent(id="tabs", initial="conversation"):
            with TabPane("Conversation", id="conversation"):
                yield ConversationView(id="conversation-view")
                yield FollowLine(id="new-records")
            if self.has("records"):
                with TabPane("Chain", id="chain"):
                    with Horizontal(id="chain-panes"):
                        yield ChainView(id="chain-view")
                        with VerticalScroll(id="raw"):
                            yield Static("", id="raw-json")
            if self.has("leaves"):
                with TabPane("Tips", id="tips"):
                    yield TipsPanel(id="tips-panel")
            with TabPane("Checkpoints", id="checkpoints"):
                if self.source.checkpoint_unit is None:  # the agent keeps no file states
                    yield Static(
                        plain(
                            f" {self.source.label} keeps no file states: no checkpoints, "
                            "no code rewind, undo or restore"
                        ),
                        id="checkpoints-panel",
                    )
                elif self.has("file-history"):
                    yield FileHistoryPanel(id="checkpoints-panel")
                else:
                    yield CheckpointsPanel(id="checkpoints-panel")
            if self.has("state"):
                with TabPane("State", id="state"):
                    yield StatePanel(id="state-panel")
            # sid-code's sidechain files, or any source's sub-agents (subagent_links)
            title = "Sidechains" if self.has("sidechains") else "Sub-agents"
            with TabPane(title, id="sidechains"):
                with Vertical():
                    yield SidechainsTable(id="sidechains-table")
                    yield Static("", id="sidechains-note")
        with Horizontal(id="find-bar"):
            yield Input(placeholder="find in this session: words…", id="find")
            yield Static("", id="find-status")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = printable(self.sf.session_id)  # the reader's words once read
        self.query_one("#tabs").loading = True
        if self.has("records"):
            self.query_one("#chain-view", ChainView).border_title = "Records (line order)"
            self.query_one("#raw", VerticalScroll).border_title = "Selected record"
        self._conv = self.query_one("#conversation-view", ConversationView)
        self.watch_live(self.query_one(FollowLine))
        self.load()

    def lacks(self, action: str, parameters: tuple[object, ...] = ()) -> bool:
        """``action`` needs what this source's reader or writer does not have (its key is
        off: not in the footer, the help nor the command palette)."""
        if action == "show_tab":
            return bool(parameters) and parameters[0] not in self.tabs
        if action in NEEDS_VIEW:
            return not self.has(NEEDS_VIEW[action])
        if action in CODE_ACTIONS and self.source.checkpoint_unit is None:
            return True  # the agent keeps no file states
        if action in ("fork", "fork_session"):
            return self.source.supports("salvage") != (action == "fork")
        if action == "restore_before":
            return not self.has("file-history")
        if action == "repair":
            return not self.source.supports("repair")
        if action == "rename":
            return not self.source.supports("rename") or self.sf.kind != "main"
        return False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.lacks(action, parameters):
            return False
        return super().check_action(action, parameters)

    # ------------------------------------------------------------------ workers

    @work(
        thread=True,
        exclusive=True,
        group="open-session",
        exit_on_error=False,
        description="reading the session",
    )
    def _load(self, reload: bool, width: int) -> None:
        from textual.worker import get_current_worker

        from sidtui.core.base.errors import SidtuiError

        src = self.source
        t0 = time.monotonic()
        try:
            st = self.sf.path.stat()
            # the cyclic GC walking millions of new objects would cost more than the read
            with gc_paused(freeze=True):
                view = src.open(self.sf)
                conversation = ConversationModel.from_view(view)
                chain = ChainIndex(view) if self.has("records") else None
                # The layout (line of every entry) is O(messages): done here, not in the UI.
                starts = layout(conversation, width)
                tips = src.leaves(view)
            # the read verbs' own call (`ls`, `show`): what killed sidtui writes left
            pending = src.pending_journals([self.sf.session_id])
        except (SidtuiError, OSError) as exc:
            self.post_message(SessionLoadFailed(load_error_text(self.sf, exc)))
            return
        if get_current_worker().is_cancelled:
            return  # a newer load replaced this one
        history = history_error = None
        if self.has("file-history"):  # read here; snapshots: the panel reads its own
            try:
                with gc_paused(freeze=True):
                    history = src.checkpoints(view)
            except (SidtuiError, OSError) as exc:
                history_error = f"cannot read the file history: {exc}"
        self.post_message(
            SessionLoaded(
                view,
                conversation,
                chain,
                starts,
                width,
                (st.st_size, st.st_mtime_ns),
                time.monotonic() - t0,
                reload,
                pending,
                tips=tips,
                history=history,
                history_error=history_error,
            )
        )

    def worker_failed(self, worker, error: BaseException) -> None:
        if worker.group == "open-session":
            self.post_message(SessionLoadFailed(describe_failure(worker, error)))
            return
        super().worker_failed(worker, error)

    # ------------------------------------------------------------------ handlers

    def on_session_load_failed(self, msg: SessionLoadFailed) -> None:
        self.query_one("#tabs").loading = False
        self.query_one("#session-head", Static).update(
            Text(f" {printable(msg.error)}", style="bold red")
        )
        self.notify(msg.error, title="cannot open session", severity="error", markup=False)

    def on_session_loaded(self, msg: SessionLoaded) -> None:
        self.view = msg.view
        said = {p.describe() for p in self.pending}
        self.pending = msg.pending  # what `ls` and `show` say of a killed write, said here too
        for p in msg.pending:
            if p.describe() not in said:
                self.notify(p.describe(), title="a killed sidtui write", severity="warning")
        self.read_done(msg.stat, msg.seconds)
        self.query_one("#tabs").loading = False
        self.sub_title = printable(msg.conversation.reading.where)
        self._show_head(msg.conversation.reading)
        conv = self._conv
        msg.conversation.inherited = self.inherited
        conv.set_model(
            msg.conversation, keep_position=msg.reload, starts=msg.starts, width=msg.width
        )
        self._show_panes(msg)
        if not msg.reload:
            conv.focus()
            self._place_reader(conv)
            self.call_after_refresh(self._shown)
        elif conv.finder is not None:
            conv.find(conv.finder.query)  # new records may hold the words
        if not msg.reload and self.then:
            then, self.then = self.then, None
            getattr(self, f"action_{then}")()

    def _shown(self) -> None:
        if self.conversation_shown_at is None:
            self.conversation_shown_at = time.perf_counter()

    def _show_panes(self, msg: SessionLoaded) -> None:
        """Hand the read down to the tabs this source has."""
        view = msg.view
        if self.has("records"):
            self.query_one("#chain-view", ChainView).set_index(msg.chain)
            if view.rf is None:
                self.query_one("#raw-json", Static).update(
                    "A v1 whole-file JSON session: no records, no chain "
                    "(the agent reads it in one piece)."
                )
        if self.has("leaves"):
            self.query_one("#tips-panel", TipsPanel).show(msg.tips or [])
        if self.has("state"):
            self.query_one("#state-panel", StatePanel).show(view)
        table = self.query_one("#sidechains-table", SidechainsTable)
        if self.has("sidechains"):
            table.show(view)
            none = not view.sidechains
        else:
            links = msg.conversation.subagent_links()
            table.show_links(links)
            none = not links
        self.query_one("#sidechains-note", Static).update(
            " no sub-agent transcripts for this session"
            if none
            else " Enter opens a sub-agent's transcript (so does Enter on its call in the "
            "conversation)"
        )
        panel = self.query_one("#checkpoints-panel")
        if isinstance(panel, FileHistoryPanel):
            panel.show(msg.history, msg.history_error, getattr(view, "cwd", None))
        elif isinstance(panel, CheckpointsPanel):
            panel.show(view)

    def _place_reader(self, conv: ConversationView) -> None:
        """Where a freshly opened session starts: at a search hit, else at the end.

        The cursor goes to the hit's message at once; finding the words (a pass over every
        entry, in a worker) then moves it to the match inside that message.
        """
        anchor = self.at_line
        if anchor is not None and not conv.scroll_to_line(anchor):
            self._show_line_in_chain(anchor)
            anchor = None
        if self.find_query:
            self.query_one("#find", Input).value = self.find_query
            self._show_find_bar(True)
            conv.find(self.find_query, anchor_line=anchor)
        elif self.at_line is None:
            conv.action_last()

    @on(ConversationView.LineNotShown)
    def _line_not_shown(self, event: ConversationView.LineNotShown) -> None:
        self._show_line_in_chain(event.line)

    def _show_line_in_chain(self, line: int) -> None:
        """A record the conversation does not draw (a skipped branch, metadata): the Chain
        tab with that line selected, or the Tips tab, which lists every leaf."""
        if self.has("records"):
            self.action_show_tab("chain")
            self.query_one("#chain-view", ChainView).select_line(line)
            self.notify(
                f"line {line} is not a message of the conversation the agent resumes: "
                "shown in the Chain tab",
                markup=False,
            )
        elif self.has("leaves"):
            self.action_show_tab("tips")
            self.notify(
                f"line {line} is not a message of the conversation resume loads (a branch "
                "resume does not pick, or metadata): the Tips tab lists every leaf",
                severity="warning",
                markup=False,
            )

    def _show_head(self, reading) -> None:
        """The two header lines the reader gives (:attr:`ConversationReading.head`), with
        the file's size and the pending journals said as ``ls`` says them."""
        title, facts = reading.head
        title = list(title)
        name = self.source.title_of(self.view) if self.view is not None else None
        if name:  # what the session was about, as the browser's row says it
            title.insert(0, (f" “{one_line(name, 60)}”", "strong"))
        if self.pending and title:  # as `ls` says
            text, _tone = title[-1]
            title[-1] = (text + " (restore pending)", "pending")
        line1 = Text.assemble(
            *[(printable(t), TONES.get(tone or "", "")) for t, tone in title],
            no_wrap=True,
            overflow="ellipsis",
        )
        parts = []
        for f in facts:
            if isinstance(f, str):
                parts.append(printable(f))
            elif f[0] == "count":
                parts.append(plural(f[1], f[2]))
            elif f[0] == "size":
                parts.append(human_size(self._stat[0] if self._stat else 0))
            elif f[0] == "started":
                parts.append(f"started {short_time(f[1])}")
            elif f[0] == "warnings":
                parts.append(plural(f[1] + len(self.pending), "warning"))
        line2 = Text(" " + " · ".join(parts), style="dim", no_wrap=True, overflow="ellipsis")
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
            data = v.rf.span(b.offset, b.offset + min(b.length, 4000))  # never the whole file
            raw.update(
                Text.assemble(
                    (printable(f"line {b.line}: {b.reason}\n\n"), "bold red"),
                    printable(data.decode("utf-8", errors="replace")).expandtabs(4),
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
        if event.ref is not None:
            self.open_subagent(event.ref)
            return
        sf = self.source.file_at(Path(event.path), self.sf.project)
        if sf is None:
            self.notify(f"{event.path} is not a transcript", severity="error", markup=False)
            return
        self.open_subagent(sf)

    @on(ConversationView.SubagentChosen)
    def _subagent_chosen(self, event: ConversationView.SubagentChosen) -> None:
        event.stop()
        self.open_subagent(event.link.ref)

    @on(RowTable.RowSelected, "#tips-table")
    def _tip_chosen(self, event: RowTable.RowSelected) -> None:
        """Enter on a sidechain tip (a sub-agent written inside the session's file):
        its transcript, as Enter on its call opens it."""
        tip = self.query_one("#tips-panel", TipsPanel).selected()
        model = self._conv.model
        if tip is None or tip["kind"] != "sidechain" or model is None:
            return
        event.stop()
        line = tip["line"]
        link = next(
            (
                x
                for x in model.subagent_links()
                if x.ref is not None and line in (getattr(x.ref, "inline_lines", None) or ())
            ),
            None,
        )
        if link is None:
            self.notify(
                f"the sidechain ending at line {line} is no sub-agent sidtui can open",
                severity="warning",
                markup=False,
            )
            return
        self.open_subagent(link.ref)

    def open_subagent(self, ref) -> None:
        """A sub-agent's transcript in a session screen of its own, over this one (Esc
        comes back); it knows this session's sub-agents, so nested ones open too."""
        model = self._conv.model
        links = model.subagent_links() if model is not None else list(self.inherited)
        self.app.push_screen(SessionScreen(ref, source=self.source, inherited=links))

    # ------------------------------------------------------------------ find

    def action_find(self) -> None:
        """Open the find bar (words; Enter: next match, Esc: back to the conversation)."""
        self.action_show_tab("conversation")
        self._show_find_bar(True)
        self.query_one("#find", Input).focus()

    def _show_find_bar(self, shown: bool) -> None:
        self.set_class(shown, "-finding")

    @on(Input.Submitted, "#find")
    def _find_submitted(self, event: Input.Submitted) -> None:
        self._conv.find_or_next(event.value.strip())

    @on(ConversationView.FindMoved)
    def _find_moved(self, event: ConversationView.FindMoved) -> None:
        self._find_event = event
        self._find_status()

    def _find_status(self) -> None:
        """The find bar's count and the keys that move from here (typing or not)."""
        event = getattr(self, "_find_event", None)
        if event is not None:
            typing = self.focused is self.query_one("#find", Input)
            self.query_one("#find-status", Static).update(event.status(typing))

    def on_descendant_focus(self) -> None:
        self._find_status()  # into or out of the find box: n/N or Enter/shift+Enter

    def on_key(self, event) -> None:
        find = self.query_one("#find", Input)
        if self.focused is find and event.key in ("escape", "down", "up", "shift+enter"):
            event.stop()
            event.prevent_default()
            if event.key == "escape":
                if not find.value.strip():
                    self._show_find_bar(False)
                    self._conv.find("")
                self._conv.focus()
            elif event.key == "shift+enter":
                self._conv.find_or_next(find.value.strip(), -1)
            else:
                self._conv.next_match(1 if event.key == "down" else -1)

    def action_find_next(self, direction: int) -> None:
        if not self._conv.next_match(direction):
            self.action_find()

    # ------------------------------------------------------------------ copy, open

    def _selected_record_index(self) -> int | None:
        """The record under the cursor: the Chain tab's row, else the conversation's message."""
        if self.view is None:
            return None
        if self.query_one("#tabs", TabbedContent).active == "chain":
            chain = self.query_one("#chain-view", ChainView)
            rows = chain.index.rows if chain.index else []
            if 0 <= chain.cursor < len(rows) and rows[chain.cursor].kind == "record":
                return rows[chain.cursor].index
            return None
        model = self._conv.model
        if model is None or not model.entries:
            return None
        e = model.entries[min(self._conv.cursor, len(model.entries) - 1)]
        if e.msg is None:
            return None
        return model.reading.record_of(e.msg)

    @work(
        thread=True,
        exclusive=True,
        group="record-fetch",
        exit_on_error=False,
        description="reading the record",
    )
    def _fetch_record(self, index: int, purpose: str) -> None:
        from sidtui.core.base.jsonparse import parse_line_slow

        line, text = self._conv.model.reading.record_text(index)
        if purpose != "copy":  # a person reads it: indented
            try:
                text = pretty_json(parse_line_slow(text.encode("utf-8")))
            except ValueError:
                pass  # shown as it is
        self.post_message(RecordFetched(f"line-{line}.json", text, purpose))

    def on_record_fetched(self, msg: RecordFetched) -> None:
        if msg.purpose == "copy":
            self.app.copy_to_clipboard(msg.text)
            self.notify(f"copied the record of {msg.name.removesuffix('.json')} (JSON)")
        else:
            self.app.open_external(msg.text, msg.name, editor=msg.purpose == "editor")

    def action_copy(self) -> None:
        """Ask what to copy: the session id, the file path or the selected record."""
        from sidtui.tui.screens.copy import CopyScreen

        if not self._require_view():
            return
        self.app.push_screen(CopyScreen(), self._copy_chosen)

    def _copy_chosen(self, what: str | None) -> None:
        if what == "id":
            self.action_copy_id()
        elif what == "path":
            self.action_copy_path()
        elif what == "record":
            self.action_copy_record()

    def action_copy_id(self) -> None:
        self.app.copy_to_clipboard(self.sf.session_id)
        self.notify(f"copied the session id {self.sf.session_id}", markup=False)

    def action_copy_path(self) -> None:
        self.app.copy_to_clipboard(str(self.sf.path))
        self.notify(f"copied {self.sf.path}", markup=False)

    def action_copy_record(self) -> None:
        index = self._selected_record_index()
        if index is None:
            self.notify("no record selected (a message or a Chain row)", severity="warning")
            return
        self._fetch_record(index, "copy")

    def action_open_record(self, editor: bool) -> None:
        """The selected record, indented, in ``$PAGER`` (or ``$EDITOR``)."""
        index = self._selected_record_index()
        if index is None:
            self.notify("no record selected (a message or a Chain row)", severity="warning")
            return
        self._fetch_record(index, "editor" if editor else "pager")

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
        """Show ``tab`` and focus the pane it names (its first list): arrows, Home and End
        reach what is on screen, and the tab keys keep working from there."""
        if tab not in self.tabs:
            return
        self.query_one("#tabs", TabbedContent).active = tab
        # Focus must move into the new pane: TabbedContent follows the focus.
        self.query_one(TAB_FOCUS[tab]).focus()

    def action_expand_all(self) -> None:
        self._conv.set_all_collapsed(False)

    def action_collapse_all(self) -> None:
        self._conv.set_all_collapsed(True)

    def action_reload(self) -> None:
        self.load(True)

    def action_rename(self) -> None:
        """Give the session a title (the browser's F2 dialog); read again after."""
        from sidtui.tui.screens.rename import RenameScreen

        if self.view is None:
            self.notify("the session is still loading", severity="warning")
            return
        self.app.push_screen(
            RenameScreen(
                self.source,
                self.sf,
                session_id=self.view.session_id,
                title=self.source.title_of(self.view),
                live=bool(self.view.liveness.live),
            ),
            lambda res: self.action_reload() if res is not None else None,
        )

    def _require_view(self) -> bool:
        """The session is read and is one a write may change (no sub-agent transcript)."""
        if self.view is None:
            self.notify("the session is still loading", severity="warning")
            return False
        if self.sf.kind != "main" and self.source.conversation_rewind == "new-session":
            parent = getattr(self.sf, "parent_session_id", None)
            self.notify(
                printable(
                    f"a subagent transcript cannot be changed: open its session "
                    f"({parent or 'unknown'})"
                ),
                severity="warning",
                markup=False,
            )
            return False
        return True

    # ------------------------------------------------------------------ the write dialogs
    # One method per dialog: what it opens for this source's writer.

    def rewind_dialog(self):
        """The Rewind dialog for this session (one for every source)."""
        from sidtui.tui.screens.rewind import RewindScreen

        return RewindScreen(self.source, self.view)

    def fork_dialog(self, *, tip: dict | None = None, repair: bool = False):
        """The Fork dialog (``tip``: fork that leaf; ``repair``: a copy resumed whole)."""
        from sidtui.tui.screens.fork import ForkScreen

        return ForkScreen(self.source, self.view, tip=tip, repair=repair)

    def restore_dialog(self, op: str, *, snapshot_id: str | None = None, path: str | None = None):
        """The restore preview (``undo``, ``undo-file`` of ``path``, ``redo``, ``restore``
        before ``snapshot_id``), with what the Checkpoints tab already read."""
        from sidtui.tui.screens.restore_preview import RestorePreviewScreen

        panel = self.query_one("#checkpoints-panel")
        checkpoints = panel.history if isinstance(panel, FileHistoryPanel) else panel.manager
        return RestorePreviewScreen(
            self.source, self.view, op, path=path, snapshot_id=snapshot_id, checkpoints=checkpoints
        )

    def action_rewind(self) -> None:
        if not self._require_view():
            return
        self.app.push_screen(self.rewind_dialog(), self._after_write)

    def action_fork(self) -> None:
        if not self._require_view():
            return
        self.app.push_screen(self.fork_dialog(), self._after_fork)

    def action_fork_session(self) -> None:
        self.action_fork()

    def action_repair(self) -> None:
        """`sidtui repair` in the fork dialog: a new session the agent resumes whole."""
        if not self._require_view():
            return
        self.app.push_screen(self.fork_dialog(repair=True), self._after_fork)

    def action_fork_branch(self) -> None:
        """Fork the leaf under the Tips cursor (a stranded branch) into a new session."""
        if not self._require_view():
            return
        self.action_show_tab("tips")
        tip = self.query_one("#tips-panel", TipsPanel).selected()
        if tip is None:
            self.notify("no leaves to fork", severity="warning")
            return
        if tip["live"]:
            self.notify(
                "this is the leaf resume already picks: f forks the whole conversation",
                severity="warning",
            )
            return
        self.app.push_screen(self.fork_dialog(tip=tip), self._after_fork)

    def action_undo_preview(self) -> None:
        self._restore("undo")

    def action_redo_preview(self) -> None:
        self._restore("redo")

    def action_restore_before(self) -> None:
        self._restore("restore")

    def _restore(self, op: str) -> None:
        """Preview ``undo`` (the latest prompt or batch; with a file list focused, that
        file only), ``redo`` or ``restore`` (before the selected checkpoint)."""
        if not self._require_view():
            return
        panel = self.query_one("#checkpoints-panel")
        if self.source.checkpoint_unit is None:
            self.notify(
                printable(f"{self.source.label} keeps no file states: nothing to {op}"),
                severity="warning",
                markup=False,
            )
            return
        if isinstance(panel, CheckpointsPanel):
            self.query_one("#tabs", TabbedContent).active = "checkpoints"
            if op == "undo":
                panel.action_undo_preview()
            elif op == "redo":
                panel.action_redo_preview()
            else:
                panel.action_restore_preview()
            return
        assert isinstance(panel, FileHistoryPanel)
        if panel.history is None or not panel.history.checkpoints:
            self.notify("no file checkpoints: nothing to restore", severity="warning")
            return
        snapshot = path = None
        if op == "undo" and panel.files_focused():
            path = panel.selected_file()
            op = "undo-file" if path is not None else op
        if op == "restore":
            self.action_show_tab("checkpoints")
            cp = panel.selected_checkpoint()
            snapshot = cp.id if cp is not None else None
        self.app.push_screen(
            self.restore_dialog(op, snapshot_id=snapshot, path=path), self._after_write
        )

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

    @work(
        thread=True,
        exclusive=True,
        group="branch-switch",
        exit_on_error=False,
        description="switching the branch",
    )
    def branch_switch(self, uuid: str, line: int, *, dry_run: bool, force: bool) -> None:
        from sidtui.core.base.errors import SidtuiError
        from sidtui.core.edits.rewind import SessionIsLive, switch_branch

        try:
            res = switch_branch(self.view, uuid, dry_run=dry_run, force=force)
        except SessionIsLive as exc:
            self.post_message(BranchSwitchPlanned(uuid, line, None, str(exc)))
            return
        except (SidtuiError, OSError, ValueError) as exc:
            self.notify(str(exc), title="branch switch", severity="error", markup=False)
            return
        if dry_run:
            self.post_message(BranchSwitchPlanned(uuid, line, res))
        else:
            self.post_message(BranchSwitched(line, res))

    def on_branch_switched(self, msg: BranchSwitched) -> None:
        res = msg.result
        self.notify(
            f"line {msg.line} is the live tip now ({plural(res.messages_after, 'message')}; "
            f"marker {res.marker_uuid})",
            title="branch switch",
            markup=False,
        )
        self.load(True)

    def on_branch_switch_planned(self, msg: BranchSwitchPlanned) -> None:
        from sidtui.tui.screens.confirm import ConfirmScreen

        uuid, line, res = msg.uuid, msg.line, msg.result
        if msg.live_reason is not None:
            question = f"{msg.live_reason}\n\nSwitch branch anyway (force)?"

            def forced(yes: bool | None) -> None:
                if yes:
                    self.branch_switch(uuid, line, dry_run=False, force=True)

            self.app.push_screen(ConfirmScreen(question, yes="Force switch", danger=True), forced)
            return
        question = (
            f"Make line {line} the live tip?\n"
            f"{plural(len(res.leaving), 'message')} leave the conversation, "
            f"{len(res.joining)} join ({res.messages_before} → {res.messages_after}). "
            "Nothing is deleted: a branch_switch marker is appended."
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self.branch_switch(uuid, line, dry_run=False, force=False)

        self.app.push_screen(ConfirmScreen(question, yes="Switch"), answered)

    def _after_write(self, result) -> None:
        if result:
            self.app.refresh_browser()
            self.load(True)

    def _after_fork(self, result) -> None:
        if result is None:
            return
        self.app.refresh_browser()
        try:
            sf = self.source.file_at(Path(result.path), self.sf.project)
        except (OSError, ValueError) as exc:
            self.notify(f"cannot open the fork: {exc}", severity="warning", markup=False)
            return
        if sf is not None:
            self.app.open_session(sf)

    def command_entries(self):
        """(title, help, callback) for the command palette: what this source can do."""
        salvage = self.source.supports("salvage")
        entries = [
            ("rewind", "Rewind…", "Rewind conversation, code or both to a prompt (Esc Esc, r)"),
            (
                "fork",
                "Fork / salvage…" if salvage else "Fork…",
                "Fork this session at a point (salvage if unloadable) (f)"
                if salvage
                else "Fork this session into a new one (f)",
            ),
            ("fork_branch", "Fork branch…", "Fork the leaf under the Tips cursor (b)"),
            ("repair", "Repair…", "A new session the agent resumes whole (M)"),
            ("undo_preview", "Undo…", "Preview undoing the latest prompt's file edits (u)"),
            ("redo_preview", "Redo…", "Preview taking the last undo or restore back (U)"),
            (
                "restore_before",
                "Restore before checkpoint…",
                "Every file back to before the selected checkpoint (R)",
            ),
            (
                "find",
                "Find in session",
                "Find words in the conversation (/, ctrl+f; Enter/shift+Enter, then n/N)",
            ),
            ("copy_id", "Copy session id", "Copy the session id to the clipboard (c)"),
            ("copy_path", "Copy session path", "Copy the session file's path (c)"),
            ("copy_record", "Copy record JSON", "Copy the selected record's JSON line (c)"),
            (
                "open_record(False)",
                "Open record in $PAGER",
                "The selected record, indented, in your pager (o)",
            ),
            (
                "open_record(True)",
                "Open record in $EDITOR",
                "The selected record in your editor, read-only copy (O)",
            ),
            (
                "expand_all",
                "Expand all",
                "Expand every thinking block, tool call and result (e)",
            ),
            ("collapse_all", "Collapse all", "Collapse every block (E)"),
            ("reload", "Reload session", "Read the file again (ctrl+r)"),
            (
                "switch_branch",
                "Make branch live…",
                "Make the record under the Chain cursor the live tip (b in Chain)",
            ),
            ("back", "Back to browser", "Return to the session list (Esc)"),
        ]
        out = []
        for action, title, help_text in entries:
            name, _, arg = action.partition("(")
            if self.lacks(name):
                continue
            if name == "expand_all":
                out.append(self.follow_command())
            if arg:
                out.append((title, help_text, lambda a=arg: self.action_open_record(a == "True)")))
            else:
                out.append((title, help_text, getattr(self, f"action_{name}")))
        return out + [
            (
                f"Show {t} tab",
                f"Switch to the {t} tab ({i + 1})",
                lambda t=t: self.action_show_tab(t),
            )
            for i, t in enumerate(self.tabs)
        ]

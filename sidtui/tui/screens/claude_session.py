"""A Claude Code session: the conversation its resume loads, its tips, its checkpoints.

The file is read in a thread worker through :meth:`ClaudeSource.open` and
:meth:`ClaudeSource.checkpoints` (what ``sidtui show`` and ``sidtui checkpoints`` call) under
``gc_paused(freeze=True)``; the worker lays the conversation out
(:class:`~sidtui.tui.claude_conversation_model.ClaudeConversationModel`, drawn by the
virtualised :class:`~sidtui.tui.widgets.conversation_view.ConversationView`: blocks are
decoded only when on screen) and posts :class:`~sidtui.tui.messages.ClaudeSessionLoaded`.
The writing keys open sid-code's preview modals on the Claude Code core (``r`` rewind,
``f`` fork, ``b`` fork the branch under the Tips cursor, ``u``/``U``/``R`` undo, redo,
restore; ``u`` in the Checkpoints tab's file list: that file only): a dry run first, then
the same call for real. A file that grows is re-read and the Conversation follows its end
(``t``), as :mod:`sidtui.tui.live_session` does for both sources; ``/`` finds words in the
conversation, ``c`` copies.
"""

from __future__ import annotations

import shlex
import time

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import (
    DataTable,
    Footer,
    Header,
    Input,
    Static,
    TabbedContent,
    TabPane,
)

from sidtui.core.base.gcpause import gc_paused
from sidtui.fmt import BADGES, plural, printable, project_relative
from sidtui.tui.fmt import cell, one_line, plain, short_time
from sidtui.tui.live_session import FOLLOW_BINDING, LiveSessionScreen, load_error_text
from sidtui.tui.messages import (
    ClaudeSessionLoaded,
    RecordFetched,
    SessionLoadFailed,
)
from sidtui.tui.widgets.checkpoints_panel import PATH_CELL, left_cut
from sidtui.tui.widgets.conversation_view import ConversationView, layout
from sidtui.tui.widgets.follow_line import FollowLine
from sidtui.tui.widgets.row_table import RowTable
from sidtui.tui.worker_errors import ReportsWorkerErrors

TABS = ("conversation", "tips", "checkpoints")


def head_lines(view) -> list[str]:
    """What the screen's header says of a :class:`ClaudeSessionView`: the leaf a resume
    picks, how many leaves there are, how the conversation ended — ``live: …`` while a
    Claude Code process writes it, ``… (stale)`` when a dead one left its registration (as
    sid-code's header says)."""
    tips = view.tip_rows
    resume = next((t for t in tips if t["resume"]), None)
    kinds: dict[str, int] = {}
    for t in tips:
        kinds[t["kind"]] = kinds.get(t["kind"], 0) + 1
    leaves = ", ".join(f"{n} {k}" for k, n in kinds.items()) or "none"
    on_resume = f"resume continues from line {resume['line']}" if resume else "nothing to resume"
    kind = view.interruption_kind or "none"
    ended = BADGES.get(kind, (kind, ""))[0]
    if view.interruption_tools:
        ended += " (" + ", ".join(view.interruption_tools) + ")"
    lv = view.liveness
    if lv.live:
        possibly = all(r.possibly for r in lv.registrations if r.live)
        ended = ("possibly live: " if possibly else "live: ") + ended
    elif lv.stale:
        ended += " (stale)"
    return [
        f"Claude Code session {view.session_id} · {plural(len(view.conversation), 'message')}",
        f"{on_resume} · {plural(len(tips), 'tip')}: {leaves} · {ended}",
    ]


def checkpoint_rows(history) -> list[tuple]:
    """``(id, line, time, files, restorable)`` cells of every checkpoint of a ``FileHistory``."""
    rows = []
    for c in history.checkpoints:
        ok = sum(1 for b in c.backups.values() if b.restorable)
        rows.append(
            (
                c.id,
                str(c.line),
                short_time(c.timestamp),
                str(len(c.backups)),
                f"{ok} of {len(c.backups)}",
            )
        )
    return rows


def tip_cells(tip: dict) -> tuple:
    """``(kind, line, messages, records, time, uuid)`` cells of a :func:`branch_tips` row."""
    kind = "resume (picked)" if tip["live"] else tip["kind"]
    return (
        kind,
        str(tip["line"]),
        str(tip["messages"]),
        str(tip["records"]),
        short_time(tip["timestamp"]),
        (tip["uuid"] or "")[:8],
    )


class ClaudeSessionScreen(ReportsWorkerErrors, LiveSessionScreen, Screen):
    """One Claude Code session: Conversation, Tips and Checkpoints tabs.

    Args:
        sf: the ``ClaudeFile``.
        then: ``"fork"`` (the browser's ctrl+s): open the fork dialog once loaded.
        find: words to find in the conversation once loaded (a search hit's query).
        at_line: the file line of the hit: the first match from there is the current one.
    """

    DEFAULT_CSS = """
    ClaudeSessionScreen #claude-head { height: auto; padding: 0 1; }
    ClaudeSessionScreen TabbedContent { height: 1fr; }
    ClaudeSessionScreen TabPane { height: 1fr; padding: 0; }
    ClaudeSessionScreen #claude-conversation { height: 1fr; }
    ClaudeSessionScreen .claude-note { height: auto; padding: 0 1; }
    ClaudeSessionScreen #claude-tips { height: 1fr; }
    ClaudeSessionScreen #claude-ckpt-body { height: 1fr; }
    ClaudeSessionScreen #claude-checkpoints, ClaudeSessionScreen #claude-checkpoint-files {
        height: 1fr; border: round $panel-lighten-2;
    }
    ClaudeSessionScreen #claude-checkpoints { width: 2fr; }
    ClaudeSessionScreen #claude-checkpoint-files { width: 3fr; }
    ClaudeSessionScreen.-narrow #claude-ckpt-body { layout: vertical; }
    ClaudeSessionScreen.-narrow #claude-checkpoints,
    ClaudeSessionScreen.-narrow #claude-checkpoint-files { width: 1fr; }
    ClaudeSessionScreen #claude-checkpoints:focus,
    ClaudeSessionScreen #claude-checkpoint-files:focus {
        border: round $primary; border-title-color: $primary;
    }
    ClaudeSessionScreen #claude-find-bar { display: none; height: 1; background: $panel; }
    ClaudeSessionScreen.-finding #claude-find-bar { display: block; }
    ClaudeSessionScreen #claude-find { width: 1fr; height: 1; border: none; padding: 0 1; }
    ClaudeSessionScreen #claude-find-status {
        width: auto; min-width: 12; height: 1; color: $text-muted; padding: 0 1;
    }
    """

    HELP_NAME = "Claude Code session"  # what the help table calls it
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("backspace", "back", "Back", show=False),
        Binding("r", "rewind", "Rewind"),
        Binding("f", "fork", "Fork"),
        Binding("b", "fork_branch", "Fork branch", show=False),
        Binding("M", "repair", "Repair…", show=False),
        Binding("u", "restore('undo')", "Undo…"),
        Binding("U", "restore('redo')", "Redo…", show=False),
        Binding("R", "restore('restore')", "Restore before…", show=False),
        Binding("slash,ctrl+f", "find", "Find"),
        Binding("n", "find_next(1)", "Next match", show=False),
        Binding("N", "find_next(-1)", "Previous match", show=False),
        Binding("c", "copy", "Copy…", show=False),
        FOLLOW_BINDING,
        Binding("1", "show_tab('conversation')", "Conversation", show=False),
        Binding("2", "show_tab('tips')", "Tips", show=False),
        Binding("3", "show_tab('checkpoints')", "Checkpoints", show=False),
        Binding("ctrl+r", "reload", "Reload", show=False),
    ]
    LOAD_GROUP = "claude-load"

    def __init__(
        self,
        sf,
        *,
        then: str | None = None,
        find: str | None = None,
        at_line: int | None = None,
    ) -> None:
        super().__init__()
        self.sf = sf
        self.then = then
        self.find_query = find
        self.at_line = at_line
        self.view = None
        self.history = None
        self.tips: list[dict] = []
        self.note: str | None = None  # the last note shown
        #: ``time.perf_counter()`` when the conversation's first rows were first drawn
        self.conversation_shown_at: float | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("reading …", id="claude-head")
        with TabbedContent(initial="conversation"):
            with TabPane("Conversation", id="conversation"):
                yield ConversationView(id="claude-conversation")
                yield FollowLine(id="claude-new-records")
            with TabPane("Tips", id="tips"):
                yield Static("", id="claude-tips-note", classes="claude-note")
                yield DataTable(id="claude-tips", cursor_type="row")
            with TabPane("Checkpoints", id="checkpoints"):
                yield Static("", id="claude-checkpoints-note", classes="claude-note")
                with Horizontal(id="claude-ckpt-body"):
                    yield RowTable(id="claude-checkpoints")
                    yield RowTable(id="claude-checkpoint-files")
        with Horizontal(id="claude-find-bar"):
            yield Input(placeholder="find in this session: words…", id="claude-find")
            yield Static("", id="claude-find-status")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = printable(f"{self.sf.session_id} (Claude Code)")
        table = self.query_one("#claude-checkpoints", DataTable)
        for label in ("checkpoint", "line", "time", "files", "restorable"):
            table.add_column(label, key=label)
        table.border_title = "Checkpoints"
        files = self.query_one("#claude-checkpoint-files", DataTable)
        for label in ("file", "before", "note"):
            files.add_column(label, key=label)
        files.border_title = "Files (u: undo the selected file)"
        tips = self.query_one("#claude-tips", DataTable)
        for label in ("tip", "line", "messages", "records", "time", "uuid"):
            tips.add_column(label, key=label)
        self._conv = self.query_one("#claude-conversation", ConversationView)
        self.watch_live(self.query_one(FollowLine))
        self.load()

    # ------------------------------------------------------------------ reading

    @work(
        thread=True,
        exclusive=True,
        group="claude-load",
        exit_on_error=False,
        description="reading the Claude Code session",
    )
    def _load(self, reload: bool, width: int) -> None:
        from textual.worker import get_current_worker

        from sidtui.core.base.errors import SidtuiError
        from sidtui.core.claude.fork import branch_tips
        from sidtui.core.sources import ClaudeSource
        from sidtui.tui.claude_conversation_model import ClaudeConversationModel

        src = ClaudeSource(self.app.claude_home)
        t0 = time.monotonic()
        try:
            st = self.sf.path.stat()
            # the cyclic GC walking millions of new objects would cost more than the read
            with gc_paused(freeze=True):
                view = src.open(self.sf)
                model = ClaudeConversationModel.from_view(view)
                starts = layout(model, width)  # O(messages): here, not in the UI
                tips = branch_tips(view)
        except (SidtuiError, OSError) as exc:
            self.post_message(SessionLoadFailed(load_error_text(self.sf, exc)))
            return
        if get_current_worker().is_cancelled:
            return  # a newer load replaced this one
        try:
            with gc_paused(freeze=True):
                history = src.checkpoints(view)
            rows, why = checkpoint_rows(history), None
        except (SidtuiError, OSError) as exc:
            history, rows, why = None, [], f"cannot read the file history: {exc}"
        self.post_message(
            ClaudeSessionLoaded(
                view,
                head_lines(view),
                model,
                history,
                rows,
                why,
                tips=tips,
                stat=(st.st_size, st.st_mtime_ns),
                reload=reload,
                starts=starts,
                width=width,
                seconds=time.monotonic() - t0,
            )
        )

    def on_claude_session_loaded(self, msg: ClaudeSessionLoaded) -> None:
        self.view, self.history, self.tips = msg.view, msg.history, msg.tips
        self.read_done(msg.stat, msg.seconds)
        self.query_one("#claude-head", Static).update(plain("\n".join(msg.head)))
        conv = self._conv
        conv.set_model(msg.model, keep_position=msg.reload, starts=msg.starts, width=msg.width)
        if not msg.reload:
            self._place_reader(conv)
            self.call_after_refresh(self._shown)
        elif conv.finder is not None:
            conv.find(conv.finder.query)  # new records may hold the words
        self._fill_tips()
        table = self.query_one("#claude-checkpoints", DataTable)
        row = table.cursor_row
        table.clear()
        for r in msg.checkpoints:
            table.add_row(*r, key=r[0])
        if msg.checkpoints:
            table.move_cursor(row=min(row, len(msg.checkpoints) - 1), animate=False)
        self._fill_files()
        note = msg.checkpoints_error or (
            f"{plural(len(msg.checkpoints), 'checkpoint')} (file history): R restores every "
            "file to before the selected one, u undoes the latest prompt (in the file list: "
            "that file only), U redoes"
            if msg.checkpoints
            else "no file checkpoints in this session"
        )
        self.query_one("#claude-checkpoints-note", Static).update(plain(note))
        if self.then:
            then, self.then = self.then, None
            if then == "fork":
                self.action_fork()

    def selected_checkpoint(self):
        """The ``Checkpoint`` under the Checkpoints cursor (None: there are none)."""
        cps = self.history.checkpoints if self.history is not None else []
        if not cps:
            return None
        return cps[min(self.query_one("#claude-checkpoints", DataTable).cursor_row, len(cps) - 1)]

    def selected_file(self) -> str | None:
        """The tracked path under the Files cursor (as the file history keys it)."""
        files = self.query_one("#claude-checkpoint-files", DataTable)
        if not files.row_count:
            return None
        key, _ = files.coordinate_to_cell_key(files.cursor_coordinate)
        return key.value

    @on(DataTable.RowHighlighted, "#claude-checkpoints")
    def _checkpoint_highlighted(self) -> None:
        self._fill_files()

    def _fill_files(self) -> None:
        """The selected checkpoint's files: what Claude Code backed up before that prompt
        (``absent``: the file did not exist; ``✗``: the backup is lost), as ``sidtui
        checkpoints`` lists them."""
        files = self.query_one("#claude-checkpoint-files", DataTable)
        cp = self.selected_checkpoint()
        keep = self.selected_file()
        files.clear()
        if cp is None:
            return
        root = self.view.cwd if self.view is not None else None
        for path, b in cp.backups.items():
            files.add_row(
                cell(left_cut(project_relative(path, root), PATH_CELL)),
                cell(b.label, "" if b.restorable else "red"),
                cell(b.reason or "", "dim"),
                key=path,
            )
        if keep in cp.backups:
            files.move_cursor(row=list(cp.backups).index(keep), animate=False)

    def _fill_tips(self) -> None:
        table = self.query_one("#claude-tips", DataTable)
        row = table.cursor_row
        table.clear()
        for i, t in enumerate(self.tips):
            table.add_row(*tip_cells(t), key=str(i))
        if self.tips:
            table.move_cursor(row=min(row, len(self.tips) - 1), animate=False)
        stranded = sum(1 for t in self.tips if t["kind"] == "branch")
        note = (
            f"{plural(stranded, 'stranded branch', 'stranded branches')}: resume will not "
            "pick them; b forks the selected one into a session of its own"
            if stranded
            else "every leaf of the record tree; b forks the selected one into a new session"
        )
        self.query_one("#claude-tips-note", Static).update(plain(note))

    def _place_reader(self, conv: ConversationView) -> None:
        """A search hit's message (and the words found in it), else the end; a hit off
        the conversation (a stranded branch) shows the Tips tab instead."""
        anchor = self.at_line
        if anchor is not None and not conv.scroll_to_line(anchor):
            self.action_show_tab("tips")
            self.notify(
                f"line {anchor} is not a message of the conversation resume loads (a branch "
                "resume does not pick, or metadata): the Tips tab lists every leaf",
                severity="warning",
                markup=False,
            )
            return
        conv.focus()
        if self.find_query:
            self.query_one("#claude-find", Input).value = self.find_query
            self.set_class(True, "-finding")
            conv.find(self.find_query, anchor_line=anchor)
        elif self.at_line is None:
            conv.action_last()

    def _shown(self) -> None:
        if self.conversation_shown_at is None:
            self.conversation_shown_at = time.perf_counter()

    def on_session_load_failed(self, msg: SessionLoadFailed) -> None:
        self.query_one("#claude-head", Static).update(plain(one_line(msg.error, 300)))
        self.notify(msg.error, title="cannot open session", severity="error", markup=False)

    # ------------------------------------------------------------------ find

    def action_find(self) -> None:
        """Open the find bar (words; Enter: next match, Esc: back to the conversation)."""
        self.action_show_tab("conversation")
        self.set_class(True, "-finding")
        self.query_one("#claude-find", Input).focus()

    @on(Input.Submitted, "#claude-find")
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
            typing = self.focused is self.query_one("#claude-find", Input)
            self.query_one("#claude-find-status", Static).update(event.status(typing))

    def on_descendant_focus(self) -> None:
        self._find_status()  # into or out of the find box: n/N or Enter/shift+Enter

    def on_key(self, event) -> None:
        find = self.query_one("#claude-find", Input)
        if self.focused is find and event.key in ("escape", "down", "up", "shift+enter"):
            event.stop()
            event.prevent_default()
            if event.key == "escape":
                if not find.value.strip():
                    self.set_class(False, "-finding")
                    self._conv.find("")
                self._conv.focus()
            elif event.key == "shift+enter":
                self._conv.find_or_next(find.value.strip(), -1)
            else:
                self._conv.next_match(1 if event.key == "down" else -1)

    def action_find_next(self, direction: int) -> None:
        if not self._conv.next_match(direction):
            self.action_find()

    # ------------------------------------------------------------------ copy

    def action_copy(self) -> None:
        """Ask what to copy: the session id, the file path, or the record of the message
        under the cursor."""
        from sidtui.tui.screens.copy import CopyScreen

        self.app.push_screen(CopyScreen(), self._copy_chosen)

    def _copy_chosen(self, what: str | None) -> None:
        if what == "id":
            self._copied(self.sf.session_id, "session id")
        elif what == "path":
            self._copied(str(self.sf.path), "path")
        elif what == "record":
            if self.view is None or not self.view.conversation:
                self.notify("no message to copy", severity="warning")
                return
            model, cursor = self._conv.model, self._conv.cursor
            e = model.entries[min(cursor, len(model.entries) - 1)] if model else None
            m = self.view.conversation[e.msg if e is not None and e.msg is not None else -1]
            self._fetch_record(m.record)

    def _copied(self, text: str, what: str) -> None:
        self.app.copy_to_clipboard(text)
        self.notify(printable(f"copied the {what}"), markup=False)

    @work(thread=True, group="claude-record", exit_on_error=False, description="reading a record")
    def _fetch_record(self, index: int) -> None:
        from sidtui.core.base.jsonout import dumps_lenient

        rec = self.view.full_record(index)
        line = self.view.scan.lines[index]
        text = dumps_lenient(rec).decode("utf-8", errors="replace")
        self.post_message(RecordFetched(f"line-{line}.json", text, "copy"))

    def on_record_fetched(self, msg: RecordFetched) -> None:
        self._copied(msg.text, f"record of {msg.name.removesuffix('.json')} (JSON)")

    # ------------------------------------------------------------------ writing

    def _require_view(self) -> bool:
        if self.view is None:
            self.notify("the session is still loading", severity="warning")
            return False
        if self.sf.kind != "main":
            self.notify(
                printable(
                    f"a subagent transcript cannot be changed: open its session "
                    f"({self.sf.parent_session_id or 'unknown'})"
                ),
                severity="warning",
                markup=False,
            )
            return False
        return True

    def action_rewind(self) -> None:
        if not self._require_view():
            return
        from sidtui.core.sources import source_for
        from sidtui.tui.screens.rewind import RewindScreen

        self.app.push_screen(RewindScreen(source_for(self.view), self.view), self._after_rewind)

    def action_fork(self) -> None:
        if not self._require_view():
            return
        from sidtui.core.sources import source_for
        from sidtui.tui.screens.fork import ForkScreen

        self.app.push_screen(ForkScreen(source_for(self.view), self.view), self._after_fork)

    def action_repair(self) -> None:
        """`sidtui repair` in the fork dialog: a new session Claude Code resumes whole."""
        if not self._require_view():
            return
        from sidtui.core.sources import source_for
        from sidtui.tui.screens.fork import ForkScreen

        src = source_for(self.view)
        self.app.push_screen(ForkScreen(src, self.view, repair=True), self._after_fork)

    def action_fork_branch(self) -> None:
        """Fork the leaf under the Tips cursor (a stranded branch) into a new session."""
        if not self._require_view():
            return
        table = self.query_one("#claude-tips", DataTable)
        self.action_show_tab("tips")
        if not self.tips:
            self.notify("no leaves to fork", severity="warning")
            return
        tip = self.tips[min(table.cursor_row, len(self.tips) - 1)]
        if tip["live"]:
            self.notify(
                "this is the leaf resume already picks: f forks the whole conversation",
                severity="warning",
            )
            return
        from sidtui.core.sources import source_for
        from sidtui.tui.screens.fork import ForkScreen

        src = source_for(self.view)
        self.app.push_screen(ForkScreen(src, self.view, tip=tip), self._after_fork)

    def action_restore(self, op: str) -> None:
        """Preview ``undo``, ``redo`` or ``restore`` (before the selected checkpoint);
        ``undo`` with the Files list focused undoes only the selected file (``undo --file``)."""
        if not self._require_view():
            return
        if self.history is None or not self.history.checkpoints:
            self.notify("no file checkpoints: nothing to restore", severity="warning")
            return
        from sidtui.core.sources import source_for
        from sidtui.tui.screens.restore_preview import RestorePreviewScreen

        snapshot = path = None
        if op == "undo" and self.focused is self.query_one("#claude-checkpoint-files"):
            path = self.selected_file()
            op = "undo-file" if path is not None else op
        if op == "restore":
            table = self.query_one("#claude-checkpoints", DataTable)
            self.action_show_tab("checkpoints")
            cps = self.history.checkpoints
            snapshot = cps[min(table.cursor_row, len(cps) - 1)].id
        self.app.push_screen(
            RestorePreviewScreen(
                source_for(self.view),
                self.view,
                op,
                snapshot_id=snapshot,
                path=path,
                checkpoints=self.history,
            ),
            self._after_restore,
        )

    def _after_restore(self, wrote) -> None:
        if wrote:
            self.load(True)

    def _after_rewind(self, result) -> None:
        if result is None:
            return
        self.app.refresh_browser()
        self.load(True)

    def _after_fork(self, result) -> None:
        if result is None:
            return
        self.app.refresh_browser()
        from sidtui.core.claude.layout import file_for_path

        try:
            cf = file_for_path(result.path)
        except (OSError, ValueError) as exc:
            self.notify(f"cannot open the fork: {exc}", severity="warning", markup=False)
            return
        self.note = f"forked into {result.session_id}: claude --resume {result.session_id}"
        self.app.open_session(cf)

    def command(self, verb: str) -> str:
        """The CLI command that runs ``verb`` on this session."""
        home = shlex.quote(str(self.app.claude_home.root))
        return f"sidtui {verb} --claude-home {home} {shlex.quote(self.sf.session_id)}"

    # ------------------------------------------------------------------ navigation

    def action_show_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    def action_reload(self) -> None:
        self.load(True)

    def action_back(self) -> None:
        self.app.pop_screen()

    def command_entries(self):
        """(title, help, callback) for the command palette on this screen."""
        return [
            ("Rewind…", "Rewind conversation (new session), code or both (r)", self.action_rewind),
            ("Fork…", "Fork this Claude Code session into a new one (f)", self.action_fork),
            (
                "Fork branch…",
                "Fork the leaf under the Tips cursor into a session of its own (b)",
                self.action_fork_branch,
            ),
            ("Undo…", "Preview undoing the latest prompt's file edits (u)", self.action_undo),
            ("Redo…", "Preview taking the last undo or restore back (U)", self.action_redo),
            (
                "Restore before checkpoint…",
                "Every file back to before the selected checkpoint (R)",
                lambda: self.action_restore("restore"),
            ),
            (
                "Find in session",
                "Find words in the conversation (/, ctrl+f; Enter/shift+Enter, then n/N)",
                self.action_find,
            ),
            ("Copy…", "Copy the session id, path or a record (c)", self.action_copy),
            self.follow_command(),
            ("Reload session", "Read the file again (ctrl+r)", self.action_reload),
            ("Back to browser", "Return to the session list (Esc)", self.action_back),
        ] + [
            (
                f"Show {t} tab",
                f"Switch to the {t} tab ({i + 1})",
                lambda t=t: self.action_show_tab(t),
            )
            for i, t in enumerate(TABS)
        ]

    def action_undo(self) -> None:
        self.action_restore("undo")

    def action_redo(self) -> None:
        self.action_restore("redo")

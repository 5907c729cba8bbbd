"""A Claude Code session, read-only: the conversation its resume loads, and its checkpoints.

The file is read in a thread worker through :meth:`ClaudeSource.open` and
:meth:`ClaudeSource.checkpoints` (what ``sidtui show`` and ``sidtui checkpoints`` call); the
worker builds every line shown and posts :class:`~sidtui.tui.messages.ClaudeSessionLoaded`.
The writing verbs (rewind, fork, undo, restore) are the CLI's for Claude Code sessions: their
keys here say which command to run.
"""

from __future__ import annotations

import shlex

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, RichLog, Static, TabbedContent, TabPane

from sidtui.fmt import BADGES, plural, printable
from sidtui.tui.fmt import one_line, plain, short_time
from sidtui.tui.messages import ClaudeSessionLoaded, SessionLoadFailed
from sidtui.tui.worker_errors import ReportsWorkerErrors

#: Characters of a message's text shown in the conversation.
PREVIEW_CHARS = 400
ROLE_STYLE = {"user": "bold green", "assistant": "bold blue"}


def head_lines(view) -> list[str]:
    """What the screen's header says of a :class:`ClaudeSessionView`: the leaf a resume
    picks, how many leaves there are, how the conversation ended."""
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
    return [
        f"Claude Code session {view.session_id} · {plural(len(view.conversation), 'message')}",
        f"{on_resume} · {plural(len(tips), 'tip')}: {leaves} · {ended}",
    ]


def blocks_line(m) -> str:
    """A message without text in a few words: its tool calls, else its block types."""
    if m.tool_names:
        return "tool use: " + ", ".join(m.tool_names)
    kinds = sorted({str(t) for t in m.block_types})
    return "[" + ", ".join(kinds) + "]" if kinds else "(no content)"


def message_text(m) -> Text:
    """One message of the conversation: line, role, kind, its text cut to a preview (or
    its tool calls)."""
    kind = m.kind + (" (compacted)" if m.compacted else "")
    body = printable(m.preview(PREVIEW_CHARS))
    return Text.assemble(
        (f"{m.line:>6} ", "dim"),
        (m.role, ROLE_STYLE.get(m.role, "bold")),
        (f" {kind}", "dim"),
        (f" {short_time(m.timestamp)}" if m.timestamp else "", "dim"),
        "\n",
        body or (blocks_line(m), "italic"),
        "\n",
    )


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


class ClaudeSessionScreen(ReportsWorkerErrors, Screen):
    """One Claude Code session, read-only: Conversation and Checkpoints tabs.

    Args:
        sf: the ``ClaudeFile``.
        then: ``"fork"`` (the browser's ctrl+s): say how to fork it once loaded.
    """

    DEFAULT_CSS = """
    ClaudeSessionScreen #claude-head { height: auto; padding: 0 1; }
    ClaudeSessionScreen TabbedContent { height: 1fr; }
    ClaudeSessionScreen TabPane { height: 1fr; padding: 0; }
    ClaudeSessionScreen #claude-conversation { height: 1fr; padding: 0 1; }
    ClaudeSessionScreen #claude-checkpoints-note { height: auto; padding: 0 1; }
    ClaudeSessionScreen #claude-checkpoints { height: 1fr; }
    """

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("backspace", "back", "Back", show=False),
        Binding("r", "mutation('rewind')", "Rewind"),
        Binding("f", "mutation('fork')", "Fork"),
        Binding("u", "mutation('undo')", "Undo", show=False),
        Binding("c", "show_tab('checkpoints')", "Checkpoints"),
        Binding("m", "show_tab('conversation')", "Conversation", show=False),
    ]

    def __init__(self, sf, *, then: str | None = None) -> None:
        super().__init__()
        self.sf = sf
        self.then = then
        self.view = None
        self.history = None
        self.note: str | None = None  # the last mutation note shown

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("reading …", id="claude-head")
        with TabbedContent(initial="conversation"):
            with TabPane("Conversation", id="conversation"):
                yield RichLog(id="claude-conversation", wrap=True, markup=False)
            with TabPane("Checkpoints", id="checkpoints"):
                yield Static("", id="claude-checkpoints-note")
                yield DataTable(id="claude-checkpoints", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = printable(f"{self.sf.session_id} (Claude Code)")
        table = self.query_one("#claude-checkpoints", DataTable)
        for label in ("checkpoint", "line", "time", "files", "restorable"):
            table.add_column(label, key=label)
        self._load()

    @work(
        thread=True,
        exclusive=True,
        group="claude-load",
        exit_on_error=False,
        description="reading the Claude Code session",
    )
    def _load(self) -> None:
        from sidtui.core.base.errors import SidtuiError
        from sidtui.core.sources import ClaudeSource

        src = ClaudeSource(self.app.claude_home)
        try:
            view = src.open(self.sf)
        except (SidtuiError, OSError) as exc:
            self.post_message(SessionLoadFailed(str(exc)))
            return
        try:
            history = src.checkpoints(view)
            rows, why = checkpoint_rows(history), None
        except (SidtuiError, OSError) as exc:
            history, rows, why = None, [], f"cannot read the file history: {exc}"
        self.post_message(
            ClaudeSessionLoaded(
                view,
                head_lines(view),
                [message_text(m) for m in view.conversation],
                history,
                rows,
                why,
            )
        )

    def on_claude_session_loaded(self, msg: ClaudeSessionLoaded) -> None:
        self.view, self.history = msg.view, msg.history
        self.query_one("#claude-head", Static).update(plain("\n".join(msg.head)))
        log = self.query_one("#claude-conversation", RichLog)
        log.clear()
        for t in msg.messages:
            log.write(t)
        if not msg.messages:
            log.write(Text("no messages: a resume starts a new conversation", style="dim"))
        table = self.query_one("#claude-checkpoints", DataTable)
        table.clear()
        for row in msg.checkpoints:
            table.add_row(*row, key=row[0])
        note = msg.checkpoints_error or (
            f"{plural(len(msg.checkpoints), 'checkpoint')} (file history); "
            f"restore one with: {self.command('restore')} --before CHECKPOINT"
            if msg.checkpoints
            else "no file checkpoints in this session"
        )
        self.query_one("#claude-checkpoints-note", Static).update(plain(note))
        if self.then:
            self.action_mutation(self.then)
            self.then = None

    def on_session_load_failed(self, msg: SessionLoadFailed) -> None:
        self.query_one("#claude-head", Static).update(plain(one_line(msg.error, 300)))
        self.notify(msg.error, title="cannot open session", severity="error", markup=False)

    def command(self, verb: str) -> str:
        """The CLI command that runs ``verb`` on this session."""
        home = shlex.quote(str(self.app.claude_home.root))
        return f"sidtui {verb} --claude-home {home} {shlex.quote(self.sf.session_id)}"

    def action_mutation(self, verb: str) -> None:
        """Say which CLI command runs ``verb``: the app reads Claude Code sessions only."""
        self.note = f"Claude Code sessions are read-only here: run {self.command(verb)}"
        self.notify(self.note, severity="information", markup=False, timeout=8)

    def action_show_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    def action_back(self) -> None:
        self.app.pop_screen()

    def command_entries(self):
        """(title, help, callback) for the command palette on this screen."""
        return [
            (
                "Rewind (CLI)",
                "How to rewind this Claude Code session",
                lambda: self.action_mutation("rewind"),
            ),
            (
                "Fork (CLI)",
                "How to fork this Claude Code session",
                lambda: self.action_mutation("fork"),
            ),
            (
                "Checkpoints",
                "The file checkpoints of this session (c)",
                lambda: self.action_show_tab("checkpoints"),
            ),
        ]

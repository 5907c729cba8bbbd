"""Rename a session: its new title, written as the agent's own rename does.

The write is :meth:`sidtui.core.sources.base.Source.rename` (what ``sidtui rename`` runs):
append-only, refused on a session a running agent writes unless the person confirms
(then ``force``). The dialog dismisses with the core's
:class:`~sidtui.core.transcript.title.Renamed`, or None when nothing was written.
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from sidtui.fmt import printable
from sidtui.tui.screens.confirm import ConfirmScreen
from sidtui.tui.worker_errors import ReportsWorkerErrors


class RenameDone(Message):
    """The rename worker's answer: the core's result, or why it was refused."""

    def __init__(self, result=None, refusal: str | None = None) -> None:
        super().__init__()
        self.result = result
        self.refusal = refusal


class RenameScreen(ReportsWorkerErrors, ModalScreen):
    """Ask for a session's new title (Enter renames, Esc cancels)."""

    CSS_PATH = "modal.tcss"
    CSS = """
    #rename-box { width: 80; height: auto; }
    #rename-input { margin: 1 0 0 0; }
    #rename-status { height: auto; padding: 0 1; }
    ModalScreen.-narrow #rename-box { width: 100%; height: auto; border: thick $primary; }
    """
    HELP_NAME = "rename dialog"
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self, source, ref, *, session_id: str, title: str | None, live: bool = False
    ) -> None:
        """``ref``: the session's file; ``title``: the one it has (None: none);
        ``live``: a running agent writes it (the rename asks first)."""
        super().__init__()
        self.source = source
        self.ref = ref
        self.session_id = session_id
        self.title = title
        self.live = live

    def compose(self) -> ComposeResult:
        with Vertical(id="rename-box", classes="modal-box"):
            yield Static(
                Text(printable(f"Rename {self.source.label} session {self.session_id}")),
                classes="modal-title",
            )
            now = (
                f"now: “{self.title}”"
                if self.title
                else "no title yet: the list shows its first prompt"
            )
            yield Static(Text(printable(now)), id="rename-now")
            yield Input(value=self.title or "", placeholder="the new title", id="rename-input")
            yield Static("", id="rename-status")
            with Horizontal(classes="modal-buttons"):
                yield Button("Rename (⏎)", id="apply", variant="primary")
                yield Button("Cancel (Esc)", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#rename-input", Input).focus()

    def _say(self, text: str, style: str = "bold red") -> None:
        self.query_one("#rename-status", Static).update(Text(printable(text), style=style))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "apply":
            self.submit()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def submit(self) -> None:
        title = self.query_one("#rename-input", Input).value.strip()
        if not title:
            self._say("a title cannot be empty")
            return
        if title == (self.title or ""):
            self.dismiss(None)
            return
        if self.live:
            self.app.push_screen(
                ConfirmScreen(
                    f"{self.session_id} is being written by a running "
                    f"{self.source.label}: its title could change under it.\n\n"
                    "Rename it anyway (force)?",
                    yes="Force rename",
                    danger=True,
                ),
                lambda yes: self._rename(title, True) if yes else self._say("not renamed"),
            )
            return
        self._rename(title, False)

    def _rename(self, title: str, force: bool) -> None:
        self.query_one("#apply", Button).disabled = True
        self._say("renaming …", "dim")
        self._write(title, force)

    @work(thread=True, exclusive=True, exit_on_error=False, description="renaming the session")
    def _write(self, title: str, force: bool) -> None:
        from sidtui.core.base.errors import SidtuiError

        try:
            res = self.source.rename(self.ref, title, force=force)
        except (SidtuiError, OSError) as exc:
            self.post_message(RenameDone(refusal=str(exc)))
            return
        self.post_message(RenameDone(res))

    def on_rename_done(self, msg: RenameDone) -> None:
        if msg.refusal is None:
            self.dismiss(msg.result)
            return
        self._say(f"Refused: {msg.refusal}")
        self.query_one("#apply", Button).disabled = False

    def worker_failed(self, worker, error: BaseException) -> None:
        self.query_one("#apply", Button).disabled = False
        super().worker_failed(worker, error)

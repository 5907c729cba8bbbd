"""A yes/no question as a modal: nothing is written without one of these."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from sidtui.fmt import printable


class ConfirmScreen(ModalScreen[bool]):
    """Ask ``question``; dismiss with True (``y``/Yes) or False (``n``/Esc/No).

    A ``str`` question is shown literally (it quotes reasons and paths from the session);
    pass a ``Text`` for styling.
    """

    CSS_PATH = "modal.tcss"
    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str | Text, *, yes: str = "Yes", danger: bool = False) -> None:
        super().__init__()
        self.question = question
        self.yes = yes
        self.danger = danger

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="modal-box"):
            q = self.question
            yield Static(Text(q) if isinstance(q, str) else q, id="confirm-question")
            with Horizontal(classes="modal-buttons"):
                yield Button(self.yes, id="yes", variant="error" if self.danger else "primary")
                yield Button("No", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


def ask_force(screen, reason: str | None, verb: str, summary: str, run) -> None:
    """A live session refused a write: ask whether to force it. Yes calls ``run()``; no
    says the refusal in the ``summary`` widget (a ``Static`` id) and enables ``#apply``."""

    def answered(yes: bool | None) -> None:
        if yes:
            run()
            return
        screen.query_one(summary, Static).update(
            Text(printable(f"Refused: {reason}"), style="bold red")
        )
        screen.query_one("#apply", Button).disabled = False

    screen.app.push_screen(
        ConfirmScreen(
            f"{reason}\n\n{verb} anyway (force)? The running agent may overwrite it.",
            yes=f"Force {verb.lower()}",
            danger=True,
        ),
        answered,
    )

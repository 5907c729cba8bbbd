"""Copy (``c`` on the Session screen): what to put on the clipboard."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

CHOICES = (
    ("id", "i", "the session id"),
    ("path", "p", "the session file's path"),
    ("record", "r", "the selected record's JSON line"),
)


class CopyScreen(ModalScreen[str | None]):
    """Dismisses with ``"id"``, ``"path"``, ``"record"``, or None (Esc)."""

    CSS_PATH = "modal.tcss"
    BINDINGS = [
        Binding("escape", "dismiss_copy", "Cancel"),
        *(
            Binding(key, f"choose('{what}')", f"Copy {label}", show=False)
            for what, key, label in CHOICES
        ),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="copy-box", classes="modal-box"):
            yield Static("Copy to the clipboard", classes="modal-title")
            yield OptionList(
                *(Option(f"{key}  {label}", id=what) for what, key, label in CHOICES),
                id="copy-choices",
            )

    def on_mount(self) -> None:
        self.query_one("#copy-choices", OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_choose(self, what: str) -> None:
        self.dismiss(what)

    def action_dismiss_copy(self) -> None:
        self.dismiss(None)

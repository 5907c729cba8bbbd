"""Help (``?``): every key binding of the screen underneath, its focused widget and the app."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Static

from sidtui.tui.fmt import cell


def bindings_of(obj, own_only: bool = True) -> list[Binding]:
    """Bindings declared on ``obj``'s classes (only sidtui's own when ``own_only``: the
    generic scrolling keys of Textual's base widgets would bury the useful ones)."""
    out = []
    for cls in type(obj).__mro__:
        if own_only and not cls.__module__.startswith("sidtui."):
            continue
        for b in cls.__dict__.get("BINDINGS", []):
            if isinstance(b, tuple):
                b = Binding(*b)
            out.append(b)
    return out


class HelpScreen(ModalScreen[None]):
    """A table of every binding that applies where ``?`` was pressed."""

    CSS_PATH = "modal.tcss"
    BINDINGS = [Binding("escape,q,question_mark", "dismiss_help", "Close")]

    def __init__(self, under: Screen) -> None:
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            yield Static(
                f"Keys — {type(self.under).__name__.removesuffix('Screen')}", classes="modal-title"
            )
            yield DataTable(id="help-table", cursor_type="row", zebra_stripes=True)
            yield Static(
                "Mouse works everywhere; ctrl+p opens the command palette with every action.",
                classes="modal-summary",
            )

    def on_mount(self) -> None:
        t = self.query_one("#help-table", DataTable)
        t.add_column("where", key="where")
        t.add_column("key", key="key")
        t.add_column("does", key="does")
        seen = set()
        sources = [("screen", self.under)]
        focused = self.under.focused
        node = focused
        while node is not None and node is not self.under:
            sources.append((type(node).__name__, node))
            node = node.parent
        sources.append(("app", self.app))
        t.add_row("app", "^p", "Command palette (every action)")
        for where, obj in sources:
            for b in bindings_of(obj, own_only=obj is not self.app):
                # the footer's short word, or the longer tooltip where a binding has one
                desc = b.tooltip or b.description or b.action.replace("_", " ")
                key, does = (b.key, desc), (b.key, b.action)  # a base class's same binding
                skip = b.action.startswith("noop") or b.action == "help_quit"
                if skip or key in seen or does in seen:
                    continue
                seen.update((key, does))
                keys = ", ".join(
                    self.app.get_key_display(Binding(k.strip(), b.action)) for k in b.key.split(",")
                )
                t.add_row(where, cell(keys), cell(desc))  # keys like '[' are literal
        t.focus()

    def action_dismiss_help(self) -> None:
        self.dismiss(None)

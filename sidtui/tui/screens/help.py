"""Help (``?``): every key binding of the screen underneath, its focused widget and the app."""

from __future__ import annotations

import re

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Static

from sidtui.tui.fmt import cell, plain


def help_name(obj) -> str:
    """What ``obj`` is, in words, for the help table: its class's ``HELP_NAME`` (a screen:
    "session browser"; a pane: "conversation"), else its class name split into lower-case
    words without ``Screen``/``View`` ("restore preview") — never a bare class name."""
    name = getattr(obj, "HELP_NAME", None)
    if isinstance(name, str) and name:
        return name
    words = re.findall(r"[A-Z][a-z0-9]*|[a-z0-9]+", type(obj).__name__)
    words = [w.lower() for w in words if w not in ("Screen", "View", "Widget")]
    return " ".join(words) or "pane"


def bindings_of(obj, own_only: bool = True) -> list[Binding]:
    """Bindings declared on ``obj``'s classes (only sidtui's own when ``own_only``: the
    generic scrolling keys of Textual's base widgets would bury the useful ones), less
    those for what ``obj`` lacks (``lacks``: a session whose source has no such thing)."""
    out = []
    for cls in type(obj).__mro__:
        if own_only and not cls.__module__.startswith("sidtui."):
            continue
        for b in cls.__dict__.get("BINDINGS", []):
            if isinstance(b, tuple):
                b = Binding(*b)
            if own_only and not applies(obj, b):
                continue
            out.append(b)
    return out


def applies(obj, b: Binding) -> bool:
    """``obj`` does not lack what ``b`` does (its ``lacks(action, parameters)``)."""
    from textual.actions import ActionError, parse

    lacks = getattr(obj, "lacks", None)
    if lacks is None:
        return True
    try:
        destination, name, params = parse(b.action)
    except ActionError:
        return True
    if destination:
        return True  # another node's action (``screen.…``, ``app.…``)
    return not lacks(name, params)


class HelpScreen(ModalScreen[None]):
    """A table of every binding that applies where ``?`` was pressed."""

    CSS_PATH = "modal.tcss"
    BINDINGS = [Binding("escape,q,question_mark", "dismiss_help", "Close")]

    def __init__(self, under: Screen) -> None:
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            yield Static(f"Keys — {help_name(self.under)}", classes="modal-title")
            yield DataTable(id="help-table", cursor_type="row", zebra_stripes=True)
            yield Static(
                plain(
                    "\n".join(
                        [
                            *getattr(self.app, "notices", ()),
                            "Mouse works everywhere; ctrl+p opens the command palette with "
                            "every action.",
                        ]
                    )
                ),
                classes="modal-summary",
            )

    def on_mount(self) -> None:
        t = self.query_one("#help-table", DataTable)
        t.add_column("where", key="where")
        t.add_column("key", key="key")
        t.add_column("does", key="does")
        sources = [("screen", self.under)]
        node = self.under.focused
        while node is not None and node is not self.under:
            sources.append((help_name(node), node))
            node = node.parent
        sources.append(("app", self.app))
        listed = [
            (where, obj, bindings_of(obj, own_only=obj is not self.app)) for where, obj in sources
        ]
        # Who a key reaches, as Textual dispatches it: the focused widget, its parents, the
        # screen, the app. A key listed twice would name what it does not do.
        owner: dict[str, int] = {}
        for _, _, bs in [*listed[1:-1], listed[0], listed[-1]]:
            for b in bs:
                for k in b.key.split(","):
                    owner.setdefault(k.strip(), id(b))
        seen: set = set()
        t.add_row("app", "^p", "Command palette (every action)")
        for where, _, bs in listed:
            for b in bs:
                # the footer's short word, or the longer tooltip where a binding has one
                desc = b.tooltip or b.description or b.action.replace("_", " ")
                key, does = (b.key, desc), (b.key, b.action)  # a base class's same binding
                skip = b.action.startswith("noop") or b.action == "help_quit"
                free = [k.strip() for k in b.key.split(",") if owner.get(k.strip()) == id(b)]
                if skip or not free or key in seen or does in seen:
                    continue  # (not free: every key of it does something nearer)
                seen.update((key, does))
                keys = ", ".join(self.app.get_key_display(Binding(k, b.action)) for k in free)
                t.add_row(where, cell(keys), cell(desc))  # keys like '[' are literal
        t.focus()

    def action_dismiss_help(self) -> None:
        self.dismiss(None)

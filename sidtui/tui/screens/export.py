"""Export the open session (ctrl+e, the palette's "Export session"): a dialog that writes it
as HTML, Markdown or JSON (:mod:`sidtui.core.export`) from a worker, then offers to open
the page in the browser (:mod:`webbrowser`) or the Markdown in ``$PAGER`` (the app
suspended meanwhile).

The session is the one the current screen shows (its ``view`` and ``sf``: the model and
the file it was read from), whatever agent wrote it: the source is found by the model's
``source`` name (:func:`sidtui.core.sources.by_name`).
"""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from sidtui.core.base.errors import SidtuiError

FORMAT_NAMES = {"html": "HTML page", "md": "Markdown", "json": "JSON"}


@dataclass
class ExportWritten(Message):
    """The export is written: where, in which format, how many messages."""

    path: Path
    fmt: str
    messages: int
    lost: int


@dataclass
class ExportFailed(Message):
    """The export could not be written (one line, for the dialog)."""

    error: str


def source_for(model: Any, ref: Any) -> Any:
    """The source that reads ``model``'s agent, on the home it was read from."""
    from sidtui.core.sources import by_name

    home = getattr(model, "home", None)
    root = home.root if home is not None else ref.path.parent
    return by_name(model.source).resolve_home(str(root), {})


def open_export(app: Any) -> None:
    """Push the export dialog for the session on screen (a notice when there is none)."""
    screen = app.screen
    model, ref = getattr(screen, "view", None), getattr(screen, "sf", None)
    if model is None or ref is None or not hasattr(model, "conversation_items"):
        app.notify("Open a session to export it", severity="warning")
        return
    app.push_screen(ExportScreen(source_for(model, ref), ref, model, Path.cwd()))


def run_pager(app: Any, path: Path) -> None:
    """Show ``path`` in ``$PAGER`` (else ``less``) with the app suspended."""
    pager = shlex.split(os.environ.get("PAGER") or "less") or ["less"]
    with app.suspend():
        subprocess.run([*pager, str(path)], check=False)


class ExportScreen(ModalScreen[None]):
    """Pick a format and a file, write it, then open it (see the module docstring)."""

    CSS_PATH = "modal.tcss"
    DEFAULT_CSS = """
    #export-box { width: 90; height: auto; max-height: 24; }
    #export-status { padding: 1 0; height: auto; }
    """
    BINDINGS = [Binding("escape", "close", "Close")]

    def __init__(self, source: Any, ref: Any, model: Any, folder: Path) -> None:
        super().__init__()
        self.source, self.ref, self.model = source, ref, model
        self.folder = folder
        self.fmt = "html"
        self.written: Path | None = None

    def _default_path(self) -> Path:
        from sidtui.core.export import SUFFIX
        from sidtui.core.export.files import file_stem

        return self.folder / (file_stem(self.ref.session_id) + SUFFIX[self.fmt])

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box", classes="modal-box"):
            yield Static(Text(f"Export session {self.ref.session_id}"), id="export-title")
            with Horizontal(classes="modal-buttons"):
                for fmt, name in FORMAT_NAMES.items():
                    yield Button(
                        name, id=f"fmt-{fmt}", variant="primary" if fmt == "html" else "default"
                    )
            yield Input(str(self._default_path()), id="export-path")
            yield Static("", id="export-status")
            with Horizontal(classes="modal-buttons"):
                yield Button("Export", id="export-go", variant="success")
                yield Button("Open", id="export-open", disabled=True)
                yield Button("Close", id="export-close")

    def on_mount(self) -> None:
        self.query_one("#export-go", Button).focus()

    def _status(self, text: str) -> None:
        self.query_one("#export-status", Static).update(Text(text))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        bid = event.button.id or ""
        if bid.startswith("fmt-"):
            self.pick(bid[4:])
        elif bid == "export-go":
            self.action_export()
        elif bid == "export-open":
            self.action_open()
        elif bid == "export-close":
            self.action_close()

    @on(Input.Submitted, "#export-path")
    def _submitted(self) -> None:
        self.action_export()

    def pick(self, fmt: str) -> None:
        """Choose ``fmt``; the path's suffix follows unless the user typed another name."""
        old = self._default_path()
        self.fmt = fmt
        for f in FORMAT_NAMES:
            self.query_one(f"#fmt-{f}", Button).variant = "primary" if f == fmt else "default"
        box = self.query_one("#export-path", Input)
        if Path(box.value) == old:
            box.value = str(self._default_path())

    def action_export(self) -> None:
        path = Path(self.query_one("#export-path", Input).value).expanduser()
        self._status(f"writing {path} …")
        self.query_one("#export-open", Button).disabled = True
        self._write(self.fmt, path)

    @work(
        thread=True,
        exclusive=True,
        group="export",
        exit_on_error=False,
        description="writing the export",
    )
    def _write(self, fmt: str, path: Path) -> None:
        from sidtui.core.export import Document, session_usages
        from sidtui.core.export.files import export_file

        usage = None
        if self.ref.kind == "main":
            try:
                usage = session_usages(self.source, self.ref.project or None).get(
                    self.ref.session_id
                )
            except (SidtuiError, OSError):
                usage = None  # the export says nothing of cost rather than fail
        try:
            doc = Document(self.source, self.model, usage)
            tally = export_file(doc, fmt, path)
        except (SidtuiError, OSError) as exc:
            self.post_message(ExportFailed(f"cannot write {path}: {exc}"))
            return
        self.post_message(ExportWritten(path, fmt, tally.messages, tally.lost))

    def on_export_written(self, msg: ExportWritten) -> None:
        self.written = msg.path
        self._status(
            f"wrote {msg.path} ({msg.messages:,} messages, {msg.lost:,} not loaded on resume)"
        )
        opener = {"html": "Open in browser", "md": "Open in pager"}.get(msg.fmt)
        button = self.query_one("#export-open", Button)
        if opener is not None:
            button.label = opener
            button.disabled = False
            button.focus()

    def on_export_failed(self, msg: ExportFailed) -> None:
        self._status(msg.error)

    def action_open(self) -> None:
        path = self.written
        if path is None:
            return
        if path.suffix == ".html":
            import webbrowser

            if not webbrowser.open(path.resolve().as_uri()):
                self.notify(f"no browser to open {path}", severity="warning", markup=False)
        else:
            from textual.app import SuspendNotSupported

            try:
                run_pager(self.app, path)
            except SuspendNotSupported:
                self.notify("this terminal cannot hand over to a pager", severity="warning")
            except OSError as exc:
                self.notify(f"cannot run the pager: {exc}", severity="warning", markup=False)

    def action_close(self) -> None:
        self.dismiss(None)

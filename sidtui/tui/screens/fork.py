"""Fork (``f``): pick a point (default: the end), confirm, jump to the new session.

For a session the agent cannot load the same key offers **Salvage**: a preview of what
:func:`sidtui.core.edits.fork.salvage` would copy and leave out, then a confirmed write. Both
write a *new* session file; the source is never changed.
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Static

from sidtui.tui.fmt import cell, one_line, plain, short_time


class ForkScreen(ModalScreen):
    """Fork or salvage; dismisses with the ``ForkResult`` (None when cancelled)."""

    CSS_PATH = "modal.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("y", "apply", "Confirm")]

    class Done(Message):
        def __init__(self, result, error: str | None = None, preview: bool = False) -> None:
            super().__init__()
            self.result = result
            self.error = error
            self.preview = preview

    def __init__(self, view) -> None:
        super().__init__()
        self.view = view
        self.salvage = view.file.kind == "main" and not view.loaded.loadable
        self.points = []

    def compose(self) -> ComposeResult:
        verb = "Salvage" if self.salvage else "Fork"
        with Vertical(classes="modal-box"):
            yield Static(plain(f"{verb} {self.view.session_id}"), classes="modal-title")
            yield Static("", id="fork-summary", classes="modal-summary")
            if not self.salvage:
                yield DataTable(id="fork-points", cursor_type="row")
            with Horizontal(classes="modal-buttons"):
                yield Button(f"{verb} (y)", id="apply", variant="primary")
                yield Button("Cancel (Esc)", id="cancel")

    def on_mount(self) -> None:
        summary = self.query_one("#fork-summary", Static)
        if self.salvage:
            summary.update(
                Text(
                    "The agent cannot load this session. Salvage writes a loadable copy "
                    "as a new session; the file itself is not changed.\ncomputing…"
                )
            )
            self.run(dry_run=True)
            return
        from sidtui.core.edits.points import rewind_points

        self.points = rewind_points(self.view)
        t = self.query_one("#fork-points", DataTable)
        for c in ("point", "time", "fork ends before this prompt"):
            t.add_column(c)
        t.add_row("end", "", "the whole session (default)", key="end")
        for p in reversed(self.points):
            t.add_row(
                str(p.id),
                short_time(p.timestamp)[11:],
                cell(one_line(p.preview, 60)),
                key=str(p.id),
            )
        t.focus()
        summary.update(
            "A new session gets the history up to the chosen point; its checkpoints are "
            "inherited. The source is not changed."
        )

    def selected_point(self):
        if self.salvage:
            return None
        t = self.query_one("#fork-points", DataTable)
        if t.cursor_row <= 0:
            return None
        return list(reversed(self.points))[t.cursor_row - 1]

    @work(thread=True, exclusive=True, group="fork")
    def run(self, dry_run: bool, point=None) -> None:
        from sidtui.core.base.errors import SidtuiError
        from sidtui.core.edits.fork import fork
        from sidtui.core.edits.salvage import salvage

        try:
            if self.salvage:
                res = salvage(self.view, dry_run=dry_run)
            else:
                res = fork(self.view, point, dry_run=dry_run)
        except (SidtuiError, OSError, ValueError) as exc:
            self.post_message(self.Done(None, str(exc)))
            return
        self.post_message(self.Done(res, preview=dry_run))

    def on_fork_screen_done(self, msg: Done) -> None:
        summary = self.query_one("#fork-summary", Static)
        if msg.error:
            summary.update(Text(msg.error, style="bold red"))
            self.notify(msg.error, severity="error", markup=False)
            return
        res = msg.result
        if msg.preview:
            lo = res.left_out or {}
            t = Text(
                f"Salvage copies {res.message_count} messages ({res.records_copied} records).\n"
            )
            if lo:
                t.append(
                    f"left out: {len(lo.get('badLines', []))} bad line(s), "
                    f"{lo.get('recordsNotCopied', 0)} record(s) off the salvaged chain, "
                    f"{len(lo.get('joins', []))} join(s)\n",
                    style="yellow",
                )
            for b in lo.get("badLines", [])[:5]:
                t.append(f"  line {b.get('line')}: {b.get('reason')}\n", style="dim")
            summary.update(t)
            return
        verb = "salvaged" if self.salvage else "forked"
        self.notify(
            f"{verb} into {res.session_id} ({res.message_count} messages)", title=verb, markup=False
        )
        self.dismiss(res)

    def action_apply(self) -> None:
        self.query_one("#apply", Button).disabled = True
        self.run(False, self.selected_point())

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "apply":
            self.action_apply()
        else:
            self.action_cancel()

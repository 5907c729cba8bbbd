"""Fork (``f``): pick a point (default: the end), confirm, jump to the new session.

For a session the agent cannot load the same key offers **Salvage**: a preview of what
:func:`sidtui.core.edits.salvage.salvage` would copy and leave out, then a confirmed write. Both
write a *new* session file; the source is never changed.
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Static

from sidtui.fmt import plural, printable
from sidtui.tui.fmt import cell, one_line, plain, short_time
from sidtui.tui.messages import ForkComputed, RewindPointsListed
from sidtui.tui.widgets.row_table import RowTable
from sidtui.tui.worker_errors import ReportsWorkerErrors


class ForkScreen(ReportsWorkerErrors, ModalScreen):
    """Fork or salvage; dismisses with the ``ForkResult`` (None when cancelled)."""

    CSS_PATH = "modal.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("y", "apply", "Confirm")]

    def __init__(self, view) -> None:
        super().__init__()
        self.view = view
        self.salvage = self.can_salvage(view)
        self.points = []

    #: What the fork takes along (the summary's words).
    FORK_NOTE = (
        "A new session gets the history up to the chosen point; its checkpoints are "
        "inherited. The source is not changed."
    )

    @staticmethod
    def can_salvage(view) -> bool:
        """The agent cannot load ``view``: the key offers a salvage instead of a fork."""
        return view.file.kind == "main" and not view.loaded.loadable

    def compose(self) -> ComposeResult:
        verb = "Salvage" if self.salvage else "Fork"
        with Vertical(classes="modal-box"):
            yield Static(plain(f"{verb} {self.view.session_id}"), classes="modal-title")
            yield Static("", id="fork-summary", classes="modal-summary")
            if not self.salvage:
                yield RowTable(id="fork-points")
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
        t = self.query_one("#fork-points", DataTable)
        for c in ("point", "time", "fork ends before this prompt"):
            t.add_column(c)
        t.add_row("end", "", "the whole session (default)", key="end")
        t.focus()
        summary.update(self.FORK_NOTE)
        self._list_points(self.view)

    @work(
        thread=True,
        exclusive=True,
        group="fork-points",
        exit_on_error=False,
        description="listing the fork points",
    )
    def _list_points(self, view) -> None:
        from sidtui.core.edits.points import rewind_points

        self.post_message(RewindPointsListed(rewind_points(view)))

    def on_rewind_points_listed(self, msg: RewindPointsListed) -> None:
        self.points = msg.points
        t = self.query_one("#fork-points", DataTable)
        for p in reversed(self.points):
            t.add_row(
                str(p.id),
                short_time(p.timestamp)[11:],
                cell(one_line(p.preview, 60)),
                key=str(p.id),
            )

    def selected_point(self):
        if self.salvage:
            return None
        t = self.query_one("#fork-points", DataTable)
        if t.cursor_row <= 0:
            return None
        return list(reversed(self.points))[t.cursor_row - 1]

    @work(thread=True, exclusive=True, group="fork", exit_on_error=False, description="forking")
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
            self.post_message(ForkComputed(None, str(exc)))
            return
        self.post_message(ForkComputed(res, preview=dry_run))

    def on_fork_computed(self, msg: ForkComputed) -> None:
        summary = self.query_one("#fork-summary", Static)
        if msg.error:
            summary.update(Text(printable(msg.error), style="bold red"))
            self.query_one("#apply", Button).disabled = False
            self.notify(msg.error, severity="error", markup=False)
            return
        res = msg.result
        if msg.preview and res.resumed:  # a real run only finishes an interrupted copy
            summary.update(Text(printable(f"{res.warnings[0]}."), style="bold yellow"))
            return
        if msg.preview:
            lo = res.left_out or {}
            t = Text(
                f"Salvage copies {plural(res.message_count, 'message')} "
                f"({plural(res.records_copied, 'record')}).\n"
            )
            if lo:
                t.append(
                    f"left out: {len(lo.get('badLines', []))} bad line(s), "
                    f"{lo.get('recordsNotCopied', 0)} record(s) off the salvaged chain, "
                    f"{len(lo.get('joins', []))} join(s)\n",
                    style="yellow",
                )
            for b in lo.get("badLines", [])[:5]:
                t.append(printable(f"  line {b.get('line')}: {b.get('reason')}\n"), style="dim")
            summary.update(t)
            return
        verb = "salvaged" if self.salvage else "forked"
        self.notify(
            f"{verb} into {res.session_id} ({plural(res.message_count, 'message')})",
            title=verb,
            markup=False,
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

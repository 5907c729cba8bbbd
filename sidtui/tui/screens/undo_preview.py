"""Undo preview (``u`` in Checkpoints): the diffs of what ``/undo`` would do, then confirm.

Both steps go through :class:`sidtui.core.checkpoints.manager.CheckpointManager`: ``undo`` (the
latest agent batch not yet rolled back), ``undo_file`` (one file) or ``restore_before``
(every file back to before the selected snapshot, ``R``) with ``dry_run=True``
for the preview, then the same call for real after the user confirms. The result names the
``sidtui-restore`` safety snapshot that takes it back.
"""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Static

from sidtui.fmt import printable
from sidtui.tui.fmt import cell, plain
from sidtui.tui.widgets.diff_view import DiffData, DiffView


def _text(b: bytes | None) -> str:
    return b.decode("utf-8", errors="replace") if b else ""


class UndoPreviewScreen(ModalScreen[bool]):
    """Preview then apply an undo of the latest batch (or of one file)."""

    CSS_PATH = "modal.tcss"
    BINDINGS = [
        Binding("y", "apply", "Undo"),
        Binding("escape", "cancel", "Cancel"),
        Binding("n", "next_hunk", "Next hunk", show=False),
    ]

    class Planned(Message):
        def __init__(self, result, error: str | None = None, applied: bool = False) -> None:
            super().__init__()
            self.result = result
            self.error = error
            self.applied = applied

    def __init__(self, manager, path: str | None = None, snapshot_id: str | None = None) -> None:
        super().__init__()
        self.manager = manager
        self.path = path
        self.snapshot_id = snapshot_id
        self.plan = None
        self.applied = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            if self.snapshot_id:
                what = f"every file back to before {self.snapshot_id}"
            elif self.path:
                what = f"one file: {self.path}"
            else:
                what = "the latest agent batch"
            yield Static(plain(f"Undo preview — {what}"), classes="modal-title")
            yield Static("computing…", id="undo-summary", classes="modal-summary")
            yield DataTable(id="undo-files", cursor_type="row")
            yield DiffView(id="undo-diff")
            with Horizontal(classes="modal-buttons"):
                yield Button("Undo (y)", id="apply", variant="error", disabled=True)
                yield Button("Cancel (Esc)", id="cancel")

    def on_mount(self) -> None:
        t = self.query_one("#undo-files", DataTable)
        for c in ("action", "file", "reason"):
            t.add_column(c, key=c)
        self.compute(dry_run=True)

    @work(thread=True, exclusive=True, group="undo")
    def compute(self, dry_run: bool) -> None:
        from sidtui.core.base.errors import SidtuiError

        try:
            if self.snapshot_id:
                res = self.manager.restore_before(self.snapshot_id, dry_run=dry_run)
            elif self.path:
                res = self.manager.undo_file(self.path, dry_run=dry_run)
            else:
                res = self.manager.undo(dry_run=dry_run)
        except (SidtuiError, OSError, ValueError) as exc:
            self.post_message(self.Planned(None, str(exc)))
            return
        self.post_message(self.Planned(res, applied=not dry_run))

    def on_undo_preview_screen_planned(self, msg: Planned) -> None:
        summary = self.query_one("#undo-summary", Static)
        if msg.error:
            summary.update(Text(printable(msg.error), style="bold red"))
            self.notify(msg.error, severity="error", markup=False)
            return
        res = msg.result
        if msg.applied:
            self.applied = True
            lines = [
                f"Done: {len(res.changed)} file(s) restored, {len(res.skipped)} skipped.",
                f"Safety snapshot {res.safety_snapshot_id} holds the contents before the undo "
                "(redo takes it back)."
                if res.safety_snapshot_id
                else (res.note or ""),
            ]
            summary.update(plain("\n".join(x for x in lines if x)))
            self.query_one("#apply", Button).disabled = True
            self.query_one("#cancel", Button).label = "Close (Esc)"
            self.notify(lines[0], title="undo", markup=False)
            return
        self.plan = res
        t = self.query_one("#undo-files", DataTable)
        t.clear()
        for f in res.files:
            style = {"restored": "yellow", "deleted": "red", "skipped": "dim"}.get(f.action, "")
            t.add_row(Text(f.action, style=style), cell(f.path), cell(f.reason), key=f.path)
        reverts = ", ".join(res.reverts) if res.reverts else "—"
        if res.note and not res.files:
            summary.update(plain(res.note))
        else:
            summary.update(
                plain(
                    f"Rolls back {reverts} (from {res.target_snapshot_id}): {len(res.changed)} file(s) "
                    f"change, {len(res.skipped)} skipped. A safety snapshot is written first."
                )
            )
        self.query_one("#apply", Button).disabled = not res.changed
        self._show_file(0)

    @on(DataTable.RowHighlighted, "#undo-files")
    def _file_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_file(event.cursor_row)

    def _show_file(self, row: int) -> None:
        if self.plan is None or not self.plan.files:
            return
        f = self.plan.files[min(row, len(self.plan.files) - 1)]
        title = f"{f.path}  now → after undo ({f.action})"
        self.query_one("#undo-diff", DiffView).show(
            DiffData.build(title, _text(f.old), _text(f.new), f.path, self.app.current_theme.dark)
        )

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "apply":
            self.action_apply()
        else:
            self.action_cancel()

    def action_apply(self) -> None:
        if self.applied or self.plan is None or not self.plan.changed:
            return
        self.query_one("#apply", Button).disabled = True
        self.compute(dry_run=False)

    def action_cancel(self) -> None:
        self.dismiss(self.applied)

    def action_next_hunk(self) -> None:
        self.query_one("#undo-diff", DiffView).action_hunk(1)

"""The Checkpoints tab of a source whose checkpoints are a file history (``file-history``
in :attr:`~sidtui.core.sources.base.Source.views`: a backup of each file the agent edits,
taken before each prompt): the checkpoints, the files of the selected one, and the diff of
the selected file, as the snapshots' tab has it
(:class:`~sidtui.tui.widgets.checkpoints_panel.CheckpointsPanel`): the file before that
prompt against its backup at the next checkpoint that has it, or the file on disk now when
none does (``d`` switches to "vs disk now" at any time); ``n`` / ``p`` / ``s`` drive the
diff from anywhere in the tab.

The session screen reads the history in its load worker
(:meth:`~sidtui.core.sources.base.Source.checkpoints`) and hands it down
(:meth:`FileHistoryPanel.show`); ``R`` restores every file to before the selected
checkpoint, ``u`` undoes the latest prompt (with the file list focused: that file only),
``U`` redoes (the screen's restore dialog).
"""

from __future__ import annotations

from textual import on
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Static

from sidtui.fmt import plural, project_relative
from sidtui.tui.fmt import cell, plain, short_time
from sidtui.tui.messages import DiffComputed
from sidtui.tui.widgets.checkpoints_panel import (
    PATH_CELL,
    as_text,
    diff_worker,
    disk_now,
    left_cut,
)
from sidtui.tui.widgets.diff_view import DiffData, DiffPane, DiffView
from sidtui.tui.widgets.row_table import RowTable
from sidtui.tui.worker_errors import ReportsWorkerErrors


def checkpoint_rows(history) -> list[tuple]:
    """``(id, line, time, files, restorable)`` cells of every checkpoint of a history."""
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


class FileHistoryPanel(DiffPane, ReportsWorkerErrors, Vertical, can_focus=False):
    """A note; the checkpoints and the selected one's files (left), the diff (right);
    stacked, with a unified diff, at 100 columns or fewer (session.tcss)."""

    DEFAULT_CSS = """
    FileHistoryPanel { height: 1fr; }
    FileHistoryPanel #fh-note { height: auto; padding: 0 1; }
    FileHistoryPanel #fh-body { height: 1fr; }
    FileHistoryPanel #fh-left { width: 66; }
    FileHistoryPanel #fh-checkpoints, FileHistoryPanel #fh-files {
        height: 1fr; border: round $panel-lighten-2;
    }
    FileHistoryPanel #fh-diff { width: 1fr; border: round $panel-lighten-2; }
    FileHistoryPanel #fh-checkpoints:focus, FileHistoryPanel #fh-files:focus,
    FileHistoryPanel #fh-diff:focus { border: round $primary; border-title-color: $primary; }
    """
    HELP_NAME = "checkpoints"
    DIFF_ID = "fh-diff"
    NEXT_WORDS = "the next checkpoint"
    BINDINGS = [
        Binding("d", "toggle_disk", "vs disk/next"),
        Binding("n", "hunk(1)", "Next hunk"),
        Binding("p", "hunk(-1)", "Prev hunk"),
        Binding("s", "toggle_diff_mode", "Unified/side-by-side"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.history = None
        self.root: str | None = None

    def compose(self):
        yield Static("", id="fh-note")
        with Horizontal(id="fh-body"):
            with Vertical(id="fh-left"):
                yield RowTable(id="fh-checkpoints")
                yield RowTable(id="fh-files")
            yield DiffView(id="fh-diff")

    def on_mount(self) -> None:
        table = self.query_one("#fh-checkpoints", DataTable)
        for label in ("checkpoint", "line", "time", "files", "restorable"):
            table.add_column(label, key=label)
        table.border_title = "Checkpoints"
        files = self.query_one("#fh-files", DataTable)
        for label in ("file", "before", "note"):
            files.add_column(label, key=label)
        files.border_title = "Files (u: undo the selected file)"
        self.query_one("#fh-diff", DiffView).border_title = "Diff"

    def focus(self, scroll_visible: bool = True):
        self.query_one("#fh-checkpoints", DataTable).focus(scroll_visible)
        return self

    def show(self, history, error: str | None, root: str | None) -> None:
        """Attributes down: the history read (None: ``error`` says why), paths shown
        relative to ``root``."""
        self.history, self.root = history, root
        rows = checkpoint_rows(history) if history is not None else []
        table = self.query_one("#fh-checkpoints", DataTable)
        row = table.cursor_row
        table.clear()
        for r in rows:
            table.add_row(*r, key=r[0])
        if rows:
            table.move_cursor(row=min(row, len(rows) - 1), animate=False)
        self._fill_files()
        note = error or (
            f"{plural(len(rows), 'checkpoint')} (file history): R restores every "
            "file to before the selected one, u undoes the latest prompt (in the file list: "
            "that file only), U redoes"
            if rows
            else "no file checkpoints in this session"
        )
        self.query_one("#fh-note", Static).update(plain(note))

    def selected_checkpoint(self):
        """The checkpoint under the cursor (None: there are none)."""
        cps = self.history.checkpoints if self.history is not None else []
        if not cps:
            return None
        return cps[min(self.query_one("#fh-checkpoints", DataTable).cursor_row, len(cps) - 1)]

    def selected_file(self) -> str | None:
        """The tracked path under the Files cursor (as the file history keys it)."""
        files = self.query_one("#fh-files", DataTable)
        if not files.row_count:
            return None
        key, _ = files.coordinate_to_cell_key(files.cursor_coordinate)
        return key.value

    def files_focused(self) -> bool:
        return self.screen.focused is self.query_one("#fh-files")

    @on(DataTable.RowHighlighted, "#fh-checkpoints")
    def _checkpoint_highlighted(self) -> None:
        self._fill_files()

    @on(DataTable.RowHighlighted, "#fh-files")
    def _file_highlighted(self) -> None:
        self._load_diff()

    def _fill_files(self) -> None:
        """The selected checkpoint's files: what the agent backed up before that prompt
        (``absent``: the file did not exist; ``✗``: the backup is lost), as ``sidtui
        checkpoints`` lists them."""
        files = self.query_one("#fh-files", DataTable)
        cp = self.selected_checkpoint()
        keep = self.selected_file()
        files.clear()
        if cp is None:
            self._load_diff()
            return
        for path, b in cp.backups.items():
            files.add_row(
                cell(left_cut(project_relative(path, self.root), PATH_CELL)),
                cell(b.label, "" if b.restorable else "red"),
                cell(b.reason or "", "dim"),
                key=path,
            )
        if keep in cp.backups:
            files.move_cursor(row=list(cp.backups).index(keep), animate=False)
        self._load_diff()

    # ------------------------------------------------------------------ the diff

    def _load_diff(self) -> None:
        cp, path = self.selected_checkpoint(), self.selected_file()
        if cp is None or path is None or self.history is None:
            self.query_one("#fh-diff", DiffView).show(None)
            return
        self.compute_diff(
            self.history, cp.position, path, self.vs_disk, self.app.current_theme.dark
        )

    @diff_worker
    def compute_diff(self, history, position: int, path: str, vs_disk: bool, dark: bool) -> None:
        """The file before checkpoint ``position`` against its next backup, or the disk."""
        import os

        cps = history.checkpoints
        cp = cps[position]
        b = cp.backups[path]
        shown = project_relative(path, self.root)
        notes = []
        old = ""
        try:
            old = as_text(b.read()) if b.existed else ""
        except OSError as exc:
            notes.append(f"✗ the backup at {cp.id} cannot be read: {exc}")
        later = next((c for c in cps[position + 1 :] if path in c.backups), None)
        if later is not None and not vs_disk:
            after = later.backups[path]
            new = ""
            try:
                new = as_text(after.read()) if after.existed else ""
            except OSError as exc:
                notes.append(f"✗ the backup at {later.id} cannot be read: {exc}")
            title = f"{shown}  {cp.id} → {later.id}"
        elif b.path is None or not os.path.isabs(b.path):
            new, title = "", f"{shown}  {cp.id} → disk now (the path is unknown)"
        else:
            new, title, err = disk_now(b.path, shown, cp.id)
            if err:
                notes.append(f"disk: {err}")
        note = "; ".join(notes) or None
        self.post_message(DiffComputed(DiffData.build(title, old, new, path, dark, note)))

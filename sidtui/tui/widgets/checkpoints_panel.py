"""The Checkpoints tab: snapshots, each file's entry chain, and a diff of the selected file.

Reads through :class:`sidtui.core.checkpoints.manager.CheckpointManager` (``list_snapshots``,
``chain_health``, ``rebuild_at``) in thread workers. For the selected snapshot and file
the diff compares the file's pre-image at that snapshot with its state after the batch:
the pre-image at the file's next entry, or the file on disk now when there is none (``d``
switches to "vs disk now" at any time). ``u`` previews what ``/undo`` would do (the latest
batch, or only the selected file when the file list has focus), ``R`` previews restoring
every file to before the selected snapshot; both ask to confirm.
"""

from __future__ import annotations

from datetime import UTC, datetime

from rich.text import Text
from textual import on, work
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import DataTable, Static
from textual.widgets.data_table import CellDoesNotExist

from sidtui.fmt import printable
from sidtui.tui.fmt import cell, one_line
from sidtui.tui.widgets.diff_view import DiffData, DiffView


def ms_time(ms: int) -> str:
    """Epoch milliseconds → ``HH:MM:SS`` UTC (as the agent's ISO timestamps)."""
    if not ms:
        return ""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%m-%d %H:%M:%S")


def _text(data) -> str:
    if data is None:
        return ""
    if isinstance(data, bytes):
        return data.decode("utf-8", errors="replace")
    return data


class CheckpointsPanel(Vertical, can_focus=False):
    """Snapshots (left, top), files of the snapshot with chains (left, bottom), diff (right)."""

    DEFAULT_CSS = """
    CheckpointsPanel #ckpt-left { width: 52; }
    CheckpointsPanel #snapshots { height: 1fr; }
    CheckpointsPanel #ckpt-files { height: 1fr; }
    CheckpointsPanel #ckpt-diff { width: 1fr; }
    CheckpointsPanel #ckpt-note { height: auto; color: $text-muted; padding: 0 1; }
    """
    BINDINGS = [
        Binding("u", "undo_preview", "Undo preview"),
        Binding("R", "restore_preview", "Restore before snapshot"),
        Binding("d", "toggle_disk", "vs disk/next"),
    ]

    class Loaded(Message):
        def __init__(self, snapshots, chains, error: str | None) -> None:
            super().__init__()
            self.snapshots = snapshots
            self.chains = chains
            self.error = error

    class DiffReady(Message):
        def __init__(self, data: DiffData | None) -> None:
            super().__init__()
            self.data = data

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = None
        self.manager = None
        self.snapshots = []
        self.chains = {}
        self.vs_disk = False

    def compose(self):
        yield Static("", id="ckpt-note")
        with Horizontal():
            with Vertical(id="ckpt-left"):
                yield DataTable(id="snapshots", cursor_type="row", zebra_stripes=True)
                yield DataTable(id="ckpt-files", cursor_type="row")
            yield DiffView(id="ckpt-diff")

    def on_mount(self) -> None:
        t = self.query_one("#snapshots", DataTable)
        for c in ("id", "time", "tools", "summary", "files"):
            t.add_column(c, key=c)
        f = self.query_one("#ckpt-files", DataTable)
        f.add_column("file", key="file")
        f.add_column("chain", key="chain")
        t.border_title = "Snapshots"

    def focus(self, scroll_visible: bool = True):
        self.query_one("#snapshots", DataTable).focus(scroll_visible)
        return self

    # ------------------------------------------------------------------ loading

    def show(self, view) -> None:
        """Attributes down: (re)load the checkpoints of ``view``'s session."""
        self.view = view
        self.load()

    def project_root(self):
        from sidtui.core.edits.rewind import project_root

        return project_root(self.view)

    @work(thread=True, exclusive=True, group="checkpoints")
    def load(self) -> None:
        from sidtui.core.base.errors import SidtuiError
        from sidtui.core.checkpoints.manager import CheckpointManager
        from sidtui.core.edits.batches import post_image_of

        view = self.view
        root = self.project_root()
        mgr = CheckpointManager.for_session(
            view.home,
            view.session_id,
            project_root=root.path,
            root_refusal=root.refusal,
            post_image=post_image_of(view.rf),
        )
        self.manager = mgr
        if not mgr.exists:
            self.post_message(self.Loaded([], {}, None))
            return
        try:
            snaps = mgr.list_snapshots()
            chains = {c.file_path: c for c in mgr.chain_health()}
        except (SidtuiError, OSError, ValueError) as exc:
            self.post_message(self.Loaded([], {}, f"checkpoint index unreadable: {exc}"))
            return
        self.post_message(self.Loaded(snaps, chains, None))

    def on_checkpoints_panel_loaded(self, msg: Loaded) -> None:
        msg.stop()
        self.snapshots = msg.snapshots
        self.chains = msg.chains
        note = self.query_one("#ckpt-note", Static)
        t = self.query_one("#snapshots", DataTable)
        t.clear()
        if msg.error:
            note.update(Text(printable(msg.error), style="bold red"))
            self.notify(msg.error, severity="error", markup=False)
            return
        if not msg.snapshots:
            note.update(" no file checkpoints for this session")
            self.query_one("#ckpt-files", DataTable).clear()
            self.query_one("#ckpt-diff", DiffView).show(None)
            return
        broken = [c for c in msg.chains.values() if not c.healthy]
        note.update(
            f" {len(msg.snapshots)} snapshots · {len(msg.chains)} files"
            + (f" · {len(broken)} with unrecoverable entries (✗)" if broken else "")
            + " · u undo · R restore before · d vs disk/next"
        )
        for s in msg.snapshots:
            sid = Text(s.id, style="dim strike" if s.reverted else ("cyan" if s.is_restore else ""))
            t.add_row(
                sid,
                ms_time(s.timestamp),
                cell(one_line(s.tool_name, 16)),
                cell(one_line(s.tool_summary, 30)),
                str(len(s.files)),
                key=s.id,
            )
        t.move_cursor(row=len(msg.snapshots) - 1, animate=False)
        self._show_files()

    def selected_snapshot(self):
        t = self.query_one("#snapshots", DataTable)
        if not self.snapshots or not t.row_count:
            return None
        return self.snapshots[min(t.cursor_row, len(self.snapshots) - 1)]

    def selected_file(self) -> str | None:
        f = self.query_one("#ckpt-files", DataTable)
        if not f.row_count:
            return None
        try:
            return f.coordinate_to_cell_key(f.cursor_coordinate).row_key.value
        except CellDoesNotExist:
            return None

    def _show_files(self) -> None:
        s = self.selected_snapshot()
        f = self.query_one("#ckpt-files", DataTable)
        f.clear()
        if s is None:
            return
        for e in s.files:
            path = e.get("filePath")
            if not isinstance(path, str):
                continue
            chain = self.chains.get(path)
            drawing = Text(
                chain.drawing if chain else "?", style="" if (chain and chain.healthy) else "red"
            )
            f.add_row(cell(one_line(path.rsplit("/", 1)[-1], 24)), drawing, key=path)
        self._load_diff()

    @on(DataTable.RowHighlighted, "#snapshots")
    def _snap_highlighted(self, event) -> None:
        event.stop()
        self._show_files()

    @on(DataTable.RowHighlighted, "#ckpt-files")
    def _file_highlighted(self, event) -> None:
        event.stop()
        self._load_diff()

    def _load_diff(self) -> None:
        s, path = self.selected_snapshot(), self.selected_file()
        if s is None or path is None:
            self.query_one("#ckpt-diff", DiffView).show(None)
            return
        self.compute_diff(s.id, s.position, path, self.vs_disk, self.app.current_theme.dark)

    @work(thread=True, exclusive=True, group="checkpoint-diff")
    def compute_diff(self, sid: str, position: int, path: str, vs_disk: bool, dark: bool) -> None:
        from sidtui.core.checkpoints.manager import read_current

        mgr = self.manager
        try:
            before = mgr.rebuild_at(path, sid)
        except Exception as exc:  # noqa: BLE001 - shown to the user, never a crash
            self.post_message(self.DiffReady(DiffData.build(f"{path}: {exc}", "", "")))
            return
        note = None
        if not before.recoverable:
            note = f"✗ the pre-image at {sid} cannot be rebuilt: {before.reason}"
        old = _text(before.content) if before.exists else ""
        later = [(i, e) for i, e in mgr.index.entries_for(path) if i > position]
        if later and not vs_disk:
            nxt_pos = later[0][0]
            nxt_id = str(mgr.index.snapshots[nxt_pos].get("id"))
            after = mgr.rebuild_at(path, nxt_id)
            new = _text(after.content) if after.exists else ""
            title = f"{path}  {sid} → {nxt_id}"
            if not after.recoverable:
                note = (
                    note + "; " if note else ""
                ) + f"✗ {nxt_id} cannot be rebuilt: {after.reason}"
        else:
            exists, data, err = read_current(path)
            new = _text(data) if exists else ""
            title = f"{path}  {sid} → disk now" + ("" if exists else " (absent)")
            if err:
                note = (note + "; " if note else "") + f"disk: {err}"
        self.post_message(self.DiffReady(DiffData.build(title, old, new, path, dark, note)))

    def on_checkpoints_panel_diff_ready(self, msg: DiffReady) -> None:
        msg.stop()
        self.query_one("#ckpt-diff", DiffView).show(msg.data)

    # ------------------------------------------------------------------ actions

    def action_toggle_disk(self) -> None:
        self.vs_disk = not self.vs_disk
        self.notify(
            "diff against the file on disk now"
            if self.vs_disk
            else "diff against the next snapshot"
        )
        self._load_diff()

    def action_undo_preview(self) -> None:
        if self.manager is None or not self.snapshots:
            self.notify("no checkpoints: nothing to undo", severity="warning")
            return
        from sidtui.tui.screens.undo_preview import UndoPreviewScreen

        files = self.query_one("#ckpt-files", DataTable)
        path = self.selected_file() if self.screen.focused is files else None
        self.app.push_screen(UndoPreviewScreen(self.manager, path), self._after_undo)

    def action_restore_preview(self) -> None:
        """Preview putting every file back to how it was before the selected snapshot."""
        snap = self.selected_snapshot()
        if self.manager is None or snap is None:
            self.notify("no checkpoints: nothing to restore", severity="warning")
            return
        from sidtui.tui.screens.undo_preview import UndoPreviewScreen

        self.app.push_screen(UndoPreviewScreen(self.manager, snapshot_id=snap.id), self._after_undo)

    def _after_undo(self, result) -> None:
        if result:
            self.load()

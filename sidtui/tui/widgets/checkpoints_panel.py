"""The Checkpoints tab: snapshots, each file's entry chain, and a diff of the selected file.

Reads through :class:`sidtui.core.checkpoints.manager.CheckpointManager` (``list_snapshots``,
``chain_health``, ``rebuild_at``) in thread workers. For the selected snapshot and file
the diff compares the file's pre-image at that snapshot with its state after the batch:
the pre-image at the file's next entry, or the file on disk now when there is none (``d``
switches to "vs disk now" at any time). ``u`` previews what ``/undo`` would do (the latest
batch, or only the selected file when the file list has focus), ``U`` what redo would take
back, ``R`` restoring every file to before the selected snapshot; each asks to confirm.
``n`` / ``p`` / ``s`` drive the diff from anywhere in the tab; ``o`` / ``O`` open the
selected file as it was before the snapshot in ``$PAGER`` / ``$EDITOR``. Paths are shown
relative to the project root, as ``sidtui checkpoints`` prints them.
"""

from __future__ import annotations

from datetime import UTC, datetime

from rich.text import Text
from textual import on, work
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Static
from textual.widgets.data_table import CellDoesNotExist

from sidtui.fmt import plural, printable, project_relative
from sidtui.tui.fmt import cell, one_line
from sidtui.tui.messages import CheckpointsLoaded, DiffComputed, FileVersionFetched
from sidtui.tui.widgets.diff_view import DiffData, DiffPane, DiffView
from sidtui.tui.widgets.row_table import RowTable
from sidtui.tui.worker_errors import ReportsWorkerErrors

#: File paths longer than this are cut from the left ("…/deep/name.py") in the file list.
PATH_CELL = 36


def ms_time(ms: int) -> str:
    """Epoch milliseconds → ``MM-DD HH:MM:SS`` UTC (as the agent's ISO timestamps)."""
    if not ms:
        return ""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%m-%d %H:%M:%S")


def as_text(data) -> str:
    if data is None:
        return ""
    if isinstance(data, bytes):
        return data.decode("utf-8", errors="replace")
    return data


#: The worker that computes a checkpoint diff (one at a time: a newer row cancels it).
diff_worker = work(
    thread=True,
    exclusive=True,
    group="checkpoint-diff",
    exit_on_error=False,
    description="computing the diff",
)


def disk_now(path: str, shown: str, at: str) -> tuple[str, str, str | None]:
    """``(text, title, error)`` of the file at ``path`` on disk now, the right side of a
    diff from checkpoint ``at`` (``shown``: the path as the title names it)."""
    import os

    from sidtui.core.checkpoints.restore import read_current

    exists, data, err, _mode, _st = read_current(os.path.realpath(path))
    new = as_text(data) if exists else ""
    return new, f"{shown}  {at} → disk now" + ("" if exists else " (absent)"), err


def left_cut(text: str, width: int) -> str:
    """``text`` cut from the left with an ellipsis to at most ``width`` characters."""
    return text if len(text) <= width else "…" + text[-(width - 1) :]


class CheckpointsPanel(DiffPane, ReportsWorkerErrors, Vertical, can_focus=False):
    """Snapshots and the files of the selected one (left), the diff (right); stacked, with
    a unified diff, at 100 columns or fewer."""

    DEFAULT_CSS = """
    CheckpointsPanel #ckpt-left { width: 56; }
    CheckpointsPanel #ckpt-lists { height: 1fr; }
    CheckpointsPanel #snapshots { height: 1fr; border: round $panel-lighten-2; }
    CheckpointsPanel #ckpt-files { height: 1fr; border: round $panel-lighten-2; }
    CheckpointsPanel #ckpt-diff { width: 1fr; border: round $panel-lighten-2; }
    CheckpointsPanel #snapshots:focus, CheckpointsPanel #ckpt-files:focus,
    CheckpointsPanel #ckpt-diff:focus { border: round $primary; border-title-color: $primary; }
    CheckpointsPanel #ckpt-chain { height: auto; max-height: 4; color: $text-muted; padding: 0 1; }
    CheckpointsPanel #ckpt-note { height: auto; color: $text-muted; padding: 0 1; }
    CheckpointsPanel #ckpt-note.-bad { color: $text-error; }
    """  # the stacked layout at 100 columns or fewer: session.tcss
    HELP_NAME = "checkpoints"  # what the help table calls it
    DIFF_ID = "ckpt-diff"
    NEXT_WORDS = "the next snapshot"
    BINDINGS = [
        Binding("u", "undo_preview", "Undo…"),
        Binding("U", "redo_preview", "Redo…"),
        Binding("R", "restore_preview", "Restore before…"),
        Binding("d", "toggle_disk", "vs disk/next"),
        Binding("n", "hunk(1)", "Next hunk"),
        Binding("p", "hunk(-1)", "Prev hunk"),
        Binding("s", "toggle_diff_mode", "Unified/side-by-side"),
        Binding("o", "open_version(False)", "Open in $PAGER", show=False),
        Binding("O", "open_version(True)", "Open in $EDITOR", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = None
        self.manager = None
        self.snapshots = []
        self.chains = {}
        self.vs_disk = False

    def compose(self):
        yield Static("", id="ckpt-note")
        with Horizontal(id="ckpt-body"):
            with Vertical(id="ckpt-left"):
                with Vertical(id="ckpt-lists"):
                    yield RowTable(id="snapshots", zebra_stripes=True)
                    yield RowTable(id="ckpt-files")
                yield Static("", id="ckpt-chain")
            yield DiffView(id="ckpt-diff")

    def on_mount(self) -> None:
        t = self.query_one("#snapshots", DataTable)
        for c in ("id", "time", "tools", "summary", "files"):
            t.add_column(c, key=c)
        f = self.query_one("#ckpt-files", DataTable)
        f.add_column("file", key="file")
        f.add_column("chain", key="chain")
        t.border_title = "Snapshots"
        f.border_title = "Files"
        self.query_one("#ckpt-diff", DiffView).border_title = "Diff"
        self.query_one("#ckpt-note", Static).display = False

    def focus(self, scroll_visible: bool = True):
        self.query_one("#snapshots", DataTable).focus(scroll_visible)
        return self

    # ------------------------------------------------------------------ loading

    def show(self, view) -> None:
        """Attributes down: (re)load the checkpoints of ``view``'s session."""
        self.view = view
        self.load()

    def _root(self) -> str | None:
        root = self.manager.project_root if self.manager is not None else None
        return str(root) if root else None

    def load(self) -> None:
        self._load(self.view)

    @work(
        thread=True,
        exclusive=True,
        group="checkpoints",
        exit_on_error=False,
        description="reading the checkpoints",
    )
    def _load(self, view) -> None:
        from sidtui.core.base.errors import SidtuiError
        from sidtui.core.checkpoints.manager import CheckpointManager
        from sidtui.core.edits.batches import post_image_of
        from sidtui.core.edits.rewind import project_root

        root = project_root(view)
        mgr = CheckpointManager.for_session(
            view.home,
            view.file.checkpoint_id,
            project_root=root.path,
            root_refusal=root.refusal,
            post_image=post_image_of(view.rf),
        )
        if not mgr.exists:
            self.post_message(CheckpointsLoaded(mgr, [], {}))
            return
        try:
            snaps = mgr.list_snapshots()
            chains = {c.file_path: c for c in mgr.chain_health()}
        except (SidtuiError, OSError, ValueError) as exc:
            self.post_message(CheckpointsLoaded(mgr, [], {}, f"checkpoint index unreadable: {exc}"))
            return
        self.post_message(CheckpointsLoaded(mgr, snaps, chains))

    def on_checkpoints_loaded(self, msg: CheckpointsLoaded) -> None:
        msg.stop()
        self.manager = msg.manager
        self.snapshots = msg.snapshots
        self.chains = msg.chains
        note = self.query_one("#ckpt-note", Static)
        t = self.query_one("#snapshots", DataTable)
        t.clear()
        note.display = False
        if msg.error:
            self._note(msg.error, bad=True)
            self.notify(msg.error, severity="error", markup=False)
            return
        if not msg.snapshots:
            self._note("no file checkpoints for this session")
            t.border_title = "Snapshots"
            self.query_one("#ckpt-files", DataTable).clear()
            self.query_one("#ckpt-chain", Static).update("")
            self.query_one("#ckpt-diff", DiffView).show(None)
            return
        broken = [c for c in msg.chains.values() if not c.healthy]
        t.border_title = f"Snapshots · {len(msg.snapshots)} · {plural(len(msg.chains), 'file')}"
        if broken:
            self._note(f"{plural(len(broken), 'file')} with unrecoverable entries (✗)", bad=True)
        root = self._root()
        for s in msg.snapshots:
            sid = Text(s.id, style="dim strike" if s.reverted else ("cyan" if s.is_restore else ""))
            summary = s.tool_summary or ""
            if root:  # a path inside the project, as the CLI prints it
                summary = summary.replace(root.rstrip("/") + "/", "")
            t.add_row(
                sid,
                ms_time(s.timestamp),
                cell(one_line(s.tool_name, 16)),
                cell(one_line(summary, 40)),
                str(len(s.files)),
                key=s.id,
            )
        t.move_cursor(row=len(msg.snapshots) - 1, animate=False)
        self._show_files()

    def _note(self, text: str, bad: bool = False) -> None:
        note = self.query_one("#ckpt-note", Static)
        note.update(Text(printable(text)))
        note.set_class(bad, "-bad")
        note.display = True

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
        f.border_title = f"Files of {s.id}"
        root = self._root()
        for e in s.files:
            path = e.get("filePath")
            if not isinstance(path, str):
                continue
            chain = self.chains.get(path)
            drawing = Text(
                chain.drawing if chain else "?",
                style="" if (chain and chain.healthy) else "red",
                no_wrap=True,
                overflow="ellipsis",
            )
            f.add_row(cell(left_cut(project_relative(path, root), PATH_CELL)), drawing, key=path)
        self._show_chain()
        self._load_diff()

    def _show_chain(self) -> None:
        """The selected file's whole entry chain, under the lists (the table cuts it)."""
        path = self.selected_file()
        chain = self.chains.get(path) if path else None
        out = self.query_one("#ckpt-chain", Static)
        if chain is None:
            out.update("")
            return
        n = len(chain.links)
        out.update(
            Text(
                printable(
                    f"{project_relative(path, self._root())}: {chain.drawing}"
                    f" ({plural(n, 'entry', 'entries')})"
                ),
                style="" if chain.healthy else "red",
                overflow="ellipsis",
            )
        )

    @on(DataTable.RowHighlighted, "#snapshots")
    def _snap_highlighted(self, event) -> None:
        event.stop()
        self._show_files()

    @on(DataTable.RowHighlighted, "#ckpt-files")
    def _file_highlighted(self, event) -> None:
        event.stop()
        self._show_chain()
        self._load_diff()

    def _load_diff(self) -> None:
        s, path = self.selected_snapshot(), self.selected_file()
        if s is None or path is None or self.manager is None:
            self.query_one("#ckpt-diff", DiffView).show(None)
            return
        self.compute_diff(
            self.manager, s.id, s.position, path, self.vs_disk, self.app.current_theme.dark
        )

    @diff_worker
    def compute_diff(
        self, mgr, sid: str, position: int, path: str, vs_disk: bool, dark: bool
    ) -> None:
        from sidtui.core.base.errors import SidtuiError

        root = str(mgr.project_root) if mgr.project_root else None
        shown = project_relative(path, root)
        try:
            before = mgr.rebuild_at(path, sid)
        except (SidtuiError, OSError, ValueError) as exc:
            self.post_message(DiffComputed(DiffData.build(f"{shown}: {exc}", "", "")))
            return
        note = None
        if not before.recoverable:
            note = f"✗ the pre-image at {sid} cannot be rebuilt: {before.reason}"
        old = as_text(before.content) if before.exists else ""
        later = [(i, e) for i, e in mgr.index.entries_for(path) if i > position]
        if later and not vs_disk:
            nxt_pos = later[0][0]
            nxt_id = str(mgr.index.snapshots[nxt_pos].get("id"))
            after = mgr.rebuild_at(path, nxt_id)
            new = as_text(after.content) if after.exists else ""
            title = f"{shown}  {sid} → {nxt_id}"
            if not after.recoverable:
                note = (
                    note + "; " if note else ""
                ) + f"✗ {nxt_id} cannot be rebuilt: {after.reason}"
        else:
            new, title, err = disk_now(path, shown, sid)
            if err:
                note = (note + "; " if note else "") + f"disk: {err}"
        self.post_message(DiffComputed(DiffData.build(title, old, new, path, dark, note)))

    # ------------------------------------------------------------------ actions

    def action_open_version(self, editor: bool) -> None:
        """The selected file as it was before the selected snapshot, in $PAGER/$EDITOR."""
        s, path = self.selected_snapshot(), self.selected_file()
        if s is None or path is None or self.manager is None:
            self.notify("select a snapshot and a file first", severity="warning")
            return
        self._fetch_version(self.manager, s.id, path, "editor" if editor else "pager")

    @work(
        thread=True,
        exclusive=True,
        group="checkpoint-version",
        exit_on_error=False,
        description="rebuilding the file version",
    )
    def _fetch_version(self, mgr, sid: str, path: str, purpose: str) -> None:
        r = mgr.rebuild_at(path, sid)
        if not r.recoverable:
            self.notify(
                f"{path} at {sid} cannot be rebuilt: {r.reason}", severity="error", markup=False
            )
            return
        if not r.exists:
            self.notify(f"{path} did not exist before {sid}", severity="warning", markup=False)
            return
        if isinstance(r.content, bytes):
            self.notify(f"{path} is binary: not opened", severity="warning", markup=False)
            return
        name = f"{sid}-{path.rsplit('/', 1)[-1]}"
        self.post_message(FileVersionFetched(name, r.content or "", purpose))

    def on_file_version_fetched(self, msg: FileVersionFetched) -> None:
        msg.stop()
        self.app.open_external(msg.text, msg.name, editor=msg.purpose == "editor")

    def action_undo_preview(self) -> None:
        if self.manager is None or not self.snapshots:
            self.notify("no checkpoints: nothing to undo", severity="warning")
            return
        files = self.query_one("#ckpt-files", DataTable)
        path = self.selected_file() if self.screen.focused is files else None
        self._preview("undo-file" if path else "undo", path=path)

    def action_redo_preview(self) -> None:
        """Preview taking back the last undo or restore (the core's ``redo``)."""
        if self.manager is None or not self.snapshots:
            self.notify("no checkpoints: nothing to redo", severity="warning")
            return
        self._preview("redo")

    def action_restore_preview(self) -> None:
        """Preview putting every file back to how it was before the selected snapshot."""
        snap = self.selected_snapshot()
        if self.manager is None or snap is None:
            self.notify("no checkpoints: nothing to restore", severity="warning")
            return
        self._preview("restore", snapshot_id=snap.id)

    def _preview(self, op: str, **where) -> None:
        """The session screen's restore dialog (``restore_dialog``) for ``op``."""
        self.app.push_screen(self.screen.restore_dialog(op, **where), self._after_undo)

    def _after_undo(self, result) -> None:
        if result:
            self.load()

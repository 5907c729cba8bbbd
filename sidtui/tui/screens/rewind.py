"""Rewind modal (``Esc Esc`` or ``r``): pick a point and a mode, see what changes, confirm.

One dialog for every source, driven through its writer
(:class:`sidtui.core.sources.base.Source`): points are ``source.rewind_points`` (the last
30 shown, as the agent's picker); the live preview is ``source.rewind`` with
``dry_run=True`` in a worker, re-run whenever the point or the mode changes; confirming
runs the same call for real. Where the sources differ it is a capability, said in the
dialog's words: a conversation rewind **appends a marker** to the same file (the old
branch stays; the Chain tab switches back) or **writes a new session** (the original file
is never changed; the result names the new session and how to resume it). A source whose
rewind does not finish an interrupted earlier write itself has its code store finish it
first (and only that), as ``sidtui rewind`` does. A live session is refused with the
reason; the user may then confirm a forced rewind. Files no longer what this session left
there (drift, the core's check) are named in the preview and asked about again on
confirm; one that changes after the preview is refused by the core and the preview
redone. At 100 columns or fewer the points, the mode and the preview are stacked.
"""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, RadioButton, RadioSet, Static

from sidtui.core.checkpoints.drift import drift_groups, drift_said, replaced_kinds
from sidtui.core.edits.points import MAX_PICKER_POINTS
from sidtui.core.sources.writes import MARKER, NEW_SESSION
from sidtui.fmt import plural, printable, project_relative, refused_line
from sidtui.tui.fmt import NARROW_MAX, PathCell, cell, one_line, plain, short_time
from sidtui.tui.messages import RewindComputed, RewindPointsListed
from sidtui.tui.widgets.diff_view import diff_syntax
from sidtui.tui.widgets.row_table import RowTable
from sidtui.tui.worker_errors import ReportsWorkerErrors

MODE_LABELS = (
    ("conversation", "Conversation"),
    ("code", "Code"),
    ("conversation-and-code", "Both"),
)


class RewindScreen(ReportsWorkerErrors, ModalScreen):
    """Rewind conversation, code or both to just before a prompt.

    Args:
        source: the session's source (:func:`sidtui.core.sources.source_for`).
        view: the session, read into the common model.

    Dismisses with the real run's result, True when applying only finished an
    interrupted earlier write, None when nothing was written.
    """

    CSS_PATH = "modal.tcss"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("m", "cycle_mode", "Mode"),
        Binding("y", "apply", "Rewind"),
        Binding("o", "open_new", "Open the new session", show=False),
    ]

    #: How a conversation rewind keeps what it drops (the preview's words), per capability.
    CONVERSATION_NOTES = {
        MARKER: " (append-only: a rewind marker; the old branch stays in the file)\n",
        NEW_SESSION: " (a new session without them; this file is not changed)\n",
    }

    def __init__(self, source, view) -> None:
        super().__init__()
        self.source = source
        self.view = view
        self.new_session = source.conversation_rewind == NEW_SESSION
        self.points = []
        self.mode = "conversation"
        self.applied = False
        self.last_result = None
        self.drift: dict[str, str] = {}
        self.stale = False  # the last real run was refused: a file changed after the preview
        # a source that keeps no file states (no checkpoint unit) rewinds the conversation only
        self.modes = MODE_LABELS if source.checkpoint_unit is not None else MODE_LABELS[:1]

    def compose(self) -> ComposeResult:
        with Vertical(id="rewind-box", classes="modal-box"):
            yield Static(plain(f"Rewind {self.view.session_id}"), classes="modal-title")
            with Horizontal(id="rewind-body"):
                yield RowTable(id="rewind-points")
                with Vertical(id="rewind-right"):
                    with RadioSet(id="rewind-mode"):
                        for i, (key, label) in enumerate(self.modes):
                            yield RadioButton(label, value=i == 0, id=f"mode-{key}")
                    if len(self.modes) < len(MODE_LABELS):
                        yield Static(
                            plain(
                                f"{self.source.label} keeps no file states: "
                                "no code rewind (the files are left as they are)"
                            ),
                            id="rewind-no-code",
                        )
                    with VerticalScroll(classes="modal-scroll"):
                        yield Static("", id="rewind-preview")
            with Horizontal(classes="modal-buttons"):
                yield Button("Rewind (y)", id="apply", variant="error", disabled=True)
                # a rewind that wrote a new session offers to open it (shown then)
                yield Button("Open new session (o)", id="open-new", variant="primary")
                yield Button("Cancel (Esc)", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#open-new", Button).display = False
        t = self.query_one("#rewind-points", DataTable)
        # widths given, not measured from the header: the time stays whole
        t.add_column("#", key="#", width=3)
        t.add_column("time", key="time", width=8)
        t.add_column("prompt", key="prompt")
        t.add_column("files", key="files", width=5)
        self.query_one("#rewind-preview", Static).update(Text("reading the prompts…", style="dim"))
        self._list_points(self.view)

    @work(
        thread=True,
        exclusive=True,
        group="rewind-points",
        exit_on_error=False,
        description="listing the rewind points",
    )
    def _list_points(self, view) -> None:
        """The last prompts of the conversation (the checkpoints say which restore files)."""
        points = self.source.rewind_points(view)[-MAX_PICKER_POINTS:]
        why = None if points else self.source.rewind_unavailable(view)
        self.post_message(RewindPointsListed(points, why))

    def on_rewind_points_listed(self, msg: RewindPointsListed) -> None:
        self.points = msg.points
        if not self.points:
            self.query_one("#rewind-preview", Static).update(
                Text(printable(f"Nothing to rewind: {msg.why}"), style="yellow")
            )
            return
        t = self.query_one("#rewind-points", DataTable)
        # the prompt takes what the points pane leaves beside the other columns (their
        # widths, four columns' padding, a scrollbar), so it never runs into the preview
        width = self.app.size.width
        pane = width if width <= NARROW_MAX else min(90, (width * 9 // 10 - 5) // 2)
        prompt = max(16, min(60, pane - 3 - 8 - 5 - 8 - 2))
        for p in self.points:
            files = Text("yes", style="green") if p.restore_from else Text("—", style="dim")
            t.add_row(
                str(p.id),
                short_time(p.timestamp)[11:],
                cell(one_line(p.preview, prompt)),
                files,
                key=str(p.id),
            )
        t.move_cursor(row=len(self.points) - 1, animate=False)
        t.focus()
        self.refresh_preview()

    def selected_point(self):
        t = self.query_one("#rewind-points", DataTable)
        if not self.points:
            return None
        return self.points[min(t.cursor_row, len(self.points) - 1)]

    # ------------------------------------------------------------------ preview

    def refresh_preview(self) -> None:
        p = self.selected_point()
        if p is None or self.applied:
            return
        self.query_one("#apply", Button).disabled = True
        self.query_one("#rewind-preview", Static).update(Text("computing preview…", style="dim"))
        self.run_rewind(p.id, self.mode, dry_run=True, force=False)

    @work(
        thread=True,
        exclusive=True,
        group="rewind",
        exit_on_error=False,
        description="computing the rewind",
    )
    def run_rewind(self, point: int, mode: str, *, dry_run: bool, force: bool) -> None:
        from sidtui.core.base.errors import SessionLive, SidtuiError
        from sidtui.core.checkpoints.restore import DriftRefused
        from sidtui.core.sources.writes import WriteOptions

        src = self.source
        try:
            if mode != "conversation" and not src.rewind_finishes_interrupted:
                done = src.restore_store(self.view).finish_interrupted(dry_run=dry_run)
                if done is not None and done.changed:
                    # as `sidtui rewind`: that is all this run does (a preview: would do)
                    if dry_run:
                        self.post_message(
                            RewindComputed(
                                None, finishing=done.said, finishing_files=done.files.files
                            )
                        )
                    else:
                        self.post_message(
                            RewindComputed(None, applied=True, finished=done.finished)
                        )
                    return
            opts = WriteOptions(force=force, dry_run=dry_run)
            res = src.rewind(self.view, point, mode, opts)
        except SessionLive as exc:
            self.post_message(RewindComputed(None, str(exc), live=True))
            return
        except DriftRefused as exc:  # a file changed since the preview: nothing written
            self.post_message(RewindComputed(None, str(exc), stale=True))
            return
        except (SidtuiError, OSError, ValueError) as exc:
            self.post_message(RewindComputed(None, str(exc)))
            return
        self.post_message(RewindComputed(res, applied=not dry_run, drift=rewind_drift(res)))

    def on_rewind_computed(self, msg: RewindComputed) -> None:
        out = self.query_one("#rewind-preview", Static)
        if msg.live:
            self._ask_force(msg.error)
            return
        if msg.stale:
            self.stale = True
            self.notify(
                "nothing was written: a file changed after the preview",
                title="rewind",
                severity="warning",
                markup=False,
            )
            self.refresh_preview()
            return
        if msg.error:
            out.update(Text(printable(msg.error), style="bold red"))
            self.notify(msg.error, title="rewind", severity="error", markup=False)
            return
        if msg.finished:
            self._finished(msg.finished)
            return
        res = msg.result
        if msg.finishing is None and res is not None and res.resumed is not None and res.dry_run:
            files = res.resumed.restore.files if getattr(res.resumed, "restore", None) else []
            msg.finishing, msg.finishing_files, msg.refusal = (
                res.resumed.describe(),
                files,
                res.refusal,
            )
        if msg.finishing is not None:  # a real run only finishes an interrupted earlier one
            self.last_result, self.drift = None, {}  # finishing checks no drift
            out.update(self._finishing_renderable(msg))
            self.stale = False
            self.query_one("#apply", Button).disabled = False
            return
        self.last_result = res
        self.drift = dict(msg.drift)
        if res.resumed is not None:  # the run only finished an interrupted earlier one
            self._finished(res.resumed.describe())
            return
        if msg.applied:
            self.applied = True
            self.query_one("#apply", Button).disabled = True
            self.query_one("#apply", Button).display = False  # done: nothing to press
            self.query_one("#cancel", Button).label = "Close (Esc)"
            if self._new_file(res) is not None:
                self.query_one("#open-new", Button).display = True
                self.query_one("#open-new", Button).focus()
            out.update(self._result_renderable(res))
            self.notify(
                f"rewound to point {res.point.id}: {plural(res.messages_dropped, 'message')} "
                f"dropped, {plural(res.files_restored, 'file')} restored",
                title="rewind",
                markup=False,
            )
            return
        out.update(self._preview_renderable(res))
        self.stale = False
        self.query_one("#apply", Button).disabled = False

    def _finished(self, described: str) -> None:
        """The real run only finished an interrupted earlier one (as the CLI does)."""
        self.applied = True
        self.query_one("#apply", Button).disabled = True
        self.query_one("#apply", Button).display = False  # done: nothing to press
        self.query_one("#cancel", Button).label = "Close (Esc)"
        self.query_one("#rewind-preview", Static).update(
            Text(
                printable(
                    f"{described}.\nThe rewind itself was not run: open this dialog again for it."
                ),
                style="bold yellow",
            )
        )
        self.notify(described, title="rewind", markup=False)

    def _finishing_renderable(self, msg):
        """The preview of a run that only finishes an interrupted earlier one (what the
        CLI's dry run says): that, its files and their diffs."""
        from sidtui.core.views.rewind_text import unified_diff

        head = Text(printable(f"{msg.finishing}.\n"), style="bold yellow")
        head.append(
            "Applying does only that; the rewind itself is not run (open this dialog again "
            "for it).\n",
            style="yellow",
        )
        if msg.refusal:
            head.append(printable(f"⚠ {refused_line(msg.refusal)}\n"), style="yellow")
        parts: list = [head]
        if msg.finishing_files:
            t = _files_table()
            for f in msg.finishing_files:
                t.add_row(plain(f.action), plain(printable(f.path)), plain(f.reason))
            parts.append(t)
        for f in msg.finishing_files:
            if f.action in ("restored", "deleted") and (d := unified_diff(f)):
                parts.append(diff_syntax(d, self.app.current_theme.dark))
        return Group(*parts)

    def _preview_renderable(self, res):
        """The preview; the core's per-file notes (drift, skips) are left to the Files
        table and the drift line, which already say them relative to the root."""
        import copy

        paths = {f.get("path") for f in res.files}
        shown = copy.copy(res)
        shown.warnings = [w for w in res.warnings if w.split(": ", 1)[0] not in paths]
        if res.drift and drift_said(res.refusal):
            shown.refusal = None  # the drift line says it (and confirming asks)
        return self._preview_of(shown)

    def _preview_of(self, res):
        parts = []
        head = Text.assemble(
            ("Preview ", "bold"),
            f"point {res.point.id} ({short_time(res.point.timestamp)}), mode {res.mode}\n",
        )
        if res.mode != "code":
            head.append(
                f"{plural(res.messages_dropped, 'message')} leave the conversation", style="yellow"
            )
            head.append(self.CONVERSATION_NOTES[self.source.conversation_rewind], style="dim")
        if res.mode != "conversation":
            changing = [f for f in res.files if f.get("action") in ("restored", "deleted")]
            skipped = [f for f in res.files if f.get("action") == "skipped"]
            head.append(
                f"{plural(len(changing), 'file', zero='no')} change, {len(skipped)} skipped\n",
                style="yellow" if changing else "dim",
            )
            drifted = [f.get("path") for f in changing if f.get("path") in self.drift]
            if drifted:
                groups = drift_groups(
                    (self._shown(res, p), self.drift_status(res, p)) for p in drifted
                )
                said = " ".join(f"{plural(len(g), 'file')} {w}: {', '.join(g)}." for g, w in groups)
                head.append(printable(f"⚠ {said} Confirming asks again.\n"), style="bold yellow")
            if self.stale:
                head.append(
                    "⚠ Nothing was written: files changed since the preview.\n", style="bold yellow"
                )
            if res.file_restore_skipped and not res.files:
                head.append("files are not restored for this point\n", style="dim")
        if res.refusal and not drift_said(res.refusal):  # drift is said above
            head.append(printable(f"⚠ {refused_line(res.refusal)}\n"), style="yellow")
        for w in res.warnings:
            head.append(printable(f"⚠ {w}\n"), style="yellow")
        parts.append(head)
        if res.dropped:
            t = Table(
                title="Messages that drop", title_justify="left", show_edge=False, expand=True
            )
            t.add_column("#", width=5)
            t.add_column("role", width=10)
            t.add_column("preview", ratio=1)  # fixed columns stay fixed when expanded
            for d in res.dropped[:60]:
                t.add_row(
                    str(d.get("index", "")),
                    plain(d.get("role")),
                    plain(one_line(d.get("preview") or "", 80)),
                )
            if len(res.dropped) > 60:
                t.add_row("…", "", f"and {len(res.dropped) - 60} more")
            parts.append(t)
        if res.files:
            t = _files_table()
            for f in res.files:
                warn = self.drift.get(f.get("path"))
                why = f"⚠ {warn}" if warn else f.get("reason")
                if not why and f.get("drift") == "unknown":
                    why = f"drift unknown: {f.get('driftSource')}"
                t.add_row(
                    plain(f.get("action")),
                    PathCell(self._shown(res, f.get("path")), "bold yellow" if warn else ""),
                    plain(why, "yellow" if warn else ""),
                )
            parts.append(t)
        for d in res.diffs:
            parts.append(diff_syntax(d, self.app.current_theme.dark))
        return Group(*parts)

    def _result_renderable(self, res):
        t = Text()
        t.append("Rewound.\n", style="bold green")
        t.append(f"point {res.point.id}, mode {res.mode}\n")
        if not self.new_session:  # the same file: its messages dropped behind a marker
            t.append(f"messages dropped: {res.messages_dropped}\n")
        elif res.fork is not None:  # a new session: say it and how to resume it
            t.append(
                printable(
                    f"new session {res.fork.session_id}: "
                    f"{plural(res.fork.message_count, 'message')} "
                    f"({plural(res.messages_dropped, 'message')} left out); "
                    "this session is unchanged\n"
                )
            )
            resume = self.source.resume_command(res.fork.session_id)
            if resume:
                t.append(printable(f"resume it with: {resume}\n"))
            t.append("o opens it here\n", style="bold")
        if not self.new_session or res.mode != "conversation":
            t.append(f"files restored: {res.files_restored}\n")
            skipped = [f for f in res.files if f.get("action") == "skipped"]
            t.append(f"files skipped: {len(skipped)}\n")
            for f in skipped:
                t.append(
                    printable(f"  {self._shown(res, f.get('path'))}: {f.get('reason')}\n"),
                    style="dim",
                )
        if res.safety_snapshot:
            undo = (
                "U on the session screen takes the files back"
                if self.new_session
                else "restore it to undo the file step"
            )
            t.append(f"safety snapshot: {res.safety_snapshot} ({undo})\n")
        if res.marker_uuid:
            t.append(
                f"rewind marker: {res.marker_uuid} (switch back to the old branch from the Chain tab)\n",
                style="dim",
            )
        for w in res.warnings:
            t.append(printable(f"⚠ {w}\n"), style="yellow")
        return t

    def _ask_force(self, reason: str | None) -> None:
        from sidtui.tui.screens.confirm import ask_force

        p = self.selected_point()
        if p is None:
            return

        def run() -> None:
            self.run_rewind(p.id, self.mode, dry_run=False, force=True)

        ask_force(self, reason, "Rewind", "#rewind-preview", run)

    # ------------------------------------------------------------------ events

    @on(DataTable.RowHighlighted, "#rewind-points")
    def _point_highlighted(self, event) -> None:
        self.refresh_preview()

    @on(RadioSet.Changed, "#rewind-mode")
    def _mode_changed(self, event: RadioSet.Changed) -> None:
        self.mode = self.modes[event.index][0]
        self.refresh_preview()

    def action_cycle_mode(self) -> None:
        keys = [k for k, _ in self.modes]
        nxt = keys[(keys.index(self.mode) + 1) % len(keys)]
        self.query_one(f"#mode-{nxt}", RadioButton).value = True

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "apply":
            self.action_apply()
        elif event.button.id == "open-new":
            self.action_open_new()
        else:
            self.action_cancel()

    def action_apply(self) -> None:
        """The Rewind button (or ``y``) after the preview is the confirmation; files that
        drifted since the agent's last batch are asked about once more."""
        p = self.selected_point()
        if p is None or self.applied or self.query_one("#apply", Button).disabled:
            return
        res = self.last_result
        changing = [] if res is None or res.mode == "conversation" else res.files
        drifted = [
            f.get("path")
            for f in changing
            if f.get("action") in ("restored", "deleted") and f.get("path") in self.drift
        ]
        if not drifted:
            self._run(p.id)
            return
        from sidtui.tui.screens.confirm import ConfirmScreen

        uncertain = sum(1 for f in changing if f.get("uncertain") and f.get("action") == "skipped")
        also = [f"restores {plural(uncertain, 'uncertain file')}"] if uncertain else []
        if self.view.liveness.live:
            also.append("rewinds although the session is live (the agent may overwrite it)")
        question = (
            f"{replaced_kinds(self.drift_status(res, p) for p in drifted)} — replaced if you "
            "rewind (kept in the safety snapshot):\n"
            + "\n".join(f"  {self._shown(res, p)}: {self.drift[p]}" for p in drifted)
            + "\n\nRewind anyway?"
            + (f"\n(As --force, this also {' and '.join(also)}.)" if also else "")
        )
        self.app.push_screen(
            ConfirmScreen(question, yes="Rewind anyway", danger=True),
            lambda yes: self._run(p.id, force=True) if yes else None,
        )

    def _run(self, point: int, force: bool = False) -> None:
        self.query_one("#apply", Button).disabled = True
        self.run_rewind(point, self.mode, dry_run=False, force=force)

    def _new_file(self, res):
        """The session file a real rewind wrote (None: none, or it cannot be read)."""
        fork = getattr(res, "fork", None)
        if not self.new_session or fork is None or getattr(fork, "path", None) is None:
            return None
        try:
            return self.source.file_at(fork.path, getattr(self.view.file, "project", None))
        except (OSError, ValueError):
            return None

    def action_open_new(self) -> None:
        """Close the dialog and open the session the rewind wrote."""
        sf = self._new_file(self.last_result) if self.applied else None
        if sf is None:
            return
        self.dismiss(self.last_result)
        self.app.call_later(self.app.open_session, sf)

    def action_cancel(self) -> None:
        if self.applied and self.last_result is not None:
            self.dismiss(self.last_result)
        else:
            self.dismiss(True if self.applied else None)

    @staticmethod
    def drift_status(res, path) -> str | None:
        """The drift status (``changed``, ``unknown``) of ``path`` in ``res.drift``."""
        return next((d.get("status") for d in res.drift if d.get("path") == path), None)

    @staticmethod
    def _shown(res, path) -> str:
        """A path as the checkpoint listings print it: relative to the project root."""
        return project_relative(str(path), res.root)


def rewind_drift(result) -> list[tuple[str, str]]:
    """(path, warning) for each file the rewind would change that is no longer what this
    session left there (the core's drift check: ``RewindResult.drift``)."""
    out = []
    for d in result.drift:
        known = (
            "changed after this session"
            if d.get("status") == "changed"
            else "its last change by this session cannot be proven"
        )
        out.append((d["path"], f"{known} ({d['source']})" if d.get("source") else known))
    return out


def _files_table() -> Table:
    """The preview's files: action, path, why (rows added by the caller)."""
    t = Table(title="Files", title_justify="left", show_edge=False, expand=True)
    t.add_column("action", width=10)
    t.add_column("path", ratio=1)
    t.add_column("why", style="dim", ratio=1)
    return t

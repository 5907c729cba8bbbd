"""Undo, redo and restore previews (Checkpoints ``u``, ``U``, ``R``): the diffs, then confirm.

One dialog for every source: every variant goes through the session's code store
(:meth:`sidtui.core.sources.base.Source.restore_store`, the one restore engine of the
source) with ``dry_run=True`` for the preview, then the same call for real after the user
confirms: ``undo`` (the latest agent batch not yet rolled back), ``undo_file`` (one
file), ``redo`` (take back the last undo or restore), ``restore_before`` (every file back
to before the selected snapshot). Each dialog is titled and its button named after what
it does; the result names the ``sidtui-restore`` safety snapshot that takes it back.

Files no longer what this session left there (drift, the core's check) are marked in the
file list and named in the summary; confirming asks a second time, then applies with
``force`` as ``--force`` does. A file that changes while the preview is open is refused by
the core and the new plan shown. While an interrupted earlier run (a journal) is pending,
the preview is what applying does, as on the CLI: finish it (its files and diffs; then
nothing else), or drop it when it had changed nothing and go on.
"""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Static

from sidtui.core.checkpoints.drift import DRIFT_WORDING
from sidtui.core.checkpoints.manager import known_ids
from sidtui.fmt import plural, printable, project_relative, refused_line
from sidtui.tui.fmt import cell, plain
from sidtui.tui.messages import RestorePlanned
from sidtui.tui.widgets.diff_view import DiffData, DiffView
from sidtui.tui.widgets.row_table import RowTable
from sidtui.tui.worker_errors import ReportsWorkerErrors

#: op → (dialog title, button verb, what the safety snapshot lets the user do after).
OPS = {
    "undo": ("Undo the latest agent batch", "Undo", "U (redo) takes it back"),
    "undo-file": ("Undo one file", "Undo", "U (redo) takes it back"),
    "redo": ("Redo: take the last undo or restore back", "Redo", "u undoes it again"),
    "restore": ("Restore every file", "Restore", "U (redo) takes it back"),
}


def _text(b: bytes | None) -> str:
    return b.decode("utf-8", errors="replace") if b else ""


class RestorePreviewScreen(ReportsWorkerErrors, ModalScreen[bool]):
    """Preview then apply an undo, a redo or a restore; dismisses with whether it wrote.

    Args:
        source: the session's source (:func:`sidtui.core.sources.source_for`).
        view: the session, read into the common model.
        op: ``"undo"``, ``"undo-file"`` (with ``path``, a tracked path as the store keys
            it), ``"redo"`` or ``"restore"`` (with ``snapshot_id``, a checkpoint id).
        checkpoints: what the Checkpoints tab already read for the session (else read
            in the worker).

    A live session refused by the store is asked about again (force); an interrupted
    earlier write is finished first, and then only that (as the CLI does).
    """

    CSS_PATH = "modal.tcss"
    BINDINGS = [
        Binding("y", "apply", "Apply"),
        Binding("escape", "cancel", "Cancel"),
        Binding("n", "hunk(1)", "Next hunk", show=False),
        Binding("p", "hunk(-1)", "Prev hunk", show=False),
        Binding("s", "toggle_diff_mode", "Unified/side-by-side", show=False),
    ]

    def __init__(
        self,
        source,
        view,
        op: str,
        *,
        path: str | None = None,
        snapshot_id: str | None = None,
        checkpoints=None,
    ) -> None:
        super().__init__()
        if op not in OPS:
            raise ValueError(f"unknown restore operation {op!r}")
        self.source = source
        self.view = view
        self.store = source.restore_store(view, checkpoints)
        self.op = op
        self.path = path
        self.snapshot_id = snapshot_id
        self.plan = None
        self.drift: dict[str, str] = {}
        self.applied = False

    @property
    def verb(self) -> str:
        return OPS[self.op][1]

    def heading(self) -> str:
        head = OPS[self.op][0]
        if self.op == "undo-file":
            return f"{head}: {self._shown(self.path or '')}"
        if self.op == "restore":
            return f"{head} to before {self.snapshot_id}"
        return head

    def compose(self) -> ComposeResult:
        with Vertical(classes="modal-box"):
            yield Static(plain(self.heading()), classes="modal-title")
            yield Static("computing…", id="undo-summary", classes="modal-summary")
            yield RowTable(id="undo-files")
            yield DiffView(id="undo-diff")
            with Horizontal(classes="modal-buttons"):
                yield Button(f"{self.verb} (y)", id="apply", variant="error", disabled=True)
                yield Button("Cancel (Esc)", id="cancel")

    def on_mount(self) -> None:
        t = self.query_one("#undo-files", DataTable)
        for c in ("action", "file", "reason"):
            t.add_column(c, key=c)
        self.compute(dry_run=True)

    @work(
        thread=True,
        exclusive=True,
        group="restore",
        exit_on_error=False,
        description="planning the restore",
    )
    def compute(self, dry_run: bool, force: bool = False) -> None:
        from sidtui.core.base.errors import SessionLive, SidtuiError
        from sidtui.core.checkpoints.restore import DriftRefused

        st = self.store
        first: list[str] = []
        try:
            done = st.finish_interrupted(dry_run=dry_run)
            if done is not None and done.changed:
                # as `sidtui undo`: finishing it is all this run does (a preview: would do)
                if dry_run:  # the preview is the finish: applying does only that
                    self.post_message(RestorePlanned(done.files, finishing=done.said))
                else:
                    self.post_message(
                        RestorePlanned(done.files, applied=True, finished=done.finished)
                    )
                return
            if done is not None and dry_run:
                first = [done.said]  # it had changed nothing: a real run drops it first
            if self.op == "restore":
                res = st.restore_before(self.snapshot_id or "", dry_run=dry_run, force=force)
            elif self.op == "redo":
                res = st.redo(dry_run=dry_run, force=force)
            elif self.op == "undo-file":  # `sidtui undo --file`
                res = st.undo(dry_run=dry_run, force=force, path=self.path)
            else:
                res = st.undo(dry_run=dry_run, force=force)
        except SessionLive as exc:
            self.post_message(RestorePlanned(None, str(exc), live=True))
            return
        except DriftRefused as exc:  # a file changed since the preview: nothing written
            self.post_message(RestorePlanned(exc.result, drift=drift_of(exc.result), stale=True))
            return
        except (SidtuiError, OSError, ValueError) as exc:
            self.post_message(RestorePlanned(None, str(exc)))
            return
        # drift is said per file; the core's per-file notes are the file list's reasons
        paths = {f.path for f in res.files}
        warnings = first + [w for w in res.warnings if w.split(": ", 1)[0] not in paths]
        refusal = getattr(res, "refusal", None)
        if refusal and DRIFT_WORDING not in refusal and "changed after this session" not in refusal:
            warnings.append(refused_line(refusal))
        self.post_message(
            RestorePlanned(res, applied=not dry_run, drift=drift_of(res), warnings=warnings)
        )

    def worker_failed(self, worker, error: BaseException) -> None:
        super().worker_failed(worker, error)
        self.query_one("#undo-summary", Static).update(
            Text(f"{self.verb} failed: {type(error).__name__}: {error}", style="bold red")
        )

    def on_restore_planned(self, msg: RestorePlanned) -> None:
        summary = self.query_one("#undo-summary", Static)
        if msg.live:
            self._ask_force(msg.error or "the session is live")
            return
        if msg.error:
            summary.update(Text(printable(msg.error), style="bold red"))
            self.notify(msg.error, severity="error", markup=False)
            return
        res = msg.result
        if msg.finished:
            self._finished(msg.finished)
            return
        if msg.finishing:
            self._finishing(msg)
            return
        if msg.applied:
            self.applied = True
            changed, skipped = len(res.changed), len(res.skipped)
            lines = [f"Done: {plural(changed, 'file', zero='no')} written, {skipped} skipped."]
            if res.safety_snapshot_id:
                lines.append(
                    f"Safety snapshot {res.safety_snapshot_id} holds the contents from before; "
                    f"{OPS[self.op][2]}."
                )
            elif res.note:
                lines.append(res.note)
            summary.update(plain("\n".join(lines)))
            self.query_one("#apply", Button).disabled = True
            self.query_one("#apply", Button).display = False  # done: nothing to press
            self.query_one("#cancel", Button).label = "Close (Esc)"
            self.notify(lines[0], title=self.verb.lower(), markup=False)
            return
        self.plan = res
        self.drift = dict(msg.drift)
        t = self.query_one("#undo-files", DataTable)
        t.clear()
        for f in res.files:
            style = {"restored": "yellow", "deleted": "red", "skipped": "dim"}.get(f.action, "")
            warn = self.drift.get(f.path)
            reason, reason_style = (f"⚠ {warn}", "yellow") if warn else (f.reason, "")
            if not warn and not f.reason and f.drift is not None and f.drift.status == "unknown":
                reason, reason_style = f"drift unknown: {f.drift.source}", "dim"
            t.add_row(
                Text(f.action, style=style),
                cell(self._shown(f.path), "bold yellow" if warn else ""),
                cell(reason, reason_style),
                key=f.path,
            )
        if res.note and not res.files:
            summary.update(plain(res.note))
        else:
            reverts = known_ids(res.reverts or [str(res.target_snapshot_id or "—")])
            text = Text(
                printable(
                    f"{self.verb} takes back {reverts}: "
                    f"{plural(len(res.changed), 'file', zero='no')} change, "
                    f"{len(res.skipped)} skipped. A safety snapshot is written first."
                )
            )
            drifted = [p for p in self.drift if any(f.path == p for f in res.changed)]
            if drifted:
                names = ", ".join(self._shown(p) for p in drifted)
                text.append(
                    printable(
                        f"\n⚠ {plural(len(drifted), 'file')} {DRIFT_WORDING}: {names}. "
                        "Confirming asks again."
                    ),
                    style="bold yellow",
                )
            if msg.stale:
                text.append(
                    "\n⚠ Nothing was written: files changed since the preview.", style="bold yellow"
                )
            for w in msg.warnings:
                text.append(printable(f"\n⚠ {w}"), style="yellow")
            summary.update(text)
        self.query_one("#apply", Button).disabled = not res.changed
        self._show_file(0)

    def _fill_files(self, res) -> None:
        """The file list of a plan (action, file, reason)."""
        t = self.query_one("#undo-files", DataTable)
        t.clear()
        for f in res.files if res is not None else []:
            style = {"restored": "yellow", "deleted": "red", "skipped": "dim"}.get(f.action, "")
            t.add_row(
                Text(f.action, style=style),
                cell(self._shown(f.path)),
                cell(f.reason or ""),
                key=f.path,
            )

    def _finishing(self, msg: RestorePlanned) -> None:
        """The preview of a run that only finishes an interrupted earlier one (the CLI's
        dry run says the same): its files and diffs; applying does that and nothing else."""
        self.plan = msg.result
        self.drift = {}
        self._fill_files(msg.result)
        text = Text(printable(f"{msg.finishing}."), style="bold yellow")
        text.append(
            f"\nApplying does only that; the {self.verb.lower()} itself is not run "
            "(open this dialog again for it).",
            style="yellow",
        )
        for w in msg.warnings:
            text.append(printable(f"\n⚠ {w}"), style="yellow")
        self.query_one("#undo-summary", Static).update(text)
        self.query_one("#apply", Button).disabled = False
        self._show_file(0)

    def _ask_force(self, reason: str) -> None:
        """A live session refused the real run: ask whether to force it."""
        from sidtui.tui.screens.confirm import ask_force

        ask_force(self, reason, self.verb, "#undo-summary", lambda: self._run(force=True))

    def _finished(self, described: str) -> None:
        """Applying only finished an interrupted earlier run (as the CLI does)."""
        self.applied = True
        self.query_one("#undo-summary", Static).update(
            Text(
                printable(
                    f"{described}.\nThe {self.verb.lower()} itself was not run: "
                    "open this dialog again for it."
                ),
                style="bold yellow",
            )
        )
        self.query_one("#apply", Button).disabled = True
        self.query_one("#apply", Button).display = False  # done: nothing to press
        self.query_one("#cancel", Button).label = "Close (Esc)"
        self.notify(described, title=self.verb.lower(), markup=False)

    @on(DataTable.RowHighlighted, "#undo-files")
    def _file_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_file(event.cursor_row)

    def _show_file(self, row: int) -> None:
        if self.plan is None or not self.plan.files:
            return
        f = self.plan.files[min(row, len(self.plan.files) - 1)]
        title = f"{self._shown(f.path)}  now → after {self.verb.lower()} ({f.action})"
        self.query_one("#undo-diff", DiffView).show(
            DiffData.build(
                title,
                _text(f.old),
                _text(f.new),
                f.path,
                self.app.current_theme.dark,
                f"⚠ {self.drift[f.path]}" if f.path in self.drift else None,
            )
        )

    def _shown(self, path: str) -> str:
        """A path as the checkpoint listings print it: relative to the project."""
        return project_relative(path, self.store.shown_root)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "apply":
            self.action_apply()
        else:
            self.action_cancel()

    def action_apply(self) -> None:
        """The button (or ``y``) after the preview; drifted files are asked about again."""
        if self.applied or self.query_one("#apply", Button).disabled:
            return
        if self.plan is None:  # a finish that writes no file (its journal goes)
            self._run()
            return
        drifted = [f.path for f in self.plan.changed if f.path in self.drift]
        if not drifted:
            self._run()
            return
        from sidtui.tui.screens.confirm import ConfirmScreen

        question = (
            f"{plural(len(drifted), 'file')} {DRIFT_WORDING}:\n"
            + "\n".join(f"  {self._shown(p)}: {self.drift[p]}" for p in drifted)
            + f"\n\n{self.verb} anyway?{forced_too(self.plan.files)}"
        )
        self.app.push_screen(
            ConfirmScreen(question, yes=f"{self.verb} anyway", danger=True),
            lambda yes: self._run(force=True) if yes else None,
        )

    def _run(self, force: bool = False) -> None:
        """Apply the plan; ``force`` (after the second question) replaces drifted files,
        as ``--force`` does on the command line."""
        self.query_one("#apply", Button).disabled = True
        self.compute(dry_run=False, force=force)

    def action_cancel(self) -> None:
        self.dismiss(self.applied)

    def action_hunk(self, direction: int) -> None:
        self.query_one("#undo-diff", DiffView).action_hunk(direction)

    def action_toggle_diff_mode(self) -> None:
        self.query_one("#undo-diff", DiffView).action_toggle_mode()


def drift_of(result) -> list[tuple[str, str]]:
    """(path, warning) for each file ``result`` would change that is no longer what this
    session left there (the core's drift check: ``RestoreResult.drifted``)."""
    return [
        (
            f.path,
            DRIFTED
            if f.drift is None
            else f"changed after this session ({f.drift.source})"
            if f.drift.status == "changed"
            else f"not provably unchanged since this session ({f.drift.source})",
        )
        for f in result.drifted
    ]


def forced_too(files) -> str:
    """What else ``force`` does to a plan of :class:`FileRestore`: its uncertain files are
    restored too (the core has one ``force``, as the CLI has one ``--force``)."""
    n = sum(1 for f in files if f.uncertain and f.action == "skipped")
    return f"\n(This also restores {plural(n, 'uncertain file')}, as --force does.)" if n else ""


#: A drifted file's warning when the core names no source.
DRIFTED = "changed after this session"

"""Fork (``f``): pick a point (default: the end), confirm, jump to the new session.

One dialog for every source, driven through its writer
(:class:`sidtui.core.sources.base.Source`): ``source.fork`` at a point, or with ``tip``
the branch ending at a leaf (``source.switch_branch``, for a source whose branch switch
writes a new session), or with ``repair`` every complete record (``source.repair``).
A branch fork and a repair are previewed first (the same call with ``dry_run=True``).

For a session the agent cannot load, a source that can salvage offers **Salvage** on the
same key: a preview of what ``source.salvage`` would copy and leave out, then a confirmed
write. Every variant writes a *new* session file; the source file is never changed. What
a fork takes along beside the records is the source's capability, said in the summary:
the checkpoint snapshots (checkpoints per tool batch) or the file-history backups of its
prompts (checkpoints per prompt).
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Static

from sidtui.core.sources.writes import PROMPT, TOOL_BATCH, WriteOptions
from sidtui.fmt import messages_said, plural, printable
from sidtui.tui.fmt import NARROW_MAX, cell, one_line, plain, short_time
from sidtui.tui.messages import ForkComputed, RewindPointsListed
from sidtui.tui.widgets.row_table import RowTable
from sidtui.tui.worker_errors import ReportsWorkerErrors

#: What a fork takes along beside the records (the summary's words), per checkpoint unit.
FORK_NOTES = {
    TOOL_BATCH: (
        "A new session gets the history up to the chosen point; its checkpoints are "
        "inherited. The source is not changed."
    ),
    PROMPT: (
        "A new session gets the conversation up to the chosen point, and the file-history "
        "backups of its prompts. The source is not changed."
    ),
    None: (  # an agent that keeps no file states
        "A new session gets the history up to the chosen point; there are no checkpoints "
        "to take along (the agent keeps no file states). The source is not changed."
    ),
}


#: The most a point's prompt shows (the core's previews are this long).
PROMPT_CHARS = 60


class ForkScreen(ReportsWorkerErrors, ModalScreen):
    """Fork, fork a branch, repair or salvage; dismisses with the new session's result
    (None when cancelled).

    Args:
        source: the session's source (:func:`sidtui.core.sources.source_for`).
        view: the session, read into the common model.
        tip: a row of ``source.branch_tips`` (with its ``index``): fork the branch ending
            there.
        repair: write every complete record into a session the agent resumes whole.
    """

    CSS_PATH = "modal.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("y", "apply", "Confirm")]

    def __init__(self, source, view, *, tip: dict | None = None, repair: bool = False) -> None:
        super().__init__()
        self.source = source
        self.view = view
        self.tip = tip
        self.repair = repair
        self.fixes: list[dict] = []
        self.salvage = tip is None and not repair and self.can_salvage(source, view)
        self.points = []

    @property
    def previewed(self) -> bool:
        """A branch fork or a repair: previewed first, no point to pick."""
        return self.tip is not None or self.repair

    @staticmethod
    def can_salvage(source, view) -> bool:
        """The agent cannot load ``view`` and its source can salvage: the key offers a
        salvage instead of a fork."""
        return source.supports("salvage") and view.file.kind == "main" and not view.loaded.loadable

    def compose(self) -> ComposeResult:
        if self.previewed:
            with Vertical(classes="modal-box"):
                title = (
                    f"Repair into a new session {self.source.label} resumes whole"
                    if self.repair
                    else f"Fork the branch ending at line {self.tip['line']}"  # type: ignore[index]
                )
                yield Static(plain(title), classes="modal-title")
                yield Static("computing…", id="fork-summary", classes="modal-summary")
                with Horizontal(classes="modal-buttons"):
                    verb = "Repair (y)" if self.repair else "Fork (y)"
                    yield Button(verb, id="apply", variant="primary", disabled=True)
                    yield Button("Cancel (Esc)", id="cancel")
            return
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
        if self.previewed:
            self.run(dry_run=True)
            return
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
        # Widths given, not measured: a column sized to its header cut the time to
        # "04:0" and the prompt to the header's 28 characters.
        t.add_column("point", width=5)
        t.add_column("time", width=8)
        t.add_column("fork ends before this prompt", width=self.prompt_width())
        t.add_row("end", "", "the whole session (default)", key="end")
        t.focus()
        summary.update(FORK_NOTES[self.source.checkpoint_unit])
        self._list_points(self.view)

    @work(
        thread=True,
        exclusive=True,
        group="fork-points",
        exit_on_error=False,
        description="listing the fork points",
    )
    def _list_points(self, view) -> None:
        self.post_message(RewindPointsListed(self.source.rewind_points(view)))

    def prompt_width(self) -> int:
        """Cells of the prompt column: what the dialog leaves beside the point and the
        time (the box's border and padding, three columns' padding, a scrollbar), at most
        the 60 characters a point's preview has."""
        width = self.app.size.width
        box = width if width <= NARROW_MAX else width * 9 // 10 - 4
        return max(16, min(PROMPT_CHARS, box - 5 - 8 - 6 - 2))

    def on_rewind_points_listed(self, msg: RewindPointsListed) -> None:
        self.points = msg.points
        t = self.query_one("#fork-points", DataTable)
        room = self.prompt_width()
        for p in reversed(self.points):
            t.add_row(
                str(p.id),
                short_time(p.timestamp)[11:],
                cell(one_line(p.preview, room)),
                key=str(p.id),
            )

    def selected_point(self):
        if self.salvage or self.previewed:
            return None
        t = self.query_one("#fork-points", DataTable)
        if t.cursor_row <= 0:
            return None
        return list(reversed(self.points))[t.cursor_row - 1]

    @work(thread=True, exclusive=True, group="fork", exit_on_error=False, description="forking")
    def run(self, dry_run: bool, point=None) -> None:
        from sidtui.core.base.errors import SidtuiError

        src = self.source
        try:
            if self.repair:
                rr = src.repair(self.view, dry_run=dry_run)
                self.fixes = rr.fixes + [
                    {"what": "lost", "line": b["line"], "detail": b["reason"]} for b in rr.lost
                ]
                res = rr.fork
            elif self.tip is not None:
                opts = WriteOptions(dry_run=dry_run)
                res = src.switch_branch(self.view, self.tip["index"], opts)
            elif self.salvage:
                res = src.salvage(self.view, dry_run=dry_run)
            else:
                res = src.fork(self.view, point.id if point is not None else None, dry_run=dry_run)
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
        if msg.preview and self.repair:
            self._repair_summary(res)
            return
        if msg.preview and self.tip is not None:
            self._branch_summary(res)
            return
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
                    f"left out: {len(lo.get('bad_lines', []))} bad line(s), "
                    f"{lo.get('records_not_copied', 0)} record(s) off the salvaged chain, "
                    f"{len(lo.get('joins', []))} join(s)\n",
                    style="yellow",
                )
            for b in lo.get("bad_lines", [])[:5]:
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

    def _branch_summary(self, res) -> None:
        tip = self.tip or {}
        t = Text(
            printable(
                f"A new session gets the {tip.get('kind', 'branch')} branch ending at line "
                f"{tip.get('line')}: {messages_said(res)} "
                f"({plural(res.records_copied, 'record')}) copied from {res.source_session_id}, "
                f"uuids remapped; this session is not changed.\n"
            )
        )
        if tip.get("kind") == "branch":
            t.append("Resume never picks this branch: the fork makes it resumable.\n", style="dim")
        self._ready(t, res)

    def _repair_summary(self, res) -> None:
        t = Text(
            printable(
                f"A new session gets every complete record of the conversation, one per line: "
                f"{messages_said(res)} in {plural(res.records_copied, 'record')} "
                f"from {res.source_session_id}, with the file-history backups and subagent "
                "files; this session is not changed.\n"
            )
        )
        if not self.fixes:
            t.append(
                f"Nothing to mend: {self.source.label} already resumes it whole.\n", style="dim"
            )
        for f in self.fixes:
            t.append(printable(f"• line {f['line']}: {f['what']}: {f['detail']}\n"))
        self._ready(t, res)

    def _ready(self, t: Text, res) -> None:
        """A preview's summary with its warnings; the button is now enabled."""
        for w in res.warnings:
            t.append(printable(f"⚠ {w}\n"), style="yellow")
        self.query_one("#fork-summary", Static).update(t)
        self.query_one("#apply", Button).disabled = False

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

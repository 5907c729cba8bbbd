"""Fork a Claude Code session (``f``), or one of its branches (``b`` in the Tips tab):
sid-code's Fork modal on :mod:`sidtui.core.claude.fork`.

A fork at a prompt (or of the whole conversation) and a fork of a branch resume will not
pick both write a **new** session file Claude Code can ``--resume`` (uuids remapped, the
file-history backups of copied prompts along); the source is never changed. A branch fork
is previewed first (:func:`~sidtui.core.claude.fork.fork_session` with ``dry_run=True``).
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from sidtui.fmt import messages_said, plural, printable
from sidtui.tui.fmt import plain
from sidtui.tui.messages import ForkComputed, RewindPointsListed
from sidtui.tui.screens.fork import ForkScreen


class ClaudeForkScreen(ForkScreen):
    """Fork at a point (default: the whole conversation), or with ``tip`` (a row of
    :func:`~sidtui.core.claude.fork.branch_tips`) the branch ending there; dismisses with
    the ``ClaudeForkResult`` (None when cancelled)."""

    FORK_NOTE = (
        "A new session gets the conversation up to the chosen point, and the file-history "
        "backups of its prompts. The source is not changed."
    )

    def __init__(self, view, *, tip: dict | None = None, repair: bool = False) -> None:
        self.tip = tip
        self.repair = repair  # `sidtui repair`: every complete record, resumed whole
        self.fixes: list[dict] = []
        super().__init__(view)

    @staticmethod
    def can_salvage(view) -> bool:
        return False  # Claude Code recovers a damaged file itself (ClaudeSource.mutations)

    def compose(self) -> ComposeResult:
        if self.tip is None and not self.repair:
            yield from super().compose()
            return
        with Vertical(classes="modal-box"):
            title = (
                "Repair into a new session Claude Code resumes whole"
                if self.repair
                else f"Fork the branch ending at line {self.tip['line']}"  # type: ignore[index]
            )
            yield Static(plain(title), classes="modal-title")
            yield Static("computing…", id="fork-summary", classes="modal-summary")
            with Horizontal(classes="modal-buttons"):
                verb = "Repair (y)" if self.repair else "Fork (y)"
                yield Button(verb, id="apply", variant="primary", disabled=True)
                yield Button("Cancel (Esc)", id="cancel")

    def on_mount(self, event) -> None:
        if self.tip is None and not self.repair:
            return  # ForkScreen.on_mount runs next (Textual calls each class's handler)
        event.prevent_default()
        self.run(dry_run=True)

    def selected_point(self):
        return None if self.tip is not None or self.repair else super().selected_point()

    @work(
        thread=True,
        exclusive=True,
        group="fork-points",
        exit_on_error=False,
        description="listing the fork points",
    )
    def _list_points(self, view) -> None:
        from sidtui.core.claude.rewind import rewind_points

        self.post_message(RewindPointsListed(rewind_points(view)))

    @work(thread=True, exclusive=True, group="fork", exit_on_error=False, description="forking")
    def run(self, dry_run: bool, point=None) -> None:
        from sidtui.core.base.errors import SidtuiError
        from sidtui.core.claude.fork import fork_session

        try:
            if self.repair:
                from sidtui.core.claude.repair import repair_session

                rr = repair_session(self.view, dry_run=dry_run)
                self.fixes = rr.fixes + [
                    {"what": "lost", "line": b["line"], "detail": b["reason"]} for b in rr.lost
                ]
                res = rr.fork
            elif self.tip is not None:
                res = fork_session(self.view, tip=self.tip["index"], dry_run=dry_run)
            elif point is not None and point.message_index == 0:
                raise SidtuiError("point 1 is the first message: a fork before it would be empty")
            else:
                before = point.message_index if point is not None else None
                res = fork_session(self.view, before=before, dry_run=dry_run)
        except (SidtuiError, OSError, ValueError) as exc:
            self.post_message(ForkComputed(None, str(exc)))
            return
        self.post_message(ForkComputed(res, preview=dry_run))

    def on_fork_computed(self, msg: ForkComputed) -> None:
        if msg.error or not msg.preview:
            return  # ForkScreen.on_fork_computed says it (and dismisses with the result)
        msg.prevent_default()
        res, tip = msg.result, self.tip or {}
        if self.repair:
            self._repair_summary(res)
            return
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
        for w in res.warnings:
            t.append(printable(f"⚠ {w}\n"), style="yellow")
        self.query_one("#fork-summary", Static).update(t)
        self.query_one("#apply", Button).disabled = False

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
            t.append("Nothing to mend: Claude Code already resumes it whole.\n", style="dim")
        for f in self.fixes:
            t.append(printable(f"• line {f['line']}: {f['what']}: {f['detail']}\n"))
        for w in res.warnings:
            t.append(printable(f"⚠ {w}\n"), style="yellow")
        self.query_one("#fork-summary", Static).update(t)
        self.query_one("#apply", Button).disabled = False

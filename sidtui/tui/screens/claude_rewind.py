"""Rewind a Claude Code session (``r`` on its screen): sid-code's Rewind modal on the
Claude Code core.

Points are :func:`sidtui.core.claude.rewind.rewind_points`; the preview is
:func:`sidtui.core.claude.rewind.rewind` with ``dry_run=True``, and confirming runs the same
call for real — the same sequence as ``sidtui rewind``: a restore a killed sidtui left
half-done is finished first (and only that), a live session or a drifted file is asked
about again (force), the project root is checked by the core. A conversation rewind writes
a **new** session (the original file is never changed); the result names it.
"""

from __future__ import annotations

import copy

from rich.text import Text
from textual import work

from sidtui.fmt import plural, printable
from sidtui.tui.messages import RewindComputed, RewindPointsListed
from sidtui.tui.screens.rewind import RewindScreen, rewind_drift


class ClaudeRewindScreen(RewindScreen):
    """Rewind conversation (into a new session), code or both to just before a prompt;
    dismisses with the ``ClaudeRewindResult`` of a real run (None: nothing written)."""

    CONVERSATION_NOTE = " (a new session without them; this file is not changed)\n"

    @work(
        thread=True,
        exclusive=True,
        group="rewind-points",
        exit_on_error=False,
        description="listing the rewind points",
    )
    def _list_points(self, view) -> None:
        from sidtui.core.claude.rewind import rewind_points
        from sidtui.core.edits.points import MAX_PICKER_POINTS

        points = rewind_points(view)[-MAX_PICKER_POINTS:]
        why = None if points else "no typed prompt in the conversation resume loads"
        self.post_message(RewindPointsListed(points, why))

    @work(
        thread=True,
        exclusive=True,
        group="rewind",
        exit_on_error=False,
        description="computing the rewind",
    )
    def run_rewind(self, point: int, mode: str, *, dry_run: bool, force: bool) -> None:
        from sidtui.core.base.errors import SidtuiError
        from sidtui.core.claude.code_restore import CodeRestorer, DriftRefused, SessionIsLive
        from sidtui.core.claude.rewind import rewind

        try:
            if mode != "conversation":
                done = CodeRestorer(self.view).finish_interrupted(dry_run=dry_run)
                if done is not None and (done.safety_snapshot_id is not None or done.files):
                    # as `sidtui rewind`: that is all this run does (a preview: would do)
                    if dry_run:
                        self.post_message(
                            RewindComputed(
                                None, finishing=done.warnings[0], finishing_files=done.files
                            )
                        )
                    else:
                        self.post_message(
                            RewindComputed(None, applied=True, finished=done.describe())
                        )
                    return
            res = rewind(self.view, point, mode, dry_run=dry_run, force=force)
        except SessionIsLive as exc:
            self.post_message(RewindComputed(None, str(exc), live=True))
            return
        except DriftRefused as exc:  # a file changed since the preview: nothing written
            self.post_message(RewindComputed(None, str(exc), stale=True))
            return
        except (SidtuiError, OSError, ValueError) as exc:
            self.post_message(RewindComputed(None, str(exc)))
            return
        self.post_message(RewindComputed(res, applied=not dry_run, drift=rewind_drift(res)))

    def _preview_renderable(self, res):
        """sid-code's preview; the core's per-file notes (drift, skips) are left to the
        Files table and the drift line, which already say them relative to the root."""
        paths = {f.get("path") for f in res.files}
        shown = copy.copy(res)
        shown.warnings = [w for w in res.warnings if w.split(": ", 1)[0] not in paths]
        if res.drift and res.refusal and "changed after this session" in res.refusal:
            shown.refusal = None  # the drift line above says it (and confirming asks)
        return super()._preview_renderable(shown)

    def action_cancel(self) -> None:
        self.dismiss(self.last_result if self.applied else None)

    def _result_renderable(self, res):
        t = Text()
        t.append("Rewound.\n", style="bold green")
        t.append(f"point {res.point.id}, mode {res.mode}\n")
        if res.fork is not None:
            t.append(
                printable(
                    f"new session {res.fork.session_id}: "
                    f"{plural(res.fork.message_count, 'message')} "
                    f"({plural(res.messages_dropped, 'message')} left out); "
                    "this session is unchanged\n"
                )
            )
            t.append(printable(f"resume it with: claude --resume {res.fork.session_id}\n"))
        if res.mode != "conversation":
            t.append(f"files restored: {res.files_restored}\n")
            skipped = [f for f in res.files if f.get("action") == "skipped"]
            t.append(f"files skipped: {len(skipped)}\n")
            for f in skipped:
                t.append(
                    printable(f"  {self._shown(res, f.get('path'))}: {f.get('reason')}\n"),
                    style="dim",
                )
        if res.safety_snapshot:
            t.append(
                f"safety snapshot: {res.safety_snapshot} (U on the session screen takes the "
                "files back)\n"
            )
        for w in res.warnings:
            t.append(printable(f"⚠ {w}\n"), style="yellow")
        return t

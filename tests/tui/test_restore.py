"""Checkpoints as a person uses them: keys listed and working from anywhere in the tab,
project-relative paths, whole entry chains, redo in the app, dialogs named after what
they do, and drifted files asked about twice."""

from __future__ import annotations

from pathlib import Path

from sidtui.tui.app import make_app
from sidtui.tui.screens.confirm import ConfirmScreen
from sidtui.tui.screens.help import HelpScreen
from sidtui.tui.screens.restore_preview import RestorePreviewScreen
from tests.tui_support import (
    demo_home_fixed,
    fresh_demo,
    open_session,
    screen_lines,
    settle,
    widget_text,
)


async def _checkpoints(app, pilot, sid):
    s = await open_session(app, pilot, sid)
    await pilot.press("3")
    await settle(app, pilot)
    return s, s.query_one("#checkpoints-panel")


async def test_checkpoint_keys_work_from_the_lists_and_are_listed():
    """Regression: s/n/p worked only after Tab Tab to the diff pane and ? did not list
    them; the summary showed a cut absolute path; the entry chain was cut at 6 entries
    without an ellipsis (the CLI shows them all)."""
    home, cases = demo_home_fixed()
    app = make_app(home, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        s, panel = await _checkpoints(app, pilot, cases["checkpoints"])
        assert app.focused is panel.query_one("#snapshots")
        diff = panel.query_one("#ckpt-diff")
        panel.query_one("#snapshots").move_cursor(row=1)  # s3: readings.csv changes later
        await settle(app, pilot)
        unified = diff.unified
        await pilot.press("s")
        assert diff.unified is not unified
        await pilot.press("n")
        assert diff.current_hunk == 0
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        t = app.screen.query_one("#help-table")
        does = {str(t.get_cell_at((i, 2))) for i in range(t.row_count)}
        assert {"Next hunk", "Prev hunk", "Unified/side-by-side", "Redo…", "Undo…"} <= does
        await pilot.press("escape")
        await settle(app, pilot)
        root = str(panel.manager.project_root)
        drawn = "\n".join(screen_lines(app))
        assert root not in drawn  # every path relative to the project, as the CLI prints
        files = panel.query_one("#ckpt-files")
        shown = {str(files.get_cell_at((i, 0))) for i in range(files.row_count)}
        assert shown == {
            p.removeprefix(root + "/")
            for p in (e["filePath"] for e in panel.selected_snapshot().files)
        }
        chain = panel.chains[panel.selected_file()]
        assert str(panel.query_one("#ckpt-chain").render()).endswith(
            f"{chain.drawing} ({len(chain.links)} entries)"
        )
        assert files.get_cell_at((0, 1)).overflow == "ellipsis"


async def test_undo_then_redo_in_the_app_with_dialogs_named_after_what_they_do(short_tmp_path):
    """Regression: the undo dialog said "(redo takes it back)" but the app had no redo;
    the restore dialog was titled "Undo preview" with an "Undo (y)" button."""
    demo = fresh_demo(short_tmp_path)
    app = make_app(demo.home, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        s, panel = await _checkpoints(app, pilot, demo.cases["checkpoints"])
        await pilot.press("u")
        await settle(app, pilot)
        undo = app.screen
        assert isinstance(undo, RestorePreviewScreen) and undo.op == "undo"
        assert str(undo.query_one("#apply").label) == "Undo (y)"
        assert "Undo the latest agent batch" in " ".join(screen_lines(app))
        before = {f.path: f.old for f in undo.plan.changed}
        after = {f.path: f.new for f in undo.plan.changed}
        assert before
        await pilot.press("y")
        await settle(app, pilot)
        assert undo.applied
        assert "U (redo) takes it back" in " ".join(screen_lines(app))
        assert {p: _read(p) for p in after} == after
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("U")
        await settle(app, pilot)
        redo = app.screen
        assert isinstance(redo, RestorePreviewScreen) and redo.op == "redo"
        assert str(redo.query_one("#apply").label) == "Redo (y)"
        assert "Redo: take the last undo or restore back" in " ".join(screen_lines(app))
        await pilot.press("y")
        await settle(app, pilot)
        assert redo.applied and {p: _read(p) for p in before} == before
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("R")
        await settle(app, pilot)
        restore = app.screen
        assert isinstance(restore, RestorePreviewScreen) and restore.op == "restore"
        assert str(restore.query_one("#apply").label) == "Restore (y)"
        snap = panel.selected_snapshot().id
        assert f"Restore every file to before {snap}" in " ".join(screen_lines(app))
        titles = {c.title for c in app.get_system_commands(s)}
        assert {"Undo…", "Redo…"} <= titles


def _read(path: str) -> bytes | None:
    p = Path(path)
    return p.read_bytes() if p.exists() else None


async def test_drifted_files_are_named_and_asked_about_again(short_tmp_path):
    """A file changed after the session's last batch (a hand edit) is marked in the undo
    preview with the core's drift wording, and confirming asks a second time before it is
    replaced (then applied with force, as ``sidtui undo --force``)."""
    from sidtui.core.checkpoints.drift import DRIFT_WORDING

    demo = fresh_demo(short_tmp_path)
    app = make_app(demo.home, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        s, panel = await _checkpoints(app, pilot, demo.cases["checkpoints"])
        await pilot.press("u")
        await settle(app, pilot)
        path = app.screen.plan.changed[0].path
        assert not app.screen.drift  # as the session left it: nothing to ask twice
        await pilot.press("escape")
        await settle(app, pilot)
        with open(path, "ab") as fh:
            fh.write(b"# a hand edit after the session\n")
        edited = _read(path)
        await pilot.press("u")
        await settle(app, pilot)
        undo = app.screen
        assert isinstance(undo, RestorePreviewScreen) and path in undo.drift
        drawn = " ".join(" ".join(screen_lines(app)).split())
        assert f"⚠ 1 file {DRIFT_WORDING}" in drawn
        assert "⚠ changed after this session" in drawn
        await pilot.press("y")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert Path(path).name in str(app.screen.question)
        await pilot.press("n")
        await settle(app, pilot)
        assert app.screen is undo and not undo.applied and _read(path) == edited
        await pilot.press("y")
        await settle(app, pilot)
        await pilot.press("y")
        await settle(app, pilot)
        assert undo.applied and _read(path) != edited


async def test_a_drifted_file_in_the_rewind_preview_is_asked_about_again(short_tmp_path):
    """The rewind dialog's code step marks a hand-edited file with the core's drift
    wording; confirming asks again, and "no" leaves the file and the transcript alone."""
    from sidtui.core.checkpoints.drift import DRIFT_WORDING
    from sidtui.tui.screens.rewind import RewindScreen

    demo = fresh_demo(short_tmp_path)
    app = make_app(demo.home, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        s = await open_session(app, pilot, demo.cases["checkpoints"])
        await pilot.press("r")
        await settle(app, pilot)
        modal = app.screen
        assert isinstance(modal, RewindScreen)
        row = len(modal.points) - 1  # the last prompt: its batch wrote analyze.py
        await pilot.press("m", "m")  # conversation → code → both
        await settle(app, pilot)
        files = modal.last_result.files
        proven = [f for f in files if f["action"] != "unchanged" and f["drift"] == "same"]
        assert proven and not modal.drift
        path = proven[0]["path"]
        await pilot.press("escape")
        await settle(app, pilot)
        with open(path, "ab") as fh:
            fh.write(b"# a hand edit after the session\n")
        edited, size = _read(path), s.sf.path.stat().st_size
        await pilot.press("r")
        await settle(app, pilot)
        modal = app.screen
        modal.query_one("#rewind-points").move_cursor(row=row)
        await settle(app, pilot)
        await pilot.press("m", "m")
        await settle(app, pilot)
        assert path in modal.drift
        drawn = widget_text(app, modal.query_one("#rewind-preview"))
        assert (
            f"1 file {DRIFT_WORDING}: analyze.py" in drawn
            and "⚠ changed after this" in drawn  # (the why column may wrap "session")
        )
        await pilot.press("y")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert Path(path).name in str(app.screen.question)
        await pilot.press("n")
        await settle(app, pilot)
        assert app.screen is modal and not modal.applied
        assert _read(path) == edited and s.sf.path.stat().st_size == size
        await pilot.press("y")
        await settle(app, pilot)
        await pilot.press("y")
        await settle(app, pilot)
        assert modal.applied and _read(path) != edited


async def test_a_file_changed_after_the_preview_is_shown_and_asked_about(short_tmp_path):
    """A file edited while the undo preview is open: applying is refused by the core
    (nothing written), the plan is shown again with the file marked, and confirming now
    asks about it."""
    demo = fresh_demo(short_tmp_path)
    app = make_app(demo.home, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        s, panel = await _checkpoints(app, pilot, demo.cases["checkpoints"])
        await pilot.press("u")
        await settle(app, pilot)
        undo = app.screen
        path = undo.plan.changed[0].path
        assert not undo.drift
        with open(path, "ab") as fh:
            fh.write(b"# edited while the preview was open\n")
        edited = _read(path)
        await pilot.press("y")
        await settle(app, pilot)
        assert app.screen is undo and not undo.applied and _read(path) == edited
        assert path in undo.drift
        assert "changed since the preview" in " ".join(" ".join(screen_lines(app)).split())
        await pilot.press("y")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)


class _Killed(BaseException):
    """Stands for a kill between the safety snapshot and the file writes."""


def _kill_an_undo(short_tmp_path, monkeypatch):
    """A demo whose checkpoints session has an undo killed after its safety snapshot:
    ``(demo, sid, manager, {path: bytes the undo writes})``, no file written yet."""
    from sidtui.core.base.home import Home
    from sidtui.core.base.resolve import resolve_session
    from sidtui.core.checkpoints.manager import CheckpointManager
    from sidtui.core.edits.rewind import project_root
    from sidtui.core.views.session import open_session as open_view

    demo = fresh_demo(short_tmp_path)
    sid = demo.cases["checkpoints"]
    home = Home(demo.home)
    view = open_view(home, resolve_session(home, sid))
    mgr = CheckpointManager.for_session(home, sid, project_root=project_root(view).path)
    plan = mgr.undo(dry_run=True)
    targets = {f.path: f.new for f in plan.changed}
    before = {p: _read(p) for p in targets}
    with monkeypatch.context() as m:
        saved = CheckpointManager.create_snapshot

        def killed(self, *args, **kwargs):  # the safety snapshot lands, then the kill
            saved(self, *args, **kwargs)
            raise _Killed

        m.setattr(CheckpointManager, "create_snapshot", killed)
        try:
            mgr.undo()
        except _Killed:
            pass
    assert mgr.journal is not None and {p: _read(p) for p in targets} == before
    return demo, sid, mgr, targets


async def test_an_interrupted_undo_is_said_and_finished_first(short_tmp_path, monkeypatch):
    """An undo killed after its safety snapshot leaves a journal: the app's undo preview
    says so, and applying finishes that undo (its files written) and does nothing else,
    as ``sidtui undo`` does."""
    demo, sid, mgr, targets = _kill_an_undo(short_tmp_path, monkeypatch)
    snapshots = len(mgr.reload().snapshots)
    app = make_app(demo.home, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        s, panel = await _checkpoints(app, pilot, sid)
        await pilot.press("u")
        await settle(app, pilot)
        undo = app.screen
        # the preview is what applying does, as `sidtui undo --dry-run` says it: the finish
        said = " ".join(str(undo.query_one("#undo-summary").render()).split())
        assert said.startswith("a real run only finishes an interrupted undo"), said
        assert "Applying does only that" in said and "nothing else is done" in said
        assert {f.path: f.new for f in undo.plan.changed} == targets  # its files and diffs
        await pilot.press("y")
        await settle(app, pilot)
        if isinstance(app.screen, ConfirmScreen):  # the demo's own drift, if any
            await pilot.press("y")
            await settle(app, pilot)
        assert undo.applied
        # the dialog's own summary (the drawn screen wraps it between borders)
        said = " ".join(str(undo.query_one("#undo-summary").render()).split())
        assert "finished an interrupted undo" in said and "nothing else was done" in said
    assert mgr.journal is None
    assert {p: _read(p) for p in targets} == targets
    assert len(mgr.reload().snapshots) == snapshots  # no second safety snapshot


async def test_the_rewind_preview_is_the_finish_of_an_interrupted_undo(short_tmp_path, monkeypatch):
    """While a killed undo is pending, the rewind dialog's preview is what applying does
    (as `sidtui rewind --dry-run` says it): that undo finished, its files and diffs, and
    nothing else; applying does just that and leaves the conversation alone."""
    from sidtui.tui.screens.rewind import RewindScreen

    demo, sid, mgr, targets = _kill_an_undo(short_tmp_path, monkeypatch)
    app = make_app(demo.home, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        s = await open_session(app, pilot, sid)
        size = s.sf.path.stat().st_size
        await pilot.press("r")
        await settle(app, pilot)
        modal = app.screen
        assert isinstance(modal, RewindScreen)
        drawn = " ".join(widget_text(app, modal.query_one("#rewind-preview")).split())
        assert "a real run only finishes an interrupted undo" in drawn, drawn
        assert "the rewind itself is not run" in drawn and "refused" not in drawn
        assert {p: _read(p) for p in targets} != targets  # the preview wrote nothing
        await pilot.press("y")
        await settle(app, pilot)
        assert modal.applied
        drawn = " ".join(widget_text(app, modal.query_one("#rewind-preview")).split())
        assert "finished an interrupted undo" in drawn and "nothing else was done" in drawn
    assert mgr.journal is None and {p: _read(p) for p in targets} == targets
    assert s.sf.path.stat().st_size == size  # no rewind marker


async def test_undo_of_the_file_selected_in_the_file_list(short_tmp_path):
    """``u`` with the Files list focused previews (then runs) the core's ``undo_file`` of
    that file only, as ``sidtui undo --file``; the dialog names it relative to the project."""
    demo = fresh_demo(short_tmp_path)
    app = make_app(demo.home, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        s, panel = await _checkpoints(app, pilot, demo.cases["checkpoints"])
        files = panel.query_one("#ckpt-files")
        files.focus()
        await settle(app, pilot)
        path = panel.selected_file()
        cli = panel.manager.undo_file(path, dry_run=True)  # what `undo --file --dry-run` plans
        await pilot.press("u")
        await settle(app, pilot)
        u = app.screen
        assert isinstance(u, RestorePreviewScreen) and (u.op, u.path) == ("undo-file", path)
        root = str(panel.manager.project_root)
        assert f"Undo one file: {path.removeprefix(root + '/')}" in " ".join(screen_lines(app))
        assert [(f.path, f.action) for f in u.plan.files] == [(f.path, f.action) for f in cli.files]
        others = {f: _read(f) for f in panel.chains if f != path}
        await pilot.press("y")
        await settle(app, pilot)
        if isinstance(app.screen, ConfirmScreen):  # drifted: asked again
            await pilot.press("y")
            await settle(app, pilot)
        assert u.applied
        assert _read(path) == next(f.new for f in cli.files if f.path == path)
        assert {f: _read(f) for f in others} == others


async def test_a_pending_restore_is_said_in_the_session_header(short_tmp_path, monkeypatch):
    """A killed undo's journal is said when its session opens, as `ls` and `show` say it:
    the header's state gains "(restore pending)", counted as a warning, and a toast says
    what it left."""
    demo, sid, mgr, targets = _kill_an_undo(short_tmp_path, monkeypatch)
    app = make_app(demo.home, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        s, _ = await _checkpoints(app, pilot, sid)
        head = str(s.query_one("#session-head").render())
        assert "(restore pending)" in head, head
        assert [p.session for p in s.pending] == [sid]
        assert any("was killed" in n.message for n in app._notifications), [
            n.message for n in app._notifications
        ]

"""Checkpoints as a person uses them: keys listed and working from anywhere in the tab,
project-relative paths, whole entry chains, redo in the app, dialogs named after what
they do, and drifted files asked about twice."""

from __future__ import annotations

from pathlib import Path

from sidtui.tui.app import make_app
from sidtui.tui.screens.confirm import ConfirmScreen
from sidtui.tui.screens.help import HelpScreen
from sidtui.tui.screens.restore_preview import RestorePreviewScreen
from tests.tui_support import demo_home_fixed, fresh_demo, open_session, screen_lines, settle


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


async def test_undo_then_redo_in_the_app_with_dialogs_named_after_what_they_do(tmp_path):
    """Regression: the undo dialog said "(redo takes it back)" but the app had no redo;
    the restore dialog was titled "Undo preview" with an "Undo (y)" button."""
    demo = fresh_demo(tmp_path)
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


async def test_drifted_files_are_named_and_asked_about_again(tmp_path):
    """A file changed after the session's last batch (a hand edit) is marked in the undo
    preview with the core's drift wording, and confirming asks a second time before it is
    replaced (then applied with force, as ``sidtui undo --force``)."""
    from sidtui.core.checkpoints.drift import DRIFT_WORDING

    demo = fresh_demo(tmp_path)
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

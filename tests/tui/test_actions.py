"""Pilot tests of the app's actions on a private demo home: rewind with
``Esc Esc``, undo preview, fork, salvage, search, help and the command palette. Each test
asserts what is on disk afterwards."""

from __future__ import annotations

import orjson
import pytest

from sidtui.core.base.discover import discover
from sidtui.core.base.home import Home
from sidtui.core.base.resolve import resolve_session
from sidtui.core.checkpoints.manager import CheckpointManager
from sidtui.tui.app import make_app
from sidtui.tui.screens.confirm import ConfirmScreen
from sidtui.tui.screens.fork import ForkScreen
from sidtui.tui.screens.help import HelpScreen
from sidtui.tui.screens.restore_preview import RestorePreviewScreen
from sidtui.tui.screens.rewind import RewindScreen
from sidtui.tui.screens.search import SearchScreen
from sidtui.tui.screens.session import SessionScreen
from tests.tui_support import fresh_demo, settle

pytestmark = pytest.mark.asyncio


@pytest.fixture
def demo(short_tmp_path):
    return fresh_demo(short_tmp_path)


async def _open(app, pilot, sid):
    app.open_session(resolve_session(app.home, sid))
    await settle(app, pilot)
    assert isinstance(app.screen, SessionScreen) and app.screen.view is not None
    return app.screen


def _last_record(path):
    lines = [ln for ln in path.read_bytes().splitlines() if ln.strip()]
    return orjson.loads(lines[-1])


async def test_rewind_with_escape_escape_conversation_and_code(demo):
    sid = demo.cases["checkpoints"]
    app = make_app(demo.home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        s = await _open(app, pilot, sid)
        path = s.sf.path
        size_before = path.stat().st_size
        await pilot.press("escape", "escape")
        await settle(app, pilot)
        modal = app.screen
        assert isinstance(modal, RewindScreen)
        assert modal.points
        # pick the first point that can restore files, switch to "both"
        table = modal.query_one("#rewind-points")
        target = next(i for i, p in enumerate(modal.points) if p.restore_from)
        table.move_cursor(row=target)
        await settle(app, pilot)
        await pilot.press("m", "m")  # conversation → code → both
        await settle(app, pilot)
        assert modal.mode == "conversation-and-code"
        preview = modal.last_result
        assert preview is not None and preview.dry_run
        assert path.stat().st_size == size_before  # a preview writes nothing
        changing = [f for f in preview.files if f["action"] in ("restored", "deleted")]
        await pilot.press("y")
        await settle(app, pilot)
        if preview.drift:  # a shell batch's file cannot be proven the session's: asked again
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("y")  # force: the uncertain files are restored too
            await settle(app, pilot)
            changing += [f for f in preview.files if f["action"] == "skipped" and f["uncertain"]]
        res = modal.last_result
        assert modal.applied and not res.dry_run
        assert res.files_restored == len(changing)
        last = _last_record(path)
        assert last["type"] == "metadata" and last["key"] == "rewind"
        if changing:
            assert res.safety_snapshot
        await pilot.press("escape")
        await settle(app, pilot)
        # the session screen reloaded: the chain now ends at the marker
        assert app.screen is s
        assert s.view.rf.size > size_before


async def test_rewind_key_r_conversation_only_and_live_refusal(demo):
    sid = demo.cases["clean"]
    app = make_app(demo.home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        s = await _open(app, pilot, sid)
        await pilot.press("r")
        await settle(app, pilot)
        modal = app.screen
        assert isinstance(modal, RewindScreen)
        assert modal.mode == "conversation"
        assert modal.last_result.messages_dropped >= 1
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is s
        assert _last_record(s.sf.path).get("key") != "rewind"  # cancelled: nothing written


async def test_undo_preview_then_confirm(demo):
    sid = demo.cases["checkpoints"]
    app = make_app(demo.home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        s = await _open(app, pilot, sid)
        await pilot.press("3")
        await settle(app, pilot)
        panel = s.query_one("#checkpoints-panel")
        assert panel.snapshots
        assert s.query_one("#ckpt-diff").data is not None
        n_before = len(panel.snapshots)
        await pilot.press("u")
        await settle(app, pilot)
        modal = app.screen
        assert isinstance(modal, RestorePreviewScreen)
        plan = modal.plan
        assert plan is not None and plan.dry_run
        changed = {f.path: f.new for f in plan.changed}
        await pilot.press("y")
        await settle(app, pilot)
        assert modal.applied
        for p, new in changed.items():
            from pathlib import Path

            if new is None:
                assert not Path(p).exists()
            else:
                assert Path(p).read_bytes() == new
        await pilot.press("escape")
        await settle(app, pilot)
        mgr = CheckpointManager.for_session(Home(demo.home), s.view.session_id)
        assert len(mgr.list_snapshots()) == n_before + (1 if changed else 0)  # safety snapshot


async def test_checkpoint_diff_hunks_and_modes(demo):
    sid = demo.cases["checkpoints"]
    app = make_app(demo.home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        s = await _open(app, pilot, sid)
        await pilot.press("3")
        await settle(app, pilot)
        diff = s.query_one("#ckpt-diff")
        diff.focus()
        await pilot.press("s")
        assert diff.unified
        await pilot.press("n")
        await pilot.press("s")
        assert not diff.unified
        await pilot.press("d")  # vs the file on disk now
        await settle(app, pilot)
        assert "disk now" in diff.data.title


async def test_fork_jumps_to_new_session(demo):
    sid = demo.cases["clean"]
    home = Home(demo.home)
    before = {f.session_id for f in discover(home)}
    app = make_app(demo.home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        s = await _open(app, pilot, sid)
        await pilot.press("f")
        await settle(app, pilot)
        assert isinstance(app.screen, ForkScreen)
        await pilot.press("y")
        await settle(app, pilot)
        new = {f.session_id for f in discover(home)} - before
        assert len(new) == 1
        assert isinstance(app.screen, SessionScreen) and app.screen is not s
        assert app.screen.sf.session_id in new
        assert (
            app.screen.view.loaded.metadata.get("forked_from", {}).get("sessionId")
            == s.view.session_id
        )


async def test_salvage_unloadable_session(demo):
    sid = demo.cases["torn_glued"]
    home = Home(demo.home)
    before = {f.session_id for f in discover(home)}
    app = make_app(demo.home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        s = await _open(app, pilot, sid)
        assert not s.view.loaded.loadable
        src = s.sf.path.read_bytes()
        await pilot.press("f")
        await settle(app, pilot)
        modal = app.screen
        assert isinstance(modal, ForkScreen) and modal.salvage
        assert "Salvage copies" in str(modal.query_one("#fork-summary").render())
        await pilot.press("y")
        await settle(app, pilot)
        new = {f.session_id for f in discover(home)} - before
        assert len(new) == 1
        assert s.sf.path.read_bytes() == src  # the source is never changed
        assert app.screen.view.loaded.loadable


async def test_search_opens_session_at_message(demo):
    app = make_app(demo.home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        await settle(app, pilot)
        modal = app.screen
        assert isinstance(modal, SearchScreen)
        # a word from some session's first prompt
        b = app.browser()
        word = next(s.first_prompt.split()[0] for s in b.summaries.values() if s.first_prompt)
        await pilot.press(*word, "enter")
        await settle(app, pilot)
        assert modal.hits
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, SessionScreen)
        hit = modal.hits[0]
        conv = app.screen.query_one("#conversation-view")
        m = conv.model.messages[conv.model.entries[conv.cursor].msg]
        assert m.line <= hit.line


async def test_help_lists_bindings_and_palette_has_actions(demo):
    app = make_app(demo.home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        s = await _open(app, pilot, demo.cases["clean"])
        await pilot.press("question_mark")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        t = help_screen.query_one("#help-table")
        does = {str(t.get_cell_at((i, 2))) for i in range(t.row_count)}
        # "/" is this screen's Find; the app's "/ Search" does not apply here, so it is not
        # listed (issue 30: help listed "/" twice)
        assert {"Rewind", "Fork/Salvage", "Undo…", "Find", "Help"} <= does
        keys = [
            k.strip() for i in range(t.row_count) for k in str(t.get_cell_at((i, 1))).split(",")
        ]
        assert keys.count("/") == 1
        await pilot.press("escape")
        titles = {c.title for c in app.get_system_commands(s)}
        assert {
            "Rewind…",
            "Fork / salvage…",
            "Undo…",
            "Redo…",
            "Find in session",
            "Copy session id",
            "Copy record JSON",
            "Open record in $PAGER",
            "Search sessions",
            "Help",
            "Light theme",
            "Dark theme",
            "Toggle follow",
        } <= titles


async def test_live_session_refused_then_forced(demo):
    import os
    import time

    from sidtui.core.base.home import safe_id

    sid = demo.cases["clean"]
    reg = Home(demo.home).active_sessions_dir / f"{safe_id(sid)}.json"
    reg.parent.mkdir(parents=True, exist_ok=True)
    reg.write_bytes(
        orjson.dumps(
            {
                "sessionId": sid,
                "pid": os.getpid(),
                "kind": "interactive",
                "cwd": "/",
                "startedAt": int(time.time() * 1000),
            }
        )
    )
    app = make_app(demo.home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        s = await _open(app, pilot, sid)
        assert s.view.liveness.live
        path = s.sf.path
        before = path.read_bytes()
        await pilot.press("r")
        await settle(app, pilot)
        modal = app.screen
        assert isinstance(modal, RewindScreen)
        await pilot.press("y")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)  # refused, asks whether to force
        await pilot.press("n")
        await settle(app, pilot)
        assert app.screen is modal and not modal.applied
        assert path.read_bytes() == before
        assert not modal.query_one("#apply").disabled
        await pilot.press("y")
        await settle(app, pilot)
        await pilot.press("y")  # force
        await settle(app, pilot)
        assert modal.applied
        assert _last_record(path)["key"] == "rewind"


async def test_branch_switch_from_chain_tab(demo):
    """`b` on a skipped branch's tip (Chain tab) makes it live through an appended marker."""
    from sidtui.tui.screens.confirm import ConfirmScreen

    sid = demo.cases["concurrent"]
    app = make_app(demo.home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        s = await _open(app, pilot, sid)
        tree = s.view.tree
        assert tree.branches, "the concurrent case has a skipped branch"
        tip = tree.branches[0].tip
        tip_line = s.view.rf.records[tip].line
        tip_uuid = s.view.rf.records[tip].uuid
        await pilot.press("2")
        chain = s.query_one("#chain-view")
        chain.select_line(tip_line)
        await pilot.press("b")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(app, pilot)
        last = _last_record(s.sf.path)
        assert last["key"] == "branch_switch" and last["parentUuid"] == tip_uuid
        assert s.view.rf.records[s.view.tree.live_tip].uuid == last["uuid"]


async def test_restore_before_selected_snapshot(demo):
    """`R` in Checkpoints: every file back to before the selected snapshot, after a preview."""
    from pathlib import Path

    sid = demo.cases["checkpoints"]
    app = make_app(demo.home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        s = await _open(app, pilot, sid)
        await pilot.press("3")
        await settle(app, pilot)
        panel = s.query_one("#checkpoints-panel")
        panel.query_one("#snapshots").move_cursor(row=0)
        await settle(app, pilot)
        await pilot.press("R")
        await settle(app, pilot)
        modal = app.screen
        assert (
            isinstance(modal, RestorePreviewScreen) and modal.snapshot_id == panel.snapshots[0].id
        )
        plan = {f.path: f.new for f in modal.plan.changed}
        assert plan
        await pilot.press("y")
        await settle(app, pilot)
        if modal.plan.drifted:  # a shell batch's file cannot be proven the session's: asked again
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("y")
            await settle(app, pilot)
        for p, new in plan.items():
            assert (Path(p).read_bytes() if Path(p).exists() else None) == new


async def test_salvage_offered_from_the_browser(demo):
    """An unloadable row says so in the browser; ctrl+s opens it with the Salvage modal."""
    sid = demo.cases["torn_glued"]
    app = make_app(demo.home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        b = app.browser()
        table = b.query_one("#sessions")
        key = next(k for k, s in b.summaries.items() if s.session_id == sid)
        table.move_cursor(row=table.get_row_index(key))
        await pilot.pause()
        assert "salvage" in str(b.query_one("#preview").render())
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert isinstance(app.screen, ForkScreen) and app.screen.salvage

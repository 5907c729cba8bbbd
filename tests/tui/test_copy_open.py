"""Copy to the clipboard and open in $PAGER / $EDITOR (the app suspended)."""

from __future__ import annotations

import orjson
import pytest

from sidtui.tui.app import make_app
from sidtui.tui.screens.copy import CopyScreen
from tests.tui_support import demo_home_fixed, open_session, settle


@pytest.fixture
def app_and_runs(monkeypatch):
    """The app on the demo home, with the external program recorded instead of run."""
    home, cases = demo_home_fixed()
    app = make_app(home, poll_interval=0, catalog_path=":memory:")
    runs: list[tuple[list[str], str, int]] = []

    def run_external(argv: list[str]) -> None:
        path = argv[-1]
        with open(path, encoding="utf-8") as fh:
            import os

            runs.append((argv, fh.read(), os.stat(path).st_mode & 0o777))

    monkeypatch.setattr(app, "run_external", run_external)
    return app, cases, runs


async def test_copy_the_session_id_path_and_record(app_and_runs):
    app, cases, _ = app_and_runs
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        s = await open_session(app, pilot, cases["clean"])
        await pilot.press("c")
        await settle(app, pilot)
        assert isinstance(app.screen, CopyScreen)
        await pilot.press("i")
        await settle(app, pilot)
        assert app.clipboard == s.sf.session_id
        await pilot.press("c", "p")
        await settle(app, pilot)
        assert app.clipboard == str(s.sf.path)
        await pilot.press("2", "down")  # the Chain tab's second line
        await settle(app, pilot)
        await pilot.press("c", "r")
        await settle(app, pilot)
        line = s.sf.path.read_bytes().splitlines()[1]
        assert app.clipboard == line.decode()
        await pilot.press("1")  # the Conversation: the record of the message at the cursor
        await settle(app, pilot)
        conv = s.query_one("#conversation-view")
        conv.action_first()
        await settle(app, pilot)
        s.action_copy_record()
        await settle(app, pilot)
        m = conv.model.messages[conv.model.entries[conv.cursor].msg]
        assert orjson.loads(app.clipboard)["uuid"] == m.uuid


async def test_open_the_record_in_the_pager_and_the_editor(app_and_runs, monkeypatch):
    app, cases, runs = app_and_runs
    monkeypatch.setenv("PAGER", "mypager -R")
    monkeypatch.setenv("VISUAL", "")
    monkeypatch.setenv("EDITOR", "myeditor")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        s = await open_session(app, pilot, cases["clean"])
        s.query_one("#conversation-view").action_first()
        await pilot.press("o")
        await settle(app, pilot)
        argv, text, mode = runs[-1]
        assert argv[:2] == ["mypager", "-R"] and argv[-1].endswith(".json")
        assert orjson.loads(text)["type"] == "user_message" and "\n  " in text  # indented
        assert mode == 0o400  # a read-only copy: editing it changes nothing
        await pilot.press("O")
        await settle(app, pilot)
        assert runs[-1][0][0] == "myeditor"
        # a file as it was before a snapshot, from the Checkpoints tab
        s2 = await open_session(app, pilot, cases["checkpoints"])
        await pilot.press("3")
        await settle(app, pilot)
        panel = s2.query_one("#checkpoints-panel")
        panel.query_one("#snapshots").move_cursor(row=0)
        await settle(app, pilot)
        snap, path = panel.selected_snapshot(), panel.selected_file()
        await pilot.press("o")
        await settle(app, pilot)
        expected = panel.manager.rebuild_at(path, snap.id).content
        assert runs[-1][0][0] == "mypager" and runs[-1][1] == expected

"""Pilot tests of the Browser screen on a copy of the real-home fixture."""

from __future__ import annotations

import shutil

import pytest

from sidtui.tui.app import make_app
from sidtui.tui.screens.browser import BrowserScreen
from sidtui.tui.screens.session import SessionScreen
from tests.tui_support import kill_fixture_pids, settle

pytestmark = pytest.mark.asyncio


@pytest.fixture
def home(real_home_copy):
    kill_fixture_pids(real_home_copy)
    return real_home_copy


async def test_lists_every_main_session_newest_first(home):
    app = make_app(home, poll_interval=0, home_label="~/.sid-code")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        assert isinstance(b, BrowserScreen)
        table = b.query_one("#sessions")
        assert table.row_count == len(b.summaries) >= 20
        keys = [r.value for r in table.rows]
        acts = [b.summaries[k].last_activity or "" for k in keys]
        assert acts == sorted(acts, reverse=True)
        # project list: "All" + one entry per project folder, with counts
        projects = b.query_one("#projects")
        assert projects.option_count == 1 + len({s.project for s in b.summaries.values()})


async def test_unloadable_session_is_marked(home):
    app = make_app(home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        torn = [s for s in b.summaries.values() if s.session_id == "20261130-052921-ad7240fb"][0]
        assert not torn.loadable
        table = b.query_one("#sessions")
        state = table.get_cell(str(torn.path), "state")
        assert "unloadable" in str(state)


async def test_type_to_filter_and_project_filter(home):
    app = make_app(home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        table = b.query_one("#sessions")
        total = table.row_count
        await pilot.press(*"0c88f996")  # typing in the table goes to the filter box
        await pilot.pause()
        assert b.query_one("#filter").value == "0c88f996"
        assert table.row_count == 1
        await pilot.press("escape")
        await pilot.pause()
        assert table.row_count == total
        # choosing a project narrows the table to its sessions
        projects = b.query_one("#projects")
        projects.focus()
        ids = [projects.get_option_at_index(i).id for i in range(projects.option_count)]
        webapp = ids.index("tmp-sidtui-fixture-projects-webapp")
        projects.highlighted = webapp
        await pilot.pause()
        assert 0 < table.row_count < total
        assert {b.summaries[r.value].project for r in table.rows} == {
            "tmp-sidtui-fixture-projects-webapp"
        }


async def test_fuzzy_filter_on_first_prompt(home):
    app = make_app(home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        target = next(s for s in b.summaries.values() if s.first_prompt)
        word = target.first_prompt.split()[0]
        b.query_one("#filter").value = word
        await pilot.pause()
        keys = [r.value for r in b.query_one("#sessions").rows]
        assert str(target.path) in keys


async def test_enter_opens_session(home):
    app = make_app(home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, SessionScreen)
        assert app.screen.view is not None


async def test_new_session_appears_and_rows_update_without_refresh_key(home):
    app = make_app(home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        before = b.query_one("#sessions").row_count
        src = (
            home
            / "sessions"
            / "tmp-sidtui-fixture-projects-webapp"
            / "20261130-052907-9ff3799b.jsonl"
        )
        dst = src.with_name("20261201-000000-abcdef12.jsonl")
        shutil.copyfile(src, dst)
        b.poll()  # what the interval timer does
        await settle(app, pilot)
        assert b.query_one("#sessions").row_count == before + 1
        # grow an existing file: its row is updated in place
        key = str(src)
        old_records = b.summaries[key].records
        with open(src, "ab") as fh:
            fh.write(
                b'{"type":"metadata","key":"x","value":1,"timestamp":"2026-11-30T00:00:00.000Z"}\n'
            )
        b.poll()
        await settle(app, pilot)
        assert b.summaries[key].records == old_records + 1


async def test_scan_survives_unreadable_file(home):
    bad = (
        home / "sessions" / "tmp-sidtui-fixture-projects-webapp" / "20261130-000000-00000000.jsonl"
    )
    bad.write_bytes(b'{"type":"session_start"}\n')
    bad.chmod(0)
    try:
        app = make_app(home, poll_interval=0)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            assert app.screen.query_one("#sessions").row_count >= 20
    finally:
        bad.chmod(0o644)


async def test_theme_toggle_and_light_theme(home):
    app = make_app(home, poll_interval=0, theme="light")
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.theme == "textual-light"
        await pilot.press("ctrl+t")
        assert app.theme == "textual-dark"


def _telling(app):
    """``app`` with every notification's text kept in ``app.said`` (a notification on
    screen expires after its timeout, which a loaded machine may pass)."""
    app.said = []
    notify = app.notify

    def keep(message, *args, **kwargs):
        app.said.append(str(message))
        return notify(message, *args, **kwargs)

    app.notify = keep
    return app


async def test_an_unusable_catalog_is_said_and_the_files_are_read(home, tmp_path, monkeypatch):
    """A cache path that cannot be used (a folder) is said (the catalog runs in memory);
    a catalog that raises a cache error falls back to reading the files, said once. Only a
    cache's own errors are caught there: anything else goes to the one error path."""
    import sqlite3

    from sidtui.tui.app import SidtuiApp

    folder = tmp_path / "catalog-is-a-folder"
    folder.mkdir()
    app = _telling(make_app(home, poll_interval=0, catalog_path=str(folder)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.screen.query_one("#sessions").row_count >= 20
        said = app.said
        assert any("the catalog is kept in memory for this run" in m for m in said), said

    def broken(self):
        raise sqlite3.DatabaseError("file is not a database")

    monkeypatch.setattr(SidtuiApp, "catalog", broken)
    app = _telling(make_app(home, poll_interval=0, catalog_path=":memory:"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.screen.query_one("#sessions").row_count >= 20
        said = app.said
        assert any(m.startswith("catalog unusable, reading files directly") for m in said)

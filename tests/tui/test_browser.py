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


async def test_fitted_columns_fill_the_view_and_keep_the_prompt_widest():
    """Regression: the rows said nothing of what each session was about (no title, no
    prompt) and the state column spent ~25 cells on "claude interrupted prompt". Now the
    prompt column takes the room the others leave, an optional column joins only while
    the prompt keeps PROMPT_MIN cells, and the columns end at the view's right edge."""
    from sidtui.tui.widgets.session_table import (
        ALWAYS,
        COLUMNS,
        OPTIONAL,
        PROMPT_MIN,
        WIDTHS,
        fitted_columns,
    )

    order = [k for k, _ in COLUMNS]
    for room in range(20, 260):
        keys, widths = fitted_columns(room)
        assert set(ALWAYS) <= set(keys), room
        assert list(keys) == sorted(keys, key=order.index), room
        extra = [k for k in keys if k not in ALWAYS]
        assert set(extra) == set(OPTIONAL[: len(extra)]), room  # they join in their order
        used = sum(w + 2 for w in widths.values())
        if widths["prompt"] > WIDTHS["prompt"]:
            assert used == room, room  # the last column ends at the right edge
        if extra:
            assert widths["prompt"] >= PROMPT_MIN, room
            assert widths["prompt"] == max(widths.values()), room
        assert widths["id"] == 8 and widths["state"] <= 11, room


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
async def test_no_column_is_drawn_cut(home, size):
    from sidtui.tui.widgets.session_table import COLUMNS
    from tests.tui_support import screen_lines

    app = make_app(home, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#sessions")
        r = table.content_region
        header = screen_lines(app)[r.y][r.x : r.x + r.width]
        drawn = [w.strip() for w in header.split("  ") if w.strip()]
        labels = dict(COLUMNS)
        assert drawn == [labels[k] for k in table.shown]
        if size == (80, 24):  # id, agent, state and what the session was about
            assert drawn == ["id", "agent", "state", "title / first prompt"]
        else:
            assert drawn[:5] == ["id", "agent", "state", "title / first prompt", "last active"]
            assert "model" in drawn


async def test_enter_in_the_filter_opens_the_highlighted_session(home):
    """Regression: Enter in the filter box only moved to the table (a second Enter
    opened the row); with no row left it keeps the box, to change the words."""
    app = make_app(home, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        target = next(s for s in b.summaries.values() if s.first_prompt)
        await pilot.press(*target.session_id[-8:])  # type-to-filter from the table
        await settle(app, pilot)
        assert app.focused is b.query_one("#filter")
        shown = b.current_summary()
        assert shown is not None and shown.session_id == target.session_id
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, SessionScreen)
        assert app.screen.sf.session_id == target.session_id
        # back (a single Esc waits out the double-Esc window on a timer: not this test's)
        app.screen.action_back()
        await settle(app, pilot)
        b.query_one("#filter").value = "no session has these words"
        b.query_one("#filter").focus()
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is b and app.focused is b.query_one("#filter")

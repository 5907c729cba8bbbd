"""Pilot tests of the app's wording (issue 30): what help, dialogs and bars call things."""

from __future__ import annotations

import re

import pytest

from sidtui.core.claude.layout import ClaudeHome
from sidtui.core.sources import ClaudeSource
from sidtui.tui.app import make_app
from sidtui.tui.screens.help import HelpScreen
from tests.helpers import short_folder
from tests.tui_support import fresh_demo, settle

pytestmark = pytest.mark.asyncio

#: A class name on screen: two capitalised words run together (``SessionTable``).
CLASS_NAME = re.compile(r"\b[A-Z][a-z]+[A-Z][A-Za-z]*\b")


@pytest.fixture(scope="module")
def demo(short_base):
    return fresh_demo(short_folder(short_base, "polish"), claude=True)


def _app(demo, **kw):
    return make_app(
        demo.home, poll_interval=0, catalog_path=":memory:", claude_home=demo.claude_home, **kw
    )


async def _help(app, pilot) -> tuple[str, list[tuple[str, str, str]]]:
    """Open help; its title and rows (where, keys, does); close it."""
    await pilot.press("question_mark")
    await pilot.pause()
    h = app.screen
    assert isinstance(h, HelpScreen)
    title = str(h.query_one(".modal-title").render())
    t = h.query_one("#help-table")
    rows = [tuple(str(t.get_cell_at((i, c))) for c in range(3)) for i in range(t.row_count)]
    await pilot.press("escape")
    await pilot.pause()
    return title, rows


def _keys(rows) -> list[str]:
    return [k.strip() for _, keys, _ in rows for k in keys.split(",")]


async def test_help_names_screens_and_panes_in_words_and_lists_each_key_once(demo):
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        title, rows = await _help(app, pilot)
        assert title == "Keys — session browser"
        assert {w for w, _, _ in rows} >= {"screen", "session list", "app"}
        seen = []
        src = ClaudeSource(ClaudeHome(demo.claude_home))
        app.open_session(src.resolve(demo.claude_cases["checkpoints"]))
        await settle(app, pilot)
        await pilot.press("3")
        await settle(app, pilot)
        app.screen.query_one("#fh-checkpoints").focus()
        await pilot.pause()
        title, rows = await _help(app, pilot)
        assert title == "Keys — Claude Code session"
        seen.append((title, rows))
        assert "list" in {w for w, _, _ in rows}
        keys = _keys(rows)
        assert keys.count("/") == 1, rows  # "Find" on this screen, not the app's "Search" too
        for title, rows in seen:
            assert not CLASS_NAME.search(title)
            for where, _, _ in rows:
                assert not CLASS_NAME.search(where), where


async def test_undo_redo_summaries_say_each_snapshot_once_and_a_done_dialog_has_no_button(
    short_tmp_path,
):
    """Regression: "Redo takes back s1 (from s1)"; a finished dialog kept an inert
    "Undo (y)" button beside "Close (Esc)"."""
    from sidtui.tui.screens.restore_preview import RestorePreviewScreen
    from tests.tui_support import open_session

    demo = fresh_demo(short_tmp_path)
    app = make_app(demo.home, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await open_session(app, pilot, demo.cases["checkpoints"])
        await pilot.press("3")
        await settle(app, pilot)
        for key in ("u", "U"):
            await pilot.press(key)
            await settle(app, pilot)
            d = app.screen
            assert isinstance(d, RestorePreviewScreen)
            said = " ".join(str(d.query_one("#undo-summary").render()).split())
            assert "takes back" in said and "(from" not in said, said
            assert d.query_one("#apply").display
            await pilot.press("y")
            await settle(app, pilot)
            assert d.applied
            assert not d.query_one("#apply").display
            assert str(d.query_one("#cancel").label) == "Close (Esc)"
            await pilot.press("escape")
            await settle(app, pilot)


async def test_find_bar_names_the_keys_that_move_from_where_the_focus_is(tmp_path):
    """Regression: the bar said "1/8 · n/N" while typing, where n types into the box."""
    from tests.tui_support import demo_home_fixed, open_session

    home, cases = demo_home_fixed()
    app = make_app(home, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
        s = await open_session(app, pilot, cases["checkpoints"])
        conv = s.query_one("#conversation-view")

        def bar() -> str:
            return str(s.query_one("#find-status").render())

        await pilot.press("ctrl+f", *"reading threshold", "enter")
        await settle(app, pilot)
        f = conv.finder
        assert f is not None and len(f.matches) >= 3 and conv.cursor == f.matches[0]
        assert "1/" in bar() and "Enter/shift+Enter: next/previous" in bar(), bar()
        await pilot.press("enter")
        await settle(app, pilot)
        assert conv.cursor == f.matches[1] and "2/" in bar()
        await pilot.press("shift+enter")  # back, still typing
        await settle(app, pilot)
        assert conv.cursor == f.matches[0] and s.focused is s.query_one("#find")
        await pilot.press("escape")  # the box is left: now n/N move
        await settle(app, pilot)
        assert s.focused is conv and "n/N: next/previous" in bar(), bar()
        await pilot.press("n")
        await settle(app, pilot)
        assert conv.cursor == f.matches[1]


async def test_first_launch_leaves_the_cursor_on_the_newest_session(short_tmp_path):
    """Regression: sid-code's first rows came unsorted with the cursor on row 0; the sort
    and the Claude Code rows (newer, above it) kept it on that session, the third row."""
    from textual.widgets.data_table import RowKey

    demo = fresh_demo(short_tmp_path, claude=True)
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot, rounds=6)
        b = app.screen
        table = b.query_one("#sessions")
        assert table.row_count == len(b.summaries)
        newest = b.visible_rows()[0]
        assert table.cursor_row == 0
        assert table.coordinate_to_cell_key(table.cursor_coordinate).row_key == RowKey(
            str(newest.path)
        )
        # a row the person picks stays picked when rows are rebuilt
        await pilot.press("down", "down")
        await settle(app, pilot)
        picked = b.current_key()
        b.refresh_table()
        await settle(app, pilot)
        assert b.current_key() == picked and table.cursor_row == 2

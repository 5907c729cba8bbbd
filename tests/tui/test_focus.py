"""One focus rule on every screen: the pane a key names gets the focus, and the arrows
reach the list on screen (the tab keys of a session of either source, the browser's
filter box, the search dialog)."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Input, TabbedContent, TabPane

from sidtui.core.base.home import Home
from sidtui.core.claude.layout import ClaudeHome
from sidtui.core.sources import ClaudeSource, SidCodeSource
from sidtui.tui.app import make_app
from sidtui.tui.widgets.conversation_view import ConversationView
from tests.helpers import short_folder
from tests.tui_support import fresh_demo, settle

pytestmark = pytest.mark.asyncio


@pytest.fixture(scope="module")
def demo(short_base):
    return fresh_demo(short_folder(short_base, "focus"), claude=True)


def _app(demo):
    return make_app(
        demo.home, poll_interval=0, catalog_path=":memory:", claude_home=demo.claude_home
    )


def _source(demo, name: str):
    if name == "claude-code":
        return ClaudeSource(ClaudeHome(demo.claude_home)), demo.claude_cases["checkpoints"]
    return SidCodeSource(Home(demo.home)), demo.cases["checkpoints"]


@pytest.mark.parametrize("source", ["sid-code", "claude-code"])
async def test_tab_keys_focus_the_pane_they_name_and_keep_working_from_a_table(demo, source):
    """``3`` focuses the Checkpoints list (Home/End move its cursor at once); from that
    table ``2`` and ``1`` still switch tabs, each focusing its own pane."""
    src, sid = _source(demo, source)
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        app.open_session(src.resolve(sid))
        await settle(app, pilot)
        s = app.screen
        tabs = s.query_one(TabbedContent)
        second = tabs.query(TabPane)[1].id
        await pilot.press("3")
        await settle(app, pilot)
        table = app.focused
        assert tabs.active == "checkpoints"
        assert isinstance(table, DataTable)
        assert table.row_count > 1
        await pilot.press("end")
        assert table.cursor_row == table.row_count - 1
        await pilot.press("home")
        assert table.cursor_row == 0
        await pilot.press("2")
        await settle(app, pilot)
        assert tabs.active == second
        assert app.focused is not table and app.focused in s.query_one(f"#{second}").walk_children()
        await pilot.press("1")
        await settle(app, pilot)
        assert tabs.active == "conversation"
        assert app.focused is s.query_one(ConversationView)


async def test_down_after_typing_in_the_browser_filter_moves_the_list_cursor(demo):
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        table = b.query_one("#sessions")
        await pilot.press("ctrl+f", *"source:claude")
        await settle(app, pilot)
        assert app.focused is b.query_one("#filter")
        assert table.row_count > 2
        start = table.cursor_row
        await pilot.press("down")
        assert app.focused is table and table.cursor_row == start + 1
        await pilot.press("down", "up")
        assert table.cursor_row == start + 1
        assert b.query_one("#filter").value == "source:claude"  # the words stay


async def test_typing_after_a_search_goes_to_the_search_box(demo):
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        await settle(app, pilot)
        m = app.screen
        await pilot.press(*"install", "enter")
        await settle(app, pilot)
        box = m.query_one("#search-input", Input)
        assert m.hits  # the results list has the focus: Enter opens a hit
        await pilot.press(*" section")
        assert box.value == "install section" and app.focused is box
        await pilot.press("enter")
        await settle(app, pilot)
        assert m.query_text == "install section"

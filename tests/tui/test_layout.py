"""The app at 80 columns and in small terminals, the keyboard between panes, counts that
agree, and an empty or wrong home that says what was looked for."""

from __future__ import annotations

import shutil

import pytest

from sidtui.tui.app import make_app
from sidtui.tui.screens.browser import BrowserScreen
from sidtui.tui.screens.rewind import RewindScreen
from tests.tui_support import demo_home_fixed, fresh_demo, open_session, screen_lines, settle


@pytest.fixture(scope="module")
def demo():
    return demo_home_fixed()


def _app(home):
    return make_app(home, poll_interval=0, home_label="~/.sid-code", catalog_path=":memory:")


def _border_colour(widget):
    return widget.styles.border_top[1]


async def test_tab_moves_between_the_browser_panes_and_marks_the_focused_one(demo):
    """Regression: Tab ("Next pane", listed in ?) did nothing in the browser: the projects
    pane could not be reached from the keyboard."""
    app = _app(demo[0])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        projects, sessions = b.query_one("#projects"), b.query_one("#sessions")
        seen = []
        for _ in range(3):
            await pilot.press("tab")
            await pilot.pause()
            seen.append(app.focused.id)
        assert sorted(seen) == ["filter", "projects", "sessions"]
        projects.focus()
        await pilot.pause()
        assert _border_colour(projects) != _border_colour(sessions)
        await pilot.press("shift+tab")
        await pilot.pause()
        assert app.focused is sessions
        assert _border_colour(projects) != _border_colour(sessions)


async def test_tab_moves_between_the_checkpoint_panes(demo):
    home, cases = demo
    app = _app(home)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        s = await open_session(app, pilot, cases["checkpoints"])
        await pilot.press("3")
        await settle(app, pilot)
        seen = {app.focused.id}
        for _ in range(4):
            await pilot.press("tab")
            await pilot.pause()
            seen.add(app.focused.id)
        assert {"snapshots", "ckpt-files", "ckpt-diff"} <= seen
        assert s.query_one("#snapshots").styles.border_top[0] == "round"


async def test_80_columns_browser_hides_projects_until_asked(demo):
    """Regression: at 80×24 the projects pane kept 30 of 80 columns and the table showed
    only the id and the state."""
    app = _app(demo[0])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        b = app.screen
        projects, table = b.query_one("#projects"), b.query_one("#sessions")
        assert b.has_class("-narrow") and projects.region.width == 0
        assert "title / first prompt" in " ".join(screen_lines(app))
        await pilot.press("ctrl+b")
        await settle(app, pilot)
        assert projects.region.width == 22 and app.focused is projects
        await pilot.press("ctrl+b")
        await settle(app, pilot)
        assert projects.region.width == 0 and app.focused is table
    app = _app(demo[0])
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        assert app.screen.query_one("#projects").region.width == 25


async def test_80_columns_rewind_dialog_is_stacked(demo):
    """Regression: at 80×24 the rewind preview column was ~8 characters and the mode
    switch showed only "Conv"."""
    home, cases = demo
    app = _app(home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_session(app, pilot, cases["checkpoints"])
        await pilot.press("r")
        await settle(app, pilot)
        m = app.screen
        assert isinstance(m, RewindScreen)
        preview = m.query_one("#rewind-preview")
        assert preview.region.width >= 70
        drawn = " ".join(screen_lines(app))
        for label in ("Conversation", "Code", "Both"):
            assert label in drawn
        assert "leave the conversation" in drawn


async def test_80_columns_rewind_tables_fit(demo):
    """Regression: at 80 columns the points table cut its "files" column to "fi"/"ye" and
    the preview's Files table gave its short action column a third of the width."""
    home, cases = demo
    app = _app(home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_session(app, pilot, cases["checkpoints"])
        await pilot.press("r")
        await settle(app, pilot)
        await pilot.press("m")  # code: the preview starts with the Files table
        await settle(app, pilot)
        m = app.screen
        points = m.query_one("#rewind-points")
        r = points.region
        rows = [ln[r.x : r.x + r.width] for ln in screen_lines(app)[r.y : r.y + r.height]]
        assert any(ln.rstrip().endswith("files") for ln in rows)
        assert sum(ln.rstrip().endswith("yes") for ln in rows) >= 3
        # the warning above the Files table wraps to more lines the longer the temporary
        # path is: bring the table into view before reading its row off the screen
        m.query_one("#rewind-preview").parent.scroll_end(animate=False)
        await settle(app, pilot)
        row = next(ln for ln in screen_lines(app) if "│ analyze.py" in ln)
        assert row.index("analyze.py") < 16  # after a 10-column action


async def test_80_columns_state_sources_are_whole(demo):
    """Regression: at 80 columns the State tab's source column was cut to "session_s…" and
    "usage_sta…" while the value column kept three quarters of the width."""
    home, cases = demo
    app = _app(home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await open_session(app, pilot, cases["interrupted_turn"])
        await pilot.press("4")
        await settle(app, pilot)
        drawn = "\n".join(screen_lines(app))
        assert "session_start" in drawn and "usage_stats" in drawn


async def test_80_columns_checkpoints_diff_is_unified_and_wide(demo):
    """Regression: the side-by-side diff at 80 columns was cut to one word."""
    home, cases = demo
    app = _app(home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        s = await open_session(app, pilot, cases["checkpoints"])
        await pilot.press("3")
        await settle(app, pilot)
        diff = s.query_one("#ckpt-diff")
        assert diff.unified and diff.region.width >= 76
        await pilot.press("s")  # the reader's choice then sticks
        await settle(app, pilot)
        assert not diff.unified
    app = _app(home)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        s = await open_session(app, pilot, cases["checkpoints"])
        await pilot.press("3")
        await settle(app, pilot)
        assert not s.query_one("#ckpt-diff").unified


async def test_40_columns_by_12_lines_still_shows_rows(demo):
    home, cases = demo
    app = _app(home)
    async with app.run_test(size=(40, 12)) as pilot:
        await settle(app, pilot)
        table = app.screen.query_one("#sessions")
        assert table.region.height >= 5  # a border, the header and three rows
        await open_session(app, pilot, cases["checkpoints"])
        await pilot.press("r")
        await settle(app, pilot)
        drawn = " ".join(screen_lines(app))
        assert "Rewind (y)" in drawn and "Both" in drawn


async def test_counts_agree_after_a_new_session_and_follow_the_filter(short_tmp_path):
    """Regression: after a new session file the projects pane said 30 while the status
    line said 28; the status line ignored the filter (28 while 4 rows matched)."""
    demo = fresh_demo(short_tmp_path)
    app = make_app(demo.home, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        assert isinstance(b, BrowserScreen)
        total = len(b.summaries)

        def status() -> str:
            return str(b.query_one("#scan-status").render())

        assert status().startswith(f" {total} sessions · ")
        src = next(p for p in demo.home.glob("sessions/*/*.jsonl"))
        shutil.copyfile(src, src.with_name("20270101-000000-abcdef12.jsonl"))
        b.poll()
        await settle(app, pilot)
        projects = b.query_one("#projects")
        assert str(projects.get_option_at_index(0).prompt) == f"All sessions ({total + 1})"
        assert status().startswith(f" {total + 1} sessions · ")
        await pilot.press(*"datalab")
        await settle(app, pilot)
        shown = b.query_one("#sessions").row_count
        assert 0 < shown < total
        assert status().startswith(f" {shown} of {total + 1} sessions · ")
        assert str(b.query_one("#sessions").border_title).endswith(f"· {shown}")


async def test_a_wrong_home_says_where_the_home_is(tmp_path, short_tmp_path):
    """Regression: ``sidtui --home DIR`` on a demo's --dir (the home is DIR/home) showed a
    blank table."""
    demo = fresh_demo(short_tmp_path)
    app = make_app(demo.home.parent, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        assert b.has_class("-empty") and b.query_one("#empty-state").region.height > 0
        # what the empty state says (a long temporary path wraps on screen, anywhere)
        said = str(b.query_one("#empty-state").render())
        assert f"no sessions: {demo.home.parent}/sessions does not exist" in said
        assert f"try sidtui --home {demo.home}" in said
    empty = tmp_path / "empty"
    (empty / "sessions").mkdir(parents=True)
    app = make_app(empty, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(app, pilot)
        said = str(app.screen.query_one("#empty-state").render())
        assert f"no sessions under {empty}/sessions" in said


async def test_rescan_keeps_the_cursor_and_home_end_move_it(demo):
    """Regression: ctrl+r moved the cursor to the top; Home did nothing in the tables."""
    app = _app(demo[0])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        table = b.query_one("#sessions")
        table.move_cursor(row=5)
        key = b.current_key()
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        assert b.current_key() == key
        await pilot.press("end")
        assert table.cursor_row == table.row_count - 1
        await pilot.press("home")
        assert table.cursor_row == 0


async def test_the_conversation_is_rewrapped_after_a_resize_on_another_tab(demo):
    """Regression: a resize while the Chain tab was shown left the Conversation wrapped
    for the old width."""
    home, cases = demo
    app = _app(home)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        s = await open_session(app, pilot, cases["long_session"])
        conv = s.query_one("#conversation-view")
        wide = conv._layout_width
        await pilot.press("2")
        await settle(app, pilot)
        await pilot.resize_terminal(80, 24)
        await settle(app, pilot)
        await pilot.press("1")
        await settle(app, pilot)
        assert conv._layout_width == conv.scrollable_content_region.width < wide


async def test_long_cells_end_in_an_ellipsis_and_the_full_id_is_shown(demo):
    """Regression: long ids and model names were cut without an ellipsis and the full
    session id was shown nowhere."""
    from sidtui.tui.widgets.session_table import all_cells

    app = _app(demo[0])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        s = b.current_summary()
        cells = all_cells(s)
        assert all(cells[k].overflow == "ellipsis" for k in ("id", "model", "prompt"))
        assert s.session_id in str(b.query_one("#preview").render())

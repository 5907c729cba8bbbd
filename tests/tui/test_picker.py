"""The browser as a picker: rows that say what each session was about, date words in the
filter, rename (F2) and resume (ctrl+g) of the highlighted session."""

from __future__ import annotations

import os
import stat
import time
from datetime import date

import msgspec
import pytest

from sidtui.core.views.dates import local_day
from sidtui.tui.app import make_app
from sidtui.tui.screens.confirm import ConfirmScreen
from sidtui.tui.screens.rename import RenameScreen
from sidtui.tui.widgets.session_table import short_id
from tests.tui_support import fresh_demo, screen_lines, settle

pytestmark = pytest.mark.asyncio


@pytest.fixture
def demo(short_tmp_path):
    return fresh_demo(short_tmp_path, claude=True)


@pytest.fixture
def utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _app(demo):
    app = make_app(
        demo.home, poll_interval=0, catalog_path=":memory:", claude_home=demo.claude_home
    )
    app.said = []
    notify = app.notify

    def keep(message, *args, **kwargs):
        app.said.append(str(message))
        return notify(message, *args, **kwargs)

    app.notify = keep
    return app


def _select(b, pred):
    """Put the cursor on the first row whose summary ``pred`` holds; that summary."""
    table = b.query_one("#sessions")
    for i, key in enumerate(r.value for r in table.rows):
        if pred(b.summaries[key]):
            table.move_cursor(row=i, animate=False)
            return b.summaries[key]
    raise AssertionError("no such row")


async def test_short_ids_keep_what_tells_sessions_apart():
    assert short_id("20261124-103000-ad7240fb") == "ad7240fb"  # not the date
    assert short_id("3d7d6def-9cd6-4085-964b-27f835def47b") == "3d7d6def"
    assert short_id("5d2e9f01") == "5d2e9f01"
    assert short_id("abc") == "abc"


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
async def test_rows_say_what_each_session_was_about(demo, size):
    """Regression: the rows showed id, state, times, model, size and cost but no title
    and no first prompt, and the state spent ~25 cells on "claude interrupted prompt"."""
    app = _app(demo)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot, rounds=6)
        b = app.screen
        table = b.query_one("#sessions")
        text = "\n".join(screen_lines(app))
        shown = [b.summaries[r.value] for r in table.rows][: table.size.height - 2]
        for s in shown:
            about = s.title or s.first_prompt
            if about:  # its first words are on screen, on its row
                assert " ".join(about.split())[:20] in text, about
            assert short_id(s.session_id) in text
        claude = next(s for s in shown if s.source == "claude-code" and s.interruption)
        state = str(table.get_cell(str(claude.path), "state"))
        assert "claude" not in state and len(state) <= 11
        assert str(table.get_cell(str(claude.path), "agent")) == "claude"
        assert "claude interrupted" not in text


async def test_first_launch_cursor_is_the_newest_session_in_a_narrow_table(demo):
    """The cursor stays on the newest session when the Claude Code rows arrive above
    the first sid-code rows, at 80 columns too (the columns are rebuilt there)."""
    app = _app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot, rounds=6)
        b = app.screen
        assert b.current_key() == str(b.visible_rows()[0].path)
        await pilot.press("down", "down")
        picked = b.current_key()
        await pilot.resize_terminal(160, 48)  # more columns: the same row
        await settle(app, pilot)
        assert b.current_key() == picked


async def test_since_and_until_words_filter_by_local_day(demo, utc):
    app = _app(demo)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot, rounds=6)
        b = app.screen
        days = sorted({local_day(s.last_activity) for s in b.summaries.values()})
        mid = days[len(days) // 2]
        b.query_one("#filter").value = f"since:{date.fromordinal(mid).isoformat()}"
        await settle(app, pilot)
        kept = b.visible_rows()
        assert 0 < len(kept) < len(b.summaries)
        assert all(local_day(s.last_activity) >= mid for s in kept)
        assert b.query_one("#sessions").row_count == len(kept)
        b.query_one("#filter").value = f"until:{date.fromordinal(days[-2]).isoformat()}"
        await settle(app, pilot)
        kept = b.visible_rows()
        assert kept and all(local_day(s.last_activity) <= days[-2] for s in kept)
        b.query_one("#filter").value = f"source:claude since:{date.fromordinal(mid).isoformat()}"
        await settle(app, pilot)
        kept = b.visible_rows()
        assert kept and all(
            local_day(s.last_activity) >= mid and s.source == "claude-code" for s in kept
        )
        b.query_one("#filter").value = "since:banana"
        await settle(app, pilot)
        status = str(b.query_one("#scan-status").render())
        assert "since: must be a date" in status
        assert len(b.visible_rows()) == len(b.summaries)  # a bad word narrows nothing
        b.query_one("#filter").value = "since:"  # still typing: no bound yet
        await settle(app, pilot)
        assert len(b.visible_rows()) == len(b.summaries)


async def test_f2_renames_the_highlighted_session(demo):
    app = _app(demo)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot, rounds=6)
        b = app.screen
        s = _select(
            b,
            lambda s: (
                s.source == "claude-code"
                and s.loadable
                and not s.live
                and open(s.path, "rb").read().endswith(b"\n")
            ),  # a torn tail is refused
        )
        await pilot.press("f2")
        await settle(app, pilot)
        assert isinstance(app.screen, RenameScreen)
        app.screen.query_one("#rename-input").value = ""
        await pilot.press(*"Payments", "space", *"audit", "enter")
        await settle(app, pilot)
        assert app.screen is b, app.screen.query_one("#rename-status").render()
        assert "Payments audit" == str(b.query_one("#sessions").get_cell(str(s.path), "prompt"))
        assert any("renamed" in m and "Payments audit" in m for m in app.said)
        src = app.source_named(s.source)
        assert src.title_of(src.open(src.file_of(s))) == "Payments audit"  # on disk


async def test_renaming_a_live_session_asks_first(demo):
    app = _app(demo)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot, rounds=6)
        b = app.screen
        s = _select(b, lambda s: s.source == "sid-code" and s.loadable and s.kind == "main")
        key = str(s.path)
        b.summaries[key] = msgspec.structs.replace(s, live=True)  # a running agent writes it
        size = os.path.getsize(s.path)
        await pilot.press("f2")
        await settle(app, pilot)
        app.screen.query_one("#rename-input").value = "while it runs"
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await settle(app, pilot)
        assert isinstance(app.screen, RenameScreen)
        assert "not renamed" in str(app.screen.query_one("#rename-status").render())
        assert os.path.getsize(s.path) == size  # nothing written
        await pilot.press("enter", "y")  # asked again: forced
        await settle(app, pilot)
        assert app.screen is b and os.path.getsize(s.path) > size


def _fake_agent(folder, name: str) -> str:
    """An executable called ``name`` in ``folder``; the folder is PATH's."""
    p = folder / name
    p.write_text("#!/bin/sh\nexit 0\n")
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return str(folder)


async def test_ctrl_g_resumes_with_the_agents_own_command_in_its_folder(
    demo, tmp_path, monkeypatch
):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", _fake_agent(bin_dir, "claude"))
    app = _app(demo)
    ran = []
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot, rounds=6)
        b = app.screen
        b.run_resume = lambda argv, cwd: ran.append((argv, cwd))
        s = _select(
            b, lambda s: s.source == "claude-code" and not s.live and s.cwd and os.path.isdir(s.cwd)
        )
        await pilot.press("ctrl+g")
        await settle(app, pilot)
        assert ran == [(["claude", "--resume", s.session_id], s.cwd)]
        # sid-code has no resume command sidtui knows: said, nothing run
        _select(b, lambda s: s.source == "sid-code")
        await pilot.press("ctrl+g")
        await settle(app, pilot)
        assert len(ran) == 1 and any("does not know how to resume" in m for m in app.said)
        # a live session is refused
        key = str(s.path)
        b.summaries[key] = msgspec.structs.replace(s, live=True)
        _select(b, lambda x: x.path == s.path)
        await pilot.press("ctrl+g")
        await settle(app, pilot)
        assert len(ran) == 1 and any(f"{s.session_id} is live" in m for m in app.said)
        # the agent not installed
        b.summaries[key] = s
        monkeypatch.setenv("PATH", str(tmp_path / "empty"))
        await pilot.press("ctrl+g")
        await settle(app, pilot)
        assert len(ran) == 1 and any("'claude' is not on PATH" in m for m in app.said)


async def test_help_lists_rename_and_resume_once(demo):
    from sidtui.tui.screens.help import HelpScreen

    app = _app(demo)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot, rounds=6)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        t = app.screen.query_one("#help-table")
        rows = [tuple(str(t.get_cell_at((i, c))) for c in range(3)) for i in range(t.row_count)]
        keys = [k.strip() for _, ks, _ in rows for k in ks.split(",")]
        does = {k.strip(): d for _, ks, d in rows for k in ks.split(",")}
        assert keys.count("f2") == 1 and "Rename" in does["f2"], rows
        assert keys.count("^g") == 1 and "Resume" in does["^g"], rows


async def test_the_session_header_says_its_title_and_f2_renames_it_there(demo):
    """The header said the id, the format and the state but not the session's title."""
    from sidtui.tui.screens.session import SessionScreen

    app = _app(demo)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot, rounds=6)
        b = app.screen
        _select(
            b,
            lambda s: (
                s.source == "sid-code"
                and s.loadable
                and s.kind == "main"
                and s.container == "jsonl"
                and not s.live
                and open(s.path, "rb").read().endswith(b"\n")
            ),
        )
        await pilot.press("enter")
        await settle(app, pilot)
        s = app.screen
        assert isinstance(s, SessionScreen)

        def head() -> str:
            return str(s.query_one("#session-head").render())

        await pilot.press("f2")
        await settle(app, pilot)
        assert isinstance(app.screen, RenameScreen)
        app.screen.query_one("#rename-input").value = "Header title"
        await pilot.press("enter")
        await settle(app, pilot, rounds=6)
        assert app.screen is s
        assert head().startswith(" “Header title”"), head()


async def test_a_rewind_that_writes_a_new_session_offers_to_open_it(demo):
    """Regression: after a Claude Code conversation rewind the dialog named the new
    session (``claude --resume …``) but did not offer to open it."""
    from sidtui.core.claude.layout import ClaudeHome
    from sidtui.core.sources import ClaudeSource
    from sidtui.tui.screens.rewind import RewindScreen
    from sidtui.tui.screens.session import SessionScreen

    app = _app(demo)
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(app, pilot, rounds=6)
        src = ClaudeSource(ClaudeHome(demo.claude_home))
        app.open_session(src.resolve(demo.claude_cases["checkpoints"]))
        await settle(app, pilot)
        first = app.screen
        assert isinstance(first, SessionScreen) and first.view is not None
        await pilot.press("r")
        await settle(app, pilot)
        m = app.screen
        assert isinstance(m, RewindScreen) and not m.query_one("#open-new").display
        m.query_one("#rewind-points").move_cursor(row=2)  # before the third prompt
        await settle(app, pilot)
        await pilot.press("y")
        await settle(app, pilot)
        assert m.applied and m.query_one("#open-new").display
        new = m.last_result.fork.session_id
        await pilot.press("o")
        await settle(app, pilot, rounds=6)
        s = app.screen
        assert isinstance(s, SessionScreen) and s is not first
        assert s.sf.session_id == new
        # the browser marks the new session with where it came from
        from sidtui.tui.screens.browser import BrowserScreen

        b = next(x for x in app.screen_stack if isinstance(x, BrowserScreen))
        b.poll()
        await settle(app, pilot, rounds=6)
        row = next(v for v in b.summaries.values() if v.session_id == new)
        assert row.forked_from == first.sf.session_id
        cell = str(b.query_one("#sessions").get_cell(row.path, "prompt"))
        assert cell.startswith(f"from {first.sf.session_id[:8]} · "), cell


async def test_an_unreadable_file_is_warned_about_once_across_refreshes(demo):
    """Regression: every catalog refresh warned again about the same unreadable file (a
    FIFO), the warnings piled up over the list; one warning per file, however many scans."""
    fifo = next((demo.home / "sessions").iterdir()) / "20260101-000000-ffffffff.jsonl"
    os.mkfifo(fifo)
    app = _app(demo)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        b = app.screen
        for _ in range(2):
            b.action_rescan()
            await settle(app, pilot)
        warned = [m for m in app.said if str(fifo.name) in m]
        assert len(warned) == 1 and len([e for e in b.errors if fifo.name in e]) == 1

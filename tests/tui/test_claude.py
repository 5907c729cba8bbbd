"""Pilot tests of Claude Code sessions in the app: listed beside sid-code's, filtered by
source, opened (conversation, resume leaf, tips, checkpoints)."""

from __future__ import annotations

import asyncio

import pytest

from sidtui.core.claude.layout import ClaudeHome
from sidtui.core.sources import ClaudeSource
from sidtui.tui.app import make_app
from sidtui.tui.find import entry_text, loaded_bytes
from sidtui.tui.screens.browser import BrowserScreen, filter_rows, project_key
from sidtui.tui.screens.fork import ForkScreen
from sidtui.tui.screens.rewind import RewindScreen
from sidtui.tui.screens.session import SessionScreen
from tests.helpers import short_folder
from tests.tui_support import (
    append_lines,
    claude_live_records,
    fresh_demo,
    register_claude_live,
    screen_lines,
    settle,
    widget_text,
)

pytestmark = pytest.mark.asyncio


@pytest.fixture(scope="module")
def demo(short_base):
    return fresh_demo(short_folder(short_base, "claude-app"), claude=True)


def _app(demo, **kw):
    return make_app(
        demo.home, poll_interval=0, catalog_path=":memory:", claude_home=demo.claude_home, **kw
    )


def _key(browser: BrowserScreen, sid: str) -> str:
    return next(k for k, s in browser.summaries.items() if s.session_id == sid)


async def test_browser_lists_both_sources_grouped_and_marked(demo):
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        assert isinstance(b, BrowserScreen)
        sources = {s.source for s in b.summaries.values()}
        assert sources == {"sid-code", "claude-code"}
        claude = [s for s in b.summaries.values() if s.source == "claude-code"]
        assert {s.session_id for s in claude} == set(demo.claude_cases.values())
        # every Claude Code project has its own entry in the projects pane, labelled
        projects = b.query_one("#projects")
        ids = [projects.get_option_at_index(i).id for i in range(projects.option_count)]
        assert {project_key(s) for s in claude} <= set(ids)
        labels = [str(projects.get_option_at_index(i).prompt) for i in range(projects.option_count)]
        assert any(lbl.startswith("claude·") for lbl in labels)
        assert projects.option_count == 1 + len({project_key(s) for s in b.summaries.values()})
        # the row marker: a Claude Code row says its agent in a badge of its own
        table = b.query_one("#sessions")
        sid = demo.claude_cases["checkpoints"]
        assert str(table.get_cell(_key(b, sid), "agent")) == "claude"  # its own badge
        sid_code = next(s for s in b.summaries.values() if s.source == "sid-code")
        assert not str(table.get_cell(str(sid_code.path), "state")).startswith("claude")


async def test_filter_by_source_word_and_key(demo):
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        table = b.query_one("#sessions")
        total = len(b.summaries)
        n_claude = len(demo.claude_cases)
        await pilot.press("ctrl+o")  # sid-code only
        await settle(app, pilot)
        assert b.query_one("#filter").value == "source:sid"
        assert table.row_count == total - n_claude
        await pilot.press("ctrl+o")  # Claude Code only
        await settle(app, pilot)
        assert b.query_one("#filter").value == "source:claude"
        assert table.row_count == n_claude
        assert all(b.summaries[r.value].source == "claude-code" for r in table.rows)
        await pilot.press("ctrl+o")  # every source again
        await settle(app, pilot)
        assert b.query_one("#filter").value == ""
        assert table.row_count == total
        # the palette lists it
        assert any(title == "Filter by source" for title, _, _ in b.command_entries())


async def test_source_word_combines_with_the_text_filter(demo):
    rows = ClaudeSource(ClaudeHome(demo.claude_home)).list_sessions()[0]
    sid = demo.claude_cases["interrupted"]
    assert [s.session_id for s in filter_rows(f"source:claude {sid[:12]}", rows)] == [sid]
    assert filter_rows("source:sid", rows) == []
    assert len(filter_rows("source:c", rows)) == len(rows)


async def test_opening_a_claude_session_shows_its_resumed_conversation(demo):
    sid = demo.claude_cases["interrupted"]
    view = ClaudeSource(ClaudeHome(demo.claude_home)).open(
        ClaudeSource(ClaudeHome(demo.claude_home)).resolve(sid)
    )
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        b.open_key(_key(b, sid))
        await settle(app, pilot)
        s = app.screen
        assert isinstance(s, SessionScreen) and s.view is not None
        head = widget_text(app, s.query_one("#session-head"))
        resume = next(t for t in view.tip_rows if t["resume"])
        assert f"resume continues from line {resume['line']}" in head
        assert f"{len(view.tip_rows)} tip" in head
        assert "interrupted" in head
        # every message in order, one header entry each, and the banner last
        conv = s.query_one("#conversation-view")
        model = conv.model
        heads = [e.msg for e in model.entries if e.kind == "header"]
        assert heads == list(range(len(view.conversation)))
        assert [m.line for m in model.messages] == [m.line for m in view.conversation]
        assert model.entries[-1].kind == "banner" and "On resume" in model.banner[0]
        assert s.conversation_shown_at is not None
        conv.action_first()
        await pilot.pause()
        text = "\n".join(screen_lines(app))
        assert f"line {view.conversation[0].line}" in text
        # r opens the rewind dialog (a preview; Esc closes it, nothing written)
        await pilot.press("r")
        await settle(app, pilot)
        assert isinstance(app.screen, RewindScreen)
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is s
        await pilot.press("backspace")  # Esc: back after the double-press window
        await settle(app, pilot)
        assert isinstance(app.screen, BrowserScreen)


async def test_fork_key_from_the_browser_opens_the_fork_dialog(demo):
    sid = demo.claude_cases["rewind"]
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        table = b.query_one("#sessions")
        table.move_cursor(row=table.get_row_index(_key(b, sid)))
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        f = app.screen
        assert isinstance(f, ForkScreen) and f.view.session_id == sid
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, SessionScreen)


async def test_checkpoints_tab_lists_the_file_history(demo):
    sid = demo.claude_cases["checkpoints"]
    src = ClaudeSource(ClaudeHome(demo.claude_home))
    history = src.checkpoints(src.open(src.resolve(sid)))
    assert history.checkpoints
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        b.open_key(_key(b, sid))
        await settle(app, pilot)
        await pilot.press("3")
        await settle(app, pilot)
        s = app.screen
        table = s.query_one("#fh-checkpoints")
        assert table.row_count == len(history.checkpoints)
        assert [r.value for r in table.rows] == [c.id for c in history.checkpoints]
        note = widget_text(app, s.query_one("#fh-note"))
        assert f"{len(history.checkpoints)} checkpoint" in note and "R restores" in note


async def test_help_lists_the_source_filter_key(demo):
    app = _app(demo)
    async with app.run_test(size=(140, 50)) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await settle(app, pilot)
        text = "\n".join(screen_lines(app))
        assert "Source filter" in text and "ctrl+o" in text.lower().replace("^o", "ctrl+o")


@pytest.mark.parametrize("both", [True, False], ids=["both-homes", "sid-code-only"])
async def test_the_footer_shows_the_source_filter_with_both_homes(demo, both):
    """Regression: ctrl+o was listed only by ``?``; it is in the footer (80 columns too)
    when there are two sources to cycle through, and off with one."""
    app = _app(demo) if both else make_app(demo.home, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        footer = screen_lines(app)[-1]
        assert ("^o Source" in footer) is both
        assert "? Help" in footer and "/ Search" in footer  # nothing pushed off
        await pilot.press("ctrl+o")
        await settle(app, pilot)
        assert (app.screen.query_one("#filter").value == "source:sid") is both


async def test_the_app_gets_the_claude_home_from_the_flag_or_the_environment(
    demo, tmp_path, monkeypatch
):
    import argparse

    from sidtui.cli.app import other_sources

    def claude(flag):
        return [s.home for s in other_sources(argparse.Namespace(claude_home=flag))]

    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.claude there
    assert claude(None) == []
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(demo.claude_home))
    assert [h.root for h in claude(None)] == [demo.claude_home]
    assert [h.root for h in claude(str(tmp_path / "x"))] == [tmp_path / "x"]


async def test_a_claude_home_alone_opens_and_lists_its_sessions(demo, tmp_path):
    app = make_app(
        tmp_path / "no-sid-code",
        poll_interval=0,
        catalog_path=":memory:",
        claude_home=demo.claude_home,
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        b = app.screen
        assert isinstance(b, BrowserScreen)
        assert {s.session_id for s in b.summaries.values()} == set(demo.claude_cases.values())
        assert not b.has_class("-empty")


async def test_with_neither_home_the_empty_state_names_both(tmp_path):
    app = make_app(tmp_path / "no-sid-code", poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(200, 30)) as pilot:
        await settle(app, pilot)
        b = app.screen
        assert b.has_class("-empty")
        assert f"no sid-code home at {tmp_path / 'no-sid-code'} (" in b.empty_hint
        text = widget_text(app, b.query_one("#empty-state"))
        assert "no sid-code home at" in text and "--home DIR" in text
        assert "no Claude Code home" in text and "--claude-home" in text
        assert "sidtui demo" in text


async def test_without_a_terminal_a_claude_home_alone_is_listed(demo, tmp_path, capsys):
    from sidtui.cli.app import listing_instead
    from sidtui.core.base.home import Home
    from sidtui.core.sources import ClaudeSource

    others = [ClaudeSource.resolve_home(demo.claude_home, {})]
    rc = listing_instead(Home(tmp_path / "no-sid-code"), "no terminal", others)
    out = capsys.readouterr()
    assert rc == 0 and demo.claude_cases["rewind"][:8] in out.out
    assert "no terminal" in out.err


async def test_find_marks_the_messages_and_n_moves_between_them(demo):
    sid = demo.claude_cases["checkpoints"]
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        b.open_key(_key(b, sid))
        await settle(app, pilot)
        s = app.screen
        await pilot.press("slash")
        assert s.has_class("-finding") and s.focused is s.query_one("#find")
        await pilot.press(*"case-insensitive", "enter")
        await settle(app, pilot)
        conv = s.query_one("#conversation-view")
        model = conv.model
        f = conv.finder
        assert f is not None and f.matches
        assert all("case-insensitive" in entry_text(model, i).lower() for i in f.matches)
        prompt = next(m for m in s.view.conversation if "case-insensitive" in m.preview(400))
        assert model.message_entry[prompt.index] in f.matches or any(
            model.entries[i].msg == prompt.index for i in f.matches
        )
        assert "/" in widget_text(app, s.query_one("#find-status"))
        assert conv.cursor == f.matches[f.position]
        await pilot.press("escape")  # back to the conversation, the words stay marked
        assert s.focused is conv
        first = f.position
        await pilot.press("n")
        await settle(app, pilot)
        assert f.position == (first + 1) % len(f.matches)
        await pilot.press("N")
        assert f.position == first


async def test_copy_puts_the_id_path_or_record_on_the_clipboard(demo):
    import orjson

    sid = demo.claude_cases["rewind"]
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        b.open_key(_key(b, sid))
        await settle(app, pilot)
        s = app.screen
        await pilot.press("c", "i")
        assert app.clipboard == sid
        await pilot.press("c", "p")
        assert app.clipboard == str(s.sf.path)
        conv = s.query_one("#conversation-view")
        conv.action_first()  # the first message's header
        await pilot.press("c", "r")
        await settle(app, pilot)
        assert orjson.loads(app.clipboard)["uuid"] == s.view.conversation[0].uuid


async def test_a_growing_file_is_read_again(short_tmp_path):
    import orjson

    demo = fresh_demo(short_tmp_path, claude=True)
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        sid = demo.claude_cases["rewind"]
        b.open_key(_key(b, sid))
        await settle(app, pilot)
        s = app.screen
        n = len(s.view.conversation)
        last = s.view.conversation[-1]
        rec = orjson.loads(s.sf.path.read_bytes().splitlines()[last.line - 1])
        rec.update(
            uuid="0e6b1c3e-0000-4000-8000-00000000live",
            parentUuid=last.uuid,
            type="user",
            message={"role": "user", "content": "one more prompt, appended live"},
        )
        rec.pop("toolUseResult", None)
        with s.sf.path.open("ab") as fh:
            fh.write(orjson.dumps(rec) + b"\n")
        s.check_file()
        await settle(app, pilot)
        assert len(s.view.conversation) == n + 1
        model = s.query_one("#conversation-view").model
        assert model.messages[-1].preview(60) == "one more prompt, appended live"


async def test_search_finds_claude_code_sessions_and_opens_at_the_hit(demo):
    from sidtui.tui.screens.search import SearchScreen

    sid = demo.claude_cases["rewind"]
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        await settle(app, pilot)
        m = app.screen
        assert isinstance(m, SearchScreen)
        await pilot.press(*"install section", "enter")
        await settle(app, pilot)
        hits = [(src, h) for src, h in zip(m.sources, m.hits, strict=True) if h.session_id == sid]
        assert hits and hits[0][0] == "claude-code"
        table = m.query_one("#search-results")
        table.move_cursor(row=m.hits.index(hits[0][1]))
        await pilot.press("enter")
        await settle(app, pilot)
        s = app.screen
        assert isinstance(s, SessionScreen) and s.sf.session_id == sid
        conv = s.query_one("#conversation-view")
        assert conv.finder is not None and conv.finder.query == "install section"
        assert conv.finder.matches and conv.cursor in conv.finder.matches
        # a hit on the stranded branch: not in the conversation, the Tips tab says where
        await pilot.press("backspace")
        await settle(app, pilot)
        await pilot.press("slash")
        await settle(app, pilot)
        m = app.screen
        await pilot.press(*"French", "enter")
        await settle(app, pilot)
        i = next(k for k, h in enumerate(m.hits) if h.session_id == sid)
        m.query_one("#search-results").move_cursor(row=i)
        await pilot.press("enter")
        await settle(app, pilot)
        s = app.screen
        assert isinstance(s, SessionScreen)
        assert s.query_one("TabbedContent").active == "tips"


async def test_the_watcher_brings_appended_records_on_screen(short_tmp_path):
    """A running Claude Code session appends whole lines (a prompt, then the reply); the
    app's watcher batch for the file re-reads it and the reply is drawn at the end."""
    from sidtui.core.live import Watcher
    from sidtui.core.live.events import RecordsAppended

    demo = fresh_demo(short_tmp_path, claude=True)
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        b.open_key(_key(b, demo.claude_cases["rewind"]))
        await settle(app, pilot)
        s = app.screen
        assert isinstance(s, SessionScreen) and s.view is not None
        watcher = Watcher(app.others[0].home, app._on_live_batch, force_polling=True)
        watcher.prime()  # what the app's watcher does when it starts
        records = claude_live_records(s.view)
        append_lines(s.sf.path, records)
        batch = watcher.process_paths([str(s.sf.path)])  # the watcher thread's one step
        assert [type(e) for e in batch] == [RecordsAppended]
        assert [r.ref.uuid for r in batch[0].records] == [r["uuid"] for r in records]
        app._on_live_batch(batch)  # and its delivery
        await settle(app, pilot)
        assert s.view.conversation[-1].uuid == records[-1]["uuid"]
        assert "Wrote CHANGELOG.md, appended live." in "\n".join(screen_lines(app))
        watcher.stop(1.0)


async def test_a_watcher_batch_during_the_first_read_is_not_lost(short_tmp_path, monkeypatch):
    """Regression: records appended after the first read had read the file, and announced
    while it still ran, were dropped (no stat to compare with yet) until the next append."""
    import threading

    from sidtui.core.live import Watcher

    demo = fresh_demo(short_tmp_path, claude=True)
    src = ClaudeSource(ClaudeHome(demo.claude_home))
    cf = src.resolve(demo.claude_cases["rewind"])
    records = claude_live_records(src.open(cf))
    read, go_on = threading.Event(), threading.Event()
    opened = ClaudeSource.open

    def held_open(self, sf):
        view = opened(self, sf)
        read.set()
        go_on.wait(30)  # the test lets the read finish once the batch was handled
        return view

    monkeypatch.setattr(ClaudeSource, "open", held_open)
    # the held read looks slow, which would space the re-read by a timer
    monkeypatch.setattr("sidtui.tui.live_session.RELOAD_SPACED_FROM", float("inf"))
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        watcher = Watcher(app.others[0].home, app._on_live_batch, force_polling=True)
        watcher.prime()
        b.open_key(_key(b, demo.claude_cases["rewind"]))
        assert await asyncio.to_thread(read.wait, 30)
        s = app.screen
        assert isinstance(s, SessionScreen) and s.view is None
        append_lines(s.sf.path, records)
        app._on_live_batch(watcher.process_paths([str(s.sf.path)]))
        await pilot.pause()
        await pilot.pause()
        go_on.set()
        await settle(app, pilot)
        assert s.view.conversation[-1].uuid == records[-1]["uuid"]
        assert "Wrote CHANGELOG.md, appended live." in "\n".join(screen_lines(app))
        watcher.stop(1.0)


async def _append_and_deliver(app, pilot, s, watcher, batch: int) -> list[dict]:
    """Append ``batch``'s prompt and reply to the open session's file and hand the
    watcher's batch to the app, as its watcher thread does; wait for the re-read."""
    records = claude_live_records(s.view, batch)
    append_lines(s.sf.path, records)
    app._on_live_batch(watcher.process_paths([str(s.sf.path)]))
    await settle(app, pilot)
    assert s.view.conversation[-1].uuid == records[-1]["uuid"]
    return records


async def test_a_live_session_follows_the_end_or_counts_new_records(short_tmp_path):
    """The follow key of sid-code's screen on a live Claude Code session: on, the view
    sticks to the end as records arrive; off (t), the line under the conversation counts
    them until End; the header says live."""
    from sidtui.core.live import Watcher

    demo = fresh_demo(short_tmp_path, claude=True)
    sid = demo.claude_cases["rewind"]
    src = ClaudeSource(ClaudeHome(demo.claude_home))
    register_claude_live(demo.claude_home, sid, src.open(src.resolve(sid)).cwd)
    app = _app(demo)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        app.open_session(src.resolve(sid))
        await settle(app, pilot)
        s = app.screen
        assert isinstance(s, SessionScreen) and s.view is not None and s.is_live()
        conv, line = s.query_one("#conversation-view"), s.query_one("#new-records")
        assert "live: " in widget_text(app, s.query_one("#session-head"))
        assert " t Follow " in screen_lines(app)[-1]
        assert widget_text(app, line) == "following the end (t)"
        watcher = Watcher(app.others[0].home, app._on_live_batch, force_polling=True)
        watcher.prime()
        try:
            await _append_and_deliver(app, pilot, s, watcher, 0)
            # following: the cursor is on the last entry, nothing is counted
            assert conv.follow and conv.cursor == len(conv.model.entries) - 1
            assert conv.new_records == 0 and conv.is_vertical_scroll_end
            assert "Wrote CHANGELOG.md, appended live." in "\n".join(screen_lines(app))

            await pilot.press("t")
            assert not conv.follow
            assert widget_text(app, line) == "not following (t)"
            await _append_and_deliver(app, pilot, s, watcher, 1)
            assert conv.new_records == 2  # the prompt and its reply
            assert widget_text(app, line) == "▼ 2 new records — End to jump · not following (t)"
            assert line.has_class("-has-new")
            assert conv.cursor < len(conv.model.entries) - 1  # the view did not move

            await pilot.press("end")
            await pilot.pause()
            assert conv.new_records == 0
            assert widget_text(app, line) == "not following (t)"
            await pilot.press("t")
            assert conv.follow
            await _append_and_deliver(app, pilot, s, watcher, 2)
            assert conv.new_records == 0 and conv.cursor == len(conv.model.entries) - 1
            assert widget_text(app, line) == "following the end (t)"
        finally:
            watcher.stop(1.0)


async def test_the_header_and_follow_key_follow_the_process_starting_and_ending(short_tmp_path):
    """Regression: a process that exits without writing again left the session shown live
    (header, follow key) until the next append; a registration change re-reads it now."""
    import os

    from sidtui.core.live import Watcher
    from sidtui.core.live.events import SessionBecameLive, SessionUnregistered

    demo = fresh_demo(short_tmp_path, claude=True)
    sid = demo.claude_cases["rewind"]
    src = ClaudeSource(ClaudeHome(demo.claude_home))
    cwd = src.open(src.resolve(sid)).cwd
    app = _app(demo)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        app.open_session(src.resolve(sid))
        await settle(app, pilot)
        s = app.screen
        assert isinstance(s, SessionScreen) and not s.is_live()
        head, line = s.query_one("#session-head"), s.query_one("#new-records")
        watcher = Watcher(app.others[0].home, app._on_live_batch, force_polling=True)
        watcher.prime()
        try:
            register_claude_live(demo.claude_home, sid, cwd)  # Claude Code starts on it
            batch = watcher.poll_liveness()
            assert [type(e) for e in batch] == [SessionBecameLive]
            app._on_live_batch(batch)
            await settle(app, pilot)
            assert s.is_live() and "live: " in widget_text(app, head)
            assert " t Follow " in screen_lines(app)[-1]
            assert widget_text(app, line) == "following the end (t)"

            (demo.claude_home / "sessions" / f"{os.getpid()}.json").unlink()  # it exits
            batch = watcher.poll_liveness()
            assert [type(e) for e in batch] == [SessionUnregistered]
            app._on_live_batch(batch)
            await settle(app, pilot)
            assert not s.is_live() and "live" not in widget_text(app, head)
            assert "Follow" not in screen_lines(app)[-1] and not line.display
        finally:
            watcher.stop(1.0)


async def test_following_reaches_the_end_when_records_first_outgrow_the_view(short_tmp_path):
    """Regression: the first records that made a conversation taller than its view came
    before the layout showed a scrollbar, and the follow's scroll to the end was ignored
    (the view stayed lines short of the end until something else scrolled it)."""
    from sidtui.tui.conversation_model import ConversationModel

    demo = fresh_demo(short_tmp_path, claude=True)
    src = ClaudeSource(ClaudeHome(demo.claude_home))
    cf = src.resolve(demo.claude_cases["rewind"])
    app = _app(demo)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        app.open_session(cf)
        await settle(app, pilot)
        s = app.screen
        conv = s.query_one("#conversation-view")
        assert conv.max_scroll_y == 0 and conv.follow  # it fits: no scrollbar yet
        append_lines(cf.path, claude_live_records(s.view))
        grown = ConversationModel.from_view(src.open(cf))
        conv.set_model(grown, keep_position=True)  # what a re-read hands the view
        assert conv.max_scroll_y > 0 and conv.is_vertical_scroll_end


async def test_a_session_nothing_writes_offers_no_follow_but_counts_what_arrives(short_tmp_path):
    """As on sid-code's screen: no follow key nor words where no process writes the file,
    and records that arrive below a reader who scrolled up are counted."""
    from sidtui.core.live import Watcher

    demo = fresh_demo(short_tmp_path, claude=True)
    src = ClaudeSource(ClaudeHome(demo.claude_home))
    app = _app(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        app.open_session(src.resolve(demo.claude_cases["rewind"]))
        await settle(app, pilot)
        s = app.screen
        assert isinstance(s, SessionScreen) and not s.is_live()
        conv, line = s.query_one("#conversation-view"), s.query_one("#new-records")
        assert not line.display and s.check_action("toggle_follow", ()) is False
        assert "Follow" not in screen_lines(app)[-1]
        assert "live" not in widget_text(app, s.query_one("#session-head"))
        await pilot.press("t")  # not bound here: nothing changes
        assert conv.follow
        await pilot.press("home")
        assert not conv.is_vertical_scroll_end  # scrolled up (the whole of it does not fit)
        watcher = Watcher(app.others[0].home, app._on_live_batch, force_polling=True)
        watcher.prime()
        try:
            await _append_and_deliver(app, pilot, s, watcher, 0)
        finally:
            watcher.stop(1.0)
        assert conv.cursor == 0 and conv.new_records == 2
        assert line.display and widget_text(app, line) == "▼ 2 new records — End to jump"


@pytest.mark.parametrize(
    "name",
    [
        "-Users-dain-workspace-JSSoundRecorder/7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl",
        "-Users-dain-workspace-claude-code-log-sample/12a546d1-83a7-49a6-abba-5400db340b43.jsonl",
    ],
    ids=["JSSoundRecorder", "claude-code-log"],
)
async def test_narrowing_a_claude_session_by_its_bytes_finds_the_same_entries(name):
    """Find in a big Claude Code session is narrowed with the file's bytes like sid-code's:
    a response merged from one record per block is looked for in each of its lines, and
    the matches are those of decoding every entry (words of merged responses, and words
    sidtui adds: roles, line numbers, times, tool names, status words)."""
    import re

    from sidtui.core.claude.layout import file_for_path
    from sidtui.tui.conversation_model import ConversationModel
    from sidtui.tui.find import Finder, find_entries
    from tests.helpers import CLAUDE_HOME

    path = CLAUDE_HOME / "projects" / name
    model = ConversationModel.from_view(
        ClaudeSource(ClaudeHome(CLAUDE_HOME)).open(file_for_path(path))
    )
    merged = [i for i, m in enumerate(model.messages) if len(set(model.lines_of(i))) > 1]
    assert merged
    raw = loaded_bytes(model)
    later = " ".join(
        entry_text(model, k)
        for k, e in enumerate(model.entries)
        if e.msg in merged and e.kind != "header" and e.block
    )
    words = sorted({w.lower() for w in re.findall(r"[A-Za-z_][\w.-]{3,}", later)})
    queries = words[:: max(1, len(words) // 60)]
    queries += ["assistant line", "ok", "thinking chars", "⚙ bash", "zzqq", "turn 2", ":0"]
    texts = [entry_text(model, i) for i in range(len(model.entries))]  # decoded once
    for q in queries:
        f = Finder.of(q)
        assert find_entries(model, f, raw=raw) == [i for i, t in enumerate(texts) if f.holds(t)]


async def test_the_find_bar_narrows_a_claude_session_and_finds_merged_blocks(demo, monkeypatch):
    """The find bar's worker reads a big Claude Code session's bytes first (the threshold
    lowered here): a block in the second record of a merged response is still found."""
    from sidtui.tui.find import Finder, find_entries

    monkeypatch.setattr("sidtui.tui.find.PREFILTER_FROM", 0)
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        b.open_key(_key(b, demo.claude_cases["checkpoints"]))
        await settle(app, pilot)
        s = app.screen
        conv = s.query_one("#conversation-view")
        model = conv.model
        merged = next(i for i, m in enumerate(model.messages) if len(m.records) > 1)
        second = next(k for k, e in enumerate(model.entries) if e.msg == merged and e.block == 1)
        await pilot.press("slash", *"search.py", "enter")
        await settle(app, pilot)
        assert conv.finder.matches == find_entries(model, Finder.of("search.py"))
        assert second in conv.finder.matches


async def test_find_reads_no_fifo_put_in_place_of_the_transcript(short_tmp_path, monkeypatch):
    """The prefilter reads the transcript as the core reads a hostile disk: a FIFO put in
    its place after the load is refused (a plain read would wait for a writer forever) and
    find decodes every entry instead."""
    import errno
    import os

    from sidtui.tui.find import Finder, find_entries

    monkeypatch.setattr("sidtui.tui.find.PREFILTER_FROM", 0)
    demo = fresh_demo(short_tmp_path, claude=True)
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        b.open_key(_key(b, demo.claude_cases["checkpoints"]))
        await settle(app, pilot)
        s = app.screen
        conv = s.query_one("#conversation-view")
        path = s.sf.path
        path.unlink()
        os.mkfifo(path)
        try:
            await pilot.press("slash", *"search.py", "enter")
            await asyncio.wait_for(settle(app, pilot), 60)
            assert conv.finder.matches == find_entries(conv.model, Finder.of("search.py"))
            assert conv.finder.matches
        finally:  # had a read blocked on the FIFO, give it its end of file
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            except OSError as exc:
                assert exc.errno == errno.ENXIO  # no reader: nothing was blocked


async def test_the_conversation_dims_what_claude_codes_resume_does_not_load(tmp_path):
    """Messages before a chain break are dimmed with why; the banner says it (§11)."""
    from sidtui.core.claude.layout import file_for_path
    from sidtui.core.claude.reading import NOT_LOADED
    from sidtui.tui.conversation_model import ConversationModel
    from tests.helpers import CC_SESSION, cc_assistant, cc_home, cc_lines, cc_user

    data = cc_lines(
        cc_user("u1", None, "first prompt", ts=1),
        cc_assistant("a1", "u1", "first reply", ts=2),
        cc_assistant("a2", "gone", "second reply", ts=30),
        cc_user("u3", "a2", "third prompt", ts=31),
        cc_assistant("a3", "u3", "third reply", ts=32),
    )
    home = cc_home(tmp_path / "home", {"-p": {f"{CC_SESSION}.jsonl": data}})
    path = home / "projects" / "-p" / f"{CC_SESSION}.jsonl"
    model = ConversationModel.from_view(ClaudeSource(ClaudeHome(home)).open(file_for_path(path)))
    dims = [e.dropped for e in model.entries if e.kind == "header"]
    assert dims == [NOT_LOADED, NOT_LOADED, None, None, None]
    assert any("Claude Code will not load the 2 messages above" in line for line in model.banner)

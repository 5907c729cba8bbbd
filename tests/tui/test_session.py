"""Pilot tests of the Session screen's tabs on copies of the real-home fixture."""

from __future__ import annotations

import time

import orjson
import pytest

from sidtui.core.base.home import Home
from sidtui.core.base.resolve import resolve_session
from sidtui.tui.app import make_app
from sidtui.tui.screens.session import SessionScreen
from tests.tui_support import kill_fixture_pids, settle

pytestmark = pytest.mark.asyncio


@pytest.fixture
def home(real_home_copy):
    kill_fixture_pids(real_home_copy)
    return real_home_copy


async def _open(app, pilot, sid):
    sf = resolve_session(app.home, sid)
    app.open_session(sf)
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, SessionScreen)
    assert screen.view is not None
    return screen


async def test_conversation_shows_cleaning_drops_and_banner(home):
    app = make_app(home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        s = await _open(app, pilot, "20261130-052915-f2217f0e")  # S07 sigkill
        conv = s.query_one("#conversation-view")
        model = conv.model
        assert model.banner_kind == "interrupted_prompt"
        dropped = [e for e in model.entries if e.dropped]
        assert dropped, "recovery drops the orphan tool_use and the thinking-only remnant"
        # layer 3 strips the orphan edit tool_use, which leaves a thinking-only message that
        # layer 4 drops whole: the header and the thinking carry layer 4, the tool_use its
        # own layer 3 (shown on its line, as `sidtui show` lists it)
        layer4 = (
            "filter_orphaned_thinking_only_messages: assistant message holds only thinking"
            " (stream interrupted before text)"
        )
        assert [(e.kind, e.dropped == layer4) for e in dropped] == [
            ("header", True),
            ("thinking", True),
            ("tool_use", False),
        ]
        tool = dropped[2]
        assert tool.dropped.startswith("filter_unresolved_tool_uses: tool_use ")
        assert tool.dropped.endswith("(edit) has no tool_result")
        assert model.header_text(tool).endswith(f"  · dropped by {tool.dropped}")
        assert "dropped by" not in model.header_text(dropped[1])  # said by its header
        # the cursor starts on the banner (end of the session)
        assert model.entries[conv.cursor].kind == "banner"


async def test_expand_collapse_tool_call(home):
    app = make_app(home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        s = await _open(app, pilot, "20261130-052907-9ff3799b")
        conv = s.query_one("#conversation-view")
        idx = next(i for i, e in enumerate(conv.model.entries) if e.kind == "tool_use")
        conv.cursor = idx
        height = conv.virtual_size.height
        assert conv.model.entries[idx].collapsed
        await pilot.press("enter")
        await pilot.pause()
        assert not conv.model.entries[idx].collapsed
        assert conv.virtual_size.height > height
        assert "⚙" in conv.model.header_text(conv.model.entries[idx])
        await pilot.press("enter")
        await pilot.pause()
        assert conv.virtual_size.height == height


async def test_parallel_results_are_grouped(home):
    app = make_app(home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        s = await _open(app, pilot, "20261130-052907-9ff3799b")  # 3 parallel reads
        model = s.query_one("#conversation-view").model
        assert any(
            e.kind == "header" and "3 parallel results" in (e.note or "") for e in model.entries
        )


async def test_chain_tab_marks_skipped_branch_and_shows_raw_json(home):
    app = make_app(home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        s = await _open(app, pilot, "20261130-052911-93f211fb")  # S06 concurrent writers
        await pilot.press("2")
        await pilot.pause()
        chain = s.query_one("#chain-view")
        texts = [chain.index.describe(r)[1] for r in chain.index.rows]
        assert any("skipped branch" in t for t in texts)
        assert any("live tip" in t for t in texts)
        await pilot.press("down")
        await pilot.pause()
        raw = str(s.query_one("#raw-json").render())
        assert raw  # something is shown for the selected record


async def test_chain_tab_bad_line(home):
    app = make_app(home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        s = await _open(app, pilot, "20261130-052921-ad7240fb")  # torn line glued
        chain = s.query_one("#chain-view")
        kinds = [r.kind for r in chain.index.rows]
        assert "bad" in kinds
        bad_row = kinds.index("bad")
        assert "BAD LINE" in chain.index.describe(chain.index.rows[bad_row])[1]
        assert s.query_one("#conversation-view").model.banner_kind == "unloadable"


async def test_state_tab(home):
    app = make_app(home, poll_interval=0, home_label="~/.sid-code")
    async with app.run_test(size=(120, 40)) as pilot:
        s = await _open(app, pilot, "20261130-052907-9ff3799b")
        await pilot.press("4")
        await pilot.pause()
        from rich.console import Console

        from sidtui.tui.widgets.state_panel import state_renderable

        c = Console(width=120, record=True)
        c.print(state_renderable(s.view, "~/.sid-code"))
        text = c.export_text()
        assert "permission" in text and "not restored (by design)" in text
        assert "cache hit" in text
        assert "Todo list" in text


async def test_sidechains_tab_lists_unfinished_and_opens_one(home):
    app = make_app(home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        s = await _open(app, pilot, "20261130-052917-0c88f996")  # S10 sidechains
        await pilot.press("5")
        await pilot.pause()
        table = s.query_one("#sidechains-table")
        assert table.row_count == 3
        statuses = [str(table.get_cell_at((i, 2))) for i in range(3)]
        assert "unfinished" in statuses
        table.focus()
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, SessionScreen) and app.screen is not s
        assert app.screen.sf.kind == "sidechain"
        assert app.screen.query_one("#conversation-view").model.entries


async def test_follow_live_append(home):
    app = make_app(home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        s = await _open(app, pilot, "20261130-052907-9ff3799b")
        conv = s.query_one("#conversation-view")
        n = len(conv.model.messages)
        path = s.sf.path
        tail = [ln for ln in path.read_bytes().splitlines() if ln.strip()][-1]
        parent = orjson.loads(tail)["uuid"]
        rec = {
            "type": "user_message",
            "uuid": "live-0001",
            "parentUuid": parent,
            "timestamp": "2026-11-30T00:00:00.000Z",
            "message": {
                "role": "user",
                "content": [{"type": "text", "text": "appended while open"}],
            },
        }
        with open(path, "ab") as fh:
            fh.write(orjson.dumps(rec) + b"\n")
        s.check_file()  # what the interval timer does
        await settle(app, pilot)
        assert len(conv.model.messages) == n + 1
        assert conv.model.entries[conv.cursor].kind == "banner"  # followed to the end
        # follow off and scrolled up: a "new records" count instead of jumping
        await pilot.press("t")
        conv.action_first()
        await pilot.pause()
        rec2 = dict(rec, uuid="live-0002", parentUuid="live-0001")
        with open(path, "ab") as fh:
            fh.write(orjson.dumps(rec2) + b"\n")
        s.check_file()
        await settle(app, pilot)
        assert conv.new_records >= 1
        assert "new record" in str(s.query_one("#new-records").render())


async def test_escape_goes_back_and_errors_do_not_crash(home):
    app = make_app(home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sf = resolve_session(Home(home), "20261130-052907-9ff3799b")
        sf.path.unlink()  # deleted between listing and opening
        app.open_session(sf)
        await settle(app, pilot)
        assert isinstance(app.screen, SessionScreen)
        assert app.screen.view is None
        await pilot.press("backspace")
        await pilot.pause()
        assert not isinstance(app.screen, SessionScreen)


async def test_watcher_batch_triggers_reload(home):
    """A watcher batch naming the open file re-reads it (no wait for the poll)."""
    from sidtui.tui.messages import LiveChanged

    app = make_app(home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        s = await _open(app, pilot, "20261130-052907-9ff3799b")
        conv = s.query_one("#conversation-view")
        n = len(conv.model.messages)
        tail = [ln for ln in s.sf.path.read_bytes().splitlines() if ln.strip()][-1]
        rec = {
            "type": "user_message",
            "uuid": "w-1",
            "parentUuid": orjson.loads(tail)["uuid"],
            "timestamp": "2026-11-30T00:00:00.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        }
        with open(s.sf.path, "ab") as fh:
            fh.write(orjson.dumps(rec) + b"\n")
        app.post_message(LiveChanged({str(s.sf.path)}))
        await settle(app, pilot)
        assert len(conv.model.messages) == n + 1


async def test_a_watcher_batch_during_the_first_read_is_not_lost(home, monkeypatch):
    """Regression: a record appended after the first read had read the file, and announced
    while that read still ran, was dropped (no stat to compare with yet) until the next
    append."""
    import asyncio
    import threading

    import sidtui.core.views.session as views_session
    from sidtui.tui.messages import LiveChanged

    read, go_on = threading.Event(), threading.Event()
    opened = views_session.open_session

    def held_open(*args, **kw):
        view = opened(*args, **kw)
        read.set()
        go_on.wait(30)  # the test lets the read finish once the batch was handled
        return view

    app = make_app(home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)  # the browser's reads are done: hold only the screen's
        monkeypatch.setattr(views_session, "open_session", held_open)
        # the held read looks slow, which would space the re-read by a timer
        monkeypatch.setattr("sidtui.tui.live_session.RELOAD_SPACED_FROM", float("inf"))
        sf = resolve_session(app.home, "20261130-052907-9ff3799b")
        app.open_session(sf)
        assert await asyncio.to_thread(read.wait, 30)
        tail = [ln for ln in sf.path.read_bytes().splitlines() if ln.strip()][-1]
        rec = {
            "type": "user_message",
            "uuid": "w-1",
            "parentUuid": orjson.loads(tail)["uuid"],
            "timestamp": "2026-11-30T00:00:00.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        }
        with open(sf.path, "ab") as fh:
            fh.write(orjson.dumps(rec) + b"\n")
        app.post_message(LiveChanged({str(sf.path)}))
        await pilot.pause()
        await pilot.pause()
        go_on.set()
        await settle(app, pilot)
        s = app.screen
        assert isinstance(s, SessionScreen) and s.view is not None
        assert s.query_one("#conversation-view").model.messages[-1].uuid == "w-1"


@pytest.mark.parametrize(
    "sid", ["20261130-052916-63e39b3e", "20261130-052915-f2217f0e", "20261130-052917-0c88f996"]
)
async def test_measure_matches_drawn_lines(home, sid):
    """The virtual height (measured cheaply, in the worker) equals the lines drawn."""
    from sidtui.tui.widgets.conversation_view import measure

    app = make_app(home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        s = await _open(app, pilot, sid)
        conv = s.query_one("#conversation-view")
        model = conv.model
        for width in (40, 117):
            for collapsed in (True, False):
                for e in model.entries:
                    if e.collapsible:
                        e.collapsed = collapsed
                    assert measure(model, e, width) == len(conv._build_lines(e, width)), (e, width)


async def test_slow_live_rereads_are_spaced(home):
    """A session whose last read was slow is re-read after a pause, not back to back."""
    app = make_app(home, poll_interval=0)
    async with app.run_test(size=(120, 40)) as pilot:
        s = await _open(app, pilot, "20261130-052907-9ff3799b")
        assert s.reload_wait() == 0.0  # a small session: re-read at once
        s._load_seconds = 5.0
        s._loaded_at = time.monotonic()
        assert 9.0 < s.reload_wait() <= 10.0
        s.reload_when_idle()
        assert s._reload_timer is not None
        assert not any(w.group == "open-session" and not w.is_finished for w in s.workers)
        s.reload_when_idle()  # a second change while waiting: still one timer
        timer = s._reload_timer
        timer.stop()
        s._load_seconds = 0.0
        s._timed_reload()  # what the timer does when it fires
        await settle(app, pilot)
        assert s._reload_timer is None and s.view is not None

"""What is drawn: no raw control character on any screen of the demo home, and the
wording a person reads (plurals, stale registrations, dropped blocks, errors, numbers)."""

from __future__ import annotations

import pytest

from sidtui.tui.app import make_app
from sidtui.tui.screens.session import SessionScreen
from tests.tui_support import (
    controls_on_screen,
    demo_home_fixed,
    open_session,
    screen_lines,
    settle,
)


@pytest.fixture(scope="module")
def demo():
    return demo_home_fixed()


def _app(home):
    return make_app(home, poll_interval=0, home_label="~/.sid-code", catalog_path=":memory:")


async def _assert_clean(app, where: str) -> None:
    found = controls_on_screen(app)
    assert not found, f"{where}: raw control characters drawn at (line, char) {found[:5]}"


@pytest.mark.slow  # every screen of every demo session (~14 s)
async def test_no_raw_control_character_on_any_screen(demo):
    """Regression: a folded ``read`` result starting with a tab drew ``⮑ read ok  1\\t…``
    and the tab reached the terminal, leaving cells of the line before. Every screen and
    tab, drawn for the sessions that have something odd to show there, and every modal;
    the next test covers every line of every session."""
    home, cases = demo
    app = _app(home)
    tabs = {
        "checkpoints": "2345",
        "killed": "24",
        "concurrent": "2",
        "sidechains": "25",
        "lone_surrogate": "24",
        "torn_glued": "2",
        "legacy_v1": "2",
    }
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await _assert_clean(app, "browser")
        for case, keys in tabs.items():
            s = await open_session(app, pilot, cases[case])
            s.action_expand_all()  # bodies are drawn too
            await settle(app, pilot)
            await _assert_clean(app, f"{case} conversation end")
            s.query_one("#conversation-view").action_first()
            await settle(app, pilot)
            await _assert_clean(app, f"{case} conversation top")
            for key in keys:
                await pilot.press(key)
                await settle(app, pilot)
                await _assert_clean(app, f"{case} tab {key}")
            s.action_back()
            await settle(app, pilot)
        s = await open_session(app, pilot, cases["checkpoints"])
        for keys in (("r",), ("f",), ("c",), ("question_mark",), ("3", "u"), ("3", "R")):
            for k in keys:
                await pilot.press(k)
                await settle(app, pilot)
            await _assert_clean(app, f"modal {keys}")
            await pilot.press("escape")
            await settle(app, pilot)
        await pilot.press("1", "slash", *"threshold", "enter")
        await settle(app, pilot)
        await _assert_clean(app, "find")
        s.action_back()
        await settle(app, pilot)
        await pilot.press("slash", *"read", "enter")
        await settle(app, pilot)
        await _assert_clean(app, "search results")


def test_no_raw_control_character_in_any_session_line(demo):
    """Every line the Conversation draws (folded and expanded, at 80 columns) and every
    Chain row, for every session of the demo home, as the widgets build them."""
    from sidtui.core.base.discover import discover
    from sidtui.core.base.home import Home
    from sidtui.core.views.session import open_session as core_open
    from sidtui.tui.conversation_model import ConversationModel
    from sidtui.tui.widgets.chain_view import ChainIndex
    from sidtui.tui.widgets.conversation_view import ConversationView
    from tests.tui_support import CONTROL_CHARS

    h = Home(demo[0])
    files = discover(h)
    assert len([f for f in files if f.kind == "main"]) >= 20
    view_widget = ConversationView()
    for sf in files:
        view = core_open(h, sf)
        model = ConversationModel.from_view(view)
        view_widget.model = model
        for e in model.entries:
            for collapsed in (True, False):
                if e.collapsible:
                    e.collapsed = collapsed
                for _, text in view_widget._build_lines(e, 80):
                    assert not set(text) & CONTROL_CHARS, (sf.path.name, e, text)
        chain = ChainIndex(view)
        for row in chain.rows:
            text = chain.describe(row)[1]
            assert not set(text) & CONTROL_CHARS, (sf.path.name, row, text)


async def test_session_head_says_stale_and_counts_in_words(demo):
    """Regression: a stale registration showed "interrupted prompt" without "(stale)"
    (``sidtui show``: "stale registration"); "1 warnings"."""
    home, cases = demo
    app = _app(home)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        s = await open_session(app, pilot, cases["stale_registration"])
        assert s.view.liveness.stale and not s.view.liveness.live
        head = screen_lines(app)[1:3]
        assert "interrupted prompt (stale)" in head[0]
        n = len(s.view.warnings)
        assert f"· {n} warning{'' if n == 1 else 's'}" in head[1]
        # one of each: the singular (a session with one warning, a sidechain of one record)
        from sidtui.fmt import plural

        assert (plural(1, "warning"), plural(2, "warning")) == ("1 warning", "2 warnings")
        assert plural(1, "match", "matches") == "1 match"


async def test_dropped_block_shows_its_layer_and_reason(demo):
    """Regression: a block dropped by cleaning was struck through but its layer and reason
    never appeared, even expanded (``sidtui show`` lists every drop with both)."""
    home, cases = demo
    app = _app(home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        s = await open_session(app, pilot, cases["killed"])
        conv = s.query_one("#conversation-view")
        model = conv.model
        rec = s.view.recovery
        for d in rec.dropped:
            layer_reason = f"{d.layer}: {d.reason}"
            if d.block is None:
                e = model.entries[model.message_entry[d.index]]
                assert model.header_note(e).endswith(f"dropped by {layer_reason}")
            else:
                e = model.entries[model.message_entry[d.index] + 1 + d.block]
                assert e.dropped == layer_reason
                i = model.entries.index(e)
                conv.cursor = i
                if e.collapsed:
                    await pilot.press("enter")
                await settle(app, pilot)
                drawn = " ".join(" ".join(screen_lines(app)).split())
                assert " ".join(f"dropped by {layer_reason}".split()) in drawn


async def test_deleted_session_file_is_worded(short_tmp_path):
    """Regression: a session deleted between listing and opening showed ``[Errno 2] …``."""
    from tests.tui_support import fresh_demo

    demo = fresh_demo(short_tmp_path)
    app = make_app(demo.home, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        from sidtui.core.base.resolve import resolve_session

        sf = resolve_session(app.home, demo.cases["clean"])
        sf.path.unlink()
        app.open_session(sf)
        await settle(app, pilot)
        head = screen_lines(app)[1]
        assert "the session file is gone:" in head and "Errno" not in head


async def test_sidechain_head_counts_its_messages(demo):
    """Regression: a sidechain's header said "0 messages · started ·" above 3 messages."""
    home, cases = demo
    app = _app(home)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await open_session(app, pilot, cases["sidechains"])
        await pilot.press("5", "enter")
        await settle(app, pilot)
        side = app.screen
        assert isinstance(side, SessionScreen) and side.sf.kind == "sidechain"
        n = len(side.view.sidechain.messages)
        assert n > 0
        head = screen_lines(app)[2]
        assert f" {n} message" in head and "0 messages" not in head
        assert "started 20" in head


async def test_usage_figures_are_rounded(demo):
    """Regression: ``costUSD=0.055447500000000004`` in the State tab."""
    from rich.console import Console

    from sidtui.tui.widgets.state_panel import state_renderable

    home, cases = demo
    app = _app(home)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        s = await open_session(app, pilot, cases["killed"])
        c = Console(width=200, record=True)
        c.print(state_renderable(s.view, "~/.sid-code"))
        text = c.export_text()
        assert "0.0554475000" not in text and "00000000" not in text
        assert "costUSD=$0.0554" in text


def test_search_snippet_shows_json_escapes_as_characters():
    """Regression: a tool call's snippet showed ``\\"`` and ``\\n`` as written in JSON."""
    from sidtui.tui.screens.search import snippet_text

    t = snippet_text('bash {"command": "echo \\"«hi»\\"\\nls\\tx \\u00e9"}', "tool", lead=80)
    assert t.plain == 'bash {"command": "echo "hi" ls x é"}'
    assert [t.plain[s.start : s.end] for s in t.spans] == ["hi"]
    # a prompt's backslashes are the user's: kept; a raw tab or newline is never drawn
    assert snippet_text("a \\n b\tc\nd", "prompt").plain == "a \\n b c d"
    # at most ``lead`` characters before the first hit, so a narrow column shows it
    assert snippet_text("x" * 40 + " «hit» after", "prompt", lead=5).plain == "…xxxx hit after"


async def test_follow_is_offered_only_on_live_sessions(demo):
    """Regression: "following (t)" was shown on sessions no agent writes."""
    home, cases = demo
    app = _app(home)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        s = await open_session(app, pilot, cases["clean"])
        assert not s.view.liveness.live
        assert not s.query_one("#new-records").display
        assert "Follow" not in screen_lines(app)[-1]
        assert s.check_action("toggle_follow", ()) is False

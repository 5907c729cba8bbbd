"""Search that lands: a hit opens the session at the record, words found and highlighted;
find in the open session; the same home spelled two ways is one search index."""

from __future__ import annotations

import pytest

from sidtui.core.base.home import Home
from sidtui.core.base.resolve import resolve_session
from sidtui.core.views.session import open_session as core_open
from sidtui.tui.app import make_app
from sidtui.tui.screens.search import SearchScreen
from sidtui.tui.screens.session import SessionScreen
from tests.tui_support import demo_home_fixed, fresh_demo, open_session, screen_lines, settle


@pytest.fixture(scope="module")
def demo():
    return demo_home_fixed()


def _app(home, **kw):
    kw.setdefault("catalog_path", ":memory:")
    return make_app(home, poll_interval=0, **kw)


async def _search(app, pilot, words: str) -> SearchScreen:
    await pilot.press("slash")
    await settle(app, pilot)
    modal = app.screen
    assert isinstance(modal, SearchScreen)
    await pilot.press(*words, "enter")
    await settle(app, pilot)
    return modal


def _on_screen(conv, entry: int) -> bool:
    y = conv.scroll_offset.y
    height = conv.scrollable_content_region.height
    return y <= conv._starts[entry] < y + height


async def test_a_search_hit_opens_the_session_at_the_hit_highlighted(demo):
    """Regression: opening a hit opened the session at the top (a hit at line 52 of the
    long demo session; line 139,312 of the 100 MB one)."""
    home, cases = demo
    app = _app(home)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        modal = await _search(app, pilot, "helper_11")
        hit = next(h for h in modal.hits if h.session_id == cases["long_session"])
        t = modal.query_one("#search-results")
        t.move_cursor(row=modal.hits.index(hit))
        await pilot.press("enter")
        await settle(app, pilot)
        s = app.screen
        assert isinstance(s, SessionScreen) and s.sf.session_id == cases["long_session"]
        conv = s.query_one("#conversation-view")
        e = conv.model.entries[conv.cursor]
        assert conv.model.messages[e.msg].line == hit.line
        assert conv.scroll_offset.y > 0 and _on_screen(conv, conv.cursor)
        assert conv.finder is not None and conv.finder.query == "helper_11"
        assert "helper_11" in s.query_one("#find").value
        # the words are highlighted where they are drawn
        y = conv._starts[conv.cursor] - conv.scroll_offset.y
        lines = conv._entry_lines(conv.cursor, conv._layout_width)
        k = next(i for i, (_, text) in enumerate(lines) if "helper_11" in text)
        strip = conv.render_line(y + k)
        match = conv.get_component_rich_style("conversation--match")
        assert any(
            seg.text.lower() == "helper_11" and seg.style.bgcolor == match.bgcolor for seg in strip
        )


async def test_a_hit_off_the_live_chain_opens_the_chain_tab(demo):
    """A record the agent does not resume (a concurrent writer's skipped branch) is not a
    message of the Conversation: the hit opens the Chain tab at its line."""
    home, cases = demo
    sid = cases["concurrent"]
    view = core_open(Home(home), resolve_session(Home(home), sid))
    drawn = {m.line for m in view.loaded.messages}
    app = _app(home)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        modal = await _search(app, pilot, "docstring")
        hits = [h for h in modal.hits if h.session_id == sid and h.line not in drawn]
        assert hits, [(h.session_id, h.line) for h in modal.hits]
        modal.query_one("#search-results").move_cursor(row=modal.hits.index(hits[0]))
        await pilot.press("enter")
        await settle(app, pilot)
        s = app.screen
        assert s.query_one("#tabs").active == "chain"
        chain = s.query_one("#chain-view")
        assert chain.index.rows[chain.cursor].line == hits[0].line


async def test_find_in_the_session_moves_between_matches(demo):
    home, cases = demo
    app = _app(home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        s = await open_session(app, pilot, cases["checkpoints"])
        conv = s.query_one("#conversation-view")
        await pilot.press("ctrl+f")
        assert s.focused is s.query_one("#find")
        await pilot.press(*"reading threshold", "enter")
        await settle(app, pilot)
        f = conv.finder
        assert f is not None and len(f.matches) >= 3
        for i in f.matches:  # every word is in every match
            text = conv.model.header_text(conv.model.entries[i]) + conv.model.body(
                conv.model.entries[i]
            )
            assert "reading" in text.lower() and "threshold" in text.lower()
        first = conv.cursor
        assert first == f.matches[f.position] and _on_screen(conv, first)
        assert "1/" in str(s.query_one("#find-status").render())
        await pilot.press("enter")  # Enter again: the next match
        await settle(app, pilot)
        assert conv.cursor == f.matches[1]
        await pilot.press("escape")  # back to the conversation, the matches stay
        assert s.focused is conv
        await pilot.press("n")
        await settle(app, pilot)
        assert conv.cursor == f.matches[2]
        await pilot.press("N", "N")
        await settle(app, pilot)
        assert conv.cursor == f.matches[0]
        # a word only inside a folded block: the block unfolds to show it
        model = conv.model
        heads = " ".join(model.header_text(e).lower() for e in model.entries)
        word = next(
            w
            for i, e in enumerate(model.entries)
            if e.kind == "tool_use"
            for w in model.body(e).lower().replace('"', " ").split()
            if len(w) >= 6 and w.isidentifier() and w not in heads
        )
        await pilot.press("slash")
        s.query_one("#find").value = ""
        await pilot.press(*word, "enter")
        await settle(app, pilot)
        e = model.entries[conv.cursor]
        assert e.kind != "header" and word not in model.header_text(e).lower()
        assert not e.collapsed  # it was folded: unfolded to show the word
        assert any(word in line.lower() for line in screen_lines(app))


async def test_search_survives_another_spelling_of_the_home(short_tmp_path, monkeypatch):
    """Regression: the app on /abs/home searched, then ``sidtui ls --home rel/home`` on
    the same home refreshed its catalog with relative paths, which dropped the app's
    documents: 0 results until restarted."""
    from sidtui.cli import main as cli_main

    demo = fresh_demo(short_tmp_path)
    monkeypatch.chdir(demo.home.parent)
    app = make_app(demo.home.resolve(), poll_interval=0)  # the default catalog database
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        modal = await _search(app, pilot, "threshold")
        before = len(modal.hits)
        assert before
        assert cli_main(["--home", demo.home.name, "ls"]) == 0
        await pilot.press("enter")  # open a hit, come back, search again
        await settle(app, pilot)
        app.screen.action_back()
        await settle(app, pilot)
        modal = await _search(app, pilot, "threshold")
        assert len(modal.hits) == before


@pytest.mark.parametrize("case", ["checkpoints", "killed", "long_session", "sidechains"])
def test_narrowing_by_the_file_bytes_finds_the_same_entries(demo, case):
    """Big sessions are narrowed with the transcript's bytes before any entry is decoded;
    the matches must be those of the full scan, words sidtui adds (roles, line numbers,
    times, tool names, status words, drop reasons) included."""
    from sidtui.tui.conversation_model import ConversationModel
    from sidtui.tui.find import Finder, find_entries

    home, cases = demo
    sf = resolve_session(Home(home), cases[case])
    model = ConversationModel.from_view(core_open(Home(home), sf))
    raw = sf.path.read_bytes()
    queries = [
        "threshold",
        "reading threshold",
        "assistant line",
        "ok",
        "thinking chars",
        "19:0",
        "read",
        "dropped filter_orphaned",
        "helper_1",
        "re-queued",
        "zzqq",
        "turn 2",
        "会议",
    ]
    for q in queries:
        f = Finder.of(q)
        assert find_entries(model, f, raw=raw) == find_entries(model, f), q


async def test_search_results_show_the_hit_at_80_columns(demo):
    """Regression: at 80 columns the snippet column was cut to a few characters after the
    session, start time, line and kind, so a tool hit showed "…projects/datal" and never
    the word; now the start time gives way and each snippet starts shortly before its hit."""
    home, cases = demo
    app = _app(home)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        modal = await _search(app, pilot, "threshold")
        t = modal.query_one("#search-results")
        assert t.row_count >= 5
        r = t.region
        rows = screen_lines(app)[r.y + 1 : r.y + 1 + min(t.row_count, r.height - 1)]
        assert rows and all("threshold" in line[r.x : r.x + r.width].lower() for line in rows)

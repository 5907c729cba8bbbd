"""Pilot tests of Codex CLI sessions in the app: listed beside the other agents' and
opened on the one session screen (conversation, header, banner); the rewind dialog offers
the conversation only and the fork dialog writes a fork Codex resumes; no checkpoints."""

from __future__ import annotations

import pytest

from sidtui.core.sources import CodexSource
from sidtui.tui.app import make_app
from sidtui.tui.screens.browser import BrowserScreen
from sidtui.tui.screens.fork import ForkScreen
from sidtui.tui.screens.rewind import RewindScreen
from sidtui.tui.screens.session import SessionScreen
from tests.helpers import short_folder
from tests.tui_support import fresh_demo, screen_lines, settle, widget_text

pytestmark = pytest.mark.asyncio


@pytest.fixture(scope="module")
def demo(short_base):
    return fresh_demo(short_folder(short_base, "codex-app"), claude=True)


def _source(demo) -> CodexSource:
    return CodexSource.resolve_home(demo.codex_home, {})


def _app(demo):
    return make_app(
        demo.home,
        poll_interval=0,
        catalog_path=":memory:",
        claude_home=demo.claude_home,
        codex_home=_source(demo).home,
    )


def _key(browser: BrowserScreen, sid: str) -> str:
    return next(k for k, s in browser.summaries.items() if s.session_id == sid)


def _rollouts(demo) -> set[str]:
    return {p.name for p in (demo.codex_home / "sessions").rglob("rollout-*.jsonl")}


async def test_the_browser_lists_three_agents(demo):
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        assert isinstance(b, BrowserScreen)
        assert {s.source for s in b.summaries.values()} == {"sid-code", "claude-code", "codex"}
        codex = {s.session_id for s in b.summaries.values() if s.source == "codex"}
        assert set(demo.codex_cases.values()) <= codex
        assert b.both_sources  # the source filter is offered


async def test_opening_a_codex_session_shows_its_conversation(demo):
    sid = demo.codex_cases["interrupted"]
    src = _source(demo)
    view = src.open(src.resolve(sid))
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        b.open_key(_key(b, sid))
        await settle(app, pilot)
        s = app.screen
        assert isinstance(s, SessionScreen) and s.view is not None
        assert s.source.name == "codex"
        head = widget_text(app, s.query_one("#session-head"))
        assert f"Codex CLI session {sid}" in head and "interrupted" in head
        model = s.query_one("#conversation-view").model
        assert [e.msg for e in model.entries if e.kind == "header"] == list(
            range(len(view.messages))
        )
        assert model.entries[-1].kind == "banner" and "On resume" in model.banner[0]
        assert "codex resume sends" in "\n".join(model.banner)
        # no Tips or Chain tab (one history, no record tree); the Checkpoints tab says why
        assert "tips" not in s.tabs and "chain" not in s.tabs
        s.action_show_tab("checkpoints")
        await settle(app, pilot)
        assert "Codex CLI keeps no file states" in "\n".join(screen_lines(app))
        # the code actions are off (not in the footer, the help nor the palette)
        assert s.lacks("undo_preview") and s.lacks("restore_before") and not s.lacks("rewind")


async def test_rewind_offers_the_conversation_only_and_fork_writes_a_new_rollout(demo):
    sid = demo.codex_cases["shell"]
    app = _app(demo)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        b.open_key(_key(b, sid))
        await settle(app, pilot)
        s = app.screen
        await pilot.press("r")
        await settle(app, pilot)
        r = app.screen
        assert isinstance(r, RewindScreen)
        assert [k for k, _ in r.modes] == ["conversation"]
        assert "keeps no file states" in "\n".join(screen_lines(app))
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is s
        before = _rollouts(demo)
        await pilot.press("f")
        await settle(app, pilot)
        f = app.screen
        assert isinstance(f, ForkScreen) and f.view.session_id == sid
        await pilot.press("y")
        await settle(app, pilot)
        new = _rollouts(demo) - before
        assert len(new) == 1
        src = _source(demo)
        forked = src.open(src.file_at(next((demo.codex_home / "sessions").rglob(new.pop()))))
        original = src.open(src.resolve(sid))
        assert forked.resume.bases[0]["session_id"] == sid
        assert forked.resume.payloads() == original.resume.payloads()[: len(forked.resume.items)]


async def test_a_codex_home_alone_opens_and_lists_its_sessions(demo, tmp_path):
    app = make_app(
        tmp_path / "no-sid-code",
        poll_interval=0,
        catalog_path=":memory:",
        codex_home=_source(demo).home,
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        b = app.screen
        assert isinstance(b, BrowserScreen)
        # (the demo's sessions, and any fork a test before wrote into the module's demo)
        assert set(demo.codex_cases.values()) <= {s.session_id for s in b.summaries.values()}
        assert {s.source for s in b.summaries.values()} == {"codex"}
        assert not b.has_class("-empty")


async def test_without_a_terminal_the_codex_home_is_listed_with_its_flag(demo, tmp_path, capsys):
    from sidtui.cli.app import listing_instead
    from sidtui.core.base.home import Home

    rc = listing_instead(Home(tmp_path / "no-sid-code"), "no terminal", [_source(demo)])
    out = capsys.readouterr()
    assert rc == 0 and demo.codex_cases["shell"][:8] in out.out and "no terminal" in out.err

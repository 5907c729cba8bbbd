"""One session screen for every source: its tabs and keys follow what the source's
reader and writer have (``Source.views``, ``mutations``, ``conversation_rewind``), said in
the footer, the help and the palette; nothing branches on the source's name."""

from __future__ import annotations

import pytest

from sidtui.core.base.home import Home
from sidtui.core.claude.layout import ClaudeHome
from sidtui.core.sources import ClaudeSource, SidCodeSource
from sidtui.tui.app import make_app
from sidtui.tui.screens.help import bindings_of
from sidtui.tui.screens.session import SessionScreen
from tests.helpers import short_folder
from tests.tui_support import fresh_demo, settle

pytestmark = pytest.mark.asyncio


@pytest.fixture(scope="module")
def demo(short_base):
    return fresh_demo(short_folder(short_base, "one-screen"), claude=True)


CASES = {
    # source: (tabs, keys it has, keys it lacks, the f key's word)
    "sid-code": (
        ["conversation", "chain", "checkpoints", "state", "sidechains"],
        {"show_tab('chain')", "show_tab('state')"},
        {"fork_branch", "repair", "restore_before", "show_tab('tips')", "fork_session"},
        "Fork/Salvage",
    ),
    "claude-code": (
        ["conversation", "tips", "checkpoints", "sidechains"],  # its sub-agents
        {"fork_branch", "repair", "restore_before", "show_tab('tips')", "show_tab('sidechains')"},
        {"show_tab('chain')", "show_tab('state')", "fork"},
        "Fork",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
async def test_the_screen_has_the_tabs_and_keys_of_its_source(demo, name):
    tabs, has, lacks, fork_word = CASES[name]
    if name == "claude-code":
        src, sid = ClaudeSource(ClaudeHome(demo.claude_home)), demo.claude_cases["checkpoints"]
    else:
        src, sid = SidCodeSource(Home(demo.home)), demo.cases["checkpoints"]
    app = make_app(
        demo.home, poll_interval=0, catalog_path=":memory:", claude_home=demo.claude_home
    )
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        app.open_session(src.resolve(sid))
        await settle(app, pilot)
        s = app.screen
        assert type(s) is SessionScreen and s.source.name == name
        assert s.tabs == tabs
        assert [p.id for p in s.query("TabPane")] == tabs
        actions = {b.action for b in bindings_of(s)}  # what the help lists
        assert has <= actions and not (lacks & actions)
        assert s.active_bindings["f"].binding.description == fork_word
        assert s.HELP_NAME == f"{src.label} session"
        palette = {title for title, _, _ in s.command_entries()}
        assert ("Fork branch…" in palette) == ("fork_branch" in has)
        assert ("Make branch live…" in palette) == (name == "sid-code")
        assert {f"Show {t} tab" for t in tabs} <= palette

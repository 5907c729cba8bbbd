"""SVG snapshots of the Claude Code screens on the fixed demo (both homes): the browser with
both sources, a Claude Code session's conversation (and, live, the records that arrived
below the reader), its tips and its checkpoints, and the rewind preview, each at 80×24 and
160×48.

The demo is built at a fixed path (tests/tui_support.py, one shared lock for every test
process); the header shows fixed labels. Update with
``pytest tests/tui/test_claude_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import shutil

import pytest

from sidtui.core.claude.layout import ClaudeHome
from sidtui.core.sources import ClaudeSource
from sidtui.tui.app import make_app
from tests.tui_support import (
    SNAP_DEMO,
    append_lines,
    claude_demo_fixed,
    claude_live_records,
    demo_home_fixed,
    register_claude_live,
    settle,
)

# every screen drawn and compared with its SVG (~5 s each): the slow set
pytestmark = pytest.mark.slow

NARROW, WIDE = (80, 24), (160, 48)
SIZES = pytest.mark.parametrize("size", [NARROW, WIDE], ids=["80x24", "160x48"])


@pytest.fixture(scope="module")
def demo():
    home, _ = demo_home_fixed()
    claude, cases = claude_demo_fixed()
    return home, claude, cases


@pytest.fixture(autouse=True)
def _demo_in_home(monkeypatch):
    """The demo's projects are in the user's home here (as real ones are), so a restore
    preview plans them rather than refusing the root."""
    monkeypatch.setenv("HOME", str(SNAP_DEMO))


def make(demo):
    home, claude, cases = demo
    app = make_app(
        home,
        poll_interval=0,
        home_label="~/.sid-code + ~/.claude",
        catalog_path=":memory:",
        claude_home=claude,
    )
    app._cases = cases
    return app


def opener(case: str, *keys: str):
    async def run_before(pilot):
        app = pilot.app
        await settle(app, pilot)
        app.open_session(ClaudeSource(ClaudeHome(app.others[0].root)).resolve(app._cases[case]))
        await settle(app, pilot)
        for k in keys:
            await pilot.press(k)
            await settle(app, pilot)

    return run_before


@SIZES
def test_browser_with_both_sources(snap_compare, demo, size):
    async def run_before(pilot):
        await settle(pilot.app, pilot)

    assert snap_compare(make(demo), terminal_size=size, run_before=run_before)


@SIZES
def test_claude_session(snap_compare, demo, size):
    assert snap_compare(make(demo), terminal_size=size, run_before=opener("interrupted"))


@SIZES
def test_claude_new_records(snap_compare, demo, size, tmp_path):
    """A live session (this process registered as its writer; the transcript copied, its
    text unchanged): follow off (t), scrolled to the top, a prompt and its reply arrive."""
    home, claude, cases = demo
    copy = tmp_path / "claude"
    shutil.copytree(claude, copy)
    src = ClaudeSource(ClaudeHome(copy))
    cf = src.resolve(cases["interrupted"])
    view = src.open(cf)
    register_claude_live(copy, cf.session_id, view.cwd)

    async def run_before(pilot):
        app = pilot.app
        await opener("interrupted", "t", "home")(pilot)
        app.clear_notifications()  # "follow off"
        s = app.screen
        append_lines(s.sf.path, claude_live_records(s.view))
        s.check_file()  # what the app's watcher does on the append
        await settle(app, pilot)

    assert snap_compare(make((home, copy, cases)), terminal_size=size, run_before=run_before)


@SIZES
def test_claude_tips(snap_compare, demo, size):
    assert snap_compare(make(demo), terminal_size=size, run_before=opener("rewind", "2"))


@SIZES
def test_claude_subagents(snap_compare, demo, size):
    """The Sub-agents tab: every sub-agent of the session, nested ones too."""
    assert snap_compare(make(demo), terminal_size=size, run_before=opener("subagents", "5"))


@SIZES
def test_claude_subagent_opened(snap_compare, demo, size):
    """Enter on the last (nested) sub-agent: its transcript in a session screen."""
    assert snap_compare(
        make(demo), terminal_size=size, run_before=opener("subagents", "5", "end", "enter")
    )


@SIZES
def test_claude_checkpoints(snap_compare, demo, size):
    assert snap_compare(make(demo), terminal_size=size, run_before=opener("checkpoints", "3"))


@SIZES
def test_claude_rewind_preview(snap_compare, demo, size):
    async def run_before(pilot):
        await opener("checkpoints", "r")(pilot)
        pilot.app.screen.query_one("#rewind-points").move_cursor(row=1)
        await settle(pilot.app, pilot)
        await pilot.press("m")  # code: the files, their drift and the diffs
        await settle(pilot.app, pilot)

    assert snap_compare(make(demo), terminal_size=size, run_before=run_before)

"""The usage screen (ctrl+u, the palette's "Usage"): bars per day split by model, per
project, the selected session's share, each with its numbers — the same numbers as
``sidtui usage`` — on the fixed demo (both homes), with SVG snapshots at 80×24 and 160×48.

Update the snapshots with ``pytest tests/tui/test_usage_screen.py --snapshot-update``.
"""

from __future__ import annotations

import pytest

from sidtui.core.base.home import Home
from sidtui.core.claude.layout import ClaudeHome
from sidtui.core.sources import ClaudeSource, SidCodeSource
from sidtui.core.sources.usage import usage_report
from sidtui.tui.app import make_app
from sidtui.tui.screens.usage import UsageScreen, stacked_bar, tokens, usd
from tests.tui_support import SNAP_DEMO, claude_demo_fixed, demo_home_fixed, settle

NARROW, WIDE = (80, 24), (160, 48)


@pytest.fixture(scope="module")
def demo():
    home, _ = demo_home_fixed()
    claude, cases = claude_demo_fixed()
    return home, claude, cases


@pytest.fixture(autouse=True)
def _utc(monkeypatch):
    import time

    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("HOME", str(SNAP_DEMO))
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def make(demo):
    home, claude, _ = demo
    return make_app(
        home,
        poll_interval=0,
        home_label="~/.sid-code + ~/.claude",
        catalog_path=":memory:",
        claude_home=claude,
    )


async def _open_usage(pilot) -> None:
    await settle(pilot.app, pilot)
    await pilot.press("ctrl+u")
    await settle(pilot.app, pilot)


async def test_the_screen_shows_the_engines_numbers(demo) -> None:
    home, claude, _ = demo
    app = make(demo)
    async with app.run_test(size=WIDE) as pilot:
        await _open_usage(pilot)
        screen = app.screen
        assert isinstance(screen, UsageScreen)
        got = screen.result
        assert got is not None and got.error is None and got.days.rows
        sources = [
            SidCodeSource(Home(getattr(home, "root", home))),
            ClaudeSource(ClaudeHome(getattr(claude, "root", claude))),
        ]
        want = usage_report(sources, "day", use_cache=False)
        shown = {r.key: r for r in got.days.rows}
        for r in want.rows:
            if r.key in shown:
                assert shown[r.key].input_tokens == r.input_tokens
                assert sum(m.input_tokens for m in shown[r.key].by_model.values()) == r.input_tokens
        text = str(screen.query_one("#usage-days").render())
        assert "Cost per day, by model" in text and "$" in text
        assert got.session is None or got.session[0]  # the browser's row, when selected
        await pilot.press("escape")
        await settle(app, pilot)
        assert not isinstance(app.screen, UsageScreen)


async def test_the_palette_opens_it(demo) -> None:
    app = make(demo)
    async with app.run_test(size=WIDE) as pilot:
        await settle(app, pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Usage" in titles
        app.action_usage()
        await settle(app, pilot)
        assert isinstance(app.screen, UsageScreen)


def test_bars_and_numbers() -> None:
    bar = stacked_bar([(3.0, "red"), (1.0, "blue"), (0.0001, "green")], 4.0, 10)
    assert bar.plain.count("█") == 10 and len(bar.plain) == 10
    assert stacked_bar([], 1.0, 5).plain == " " * 5
    assert (usd(None), usd(1234.5), tokens(999), tokens(12_345), tokens(3_400_000)) == (
        "unknown",
        "$1,234.50",
        "999",
        "12.3k",
        "3.4M",
    )


@pytest.mark.parametrize("size", [NARROW, WIDE], ids=["80x24", "160x48"])
def test_usage_snapshot(snap_compare, demo, size) -> None:
    assert snap_compare(make(demo), terminal_size=size, run_before=_open_usage)

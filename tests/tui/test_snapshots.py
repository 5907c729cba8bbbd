"""SVG snapshots of every screen on the deterministic demo home: the browser, a session,
the rewind dialog and the checkpoints at 80×24 and 160×48, the other screens at 120×40.

The demo home is built at a fixed path (tests/tui_support.py) so project keys and paths in
it are the same on every run; the header shows ``~/.sid-code`` instead of the root; the
catalog lives in memory. Update with ``pytest tests/tui/test_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import pytest

from sidtui.core.base.resolve import resolve_session
from sidtui.tui.app import make_app
from tests.tui_support import SNAP_DEMO, demo_home_fixed, settle

# every screen drawn and compared with its SVG (~7 s each): the slow set
pytestmark = pytest.mark.slow

SIZE = (120, 40)
NARROW, WIDE = (80, 24), (160, 48)


@pytest.fixture(scope="module")
def demo():
    return demo_home_fixed()


@pytest.fixture(autouse=True)
def _demo_in_home(monkeypatch):
    """The demo's projects sit in its fixed folder: that is the user's home here, or every
    restore preview would refuse them as outside it (``project_root_for``)."""
    monkeypatch.setenv("HOME", str(SNAP_DEMO))


def _app(home, theme="dark"):
    return make_app(
        home, poll_interval=0, home_label="~/.sid-code", catalog_path=":memory:", theme=theme
    )


def _session(app, sid):
    app.open_session(resolve_session(app.home, sid))


def opener(case: str, *keys: str):
    async def run_before(pilot):
        app = pilot.app
        await settle(app, pilot)
        _session(app, app._cases[case])
        await settle(app, pilot)
        for k in keys:
            await pilot.press(k)
            await settle(app, pilot)

    return run_before


def make(demo, theme="dark"):
    home, cases = demo
    app = _app(home, theme)
    app._cases = cases
    return app


async def _browser(pilot):
    await settle(pilot.app, pilot)


@pytest.mark.parametrize("size", [NARROW, WIDE], ids=["80x24", "160x48"])
def test_browser(snap_compare, demo, size):
    assert snap_compare(make(demo), terminal_size=size, run_before=_browser)


async def _rename(pilot):
    """The rename dialog (F2) of the browser's first row with a title (nothing written)."""
    app = pilot.app
    await settle(app, pilot)
    b = app.screen
    table = b.query_one("#sessions")
    row = next(i for i, r in enumerate(table.rows) if b.summaries[r.value].title)
    table.move_cursor(row=row, animate=False)
    await pilot.press("f2")
    await settle(app, pilot)


@pytest.mark.parametrize("size", [NARROW, WIDE], ids=["80x24", "160x48"])
def test_rename_dialog(snap_compare, demo, size):
    assert snap_compare(make(demo), terminal_size=size, run_before=_rename)


def test_browser_light(snap_compare, demo):
    assert snap_compare(make(demo, "light"), terminal_size=SIZE, run_before=_browser)


@pytest.mark.parametrize(
    "size, case", [(NARROW, "killed"), (WIDE, "interrupted_turn")], ids=["80x24", "160x48"]
)
def test_session(snap_compare, demo, size, case):
    assert snap_compare(make(demo), terminal_size=size, run_before=opener(case))


@pytest.mark.parametrize("size", [NARROW, WIDE], ids=["80x24", "160x48"])
def test_rewind_modal(snap_compare, demo, size):
    assert snap_compare(
        make(demo), terminal_size=size, run_before=opener("checkpoints", "r", "m", "m")
    )


@pytest.mark.parametrize("size", [NARROW, WIDE], ids=["80x24", "160x48"])
def test_checkpoints(snap_compare, demo, size):
    assert snap_compare(make(demo), terminal_size=size, run_before=opener("checkpoints", "3"))


def test_chain(snap_compare, demo):
    assert snap_compare(make(demo), terminal_size=SIZE, run_before=opener("concurrent", "2"))


def test_state(snap_compare, demo):
    assert snap_compare(make(demo), terminal_size=SIZE, run_before=opener("clean", "4"))


def test_sidechains(snap_compare, demo):
    assert snap_compare(make(demo), terminal_size=SIZE, run_before=opener("sidechains", "5"))


def test_restore_preview(snap_compare, demo):
    assert snap_compare(make(demo), terminal_size=SIZE, run_before=opener("checkpoints", "3", "u"))


def test_fork_modal(snap_compare, demo):
    assert snap_compare(make(demo), terminal_size=SIZE, run_before=opener("clean", "f"))


def test_salvage_modal(snap_compare, demo):
    assert snap_compare(make(demo), terminal_size=SIZE, run_before=opener("torn_glued", "f"))


def test_help(snap_compare, demo):
    assert snap_compare(make(demo), terminal_size=SIZE, run_before=opener("clean", "question_mark"))


def test_search(snap_compare, demo):
    async def run_before(pilot):
        app = pilot.app
        await settle(app, pilot)
        await pilot.press("slash")
        await settle(app, pilot)
        await pilot.press(*"threshold", "enter")
        await settle(app, pilot)

    assert snap_compare(make(demo), terminal_size=SIZE, run_before=run_before)

"""Every source's Checkpoints tab has the diff pane (``d``, ``n``/``p``, ``s``): a file
history's file before the selected prompt against its backup at the next checkpoint that
has it, or the disk."""

from __future__ import annotations

import pytest

from sidtui.core.claude.layout import ClaudeHome
from sidtui.core.sources import ClaudeSource
from sidtui.tui.app import make_app
from sidtui.tui.widgets.diff_view import DiffView
from tests.helpers import short_folder
from tests.tui_support import fresh_demo, settle

pytestmark = pytest.mark.asyncio


@pytest.fixture(scope="module")
def demo(short_base):
    return fresh_demo(short_folder(short_base, "ckdiff"), claude=True)


async def test_a_file_history_checkpoint_shows_the_diff_of_the_selected_file(demo):
    src = ClaudeSource(ClaudeHome(demo.claude_home))
    view = src.open(src.resolve(demo.claude_cases["checkpoints"]))
    cps = src.checkpoints(view).checkpoints
    first = cps[0]
    path, backup = next(iter(first.backups.items()))
    later = next(c for c in cps[1:] if path in c.backups)
    expected_new = later.backups[path].read().decode() if later.backups[path].existed else ""
    app = make_app(
        demo.home, poll_interval=0, catalog_path=":memory:", claude_home=demo.claude_home
    )
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(app, pilot)
        app.open_session(src.resolve(demo.claude_cases["checkpoints"]))
        await settle(app, pilot)
        await pilot.press("3")
        await settle(app, pilot)
        s = app.screen
        dv = s.query_one(DiffView)
        assert dv.data is not None
        assert f"{first.id} → {later.id}" in dv.data.title
        new_side = "\n".join(r.new_text for r in dv.data.sbs.rows if r.new_text is not None)
        assert expected_new.splitlines()[0] in new_side
        assert not dv.unified  # side by side at 160 columns
        await pilot.press("s")
        assert dv.unified
        await pilot.press("d")  # against the file on disk now
        await settle(app, pilot)
        assert "disk now" in dv.data.title
        await pilot.press("d")
        await settle(app, pilot)
        assert f"{first.id} → {later.id}" in dv.data.title
        keys = {k: b.binding.action for k, b in s.active_bindings.items()}
        assert keys["d"] == "toggle_disk" and keys["n"] == "hunk(1)" and keys["p"] == "hunk(-1)"

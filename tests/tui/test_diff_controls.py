"""File contents in the app's diff views are shown, never sent.

A checkpointed file whose lines hold an ESC sequence, NUL, BEL, CR, DEL and a C1 CSI
(``\\x9b``) is diffed in the Checkpoints tab (side by side and unified), the undo preview
and the rewind preview: every control character is drawn as ``\\xNN`` text, as the rest
of the app does (:func:`sidtui.fmt.printable`).
"""

from __future__ import annotations

import io
import random

import pytest
from rich.console import Console
from textual.widgets import Static

from sidtui.core.base.home import Home
from sidtui.core.base.resolve import resolve_session
from sidtui.demo.agent import SimAgent, edit, read
from sidtui.demo.clock import DEMO_EPOCH_MS, SeededIds, SimClock
from sidtui.demo.projects import create_project
from sidtui.tui.app import make_app
from sidtui.tui.screens.restore_preview import RestorePreviewScreen
from sidtui.tui.screens.rewind import RewindScreen
from sidtui.tui.screens.session import SessionScreen
from sidtui.tui.widgets.diff_view import DiffData, DiffView
from tests.tui_support import settle

NEW = "t\x1b[2Jw\x00o\x07 \x1b]0;PWNED\x07 cr\r del\x7f csi\x9b1m end"
SHOWN = ("\\x1b[2J", "\\x00", "\\x07", "\\x1b]0;PWNED", "\\x0d", "\\x7f", "\\x9b1m")
RAW = ("\x1b", "\x00", "\x07", "\r", "\x7f", "\x9b")


def _assert_safe(drawn: str, where: str) -> None:
    for ch in RAW:
        assert ch not in drawn, (where, ch)
    for lit in SHOWN:
        assert lit in drawn, (where, lit)


def _diff_text(dv: DiffView) -> str:
    """Every row drawn wide enough that no line is cut."""
    return "\n".join(dv._render_row(y, 600).text for y in range(dv._row_count()))


def test_diff_data_is_printable():
    d = DiffData.build("a\x1b]0;t\x07.txt", "one\ntwo\n", f"one\n{NEW}\n", "x.py", note="n\x1b[2J")
    assert d.title == "a\\x1b]0;t\\x07.txt" and d.note == "n\\x1b[2J"
    texts = [t for r in d.sbs.rows for t in (r.old_text, r.new_text) if t]
    _assert_safe("\n".join(texts), "rows")


@pytest.fixture
def home(short_tmp_path):
    tmp_path = short_tmp_path  # the project's key is its whole path: a folder name must hold it
    clock = SimClock(DEMO_EPOCH_MS, rng=random.Random(1))
    project = create_project(
        tmp_path / "projects", "ctl", {"f.py": "one\ntwo\n"}, when_ms=clock.ms(), use_git=False
    )
    h = Home(tmp_path / "home")
    a = SimAgent(
        h,
        project,
        clock=clock,
        ids=SeededIds(random.Random(2)),
        rng=random.Random(3),
        register=False,
    )
    sid = a.start()
    a.turn("first", [(None, [read(project, "f.py")])], "looked")
    a.turn("change it", [(None, [edit(project, "f.py", "two", NEW)])], "done")
    a.end()
    a.flush()
    return h.root, sid


@pytest.mark.asyncio
async def test_diff_views_show_control_characters(home):
    root, sid = home
    app = make_app(root, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.open_session(resolve_session(app.home, sid))
        await settle(app, pilot)
        s = app.screen
        assert isinstance(s, SessionScreen) and s.view is not None

        await pilot.press("3")  # Checkpoints: the snapshot before the edit vs after it
        await settle(app, pilot)
        dv = s.query_one("#ckpt-diff", DiffView)
        assert dv.data is not None
        _assert_safe(_diff_text(dv), "checkpoints side by side")
        dv.unified = True
        await settle(app, pilot)
        _assert_safe(_diff_text(dv), "checkpoints unified")
        strips = [dv.render_line(y) for y in range(dv.size.height)]  # what the terminal gets
        assert not any(ch in seg.text for st in strips for seg in st for ch in RAW)

        await pilot.press("u")  # undo preview of the latest batch: the edit, taken back
        await settle(app, pilot)
        assert isinstance(app.screen, RestorePreviewScreen)
        _assert_safe(_diff_text(app.screen.query_one("#undo-diff", DiffView)), "undo preview")
        await pilot.press("escape")
        await settle(app, pilot)

        await pilot.press("r")  # rewind preview in code mode: unified diffs of the files
        await settle(app, pilot)
        r = app.screen
        assert isinstance(r, RewindScreen)
        r.run_rewind(r.points[-1].id, "code", dry_run=True, force=False)
        await settle(app, pilot)
        assert r.last_result is not None and r.last_result.diffs
        buf = io.StringIO()
        Console(file=buf, width=120, color_system=None).print(
            r.query_one("#rewind-preview", Static).content
        )
        _assert_safe(buf.getvalue(), "rewind preview")


def test_crlf_on_both_sides_is_a_note_not_a_mark_on_every_line():
    old = "a\r\nb\r\nc\r\n"
    new = "a\r\nB\r\nc\r\n"
    d = DiffData.build("f.txt", old, new)
    assert d.note and "CRLF line endings" in d.note
    drawn = "".join(str(r) for r in d.sbs.rows)
    assert "\\x0d" not in drawn and "\r" not in drawn
    # a change of line endings stays visible
    d2 = DiffData.build("f.txt", "a\nb\n", "a\r\nb\r\n")
    assert d2.note is None or "CRLF" not in d2.note
    assert "\\x0d" in "".join(str(r) for r in d2.sbs.rows)
    assert DiffData.build("f.txt", "one line", "one Line").note is None


def test_texts_too_large_to_diff_are_a_note_with_no_rows(monkeypatch):
    monkeypatch.setenv("SIDTUI_MAX_DIFF_LINES", "100")
    d = DiffData.build("big.txt", "now\n", "abc\n" * 200, "big.py")
    assert d.note == "too large to diff here (201 lines, 804 bytes)"
    assert d.sbs.rows == [] and d.old_hl is None and d.new_hl is None
    assert not d.sbs.identical

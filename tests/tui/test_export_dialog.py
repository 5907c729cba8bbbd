"""Export from the app (ctrl+e, the palette's "Export session"): the dialog writes the open
session, then opens the HTML in the browser or the Markdown in the pager."""

from __future__ import annotations

import pytest

from sidtui.tui.app import make_app
from sidtui.tui.screens import export as export_screen
from sidtui.tui.screens.export import ExportScreen
from tests.tui_support import demo_home_fixed, open_session, settle


@pytest.fixture
def app():
    home, cases = demo_home_fixed()
    return make_app(home, poll_interval=0, catalog_path=":memory:"), cases


@pytest.mark.asyncio
async def test_export_html_then_md_and_open_them(app, tmp_path, monkeypatch) -> None:
    app, cases = app
    monkeypatch.chdir(tmp_path)
    opened: list[str] = []
    paged: list[str] = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    monkeypatch.setattr(export_screen, "run_pager", lambda a, path: paged.append(str(path)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await open_session(app, pilot, cases["clean"])
        sid = screen.sf.session_id
        await pilot.press("ctrl+e")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ExportScreen)
        await pilot.click("#export-go")
        await settle(app, pilot)
        page = tmp_path / f"{sid}.html"
        assert page.read_text().startswith("<!DOCTYPE html>")
        assert str(page) in str(dialog.query_one("#export-status").render())
        await pilot.click("#export-open")
        await settle(app, pilot)
        assert opened == [page.resolve().as_uri()]
        await pilot.click("#fmt-md")
        await pilot.click("#export-go")
        await settle(app, pilot)
        md = tmp_path / f"{sid}.md"
        assert md.read_text().startswith("# ")
        dialog.action_open()
        assert paged == [str(md)]
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen


@pytest.mark.asyncio
async def test_palette_entry_and_no_session_open(app) -> None:
    app, _ = app
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert "Export session" in [c.title for c in app.get_system_commands(app.screen)]
        before = app.screen
        app.action_export()  # the browser: no session open yet
        await settle(app, pilot)
        assert app.screen is before
        assert any("Open a session to export it" in str(n.message) for n in app._notifications)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_export_dialog_snapshot(snap_compare, monkeypatch, size) -> None:
    home, cases = demo_home_fixed()
    monkeypatch.chdir("/tmp")  # the default path is in the current folder: a fixed one

    async def run_before(pilot) -> None:
        await settle(pilot.app, pilot)
        await open_session(pilot.app, pilot, cases["clean"])
        await pilot.press("ctrl+e")
        await settle(pilot.app, pilot)

    app = make_app(home, poll_interval=0, catalog_path=":memory:", home_label="~/.sid-code")
    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.asyncio
async def test_export_a_claude_code_session(tmp_path, monkeypatch) -> None:
    """The same dialog for a Claude Code session (the source found from the open model):
    the Markdown says which agent, and Enter in the path field writes it."""
    from tests.tui_support import claude_demo_fixed

    home, _ = demo_home_fixed()
    claude, cases = claude_demo_fixed()
    sid = cases["interrupted"]
    monkeypatch.chdir(tmp_path)
    app = make_app(home, poll_interval=0, catalog_path=":memory:", claude_home=claude)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        b = app.screen
        b.open_key(next(k for k, s in b.summaries.items() if s.session_id == sid))
        await settle(app, pilot)
        app.action_export()
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ExportScreen)
        await pilot.click("#fmt-md")
        dialog.query_one("#export-path").focus()
        await pilot.press("enter")
        await settle(app, pilot)
        md = (tmp_path / f"{sid}.md").read_text()
        assert "- **Agent:** Claude Code" in md and f"- **Session:** {sid}" in md

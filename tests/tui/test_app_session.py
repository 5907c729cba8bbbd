"""The session screen's second pass: a new theme reaches the open conversation, tool lines
keep the file name, text blocks are drawn as said (no blank blocks, no command tags), a
reply's preview is its text (not its thinking)."""

from __future__ import annotations

import re

import pytest

from sidtui.core.claude.layout import ClaudeHome
from sidtui.core.sources import ClaudeSource
from sidtui.tui.app import make_app
from sidtui.tui.conversation_model import ConversationModel
from sidtui.tui.screens.session import SessionScreen
from sidtui.tui.widgets.conversation_view import ConversationView, fit_tool_line
from tests.helpers import CC_SESSION, cc_assistant, cc_home, cc_lines, cc_rec, cc_user
from tests.tui_support import screen_lines, settle

LONG_PATH = (
    "/home/someone/src/claude-projects/a-rather-long-project-name/src/parsers/session_reader.py"
)
COMMAND = (
    "<command-message>init is analyzing your codebase…</command-message>\n"
    "<command-name>/init</command-name>\n<command-args>--fast</command-args>"
)

#: a time cut short (``04:0``) in a dialog's row
RE_TIME_CUT = re.compile(r"\b\d\d:\d(?!\d)|\b\d\d:\d\d:\d(?!\d)")


def _session(tmp_path):
    """A Claude Code session: a slash command, a reply whose thinking comes first, a
    ``"\\n\\n"`` text block, and an Edit of a long path."""
    reply = cc_rec(
        "assistant",
        "a1",
        "u1",
        1,
        message={
            "id": "m1",
            "role": "assistant",
            "model": "claude-x",
            "type": "message",
            "content": [
                {"type": "thinking", "thinking": "PRIVATE-THOUGHT first", "signature": "s"},
                {"type": "text", "text": "\n\n"},
                {"type": "text", "text": "\nThe visible reply.\n"},
                {"type": "tool_use", "id": "t1", "name": "Edit", "input": {"file_path": LONG_PATH}},
            ],
        },
    )
    data = cc_lines(cc_user("u1", None, COMMAND, 0), reply, cc_assistant("a2", "a1", "done", 2))
    home = cc_home(tmp_path / "cc", {"-p": {f"{CC_SESSION}.jsonl": data}})
    src = ClaudeSource(ClaudeHome(home))
    return src, src.resolve(CC_SESSION)


def test_a_reply_previews_its_text_a_command_as_typed(tmp_path):
    src, sf = _session(tmp_path)
    view = src.open(sf)
    model = ConversationModel.from_view(view)
    msgs = model.messages
    assert msgs[1].preview(60).strip() == "The visible reply."
    texts = [model.body(e) for e in model.entries if e.kind == "text"]
    # the command as typed, the blank block gone, the reply without its blank lines
    assert texts == ["/init --fast", "The visible reply.", "done"]


def test_sid_code_previews_the_reply_not_its_thinking():
    from sidtui.core.transcript.messages import Message
    from sidtui.core.transcript.structs import Block

    blocks = [Block(type="thinking", thinking="PRIVATE"), Block(type="text", text="\nSaid.")]
    m = Message(0, 0, "u", 1, "assistant", "assistant", blocks)
    assert m.preview(60) == "Said."


@pytest.mark.parametrize("width", [80, 60, 40])
def test_a_tool_line_cuts_the_middle_of_its_path(width):
    line = fit_tool_line(f"  ▸ ⚙ Edit  {LONG_PATH}", LONG_PATH, width)
    assert len(line) == width and line.endswith("/session_reader.py") and "…" in line
    assert line.startswith("  ▸ ⚙ Edit  /home/")


@pytest.mark.asyncio
@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_session_screen_draws_text_as_said(tmp_path, size):
    src, sf = _session(tmp_path)
    app = make_app(tmp_path / "none", poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        app.push_screen(SessionScreen(sf, source=src))
        await settle(app, pilot)
        lines = screen_lines(app)
        text = "\n".join(lines)
        assert "/init --fast" in text and "<command-" not in text
        assert any(line.rstrip().endswith("session_reader.py") for line in lines)
        # no run of blank lines inside the reply: the "\n\n" block draws nothing
        conv = app.screen.query_one(ConversationView)
        drawn = [conv.render_line(y).text.rstrip() for y in range(conv.size.height)]
        reply = next(i for i, t in enumerate(drawn) if "thinking (" in t)
        assert drawn[reply + 1].strip() == "The visible reply."


@pytest.mark.asyncio
@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_a_new_theme_reaches_the_open_conversation(tmp_path, size):
    src, sf = _session(tmp_path)
    app = make_app(tmp_path / "none", poll_interval=0, catalog_path=":memory:", theme="dark")
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        app.push_screen(SessionScreen(sf, source=src))
        await settle(app, pilot)
        conv = app.screen.query_one(ConversationView)
        dark = list(conv.render_line(conv.size.height - 1))[0].style.bgcolor
        await pilot.press("ctrl+t")
        await settle(app, pilot)
        assert app.theme == "textual-light"
        light = conv.rich_style.bgcolor
        assert light != dark
        # the first line (drawn before the switch) and the blank ones below, in the new colours
        assert list(conv.render_line(0))[0].style.bgcolor == light
        assert list(conv.render_line(conv.size.height - 1))[0].style.bgcolor == light


def _row_texts(app, widget) -> list[str]:
    r = widget.region
    return [line[r.x : r.right] for line in screen_lines(app)[r.y : r.bottom]]


def _shown_whole_or_cut(prompt: str, rows: list[str]) -> bool:
    """``prompt`` drawn whole, or cut with an ellipsis (never at the pane's edge)."""
    for row in rows:
        if prompt in row:
            return True
        for n in range(len(prompt), 8, -1):
            if prompt[: n - 1] + "…" in row:
                return True
    return False


@pytest.mark.asyncio
@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_rewind_dialogs_prompts_end_before_the_preview(size):
    from sidtui.core.base.resolve import resolve_session
    from sidtui.tui.fmt import one_line
    from tests.tui_support import demo_home_fixed

    home, cases = demo_home_fixed()
    app = make_app(home, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        app.open_session(resolve_session(app.home, cases["checkpoints"]))
        await settle(app, pilot)
        await pilot.press("r")
        await settle(app, pilot)
        points = app.screen.query_one("#rewind-points")
        right = app.screen.query_one("#rewind-right")
        if size[0] > 100:  # side by side, with a gap between them
            assert right.region.x > points.region.right
        rows = _row_texts(app, points)
        for p in app.screen.points[-5:]:
            assert _shown_whole_or_cut(one_line(p.preview, 200), rows), p.preview
        for row in rows:  # the time column whole: hh:mm:ss
            assert not RE_TIME_CUT.search(row), row


@pytest.mark.asyncio
@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_fork_dialog_shows_whole_times_and_prompts(size):
    from sidtui.core.base.resolve import resolve_session
    from sidtui.tui.fmt import one_line
    from tests.tui_support import demo_home_fixed

    home, cases = demo_home_fixed()
    app = make_app(home, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        app.open_session(resolve_session(app.home, cases["checkpoints"]))
        await settle(app, pilot)
        await pilot.press("f")
        await settle(app, pilot)
        table = app.screen.query_one("#fork-points")
        rows = _row_texts(app, table)
        shown = [p for p in reversed(app.screen.points)][: max(1, table.region.height - 3)]
        for p in shown:
            assert _shown_whole_or_cut(one_line(p.preview, 200), rows), p.preview
        for row in rows:
            assert not RE_TIME_CUT.search(row), row

"""Session text is shown literally in the app, never read as markup.

A small home whose project folder, prompts, assistant text, thinking, tool names and
inputs, file paths, session name, todos, an opaque record type and a sub-agent's
description all hold markup-like text (``[/]``, ``[bold]x[/bold]``, ``[red]``,
``[link=...]``, ``- [x] done``, ``[@click=...]``) is opened on every screen; nothing may
raise (``[/]`` raised ``MarkupError``) and the brackets must be on screen as written.
"""

from __future__ import annotations

import dataclasses
import html
import random
import re
from pathlib import Path

import pytest
from textual.widgets._toast import Toast

from sidtui.core.base.home import Home
from sidtui.core.base.resolve import resolve_session
from sidtui.demo.agent import Call, SimAgent, SubAgentPlan, edit, read, sub_agent, todo_write
from sidtui.demo.clock import DEMO_EPOCH_MS, SeededIds, SimClock
from sidtui.demo.projects import create_project
from sidtui.tui.app import make_app
from sidtui.tui.messages import BranchSwitchPlanned
from sidtui.tui.screens.fork import ForkScreen
from sidtui.tui.screens.help import HelpScreen
from sidtui.tui.screens.restore_preview import RestorePreviewScreen
from sidtui.tui.screens.rewind import RewindScreen
from sidtui.tui.screens.search import SearchScreen
from sidtui.tui.screens.session import SessionScreen
from sidtui.tui.widgets.sidechains_panel import SidechainsTable
from tests.tui_support import settle

pytestmark = pytest.mark.asyncio

SIZE = (200, 60)
PROJECT_KEY = "[red]proj-[x]-[bold]b"  # a folder name cannot hold "/"
PROMPT = "zebra fix [/] here [bold]x[/bold] [@click=app.quit]q[/]"
PROMPT2 = "- [x] done [link=http://x]y[/link]"
ANSWER = "answer [/] and [red]A[/red]"
THINKING = "think [/] [bold]hmm[/bold]"
TOOL = "mcp__[red]tool[/]"
TOOL_QUERY = "[/]q[bold]"
TODO = "todo [/] [bold]b[/bold]"
NAME = "[/]name [bold]T[/bold]"
OPAQUE = "[/]opaque[bold]"
DESCRIPTION = "desc [/] [bold]d[/bold]"
FILE = "d[/]b[x].txt"  # folder "d[", file "]b[x].txt"
BASENAME = "]b[x].txt"


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def screen_text(app) -> str:
    """What the screen shows (every line of an SVG screenshot, tags removed)."""
    svg = app.export_screenshot()
    lines: dict[int, list[tuple[float, str]]] = {}
    for m in re.finditer(
        r'<text [^>]*?x="([\d.]+)"[^>]*?clip-path="url\(#[^)]*-line-(\d+)\)"[^>]*>(.*?)</text>', svg
    ):
        lines.setdefault(int(m.group(2)), []).append((float(m.group(1)), html.unescape(m.group(3))))
    return "\n".join("".join(t for _, t in sorted(v)) for _, v in sorted(lines.items()))


def assert_shown(app, *literals: str) -> None:
    shown = squash(screen_text(app))
    for lit in literals:
        assert squash(lit) in shown, f"{lit!r} not on {type(app.screen).__name__}"


@pytest.fixture
def home(short_tmp_path):
    tmp_path = short_tmp_path  # the project's key is its whole path: a folder name must hold it
    clock = SimClock(DEMO_EPOCH_MS, rng=random.Random(1))
    project = create_project(
        tmp_path / "projects",
        "[bold]p [x]",
        {FILE: "one\ntwo\n", "b.txt": "x\n"},
        when_ms=clock.ms(),
        use_git=False,
    )
    project = dataclasses.replace(project, key=PROJECT_KEY)  # a hand-made folder name
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
    a.turn(
        PROMPT,
        [
            (
                "looking at [red]it[/]",
                [read(project, FILE), edit(project, FILE, "two", "two [/] [bold]2")],
            ),
            (
                None,
                [todo_write([(TODO, "doing [x]", "in_progress"), ("- [x] done", "d", "pending")])],
            ),
            (None, [Call(TOOL, {"query": TOOL_QUERY}, output="[/] out [link=http://x]y[/link]")]),
            (
                None,
                [
                    sub_agent(
                        SubAgentPlan(
                            "[red]Explore[/]",
                            DESCRIPTION,
                            "sub prompt [x]",
                            steps=[("s [/]", "read", {"file_path": "[/]p"}, "r [/]")],
                            final="f [/]",
                        )
                    )
                ],
            ),
        ],
        ANSWER,
        thinking=THINKING,
        name=NAME,
    )
    a.store.append_record({"type": OPAQUE, "data": "[red]v"})
    a.turn(PROMPT2, [(None, [edit(project, "b.txt", "x", "y [/]")])], "ok [x]")
    a.end()
    a.flush()
    return h.root, sid


@pytest.mark.slow  # every screen of a session (~6 s)
async def test_session_text_is_literal_everywhere(home):
    root, sid = home
    app = make_app(root, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        # Browser: project list, table, preview (the session name is the title).
        assert_shown(app, PROJECT_KEY, NAME, sid)

        app.open_session(resolve_session(app.home, sid))
        await settle(app, pilot)
        s = app.screen
        assert isinstance(s, SessionScreen) and s.view is not None

        # Conversation with every block expanded: the Line API draws Segments (literal).
        await pilot.press("e")
        await settle(app, pilot)
        conv = s.query_one("#conversation-view")
        drawn = "\n".join(conv._render_virtual(y).text for y in range(conv.virtual_size.height))
        for lit in (PROMPT, PROMPT2, ANSWER, THINKING, TOOL, TOOL_QUERY, TODO, DESCRIPTION, FILE):
            assert squash(lit) in squash(drawn), lit

        await pilot.press("2")  # Chain: the opaque record type and the session_name key
        await settle(app, pilot)
        assert_shown(app, OPAQUE[:18])
        chain = s.query_one("#chain-view")
        row = next(
            i
            for i, r in enumerate(chain.index.rows)
            if r.kind == "record" and s.view.rf.records[r.index].type == OPAQUE
        )
        chain.cursor = row
        await settle(app, pilot)
        assert_shown(app, OPAQUE)  # the raw JSON pane

        await pilot.press("3")  # Checkpoints: file names, diff title
        await settle(app, pilot)
        await pilot.press("up")  # the first snapshot: the edit of FILE
        await settle(app, pilot)
        assert_shown(app, BASENAME, "two [/] [bold]2")

        await pilot.press("4")  # State: todos
        await settle(app, pilot)
        assert_shown(app, TODO, "- [x] done")

        await pilot.press("5")  # Sidechains: agent type and description
        await settle(app, pilot)
        assert_shown(app, "[red]Explore[/]", DESCRIPTION)

        await pilot.press("r")  # Rewind modal: prompt previews, dropped messages, files
        await settle(app, pilot)
        assert isinstance(app.screen, RewindScreen)
        assert_shown(app, PROMPT2)
        await pilot.press("up")
        await settle(app, pilot)
        assert_shown(app, PROMPT[:30], ANSWER)
        await pilot.press("escape")
        await settle(app, pilot)

        await pilot.press("f")  # Fork modal
        await settle(app, pilot)
        assert isinstance(app.screen, ForkScreen)
        assert_shown(app, PROMPT2)
        await pilot.press("escape")
        await settle(app, pilot)

        await pilot.press("u")  # Undo preview of the latest batch
        await settle(app, pilot)
        assert isinstance(app.screen, RestorePreviewScreen)
        assert_shown(app, "b.txt", "y [/]")
        await pilot.press("escape")
        await settle(app, pilot)

        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await settle(app, pilot)

        # The force question of a live branch switch quotes the refusal's reason.
        s.post_message(BranchSwitchPlanned("u", 1, None, f"live: {PROMPT}"))
        await settle(app, pilot)
        assert_shown(app, PROMPT)
        await pilot.press("n")
        await settle(app, pilot)

        # A notification naming a path from the session (a sidechain that is no transcript).
        s.post_message(SidechainsTable.SidechainOpened(Path("[/]x[bold].txt")))
        await settle(app, pilot)
        toasts = [t.render().plain for t in app.screen.query(Toast)]
        assert "[/]x[bold].txt is not a transcript" in toasts

        app.action_search()
        await settle(app, pilot)
        assert isinstance(app.screen, SearchScreen)
        await pilot.press(*"zebra", "enter")
        await settle(app, pilot)
        assert app.screen.hits
        assert_shown(app, "zebra fix [/] here")


async def test_control_characters_are_shown_not_sent(tmp_path):
    """An ESC sequence in a prompt, a reply, a tool name or a project folder name is drawn
    as ``\\x1b`` text: it reached the terminal raw and cleared or retitled it (session 3)."""
    from tests.helpers import assistant, jsonl, start, tool_results, user

    sid = "20260101-000000-aaaaaaaa"
    proj = "pj\x1b]0;PWNED\x07x"
    folder = tmp_path / "home" / "sessions" / proj
    folder.mkdir(parents=True)
    (folder / f"{sid}.jsonl").write_bytes(
        jsonl(
            start(sid=sid),
            user("u1", "S", text="\x1b[2Jred\x00nul"),
            assistant("a1", "u1", text="\x1b]0;title\x07ok", tools=[("t1", "[red]x\n\x1b[2J")]),
            tool_results("r1", "a1", "t1"),
            assistant("a2", "r1", text="done"),
        )
    )
    app = make_app(tmp_path / "home", poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        preview = str(app.screen.query_one("#preview").render())
        assert "\x1b" not in preview and "\\x1b[2Jred\\x00nul" in preview
        app.open_session(resolve_session(app.home, sid))
        await settle(app, pilot)
        s = app.screen
        assert isinstance(s, SessionScreen) and "\x1b" not in s.sub_title
        await pilot.press("e")
        await settle(app, pilot)
        conv = s.query_one("#conversation-view")
        drawn = "\n".join(conv._render_virtual(y).text for y in range(conv.virtual_size.height))
        assert "\x1b" not in drawn and "\x00" not in drawn
        assert "\\x1b[2Jred\\x00nul" in drawn and "\\x1b]0;title" in drawn

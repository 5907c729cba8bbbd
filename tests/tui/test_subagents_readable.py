"""Sub-agents readable: Enter on a sub-agent's call (Claude Code's ``Task``/``Agent``,
sid-code's ``sub_agent``), a sidechain tip or a Sidechains row opens its transcript in the
same session screen, nested ones too; an inline sidechain (before 2.0) is a transcript of
its own; ``sidtui show SESSION --subagent ID`` prints it."""

from __future__ import annotations

import orjson
import pytest

from sidtui.cli import main
from sidtui.core.base.home import Home
from sidtui.core.claude.layout import ClaudeHome
from sidtui.core.sources import ClaudeSource, SidCodeSource
from sidtui.tui.app import make_app
from sidtui.tui.screens.session import SessionScreen
from sidtui.tui.widgets.conversation_view import ConversationView
from tests.helpers import CC_SESSION, cc_assistant, cc_home, cc_lines, cc_results, cc_user
from tests.tui_support import demo_home_fixed, screen_lines, settle

SIZES = [(80, 24), (160, 48)]


@pytest.fixture(scope="module")
def demo():
    home, cases = demo_home_fixed()
    root = home.parent
    return root, cases, orjson.loads((root / "claude-cases.json").read_bytes())


def _app(root):
    return make_app(
        root / "home", poll_interval=0, catalog_path=":memory:", claude_home=root / "claude"
    )


async def _open(app, pilot, src, sid):
    await settle(app, pilot)
    app.open_session(src.resolve(sid))
    await settle(app, pilot)
    return app.screen


async def _enter_on_call(app, pilot, words: str) -> SessionScreen:
    """Put the cursor on the tool line naming ``words`` and press Enter."""
    conv = app.screen.query_one(ConversationView)
    m = conv.model
    i = next(
        i for i, e in enumerate(m.entries) if e.kind == "tool_use" and words in m.header_text(e)
    )
    assert m.header_text(m.entries[i]).endswith("↵ sub-agent")
    conv.cursor = i
    conv.focus()
    await pilot.press("enter")
    await settle(app, pilot)
    return app.screen


@pytest.mark.asyncio
@pytest.mark.parametrize("size", SIZES)
async def test_enter_on_a_task_call_opens_the_sub_agent_and_its_nested_one(demo, size):
    root, _, cc = demo
    src = ClaudeSource(ClaudeHome(root / "claude"))
    app = _app(root)
    async with app.run_test(size=size) as pilot:
        parent = await _open(app, pilot, src, cc["subagents"])
        links = parent.query_one(ConversationView).model.subagent_links()
        nested = next(x for x in links if x.ref is not None and "subagents" in str(x.ref.path))
        # the agent that spawned a nested one, and the nested one's call in its transcript
        owner = next(
            x
            for x in links
            if x.ref is not None and x is not nested and x.spawn_id != nested.spawn_id
        )
        child = await _enter_on_call(app, pilot, owner.description)
        assert isinstance(child, SessionScreen) and child is not parent
        assert child.sf.path == owner.ref.path
        assert child.query_one(ConversationView).model.messages  # its transcript, read
        text = "\n".join(screen_lines(app))
        assert owner.ref.session_id in text  # the header names the sub-agent's transcript
        child.action_back()  # what a single Esc does once its double-press window passes
        await settle(app, pilot)
        assert app.screen is parent


@pytest.mark.asyncio
async def test_a_nested_sub_agent_opens_from_its_parent_agents_transcript(demo):
    root, _, cc = demo
    src = ClaudeSource(ClaudeHome(root / "claude"))
    view = src.open(src.resolve(cc["subagents"]))
    links = view.subagent_links()
    spawns = {x.spawn_id for x in links}
    app = _app(root)
    async with app.run_test(size=(160, 48)) as pilot:
        await _open(app, pilot, src, cc["subagents"])
        for link in links:
            child_view = src.open(link.ref)
            calls = [
                b.id
                for m in child_view.reading().messages
                for b in m.blocks
                if b.type == "tool_use" and b.id in spawns
            ]
            if not calls:
                continue
            nested = next(x for x in links if x.spawn_id == calls[0])
            child = await _enter_on_call(app, pilot, link.description)
            assert child.sf.path == link.ref.path
            grandchild = await _enter_on_call(app, pilot, nested.description)
            assert grandchild.sf.path == nested.ref.path
            assert len(app.screen_stack) >= 4  # browser, session, agent, nested agent
            return
    pytest.fail("the demo's sub-agents session has no nested sub-agent")


@pytest.mark.asyncio
async def test_sid_codes_sub_agent_call_opens_its_sidechain(demo):
    root, cases, _ = demo
    src = SidCodeSource(Home(root / "home"))
    app = _app(root)
    async with app.run_test(size=(160, 48)) as pilot:
        await _open(app, pilot, src, cases["sidechains"])
        child = await _enter_on_call(app, pilot, "Security review of checkout.ts")
        assert isinstance(child, SessionScreen)
        assert child.sf.kind == "sidechain" and child.sf.path.name.endswith("-ap67oevi3.jsonl")


# ---------------------------------------------------------------- inline sidechains


def _inline_home(tmp_path):
    """A session written before 2.0: its sub-agent's records inline (``isSidechain``)."""
    prompt = "Find the failing test"
    task = cc_assistant("a1", "u1", None, 1, version="1.0.51")
    task["message"]["content"] = [
        {
            "type": "tool_use",
            "id": "t1",
            "name": "Task",
            "input": {"description": "Hunt the failure", "prompt": prompt},
        }
    ]
    side = dict(isSidechain=True, version="1.0.51")
    records = [
        cc_user("u1", None, "Please find the bug", 0, version="1.0.51"),
        task,
        cc_user("s1", None, prompt, 2, **side),
        cc_assistant("s2", "s1", "INLINE-ANSWER: test_x fails", 3, **side),
        cc_results("r1", "a1", "t1", ts=4, version="1.0.51"),
        cc_assistant("a2", "r1", "It is test_x.", 5, version="1.0.51"),
    ]
    home = cc_home(tmp_path / "cc", {"-p": {f"{CC_SESSION}.jsonl": cc_lines(*records)}})
    return ClaudeSource(ClaudeHome(home)), home


def test_an_inline_sidechain_is_a_transcript_of_its_own(tmp_path, capsys):
    src, home = _inline_home(tmp_path)
    view = src.open(src.resolve(CC_SESSION))
    (link,) = view.subagent_links()
    assert link.spawn_id == "t1" and link.ref is not None and link.ref.layout == "inline"
    sub = src.open(link.ref)
    said = [b.text for m in sub.reading().messages for b in m.blocks if b.type == "text"]
    assert said == ["Find the failing test", "INLINE-ANSWER: test_x fails"]
    assert [m.line for m in sub.reading().messages] == [3, 4]  # the file's own lines
    code = main(["--claude-home", str(home), "show", CC_SESSION, "--subagent", "inline"])
    out = capsys.readouterr().out
    assert code == 0 and "INLINE-ANSWER" in out


def test_show_subagent_refuses_an_unknown_id_in_one_line(tmp_path, capsys):
    src, home = _inline_home(tmp_path)
    code = main(["--claude-home", str(home), "show", CC_SESSION, "--subagent", "nope"])
    err = capsys.readouterr().err
    assert code == 2 and "no sub-agent 'nope'" in err and "Traceback" not in err


@pytest.mark.asyncio
@pytest.mark.parametrize("size", SIZES)
async def test_enter_on_an_inline_call_and_on_its_sidechain_tip(tmp_path, size):
    src, home = _inline_home(tmp_path)
    app = make_app(tmp_path / "none", poll_interval=0, catalog_path=":memory:", claude_home=home)
    async with app.run_test(size=size) as pilot:
        parent = await _open(app, pilot, src, CC_SESSION)
        child = await _enter_on_call(app, pilot, "Hunt the failure")
        assert child is not parent and child.sf.layout == "inline"
        assert "INLINE-ANSWER" in "\n".join(screen_lines(app))
        app.pop_screen()
        await settle(app, pilot)
        await pilot.press("2")  # the Tips tab: the sidechain's leaf
        await settle(app, pilot)
        tips = parent.query_one("#tips-panel")
        row = next(i for i, t in enumerate(tips.tips) if t["kind"] == "sidechain")
        table = parent.query_one("#tips-table")
        table.move_cursor(row=row)
        table.focus()
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is not parent and app.screen.sf.layout == "inline"


@pytest.mark.asyncio
@pytest.mark.parametrize("size", SIZES)
async def test_claude_codes_sub_agents_tab_lists_them_and_enter_opens_one(demo, size):
    root, _, cc = demo
    src = ClaudeSource(ClaudeHome(root / "claude"))
    app = _app(root)
    async with app.run_test(size=size) as pilot:
        parent = await _open(app, pilot, src, cc["subagents"])
        await pilot.press("5")
        await settle(app, pilot)
        table = parent.query_one("#sidechains-table")
        assert app.screen.focused is table
        links = parent.query_one(ConversationView).model.subagent_links()
        assert table.row_count == len(links) == 3  # the nested one too
        text = "\n".join(screen_lines(app))
        assert "Sub-agents" in text and links[-1].label in text
        table.move_cursor(row=len(links) - 1)
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is not parent and app.screen.sf.path == links[-1].ref.path

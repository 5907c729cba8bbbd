"""Pilot tests of the writing keys on a Claude Code session in the app: rewind (code,
conversation into a new session), undo/redo/restore previews, forks of the session and of
a stranded branch — each previewed, confirmed, then run through the Claude Code core."""

from __future__ import annotations

import os

import pytest

from sidtui.core.claude.code_restore import CodeRestorer
from sidtui.core.claude.layout import ClaudeHome
from sidtui.core.sources import ClaudeSource
from sidtui.tui.app import make_app
from sidtui.tui.screens.confirm import ConfirmScreen
from sidtui.tui.screens.fork import ForkScreen
from sidtui.tui.screens.restore_preview import RestorePreviewScreen
from sidtui.tui.screens.rewind import RewindScreen
from sidtui.tui.screens.session import SessionScreen
from tests.tui_support import (
    fresh_demo,
    register_claude_live,
    screen_lines,
    settle,
    widget_text,
)

pytestmark = pytest.mark.asyncio


@pytest.fixture
def demo(short_tmp_path):
    return fresh_demo(short_tmp_path, claude=True)


def _app(demo):
    return make_app(
        demo.home, poll_interval=0, catalog_path=":memory:", claude_home=demo.claude_home
    )


def _source(demo) -> ClaudeSource:
    return ClaudeSource(ClaudeHome(demo.claude_home))


async def _open(app, pilot, demo, case: str) -> SessionScreen:
    await settle(app, pilot)
    app.open_session(_source(demo).resolve(demo.claude_cases[case]))
    await settle(app, pilot)
    s = app.screen
    assert isinstance(s, SessionScreen) and s.view is not None
    return s


def _project_files(demo, case: str) -> dict[str, bytes]:
    src = _source(demo)
    view = src.open(src.resolve(demo.claude_cases[case]))
    root = view.cwd
    out = {}
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            out[os.path.relpath(p, root)] = open(p, "rb").read()
    return out


def _sessions(demo) -> set[str]:
    return {r.session_id for r in _source(demo).discover(include_sidechains=False)}


async def _pick_point(app, pilot, n: int) -> None:
    t = app.screen.query_one("#rewind-points")
    t.move_cursor(row=n - 1)
    await settle(app, pilot)


async def test_code_rewind_previews_drift_then_asks_and_redo_takes_it_back(demo):
    before = _project_files(demo, "checkpoints")
    app = _app(demo)
    async with app.run_test(size=(140, 45)) as pilot:
        s = await _open(app, pilot, demo, "checkpoints")
        await pilot.press("r")
        await settle(app, pilot)
        m = app.screen
        assert isinstance(m, RewindScreen) and len(m.points) == 4
        await _pick_point(app, pilot, 2)
        await pilot.press("m")  # conversation → code
        await settle(app, pilot)
        assert m.mode == "code"
        preview = widget_text(app, m.query_one("#rewind-preview"))
        assert "search.py" in preview and "changed after this session" in preview
        assert "Confirming asks again" in preview
        assert _project_files(demo, "checkpoints") == before  # the preview wrote nothing
        await pilot.press("y")  # drift: asked again
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(app, pilot)
        assert app.screen is m and m.applied
        done = widget_text(app, m.query_one("#rewind-preview"))
        assert "Rewound." in done and "safety snapshot" in done
        after = _project_files(demo, "checkpoints")
        assert after != before and "tests/test_search.py" not in after  # created later
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is s
        await pilot.press("U")  # redo: the files as they were before the rewind
        await settle(app, pilot)
        r = app.screen
        assert isinstance(r, RestorePreviewScreen)
        assert "Redo" in widget_text(app, r.query_one("#undo-summary"))
        await pilot.press("y")
        await settle(app, pilot)
        assert r.applied
        assert _project_files(demo, "checkpoints") == before


async def test_conversation_rewind_writes_a_new_session_and_leaves_the_file(demo):
    src = _source(demo)
    cf = src.resolve(demo.claude_cases["checkpoints"])
    original = cf.path.read_bytes()
    files = _project_files(demo, "checkpoints")
    known = _sessions(demo)
    app = _app(demo)
    async with app.run_test(size=(140, 45)) as pilot:
        await _open(app, pilot, demo, "checkpoints")
        await pilot.press("r")
        await settle(app, pilot)
        m = app.screen
        await _pick_point(app, pilot, 3)
        preview = widget_text(app, m.query_one("#rewind-preview"))
        assert "leave the conversation" in preview and "this file is not changed" in preview
        await pilot.press("y")
        await settle(app, pilot)
        assert m.applied and m.last_result.fork is not None
        new = m.last_result.fork.session_id
        assert f"claude --resume {new}" in widget_text(app, m.query_one("#rewind-preview"))
    assert cf.path.read_bytes() == original
    assert _project_files(demo, "checkpoints") == files
    assert _sessions(demo) == known | {new}
    view = src.open(src.resolve(new))
    assert [p.preview(30) for p in view.prompts] == [
        p.preview(30) for p in src.open(cf).prompts[:2]
    ]


async def test_undo_preview_lists_files_and_restore_before_a_checkpoint(demo):
    before = _project_files(demo, "checkpoints")
    app = _app(demo)
    async with app.run_test(size=(140, 45)) as pilot:
        s = await _open(app, pilot, demo, "checkpoints")
        await pilot.press("u")
        await settle(app, pilot)
        u = app.screen
        assert isinstance(u, RestorePreviewScreen)
        summary = widget_text(app, u.query_one("#undo-summary"))
        assert "Undo takes back" in summary and "safety snapshot" in summary
        assert u.query_one("#undo-files").row_count >= 1
        await pilot.press("escape")
        await settle(app, pilot)
        assert _project_files(demo, "checkpoints") == before
        await pilot.press("3")
        s.query_one("#fh-checkpoints").move_cursor(row=0)
        await pilot.press("R")
        await settle(app, pilot)
        r = app.screen
        assert isinstance(r, RestorePreviewScreen) and r.snapshot_id == "c1"
        await pilot.press("y")  # search.py drifted: asked again
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(app, pilot)
        assert r.applied
        after = _project_files(demo, "checkpoints")
        assert "search.py" not in after and "tests/test_search.py" not in after


async def _undo_file(app, pilot, s: SessionScreen, name: str) -> RestorePreviewScreen:
    """``u`` on ``name`` in the Checkpoints tab's file list (the latest checkpoint)."""
    await pilot.press("3")
    table = s.query_one("#fh-checkpoints")
    table.move_cursor(row=table.row_count - 1)
    await settle(app, pilot)
    files = s.query_one("#fh-files")
    files.focus()
    rows = [str(files.get_cell_at((i, 0))) for i in range(files.row_count)]
    files.move_cursor(row=rows.index(name))
    await pilot.press("u")
    await settle(app, pilot)
    u = app.screen
    assert isinstance(u, RestorePreviewScreen) and u.op == "undo-file"
    assert u.path == os.path.join(s.view.cwd, name)
    return u


async def test_the_file_list_names_each_checkpoints_backups(demo):
    app = _app(demo)
    async with app.run_test(size=(140, 45)) as pilot:
        s = await _open(app, pilot, demo, "checkpoints")
        await pilot.press("3")
        s.query_one("#fh-checkpoints").move_cursor(row=1)  # c2: app.py's backup is lost
        await settle(app, pilot)
        files = s.query_one("#fh-files")
        cells = {
            str(files.get_cell_at((i, 0))): str(files.get_cell_at((i, 1)))
            for i in range(files.row_count)
        }
        assert cells == {"search.py": "v2", "app.py": "v2 ✗"}  # as `sidtui checkpoints`
        assert "pruned by Claude Code" in str(files.get_cell_at((1, 2)))  # why it is lost


async def test_undo_of_one_file_previews_drift_then_asks_and_writes_only_that_file(demo):
    """``u`` on a file of the Files list: the core call of ``sidtui undo --file`` (one
    file in the plan, its drift asked about again), nothing else written."""
    before = _project_files(demo, "checkpoints")
    src = _source(demo)
    view = src.open(src.resolve(demo.claude_cases["checkpoints"]))
    search = os.path.join(view.cwd, "search.py")
    cli_plan = CodeRestorer(view).undo(dry_run=True, path=search)  # what `--dry-run` shows
    app = _app(demo)
    async with app.run_test(size=(140, 45)) as pilot:
        s = await _open(app, pilot, demo, "checkpoints")
        u = await _undo_file(app, pilot, s, "search.py")
        assert "Undo one file: search.py" in " ".join(screen_lines(app))
        assert [(f.path, f.action, f.new) for f in u.plan.files] == [
            (f.path, f.action, f.new) for f in cli_plan.files
        ]
        summary = widget_text(app, u.query_one("#undo-summary"))
        assert "changed after this session" in summary and "Confirming asks again" in summary
        assert _project_files(demo, "checkpoints") == before  # the preview wrote nothing
        await pilot.press("y")  # drifted: asked again
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(app, pilot)
        assert u.applied
    after = _project_files(demo, "checkpoints")
    assert after["search.py"] == cli_plan.files[0].new != before["search.py"]
    assert {k: v for k, v in after.items() if k != "search.py"} == {
        k: v for k, v in before.items() if k != "search.py"
    }


async def test_undo_of_one_file_is_refused_outside_the_allowed_roots(demo, monkeypatch, tmp_path):
    """The root check: a project neither in git nor under the user's home is refused
    (``--allow-outside-root`` on the command line), and said in the preview."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("HOME", str(elsewhere))
    before = _project_files(demo, "checkpoints")
    app = _app(demo)
    async with app.run_test(size=(140, 45)) as pilot:
        s = await _open(app, pilot, demo, "checkpoints")
        u = await _undo_file(app, pilot, s, "app.py")
        assert [f.action for f in u.plan.files] == ["skipped"]
        assert "project root is refused" in widget_text(app, u.query_one("#undo-files"))
        assert u.query_one("#apply").disabled
        await pilot.press("y")
        await settle(app, pilot)
        assert app.screen is u and not u.applied
    assert _project_files(demo, "checkpoints") == before


@pytest.mark.parametrize("one_file", [False, True], ids=["undo", "undo-file"])
async def test_a_live_session_is_refused_then_forced_on_confirm(demo, one_file):
    src = _source(demo)
    sid = demo.claude_cases["rewind"]
    view = src.open(src.resolve(sid))
    register_claude_live(demo.claude_home, sid, view.cwd)
    readme = os.path.join(view.cwd, "README.md")
    now = open(readme, "rb").read()
    app = _app(demo)
    async with app.run_test(size=(140, 45)) as pilot:
        s = await _open(app, pilot, demo, "rewind")
        if one_file:
            u = await _undo_file(app, pilot, s, "README.md")
        else:
            await pilot.press("u")
            await settle(app, pilot)
            u = app.screen
        assert "is live" in widget_text(app, u.query_one("#undo-summary"))
        await pilot.press("y")
        await settle(app, pilot)
        q = app.screen
        assert isinstance(q, ConfirmScreen) and "is live" in str(q.question)
        await pilot.press("n")
        await settle(app, pilot)
        assert open(readme, "rb").read() == now  # refused: nothing written
        assert "Refused" in widget_text(app, u.query_one("#undo-summary"))
        await pilot.press("y")
        await settle(app, pilot)
        await pilot.press("y")  # force
        await settle(app, pilot)
        assert u.applied and open(readme, "rb").read() != now


async def test_fork_at_a_point_opens_the_new_session(demo):
    known = _sessions(demo)
    app = _app(demo)
    async with app.run_test(size=(140, 45)) as pilot:
        await _open(app, pilot, demo, "checkpoints")
        await pilot.press("f")
        await settle(app, pilot)
        f = app.screen
        assert isinstance(f, ForkScreen) and not f.salvage
        t = f.query_one("#fork-points")
        assert t.row_count == 1 + len(f.points)
        t.move_cursor(row=2)  # the newest prompt but one: ends before it
        await pilot.press("y")
        await settle(app, pilot)
        s = app.screen
        assert isinstance(s, SessionScreen)
        new = _sessions(demo) - known
        assert len(new) == 1 and s.sf.session_id in new
        assert len(s.view.prompts) == len(f.points) - 2


async def test_a_stranded_branch_is_forked_from_the_tips_tab(demo):
    src = _source(demo)
    original = src.resolve(demo.claude_cases["rewind"]).path.read_bytes()
    known = _sessions(demo)
    app = _app(demo)
    async with app.run_test(size=(140, 45)) as pilot:
        s = await _open(app, pilot, demo, "rewind")
        await pilot.press("2")
        await settle(app, pilot)
        stranded = [
            i for i, t in enumerate(s.query_one("#tips-panel").tips) if t["kind"] == "branch"
        ]
        assert stranded, s.query_one("#tips-panel").tips
        assert "stranded branch" in widget_text(app, s.query_one("#tips-note"))
        s.query_one("#tips-table").move_cursor(row=stranded[0])
        await pilot.press("b")
        await settle(app, pilot)
        f = app.screen
        assert isinstance(f, ForkScreen) and f.tip is not None
        summary = widget_text(app, f.query_one("#fork-summary"))
        assert "branch ending at line" in summary and "Resume never picks" in summary
        await pilot.press("y")
        await settle(app, pilot)
        opened = app.screen
        assert isinstance(opened, SessionScreen) and opened is not s
        new = _sessions(demo) - known
        assert new == {opened.sf.session_id}
        texts = [m.preview(60) for m in opened.view.conversation]
        assert any("French" in t for t in texts)  # the branch resume would not pick
    assert src.resolve(demo.claude_cases["rewind"]).path.read_bytes() == original


async def test_repair_is_the_fork_dialog_and_opens_the_new_session(demo):
    src = _source(demo)
    original = src.resolve(demo.claude_cases["rewind"]).path.read_bytes()
    known = _sessions(demo)
    app = _app(demo)
    async with app.run_test(size=(140, 45)) as pilot:
        s = await _open(app, pilot, demo, "rewind")
        await pilot.press("M")
        await settle(app, pilot)
        f = app.screen
        assert isinstance(f, ForkScreen) and f.repair
        summary = widget_text(app, f.query_one("#fork-summary"))
        assert "every complete record" in summary and "branch" in summary  # left in the source
        await pilot.press("y")
        await settle(app, pilot)
        opened = app.screen
        assert isinstance(opened, SessionScreen) and opened is not s
        assert _sessions(demo) - known == {opened.sf.session_id}
        assert len(opened.view.messages) == len(s.view.messages)
    assert src.resolve(demo.claude_cases["rewind"]).path.read_bytes() == original


async def test_the_resume_leaf_is_not_offered_as_a_branch(demo):
    app = _app(demo)
    async with app.run_test(size=(140, 45)) as pilot:
        s = await _open(app, pilot, demo, "rewind")
        live = next(i for i, t in enumerate(s.query_one("#tips-panel").tips) if t["live"])
        s.query_one("#tips-table").move_cursor(row=live)
        await pilot.press("b")
        await settle(app, pilot)
        assert app.screen is s


class _Killed(BaseException):
    """Stands for a kill between the safety snapshot and the file writes."""


async def _preview(app, pilot, demo, key):
    """Open the checkpoints session's undo (``u``) or code rewind (``r``) preview:
    ``(screen, its text on one line)``."""
    await _open(app, pilot, demo, "checkpoints")
    await pilot.press(key)
    await settle(app, pilot)
    p = app.screen
    if key == "r":
        assert isinstance(p, RewindScreen)
        await pilot.press("m")  # conversation → code
        await settle(app, pilot)
        shown = widget_text(app, p.query_one("#rewind-preview"))
    else:
        assert isinstance(p, RestorePreviewScreen)
        shown = widget_text(app, p.query_one("#undo-summary"))
    return p, " ".join(shown.split())


@pytest.mark.parametrize("key", ["u", "r"])
async def test_a_killed_restore_is_what_the_preview_shows_and_applying_does(demo, monkeypatch, key):
    """While a killed restore is pending, the undo preview and the code rewind preview
    are what applying does (as the CLI's dry run says): that restore finished, its files;
    applying does that and nothing else."""
    from sidtui.core.claude import code_restore

    src = _source(demo)
    view = src.open(src.resolve(demo.claude_cases["checkpoints"]))
    r = CodeRestorer(view)
    targets = {f.path: f.new for f in r.restore_before("c1", dry_run=True, force=True).changed}

    def killed(todo):
        raise _Killed

    with monkeypatch.context() as m:
        m.setattr(code_restore, "write_files", killed)
        with pytest.raises(_Killed):
            r.restore_before("c1", force=True)
    assert r.pending_journal() is not None
    before = _project_files(demo, "checkpoints")
    app = _app(demo)
    async with app.run_test(size=(140, 45)) as pilot:
        p, shown = await _preview(app, pilot, demo, key)
        assert "a real run only finishes an interrupted sidtui restore" in shown, shown
        assert f"{len(targets)} more file(s) to write" in shown
        assert _project_files(demo, "checkpoints") == before  # the preview wrote nothing
        await pilot.press("y")
        await settle(app, pilot)
        assert p.applied
    assert r.pending_journal() is None
    for path, new in targets.items():  # written (deleted: None) as the killed run meant
        assert (open(path, "rb").read() if os.path.exists(path) else None) == new, path


@pytest.mark.parametrize("key", ["u", "r"])
async def test_a_journal_sidtui_did_not_write_is_refused_by_the_preview(demo, key):
    """As the CLI: the undo and code rewind previews say the refusal; applying writes
    nothing and the file is left as it was."""
    src = _source(demo)
    r = CodeRestorer(src.open(src.resolve(demo.claude_cases["checkpoints"])))
    r.journal_path.parent.mkdir(parents=True, exist_ok=True)
    journal = r.journal_path.parent / "sidtui-journal.json"
    journal.write_text("[]")
    before = _project_files(demo, "checkpoints")
    app = _app(demo)
    async with app.run_test(size=(140, 45)) as pilot:
        p, shown = await _preview(app, pilot, demo, key)
        assert "is not a journal sidtui wrote; left alone" in shown, shown
        await pilot.press("y")
        await settle(app, pilot)
        assert not p.applied
    assert _project_files(demo, "checkpoints") == before
    assert journal.read_text() == "[]"

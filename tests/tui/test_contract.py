"""The app's contract with its workers: typed messages, one error path, no disk reads on
the UI thread (docs/ARCHITECTURE.md, "Adding a screen or widget")."""

from __future__ import annotations

import ast
import dataclasses
import threading
from pathlib import Path

import pytest

from sidtui.tui import messages
from sidtui.tui.app import make_app
from tests.tui_support import REPO, demo_home_fixed, open_session, screen_lines, settle

TUI = REPO / "sidtui" / "tui"


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text())) for p in sorted(TUI.rglob("*.py"))]


def test_every_worker_reports_through_the_one_error_path():
    """``exit_on_error=False`` on every ``@work`` (a failure becomes a notification via
    ``ReportsWorkerErrors``, never a crash), and no worker hands a callable to the UI
    thread (``call_from_thread``): workers post messages."""
    workers = 0
    for path, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "work":
                workers += 1
                kw = {k.arg: k.value for k in node.keywords}
                assert "exit_on_error" in kw and kw["exit_on_error"].value is False, (
                    f"{path.name}:{node.lineno}"
                )
                assert "description" in kw, f"{path.name}:{node.lineno}: say what it does"
            if isinstance(node, ast.Attribute) and node.attr == "call_from_thread":
                pytest.fail(f"{path.name}:{node.lineno}: a worker posts a message instead")
    assert workers >= 15


def _is_worker(fn: ast.AST) -> bool:
    return isinstance(fn, ast.FunctionDef) and any(
        isinstance(d, ast.Call) and getattr(d.func, "id", None) == "work" for d in fn.decorator_list
    )


def test_no_worker_catches_every_exception():
    """A worker catches the errors it can act on (a broken cache: read the files instead);
    anything else reaches the one error path instead of a per-worker ``except Exception``."""
    for path, tree in _modules():
        for fn in filter(_is_worker, ast.walk(tree)):
            for node in ast.walk(fn):
                if isinstance(node, ast.ExceptHandler):
                    caught = ast.unparse(node.type) if node.type is not None else "everything"
                    assert caught not in ("Exception", "BaseException", "everything"), (
                        f"{path.name}:{node.lineno}: {fn.name} catches {caught}"
                    )


def test_messages_are_dataclasses_read_without_getattr():
    for name in dir(messages):
        obj = getattr(messages, name)
        if (
            isinstance(obj, type)
            and issubclass(obj, messages.Message)
            and obj is not messages.Message
        ):
            assert dataclasses.is_dataclass(obj), name
    for path, tree in _modules():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "getattr"
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id in ("msg", "message", "event")
            ):
                pytest.fail(f"{path.name}:{node.lineno}: a message attribute read with getattr")


@pytest.mark.asyncio
async def test_rewind_and_fork_points_are_read_off_the_ui_thread(monkeypatch):
    """Regression: the rewind dialog called ``rewind_points`` (which reads the checkpoint
    index) in ``on_mount``, on the UI thread."""
    from sidtui.core.edits import points as core_points

    threads = []
    real = core_points.rewind_points

    def spy(view):
        threads.append(threading.current_thread() is threading.main_thread())
        return real(view)

    monkeypatch.setattr(core_points, "rewind_points", spy)
    home, cases = demo_home_fixed()
    app = make_app(home, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await open_session(app, pilot, cases["clean"])
        for key in ("r", "f"):
            await pilot.press(key)
            await settle(app, pilot)
            assert app.screen.points
            await pilot.press("escape")
            await settle(app, pilot)
    assert threads and not any(threads)  # the dialogs' lists and the rewind previews


@pytest.mark.asyncio
async def test_a_failing_worker_is_reported_not_fatal(monkeypatch):
    from sidtui.tui.screens import session as session_screen

    def broken(*args, **kwargs):
        raise RuntimeError("a bug in the model")

    monkeypatch.setattr(session_screen.ConversationModel, "from_view", broken)
    home, cases = demo_home_fixed()
    app = make_app(home, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        from sidtui.core.base.resolve import resolve_session

        app.open_session(resolve_session(app.home, cases["clean"]))
        await settle(app, pilot)
        assert app.is_running and app.screen.view is None
        head = screen_lines(app)[1]
        assert "internal error in reading the session: RuntimeError: a bug in the model" in head

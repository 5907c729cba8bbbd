"""`sidtui demo --live` with the app: the agent is said in the app (a toast, the help), not
printed behind it, and stops when the app quits unless ``--keep-live``."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sidtui.cli.demo import run_with_live
from sidtui.tui.app import make_app
from tests.tui_support import screen_lines, settle

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


@pytest.fixture
def agent(tmp_path):
    """A stand-in background agent: a child that runs until it is signalled."""
    (tmp_path / "live-agent.pid").write_text("0\n")
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    yield proc
    if proc.poll() is None:
        proc.kill()
        proc.wait(timeout=30)
    if proc.stdin is not None:
        proc.stdin.close()


def test_the_agent_stops_when_the_app_quits(tmp_path, agent, capsys):
    said: list = []
    code = run_with_live(agent, tmp_path, False, lambda notices: said.append(notices) or 0)
    assert code == 0
    assert agent.poll() is not None  # stopped (waited for)
    assert not (tmp_path / "live-agent.pid").exists()
    (notice,) = said[0]
    assert f"pid {agent.pid}" in notice and "stops when the app quits" in notice
    assert "stopped with the app" in capsys.readouterr().err


def test_keep_live_leaves_it_running_and_says_how_to_stop_it_after_the_app(tmp_path, agent, capsys):
    printed_during: list = []

    def app(notices):
        printed_during.append(capsys.readouterr().err)
        return 0

    run_with_live(agent, tmp_path, True, app)
    assert agent.poll() is None  # still running
    assert printed_during == [""]  # nothing printed behind the full-screen app
    assert f"kill {agent.pid}" in capsys.readouterr().err


def test_the_agent_stops_when_the_app_fails(tmp_path, agent):
    def app(notices):
        raise RuntimeError("the app broke")

    with pytest.raises(RuntimeError):
        run_with_live(agent, tmp_path, False, app)
    assert agent.poll() is not None


@pytest.mark.asyncio
@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_app_says_the_live_agent_in_a_toast_and_the_help(tmp_path, size):
    notice = "a simulated agent (pid 4242) writes the live-app session; it stops when the app quits"
    app = make_app(tmp_path / "none", poll_interval=0, catalog_path=":memory:")
    app.notices = [notice]
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        assert [n.message for n in app._notifications] == [notice]
        app.action_help()  # "?" (the browser's filter box may hold the focus)
        await settle(app, pilot)
        text = " ".join(" ".join(screen_lines(app)).split())
        assert "pid 4242" in text and "stops when the app" in text

"""Shared helpers for the app's Pilot and snapshot tests (tests/tui/).

* :func:`demo_home_fixed` builds the deterministic demo home once per source version at a
  fixed path (so absolute project paths inside it, and therefore snapshots, never change
  between runs); it is only ever *read* by the tests that use it.
* :func:`fresh_demo` builds a private demo home under a test's folder for tests that write
  (``short_tmp_path``: the demo's project keys must fit a folder name).
* :func:`kill_fixture_pids` rewrites every registration PID to one no process can have.
* :func:`claude_live_records`, :func:`append_lines`, :func:`register_claude_live`: a
  Claude Code session being written (its next records, and this process as its writer).
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parent.parent
DEAD_PID = 4_999_999  # above Linux's pid_max ceiling (2**22): never a live process


def _demo_sources_digest() -> str:
    h = hashlib.sha256()
    for p in sorted((REPO / "sidtui" / "demo").glob("*.py")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:12]


SNAP_DEMO = Path("/tmp/sidtui-demo-snap")

#: How long a rebuild waits for test runs of *other* demo code (another checkout on this
#: machine) to stop reading the fixed home before it fails with a reason.
REBUILD_WAIT_S = 90.0

# One shared lock per fixed demo, held for the life of the test process: a checkout whose
# demo code differs (another branch on this machine) waits to rebuild it until every run
# reading it has ended, instead of replacing it under them. Checking and building happen
# under a second, short-held lock, and only its holder ever asks for the exclusive one: a
# process never waits for a lock that a sibling worker holds for its whole life.
_READ_LOCKS: dict[Path, object] = {}


def demo_home_fixed(seed: int = 0) -> tuple[Path, dict[str, str]]:
    """(home, cases) of the demo built at a fixed path; rebuilt when the demo code changes.

    The path is fixed because project keys and paths inside the home derive from it, and
    snapshots must not change between runs. Tests only read it; while they do, this process
    holds a shared lock on it, and a rebuild takes the lock exclusively.

    Raises:
        RuntimeError: the home must be rebuilt while another checkout's run still reads it
            (after :data:`REBUILD_WAIT_S`).
    """
    import time

    from sidtui.demo.scenarios import build_demo_home

    base = SNAP_DEMO / f"seed{seed}"
    stamp = SNAP_DEMO / f"seed{seed}.stamp"
    lock = SNAP_DEMO / f"seed{seed}.lock"
    digest = _demo_sources_digest()

    def ready() -> bool:
        return (
            stamp.is_file()
            and stamp.read_text() == digest
            and (base / "cases.json").is_file()
            and (base / "claude-cases.json").is_file()
        )

    if lock not in _READ_LOCKS:
        SNAP_DEMO.mkdir(parents=True, exist_ok=True)
        fh = open(lock, "a")  # held open until the process exits
        deadline = time.monotonic() + REBUILD_WAIT_S
        while True:
            with open(SNAP_DEMO / f"seed{seed}.build", "a") as build:
                fcntl.flock(build, fcntl.LOCK_EX)  # short: one checker or builder at a time
                if not ready():
                    try:  # only a build-lock holder asks for EX, and never waits holding it
                        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:
                        pass  # still read by a run of other demo code: let go, try again
                    else:
                        shutil.rmtree(base, ignore_errors=True)
                        demo = build_demo_home(base, seed, use_git=False, claude=True)
                        (base / "cases.json").write_bytes(orjson.dumps(demo.cases))
                        (base / "claude-cases.json").write_bytes(orjson.dumps(demo.claude_cases))
                        stamp.write_text(digest)
                if ready():
                    fcntl.flock(fh, fcntl.LOCK_SH)  # never blocks: no EX outside a build lock
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"{base} is read by a test run of other demo code (another checkout on "
                    "this machine): run the two suites one after the other"
                )
            time.sleep(0.2)  # waiting for a lock, not for timing
        _READ_LOCKS[lock] = fh
    return base / "home", orjson.loads((base / "cases.json").read_bytes())


def claude_demo_fixed(seed: int = 0) -> tuple[Path, dict[str, str]]:
    """(Claude Code home, its cases) of the fixed demo (:func:`demo_home_fixed` builds
    both homes, under the same shared lock): ``<fixed demo>/claude``, read only."""
    home, _ = demo_home_fixed(seed)
    base = home.parent
    return base / "claude", orjson.loads((base / "claude-cases.json").read_bytes())


def fresh_demo(tmp_path: Path, seed: int = 0, *, claude: bool = False):
    """A private demo home under ``tmp_path`` (writable; pass ``short_tmp_path``: a demo
    project's key is its whole path); returns the ``DemoHome``
    (the Claude Code home beside it only with ``claude``: it costs ~0.5 s a build)."""
    from sidtui.demo.scenarios import build_demo_home

    return build_demo_home(tmp_path / "demo", seed, use_git=False, claude=claude)


def kill_fixture_pids(home: Path) -> None:
    """Point every active-session / file-intent registration at a PID that cannot exist."""
    for folder in ("active-sessions", "file-intents"):
        for p in (home / folder).glob("*.json"):
            try:
                data = orjson.loads(p.read_bytes())
            except orjson.JSONDecodeError:
                continue
            if isinstance(data, dict) and "pid" in data:
                data["pid"] = DEAD_PID
                p.write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2))


def claude_live_records(view, batch: int = 0) -> list[dict]:
    """A prompt and its reply continuing ``view``'s conversation (a ``ClaudeSessionView``)
    as Claude Code writes them: the session's own fields, new uuids for each ``batch``."""
    last = view.conversation[-1]
    base = orjson.loads(view.file.path.read_bytes().splitlines()[last.line - 1])
    base.pop("toolUseResult", None)
    prompt = dict(
        base,
        uuid=f"0e6b1c3e-0000-4000-8000-{batch:07d}live1",
        parentUuid=last.uuid,
        type="user",
        message={"role": "user", "content": "and a changelog, please"},
        timestamp=f"2026-11-24T04:{10 + batch:02d}:00.000Z",
    )
    reply = dict(
        base,
        uuid=f"0e6b1c3e-0000-4000-8000-{batch:07d}live2",
        parentUuid=prompt["uuid"],
        type="assistant",
        message={
            "model": "claude-opus-4-6",
            "id": f"msg_live_reply{batch or ''}",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": "Wrote CHANGELOG.md, appended live."}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 9},
        },
        timestamp=f"2026-11-24T04:{10 + batch:02d}:05.000Z",
    )
    return [prompt, reply]


def append_lines(path: Path, records: list[dict]) -> None:
    """Append ``records`` one whole line per write, as Claude Code does."""
    for rec in records:
        with path.open("ab") as fh:
            fh.write(orjson.dumps(rec) + b"\n")


def register_claude_live(claude_home: Path, session_id: str, cwd: str | None) -> None:
    """Make this test process the running Claude Code process of ``session_id``
    (``sessions/<pid>.json`` with its real start time: live until the process ends)."""
    import os
    import time

    from sidtui.core.claude.liveness import proc_start_ticks

    reg = claude_home / "sessions" / f"{os.getpid()}.json"
    reg.parent.mkdir(parents=True, exist_ok=True)
    reg.write_bytes(
        orjson.dumps(
            {
                "pid": os.getpid(),
                "sessionId": session_id,
                "cwd": cwd,
                "startedAt": int(time.time() * 1000),
                "procStart": proc_start_ticks(os.getpid()),
            }
        )
    )


def summaries_ready(app) -> bool:
    b = app.browser()
    return b is not None and not b.scanning


async def settle(app, pilot, rounds: int = 3) -> None:
    """Let workers finish and their messages be handled (no sleeps).

    Loops until ``rounds`` consecutive rounds see no running worker: a message handled in
    one round may start a worker (a modal's preview, an exclusive reload) for the next.
    """
    from textual.worker import WorkerCancelled, WorkerFailed, WorkerState

    quiet = 0
    for _ in range(200):
        try:
            await app.workers.wait_for_complete()
        except (WorkerCancelled, WorkerFailed):
            pass  # an exclusive worker replaced by a newer one; failures surface as notifications
        await pilot.pause()
        busy = any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in app.workers)
        # the browser fills its table in timed chunks (no worker): wait for the last one
        busy = busy or any(getattr(s, "filling", False) for s in app.screen_stack)
        quiet = 0 if busy else quiet + 1
        if quiet >= rounds:
            return


#: C0 controls (tab and newline included), DEL and C1: none may reach the terminal.
CONTROL_CHARS = frozenset(chr(c) for c in (*range(0x00, 0x20), *range(0x7F, 0xA0)))


def screen_lines(app) -> list[str]:
    """The text of every line of the screen as drawn (the compositor's strips)."""
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    return [
        "".join(seg.text for strip in line for seg in strip if not seg.control)
        for line in update.strips
    ]


def widget_text(app, widget) -> str:
    """The words drawn inside ``widget``'s region, whitespace collapsed (a wrapped sentence
    reads as one, without the columns beside it)."""
    r = widget.region
    lines = screen_lines(app)[r.y : r.y + r.height]
    return " ".join(" ".join(line[r.x : r.x + r.width] for line in lines).split())


def controls_on_screen(app) -> list[tuple[int, str]]:
    """(line number, repr of the character) of every raw control character drawn."""
    return [
        (y, repr(ch))
        for y, line in enumerate(screen_lines(app))
        for ch in set(line) & CONTROL_CHARS
    ]


async def open_session(app, pilot, sid: str):
    """Open session ``sid`` (any spelling ``resolve_session`` takes) and wait for it."""
    from sidtui.core.base.resolve import resolve_session
    from sidtui.tui.screens.session import SessionScreen

    app.open_session(resolve_session(app.home, sid))
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, SessionScreen) and screen.view is not None, screen
    return screen

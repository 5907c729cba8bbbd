"""Shared helpers for the app's Pilot and snapshot tests (tests/test_tui_*.py).

* :func:`demo_home_fixed` builds the deterministic demo home once per source version at a
  fixed path (so absolute project paths inside it, and therefore snapshots, never change
  between runs); it is only ever *read* by the tests that use it.
* :func:`fresh_demo` builds a private demo home under ``tmp_path`` for tests that write.
* :func:`kill_fixture_pids` rewrites every registration PID to one no process can have.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
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


def demo_home_fixed(seed: int = 0) -> Path:
    """The demo home (its ``home/`` folder) at a fixed path; built once, never written."""
    from sidtui.demo.scenarios import build_demo_home

    base = Path(f"/tmp/sidtui-snapdemo-{os.getuid()}-{_demo_sources_digest()}-{seed}")
    if (base / "home").is_dir():
        return base / "home"
    lock = Path(str(base) + ".lock")
    with open(lock, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        if not (base / "home").is_dir():
            # Built in place at its final path so the absolute paths inside match it.
            shutil.rmtree(base, ignore_errors=True)
            build_demo_home(base, seed, use_git=False)
    return base / "home"


def fresh_demo(tmp_path: Path, seed: int = 0):
    """A private demo home under ``tmp_path`` (writable); returns the ``DemoHome``."""
    from sidtui.demo.scenarios import build_demo_home

    return build_demo_home(tmp_path / "demo", seed, use_git=False)


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


def summaries_ready(app) -> bool:
    b = app.browser()
    return b is not None and not b.scanning


async def settle(app, pilot, rounds: int = 3) -> None:
    """Let workers finish and their messages be handled (no sleeps)."""
    for _ in range(rounds):
        await app.workers.wait_for_complete()
        await pilot.pause()

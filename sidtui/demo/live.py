"""``sidtui demo --live``: the simulated agent as a background process.

Design notes: docs/ARCHITECTURE.md, “demo/live.py”.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import threading
import time
from pathlib import Path

from sidtui.core.base.home import Home
from sidtui.core.base.project import ProjectKeyTooLong, check_key_fits
from sidtui.demo.agent import (
    SimAgent,
    SubAgentPlan,
    bash,
    edit,
    grep,
    read,
    sub_agent,
    todo_write,
    write,
)
from sidtui.demo.clock import SeededIds, SimClock
from sidtui.demo.projects import Project

LIVE_FILES = {
    "README.md": "# live-app\n\nA project the live demo agent keeps editing.\n",
    "src/counter.ts": 'export const count = 0;\nexport const label = "start";\n',
    "src/config.json": '{\n  "retries": 1,\n  "verbose": false\n}\n',
    "notes/journal.md": "# journal\n",
}

PROMPTS = [
    "Bump the counter and relabel it.",
    "Raise the retry count a little.",
    "Add a line to the journal about what changed.",
    "Check what the counter is now.",
    "Have a sub-agent review the config.",
    "Toggle verbose logging.",
    "Write a scratch note, then tidy it up.",
]


def live_project(root: Path) -> Project:
    """The :class:`Project` for an existing folder (git when it has ``.git``)."""
    root = root.absolute()
    is_git = (root / ".git").exists()
    return Project(root.name, root, check_key_fits(root), is_git, "main" if is_git else None)


def _read(p: Path) -> str:
    try:
        return p.read_text(encoding="utf-8")
    except OSError:
        return ""


class LiveRunner:
    """The live loop (separate from signal handling so tests can drive it).

    Args:
        home: the agent home.
        project: the project to edit.
        seed: conversation seed.
        rate: target records per second (pauses scale with it).
        stop: an event that ends the loop after the current step.
    """

    def __init__(
        self, home: Home, project: Project, seed: int, rate: float, stop: threading.Event
    ) -> None:
        self.home = home
        self.project = project
        self.rng = random.Random(f"{seed}:live")
        self.rate = max(0.2, rate)
        self.stop = stop
        self.agent = SimAgent(
            home,
            project,
            clock=SimClock(live=True),
            ids=SeededIds(None),
            rng=random.Random(f"{seed}:live-usage"),
            pid=os.getpid(),
        )

    def pause(self, records: int = 1) -> bool:
        """Wait about ``records / rate`` seconds; True when asked to stop."""
        return self.stop.wait(records / self.rate * self.rng.uniform(0.6, 1.4))

    def _counter_edit(self) -> list:
        p = self.project
        text = _read(p.root / "src/counter.ts")
        cur = text.split("count = ", 1)[1].split(";", 1)[0] if "count = " in text else "0"
        label = text.split('label = "', 1)[1].split('"', 1)[0] if 'label = "' in text else "start"
        return [
            edit(p, "src/counter.ts", f"count = {cur};", f"count = {int(cur) + 1};"),
            edit(
                p,
                "src/counter.ts",
                f'label = "{label}"',
                f'label = "{self.rng.choice(["alpha", "beta", "gamma", "delta"])}"',
            ),
        ][: self.rng.randint(1, 2)]

    def _step_calls(self, n: int) -> tuple[str, list]:
        p = self.project
        kind = n % len(PROMPTS)
        if kind == 0:
            return "Editing the counter.", self._counter_edit()
        if kind == 1:
            text = _read(p.root / "src/config.json")
            cur = text.split('"retries": ', 1)[1].split(",", 1)[0] if '"retries": ' in text else "1"
            return "Raising retries.", [
                read(p, "src/config.json"),
                edit(p, "src/config.json", f'"retries": {cur},', f'"retries": {int(cur) % 9 + 1},'),
            ]
        if kind == 2:
            line = f"- step {n}: {self.rng.choice(['counter bumped', 'config tuned', 'notes tidied', 'checked status'])}\n"
            return "Appending to the journal.", [
                bash(
                    "echo ... >> notes/journal.md",
                    affects=["notes/journal.md"],
                    effect=("append", "notes/journal.md", line),
                )
            ]
        if kind == 3:
            return "Reading the counter and searching for uses.", [
                read(p, "src/counter.ts"),
                read(p, "notes/journal.md"),
                grep("count", "src"),
            ]
        if kind == 4:
            plan = SubAgentPlan(
                "Explore",
                "Review config.json",
                "Is src/config.json sane? Report only.",
                steps=[
                    (
                        "Reading it.",
                        "read",
                        {"file_path": p.path("src/config.json")},
                        _read(p.root / "src/config.json")[:200],
                    )
                ],
                final="Config looks fine; retries are bounded.",
                status=self.rng.choice(["completed", "completed", "failed"]),
            )
            return "Asking a sub-agent.", [sub_agent(plan)]
        if kind == 5:
            text = _read(p.root / "src/config.json")
            old, new = (
                ('"verbose": false', '"verbose": true')
                if '"verbose": false' in text
                else ('"verbose": true', '"verbose": false')
            )
            return "Toggling verbose.", [edit(p, "src/config.json", old, new)]
        slot = n % 3
        return "Writing a scratch note.", [
            write(p, f"notes/scratch-{slot}.md", f"scratch {n}\n"),
            todo_write(
                [
                    ("Write scratch note", "Writing scratch note", "completed"),
                    ("Tidy up", "Tidying up", "pending"),
                ]
            ),
        ]

    def run(self, max_seconds: float | None = None) -> None:
        a = self.agent
        a.start()
        now = a.clock.ms()
        if a.intents is not None:
            # An intent from "an earlier turn" six minutes ago: already expired (5 min).
            a.intents.declare(self.project.path("README.md"), "read", now - 6 * 60_000)
        deadline = time.monotonic() + max_seconds if max_seconds else None
        n = 0
        try:
            while not self.stop.is_set():
                if deadline is not None and time.monotonic() > deadline:
                    break
                a.prompt(PROMPTS[n % len(PROMPTS)], think_ms=(0, 0))
                if self.pause():
                    break
                text, calls = self._step_calls(n)
                a.say(text, calls, thinking="Plan the next small change." if n % 2 else None)
                if self.pause():
                    break
                a.execute(calls)
                if self.pause(2):
                    break
                a.say(f"Done with step {n}.")
                a.end_turn(name="Live demo" if n == 0 else None)
                n += 1
                if self.pause(3):
                    break
        finally:
            a.end()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m sidtui.demo.live")
    ap.add_argument("--home", required=True)
    ap.add_argument("--project", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rate", type=float, default=3.0, help="records per second (about)")
    ap.add_argument("--max-seconds", type=float, default=None)
    args = ap.parse_args(argv)
    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        project = live_project(Path(args.project))
    except ProjectKeyTooLong as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    runner = LiveRunner(Home(Path(args.home)), project, args.seed, args.rate, stop)
    runner.run(args.max_seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())

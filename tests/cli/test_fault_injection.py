"""SIGKILL at random points of every mutating verb; what is left must never lie.

Each trial forks a child (the suite's imports are already paid) that runs one CLI verb on a
small copy of the fixture home with every mutating ``os`` call (``open`` for writing,
``write``, ``replace``/``rename``, ``unlink``, ``fsync``, ``mkdir``/``rmdir``, ``chmod``)
counted, and SIGKILLs itself at call number N; a ``write`` it dies in lands a random prefix
first. N and the prefix come from ``random.Random(f"{verb}/{trial}")``: deterministic per
seed. After each kill:

* every transcript loads as before (existing ones only grew), every ``index.json`` is valid
  and keeps its snapshots, every project file is wholly its old or its new version;
* a new session visible to the CLI is a complete copy (its messages and its checkpoints);
* a leftover file is a hidden ``.NAME.sidtui-PID-RANDOM.tmp`` or the session's journal;
* unless the kill left the intended state, re-running the verb reaches it and cleans the
  leftovers.
"""

from __future__ import annotations

import os
import random
import re
import select
import shutil
import signal
from contextlib import contextmanager
from pathlib import Path

import orjson
import pytest

from sidtui.cli import main
from sidtui.core.base.discover import discover
from sidtui.core.base.home import Home
from sidtui.core.checkpoints.index import CheckpointIndex
from sidtui.core.views.session import open_session
from tests.helpers import REAL_HOME, REAL_PROJECTS, remap_fixture_paths

pytestmark = pytest.mark.slow

S01 = "20261130-052907-9ff3799b"
S16 = "20261130-052921-ad7240fb"
WEBAPP = "tmp-sidtui-fixture-projects-webapp"
LEGACY = "tmp-sidtui-fixture-projects-legacy-proj"
TRIALS = 10  # x 10 verbs: 100 kills
TEMP_NAME = re.compile(r"^\..+\.sidtui-\d+-\w+\.tmp$")
JOURNAL = "sidtui-journal.json"
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_COUNTED = ("replace", "rename", "unlink", "fsync", "mkdir", "rmdir", "chmod", "fchmod")


# --------------------------------------------------------------------------- the small home


def build(run: Path, sessions: list[tuple[str, str]], projects: list[str]) -> None:
    """A home with only ``sessions`` ((folder, id)) and their checkpoints, and ``projects``."""
    home = run / "home"
    for folder, sid in sessions:
        (home / "sessions" / folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(REAL_HOME / "sessions" / folder / f"{sid}.jsonl", home / "sessions" / folder)
        ckpt = REAL_HOME / "checkpoints" / sid
        if ckpt.exists():
            shutil.copytree(ckpt, home / "checkpoints" / sid)
    for sub in ("active-sessions", "file-intents", "checkpoints"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    for name in projects:
        shutil.copytree(REAL_PROJECTS / name, run / "projects" / name)
    remap_fixture_paths(home, run / "projects")


def argv_for(run: Path, *verb: str) -> list[str]:
    return ["--home", str(run / "home"), *verb]


# --------------------------------------------------------------------------- the state


def tree(root: Path) -> dict[str, tuple[bytes, int] | str]:
    """Every file under ``root``: (bytes, mode), or the link target of a symlink."""
    out: dict[str, tuple[bytes, int] | str] = {}
    if not root.exists():
        return out
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if p.is_symlink():
            out[rel] = os.readlink(p)
        elif p.is_file():
            out[rel] = (p.read_bytes(), p.stat().st_mode & 0o7777)
    return out


def messages(home: Path, path: Path) -> tuple[bool, list[tuple]]:
    h = Home(home)
    sf = next(f for f in discover(h) if f.path == path)
    v = open_session(h, sf, with_sidechains=False)
    return v.loaded.loadable, [
        (m.role, m.preview(400), tuple(m.block_types)) for m in v.loaded.messages
    ]


def transcripts(home: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted((home / "sessions").rglob("*.jsonl"))}


class State:
    """What the trial compares: project files, transcripts (+ loads), indexes, leftovers."""

    def __init__(self, run: Path) -> None:
        self.run = run
        home = run / "home"
        self.projects = tree(run / "projects")
        self.transcripts = transcripts(home)
        self.loads = {p: messages(home, p) for p in self.transcripts}
        self.indexes: dict[str, list[str]] = {}
        for d in sorted((home / "checkpoints").iterdir()):
            idx = d / "index.json"
            if d.is_dir() and not d.name.startswith(".") and idx.exists():
                self.indexes[d.name] = [
                    str(s.get("id")) for s in CheckpointIndex.load(idx).snapshots
                ]
        self.journals = sorted(str(p) for p in (home / "checkpoints").rglob(JOURNAL))
        self.temps = sorted(
            str(p) for p in run.rglob("*") if TEMP_NAME.match(p.name) or ".tmp" in p.name
        )


def new_sessions(before: State, now: State) -> list[Path]:
    return [p for p in now.transcripts if p not in before.transcripts]


def copies(state: State, before: State) -> list[tuple[tuple[bool, list], list[str] | None]]:
    """(load, snapshot ids of its checkpoints) of every new session, sorted."""
    out = []
    for p in new_sessions(before, state):
        out.append((state.loads[p], state.indexes.get(p.stem)))
    return sorted(out, key=repr)


def check_invariants(before: State, intended: State, now: State) -> None:
    # Transcripts: existing ones only grew and load as before.
    for p, data in before.transcripts.items():
        assert p in now.transcripts, f"{p.name} disappeared"
        assert now.transcripts[p].startswith(data), f"{p.name} was rewritten, not appended to"
        assert now.loads[p][0] == before.loads[p][0], f"{p.name} loadability changed"
        assert now.loads[p] in (before.loads[p], intended.loads.get(p, before.loads[p])), (
            f"{p.name} loads neither the old nor the new conversation"
        )
    # A new session the CLI lists is a complete copy: all messages and its checkpoints.
    intended_copies = copies(intended, before)
    for c in copies(now, before):
        assert c in intended_copies, "a copy that is not complete is visible"
    # Indexes: valid JSON, the old snapshots kept in order.
    for sid, ids in before.indexes.items():
        assert sid in now.indexes, f"checkpoints of {sid} lost"
        assert now.indexes[sid][: len(ids)] == ids
    # Project files: wholly old or wholly new, never a prefix; nothing else appears.
    for rel in set(before.projects) | set(intended.projects) | set(now.projects):
        cur = now.projects.get(rel)
        if cur is None and rel not in before.projects and rel not in intended.projects:
            continue
        if rel not in before.projects and rel not in intended.projects:
            assert TEMP_NAME.match(Path(rel).name), f"stray file {rel}"
            continue
        assert cur in (before.projects.get(rel), intended.projects.get(rel)), (
            f"{rel} is neither its old nor its new version"
        )
    for t in now.temps:
        assert TEMP_NAME.match(Path(t).name), f"a leftover looks like a real file: {t}"


def reached(intended: State, before: State, now: State) -> bool:
    """Whether ``now`` is the intended state (project files, conversation, copies)."""
    if now.journals:
        return False
    if now.projects != intended.projects:
        return False
    if any(now.loads.get(p) != intended.loads[p] for p in before.transcripts):
        return False
    want = copies(intended, before)
    return (not want and not copies(now, before)) or bool(want and copies(now, before) == want)


# --------------------------------------------------------------------------- the kill


@contextmanager
def kill_points(kill_at: int, rng: random.Random | None, counter: list[int]):
    """Count every mutating ``os`` call; SIGKILL this process at call ``kill_at`` (0: never)."""
    saved = {n: getattr(os, n) for n in ("open", "write", *_COUNTED)}

    def hit() -> bool:
        counter[0] += 1
        return counter[0] == kill_at

    def die() -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    def o_open(path, flags, *a, **kw):
        if flags & _WRITE_FLAGS and hit():
            die()
        return saved["open"](path, flags, *a, **kw)

    def o_write(fd, data):
        if fd > 2 and hit():
            assert rng is not None
            view = memoryview(data)
            cut = rng.randrange(len(view)) if len(view) > 1 else 0
            if cut:
                saved["write"](fd, view[:cut])
            die()
        return saved["write"](fd, data)

    def counted(name):
        # A kill is a process death, not a power cut: fsync is a kill point but does no
        # work (the disk keeps what a dead process wrote either way), which keeps trials cheap.
        real = saved[name] if name != "fsync" else (lambda fd: None)

        def f(*a, **kw):
            if hit():
                die()
            return real(*a, **kw)

        return f

    import time

    saved_sleep = time.sleep
    time.sleep = lambda _s: None  # a torn tail's settle wait: no test sleeps
    os.open = o_open  # type: ignore[assignment]
    os.write = o_write  # type: ignore[assignment]
    for n in _COUNTED:
        setattr(os, n, counted(n))
    try:
        yield
    finally:
        for n, f in saved.items():
            setattr(os, n, f)
        time.sleep = saved_sleep


def run_clean(argv: list[str]) -> int:
    """Run the verb here; returns how many mutating os calls it made."""
    counter = [0]
    with kill_points(0, None, counter):
        rc = main(argv)
    assert rc in (0, 1), (argv, rc)
    return counter[0]


def run_killed(argv: list[str], kill_at: int, rng: random.Random) -> None:
    """Run the verb in a forked child that SIGKILLs itself at mutating call ``kill_at``."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            with kill_points(kill_at, rng, [0]):
                main(argv)
        finally:
            os._exit(0)
    pidfd = os.pidfd_open(pid)
    try:
        ready, _, _ = select.select([pidfd], [], [], 120)  # a guard against a hang, not a timing
        if not ready:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(pidfd)
    assert ready, f"{argv} hung"
    assert os.WIFSIGNALED(status) or os.WEXITSTATUS(status) == 0


# --------------------------------------------------------------------------- the verbs


def _abandoned_tip(run: Path) -> str:
    path = run / "home" / "sessions" / WEBAPP / f"{S01}.jsonl"
    marker = orjson.loads(path.read_bytes().splitlines()[-1])
    return marker["value"]["abandonedTip"]


# verb name -> (sessions, projects, preparation argv lists, the verb's argv)
VERBS = {
    "undo": ([(WEBAPP, S01)], ["webapp"], [], ["undo", S01, "--force"]),
    "redo": ([(WEBAPP, S01)], ["webapp"], [["undo", S01, "--force"]], ["redo", S01, "--force"]),
    "restore": ([(WEBAPP, S01)], ["webapp"], [], ["restore", S01, "--before", "s1", "--force"]),
    "rewind-code": (
        [(WEBAPP, S01)],
        ["webapp"],
        [],
        ["rewind", S01, "--to", "2", "--mode", "code", "--force"],
    ),
    "rewind-conversation": (
        [(WEBAPP, S01)],
        ["webapp"],
        [],
        ["rewind", S01, "--to", "2", "--mode", "conversation", "--force"],
    ),
    "rewind-both": (
        [(WEBAPP, S01)],
        ["webapp"],
        [],
        ["rewind", S01, "--to", "2", "--mode", "both", "--force"],
    ),
    "rewind-fork": (
        [(WEBAPP, S01)],
        ["webapp"],
        [],
        ["rewind", S01, "--to", "2", "--mode", "both", "--fork", "--force"],
    ),
    "fork": ([(WEBAPP, S01)], ["webapp"], [], ["fork", S01]),
    "salvage": ([(LEGACY, S16)], ["legacy-proj"], [], ["salvage", S16]),
    "branch": (
        [(WEBAPP, S01)],
        ["webapp"],
        [["rewind", S01, "--to", "3", "--mode", "conversation", "--force"]],
        ["branch", S01, "--tip", "{tip}"],
    ),
}


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_sigkill_anywhere_leaves_no_lie(tmp_path, verb, capsys):
    sessions, projects, prep, argv = VERBS[verb]
    template, run = tmp_path / "template", tmp_path / "run"

    def fresh() -> None:
        if run.exists():
            shutil.rmtree(run)
        shutil.copytree(template, run, symlinks=True)

    # The template is built where every trial runs, so its absolute paths stay valid.
    build(run, sessions, projects)
    for p in prep:
        assert main(argv_for(run, *p)) == 0
    if "{tip}" in argv:
        argv = [a.replace("{tip}", _abandoned_tip(run)[:12]) for a in argv]
    shutil.copytree(run, template, symlinks=True)
    before = State(run)
    calls = run_clean(argv_for(run, *argv))
    intended = State(run)
    capsys.readouterr()
    assert calls >= 2
    assert not reached(intended, before, before), "the verb changed nothing"

    outcomes = {"intended": 0, "old": 0, "rerun": 0}
    for trial in range(TRIALS):
        rng = random.Random(f"{verb}/{trial}")
        kill_at = rng.randint(1, calls)
        fresh()
        run_killed(argv_for(run, *argv), kill_at, rng)
        now = State(run)
        check_invariants(before, intended, now)
        if reached(intended, before, now):
            outcomes["intended"] += 1
            continue
        outcomes["old" if now.projects == before.projects else "rerun"] += 1
        run_clean(argv_for(run, *argv))
        capsys.readouterr()
        after = State(run)
        check_invariants(before, intended, after)
        assert reached(intended, before, after), f"trial {trial} (kill at {kill_at}/{calls})"
        assert not after.temps, f"leftovers not cleaned: {after.temps}"
    assert sum(outcomes.values()) == TRIALS

"""Every mutating verb of both sources, stopped or failed at every write point.

A clean run of the verb records its write points: every call of
:func:`sidtui.core.base.safefs.fault_point` (``create``, ``write``, ``fsync``, ``rename``,
``link``, ``unlink``, ``mkdir``, ``fsync-dir`` and the session writer's ``append``), in
order. Then, for each point N, a forked child runs the verb on a fresh copy of the same
small home with ``safefs.fault_hook`` set to act at point N (deterministic: no timing):

* ``sigint``: a real SIGINT (Ctrl-C): exit 130 and one last line saying what state
  things are in;
* ``sigkill``: the process dies there;
* ``torn`` (at each ``write`` and ``append``): half the bytes land, then SIGKILL;
* ``eio`` / ``enospc`` (at each ``fsync``, ``fsync-dir``, ``rename`` and ``link``): the
  step raises that ``OSError``: one clear line, exit 0 or 1, never a traceback.

After each trial:

* nothing lost: every byte of every project file before the run is on disk or in a
  snapshot some index can rebuild (a safety snapshot); every transcript only grew;
* nothing outside: the run's folder holds only its home and projects, and no file
  appeared beside it;
* every project file is wholly its old or its intended version; a session visible to
  the agent is a complete copy;
* unless the trial already reached the intended state, running the verb again (in this
  process, as a user would) reaches it, and leaves no journal, temp file or orphan
  Claude Code blob folder behind.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import pytest

from sidtui.cli import main
from sidtui.core.base import safefs
from tests.helpers import (
    CC_SESSION,
    cc_assistant,
    cc_edit_session,
    cc_lines,
    cc_user,
    file_tree,
    lost_bytes,
    run_forked,
    small_home,
    snapshot_contents,
)

pytestmark = pytest.mark.slow

S01 = "20261130-052907-9ff3799b"
S16 = "20261130-052921-ad7240fb"
WEBAPP = "tmp-sidtui-fixture-projects-webapp"
LEGACY = "tmp-sidtui-fixture-projects-legacy-proj"
JOURNAL = "sidtui-journal.json"
#: the write steps an I/O error is injected at
ERROR_KINDS = frozenset({"fsync", "fsync-dir", "rename", "link"})
#: the write steps a torn write (half the bytes, then SIGKILL) is injected at
TORN_KINDS = frozenset({"write", "append"})
FAULTS = {"eio": errno.EIO, "enospc": errno.ENOSPC}


# --------------------------------------------------------------------------- the verbs


def _fork_both(to: str = "2", mode: str = "both") -> list[str]:
    return ["rewind", S01, "--to", to, "--mode", mode, "--fork", "--force"]


def _in_place(mode: str) -> list[str]:
    return ["rewind", S01, "--to", "2", "--mode", mode, "--force"]


# name -> (preparation argv lists, the verb's argv); sid-code home of S01 (S16: salvage)
SID_VERBS: dict[str, tuple[list[list[str]], list[str]]] = {
    "undo": ([], ["undo", S01, "--force"]),
    "redo": ([["restore", S01, "--before", "s1", "--force"]], ["redo", S01, "--force"]),
    "restore": ([], ["restore", S01, "--before", "s1", "--force"]),
    "rewind-code": ([], _in_place("code")),
    "rewind-conversation": ([], _in_place("conversation")),
    "rewind-both": ([], _in_place("both")),
    "rewind-code-fork": ([], _fork_both(mode="code")),
    "rewind-conversation-fork": ([], _fork_both(mode="conversation")),
    "rewind-both-fork": ([], _fork_both()),
    "fork": ([], ["fork", S01]),
    "salvage": ([], ["salvage", S16]),
    "branch": ([_in_place("conversation")], ["branch", S01, "--tip", "{tip}"]),
}
_CC = ["--force"]
CC_VERBS: dict[str, tuple[list[list[str]], list[str]]] = {
    "undo": ([], ["undo", CC_SESSION, *_CC]),
    "redo": ([["restore", CC_SESSION, "--before", "c2", *_CC]], ["redo", CC_SESSION, *_CC]),
    "restore": ([], ["restore", CC_SESSION, "--before", "c2", *_CC]),
    "rewind-code": ([], ["rewind", CC_SESSION, "--to", "2", "--mode", "code", *_CC]),
    "rewind-conversation": ([], ["rewind", CC_SESSION, "--to", "2", "--mode", "conversation"]),
    "rewind-both": ([], ["rewind", CC_SESSION, "--to", "2", "--mode", "both", *_CC]),
    "fork": ([], ["fork", CC_SESSION]),
    "fork-at": ([], ["fork", CC_SESSION, "--at", "3"]),
    # the branch a /rewind abandoned (its tip: a4b, the last prompt's answer), forked into a
    # session of its own with its checkpoints and their blobs (build() makes the rewind)
    "branch": ([], ["branch", CC_SESSION, "--tip", "a4b"]),
}


@dataclass
class Case:
    """One verb on one small home: where it runs and how to look at it."""

    source: str  # "sid" or "cc"
    run: Path
    argv: list[str]

    @property
    def home(self) -> Path:
        return self.run / ("home" if self.source == "sid" else "claude")

    @property
    def projects(self) -> Path:
        return self.run / ("projects" if self.source == "sid" else "work")

    @property
    def transcripts_root(self) -> Path:
        return self.home / ("sessions" if self.source == "sid" else "projects")

    @property
    def snapshots_root(self) -> Path:
        return self.home / ("checkpoints" if self.source == "sid" else "sidtui")

    def full_argv(self, argv: list[str]) -> list[str]:
        flag = "--home" if self.source == "sid" else "--claude-home"
        return [flag, str(self.home), *argv]


def build(case: Case, name: str) -> None:
    if case.source == "sid":
        session = (LEGACY, S16) if name == "salvage" else (WEBAPP, S01)
        small_home(case.run, [session], ["legacy-proj" if name == "salvage" else "webapp"])
    else:
        made = cc_edit_session(case.home, case.projects / "app")
        if name == "branch":  # a /rewind to before prompt 3, then another prompt there
            again = cc_user("u3b", "a3b", "edit a another way", 50)
            with open(made["path"], "ab") as fh:
                fh.write(cc_lines(again, cc_assistant("a5", "u3b", "not now", 51)))


# --------------------------------------------------------------------------- the state


_LOADED: dict[tuple[str, bytes], tuple] = {}


def _loads(case: Case, path: Path, data: bytes) -> tuple:
    """What the agent resumes from ``path`` (holding ``data``): (loadable, [(role,
    preview)]); the same bytes load the same (cached: most trials leave them alone)."""
    key = (str(path), data)
    if key not in _LOADED:
        _LOADED[key] = _load(case, path)
    return _LOADED[key]


def _load(case: Case, path: Path) -> tuple:
    if case.source == "sid":
        from sidtui.core.base.discover import discover
        from sidtui.core.base.home import Home
        from sidtui.core.views.session import open_session

        h = Home(case.home)
        sf = next(f for f in discover(h) if f.path == path)
        v = open_session(h, sf, with_sidechains=False)
        return v.loaded.loadable, [(m.role, m.preview(400)) for m in v.loaded.messages]
    from sidtui.core.claude.layout import ClaudeHome, resolve_session
    from sidtui.core.claude.session import open_claude_session
    from sidtui.core.views.rewind_text import message_preview

    h = ClaudeHome(case.home)
    v = open_claude_session(h, resolve_session(h, path.stem))
    return True, [(m.role, message_preview(m)) for m in v.messages]


@dataclass
class State:
    projects: dict[str, bytes]
    transcripts: dict[Path, bytes]
    loads: dict[Path, tuple]
    journals: list[str]
    temps: list[str]
    orphans: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, case: Case) -> State:
        ts = {p: p.read_bytes() for p in sorted(case.transcripts_root.rglob("*.jsonl"))}
        if case.source == "sid":
            ts = {p: b for p, b in ts.items() if "subagents" not in p.parts}
        everything = sorted(case.run.rglob("*"))
        orphans = []
        fh = case.home / "file-history"
        if case.source == "cc" and fh.exists():
            stems = {p.stem for p in ts}
            orphans = [d.name for d in fh.iterdir() if d.name not in stems]
        projects = {
            rel: b for rel, b in file_tree(case.projects).items() if not _temp(Path(rel).name)
        }
        return cls(
            projects=projects,
            transcripts=ts,
            loads={p: _loads(case, p, b) for p, b in ts.items()},
            journals=[str(p) for p in everything if p.name == JOURNAL],
            temps=[str(p) for p in everything if p.name.endswith(".tmp") or _temp(p.name)],
            orphans=orphans,
            outside=sorted(p.name for p in case.run.parent.iterdir())
            + sorted(p.name for p in case.run.iterdir()),
        )


def _temp(name: str) -> bool:
    return safefs.parse_temp_name(name) is not None


def _new(state: State, before: State) -> list[tuple]:
    return sorted(
        (state.loads[p] for p in state.transcripts if p not in before.transcripts), key=repr
    )


def check_invariants(case: Case, before: State, intended: State, now: State) -> None:
    kept = snapshot_contents(case.snapshots_root)
    lost = lost_bytes(before.projects, now.projects, kept)
    assert not lost, f"lost for good: {lost}"
    assert now.outside == before.outside, "something appeared outside the home and projects"
    for p, data in before.transcripts.items():
        assert now.transcripts.get(p, b"").startswith(data), f"{p.name} was rewritten"
        assert now.loads[p] in (before.loads[p], intended.loads.get(p)), f"{p.name} half loads"
    for c in _new(now, before):
        assert c in _new(intended, before), "an incomplete copy is visible"
    for t in now.temps:
        assert _temp(Path(t).name), f"a leftover looks like a real file: {t}"
    for rel in set(before.projects) | set(now.projects):
        assert now.projects.get(rel) in (before.projects.get(rel), intended.projects.get(rel)), (
            f"{rel} is neither its old nor its new version"
        )


def reached(before: State, intended: State, now: State) -> bool:
    return (
        not now.journals
        and now.projects == intended.projects
        and all(now.loads.get(p) == intended.loads[p] for p in before.transcripts)
        and _new(now, before) == _new(intended, before)
    )


# --------------------------------------------------------------------------- the faults


def recorder(points: list[tuple[str, str]]):
    def hook(kind: str, where: str) -> None:
        points.append((kind, where))

    return hook


def fault_at(n: int, fault: str):
    """A hook acting at write point ``n`` (1-based) with ``fault``."""
    count = [0]

    def hook(kind: str, where: str) -> None:
        count[0] += 1
        if count[0] != n:
            return
        if fault == "sigint":
            os.kill(os.getpid(), signal.SIGINT)
        elif fault == "sigkill":
            os.kill(os.getpid(), signal.SIGKILL)
        elif fault == "torn":
            real = os.write

            def half(fd: int, data) -> int:
                real(fd, memoryview(data)[: max(1, len(data) // 2)])
                os.kill(os.getpid(), signal.SIGKILL)
                return 0  # never reached

            os.write = half  # type: ignore[assignment]
        else:
            raise OSError(FAULTS[fault], os.strerror(FAULTS[fault]))

    return hook


def trials(points: list[tuple[str, str]]) -> list[tuple[int, str]]:
    out = []
    for n, (kind, _) in enumerate(points, 1):
        out += [(n, "sigint"), (n, "sigkill")]
        if kind in ERROR_KINDS:
            out += [(n, "eio"), (n, "enospc")]
        if kind in TORN_KINDS:
            out.append((n, "torn"))
    return out


def check_exit(fault: str, rc: int, err: str) -> None:
    assert "Traceback" not in err and "internal error" not in err, err
    if fault == "sigint":
        assert rc == 130, (rc, err)
        assert err.strip().splitlines()[-1].startswith("sidtui: interrupted"), err
    elif fault in ("sigkill", "torn"):
        assert rc == -signal.SIGKILL, (rc, err)
    else:
        assert rc in (0, 1), (rc, err)


def _tip(case: Case) -> str:
    path = case.transcripts_root / WEBAPP / f"{S01}.jsonl"
    marker = orjson.loads(path.read_bytes().splitlines()[-1])
    return str(marker["value"]["abandonedTip"])[:12]


def run_case(tmp_path: Path, source: str, name: str, capsys) -> tuple[int, int]:
    prep, argv = (SID_VERBS if source == "sid" else CC_VERBS)[name]
    template = tmp_path / "template"
    case = Case(source, tmp_path / "box" / "run", argv)
    build(case, name)
    for p in prep:
        assert main(case.full_argv(p)) == 0
    if "{tip}" in argv:
        argv = [a.replace("{tip}", _tip(case)) for a in argv]
    shutil.copytree(case.run, template, symlinks=True)
    before = State.of(case)
    points: list[tuple[str, str]] = []
    safefs.fault_hook = recorder(points)
    try:
        assert main(case.full_argv(argv)) == 0
    finally:
        safefs.fault_hook = None
    intended = State.of(case)
    assert not reached(before, intended, before), "the verb changed nothing"
    capsys.readouterr()
    reruns = 0
    all_trials = trials(points)
    for n, fault in all_trials:
        shutil.rmtree(case.run)
        shutil.copytree(template, case.run, symlinks=True)
        rc, err = run_forked(case.full_argv(argv), fault_at(n, fault))
        where = f"{source} {name}: {fault} at point {n}/{len(points)} {points[n - 1]}"
        try:
            check_exit(fault, rc, err)
            now = State.of(case)
            check_invariants(case, before, intended, now)
            if reached(before, intended, now):
                continue
            reruns += 1
            code = main(case.full_argv(argv))
            out = capsys.readouterr()
            after = State.of(case)
            check_invariants(case, before, intended, after)
            assert code == 0, out.err
            assert reached(before, intended, after), "the re-run did not reach the intended state"
            assert not after.temps, f"leftovers not cleaned: {after.temps}"
            assert not after.orphans, f"orphan blob folders: {after.orphans}"
        except AssertionError as exc:
            raise AssertionError(f"{where}: {exc}") from None
    return len(all_trials), reruns


@pytest.mark.parametrize(
    ("source", "name"),
    [("sid", n) for n in SID_VERBS] + [("cc", n) for n in CC_VERBS],
)
def test_every_write_point_under_every_fault(tmp_path, source, name, capsys, monkeypatch):
    import time

    monkeypatch.setattr(time, "sleep", lambda _s: None)  # a torn tail's settle wait
    n, reruns = run_case(tmp_path, source, name, capsys)
    with capsys.disabled():  # the counts for a report (shown with -s)
        print(f"\n{source} {name}: {n} trials, {reruns} needed a re-run", end="")
    assert n >= 2  # at least one write point

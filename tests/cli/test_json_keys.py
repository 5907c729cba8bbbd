"""Every verb's ``--json`` spells its keys one way: snake_case, at every depth.

The walk covers each verb on the demo home of every source (sid-code, Claude Code, and
Codex where the CLI reads it: ``usage --source codex``; its ids are tried with every verb
and walked once they resolve):
``ls``, ``show``, ``check``, ``checkpoints``, ``search``, ``usage``, ``export --format
json``, the write verbs with ``--dry-run`` on every session and for real on a fresh demo
home, and ``rename``. The keys that are data, not names sidtui chose, are listed in
:data:`DATA_KEYS` and :data:`DATA_SUBTREES` (docs/DECISIONS.md, "One spelling for JSON
keys"); everything else must match :data:`SNAKE`.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from sidtui.cli import main
from sidtui.demo import build_demo_home
from tests.helpers import short_folder

SNAKE = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)*$")

#: ``verb:path`` globs of objects whose KEYS are data (values are still walked, as ``*``):
#: record type names, source names, check's reason sentences, file paths, model names.
DATA_KEYS = (
    "check:",  # {source name: report}
    "check:*.record_types",
    "check:*.metadata_keys",
    "check:*.coverage.sessions.reasons",
    "show:.record_types",
    "show:.metadata",  # {metadata key (the agent's record type): its record's fields}
    "*:.diffs",  # {file path: unified diff} of a dry run
    "fork:.left_out",  # Claude Code: {record type: count}
    "repair:.left_out",
    "rewind:.fork.left_out",
    "usage:*.models",
)
#: ``verb:path`` globs whose whole content is data: the agent's record fields copied as
#: written (show's metadata values, its restored state, compared with the agent's own
#: loader), export's content blocks as written.
DATA_SUBTREES = (
    "show:.metadata.*",
    "show:.state[].value",
    "export:*.blocks",
)


def _walk(doc: Any, verb: str, path: str = "") -> Iterator[str]:
    """Every key path of ``doc`` that breaks the rule."""
    where = f"{verb}:{path}"
    if any(fnmatch.fnmatchcase(where, g) for g in DATA_SUBTREES):
        return
    if isinstance(doc, dict):
        data = any(fnmatch.fnmatchcase(where, g) for g in DATA_KEYS)
        for k, v in doc.items():
            if not data and not SNAKE.match(str(k)):
                yield f"{where}.{k}"
            yield from _walk(v, verb, f"{path}.{'*' if data else k}")
    elif isinstance(doc, list):
        for v in doc:
            yield from _walk(v, verb, f"{path}[]")


class Runner:
    def __init__(self, capsys, demo) -> None:
        self.capsys, self.demo = capsys, demo
        self.docs: dict[str, int] = {}
        self.bad: set[str] = set()
        self.errors: list[str] = []

    def __call__(self, verb: str, *args: str) -> Any:
        base = ["--home", str(self.demo.home), "--claude-home", str(self.demo.claude_home)]
        try:
            main([*base, verb, *args])
        except SystemExit:
            pass
        out, err = self.capsys.readouterr()
        if not out.strip():
            self.errors.append(f"{verb} {' '.join(args)}: {err.strip()}")
            return None
        try:
            docs = [json.loads(out)]
        except json.JSONDecodeError:
            docs = [json.loads(line) for line in out.splitlines() if line.strip()]
        for d in docs:
            self.bad.update(_walk(d, verb))
        self.docs[verb] = self.docs.get(verb, 0) + len(docs)
        return docs[0]


@pytest.fixture
def demo(short_base, request, monkeypatch):
    d = build_demo_home(short_folder(short_base, request.node.name) / "d", seed=0)
    monkeypatch.setenv("CODEX_HOME", str(d.codex_home))
    return d


def _ids(demo) -> list[str]:
    return [*demo.cases.values(), *demo.claude_cases.values(), *demo.codex_cases.values()]


def test_the_walk_finds_camel_case_and_leaves_data_alone():
    doc = {"a_b": {"dryRun": 1}, "diffs": {"/x/README.md": "…"}, "files": [{"oldBytes": 2}]}
    assert sorted(_walk(doc, "undo")) == ["undo:.a_b.dryRun", "undo:.files[].oldBytes"]
    assert list(_walk({"metadata": {"rewind": {"toPoint": 1}}}, "show")) == []
    assert list(_walk({"metadata": {"rewind": {"toPoint": 1}}}, "undo")) == [
        "undo:.metadata.rewind.toPoint"
    ]


def _walk_reads(run: Runner, demo, ids: list[str]) -> None:
    """Every read verb and a dry run of every write verb, on each of ``ids``."""
    run("ls", "--json")
    run("ls", "--json", "--sidechains")
    run("check", "--json")
    run("search", "test", "--json")
    for by in ("day", "session", "model", "project"):
        run("usage", "--by", by, "--json")
        run(
            "usage", "--by", by, "--source", "codex", "--codex-home", str(demo.codex_home), "--json"
        )
    for sid in ids:
        run("show", sid, "--json")
        run("checkpoints", sid, "--json")
        run("export", sid, "--format", "json", "-o", "-")
        run("rewind", sid, "--json")  # the points
        for mode in ("conversation", "code", "both"):
            run("rewind", sid, "--to", "1", "--mode", mode, "--dry-run", "--json")
        run("rewind", sid, "--to", "1", "--fork", "--dry-run", "--json")
        for verb in ("fork", "salvage", "repair", "branch", "undo", "redo"):
            run(verb, sid, "--dry-run", "--json")
        run("restore", sid, "--before", "1", "--dry-run", "--json")
    assert sorted(run.bad) == []
    # every verb answered in JSON at least once (a walk of nothing proves nothing)
    assert set(run.docs) >= {
        "ls", "check", "search", "usage", "show", "checkpoints", "export", "rewind", "fork",
        "salvage", "repair", "branch", "undo", "redo", "restore",
    }  # fmt: skip


def test_read_and_dry_run_json_keys_are_snake_case(demo, capsys):
    """One session of each shape: checkpoints, a rewind, a fork, a torn line, a cycle;
    Claude Code's checkpoints, rewind, sub-agents and torn line."""
    sid, cc = demo.cases, demo.claude_cases
    _walk_reads(
        Runner(capsys, demo),
        demo,
        [
            *(sid[c] for c in ("checkpoints", "clean", "rewind", "fork", "half_line", "cycle")),
            *(cc[c] for c in ("checkpoints", "rewind", "subagents", "torn")),
            demo.codex_cases["shell"],
        ],
    )


@pytest.mark.slow  # every session of the demo home (~15 s)
def test_every_read_and_dry_run_json_key_is_snake_case(demo, capsys):
    _walk_reads(Runner(capsys, demo), demo, _ids(demo))


def test_every_real_write_json_key_is_snake_case(demo, capsys):
    sid, cc = demo.cases, demo.claude_cases
    answered = []

    def run(*args: str) -> None:  # each real run must answer in JSON
        answered.append((args[:2], runner(*args) is not None))

    runner = Runner(capsys, demo)
    # sid-code: file steps and their take-back, then the conversation verbs
    for case in ("checkpoints", "clean"):
        run("undo", sid[case], "--json", "--force")
        run("redo", sid[case], "--json", "--force")
        run("restore", sid[case], "--before", "s3", "--json", "--force")
    run("rewind", sid["clean"], "--to", "2", "--mode", "both", "--json", "--force")
    run("branch", sid["rewind"], "--json", "--force")
    run("fork", sid["fork"], "--at", "1", "--json")
    run("salvage", sid["cycle"], "--json")
    run("repair", sid["torn_glued"], "--json")
    run("rename", sid["filler"], "a new title", "--json")
    # Claude Code
    run("undo", cc["checkpoints"], "--json", "--force")
    run("redo", cc["checkpoints"], "--json", "--force")
    run("restore", cc["checkpoints"], "--before", "1", "--json", "--force")
    run("rewind", cc["rewind"], "--to", "2", "--mode", "both", "--json", "--force")
    run("rewind", cc["compaction"], "--to", "2", "--fork", "--json", "--force")
    run("fork", cc["interrupted"], "--json")
    run("repair", cc["torn"], "--json")
    run("rename", cc["subagents"], "a new title", "--json")
    # Codex
    assert [a for a, ok in answered if not ok] == [], runner.errors
    assert sorted(runner.bad) == []
    assert set(runner.docs) >= {
        "undo", "redo", "restore", "rewind", "branch", "fork", "salvage", "repair", "rename",
    }  # fmt: skip

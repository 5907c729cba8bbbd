"""sidtui's Codex forks: a new rollout whose history is the original's before a prompt
(the lab checked that Codex resumes them exactly: the sidtui-fork-* cases)."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sidtui.core.base.errors import UsageError
from sidtui.core.codex.fork import uuid7
from sidtui.core.codex.layout import CodexHome, discover, resolve_session
from sidtui.core.sources.codex import CodexSource

LAB = Path(__file__).resolve().parents[1] / "fixtures" / "codex-lab"


@pytest.fixture
def source(tmp_path) -> CodexSource:
    shutil.copytree(LAB / "home", tmp_path / "home")
    return CodexSource(CodexHome(tmp_path / "home"))


def _sent(items) -> list[dict]:
    return [i.payload for i in items]


def test_every_cut_of_every_lab_session_forks_to_its_prefix(source):
    forks = 0
    for f in discover(source.home):
        parent = source.open(f)
        if parent.resume.bases:
            continue  # a fork's own prompts only (tested below)
        for k in [*range(1, len(parent.prompts) + 1), None]:
            if k is not None and parent.prompts[k - 1].compacted:
                with pytest.raises(UsageError):  # inside a compaction: no line to cut at
                    source.write_fork(parent, k)
                continue
            new_id, path = source.write_fork(parent, k)
            fork = source.open(resolve_session(source.home, new_id))
            cut = len(parent.resume.items) if k is None else parent.prompts[k - 1].items[0]
            assert _sent(fork.resume.items) == _sent(parent.resume.items[:cut])
            assert fork.resume.bases[0]["session_id"] == parent.session_id
            assert path.read_bytes().count(b"\n") == 1
            forks += 1
    assert forks >= 20


def test_a_fork_leaves_the_original_alone_and_refuses_bad_cuts(source):
    f = resolve_session(source.home, discover(source.home)[0].session_id)
    before = f.path.read_bytes()
    parent = source.open(f)
    with pytest.raises(UsageError):
        source.write_fork(parent, len(parent.prompts) + 1)
    with pytest.raises(UsageError):
        source.write_fork(parent, 0)
    source.write_fork(parent, 1)
    assert f.path.read_bytes() == before


def test_uuid7_is_time_ordered():
    t = int(datetime(2026, 1, 1, tzinfo=UTC).timestamp() * 1000)
    a, b = uuid7(t), uuid7(t + 1)
    assert a < b and a[14] == "7" and a[19] in "89ab"

"""``ls`` rows of Claude Code sessions name the session they were copied from."""

from __future__ import annotations

import shutil

import pytest

from sidtui.core.claude.fork import fork_session
from sidtui.core.claude.layout import ClaudeHome, discover, file_for_path
from sidtui.core.claude.listing import HEAD_BYTES, forked_from, summarize
from sidtui.core.claude.session import open_claude_session
from tests.helpers import CLAUDE_HOME


@pytest.fixture
def fixture_home(tmp_path):
    dst = tmp_path / "claude"
    shutil.copytree(CLAUDE_HOME, dst)
    return ClaudeHome(dst)


def test_a_fork_names_its_source_and_the_source_names_none(fixture_home):
    f = next(
        f
        for f in discover(fixture_home, include_sidechains=False)
        if open_claude_session(fixture_home, f).tree.leaf is not None
    )
    view = open_claude_session(fixture_home, f)
    res = fork_session(view)
    row = summarize(fixture_home, file_for_path(res.path))
    assert row.forked_from == view.session_id
    assert summarize(fixture_home, f).forked_from is None
    assert row.to_json()["forked_from"] == view.session_id
    # a fork of the fork names the fork, not the first session
    again = fork_session(open_claude_session(fixture_home, file_for_path(res.path)))
    assert summarize(fixture_home, file_for_path(again.path)).forked_from == res.session_id


def test_forked_from_reads_only_what_names_another_session():
    line = b'{"type":"user","forkedFrom":{"sessionId":"%s","messageUuid":"m"}}\n'
    assert forked_from(b'{"type":"x"}\n' + line % b"abc", "own") == "abc"
    assert forked_from(line % b"own", "own") is None  # itself
    assert forked_from(b'{"forkedFrom": 3}\n', "own") is None
    assert forked_from(b'{"forkedFrom"\n', "own") is None  # a torn line
    assert forked_from(b"", "own") is None
    assert HEAD_BYTES >= 1 << 16

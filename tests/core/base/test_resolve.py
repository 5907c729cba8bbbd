"""A session argument resolved to its file: an id prefix (main files win), a path."""

from __future__ import annotations

import pytest

from sidtui.core.base.errors import AmbiguousSession, SessionNotFound
from sidtui.core.base.home import Home
from sidtui.core.base.resolve import resolve_session
from tests.helpers import REAL_HOME


def test_resolve_prefix_main_wins_over_sidechains():
    home = Home(REAL_HOME)
    assert resolve_session(home, "20261130-052917-0c88f996").kind == "main"
    assert resolve_session(home, "20261130-052917-0c88f996-a5g").kind == "sidechain"
    with pytest.raises(AmbiguousSession) as e:
        resolve_session(home, "20261130-0529")
    assert len(e.value.candidates) > 2
    with pytest.raises(SessionNotFound):
        resolve_session(home, "20261130-052907-9ff3799c")


def test_resolve_by_path():
    p = REAL_HOME / "sessions" / "_legacy" / "5d2e9f01.jsonl"
    f = resolve_session(Home(REAL_HOME), str(p))
    assert f.session_id == "5d2e9f01" and f.project == "_legacy"

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


def test_the_short_id_the_list_shows_resolves(tmp_path):
    """Regression: the app's list shows a sid-code id's random tail (``948e5306`` of
    ``20261124-090000-948e5306``: its date part is shared by a day's sessions) and the CLI
    refused that id; a unique prefix of the tail names the session, two are ambiguous."""
    from tests.helpers import jsonl, make_home, start, user

    ids = ["20261124-090000-948e5306", "20261124-100000-948e9999", "20261124-110000-77aa0000"]
    home = Home(make_home(tmp_path / "h", {i: jsonl(start(sid=i), user("u", "S")) for i in ids}))
    assert resolve_session(home, "948e5306").session_id == ids[0]
    assert resolve_session(home, "948e99").session_id == ids[1]
    assert resolve_session(home, "77aa").session_id == ids[2]
    with pytest.raises(AmbiguousSession):
        resolve_session(home, "948e")
    with pytest.raises(SessionNotFound):
        resolve_session(home, "abc")  # under 4 characters: never a tail match

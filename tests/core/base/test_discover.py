"""Finding a home's transcripts: sidechains by their first record, the old flat layout, the
empty-home hint (FORMAT.md §1).
"""

from __future__ import annotations

import pytest

from sidtui.core.base.discover import discover
from sidtui.core.base.home import Home
from tests.helpers import REAL_HOME


def test_sidechains_told_apart_by_first_record():
    files = {f.session_id: f for f in discover(Home(REAL_HOME))}
    assert files["20261130-052917-0c88f996"].kind == "main"
    sc = files["20261130-052917-0c88f996-a5g0r1q4l"]
    assert sc.kind == "sidechain" and sc.parent_session_id == "20261130-052917-0c88f996"
    assert files["8f3c2a1b"].container == "json"
    assert files["5d2e9f01"].project == "_legacy"


def test_flat_files_of_old_layout(tmp_path):
    (tmp_path / "sessions").mkdir()
    (tmp_path / "sessions" / "abcd1234.jsonl").write_text('{"type":"session_start"}\n')
    (f,) = discover(Home(tmp_path))
    assert f.project == "" and f.session_id == "abcd1234"


@pytest.mark.parametrize(
    "layout, hint",
    [
        ("demo", "home/sessions exists: try sidtui --home {root}/home"),
        ("dot", ".sid-code exists: try sidtui --home {root}/.sid-code"),
        ("empty", None),
        ("bare", None),
    ],
)
def test_empty_home_hint_says_what_was_looked_for_and_where(tmp_path, layout, hint):
    """Regression: ``sidtui --home DIR`` on a demo's ``--dir`` (the home is DIR/home) or on
    a home with no sessions showed a blank table and ``ls`` said only "no sessions"."""
    from sidtui.core.base.discover import empty_home_hint

    root = tmp_path / "dir"
    root.mkdir()
    if layout == "demo":
        (root / "home" / "sessions" / "proj").mkdir(parents=True)
    elif layout == "dot":
        (root / ".sid-code").mkdir()
    elif layout == "empty":
        (root / "sessions").mkdir()
    lines = empty_home_hint(Home(root)).splitlines()
    if layout == "empty":
        assert lines == [
            f"no sessions under {root}/sessions (looked for <project>/<id>.jsonl and .json files)"
        ]
    else:
        assert (
            lines[0]
            == f"no sessions: {root}/sessions does not exist (sessions live in <home>/sessions/)"
        )
    if hint is None:
        assert len(lines) == 1
    else:
        assert lines[1].endswith(hint.format(root=root)), lines

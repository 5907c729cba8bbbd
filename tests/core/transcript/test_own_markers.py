"""A rewind taken back with ``branch`` leaves sidtui's own marker off the chain: said as a
note, never counted as a warning (issue 30 item 8)."""

from __future__ import annotations

from pathlib import Path

from sidtui.core.base.home import Home
from sidtui.core.base.resolve import resolve_session
from sidtui.core.edits.rewind import rewind, switch_branch
from sidtui.core.views.session import open_session

S01 = "20261130-052907-9ff3799b"


def _view(home: Path):
    h = Home(home)
    return open_session(h, resolve_session(h, S01), with_sidechains=False)


def test_a_rewind_taken_back_is_a_note_not_a_warning(real_home_with_projects):
    home, _ = real_home_with_projects
    before = _view(home).warnings
    r = rewind(_view(home), 3, "conversation")
    rewound = _view(home)
    assert any("the agent skips it" in w for w in rewound.warnings)  # the agent's history
    switch_branch(rewound, r.abandoned_tip)
    back = _view(home)
    assert back.warnings == before, back.warnings
    assert len(back.notes) == 1 and back.notes[0].startswith("rewind taken back at 20"), back.notes
    assert "sidtui's own marker" in back.notes[0]


def test_show_says_the_note_and_no_warning(real_home_with_projects, capsys):
    from sidtui.cli import main

    home, _ = real_home_with_projects
    r = rewind(_view(home), 3, "conversation")
    switch_branch(_view(home), r.abandoned_tip)
    capsys.readouterr()
    assert main(["--home", str(home), "show", S01]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "note: rewind taken back at" in out and "the agent skips it" not in out

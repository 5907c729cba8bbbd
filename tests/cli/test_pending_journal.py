"""The read verbs say what a killed sidtui write left pending (its journal: the project
half restored until the next undo, redo, restore or rewind finishes it): ``ls`` marks the row,
``show`` and ``checkpoints`` warn, ``check`` reports it; each ``--json`` gains a field."""

from __future__ import annotations

import json

import pytest

from sidtui.cli import main
from tests.helpers import CC_SESSION, cc_edit_session, copy_real_home, neutralize_fixture_pids

S01 = "20261130-052907-9ff3799b"
WEBAPP = "tmp-sidtui-fixture-projects-webapp"


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture
def homes(tmp_path, monkeypatch):
    """``(home flags, claude session)``: a sid-code home and a Claude Code home."""
    monkeypatch.setenv("COLUMNS", "250")  # whole rows and lines
    sid = copy_real_home(tmp_path / "home", tmp_path / "projects")
    neutralize_fixture_pids(sid)
    claude = tmp_path / "claude"
    sess = cc_edit_session(claude, tmp_path / "work" / "app")
    return ["--home", sid, "--claude-home", claude], sess


def _kill_an_undo_of_each(h, capsys) -> None:
    """An undo of S01 and a restore of the Claude Code session, each killed after its
    journal and safety snapshot, before its files are written."""
    from sidtui.core.checkpoints import manager
    from sidtui.core.claude import code_restore

    def killed(todo):
        raise KeyboardInterrupt

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(manager, "write_files", killed)
        mp.setattr(code_restore, "write_files", killed)
        assert main([str(a) for a in (*h, "undo", S01, "--force")]) == 130
        assert main([str(a) for a in (*h, "restore", CC_SESSION, "--before", "c2")]) == 130
    capsys.readouterr()


def _warned(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if "interrupted sidtui" in ln]


def test_nothing_pending_says_nothing(homes, capsys):
    h, _ = homes
    rc, out, err = run(capsys, *h, "ls")
    assert rc == 0 and "restore pending" not in out and not _warned(err)
    rc, out, _ = run(capsys, *h, "ls", "--json")
    assert rc == 0 and not any("pending_journal" in r for r in json.loads(out))


def test_ls_marks_the_rows_and_says_each_once(homes, capsys):
    h, _ = homes
    _kill_an_undo_of_each(h, capsys)
    rc, out, err = run(capsys, *h, "ls")
    assert rc == 0
    warned = _warned(err)
    assert len(warned) == 2, err
    assert f"undo of {S01} is pending" in warned[0] and "file(s) may be half restored" in warned[0]
    assert f"restore of {CC_SESSION} is pending" in warned[1]
    assert all(
        "the next undo, redo, restore or rewind of it finishes it first" in w for w in warned
    )
    marked = [ln for ln in out.splitlines() if "(restore pending)" in ln]
    assert len(marked) == 2 and S01 in marked[0] and CC_SESSION in marked[1], out
    assert any(ln.startswith("restore pending: ") for ln in out.splitlines())
    rc, out, _ = run(capsys, *h, "ls", "--json")
    rows = {r["session_id"]: r for r in json.loads(out)}
    pending = {k: r["pending_journal"] for k, r in rows.items() if "pending_journal" in r}
    assert set(pending) == {S01, CC_SESSION}
    assert (pending[S01]["op"], pending[CC_SESSION]["op"]) == ("undo", "restore")
    assert pending[CC_SESSION]["files"] == 3 and pending[S01]["files"] >= 1
    assert pending[S01]["journal"].endswith(f"checkpoints/{S01}/sidtui-journal.json")
    # one project: only its sessions' journals
    rc, out, err = run(capsys, *h, "ls", "--project", WEBAPP)
    assert rc == 0 and len(_warned(err)) == 1 and S01 in _warned(err)[0]


def test_show_checkpoints_and_check_say_it(homes, capsys):
    h, _ = homes
    _kill_an_undo_of_each(h, capsys)
    for sid, op, key in (
        (S01, "undo", "pending_journal"),
        (CC_SESSION, "restore", "pending_journal"),
    ):
        rc, out, err = run(capsys, *h, "show", sid)
        assert rc == 0 and len(_warned(err)) == 1 and f"{op} of {sid}" in err
        rc, out, _ = run(capsys, *h, "show", sid, "--json")
        assert json.loads(out)["pending_journal"]["op"] == op
        rc, out, err = run(capsys, *h, "checkpoints", sid)
        assert rc == 0 and len(_warned(err)) == 1 and f"{op} of {sid}" in err
        rc, out, _ = run(capsys, *h, "checkpoints", sid, "--json")
        assert json.loads(out)[key]["session_id"] == sid
        rc, out, _ = run(capsys, *h, "check", "--session", sid)
        said = [ln for ln in out.splitlines() if ln.startswith("pending ")]
        assert len(said) == 1 and f"{op} of {sid}" in said[0], out
    rc, out, _ = run(capsys, *h, "check", "--json")
    doc = json.loads(out)
    assert [p["session_id"] for p in doc["sid-code"]["pending_journals"]] == [S01]
    assert [p["session_id"] for p in doc["claude-code"]["pending_journals"]] == [CC_SESSION]
    # the next undo finishes it (and only that): then nothing is pending
    rc, _, err = run(capsys, *h, "undo", S01, "--force")
    assert rc == 0 and "interrupted undo" in err, err
    rc, out, err = run(capsys, *h, "ls")
    assert [w for w in _warned(err) if S01 in w] == [] and len(_warned(err)) == 1
    rc, out, _ = run(capsys, *h, "show", S01, "--json")
    assert "pending_journal" not in json.loads(out)


def test_a_journal_sidtui_did_not_write_is_said_too(homes, capsys):
    h, _ = homes
    folder = h[1] / "checkpoints" / S01
    (folder / "sidtui-journal.json").write_text("[]")
    rc, out, err = run(capsys, *h, "ls", "--json")
    assert rc == 0 and "is not a journal sidtui wrote" in err and "is refused until" in err
    rows = [r for r in json.loads(out) if "pending_journal" in r]
    assert [r["session_id"] for r in rows] == [S01] and rows[0]["pending_journal"]["invalid"]

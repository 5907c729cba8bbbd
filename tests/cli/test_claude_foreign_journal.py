"""A journal sidtui did not write where a Claude Code session's restores journal lives
(``<claude home>/sidtui/restores/<session>/sidtui-journal.json``): every code-writing verb
refuses with one line, exit 1, its dry run alike; nothing is written, the file is left
alone and never followed; the read verbs say it. As sid-code's (docs/DECISIONS.md, "A
journal for interrupted work")."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sidtui.cli import main
from tests.helpers import CC_SESSION, cc_edit_session, run_bounded

JOURNAL = "sidtui-journal.json"

VERBS = {
    "undo": ["undo", CC_SESSION, "--force"],
    "undo-file": ["undo", CC_SESSION, "--file", "a.txt", "--force"],
    "redo": ["redo", CC_SESSION, "--force"],
    "restore": ["restore", CC_SESSION, "--before", "c2", "--force"],
    "rewind-code": ["rewind", CC_SESSION, "--to", "1", "--mode", "code", "--force"],
    "rewind-both": ["rewind", CC_SESSION, "--to", "1", "--mode", "both", "--force"],
}


def tree(root: Path) -> dict[str, bytes | str]:
    """Every path under ``root``: a regular file's bytes, else what it is."""
    out: dict[str, bytes | str] = {}
    for p in sorted(root.rglob("*")):
        if p.is_symlink():
            out[str(p)] = "link:" + os.readlink(p)
        elif p.is_fifo():
            out[str(p)] = "fifo"
        elif p.is_file():
            out[str(p)] = p.read_bytes()
    return out


@pytest.fixture
def cc(tmp_path) -> tuple[list[str], Path]:
    """``(home flags, journal path)``: a Claude Code session restored once (so ``redo``
    has something to take back), its journal folder there and no journal in it."""
    claude = tmp_path / "claude"
    cc_edit_session(claude, tmp_path / "work" / "app")
    h = ["--claude-home", str(claude)]
    assert main([*h, "restore", CC_SESSION, "--before", "c3", "--force"]) == 0
    journal = claude / "sidtui" / "restores" / CC_SESSION / JOURNAL
    assert journal.parent.is_dir() and not journal.exists()
    return h, journal


def place(journal: Path, kind: str, tmp_path: Path) -> None:
    """Put a file sidtui did not write at the journal's path."""
    if kind == "malformed":
        journal.write_text('{"op": "undo", ')
    elif kind == "no-marker":  # valid JSON, an object, but not sidtui's (no version)
        journal.write_text(json.dumps({"op": "undo", "pid": 1, "claude": {"paths": []}}))
    elif kind == "list":
        journal.write_text("[]")
    elif kind == "symlink":  # to a journal sidtui would accept: still not followed
        target = tmp_path / "elsewhere.json"
        target.write_text(json.dumps({"version": 1, "op": "undo", "token": "x"}))
        journal.symlink_to(target)
    elif kind == "dangling":
        journal.symlink_to(tmp_path / "nowhere.json")
    elif kind == "fifo":
        os.mkfifo(journal)
    elif kind == "folder":
        journal.mkdir()
        (journal / "x").write_text("x")


KINDS = ["malformed", "no-marker", "list", "symlink", "dangling", "folder"]


def run(capsys, argv: list[str]) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def refusal(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.startswith("sidtui: ")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize("kind", KINDS)
def test_every_write_verb_refuses_dry_run_alike(cc, tmp_path, capsys, kind):
    h, journal = cc
    place(journal, kind, tmp_path)
    before = tree(tmp_path)
    for verb, argv in VERBS.items():
        dry = run(capsys, [*h, *argv, "--dry-run"])
        real = run(capsys, [*h, *argv])
        assert dry[0] == real[0] == 1, (verb, dry, real)
        said = refusal(real[2])
        assert str(journal) in said and "left alone" in said, said
        assert "remove it by hand if it is not sidtui's" in said, said
        assert refusal(dry[2]) == said, (verb, dry[2])
        assert not dry[1].strip() and not real[1].strip(), (verb, dry[1], real[1])
        assert tree(tmp_path) == before, f"{verb} wrote or removed something"
        # --json: the same refusal line, nothing on stdout
        rc, out, err = run(capsys, [*h, *argv, "--json"])
        assert rc == 1 and refusal(err) == said and not out.strip()


def test_the_reason_is_said(cc, tmp_path, capsys):
    h, journal = cc
    for kind, why in (
        ("malformed", "is not valid JSON"),
        ("no-marker", "is not a journal sidtui wrote"),
        ("symlink", "is not a journal sidtui wrote (a symbolic link)"),
        ("folder", "is not a journal sidtui wrote (a folder)"),
    ):
        place(journal, kind, tmp_path)
        said = refusal(run(capsys, [*h, *VERBS["undo"]])[2])
        assert why in said, said
        if journal.is_dir() and not journal.is_symlink():
            (journal / "x").unlink()
            journal.rmdir()
        else:
            journal.unlink()
    # removed by hand: the write verbs work again
    rc, _, err = run(capsys, [*h, *VERBS["undo"]])
    assert rc == 0, err


def test_an_unreadable_journal_is_refused(cc, tmp_path, capsys, monkeypatch):
    """``chmod 000`` does not stop root: the read is made to fail as it would."""
    from sidtui.core.checkpoints import journal as journal_mod

    h, journal = cc
    journal.write_text(json.dumps({"version": 1, "op": "undo"}))
    real_read = journal_mod.read_regular

    def denied(path, *a, **kw):
        if Path(path) == journal:
            raise PermissionError(13, "Permission denied", str(path))
        return real_read(path, *a, **kw)

    monkeypatch.setattr(journal_mod, "read_regular", denied)
    before = tree(tmp_path)
    for argv in (VERBS["undo"], VERBS["redo"], VERBS["rewind-code"]):
        dry = run(capsys, [*h, *argv, "--dry-run"])
        real = run(capsys, [*h, *argv])
        assert dry[0] == real[0] == 1
        said = refusal(real[2])
        assert said == refusal(dry[2]) and f"cannot read {journal}: Permission denied" in said
    assert tree(tmp_path) == before


def test_a_fifo_is_refused_without_waiting(cc, tmp_path):
    """In a child with a deadline: opening a FIFO to read would wait for a writer."""
    h, journal = cc
    place(journal, "fifo", tmp_path)
    for extra in (["--dry-run"], []):
        r = run_bounded([*h, *VERBS["undo"], *extra], timeout=60)
        assert not r.hung and r.rc == 1, r
        said = refusal(r.err)
        assert "is not a journal sidtui wrote (a FIFO); left alone" in said
    assert journal.is_fifo()


def test_a_conversation_rewind_leaves_it_and_writes_its_session(cc, tmp_path, capsys):
    """It writes a new session and no project file, so the journal does not stop it."""
    h, journal = cc
    place(journal, "malformed", tmp_path)
    rc, _, err = run(capsys, [*h, "rewind", CC_SESSION, "--to", "2", "--mode", "conversation"])
    assert rc == 0, err
    assert journal.read_text() == '{"op": "undo", '


def test_the_read_verbs_say_it(cc, tmp_path, capsys):
    h, journal = cc
    place(journal, "symlink", tmp_path)
    for argv in (["ls"], ["show", CC_SESSION], ["checkpoints", CC_SESSION]):
        rc, _, err = run(capsys, [*h, *argv])
        warned = [ln for ln in err.splitlines() if "is not a journal sidtui wrote" in ln]
        assert rc == 0 and len(warned) == 1, (argv, err)
        assert str(journal) in warned[0] and "is refused until it is removed" in warned[0]
    rc, out, _ = run(capsys, [*h, "ls", "--json"])
    rows = [r for r in json.loads(out) if "pending_journal" in r]
    assert [r["session_id"] for r in rows] == [CC_SESSION]
    assert "not a journal sidtui wrote" in rows[0]["pending_journal"]["invalid"]
    rc, out, _ = run(capsys, [*h, "check", "--session", CC_SESSION])
    assert len([ln for ln in out.splitlines() if ln.startswith("pending ")]) == 1, out
    assert journal.is_symlink()


@pytest.mark.parametrize("verb", ["undo", "restore", "rewind-code"])
def test_a_journal_whose_sidtui_still_runs_is_refused_alike(cc, capsys, verb):
    """A Claude Code journal sidtui wrote, whose writer (its pid and start time) still
    runs: another sidtui is mid-restore, so every code write and its dry run refuse, as
    sid-code's do; nothing is written."""
    import subprocess
    import sys

    import psutil

    h, journal = cc
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        started = psutil.Process(child.pid).create_time()
        body = {"version": 1, "op": "restore", "pid": child.pid, "pidStarted": started}
        journal.write_text(json.dumps({**body, "token": "t", "claude": {"paths": []}}))
        before = tree(journal.parents[3])
        for dry in ([], ["--dry-run"]):
            code, out, err = run(capsys, [*h, *VERBS[verb], *dry])
            assert code == 1 and not out
            assert f"another sidtui (process {child.pid}) is in the middle" in err, err
        assert tree(journal.parents[3]) == before
    finally:
        child.kill()
        child.wait()

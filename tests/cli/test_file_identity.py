"""Which file a restore replaces, and what the new file keeps: one rule for both sources.

Symlinks and hard-linked files are skipped and said; an edit saved between the plan and the
write is never overwritten (the write compares first); owner and group are kept; no mode
above 0o777 is ever applied, and a mode change shows in the dry run; a file name that is
not valid UTF-8 is refused by the dry run as by the real run.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
from pathlib import Path

import pytest

from sidtui.cli import main
from sidtui.core.checkpoints import restore as restore_mod
from sidtui.core.checkpoints.manager import CheckpointManager
from sidtui.core.claude.code_restore import CodeRestorer
from sidtui.core.claude.layout import ClaudeHome, resolve_session
from sidtui.core.claude.session import open_claude_session
from tests.helpers import CC_SESSION, cc_edit_session, checkpoint_session, snapshot_ms

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="changing a file's owner needs root")
OTHER_UID, OTHER_GID = 4321, 4322


def run(capsys, *argv):
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def _full(rel: str, text: str) -> dict:
    return {
        "filePath": f"@/{rel}",
        "existedBefore": True,
        "type": "full",
        "content": text,
        "compressed": False,
    }


def _index(*entries: dict, modes: dict[str, int] | None = None) -> dict:
    snap = {
        "id": "s1",
        "timestamp": snapshot_ms(1),
        "toolName": "write",
        "toolSummary": ", ".join(e["filePath"] for e in entries),
        **({"sidtuiModes": modes} if modes else {}),
        "files": list(entries),
    }
    return {"sessionId": "x", "createdAt": snapshot_ms(1), "nextId": 2, "snapshots": [snap]}


def _sid_session(tmp_path: Path, files: dict[str, bytes], *entries: dict, **kw):
    return checkpoint_session(tmp_path, _index(*entries, **kw), files)


@pytest.fixture
def cc(tmp_path):
    home = tmp_path / "claude"
    s = cc_edit_session(home, tmp_path / "work" / "app")
    s["home"] = ClaudeHome(home)
    return s


def _restorer(s) -> CodeRestorer:
    h = s["home"]
    return CodeRestorer(open_claude_session(h, resolve_session(h, CC_SESSION)))


def _reasons(files) -> dict[str, tuple[str, str]]:
    return {Path(f.path).name: (f.action, f.reason or "") for f in files}


# --------------------------------------------------------------------------- symlinks (item 6)


def test_a_symlink_alias_of_a_tracked_file_is_skipped_not_written_through(tmp_path, capsys):
    home, project, sid = _sid_session(
        tmp_path, {"config.yaml": b"config now\n"}, _full("notes.txt", "old notes\n")
    )
    (project / "notes.txt").symlink_to("config.yaml")
    for dry in (["--dry-run"], []):
        rc, out, err = run(capsys, "--home", str(home), "restore", sid, "--before", "s1", *dry)
        assert rc == 1, err
        assert "notes.txt: a symbolic link: not written through" in err
        assert "restored" not in out and "config.yaml" not in out
    assert (project / "config.yaml").read_bytes() == b"config now\n"
    assert (project / "notes.txt").is_symlink()


# --------------------------------------------------------------------------- hard links (item 12)


def test_a_hard_linked_file_is_skipped_by_a_sid_code_restore(tmp_path, capsys):
    home, project, sid = _sid_session(tmp_path, {"a.txt": b"A now\n"}, _full("a.txt", "A old\n"))
    os.link(project / "a.txt", project / "twin.txt")
    rc, _, err = run(capsys, "--home", str(home), "restore", sid, "--before", "s1", "--force")
    assert rc == 1 and "a.txt: has 2 hard links: not written" in err, err
    assert (project / "twin.txt").read_bytes() == b"A now\n"
    assert os.stat(project / "a.txt").st_ino == os.stat(project / "twin.txt").st_ino


def test_a_hard_linked_file_already_as_it_was_is_unchanged_not_skipped(cc, tmp_path):
    os.link(cc["b"], tmp_path / "second-name")  # b.txt is already as before c3
    res = _restorer(cc).restore_before("c3")
    assert _reasons(res.files)["b.txt"] == ("unchanged", "")


@ROOT_ONLY
def test_owner_and_group_survive_restore_and_redo_sid_code(tmp_path, capsys):
    home, project, sid = _sid_session(tmp_path, {"a.txt": b"A now\n"}, _full("a.txt", "A old\n"))
    os.chown(project / "a.txt", OTHER_UID, OTHER_GID)
    index = home / "checkpoints" / sid / "index.json"
    os.chown(index, OTHER_UID, OTHER_GID)
    rc, _, err = run(capsys, "--home", str(home), "restore", sid, "--before", "s1", "--force")
    assert rc == 0, err
    for verb in ("restore", "redo"):
        st = os.stat(project / "a.txt")
        assert (st.st_uid, st.st_gid) == (OTHER_UID, OTHER_GID), verb
        assert (os.stat(index).st_uid, os.stat(index).st_gid) == (OTHER_UID, OTHER_GID), verb
        if verb == "restore":
            assert (project / "a.txt").read_bytes() == b"A old\n"
            rc, _, err = run(capsys, "--home", str(home), "redo", sid, "--force")
            assert rc == 0, err
    assert (project / "a.txt").read_bytes() == b"A now\n"


@ROOT_ONLY
def test_owner_and_group_survive_a_claude_code_restore(cc):
    os.chown(cc["a"], OTHER_UID, OTHER_GID)
    _restorer(cc).restore_before("c2")
    assert cc["a"].read_bytes() == b"A1\n"
    st = os.stat(cc["a"])
    assert (st.st_uid, st.st_gid) == (OTHER_UID, OTHER_GID)


# --------------------------------------------------------------------------- modes (item 7)


@pytest.mark.parametrize(
    ("recorded", "applied"), [(0o6777, 0o777), (0o106755, 0o755), (-1, 0o777), (1 << 62, 0)]
)
def test_an_index_cannot_make_a_setuid_file_and_the_dry_run_shows_the_mode(
    tmp_path, capsys, recorded, applied
):
    home, project, sid = _sid_session(
        tmp_path,
        {"run.sh": b"echo now\n"},
        _full("run.sh", "echo old\n"),
        modes={"@/run.sh": recorded},
    )
    os.chmod(project / "run.sh", 0o644)
    rc, out, err = run(
        capsys, "--home", str(home), "restore", sid, "--before", "s1", "--force", "--dry-run"
    )
    assert rc == 0, err
    assert f"old mode 100644\nnew mode 100{applied:03o}\n" in out
    rc, _, err = run(capsys, "--home", str(home), "restore", sid, "--before", "s1", "--force")
    assert rc == 0, err
    assert stat.S_IMODE(os.stat(project / "run.sh").st_mode) == applied


def test_a_claude_code_blob_mode_never_makes_a_setuid_file(cc):
    blob = cc["home"].file_history(CC_SESSION) / cc["blobs"]["a2"]  # a.txt before c2
    os.chmod(blob, 0o6755)
    cc["a"].unlink()  # a file re-created takes the backup's mode
    res = _restorer(cc).restore_before("c2", force=True)
    assert _reasons(res.files)["a.txt"] == ("restored", "")
    assert stat.S_IMODE(os.stat(cc["a"]).st_mode) == 0o755


# --------------------------------------------------------------------------- edits saved meanwhile (item 5)


def _save_meanwhile(monkeypatch, cls, method: str, path: Path, data: bytes) -> None:
    """Between the plan and the writes (while the safety snapshot is saved), a user saves
    ``path``."""
    real = getattr(cls, method)

    def saving(self, *a, **kw):
        path.write_bytes(data)
        return real(self, *a, **kw)

    monkeypatch.setattr(cls, method, saving)


def test_an_edit_saved_during_a_sid_code_restore_is_never_overwritten(
    tmp_path, monkeypatch, capsys
):
    home, project, sid = _sid_session(
        tmp_path,
        {"a.txt": b"A now\n", "b.txt": b"B now\n"},
        _full("a.txt", "A old\n"),
        _full("b.txt", "B old\n"),
    )
    _save_meanwhile(monkeypatch, CheckpointManager, "save_safety", project / "a.txt", b"saved\n")
    rc, _, err = run(capsys, "--home", str(home), "restore", sid, "--before", "s1", "--force")
    assert rc == 1 and "a.txt: changed since sidtui read it" in err, err
    assert (project / "a.txt").read_bytes() == b"saved\n"
    assert (project / "b.txt").read_bytes() == b"B old\n"
    monkeypatch.undo()
    rc, _, err = run(capsys, "--home", str(home), "redo", sid, "--force")
    assert rc == 0, err  # redo gives b.txt back and leaves the saved a.txt as it is
    assert (project / "a.txt").read_bytes() == b"saved\n"
    assert (project / "b.txt").read_bytes() == b"B now\n"


def test_an_edit_saved_right_before_the_replace_is_never_overwritten(tmp_path, monkeypatch, capsys):
    home, project, sid = _sid_session(tmp_path, {"a.txt": b"A now\n"}, _full("a.txt", "A old\n"))
    real = restore_mod.changed_since_plan

    def saving(dir_fd, name, f):
        (project / "a.txt").write_bytes(b"saved\n")
        return real(dir_fd, name, f)

    monkeypatch.setattr(restore_mod, "changed_since_plan", saving)
    rc, _, err = run(capsys, "--home", str(home), "restore", sid, "--before", "s1", "--force")
    assert rc == 1 and "changed since sidtui read it" in err, err
    assert "no file could be written; nothing was changed" in err
    assert (project / "a.txt").read_bytes() == b"saved\n"


def test_an_edit_saved_during_a_claude_code_restore_is_never_overwritten(cc, monkeypatch):
    _save_meanwhile(monkeypatch, CodeRestorer, "_safety", cc["a"], b"saved\n")
    res = _restorer(cc).restore_before("c2")
    assert _reasons(res.files)["a.txt"][0] == "skipped"
    assert "changed since sidtui read it" in _reasons(res.files)["a.txt"][1]
    assert cc["a"].read_bytes() == b"saved\n" and not cc["new"].exists()


# --------------------------------------------------------------------------- non-UTF-8 names (item 10)


def test_a_file_name_that_is_not_utf8_is_refused_by_the_dry_run_too(tmp_path, capsys):
    home, project, sid = _sid_session(
        tmp_path, {"ok.txt": b"ok now\n"}, _full("ok.txt", "ok old\n"), _full("caf@E.txt", "old\n")
    )
    index = home / "checkpoints" / sid / "index.json"
    index.write_bytes(index.read_bytes().replace(b"caf@E", b"caf\\udce9"))
    odd = os.path.join(os.fsencode(project), b"caf\xe9.txt")
    with open(odd, "wb") as fh:
        fh.write(b"now\n")
    for dry in (["--dry-run"], ["--dry-run", "--json"], []):
        rc, out, err = run(capsys, "--home", str(home), "undo", sid, "--force", *dry)
        assert rc == 1, (dry, err)
        assert "internal error" not in err and "Traceback" not in err
        if "--json" in dry:
            files = {f["path"]: f for f in json.loads(out)["files"]}
            assert "not valid UTF-8" in files[f"{project}/caf\udce9.txt"]["reason"]
        else:
            assert "the file name is not valid UTF-8" in err
    with open(odd, "rb") as fh:
        assert fh.read() == b"now\n"
    assert (project / "ok.txt").read_bytes() == b"ok old\n"


# --------------------------------------------------------------------------- unproven drift (minor)

S10 = "20261130-052915-f2217f0e"  # webapp: s2's edit of styles.css, unproven by its results


def test_a_file_whose_last_batch_cannot_be_proven_needs_force(real_home_with_projects, capsys):
    home, projects = real_home_with_projects
    css = projects / "webapp" / "src" / "styles.css"
    css.write_bytes(css.read_bytes() + b"/* my later edit */\n")
    rc, _, err = run(capsys, "--home", str(home), "undo", S10, "--dry-run")
    assert rc == 1 and "a real run is refused" in err, err
    rc, _, err = run(capsys, "--home", str(home), "undo", S10)
    assert rc == 1, err
    assert "1 file(s) whose last change by this session cannot be proven" in err
    assert "styles.css" in err and "nothing was changed — use --force" in err
    assert css.read_bytes().endswith(b"/* my later edit */\n")
    rc, _, err = run(capsys, "--home", str(home), "undo", S10, "--force")
    assert rc == 0, err
    assert not css.read_bytes().endswith(b"/* my later edit */\n")
    # worded as what is known: its change after this session is not proven
    assert "replaced 1 file(s) whose last change by this session cannot be proven" in err
    assert "changed after this session" not in err


def test_a_rewind_words_an_unproven_file_as_what_is_known(real_home_with_projects, capsys):
    """The rewind header and its forced run say "cannot be proven" for a file whose last
    batch is unproven, never "changed after this session" (nobody changed it)."""
    from sidtui.tui.screens.rewind import rewind_drift

    home, projects = real_home_with_projects
    css = projects / "webapp" / "src" / "styles.css"
    code = ["rewind", S10, "--to", "2", "--mode", "code", "--allow-outside-root"]
    rc, out, err = run(capsys, "--home", str(home), *code, "--force", "--dry-run", "--json")
    assert rc == 0, err
    drift = json.loads(out)["drift"]
    assert [(d["path"], d["status"]) for d in drift] == [(str(css), "unknown")]
    (kind,) = rewind_drift(argparse.Namespace(drift=drift))
    assert kind[1].startswith("its last change by this session cannot be proven (s2 (edit)")
    rc, _, err = run(capsys, "--home", str(home), *code, "--force", "--dry-run")
    assert rc == 0, err
    assert "1 file(s) whose last change by this session cannot be proven" in err
    assert "changed after this session" not in err
    before = css.read_bytes()
    rc, _, err = run(capsys, "--home", str(home), *code, "--force")
    assert rc == 0, err
    assert css.read_bytes() != before
    assert "replaced 1 file(s) whose last change by this session cannot be proven" in err
    assert "changed after this session" not in err
    # a file edited after the session is still said so
    css.write_bytes(css.read_bytes() + b"/* mine */\n")
    rc, _, err = run(capsys, "--home", str(home), *code, "--force", "--dry-run")
    assert rc == 0, err
    assert "1 file(s) changed after this session (by you or another session)" in err

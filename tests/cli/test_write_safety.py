"""Writes on a hostile disk: every mutating verb stays inside the project and never lies.

Planted temp names, a directory swapped between the check and the write, a root taken from a
hostile ``cwd``, killed forks and undos, a marker appended into a half-written record, mode
bits, safety-snapshot size, and drift (files changed after the session). CLI-level where the
behaviour is the CLI's; a kill is simulated by raising :class:`Killed` (a ``BaseException``)
from a patched ``os`` call, so no ``except Exception`` can swallow it.
"""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from pathlib import Path

import orjson
import pytest

from sidtui.cli import main
from sidtui.core.transcript.writer import flush_pending_writes

S01 = "20261130-052907-9ff3799b"  # webapp: s1 login.ts+README.md, s2 validate*, s3 login.ts
S11 = "20261130-052918-63b1c5f8"  # cli-tool: medium.txt (1,500 lines) in s9/s10
S16 = "20261130-052921-ad7240fb"  # legacy-proj: unloadable (torn line), salvageable
WEBAPP_SESSIONS = "sessions/tmp-sidtui-fixture-projects-webapp"


class Killed(BaseException):
    """Stands in for SIGKILL: nothing after it runs (``except Exception`` cannot catch it)."""


def run(capsys, *argv):
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def files_under(root: Path) -> dict[str, bytes]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.is_symlink():
            out[str(p.relative_to(root))] = p.read_bytes()
    return out


def session_files(home: Path, folder: str = WEBAPP_SESSIONS) -> set[str]:
    return {p.name for p in (home / folder).iterdir() if p.name.endswith((".jsonl", ".json"))}


def hook_rename(mp, on_rename):
    """Call ``on_rename(dst_name, do_rename)`` for every os.replace/os.rename."""
    real_replace, real_rename = os.replace, os.rename

    def wrap(real):
        def f(src, dst, *a, **kw):
            return on_rename(os.path.basename(os.fsdecode(dst)), lambda: real(src, dst, *a, **kw))

        return f

    mp.setattr(os, "replace", wrap(real_replace))
    mp.setattr(os, "rename", wrap(real_rename))


# --------------------------------------------------------------------------- 1. planted temp names


def test_planted_temp_symlinks_never_redirect_a_restore(real_home_with_projects, tmp_path, capsys):
    home, projects = real_home_with_projects
    src = projects / "webapp" / "src"
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.txt"
    victim.write_text("keep me\n")
    # The old predictable names: .NAME.sidtui-PID.tmp (this process runs the verb).
    pid = os.getpid()
    for folder, name in [
        (src, "login.ts"),
        (src, "validate.ts"),
        (src, "validate.test.ts"),
        (projects / "webapp", "README.md"),
        (home / "checkpoints" / S01, "index.json"),
    ]:
        (folder / f".{name}.sidtui-{pid}.tmp").symlink_to(victim)
    rc, _, err = run(capsys, "--home", str(home), "restore", S01, "--before", "s1", "--force")
    assert rc == 0, err
    assert victim.read_text() == "keep me\n"
    for name in ("login.ts", "validate.ts"):
        st = os.lstat(src / name)
        assert stat.S_ISREG(st.st_mode), f"{name} became a symlink"
    assert (src / "validate.ts").read_text().startswith("export function isNonEmpty")
    index = home / "checkpoints" / S01 / "index.json"
    assert stat.S_ISREG(os.lstat(index).st_mode)
    assert json.loads(index.read_text())["snapshots"][-1]["toolName"] == "sidtui-restore"


# --------------------------------------------------------------------------- 2. directory swap


def _swap_to_symlink(folder: Path, target: Path) -> None:
    os.rename(folder, folder.with_name(folder.name + ".moved"))
    folder.symlink_to(target, target_is_directory=True)


def test_directory_swapped_after_the_safety_snapshot_cannot_redirect_writes(
    real_home_with_projects, tmp_path, monkeypatch, capsys
):
    home, projects = real_home_with_projects
    src = projects / "webapp" / "src"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "validate.test.ts").write_text("an outside file named like a project file\n")
    before_outside = files_under(outside)
    swapped = []

    def on_rename(name, do):
        do()
        if name == "index.json" and not swapped:  # the safety snapshot is saved: swap now
            swapped.append(1)
            _swap_to_symlink(src, outside)

    with pytest.MonkeyPatch.context() as mp:
        hook_rename(mp, on_rename)
        rc, _, err = run(capsys, "--home", str(home), "restore", S01, "--before", "s1", "--force")
    assert swapped
    assert files_under(outside) == before_outside, "a write went through the swapped folder"
    assert rc == 1 and "src" in err  # the files under src/ were skipped, saying why


def test_thread_swapping_a_folder_during_restores_never_writes_outside(tmp_path, monkeypatch):
    from sidtui.core.checkpoints.manager import CheckpointManager

    monkeypatch.setattr(os, "fsync", lambda fd: None)  # about paths, not durability: cheap

    root = tmp_path / "proj"
    src = root / "src"
    src.mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    names = [f"f{i:02d}.txt" for i in range(40)]
    for n in names:
        (src / n).write_text(f"{n} before\n")
        (outside / n).write_text("outside\n")
    mgr = CheckpointManager(
        tmp_path / "ckpt" / "index.json", "s", project_root=root, clock=lambda: 1
    )
    mgr.create_snapshot([str(src / n) for n in names], "edit", "batch")
    for n in names:
        (src / n).write_text(f"{n} after the agent\n")
    before_outside = files_under(outside)
    moved = root / "src.real"
    stop = threading.Event()

    def swapper():  # src/ is a folder or a symlink to outside/, flipping all the time
        while not stop.is_set():
            try:
                os.rename(src, moved)
                src.symlink_to(outside, target_is_directory=True)
                os.unlink(src)
                os.rename(moved, src)
            except OSError:
                pass

    t = threading.Thread(target=swapper, daemon=True)
    t.start()
    try:
        for i in range(30):
            if (j := mgr.journal) is not None:  # a write the swap failed part-way: finish
                mgr.finish_journal(j)  # it first, as every verb does (it stays if it fails)
                assert files_under(outside) == before_outside, f"trial {i} finish wrote outside"
            if mgr.journal is not None:
                continue
            if i % 2 == 0:
                mgr.rollback_from(0, force=True)
            else:
                mgr.redo(force=True)
            assert files_under(outside) == before_outside, f"trial {i} wrote outside"
    finally:
        stop.set()
        t.join()
    folders = [d for d in (src, moved) if d.is_dir() and not d.is_symlink()]
    for n in names:  # every project file is wholly one of its two versions
        found = [(d / n).read_text() for d in folders if (d / n).exists()]
        assert found, (n, [d.exists() for d in folders])
        # The current file is read through the folder fds, as writes go: an outside file's
        # bytes never become the safety snapshot's "current" content for redo to copy in.
        assert all(t in (f"{n} before\n", f"{n} after the agent\n") for t in found), (n, found)


def _swap_after_confine(mp, module, folder: Path, target: Path, name: str) -> list[str]:
    """Patch ``module.confine`` so ``folder`` is a symlink to ``target`` from just after the
    check of ``folder/name`` until the next check: the read of that file sees the swap."""
    real_confine = module.confine
    moved = folder.with_name(folder.name + ".real")
    swaps: list[str] = []

    def confine(path, *a, **kw):
        if folder.is_symlink():  # undo the swap before the next check
            folder.unlink()
            os.rename(moved, folder)
        out = real_confine(path, *a, **kw)
        if os.path.basename(path) == name and not swaps:
            swaps.append(path)
            os.rename(folder, moved)
            folder.symlink_to(target, target_is_directory=True)
        return out

    mp.setattr(module, "confine", confine)
    return swaps


def test_a_folder_swapped_between_the_check_and_the_read_is_not_followed(tmp_path):
    from sidtui.core.checkpoints import restore
    from sidtui.core.checkpoints.manager import CheckpointManager

    root = tmp_path / "proj"
    src = root / "src"
    src.mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    for n in ("a.txt", "b.txt"):
        (src / n).write_text(f"{n} before\n")
        (outside / n).write_text("outside\n")
    mgr = CheckpointManager(tmp_path / "ck" / "index.json", "s", project_root=root, clock=lambda: 1)
    mgr.create_snapshot([str(src / "a.txt"), str(src / "b.txt")], "edit", "batch")
    for n in ("a.txt", "b.txt"):
        (src / n).write_text(f"{n} after\n")
    with pytest.MonkeyPatch.context() as mp:
        swaps = _swap_after_confine(mp, restore, src, outside, "a.txt")
        res = mgr.rollback_from(0, force=True)
    assert swaps and not src.is_symlink()
    a, b = res.files
    assert a.action == "skipped" and "not followed" in (a.reason or ""), a
    assert a.old is None  # the outside bytes were never read as a.txt's content
    assert b.action == "restored"
    mgr.redo(force=True)  # puts back what the safety snapshot kept: never outside bytes
    assert (src / "a.txt").read_text() == "a.txt after\n"
    assert (src / "b.txt").read_text() == "b.txt after\n"
    assert b"outside" not in (tmp_path / "ck" / "index.json").read_bytes()
    assert (outside / "a.txt").read_text() == "outside\n"


def test_a_current_file_above_the_ceiling_is_skipped_not_read(tmp_path, monkeypatch):
    from sidtui.core.checkpoints.manager import CheckpointManager

    root = tmp_path / "proj"
    root.mkdir()
    f = root / "big.txt"
    f.write_text("small\n")
    mgr = CheckpointManager(tmp_path / "ck" / "index.json", "s", project_root=root, clock=lambda: 1)
    mgr.create_snapshot([str(f)], "edit", "batch")
    f.write_bytes(b"x" * 4096)
    monkeypatch.setenv("SIDTUI_MAX_INFLATE_BYTES", "1024")
    res = mgr.rollback_from(0, force=True)
    (fr,) = res.files
    assert fr.action == "skipped" and "SIDTUI_MAX_INFLATE_BYTES" in (fr.reason or ""), fr
    assert f.read_bytes() == b"x" * 4096


def test_a_fifo_at_a_tracked_path_is_skipped_not_waited_for(real_home_with_projects, capsys):
    home, projects = real_home_with_projects
    login = projects / "webapp" / "src" / "login.ts"
    login.unlink()
    os.mkfifo(login)  # opening it for reading would block until a writer comes
    rc, _, err = run(capsys, "--home", str(home), "undo", S01, "--dry-run", "--force")
    assert rc == 1 and "FIFO" in err
    assert stat.S_ISFIFO(os.lstat(login).st_mode)


# --------------------------------------------------------------------------- 3. the project root


def _set_cwd(home: Path, sid: str, cwd: str, folder: str = WEBAPP_SESSIONS) -> None:
    path = home / folder / f"{sid}.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    out = []
    for ln in lines:
        d = orjson.loads(ln)
        if d.get("type") == "session_start" or "cwd" in d:
            d["cwd"] = cwd
        out.append(orjson.dumps(d) + b"\n")
    path.write_bytes(b"".join(out))


@pytest.mark.parametrize("cwd", ["/", ".", "relative/dir"])
def test_root_of_slash_or_relative_cwd_is_refused(
    real_home_with_projects, monkeypatch, capsys, cwd
):
    home, projects = real_home_with_projects
    _set_cwd(home, S01, cwd)
    monkeypatch.chdir(projects / "webapp")
    before = files_under(projects)
    rc, out, err = run(capsys, "--home", str(home), "restore", S01, "--before", "s1", "--force")
    assert rc == 1 and "root" in err, (rc, out, err)
    assert files_under(projects) == before
    # A dry run says which root it would use, and that it is refused.
    rc, out, err = run(capsys, "--home", str(home), "restore", S01, "--before", "s1", "--dry-run")
    assert "root" in (out + err)
    assert files_under(projects) == before


def test_root_outside_home_without_git_is_refused_unless_allowed(
    real_home_with_projects, tmp_path, monkeypatch, capsys
):
    home, projects = real_home_with_projects
    user_home = tmp_path / "user-home"
    user_home.mkdir()
    monkeypatch.setenv("HOME", str(user_home))  # the projects are outside it, and not git
    before = files_under(projects)
    args = ["--home", str(home), "restore", S01, "--before", "s1", "--force"]
    rc, _, err = run(capsys, *args)
    assert rc == 1 and "root" in err and "--allow-outside-root" in err
    assert files_under(projects) == before
    rc, out, err = run(capsys, *args, "--allow-outside-root")
    assert rc == 0, err
    assert f"project root: {projects / 'webapp'}" in out + err
    # Inside a git work tree the git top level is a root even outside the home.
    run(capsys, "--home", str(home), "redo", S01, "--force", "--allow-outside-root")
    (projects / "webapp" / ".git").mkdir()
    rc, out, err = run(capsys, *args)
    assert rc == 0, err
    assert f"project root: {projects / 'webapp'}" in out + err


def test_every_plan_names_its_root(real_home_with_projects, capsys):
    home, projects = real_home_with_projects
    root = projects / "webapp"
    rc, out, err = run(capsys, "--home", str(home), "undo", S01, "--dry-run", "--force")
    assert rc == 0 and f"project root: {root}" in out + err
    rc, out, _ = run(capsys, "--home", str(home), "undo", S01, "--dry-run", "--json")
    assert json.loads(out)["root"] == str(root)
    rc, out, _ = run(capsys, "--home", str(home), "rewind", S01, "--to", "3", "--dry-run", "--json")
    assert json.loads(out)["root"] == str(root)


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_root_flag_must_be_a_folder(real_home_with_projects, tmp_path, capsys, kind):
    home, projects = real_home_with_projects
    bad = tmp_path / "nope"
    if kind == "file":
        bad.write_text("x")
    before = files_under(projects)
    rc, _, err = run(capsys, "--home", str(home), "undo", S01, "--root", str(bad), "--force")
    assert rc == 2 and str(bad) in err
    assert files_under(projects) == before


# --------------------------------------------------------------------------- 11. killed fork/salvage


def _complete_looking(home: Path, folder: str, before: set[str]) -> list[str]:
    """New transcripts the CLI lists (a kill must leave none that looks complete)."""
    return sorted(session_files(home, folder) - before)


def test_fork_killed_before_its_checkpoints_leaves_no_complete_looking_copy(
    real_home_with_projects, monkeypatch, capsys
):
    home, _ = real_home_with_projects
    before = session_files(home)
    before_ckpt = {p.name for p in (home / "checkpoints").iterdir()}

    def on_rename(name, do):
        if name == "index.json":
            raise Killed  # the child's index is about to land
        return do()

    with pytest.MonkeyPatch.context() as mp:
        hook_rename(mp, on_rename)
        with pytest.raises(Killed):
            main(["--home", str(home), "fork", S01])
    flush_pending_writes()  # what the exit hook would still write
    new = _complete_looking(home, WEBAPP_SESSIONS, before)
    for name in new:  # anything visible must be whole: transcript and checkpoints
        assert (home / "checkpoints" / name.removesuffix(".jsonl") / "index.json").exists()
    # The next fork finishes normally and there is exactly one more complete session.
    capsys.readouterr()
    rc, out, err = run(capsys, "--home", str(home), "fork", S01, "--json")
    assert rc == 0, err
    sid = json.loads(out)["session_id"]
    assert _complete_looking(home, WEBAPP_SESSIONS, before) == [f"{sid}.jsonl"] or new
    after_ckpt = {p.name for p in (home / "checkpoints").iterdir()}
    assert after_ckpt - before_ckpt <= {sid, *(n.removesuffix(".jsonl") for n in new)}


@pytest.mark.parametrize("verb", ["fork", "salvage"])
def test_copy_killed_mid_write_is_never_listed(real_home_with_projects, monkeypatch, capsys, verb):
    home, _ = real_home_with_projects
    sid, folder = (
        (S01, WEBAPP_SESSIONS)
        if verb == "fork"
        else (S16, "sessions/tmp-sidtui-fixture-projects-legacy-proj")
    )
    before = session_files(home, folder)
    real_write = os.write
    writes = []

    def write(fd, data):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if (home / folder).as_posix() in target and sid not in os.path.basename(target):
            writes.append(target)
            if len(writes) == 2:  # the copied history: half of it lands, then the kill
                real_write(fd, bytes(data)[: len(data) // 2])
                raise Killed
        return real_write(fd, data)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(os, "write", write)
        with pytest.raises(Killed):
            main(["--home", str(home), verb, sid])
    flush_pending_writes()
    assert writes, "the copy was never written"
    assert _complete_looking(home, folder, before) == []
    rc, out, err = run(capsys, "--home", str(home), "ls", "--json")
    assert rc == 0, err


# --------------------------------------------------------------------------- 12. journals


def _truth(session: str, snapshot: str, path_tail: str) -> str:
    from tests.helpers import REAL_ORACLE

    data = json.loads(
        (REAL_ORACLE / "checkpoints" / session / "index.json.oracle.json").read_text()
    )
    snap = next(s for s in data["snapshots"] if s["id"] == snapshot)
    key = next(k for k in snap["files"] if k.endswith(path_tail))
    return snap["files"][key]["truthAtSnapshotTime"]["content"]


def test_rerunning_a_killed_undo_finishes_it_instead_of_going_further_back(
    real_home_with_projects, monkeypatch, capsys
):
    home, projects = real_home_with_projects
    src = projects / "webapp" / "src"
    before = files_under(projects)

    def on_rename(name, do):
        if name == "login.ts":
            raise Killed  # after the safety snapshot, before the file lands
        return do()

    with pytest.MonkeyPatch.context() as mp:
        hook_rename(mp, on_rename)
        with pytest.raises(Killed):
            main(["--home", str(home), "undo", S01, "--force"])
    capsys.readouterr()
    rc, out, err = run(capsys, "--home", str(home), "undo", S01, "--force")
    assert rc == 0, err
    assert "interrupted" in out + err
    # The state of one undo (s3 taken back), not two (s2 also taken back).
    assert (src / "login.ts").read_text() == _truth(S01, "s3", "src/login.ts")
    for name in ("validate.ts", "validate.test.ts"):
        assert (src / name).read_bytes() == before[f"webapp/src/{name}"]
    # And redo takes that one undo back.
    rc, _, err = run(capsys, "--home", str(home), "redo", S01, "--force")
    assert rc == 0, err
    assert files_under(projects) == before


@pytest.mark.parametrize("verb", [["undo"], ["restore", "--before", "s1"], ["rewind", "--to", "2"]])
def test_a_run_killed_before_its_safety_snapshot_is_said_once(
    real_home_with_projects, capsys, verb
):
    home, projects = real_home_with_projects
    before = files_under(projects)

    def on_rename(name, do):
        if name == "index.json":
            raise Killed  # the journal is written; the safety snapshot never lands
        return do()

    argv = ["--home", str(home), verb[0], S01, *verb[1:], "--force"]
    with pytest.MonkeyPatch.context() as mp:
        hook_rename(mp, on_rename)
        with pytest.raises(Killed):
            main(argv)
    capsys.readouterr()
    assert (home / "checkpoints" / S01 / "sidtui-journal.json").exists()
    assert files_under(projects) == before
    rc, out, err = run(capsys, *argv)
    assert rc == 0, err
    text = " ".join((out + err).split())  # a warning may wrap at the terminal width
    assert text.count("interrupted") == 1, text
    assert text.count("changed nothing") + text.count("not changed") == 1, text
    assert not (home / "checkpoints" / S01 / "sidtui-journal.json").exists()


def test_rewind_killed_after_files_is_finished_by_the_next_verb(
    real_home_with_projects, monkeypatch, capsys
):
    home, projects = real_home_with_projects
    transcript = home / WEBAPP_SESSIONS / f"{S01}.jsonl"

    def on_rename(name, do):
        do()
        if name == "login.ts":
            raise Killed  # the files are rewound; the marker never lands

    with pytest.MonkeyPatch.context() as mp:
        hook_rename(mp, on_rename)
        with pytest.raises(Killed):
            main(["--home", str(home), "rewind", S01, "--to", "3", "--mode", "both", "--force"])
    capsys.readouterr()
    assert orjson.loads(transcript.read_bytes().splitlines()[-1])["type"] == "session_end"
    rc, out, err = run(capsys, "--home", str(home), "undo", S01, "--force")
    assert "interrupted rewind" in out + err, (rc, out, err)
    last = orjson.loads(transcript.read_bytes().splitlines()[-1])
    assert last["type"] == "metadata" and last["key"] == "rewind"
    rc, out, _ = run(capsys, "--home", str(home), "show", S01, "--json")
    assert len(json.loads(out)["messages"]) == 16


# --------------------------------------------------------------------------- 13. torn tail


def test_marker_waits_for_a_half_written_record(real_home_with_projects, monkeypatch, capsys):
    home, _ = real_home_with_projects
    path = home / WEBAPP_SESSIONS / f"{S01}.jsonl"
    tail = orjson.loads(path.read_bytes().splitlines()[-1])
    rec = orjson.dumps(
        {
            "type": "metadata",
            "key": "session_name",
            "value": "written in two write() calls",
            "timestamp": "2026-11-29T21:40:00.000Z",
            "uuid": "7e57a11c-0000-4000-8000-000000000001",
            "parentUuid": tail["uuid"],
        }
    )
    first, rest = rec[:40], rec[40:] + b"\n"
    with open(path, "ab") as fh:
        fh.write(first)
    done = []

    def second_write(_seconds):  # the writer's second write() lands while we wait
        if not done:
            done.append(1)
            with open(path, "ab") as fh:
                fh.write(rest)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(time, "sleep", second_write)
        rc, out, err = run(
            capsys, "--home", str(home), "rewind", S01, "--to", "3", "--mode", "conversation"
        )
    if not done:
        with open(path, "ab") as fh:
            fh.write(rest)
    lines = path.read_bytes().splitlines()
    for ln in lines:
        orjson.loads(ln)  # no line is torn or glued
    assert rec in lines
    if rc == 0:
        assert orjson.loads(lines[-1])["key"] == "rewind"
    else:  # refusing is allowed too, with a clear message and nothing appended
        assert "record" in err and lines[-1] == rec


# --------------------------------------------------------------------------- 15. mode bits


def test_deleted_then_recreated_file_keeps_its_mode(real_home_with_projects, capsys):
    home, projects = real_home_with_projects
    test_file = projects / "webapp" / "src" / "validate.test.ts"
    test_file.chmod(0o755)
    before = test_file.read_bytes()
    rc, _, err = run(capsys, "--home", str(home), "restore", S01, "--before", "s1", "--force")
    assert rc == 0, err
    assert not test_file.exists()  # s1 predates it: deleted
    rc, _, err = run(capsys, "--home", str(home), "redo", S01, "--force")
    assert rc == 0, err
    assert test_file.read_bytes() == before
    assert stat.S_IMODE(test_file.stat().st_mode) == 0o755


# --------------------------------------------------------------------------- 16. safety size


def test_undo_redo_does_not_add_an_uncompressed_copy_each_time(real_home_with_projects, capsys):
    home, projects = real_home_with_projects
    index = home / "checkpoints" / S11 / "index.json"
    medium = projects / "cli-tool" / "data" / "medium.txt"
    original = medium.read_bytes()
    size0 = index.stat().st_size
    for i in range(8):
        verb = "undo" if i % 2 == 0 else "redo"
        rc, _, err = run(capsys, "--home", str(home), verb, S11, "--force")
        assert rc == 0, err
    assert medium.read_bytes() == original  # four round trips: back where it started
    growth = index.stat().st_size - size0
    # Eight safety snapshots of a 1,500-line file: compressed, far less than eight copies
    # (the agent's diff format stores every kept line verbatim: 16 x the file before).
    assert growth < 4 * len(original), (growth, len(original))
    safety = [
        s for s in json.loads(index.read_text())["snapshots"] if s["toolName"] == "sidtui-restore"
    ]
    assert len(safety) == 8
    assert all(e["type"] == "full" and e["compressed"] for s in safety for e in s["files"])


# --------------------------------------------------------------------------- 17. drift


def test_undo_of_a_file_changed_after_the_session_needs_force(real_home_with_projects, capsys):
    home, projects = real_home_with_projects
    login = projects / "webapp" / "src" / "login.ts"
    # S05 (a fork of S01) edited login.ts after S01's last batch: on disk it is S05's.
    current = login.read_bytes()
    rc, out, err = run(capsys, "--home", str(home), "undo", S01)
    assert rc == 1 and "changed after this session" in err, (rc, out, err)
    assert "login.ts" in err and login.read_bytes() == current
    real_err = err
    rc, out, err = run(capsys, "--home", str(home), "undo", S01, "--dry-run")  # as the real run
    assert rc == 1 and "changed after this session" in err
    refusal = real_err.split("sidtui: error: ", 1)[1].strip()
    assert f"sidtui: dry run: a real run is refused: {refusal}" in err
    rc, out, _ = run(capsys, "--home", str(home), "undo", S01, "--dry-run", "--json")
    doc = json.loads(out)
    assert rc == 1 and doc["refusal"] == refusal
    drift = {f["path"].rsplit("/", 1)[1]: f["drift"] for f in doc["files"]}
    assert drift["login.ts"] == "changed"
    rc, out, err = run(capsys, "--home", str(home), "undo", S01, "--force")
    assert rc == 0, err
    assert login.read_text() == _truth(S01, "s3", "src/login.ts")
    # The replaced change is kept in the safety snapshot: redo brings it back.
    rc, _, err = run(capsys, "--home", str(home), "redo", S01, "--force")
    assert rc == 0 and login.read_bytes() == current


def test_undo_without_drift_needs_no_force(real_home_with_projects, capsys):
    home, projects = real_home_with_projects
    s05 = "20261130-052911-4ee72b6a"  # its last batch s4 left login.ts as it is on disk
    rc, out, err = run(capsys, "--home", str(home), "undo", s05)
    assert rc == 0, (out, err)
    assert "changed after this session" not in out + err


def test_hand_edit_after_the_last_batch_is_drift_for_rewind(real_home_with_projects, capsys):
    home, projects = real_home_with_projects
    s05 = "20261130-052911-4ee72b6a"
    login = projects / "webapp" / "src" / "login.ts"
    login.write_bytes(login.read_bytes() + b"// a hand edit\n")
    edited = login.read_bytes()
    rc, out, err = run(capsys, "--home", str(home), "rewind", s05, "--to", "4", "--mode", "code")
    assert rc == 1 and "changed after this session" in out + err, (rc, out, err)
    assert login.read_bytes() == edited
    rc, out, err = run(
        capsys, "--home", str(home), "rewind", s05, "--to", "4", "--mode", "code", "--dry-run"
    )
    assert rc == 1 and "sidtui: dry run: a real run is refused: " in err
    assert "changed after this session" in err and "login.ts" in err
    args = ["rewind", s05, "--to", "4", "--mode", "code", "--dry-run", "--force"]
    rc, out, err = run(capsys, "--home", str(home), *args)
    assert rc == 0 and "a real run is refused" not in err


# --------------------------------------------------------------------------- one liveness rule


def _copy_session_as(home: Path, sid: str, new_id: str) -> None:
    src = home / WEBAPP_SESSIONS / f"{sid}.jsonl"
    (home / WEBAPP_SESSIONS / f"{new_id}.jsonl").write_bytes(src.read_bytes())
    ckpt = home / "checkpoints" / new_id
    ckpt.mkdir()
    (ckpt / "index.json").write_bytes((home / "checkpoints" / sid / "index.json").read_bytes())


def _register(home: Path, session_id: str) -> None:
    (home / "active-sessions" / f"{session_id}.json").write_text(
        json.dumps(
            {
                "sessionId": session_id,
                "pid": os.getpid(),
                "kind": "interactive",
                "cwd": "/",
                "startedAt": int(time.time() * 1000),
            }
        )
    )


@pytest.mark.parametrize("registered", ["stem", "session_start"])
def test_one_rule_for_whose_registration_it_is(real_home_with_projects, capsys, registered):
    home, projects = real_home_with_projects
    copy_id = "20261201-000000-c0ffee00"  # the file's stem; session_start still says S01
    _copy_session_as(home, S01, copy_id)
    _register(home, copy_id if registered == "stem" else S01)
    before = files_under(projects)
    transcript = home / WEBAPP_SESSIONS / f"{copy_id}.jsonl"
    before_t = transcript.read_bytes()
    for argv in (
        ["undo", copy_id],
        ["restore", copy_id, "--before", "s1"],
        ["rewind", copy_id, "--to", "3", "--mode", "conversation"],
    ):
        rc, _, err = run(capsys, "--home", str(home), *argv)
        assert rc == 1 and "live" in err, (argv, rc, err)
    assert files_under(projects) == before and transcript.read_bytes() == before_t

"""A write stopped part-way (Ctrl-C, an I/O error) never loses a file's contents, leaves a
journal the read verbs report, and the next run finishes it."""

from __future__ import annotations

import errno
import os
import shutil
import signal
from pathlib import Path

import pytest

from sidtui.cli import main
from tests.helpers import (
    CC_SESSION,
    file_tree,
    lost_bytes,
    run_forked,
    small_home,
    snapshot_contents,
)

S01 = "20261130-052907-9ff3799b"
WEBAPP = "tmp-sidtui-fixture-projects-webapp"
FORK_BOTH = ["rewind", S01, "--to", "2", "--mode", "both", "--fork", "--force"]


def _run(tmp_path: Path, name: str) -> Path:
    run = tmp_path / name
    small_home(run, [(WEBAPP, S01)], ["webapp"])
    return run


def _argv(run: Path, *verb: str) -> list[str]:
    return ["--home", str(run / "home"), *verb]


def _intended(tmp_path: Path, verb: list[str]) -> dict[str, bytes]:
    clean = _run(tmp_path, "clean")
    assert main(_argv(clean, *verb)) == 0
    return file_tree(clean / "projects")


def _sigint_once_changed(project: Path, before: dict[str, bytes]):
    """A hook that sends this process SIGINT at the first write point after a project
    file first differs from ``before``."""
    fired = []

    def hook(kind: str, where: str) -> None:
        if not fired and file_tree(project) != before:
            fired.append(kind)
            os.kill(os.getpid(), signal.SIGINT)

    return hook


def test_ctrl_c_after_the_first_file_of_a_rewind_fork_loses_nothing(tmp_path, capsys):
    intended = _intended(tmp_path, FORK_BOTH)
    run = _run(tmp_path, "run")
    before = file_tree(run / "projects")
    rc, err = run_forked(_argv(run, *FORK_BOTH), _sigint_once_changed(run / "projects", before))
    assert rc == 130
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "half done" in lines[0] and "safety snapshot" in lines[0], err
    now = file_tree(run / "projects")
    assert now != before  # the interrupt came after a file was replaced
    assert not lost_bytes(before, now, snapshot_contents(run / "home" / "checkpoints"))
    # the read verbs report it pending
    capsys.readouterr()
    assert main(_argv(run, "ls")) == 0
    out = capsys.readouterr()
    assert "interrupted sidtui rewind --fork" in out.out + out.err
    # the same command again finishes it: the files rewound, the fork written
    assert main(_argv(run, *FORK_BOTH)) == 0
    assert file_tree(run / "projects") == intended
    forks = [p for p in (run / "home" / "sessions" / WEBAPP).glob("*.jsonl") if p.stem != S01]
    assert len(forks) == 1
    assert not list((run / "home" / "checkpoints").rglob("sidtui-journal.json"))
    # and its safety snapshot takes it back
    capsys.readouterr()
    assert main(_argv(run, "redo", forks[0].stem, "--force")) == 0
    assert file_tree(run / "projects") == before


def test_eio_at_the_folder_fsync_after_the_fork_rename_keeps_the_fork(tmp_path):
    intended = _intended(tmp_path, FORK_BOTH)
    run = _run(tmp_path, "run")

    def hook(kind: str, where: str) -> None:
        if kind == "fsync-dir":
            raise OSError(errno.EIO, "Input/output error")

    rc, err = run_forked(_argv(run, *FORK_BOTH), hook)
    assert rc == 0, err
    assert file_tree(run / "projects") == intended
    forks = [p for p in (run / "home" / "sessions" / WEBAPP).glob("*.jsonl") if p.stem != S01]
    assert len(forks) == 1
    assert (run / "home" / "checkpoints" / forks[0].stem / "index.json").exists()


def test_ctrl_c_before_any_write_says_nothing_is_half_done(tmp_path):
    run = _run(tmp_path, "run")
    before = shutil.copytree(run, tmp_path / "copy", symlinks=True)

    def hook(kind: str, where: str) -> None:
        os.kill(os.getpid(), signal.SIGINT)

    rc, err = run_forked(_argv(run, "undo", S01, "--force"), hook)
    assert rc == 130
    assert (
        err.strip().splitlines()
        == [
            "sidtui: interrupted: the undo of " + S01 + " had changed no file yet; the next "
            "undo, redo, restore or rewind of " + S01 + " finishes it (or drops it)"
        ]
        or err.strip() == "sidtui: interrupted: no write was left half done"
    ), err
    assert file_tree(run / "projects") == file_tree(before / "projects")


def test_a_redo_failing_at_the_second_file_is_finished_by_the_next_redo(
    tmp_path, monkeypatch, capsys
):
    from sidtui.core.base import safefs

    run = _run(tmp_path, "run")
    before = file_tree(run / "projects")
    assert main(_argv(run, "restore", S01, "--before", "s1", "--force")) == 0
    undone = file_tree(run / "projects")
    assert undone != before
    capsys.readouterr()
    monkeypatch.setattr(safefs, "fault_hook", _second_write_fails(run / "projects"))
    assert main(_argv(run, "redo", S01, "--force")) == 1
    err = capsys.readouterr().err
    assert "unfinished" in err and "No space left" in err, err
    now = file_tree(run / "projects")
    assert now not in (before, undone)  # part-way
    assert not lost_bytes(undone, now, snapshot_contents(run / "home" / "checkpoints"))
    monkeypatch.setattr(safefs, "fault_hook", None)
    assert main(_argv(run, "ls")) == 0
    assert "interrupted sidtui redo" in "".join(capsys.readouterr())
    assert main(_argv(run, "redo", S01, "--force")) == 0  # finishes the redo, only that
    assert file_tree(run / "projects") == before
    assert not list((run / "home" / "checkpoints").rglob("sidtui-journal.json"))
    capsys.readouterr()
    assert main(_argv(run, "undo", S01, "--force")) == 0  # and undo/redo go on as usual
    assert file_tree(run / "projects") != before


def _second_write_fails(project: Path):
    """ENOSPC at the rename of the second project file a run writes."""
    seen: list[str] = []

    def hook(kind: str, where: str) -> None:
        if kind != "rename" or not where.startswith(str(project)):
            return
        seen.append(where)
        if len(seen) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")

    return hook


def test_a_claude_code_restore_failing_part_way_is_finished_by_the_next_verb(
    tmp_path, monkeypatch, capsys
):
    from sidtui.core.base import safefs
    from tests.helpers import CC_SESSION, cc_edit_session

    home, project = tmp_path / "r" / "claude", tmp_path / "r" / "work" / "app"
    cc_edit_session(home, project)
    ch = ["--claude-home", str(home)]
    clean = tmp_path / "c"
    cc_edit_session(clean / "claude", clean / "work" / "app")
    before = file_tree(project)
    restore = ["restore", CC_SESSION, "--before", "c2", "--force"]
    assert main(["--claude-home", str(clean / "claude"), *restore]) == 0
    capsys.readouterr()
    monkeypatch.setattr(safefs, "fault_hook", _second_write_fails(project))
    assert main([*ch, *restore]) == 1
    err = capsys.readouterr().err
    assert "unfinished" in err and "No space left" in err, err
    now = file_tree(project)
    assert not lost_bytes(before, now, snapshot_contents(home / "sidtui"))
    monkeypatch.setattr(safefs, "fault_hook", None)
    assert main([*ch, "redo", CC_SESSION, "--force"]) == 0  # finishes the restore, only that
    assert file_tree(project) == file_tree(clean / "work" / "app")
    assert not list((home / "sidtui").rglob("sidtui-journal.json"))
    capsys.readouterr()
    assert main([*ch, "redo", CC_SESSION, "--force"]) == 0  # then takes it back
    assert file_tree(project) == before


def _cc(tmp_path: Path, name: str):
    from tests.helpers import cc_edit_session

    home, project = tmp_path / name / "claude", tmp_path / name / "work" / "app"
    s = cc_edit_session(home, project)
    return home, project, s["path"].parent


def _kill_at(kind: str, suffix: str):
    def hook(k: str, where: str) -> None:
        if k == kind and where.endswith(suffix):
            os.kill(os.getpid(), signal.SIGKILL)

    return hook


def _leftovers(home: Path, folder: Path) -> list[str]:
    names = [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]
    sessions = {p.stem for p in folder.glob("*.jsonl")}
    names += [d.name for d in (home / "file-history").iterdir() if d.name not in sessions]
    forks = home / "sidtui" / "forks"
    names += [p.name for p in forks.iterdir()] if forks.exists() else []
    return names


def test_a_killed_claude_code_fork_leaves_nothing_the_next_run_does_not_clean(tmp_path, capsys):
    from tests.helpers import CC_SESSION

    home, project, folder = _cc(tmp_path, "r")
    argv = ["--claude-home", str(home), "rewind", CC_SESSION, "--to", "3", "--mode", "both"]
    argv += ["--force"]
    rc, _ = run_forked(argv, _kill_at("link", ".jsonl"))  # the transcript's link
    assert rc == -signal.SIGKILL
    assert _leftovers(home, folder)  # a blob folder, the temp transcript, the journal
    (journal,) = (home / "sidtui" / "forks").glob("*/sidtui-journal.json")
    copy = journal.parent.name
    # the read verbs say it pending (ls: once; show: of its source session only)
    capsys.readouterr()
    home_arg = ["--claude-home", str(home)]
    assert main([*home_arg, "ls"]) == 0
    err = capsys.readouterr().err
    assert err.count("sidtui: warning: an interrupted sidtui rewind of ") == 1, err
    assert f"of {CC_SESSION} is pending (process " in err
    assert f"its copy {copy} is incomplete" in err
    assert "the next sidtui fork, branch, rewind or repair in this Claude Code home" in err
    assert main([*home_arg, "show", CC_SESSION]) == 0
    assert f"its copy {copy} is incomplete" in capsys.readouterr().err
    assert main([*home_arg, "check", "--session", CC_SESSION, "--json"]) in (0, 1)
    assert f'"{copy}"' in capsys.readouterr().out  # check --json names it pending
    capsys.readouterr()
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "removed the incomplete copy" in err, err
    assert main([*home_arg, "ls"]) == 0
    assert "pending" not in capsys.readouterr().err
    assert not _leftovers(home, folder)
    assert len(list(folder.glob("*.jsonl"))) == 2  # the source and one fork


def test_a_claude_code_rewind_both_killed_in_its_file_step_is_finished_whole(tmp_path, capsys):
    from tests.helpers import CC_SESSION

    home, project, folder = _cc(tmp_path, "r")
    clean_home, clean_project, _ = _cc(tmp_path, "c")
    tail = ["rewind", CC_SESSION, "--to", "2", "--mode", "both", "--force"]
    assert main(["--claude-home", str(clean_home), *tail]) == 0
    before = file_tree(project)
    argv = ["--claude-home", str(home), *tail]
    seen: list[str] = []

    def hook(kind: str, where: str) -> None:  # killed after the first project file
        if kind == "fsync-dir" and file_tree(project) != before:
            os.kill(os.getpid(), signal.SIGKILL)

    rc, _ = run_forked(argv, hook)
    assert rc == -signal.SIGKILL and not seen
    assert file_tree(project) != before
    capsys.readouterr()
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "is finished first" in err and "resume it with" in err, err
    assert file_tree(project) == file_tree(clean_project)
    assert len(list(folder.glob("*.jsonl"))) == 2  # the source and its fork
    assert not _leftovers(home, folder)


def _interrupt(*_a, **_k):
    raise KeyboardInterrupt


def test_ctrl_c_while_the_parser_is_built_or_arguments_parsed_is_one_line(
    tmp_path, capsys, monkeypatch
):
    import sidtui.cli as cli

    for name in ("build_parser", "join_dash_values"):
        with monkeypatch.context() as m:
            m.setattr(cli, name, _interrupt)
            assert main(["--home", str(tmp_path), "ls"]) == 130
        err = capsys.readouterr().err
        assert err.splitlines() == ["sidtui: interrupted: no write was left half done"], name


def test_ctrl_c_as_the_command_returns_is_one_line_from_entry(tmp_path, capsys, monkeypatch):
    import sidtui.cli as cli

    monkeypatch.setattr(cli, "main", _interrupt)
    monkeypatch.setattr(cli, "_KEPT", [])  # an earlier test's `show`: entry would os._exit
    with pytest.raises(SystemExit) as exc:
        cli.entry()
    assert exc.value.code == 130
    lines = capsys.readouterr().err.splitlines()  # (what it names is an earlier test's)
    assert len(lines) == 1 and lines[0].startswith("sidtui: interrupted"), lines


def test_a_ctrl_c_while_orjson_is_imported_is_raised_after_the_import():
    """orjson's module init crashes the interpreter (SIGSEGV) when a KeyboardInterrupt is
    raised inside it: the CLI holds Ctrl-C across that import and raises it after."""
    from sidtui.cli import _SigintHeld

    reached = []
    with pytest.raises(KeyboardInterrupt):
        with _SigintHeld():
            os.kill(os.getpid(), signal.SIGINT)
            reached.append("after the signal")
    assert reached == ["after the signal"]


def _sweep_ctrl_c(tmp_path: Path, make, verb: list[str], capsys, monkeypatch):
    """Run ``verb`` once per write point with a Ctrl-C raised at that point; yield
    ``(exit code, stderr, new session ids)`` for each run that made a new session."""
    from sidtui.core.base import safefs

    n = 0
    while True:
        argv, folder = make(tmp_path / f"p{n}")
        before = {p.stem for p in folder.glob("*.jsonl")}
        seen = [0]

        def hook(kind: str, where: str, n=n, seen=seen) -> None:
            seen[0] += 1
            if seen[0] == n + 1:
                raise KeyboardInterrupt

        monkeypatch.setattr(safefs, "fault_hook", hook)
        capsys.readouterr()
        rc = main([*argv, *verb])
        monkeypatch.setattr(safefs, "fault_hook", None)
        new = sorted({p.stem for p in folder.glob("*.jsonl")} - before)
        if seen[0] <= n:  # the run passed every write point: it completed
            assert rc == 0
            return
        err = capsys.readouterr().err
        assert rc == 130 and len(err.splitlines()) == 1, (n, err)
        if new:
            yield n, err, new
        n += 1


def _cc_argv(root: Path):
    home, _, folder = _cc(root, "h")
    return ["--claude-home", str(home)], folder


def _sid_argv(root: Path):
    run = _run(root, "h")
    return _argv(run), run / "home" / "sessions" / WEBAPP


@pytest.mark.parametrize(
    "make,verb",
    [
        (_cc_argv, ["rewind", CC_SESSION, "--to", "3", "--mode", "conversation", "--fork"]),
        (_cc_argv, ["repair", CC_SESSION]),
        (_sid_argv, ["fork", S01]),
    ],
    ids=["claude-rewind-fork", "claude-repair", "sid-code-fork"],
)
def test_ctrl_c_once_the_new_session_is_complete_names_it(
    tmp_path, capsys, monkeypatch, make, verb
):
    made = list(_sweep_ctrl_c(tmp_path, make, verb, capsys, monkeypatch))
    assert made  # some write points come after the new session is in place
    for n, err, new in made:
        assert len(new) == 1, (n, new)
        assert err.strip() == (
            f"sidtui: interrupted after writing the new session {new[0]} (complete); "
            "nothing is half done"
        ), (n, err)

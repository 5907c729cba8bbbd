"""Unreadable places in a home: symlink loops, folders we may not read or search, and
which home a session path belongs to. One clear line, exit 1 (unreadable) or 2 (bad
argument / unknown session), never an internal error."""

from __future__ import annotations

import argparse
import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from sidtui.cli import main
from sidtui.cli.common import session_home
from sidtui.core.base.discover import candidate_files, discover
from sidtui.core.base.home import Home
from sidtui.core.base.resolve import home_root_of, resolve_session
from tests.helpers import REPO

CLI = "tmp-sidtui-fixture-projects-cli-tool"
WEBAPP = "tmp-sidtui-fixture-projects-webapp"
SID = "20261130-052907-79e5ff19"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in err, err
    return code, out, err


# --- 1. symlink loops -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["loop", "loop.jsonl"])
def test_symlink_loop_does_not_break_show_by_id(real_home_copy, capsys, name):
    (real_home_copy / "sessions" / CLI / name).symlink_to(name)
    code, _, err = run(capsys, "--home", str(real_home_copy), "show", SID, "--json")
    assert code == 0, err


def test_symlink_loop_ls_no_cache_warns_for_a_transcript_name(real_home_copy, capsys):
    folder = real_home_copy / "sessions" / CLI
    (folder / "loop").symlink_to("loop")
    (folder / "x.jsonl").symlink_to("x.jsonl")
    for extra in ([], ["--no-cache"]):
        code, out, err = run(capsys, "--home", str(real_home_copy), "ls", "--json", *extra)
        assert code == 0, err
        assert SID in out
        assert "/loop" not in err  # not a transcript name: skipped quietly
    code, out, err = run(capsys, "--home", str(real_home_copy), "ls", "--json", "--no-cache")
    assert f"warning: cannot read {folder / 'x.jsonl'}: " in err
    assert err.count("warning:") == 1


def test_symlink_loop_in_flat_layout_and_discover(real_home_copy):
    (real_home_copy / "sessions" / "flat.jsonl").symlink_to("flat.jsonl")
    (real_home_copy / "sessions" / CLI / "x.jsonl").symlink_to("x.jsonl")
    errors: list[str] = []
    files = candidate_files(Home(real_home_copy), errors=errors)
    assert not any(p.name in ("flat.jsonl", "x.jsonl") for p, _ in files)
    assert len(errors) == 2 and all("symbolic links" in e for e in errors)
    assert any(f.session_id == SID for f in discover(Home(real_home_copy)))


def test_symlink_loop_check_reports_it(real_home_copy, capsys):
    (real_home_copy / "sessions" / CLI / "x.jsonl").symlink_to("x.jsonl")
    code, out, err = run(capsys, "--home", str(real_home_copy), "check", "--json")
    assert code == 1, err  # a structural fault: the unreadable file (and the fixture's own)
    faults = orjson.loads(out)["faults"]
    loop = [f for f in faults if f["file"].endswith("x.jsonl")]
    assert [f["kind"] for f in loop] == ["unreadable_file"], faults
    assert "symbolic links" in loop[0]["detail"]


# --- 2. a session path whose parent folder cannot be searched -------------------------


def _deny_exists(monkeypatch, under: Path) -> None:
    real = Path.exists

    def exists(self, *a, **kw):
        if str(self).startswith(str(under)):
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real(self, *a, **kw)

    monkeypatch.setattr(Path, "exists", exists)


@pytest.mark.parametrize(
    "verb",
    [
        ["show"],
        ["rewind"],
        ["fork", "--dry-run"],
        ["undo", "--dry-run"],
        ["checkpoints"],
        ["check", "--session"],
    ],
)
def test_unsearchable_sessions_folder_is_permission_denied(
    real_home_copy, capsys, monkeypatch, verb
):
    path = real_home_copy / "sessions" / CLI / f"{SID}.jsonl"
    _deny_exists(monkeypatch, real_home_copy / "sessions")
    code, _, err = run(capsys, "--home", str(real_home_copy), *verb, str(path))
    assert code == 1, err
    assert err.strip() == f"sidtui: error: permission denied reading {path}"


def test_resolve_session_permission_denied(real_home_copy, monkeypatch):
    from sidtui.core.base.errors import UnreadableInput

    path = real_home_copy / "sessions" / CLI / f"{SID}.jsonl"
    _deny_exists(monkeypatch, real_home_copy)
    with pytest.raises(UnreadableInput, match="permission denied reading"):
        resolve_session(Home(real_home_copy), str(path))


# --- 3. unreadable folders: exit codes --------------------------------------------------


def _deny_scandir(monkeypatch, *denied: Path) -> None:
    real = os.scandir
    names = {str(d) for d in denied}

    def scandir(path="."):
        if os.fspath(path) in names:
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


@pytest.mark.parametrize("cache", [[], ["--no-cache"]])
def test_ls_unreadable_sessions_folder_exits_1(real_home_copy, capsys, monkeypatch, cache):
    sessions = real_home_copy / "sessions"
    _deny_scandir(monkeypatch, sessions)
    code, out, err = run(capsys, "--home", str(real_home_copy), "ls", *cache)
    assert code == 1, err
    assert f"cannot read folder {sessions}: Permission denied" in err
    assert "no sessions" not in out


@pytest.mark.parametrize("cache", [[], ["--no-cache"]])
def test_ls_unreadable_project_exits_1_and_reads_nothing_else(
    real_home_copy, capsys, monkeypatch, cache
):
    q = real_home_copy / "sessions" / CLI
    _deny_scandir(monkeypatch, q)
    opened: list[str] = []
    real_open = os.open

    def spy(path, *a, **kw):
        opened.append(os.fspath(path))
        return real_open(path, *a, **kw)

    monkeypatch.setattr(os, "open", spy)
    code, _, err = run(capsys, "--home", str(real_home_copy), "ls", "--project", CLI, *cache)
    assert code == 1, err
    assert err.strip() == f"sidtui: error: cannot read folder {q}: Permission denied"
    assert not [p for p in opened if "/sessions/" in p]


@pytest.mark.parametrize("cache", [[], ["--no-cache"]])
def test_ls_partial_listing_warns_and_exits_0(real_home_copy, capsys, monkeypatch, cache):
    q = real_home_copy / "sessions" / CLI
    _deny_scandir(monkeypatch, q)
    code, out, err = run(capsys, "--home", str(real_home_copy), "ls", "--json", *cache)
    assert code == 0, err
    assert f"warning: cannot read folder {q}: Permission denied" in err
    assert WEBAPP in out and CLI not in out


def test_ls_every_project_unreadable_exits_1(tmp_path, capsys, monkeypatch):
    sessions = tmp_path / "sessions"
    (sessions / "a").mkdir(parents=True)
    (sessions / "b").mkdir()
    _deny_scandir(monkeypatch, sessions / "a", sessions / "b")
    code, _, err = run(capsys, "--home", str(tmp_path), "ls", "--no-cache")
    assert code == 1, err
    assert err.count("warning: cannot read folder") == 2
    assert err.strip().endswith(f"error: no session folder under {sessions} could be read")


def test_ls_project_when_sessions_cannot_be_searched(real_home_copy, capsys, monkeypatch):
    real = Path.is_dir

    def is_dir(self):
        if self.parent == real_home_copy / "sessions":
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "is_dir", is_dir)
    code, _, err = run(capsys, "--home", str(real_home_copy), "ls", "--project", CLI)
    assert code == 1, err
    assert f"cannot read folder {real_home_copy / 'sessions' / CLI}: Permission denied" in err


def test_show_id_names_the_unreadable_folder(real_home_copy, capsys, monkeypatch):
    q = real_home_copy / "sessions" / CLI
    _deny_scandir(monkeypatch, q)
    code, _, err = run(capsys, "--home", str(real_home_copy), "show", SID)
    assert code == 2, err
    assert f"no session matches {SID!r}" in err and f"(folder {q} could not be read)" in err
    code, _, err = run(capsys, "--home", str(real_home_copy), "show", "20261130-052907-87d4")
    assert code == 0, err  # other projects still resolve


def _unprivileged(argv: list[str]) -> list[str] | None:
    """``argv`` run without DAC override (None when that cannot be arranged)."""
    if os.geteuid() != 0:
        return argv
    capsh = shutil.which("capsh")
    if capsh is None:
        return None
    import shlex

    return [capsh, "--drop=cap_dac_override,cap_dac_read_search", "--", "-c", shlex.join(argv)]


def test_real_chmod_000_end_to_end(real_home_copy, tmp_path):
    """The tester's setup for real (chmod 000; as root through capsh)."""
    sessions = real_home_copy / "sessions"
    path = sessions / CLI / f"{SID}.jsonl"
    base = [sys.executable, "-m", "sidtui"]
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("SID_CONFIG_DIR", None)
    probe = _unprivileged(["true"])
    if probe is None or subprocess.run(probe, capture_output=True).returncode != 0:
        pytest.skip("cannot drop DAC override here")
    sessions.chmod(0)
    try:
        cases = [
            ([*base, "show", str(path)], 1, f"permission denied reading {path}"),
            (
                [*base, "--home", str(real_home_copy), "ls"],
                1,
                f"cannot read folder {sessions}: Permission denied",
            ),
            (
                [*base, "--home", str(real_home_copy), "show", SID],
                2,
                f"(folder {sessions} could not be read)",
            ),
        ]
        for argv, want_code, want in cases:
            cmd = _unprivileged(argv)
            assert cmd is not None
            r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO)
            assert r.returncode == want_code, r.stderr
            assert want in r.stderr and "internal error" not in r.stderr
    finally:
        sessions.chmod(0o755)


# --- 4. which home a session path belongs to --------------------------------------------


def _args(**kw) -> argparse.Namespace:
    return argparse.Namespace(home=kw.pop("home", None), **kw)


@pytest.mark.parametrize(
    "rel", [f"sessions/{CLI}/{SID}.jsonl", "sessions/_legacy/5d2e9f01.jsonl", "sessions/flat.jsonl"]
)
def test_session_path_uses_its_own_home(real_home_copy, monkeypatch, capsys, rel):
    monkeypatch.delenv("SID_CONFIG_DIR")
    flat = real_home_copy / "sessions" / "flat.jsonl"
    shutil.copy(real_home_copy / "sessions" / CLI / f"{SID}.jsonl", flat)
    path = real_home_copy / rel
    assert home_root_of(path) == real_home_copy.resolve()
    home = session_home(_args(session=str(path)))
    assert home.root == real_home_copy.resolve()
    assert capsys.readouterr().err == ""
    code, _, err = run(capsys, "show", str(path), "--json")
    assert code == 0, err


def test_session_path_relative_and_outside_a_home(real_home_copy, monkeypatch, tmp_path):
    monkeypatch.delenv("SID_CONFIG_DIR")
    monkeypatch.chdir(real_home_copy / "sessions" / CLI)
    assert session_home(_args(session=f"{SID}.jsonl")).root == real_home_copy.resolve()
    loose = tmp_path / "loose.jsonl"
    shutil.copy(real_home_copy / "sessions" / CLI / f"{SID}.jsonl", loose)
    default = session_home(_args(session=str(loose)))
    assert default.root == Path(os.environ["HOME"]) / ".sid-code"


def test_session_path_in_another_home_warns(real_home_copy, tmp_path, monkeypatch, capsys):
    other = tmp_path / "other"
    (other / "sessions").mkdir(parents=True)
    path = real_home_copy / "sessions" / CLI / f"{SID}.jsonl"
    home = session_home(_args(session=str(path), home=str(other)))
    assert home.root == other
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "warning:" in err and str(real_home_copy.resolve()) in err
    # the same home (also when named through SID_CONFIG_DIR): no warning
    monkeypatch.setenv("SID_CONFIG_DIR", str(real_home_copy))
    assert session_home(_args(session=str(path))).root == real_home_copy
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("SID_CONFIG_DIR", str(other))
    assert session_home(_args(session=str(path))).root == other
    assert "belongs to the home" in capsys.readouterr().err
    code, _, err = run(capsys, "--home", str(other), "show", str(path), "--json")
    assert code == 0 and "belongs to the home" in err


def test_search_project_when_sessions_cannot_be_searched(real_home_copy, capsys, monkeypatch):
    real = Path.is_dir

    def is_dir(self):
        if self.parent == real_home_copy / "sessions":
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "is_dir", is_dir)
    code, _, err = run(capsys, "--home", str(real_home_copy), "search", "x", "--project", CLI)
    assert code == 1 and "Permission denied" in err, err


def test_symlink_loop_in_checkpoints_hides_no_other(tmp_path):
    from sidtui.core.edits.store import checkpoint_ids as _checkpoint_ids

    cps = tmp_path / "checkpoints"
    (cps / "abc").mkdir(parents=True)
    (cps / "abc" / "index.json").write_text("{}")
    (cps / "loop").symlink_to("loop")
    assert _checkpoint_ids(Home(tmp_path)) == ["abc"]


def test_show_path_of_a_symlink_loop_is_unreadable_not_missing(tmp_path, capsys):
    """A transcript path that is a symlink loop exists but cannot be read: exit 1 naming the
    loop (it said "no such file", exit 2); a dangling link is still "no such file"."""
    from sidtui.cli import main

    folder = tmp_path / "home" / "sessions" / "p"
    folder.mkdir(parents=True)
    loop = folder / "20261130-000009-00000009.jsonl"
    os.symlink(loop.name, loop)
    code = main(["--home", str(tmp_path / "home"), "show", str(loop)])
    err = capsys.readouterr().err
    assert code == 1 and "symbolic links" in err and "Traceback" not in err
    dangling = folder / "20261130-000010-0000000a.jsonl"
    os.symlink("nowhere.jsonl", dangling)
    code = main(["--home", str(tmp_path / "home"), "show", str(dangling)])
    assert code == 2 and "no such file" in capsys.readouterr().err

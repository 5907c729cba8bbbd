"""safefs: folders walked without following symlinks, O_EXCL temp files, leftovers."""

from __future__ import annotations

import os
import stat

import pytest

from sidtui.core.base import safefs
from tests.helpers import dead_pid


def test_open_dir_refuses_a_symlinked_component(tmp_path):
    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    os.close(safefs.open_dir(real / "sub"))
    with pytest.raises(safefs.UnsafePath, match="no longer a folder"):
        safefs.open_dir(tmp_path / "link" / "sub")


def test_open_dir_creates_only_below_the_given_depth(tmp_path):
    target = tmp_path / "a" / "b"
    depth = len(tmp_path.parts) - 1  # components of tmp_path (without "/")
    with pytest.raises(safefs.UnsafePath, match="is gone"):
        safefs.open_dir(target)
    os.close(safefs.open_dir(target, create_below=depth))
    assert target.is_dir()


def test_replace_at_keeps_mode_and_never_follows_a_planted_temp(tmp_path, monkeypatch):
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    f = tmp_path / "f.sh"
    f.write_text("old\n")
    f.chmod(0o755)
    names = iter(["aaaaaaaaaaaa", "bbbbbbbbbbbb"])
    monkeypatch.setattr(safefs.secrets, "token_hex", lambda n: next(names))
    # The first temp name is taken by a symlink to a file outside: O_EXCL skips it.
    (tmp_path / f".f.sh.sidtui-{os.getpid()}-aaaaaaaaaaaa.tmp").symlink_to(victim)
    with safefs.opened_dir(tmp_path) as dfd:
        safefs.replace_at(dfd, "f.sh", b"new\n")
    assert f.read_text() == "new\n" and stat.S_IMODE(f.stat().st_mode) == 0o755
    assert victim.read_text() == "keep\n"


def test_replace_and_unlink_refuse_a_final_name_that_is_a_symlink(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    (tmp_path / "f").symlink_to(victim)
    with safefs.opened_dir(tmp_path) as dfd:
        with pytest.raises(safefs.UnsafePath):
            safefs.replace_at(dfd, "f", b"x")
        with pytest.raises(safefs.UnsafePath):
            safefs.unlink_at(dfd, "f")
    assert victim.read_text() == "keep\n" and (tmp_path / "f").is_symlink()
    assert [p.name for p in tmp_path.iterdir() if ".tmp" in p.name] == []


def test_temp_names_are_hidden_unpredictable_and_recognised():
    a, b = safefs.temp_name("index.json"), safefs.temp_name("index.json")
    assert a != b and a.startswith(".index.json.sidtui-") and a.endswith(".tmp")
    assert safefs.parse_temp_name(a) == ("index.json", os.getpid())
    assert safefs.parse_temp_name(".index.json.sidtui-12.tmp") is None  # the old names


def test_only_dead_writers_temps_are_removed(tmp_path):
    dead = dead_pid()
    mine = tmp_path / f".a.txt.sidtui-{os.getpid()}-0123456789ab.tmp"
    gone = tmp_path / f".a.txt.sidtui-{dead}-0123456789ab.tmp"
    other = tmp_path / f".b.txt.sidtui-{dead}-0123456789ab.tmp"
    user = tmp_path / ".a.txt.swp"
    for p in (mine, gone, other, user):
        p.write_text("x")
    assert safefs.stale_temps(tmp_path, ["a.txt"]) == [gone.name]
    assert safefs.remove_stale_temps(tmp_path) == sorted(str(p) for p in (gone, other))
    assert mine.exists() and user.exists() and not gone.exists() and not other.exists()


def test_write_atomic_creates_folders(tmp_path):
    target = tmp_path / "x" / "y" / "index.json"
    safefs.write_atomic(target, b"{}")
    assert target.read_bytes() == b"{}"
    assert safefs.remove(target) and not target.exists() and not safefs.remove(target)


def test_create_new_never_replaces_and_leaves_no_temp(tmp_path):
    target = tmp_path / "d" / "new.jsonl"
    safefs.create_new(target, b"one\n", 0o600)
    assert target.read_bytes() == b"one\n" and (target.stat().st_mode & 0o777) == 0o600
    with pytest.raises(FileExistsError):
        safefs.create_new(target, b"two\n")
    assert target.read_bytes() == b"one\n" and sorted(os.listdir(target.parent)) == ["new.jsonl"]


def test_create_new_refuses_a_symlinked_folder(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "d").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "d" / "link")
    with safefs.opened_dir(str(tmp_path / "d")) as dfd, pytest.raises(safefs.UnsafePath):
        safefs.replace_at(dfd, "link", b"x")  # a symlink at the final name: refused
    with pytest.raises(FileExistsError):
        with safefs.opened_dir(str(tmp_path / "d")) as dfd:
            safefs.create_at(dfd, "link", b"x")  # never through a link either
    assert os.listdir(tmp_path / "real") == []

"""Every agent's home root and transcript file (core/base/roots.py), through both homes."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from sidtui.core.base.errors import UsageError
from sidtui.core.base.home import Home, SessionFile
from sidtui.core.base.roots import Folder, HomeRoot, TranscriptFile
from sidtui.core.claude.layout import ClaudeFile, ClaudeHome


@pytest.mark.parametrize(
    ("cls", "var", "default"),
    [(Home, "SID_CONFIG_DIR", ".sid-code"), (ClaudeHome, "CLAUDE_CONFIG_DIR", ".claude")],
)
def test_flag_then_variable_then_default(tmp_path, cls, var, default):
    assert cls.resolve(str(tmp_path / "a"), {var: "/nope"}).root == tmp_path / "a"
    assert cls.resolve(None, {var: str(tmp_path / "b")}).root == tmp_path / "b"
    assert cls.resolve(None, {"HOME": str(tmp_path)}).root == tmp_path / default
    assert cls.resolve(None, {var: "", "HOME": str(tmp_path)}).root == tmp_path / default


@pytest.mark.parametrize(("cls", "flag"), [(Home, "--home"), (ClaudeHome, "--claude-home")])
def test_an_empty_flag_is_refused_never_the_default(cls, flag):
    with pytest.raises(UsageError, match=f"^{flag} needs a folder"):
        cls.resolve("  ", {})


def test_sid_code_makes_a_relative_home_absolute_claude_code_keeps_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert Home.resolve("rel", {}).root == tmp_path / "rel"
    assert ClaudeHome.resolve("rel", {}).root == Path("rel")
    home = os.path.expanduser("~")
    assert ClaudeHome.resolve("~/x", {}).root == Path(home) / "x"
    assert Home.resolve("~/x", {}).root == Path(home) / "x"


def test_require_names_the_agent_the_flag_and_the_variable(tmp_path):
    with pytest.raises(UsageError) as e:
        Home(tmp_path / "none").require()
    assert str(e.value) == (
        f"no sid-code home at {tmp_path / 'none'} (pass --home DIR or set SID_CONFIG_DIR; "
        "`sidtui demo` builds one to explore)"
    )
    with pytest.raises(UsageError) as e:
        ClaudeHome(tmp_path / "none").require()
    assert str(e.value) == (
        f"no Claude Code home at {tmp_path / 'none'} (pass --claude-home DIR or set "
        "CLAUDE_CONFIG_DIR)"
    )
    (tmp_path / "f").write_text("x")
    with pytest.raises(UsageError, match="^Claude Code home .* is not a directory$"):
        ClaudeHome(tmp_path / "f").require()
    with pytest.raises(UsageError, match="^sid-code home .* is not a directory$"):
        Home(tmp_path / "f").require()
    assert Home(tmp_path).require() == Home(tmp_path)
    assert isinstance(ClaudeHome(tmp_path).require(), ClaudeHome)


def test_folders_are_paths_below_the_root():
    h, c = Home(Path("/h")), ClaudeHome(Path("/c"))
    assert (h.sessions_dir, h.checkpoints_dir, h.history_path) == (
        Path("/h/sessions"),
        Path("/h/checkpoints"),
        Path("/h/history.jsonl"),
    )
    assert (c.projects_dir, c.sessions_dir, c.file_history_dir, c.restores_dir) == (
        Path("/c/projects"),
        Path("/c/sessions"),
        Path("/c/file-history"),
        Path("/c/sidtui/restores"),
    )
    assert isinstance(Home.sessions_dir, Folder)
    # a folder is no field: equality, hashing and repr are the root's alone
    assert [f.name for f in dataclasses.fields(Home)] == ["root"]
    assert [f.name for f in dataclasses.fields(ClaudeHome)] == ["root"]
    assert Home("/h") == Home(Path("/h")) and hash(Home("/h")) == hash(Home(Path("/h")))
    assert Home("/x") != ClaudeHome("/x")


def test_both_file_classes_share_the_fields_in_order():
    base = [f.name for f in dataclasses.fields(TranscriptFile)]
    assert base == [
        "path",
        "session_id",
        "project",
        "kind",
        "container",
        "parent_session_id",
        "agent_id",
    ]
    assert [f.name for f in dataclasses.fields(SessionFile)] == base
    assert [f.name for f in dataclasses.fields(ClaudeFile)] == [*base, "layout", "inline_lines"]
    sf = SessionFile(Path("/s/p/a-b.jsonl"), "a-b", "p", kind="sidechain", agent_id="b")
    cf = ClaudeFile(Path("/c/p/x.jsonl"), "x", "p")
    assert sf.checkpoint_id == "a" and cf.source == "claude-code" and cf.meta_path is None
    # one class never equals the other's, even with the same fields
    assert SessionFile(Path("/x"), "x", "p") != ClaudeFile(Path("/x"), "x", "p")
    assert not isinstance(cf, SessionFile) and isinstance(cf, TranscriptFile)


def test_a_new_home_class_needs_only_its_names(tmp_path):
    class Other(HomeRoot):
        label, flag, env_var, default_dir = "Other", "--other-home", "OTHER_DIR", ".other"
        logs = Folder("logs", "today")

    o = Other.resolve(None, {"OTHER_DIR": str(tmp_path)})
    assert o.logs == tmp_path / "logs" / "today"
    with pytest.raises(UsageError, match=r"pass --other-home DIR or set OTHER_DIR\)$"):
        Other(tmp_path / "missing").require()

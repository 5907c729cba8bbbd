"""The write path exists once: the write verbs and the write dialogs drive a source through
its interface (``Source`` in sidtui/core/sources/base.py) and never name an agent; what an
agent lacks is a capability on its source."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sidtui.core.base.errors import UsageError
from sidtui.core.sources import SOURCES, ClaudeSource, SidCodeSource
from sidtui.core.sources.base import MUTATIONS
from sidtui.core.sources.writes import MARKER, NEW_SESSION, PROMPT, TOOL_BATCH, WriteOptions

PKG = Path(__file__).resolve().parents[2] / "sidtui"
WRITE_VERBS = [
    "cli/rewind.py",
    "cli/fork.py",
    "cli/branch.py",
    "cli/undo.py",
    "cli/redo.py",
    "cli/restore.py",
    "cli/repair.py",
    "cli/salvage.py",
    "cli/checkpoints.py",
    "cli/checkpoint_args.py",
    "cli/target.py",
    "tui/screens/rewind.py",
    "tui/screens/fork.py",
    "tui/screens/restore_preview.py",
]
AGENT_WORDS = ("claude", "sidcode", "sid_code")
SOURCE_NAMES = {cls.name for cls in SOURCES}


def _names(tree: ast.AST) -> set[str]:
    """Every identifier, attribute and imported module name in a module."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.add(node.name)
    return out


@pytest.mark.parametrize("rel", WRITE_VERBS)
def test_a_write_verb_names_no_agent_and_compares_no_source_name(rel):
    tree = ast.parse((PKG / rel).read_text(encoding="utf-8"))
    named = sorted(n for n in _names(tree) if any(w in n.lower() for w in AGENT_WORDS))
    assert named == [], f"{rel} names an agent: {named}"
    literals = {
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }
    assert not literals & SOURCE_NAMES, f"{rel} branches on a source's name"


def test_the_agent_twins_of_the_write_path_are_gone():
    gone = [
        "cli/claude_verbs.py",
        "cli/claude_dispatch.py",
        "tui/screens/claude_rewind.py",
        "tui/screens/claude_restore.py",
        "tui/screens/claude_fork.py",
    ]
    assert [p for p in gone if (PKG / p).exists()] == []


def _cli_imports(path: Path) -> set[str]:
    """The ``sidtui.cli`` modules ``path`` imports (at the top or inside a function)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "sidtui.cli":
            out.update(f"sidtui.cli.{a.name}" for a in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sidtui.cli."):
            out.add(node.module or "")
    return out


def test_no_write_verb_is_in_an_import_circle_of_the_cli():
    graph = {f"sidtui.cli.{p.stem}": _cli_imports(p) for p in (PKG / "cli").glob("*.py")}

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), list(graph.get(start, ()))
        while todo:
            m = todo.pop()
            if m == goal:
                return True
            if m not in seen:
                seen.add(m)
                todo.extend(graph.get(m, ()))
        return False

    verbs = [f"sidtui.cli.{Path(p).stem}" for p in WRITE_VERBS if p.startswith("cli/")]
    assert [v for v in verbs if reaches(v, v)] == []


@pytest.mark.parametrize("cls", SOURCES)
def test_each_source_states_its_write_capabilities(cls):
    assert cls.conversation_rewind in (MARKER, NEW_SESSION)
    assert cls.checkpoint_unit in (TOOL_BATCH, PROMPT, None)
    if cls.checkpoint_unit is None:  # no file states: no verb writes files back
        assert not cls.mutations & {"undo", "redo", "restore"}
    assert cls.mutations <= MUTATIONS
    assert isinstance(cls.no_points_reason, str) and cls.no_points_reason


def test_the_two_sources_differ_by_capability_not_by_name():
    assert (SidCodeSource.conversation_rewind, ClaudeSource.conversation_rewind) == (
        MARKER,
        NEW_SESSION,
    )
    assert (SidCodeSource.checkpoint_unit, ClaudeSource.checkpoint_unit) == (TOOL_BATCH, PROMPT)
    assert (
        SidCodeSource.rewind_finishes_interrupted and not ClaudeSource.rewind_finishes_interrupted
    )
    assert "salvage" in SidCodeSource.mutations and "repair" not in SidCodeSource.mutations
    assert "repair" in ClaudeSource.mutations and "salvage" not in ClaudeSource.mutations


def test_only_a_source_with_a_resume_command_names_one(tmp_path):
    sid = SidCodeSource.resolve_home(tmp_path / "sid", {})
    claude = ClaudeSource.resolve_home(tmp_path / "cc", {})
    assert sid.resume_command("abc") is None
    assert claude.resume_command("abc") == "claude --resume abc"


def test_a_verb_a_source_lacks_is_refused_in_its_words(tmp_path):
    sid = SidCodeSource.resolve_home(tmp_path / "sid", {})
    claude = ClaudeSource.resolve_home(tmp_path / "cc", {})
    with pytest.raises(UsageError, match=r"^s1 is a sid-code session: sidtui cannot repair it$"):
        sid._refuse("repair", "s1")
    assert claude.unsupported("salvage", "c1").startswith(
        "c1 is a Claude Code session: salvage is for sid-code sessions"
    )
    with pytest.raises(UsageError, match="cannot repair"):
        sid.repair(object())


def test_write_options_default_to_a_plain_run():
    o = WriteOptions()
    assert (o.root, o.allow_outside_root, o.force, o.dry_run, o.as_fork, o.writes) == (
        None,
        False,
        False,
        False,
        False,
        False,
    )


@pytest.mark.parametrize("columns", ["80", "50"])
def test_one_points_table_for_every_source_keeps_the_number_and_the_message_whole(
    capsys, monkeypatch, tmp_path, columns
):
    """A Claude Code session's points go through the one table, whose number (what
    ``--to`` takes) and message index never shrink: its own table squeezed both columns to
    nothing at 50 columns, and cut ``message`` to ``messa…`` beside a long prompt. The
    note under it says how a conversation rewind is written there."""
    from sidtui.cli import main
    from tests.helpers import CC_SESSION, cc_edit_session

    home = tmp_path / "claude"
    cc_edit_session(home, tmp_path / "work" / "app")
    monkeypatch.setenv("COLUMNS", columns)
    assert main(["--claude-home", str(home), "rewind", CC_SESSION]) == 0
    out = capsys.readouterr().out
    head = "msg" if columns == "50" else "message"
    assert f" {head} " in out
    assert "messa…" not in out
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert [r.split("│")[1].strip() for r in rows] == ["1", "2", "3"]
    assert "a conversation rewind writes a new session" in out.replace("\n", " ")
    assert all(len(line) <= int(columns) for line in out.splitlines())

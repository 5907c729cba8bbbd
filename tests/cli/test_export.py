"""`sidtui export`: where output goes, --project/--all with an index, bad input (one line,
exit 2), a failed write leaving no file, and what Claude Code's resume will not load."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sidtui.cli import main
from tests.core.export.support import SID, claude_home, sid_home
from tests.helpers import CC_SESSION, cc_assistant, cc_home, cc_lines, cc_user


def _run(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


def test_md_and_json_to_stdout(tmp_path, capsys) -> None:
    home = claude_home(tmp_path / "cc")
    assert _run(["export", "--claude-home", str(home), CC_SESSION, "--format", "md"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# first prompt") and "call <b>Edit</b>" in out
    assert _run(["export", "--claude-home", str(home), CC_SESSION, "--jsonl"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert json.loads(lines[0])["type"] == "session" and json.loads(lines[-1])["type"] == "end"


def test_html_default_file_in_cwd_and_o(tmp_path, capsys, monkeypatch) -> None:
    home = sid_home(tmp_path / "sid")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert _run(["export", "--home", str(home), SID]) == 0
    page = (work / f"{SID}.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert f"wrote {SID}.html" in capsys.readouterr().err
    assert _run(["export", "--home", str(home), SID, "--format", "md", "-o", "x.md"]) == 0
    assert (work / "x.md").read_text().startswith("# first prompt")
    assert sorted(os.listdir(work)) == [f"{SID}.html", "x.md"]  # no temp file left


def test_all_writes_one_file_each_and_an_index(tmp_path, capsys) -> None:
    home = claude_home(tmp_path / "cc")
    out = tmp_path / "out"
    assert _run(["export", "--claude-home", str(home), "--all", "-o", str(out)]) == 0
    assert sorted(os.listdir(out)) == [f"{CC_SESSION}.html", "index.html"]
    index = (out / "index.html").read_text()
    assert f'href="./{CC_SESSION}.html"' in index and "&lt;script&gt;" in index
    assert _run(
        ["export", "--claude-home", str(home), "--project", "-tmp-cc", "--format", "json", "-o", str(out)]
    ) == 0  # fmt: skip
    assert json.loads((out / "index.json").read_text())["sessions"][0]["session_id"] == CC_SESSION


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["export"], "give one of SESSION, --project KEY or --all"),
        (["export", "x", "--all", "-o", "d"], "give one of"),
        (["export", "x", "--jsonl", "--format", "html"], "--jsonl writes JSON Lines"),
        (["export", "--all"], "name it with -o DIR"),
        (["export", "nope"], "nope"),
        (["export", "--project", "nope", "-o", "d"], "no project folder 'nope'"),
    ],
)
def test_bad_input_one_line_exit_2(tmp_path, capsys, argv, words) -> None:
    home = claude_home(tmp_path / "cc")
    assert _run([*argv, "--claude-home", str(home)]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_failed_write_leaves_no_file(tmp_path, capsys, monkeypatch) -> None:
    """A writer stopped half-way (an error, or a kill) leaves nothing under the name."""
    import sidtui.core.export.html as html

    home = sid_home(tmp_path / "sid")

    def boom(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(html, "_facts", boom)
    out = tmp_path / "o"
    out.mkdir()
    assert _run(["export", "--home", str(home), SID, "-o", str(out / "s.html")]) == 1
    assert "No space left on device" in capsys.readouterr().err
    assert os.listdir(out) == []


def test_lost_messages_set_apart(tmp_path, capsys) -> None:
    """A record whose parent was never written: Claude Code's resume stops there, so the
    messages before it are `lost` (and said why) while the rest is `loaded`."""
    data = cc_lines(
        cc_user("u1", None, "early prompt", ts=1),
        cc_assistant("a1", "u1", "early reply", ts=2),
        cc_user("u2", "a1", "mid prompt", ts=3),
        cc_assistant("a2", "never-written", "late reply", ts=13),
        cc_user("u3", "a2", "late prompt", ts=14),
    )
    home = cc_home(tmp_path / "cc", {"-tmp-cc": {f"{CC_SESSION}.jsonl": data}})
    assert _run(["export", "--claude-home", str(home), CC_SESSION, "--format", "json"]) == 0
    msgs = json.loads(capsys.readouterr().out)["messages"]
    status = {m["blocks"][0]["text"]: (m["status"], m["reason"]) for m in msgs}
    assert status["late reply"] == ("loaded", None)
    st, why = status["early prompt"]
    assert st == "lost" and "never written" in why
    out = Path(tmp_path / "p.html")
    assert _run(["export", "--claude-home", str(home), CC_SESSION, "-o", str(out)]) == 0
    page = out.read_text()
    page = page[page.index("<main>") :]  # the title is the first prompt too
    assert page.index('<div class="lost">') < page.index("early prompt") < page.index("late prompt")
    assert "No response requested." in page  # the turn Claude Code adds: marked added
    assert page.index("late prompt") < page.index("added on resume")


def test_claude_subagents_nested_under_their_spawn(capsys) -> None:
    """A vendored Claude Code session with sub-agents: each linked one is read and nested
    under the Task call that spawned it (JSON: its spawn_id is that call's id)."""
    from tests.helpers import CLAUDE_HOME

    assert _run(["export", "--claude-home", str(CLAUDE_HOME), "fa812bfe", "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    calls = {
        b["id"]
        for m in d["messages"]
        for b in m["blocks"]
        if isinstance(b, dict) and b.get("type") == "tool_use"
    }
    read = [s for s in d["subagents"] if s["read"] and s["spawn_id"]]
    assert read and all(s["spawn_id"] in calls for s in read)
    assert all(s["transcript"]["messages"] for s in read)
    assert _run(["export", "--claude-home", str(CLAUDE_HOME), "fa812bfe", "-o", "-"]) == 0
    page = capsys.readouterr().out
    spawn = page.index(f"sub-agent <b>{read[0]['agent']}</b>")
    assert page.rindex("call <b>Task</b>", 0, spawn) > page.rindex("<section", 0, spawn)


def test_format_from_the_output_suffix(tmp_path, capsys) -> None:
    home = sid_home(tmp_path / "sid")
    for name, head in (("a.md", "# first prompt"), ("a.json", '{"schema"'), ("a.jsonl", '{"type"')):
        assert _run(["export", "--home", str(home), SID, "-o", str(tmp_path / name)]) == 0
        assert (tmp_path / name).read_text().startswith(head), name
    assert (
        _run(["export", "--home", str(home), SID, "--format", "md", "-o", str(tmp_path / "b.json")])
        == 0
    )
    assert (tmp_path / "b.json").read_text().startswith("# first prompt")  # --format wins


def test_a_missing_output_folder_is_refused_not_made(tmp_path, capsys) -> None:
    """Regression: ``-o /nonexisting/dir/x.html`` made both folders (a typo made folders
    at the root); the single file and the ``--all`` folder's parent must exist."""
    home = claude_home(tmp_path / "cc")
    missing = tmp_path / "nope" / "deeper"
    assert (
        _run(["export", "--claude-home", str(home), CC_SESSION, "-o", str(missing / "x.html")]) == 2
    )
    assert _run(["export", "--claude-home", str(home), "--all", "-o", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.count(f"no folder {missing}") == 1 and f"no folder {missing.parent}" in err
    assert not (tmp_path / "nope").exists()

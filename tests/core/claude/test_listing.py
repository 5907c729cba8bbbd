"""``ls`` rows of a Claude Code home."""

from __future__ import annotations

from sidtui.core.claude.layout import ClaudeHome
from sidtui.core.claude.listing import NO_MESSAGES, list_sessions
from tests.helpers import CC_SESSION, CLAUDE_HOME, cc_assistant, cc_home, cc_lines, cc_user

HOME = ClaudeHome(CLAUDE_HOME)


def test_every_main_session_is_a_row():
    rows, errors = list_sessions(HOME)
    assert not errors and len(rows) == 40
    by = {r.session_id[:8]: r for r in rows}
    empty = by["62b71fe7"]
    assert (empty.records, empty.loadable, empty.load_failure, empty.interruption) == (
        0,
        False,
        NO_MESSAGES,
        None,
    )
    cut = by["55604662"]
    assert (cut.interruption, cut.tool_names, cut.loadable) == (
        "interrupted_turn",
        ["Bash", "Glob"],
        True,
    )
    assert cut.first_prompt == "mix phx.server doesnt seem to start" and cut.title is None
    assert (
        by["07f2e15c"].model == "claude-sonnet-4-20250514"
        and by["07f2e15c"].format_version == "1.0.29"
    )
    acts = [r.last_activity or "" for r in rows]
    assert acts == sorted(acts, reverse=True)
    all_rows, _ = list_sessions(HOME, include_sidechains=True)
    assert len(all_rows) == 91
    agent = next(r for r in all_rows if r.session_id == "agent-aa84377")
    assert (
        agent.kind == "sidechain"
        and agent.parent_session_id == "fa812bfe-b295-4cca-9c2f-fdf01028cb46"
    )


def test_a_project_and_an_unreadable_file(tmp_path):
    home = cc_home(
        tmp_path,
        {
            "-p": {
                f"{CC_SESSION}.jsonl": cc_lines(cc_user("a", None, "hello"), cc_assistant("b", "a"))
            }
        },
    )
    (home / "projects" / "-p" / "dead.jsonl").symlink_to(tmp_path / "nowhere")
    rows, errors = list_sessions(ClaudeHome(home), "-p")
    assert [r.first_prompt for r in rows] == ["hello"] and rows[0].interruption == "none"


def test_a_line_above_the_ceiling_is_listed_not_held(tmp_path, monkeypatch):
    import os

    from sidtui.core.claude.listing import summarize_files

    sid = "11111111-2222-4333-8444-555555555555"
    long = b'{"type":"user","uuid":"big","x":"' + b"y" * 50_000 + b'"}\n'
    data = cc_lines(cc_user("a", None, "first")) + long + cc_lines(cc_assistant("b", "a", "ok"))
    root = cc_home(tmp_path / "claude", {"-w-app": {f"{sid}.jsonl": data}})
    os.mkfifo(root / "projects" / "-w-app" / "22222222-2222-4333-8444-555555555555.jsonl")
    monkeypatch.setenv("SIDTUI_MAX_LINE_BYTES", "4096")
    home = ClaudeHome(root)
    rows, errors = list_sessions(home)  # the FIFO is never opened for a blocking read
    (row,) = rows
    assert row.records == 2 and row.bytes == len(data), row
    assert len(errors) == 1 and "is not a regular file (a FIFO); skipped" in errors[0], errors
    items = [(str(root / "projects" / "-w-app" / f"{sid}.jsonl"), "-w-app")]
    ((got,),) = list(summarize_files(home, items, chunk_files=1))
    assert got.summary.records == 2

"""Odd JSON values and control characters a fresh-user trial found.

- a tool_use ``name`` that is not a string crashed ``show`` and ``ls --no-cache`` (the
  resume note joined the names);
- a ``session_start`` whose timestamp/model are not strings crashed text ``ls`` and went
  into ``ls --json`` as written, where ``show`` says null;
- session text with ESC/NUL/CR reached the terminal raw (an ESC sequence cleared it);
- layer 5 read "whitespace" as Python's ``strip()`` does, the agent as JavaScript's
  ``trim()`` does (they differ on U+001C–U+001F, U+0085, U+FEFF).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sidtui.cli import main
from sidtui.fmt import printable
from tests.helpers import assistant, jsonl, rec, start, tool_results, user

SID = "20260101-000000-aaaaaaaa"


def _home(tmp_path: Path, *records) -> Path:
    root = tmp_path / "home"
    proj = root / "sessions" / "proj"
    proj.mkdir(parents=True)
    (proj / f"{SID}.jsonl").write_bytes(jsonl(*records))
    return root


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _show(capsys, root: Path) -> dict:
    code, out, err = _run(capsys, "--home", str(root), "show", SID, "--json")
    assert code == 0, err
    return json.loads(out)


def _ls(capsys, root: Path) -> dict:
    code, out, err = _run(capsys, "--home", str(root), "ls", "--no-cache", "--json")
    assert code == 0, err
    (row,) = json.loads(out)
    return row


@pytest.mark.parametrize(
    "name, shown",
    [(5, "5"), (["x"], '["x"]'), (True, "true"), ([], "[]"), ({}, "{}")],  # [] and {}: truthy in JS
)
def test_a_tool_name_that_is_no_string(capsys, tmp_path, name, shown):
    root = _home(
        tmp_path,
        start(sid=SID),
        user("u1", "S"),
        assistant("a1", "u1", text=None, tools=[("t1", name)]),
        tool_results("r1", "a1", "t1"),
    )
    j = _show(capsys, root)
    assert j["interruption"] == {"kind": "interrupted_turn", "tool_names": [shown]}
    row = _ls(capsys, root)
    assert (row["interruption"], row["tool_names"]) == ("interrupted_turn", [shown])
    for argv in (["show", SID], ["ls", "--no-cache"], ["rewind", SID]):
        code, out, err = _run(capsys, "--home", str(root), *argv)
        assert (code, "internal error" in err) == (0, False), (argv, err)


def test_session_fields_that_are_no_strings(capsys, tmp_path):
    first = rec(
        "session_start",
        "S",
        None,
        version=3,
        sessionId=12,
        model=["x"],
        provider=None,
        cwd=5,
        timestamp=7,
    )
    root = _home(tmp_path, first, user("u1", "S"), assistant("a1", "u1"))
    j = _show(capsys, root)
    row = _ls(capsys, root)
    assert row["started"] is None and row["model"] is None and row["format_version"] == "2.0"
    assert j["format_version"] == row["format_version"]
    code, out, err = _run(capsys, "--home", str(root), "ls", "--no-cache")
    assert code == 0 and "internal error" not in err


def test_control_characters_are_shown_not_sent(capsys, tmp_path):
    root = _home(
        tmp_path,
        start(sid=SID),
        user("u1", "S", text="\x1b[2Jred\x00nul\rback"),
        assistant("a1", "u1", text="\x1b]0;title\x07ok"),
    )
    for argv in (["show", SID], ["ls", "--no-cache"]):
        code, out, err = _run(capsys, "--home", str(root), *argv)
        assert code == 0, err
        assert "\x1b" not in out and "\x00" not in out and "\r" not in out
    code, out, _ = _run(capsys, "--home", str(root), "show", SID)
    assert "\\x1b[2Jred\\x00nul" in out  # shown as escapes (Rich itself drops CR and BEL)
    assert printable("a\tb\nc") == "a\tb\nc" and printable("\x85\x7f") == "\\x85\\x7f"


def test_bidi_overrides_are_shown_not_applied(capsys, tmp_path):
    """A right-to-left override in a prompt reorders what follows it on screen (helper-22):
    overrides and isolates are shown as ``\\uNNNN``; emoji joiners and direction marks stay."""
    assert printable("a\u202eb\u2066c\u2069") == "a\\u202eb\\u2066c\\u2069"
    assert printable("\u200f\U0001f468\u200d\U0001f469") == "\u200f\U0001f468\u200d\U0001f469"
    root = _home(
        tmp_path,
        start(sid=SID),
        user("u1", "S", text="ok \u202etxt.exe"),
        assistant("a1", "u1", text="done"),
    )
    code, out, _ = _run(capsys, "--home", str(root), "show", SID)
    assert code == 0 and "\u202e" not in out and "\\u202etxt.exe" in out


@pytest.mark.parametrize("text", ["\u0085", "\u001c", "\ufeff", " \u3000\u2028", "  x  ", ""])
def test_layer_5_keeps_a_reply_of_only_whitespace(capsys, tmp_path, text):
    """The agent's layer 5 drops an assistant message only when its content list is empty:
    a reply whose text is only whitespace (JavaScript's or not) stays, so the state is
    ``none`` (tests/fixtures/oracle-cases/whitespace-only-assistant)."""
    root = _home(tmp_path, start(sid=SID), user("u1", "S"), assistant("a1", "u1", text=text))
    j = _show(capsys, root)
    assert j["interruption"]["kind"] == "none"
    assert [m["uuid"] for m in j["resumed"]] == ["u1", "a1"]
    assert "filter_whitespace_only_assistant_messages" not in [d["layer"] for d in j["dropped"]]
    assert _ls(capsys, root)["interruption"] == "none"


@pytest.mark.parametrize("name", [None, False, 0, ""])
def test_a_falsy_tool_name_is_dropped_by_layer_6(capsys, tmp_path, name):
    """Layer 6 drops the whole message, as the agent does (not only the block)."""
    root = _home(
        tmp_path,
        start(sid=SID),
        user("u1", "S"),
        assistant("a1", "u1", text="ok", tools=[("t1", name)]),
        tool_results("r1", "a1", "t1"),
    )
    j = _show(capsys, root)
    reasons = [d["reason"] for d in j["dropped"] if d["index"] == 1 and d["block"] is None]
    assert reasons and "tool_use block without name" in reasons[0]
    assert [m["uuid"] for m in j["resumed"]] == ["u1", "r1"]


def test_empty_session_fields_read_as_absent_in_ls_and_show(capsys, tmp_path):
    first = rec(
        "session_start",
        "S",
        None,
        version="3.0",
        sessionId=SID,
        model="",
        provider="",
        cwd="",
        timestamp="",
    )
    root = _home(tmp_path, first, user("u1", "S"), assistant("a1", "u1"))
    j, row = _show(capsys, root), _ls(capsys, root)
    assert row["model"] is None and row["started"] is None and row["cwd"] is None
    assert j["state"] is not None and row["format_version"] == j["format_version"] == "3.0"

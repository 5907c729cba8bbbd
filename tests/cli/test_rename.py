"""`sidtui rename SESSION TITLE`: both sources, the JSON contract, refusals in one line."""

from __future__ import annotations

import json

import pytest

from sidtui.cli import main
from tests.helpers import (
    CC_SESSION,
    assistant,
    cc_assistant,
    cc_home,
    cc_lines,
    cc_user,
    jsonl,
    make_home,
    start,
    user,
)

SID = "20260101-000000-aaaaaaaa"


@pytest.fixture
def homes(tmp_path, monkeypatch):
    sid = make_home(
        tmp_path / "home",
        {SID: jsonl(start(sid=SID), user("u1", "S", "go"), assistant("a1", "u1"))},
    )
    cc = cc_home(
        tmp_path / "claude",
        {
            "-p": {
                f"{CC_SESSION}.jsonl": cc_lines(cc_user("u1", None, "go"), cc_assistant("a1", "u1"))
            }
        },
    )
    monkeypatch.setenv("SID_CONFIG_DIR", str(sid))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(cc))
    return sid, cc


def _exit(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


@pytest.mark.parametrize(
    "session, source, records", [(SID, "sid-code", 1), (CC_SESSION[:8], "claude-code", 2)]
)
def test_rename_then_ls_shows_the_title(homes, capsys, session, source, records) -> None:
    assert main(["rename", session, "Parser rewrite", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["source"] == source and out["title"] == "Parser rewrite"
    assert out["records_appended"] == records and out["previous_title"] is None
    assert set(out) == {
        "source",
        "session_id",
        "file",
        "title",
        "previous_title",
        "records_appended",
    }
    assert main(["ls", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["title"] for r in rows if r["source"] == source} == {"Parser rewrite"}


def test_the_text_says_what_changed(homes, capsys) -> None:
    assert main(["rename", SID, "One"]) == 0
    assert main(["rename", SID, "Two"]) == 0
    assert main(["rename", SID, "Two"]) == 0
    out = capsys.readouterr().out
    assert f"renamed {SID} to “One”" in out
    assert f"renamed {SID} to “Two” (was “One”)" in out
    assert "already titled “Two”; nothing was written" in out


@pytest.mark.parametrize(
    "argv, words",
    [
        (["rename", SID, ""], "at least one character"),
        (["rename", SID, "a\nb"], "one line"),
        (["rename", "nope", "x"], "no session matches"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(homes, capsys, argv, words) -> None:
    assert _exit(argv) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1

"""`sidtui usage --codex-home`: the one verb that reads a Codex CLI home through the CLI
yet; its per-session counts are ccusage's (tests/fixtures/codex-lab/README.md)."""

from __future__ import annotations

import json

from sidtui.cli import main
from tests.helpers import CLAUDE_HOME, FIXTURES

LAB = FIXTURES / "codex-lab"
#: ccusage leaves out a Codex-made fork's first response (docs/CODEX.md §5)
CODEX_FORK = "01a23620-dd87-7f53-84c7-cdc9343ef52a"


def _json(capsys, *argv: str) -> dict:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_sessions_match_ccusage(capsys) -> None:
    got = _json(capsys, "usage", "--codex-home", str(LAB / "home"), "--by", "session", "--json")
    ours = {
        r["key"]: (r["input_tokens"], r["cache_read_tokens"], r["output_tokens"])
        for r in got["rows"]
    }
    theirs = {
        s["sessionFile"][-36:]: (s["inputTokens"], s["cacheReadTokens"], s["outputTokens"])
        for s in json.loads((LAB / "ccusage-codex-session.json").read_text())["sessions"]
    }
    assert ours.keys() == theirs.keys() and len(ours) == 11
    assert {k: v for k, v in ours.items() if k != CODEX_FORK} == {
        k: v for k, v in theirs.items() if k != CODEX_FORK
    }
    assert any(n.startswith("Codex CLI:") for n in got["notes"])


def test_three_homes_count_together_and_source_picks_codex(capsys) -> None:
    flags = ["--claude-home", str(CLAUDE_HOME), "--codex-home", str(LAB / "home"), "--json"]
    both = _json(capsys, "usage", *flags, "--no-cache")
    cc = _json(capsys, "usage", *flags, "--no-cache", "--source", "claude-code")
    cx = _json(capsys, "usage", *flags, "--no-cache", "--source", "codex")
    assert both["totals"]["output_tokens"] == (
        cc["totals"]["output_tokens"] + cx["totals"]["output_tokens"]
    )
    assert {m for r in cx["rows"] for m in r["models"]} == {"gpt-lab"}


def test_a_missing_codex_home_is_one_line_and_exit_2(capsys, tmp_path) -> None:
    assert main(["usage", "--codex-home", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no Codex CLI home" in err

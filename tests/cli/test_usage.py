"""`sidtui usage`: the JSON contract, the table, bad arguments (exit 2), every source."""

from __future__ import annotations

import json

import pytest

from scripts.usage_compare import cases, rec, write_home
from sidtui.cli import main
from tests.helpers import CLAUDE_HOME, FIXTURES, REAL_HOME

ROW_KEYS = {
    "key",
    "input_tokens",
    "output_tokens",
    "cache_creation_tokens",
    "cache_read_tokens",
    "cost_usd",
    "models",
    "unpriced_models",
}


def _exit(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's own refusals
        return int(exc.code or 0)


def _json(capsys, *argv: str) -> dict:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_json_shape_and_days_in_tz(capsys, monkeypatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    d = _json(capsys, "usage", "--claude-home", str(CLAUDE_HOME), "--json", "--no-cache")
    assert d["rows"] and all(set(r) == ROW_KEYS for r in d["rows"])
    assert set(d["totals"]) == ROW_KEYS - {"key"}
    assert [r["key"] for r in d["rows"]] == sorted(r["key"] for r in d["rows"])
    want = json.loads((FIXTURES / "usage-cases/claude-code-fixture-utc/ccusage.json").read_text())
    assert d["totals"]["input_tokens"] == want["answer"]["totals"]["inputTokens"]
    assert d["totals"]["cost_usd"] == pytest.approx(want["answer"]["totals"]["totalCost"], rel=0.01)


def test_tz_moves_days(capsys, monkeypatch, tmp_path) -> None:
    files, _ = cases()["days-in-tokyo"]
    home = write_home(files, tmp_path / "cc")
    import time

    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        d = _json(capsys, "usage", "--claude-home", str(home), "--json", "--no-cache")
    finally:
        monkeypatch.setenv("TZ", "UTC")
        time.tzset()
    assert [r["key"] for r in d["rows"]] == ["2025-03-01", "2025-03-02"]


@pytest.mark.parametrize("by", ["week", "month", "session", "model", "project"])
def test_every_grouping_totals_the_same(capsys, by) -> None:
    base = _json(capsys, "usage", "--claude-home", str(CLAUDE_HOME), "--json", "--no-cache")
    d = _json(
        capsys, "usage", "--claude-home", str(CLAUDE_HOME), "--json", "--no-cache", "--by", by
    )
    assert d["by"] == by
    for k in ("input_tokens", "output_tokens", "cache_creation_tokens", "cache_read_tokens"):
        assert d["totals"][k] == base["totals"][k]


def test_both_sources_count_together_and_source_picks_one(capsys) -> None:
    flags = ["--home", str(REAL_HOME), "--claude-home", str(CLAUDE_HOME), "--json", "--no-cache"]
    both = _json(capsys, "usage", *flags, "--by", "model")
    sid = _json(capsys, "usage", *flags, "--by", "model", "--source", "sid-code")
    cc = _json(capsys, "usage", *flags, "--by", "model", "--source", "claude-code")
    assert (
        both["totals"]["output_tokens"]
        == sid["totals"]["output_tokens"] + cc["totals"]["output_tokens"]
    )
    assert "deepseek-chat" in {r["key"] for r in sid["rows"]}
    assert any("sub-agents" in n for n in sid["notes"]) and not cc["notes"]


def test_project_filter(capsys) -> None:
    proj = "-Users-dain-workspace-claude-code-log-sample"
    d = _json(
        capsys,
        "usage",
        "--claude-home",
        str(CLAUDE_HOME),
        "--json",
        "--no-cache",
        "--by",
        "project",
        "--project",
        proj,
    )
    assert [r["key"] for r in d["rows"]] == [proj]


def test_the_table_names_the_columns_and_the_total(capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["usage", "--claude-home", str(CLAUDE_HOME), "--no-cache", "--by", "month"]) == 0
    out = capsys.readouterr().out
    for word in (
        "Month",
        "Input",
        "Output",
        "Cache write",
        "Cache read",
        "Cost (USD)",
        "Models",
        "Total",
        "$",
    ):
        assert word in out


def test_an_unpriced_model_says_unknown(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    files = {"p/s.jsonl": [rec("2025-03-01T12:00:00Z", "claude-fake-9", "m", "r", 10)]}
    home = write_home(files, tmp_path / "cc")
    assert main(["usage", "--claude-home", str(home), "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert "unknown" in out and "claude-fake-9" in out
    d = _json(capsys, "usage", "--claude-home", str(home), "--json", "--no-cache")
    assert d["rows"][0]["cost_usd"] is None and d["rows"][0]["unpriced_models"] == ["claude-fake-9"]


@pytest.mark.parametrize(
    "argv",
    [
        ["--since", "2025-13-01"],
        ["--until", "tomorrow"],
        ["--since", "2025-03-02", "--until", "2025-03-01"],
        ["--by", "year"],
        ["--source", "sid"],
        ["--project", "no-such-project"],
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(capsys, argv) -> None:
    assert _exit(["usage", "--claude-home", str(CLAUDE_HOME), "--no-cache", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "error:" in err, err  # no argparse usage block


def test_a_missing_home_is_exit_2(capsys, tmp_path) -> None:
    assert _exit(["usage", "--claude-home", str(tmp_path / "none")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("argv", [["ls", "--bogus"], ["show"], ["rewind", "S", "--mode", "x"]])
def test_any_verbs_bad_arguments_are_one_line(capsys, argv) -> None:
    assert _exit(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "error:" in err and "--help" in err, err


def test_since_takes_the_words_ls_takes(capsys, monkeypatch) -> None:
    """Regression: ``usage --since 7d`` was refused while ``ls --since 7d`` and the
    browser's ``since:7d`` took it; one parser (``core/views/dates``) for all three."""
    from sidtui.core.views.dates import parse_date_word, today_ordinal

    monkeypatch.setenv("TZ", "UTC")
    every = _json(capsys, "usage", "--claude-home", str(CLAUDE_HOME), "--json", "--no-cache")
    first = min(r["key"] for r in every["rows"])  # the oldest day with usage
    days = today_ordinal() - parse_date_word(first, "x") + 1
    d = _json(capsys, "usage", "--claude-home", str(CLAUDE_HOME), "--json", "--no-cache",
              "--since", f"{days}d", "--until", "today")  # fmt: skip
    assert d["rows"] == every["rows"]
    assert _exit(["usage", "--claude-home", str(CLAUDE_HOME), "--since", "1d", "--json"]) == 0

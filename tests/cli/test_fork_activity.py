"""A fork's last activity is never before its start (its copied records keep their times)."""

from __future__ import annotations

import json

import pytest

from sidtui.cli import main
from tests.helpers import SID, assistant, jsonl, make_home, start, user


def _ts(rec: dict, ts: str) -> dict:
    return {**rec, "timestamp": ts}


@pytest.mark.parametrize("cache", [True, False])
def test_a_fork_is_last_active_when_it_starts(tmp_path, capsys, cache):
    home = make_home(
        tmp_path / "home",
        {
            SID: jsonl(
                start(),
                _ts(user("u1", "S", "first"), "2026-01-01T00:00:01.000Z"),
                _ts(assistant("a1", "u1"), "2026-01-01T00:00:02.000Z"),
            )
        },
    )
    assert main(["--home", str(home), "fork", SID, "--json"]) == 0
    new = json.loads(capsys.readouterr().out)["session_id"]
    argv = ["--home", str(home), "ls", "--json"] + ([] if cache else ["--no-cache"])
    assert main(argv) == 0
    rows = {r["session_id"]: r for r in json.loads(capsys.readouterr().out)}
    fork, source = rows[new], rows[SID]
    assert fork["started"] > source["last_activity"]  # made now, from a January session
    assert fork["last_activity"] == fork["started"]
    assert source["last_activity"] == "2026-01-01T00:00:02.000Z"  # the source is unchanged

"""``sidtui ls --since/--until``: sessions last active in a range of local days."""

from __future__ import annotations

import json
import time

import pytest

from sidtui.cli import main
from sidtui.core.views.dates import local_day
from tests.helpers import REAL_HOME


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _rows(capsys, *extra):
    code, out, err = run(capsys, "--home", str(REAL_HOME), "ls", "--json", *extra)
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_since_and_until_keep_the_sessions_last_active_in_range(capsys, utc):
    every = _rows(capsys)
    days = sorted({local_day(r["last_activity"]) for r in every})
    assert len(days) >= 2  # the fixture spans days: the range must cut something
    from datetime import date

    mid = date.fromordinal(days[len(days) // 2]).isoformat()
    since = _rows(capsys, "--since", mid)
    until = _rows(capsys, "--until", mid)
    on = _rows(capsys, "--since", mid, "--until", mid)
    assert 0 < len(since) < len(every) or 0 < len(until) < len(every)
    assert all(local_day(r["last_activity"]) >= days[len(days) // 2] for r in since)
    assert all(local_day(r["last_activity"]) <= days[len(days) // 2] for r in until)
    assert {r["path"] for r in on} == {r["path"] for r in since} & {r["path"] for r in until}
    assert len(since) + len(until) - len(on) == len(every)


def test_bad_dates_are_one_line_and_exit_2(capsys):
    code, out, err = run(capsys, "--home", str(REAL_HOME), "ls", "--since", "banana")
    assert code == 2 and "--since" in err and "Traceback" not in err and not out
    code, _, err = run(
        capsys, "--home", str(REAL_HOME), "ls", "--since", "2026-02-02", "--until", "2026-02-01"
    )
    assert code == 2 and "after" in err


def test_nothing_in_range_says_so(capsys, utc):
    code, out, err = run(capsys, "--home", str(REAL_HOME), "ls", "--until", "1999-01-01")
    assert code == 0 and "was last active until 1999-01-01" in err, err
    assert _rows(capsys, "--until", "1999-01-01") == []

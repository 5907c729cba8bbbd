"""Date words of ``ls --since/--until`` and the browser filter (core/views/dates.py)."""

from __future__ import annotations

import time
from datetime import date, datetime, timedelta

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from sidtui.core.base.errors import UsageError
from sidtui.core.views.dates import DayRange, local_day, parse_date_word

TODAY = date(2026, 12, 2).toordinal()


@pytest.fixture
def tz(monkeypatch):
    """Set ``TZ`` for one test (the zone is put back after)."""

    def use(zone: str) -> None:
        monkeypatch.setenv("TZ", zone)
        time.tzset()

    yield use
    monkeypatch.undo()
    time.tzset()


def test_words_name_days():
    assert parse_date_word("today", "--since", today=TODAY) == TODAY
    assert parse_date_word("Yesterday", "--since", today=TODAY) == TODAY - 1
    assert parse_date_word("1d", "--since", today=TODAY) == TODAY  # the last day: today
    assert parse_date_word("7d", "--since", today=TODAY) == TODAY - 6  # a week, today too
    assert parse_date_word("2026-01-31", "--since", today=TODAY) == date(2026, 1, 31).toordinal()
    assert parse_date_word("20260131", "--since", today=TODAY) == date(2026, 1, 31).toordinal()


@pytest.mark.parametrize("bad", ["0d", "banana", "2026-02-30", "7", "d", "-3d", "2026-1-3"])
def test_a_word_that_is_no_date_is_a_usage_error(bad):
    with pytest.raises(UsageError) as exc:
        parse_date_word(bad, "--since", today=TODAY)
    assert "--since" in str(exc.value) and "\n" not in str(exc.value)


@given(st.text(max_size=20))
@example("９d")  # a full-width digit: isdigit() but no count of days
@example("99999d")
def test_any_text_is_a_day_or_a_usage_error(s):
    try:
        day = parse_date_word(s, "--since", today=TODAY)
    except UsageError:
        return
    t = s.strip().lower()
    if t in ("today", "yesterday") or t.endswith("d"):
        assert 0 <= TODAY - day  # a word or a count: today or before
    else:  # an ISO date, dashed or not
        assert date.fromordinal(day).isoformat().replace("-", "") == t.replace("-", "")


@given(st.integers(min_value=1, max_value=3000))
def test_n_days_counts_today(n):
    assert TODAY - parse_date_word(f"{n}d", "x", today=TODAY) == n - 1


def test_since_after_until_is_refused():
    with pytest.raises(UsageError, match="after"):
        DayRange.parse("2026-02-02", "2026-02-01")


def test_last_activity_day_is_local_and_tz_is_honoured(tz):
    late = "2026-03-01T23:30:00Z"
    tz("UTC")
    assert local_day(late) == date(2026, 3, 1).toordinal()
    tz("Asia/Tokyo")  # UTC+9: already the 2nd
    assert local_day(late) == date(2026, 3, 2).toordinal()
    rng = DayRange(date(2026, 3, 2).toordinal(), None)
    assert rng.holds(late)
    tz("America/New_York")  # UTC-5: still the 1st
    assert not rng.holds(late)
    assert local_day(None) is None and local_day("not a time") is None


@given(
    st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2090, 1, 1)),
    st.integers(-3, 3),
    st.integers(0, 3),
)
def test_a_range_holds_exactly_its_days(when, lo, span):
    iso = when.isoformat() + "Z"
    day = local_day(iso)
    assert day is not None
    rng = DayRange(day + lo, day + lo + span)
    assert rng.holds(iso) == (lo <= 0 <= lo + span)
    assert DayRange().holds(iso) and not DayRange().__bool__()


def test_filter_reads_rows_and_dicts():
    rows = [{"last_activity": "2026-03-01T10:00:00Z"}, {"last_activity": None}]
    assert DayRange.parse(None, None).filter(rows) == rows
    d = date(2026, 3, 1)
    one = DayRange((d - timedelta(days=1)).toordinal(), (d + timedelta(days=1)).toordinal())
    assert one.filter(rows) == rows[:1]  # an unknown time is in no bounded range

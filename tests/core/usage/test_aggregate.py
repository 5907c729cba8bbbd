"""The usage engine: one count per response, groups, zones, totals (sidtui.core.usage.aggregate)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sidtui.core.base.errors import UsageError
from sidtui.core.usage.aggregate import (
    GROUPINGS,
    FileUsage,
    LocalDays,
    aggregate,
    aggregate_files,
    dedupe,
    parse_day,
    prepare,
)
from sidtui.core.usage.events import UsageEvent, response_key

M = "claude-sonnet-4-20250514"


def ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso).timestamp() * 1000)


def ev(
    ts: str = "2025-03-01T12:00:00+00:00",
    mid: str | None = "m1",
    rid: str | None = "r1",
    i: int = 0,
    o: int = 0,
    cw: int = 0,
    cr: int = 0,
    model: str | None = M,
    file: str = "/h/projects/p/s.jsonl",
    offset: int = 0,
    session: str = "s",
    project: str = "p",
) -> UsageEvent:
    return UsageEvent(
        ms(ts), model, mid, rid, i, o, cw, cr,
        session=session, project=project, offset=offset, file=file,
        response_key=response_key(mid, rid, session),
    )  # fmt: skip


UTC0 = UTC


def test_a_response_written_over_several_lines_counts_once_with_its_final_usage() -> None:
    lines = [ev(i=3, o=1, offset=0), ev(i=3, o=40, offset=100), ev(i=3, o=12, offset=200)]
    r = aggregate(lines, tz=UTC0)
    assert [(x.input_tokens, x.output_tokens) for x in r.rows] == [(3, 40)]


def test_the_same_message_id_with_another_request_id_is_another_response() -> None:
    r = aggregate([ev(rid="r1", i=1), ev(rid="r2", i=2)], tz=UTC0)
    assert r.totals.input_tokens == 3


def test_a_message_id_without_a_request_id_is_deduped_in_its_session_and_no_id_never() -> None:
    assert aggregate([ev(rid=None, i=1), ev(rid=None, i=2)], tz=UTC0).totals.input_tokens == 2
    two = [ev(rid=None, i=1, session="A"), ev(rid=None, i=2, session="B")]
    assert aggregate(two, tz=UTC0).totals.input_tokens == 3
    assert aggregate([ev(mid=None, i=1), ev(mid=None, i=2)], tz=UTC0).totals.input_tokens == 3
    assert aggregate([ev(rid=None, i=1), ev(rid="r1", i=2)], tz=UTC0).totals.input_tokens == 3


def test_a_forked_prefix_in_two_files_counts_once_on_the_kept_lines_day() -> None:
    a = ev("2025-03-05T12:00:00+00:00", i=2, file="/h/projects/p/a.jsonl")
    b = ev("2025-03-03T12:00:00+00:00", i=2, file="/h/projects/p/b.jsonl")
    r = aggregate([b, a], tz=UTC0)
    assert [(x.key, x.input_tokens) for x in r.rows] == [("2025-03-05", 2)]  # first path


def test_ties_on_tokens_keep_the_costlier_line() -> None:
    cheap, dear = ev(i=3, o=1), ev(i=1, o=3, offset=9)
    assert dedupe([cheap, dear])[0][0] is dear
    assert dedupe([dear, cheap])[0][0] is dear


def test_sub_agent_events_count_beside_the_parents() -> None:
    parent = ev(mid="m1", i=10)
    agent = ev(mid="m2", i=1, file="/h/projects/p/s/subagents/agent-a.jsonl")
    r = aggregate([parent, agent], "session", tz=UTC0)
    assert [(x.key, x.input_tokens) for x in r.rows] == [("s", 11)]


@pytest.mark.parametrize(
    ("tz", "iso", "day"),
    [
        (ZoneInfo("Asia/Tokyo"), "2025-03-01T14:59:59.999+00:00", "2025-03-01"),
        (ZoneInfo("Asia/Tokyo"), "2025-03-01T15:00:00+00:00", "2025-03-02"),
        (ZoneInfo("America/Los_Angeles"), "2025-03-09T07:59:59+00:00", "2025-03-08"),
        (ZoneInfo("America/Los_Angeles"), "2025-03-09T08:00:00+00:00", "2025-03-09"),
        (ZoneInfo("America/Los_Angeles"), "2025-03-10T06:59:59+00:00", "2025-03-09"),
        (ZoneInfo("America/Los_Angeles"), "2025-03-10T07:00:00+00:00", "2025-03-10"),
        (ZoneInfo("Australia/Lord_Howe"), "2025-04-05T13:00:00+00:00", "2025-04-06"),
        (ZoneInfo("Asia/Kathmandu"), "2025-03-01T18:14:59+00:00", "2025-03-01"),
        (ZoneInfo("Asia/Kathmandu"), "2025-03-01T18:15:00+00:00", "2025-03-02"),
        (timezone(timedelta(hours=-5)), "2025-03-02T04:59:59+00:00", "2025-03-01"),
    ],
)
def test_days_are_local_dates_of_the_zone(tz, iso, day) -> None:
    assert [r.key for r in aggregate([ev(iso, i=1)], tz=tz).rows] == [day]


@given(
    st.integers(0, 4_102_444_800_000),
    st.sampled_from(
        ["Europe/Berlin", "America/St_Johns", "Australia/Lord_Howe", "Pacific/Chatham", "UTC"]
    ),
)
@example(1741503600000, "America/St_Johns")
def test_local_days_equal_the_zone_database(t: int, zone: str) -> None:
    tz = ZoneInfo(zone)
    want = datetime.fromtimestamp(t // 1000, tz).date().toordinal()
    assert LocalDays(tz).ordinal(t) == want


def test_weeks_are_iso_weeks_and_months_months() -> None:
    evs = [
        ev("2024-12-30T12:00:00+00:00", mid="a", i=1),
        ev("2025-01-05T12:00:00+00:00", mid="b", i=2),
        ev("2025-01-06T12:00:00+00:00", mid="c", i=4),
    ]
    assert [(r.key, r.input_tokens) for r in aggregate(evs, "week", tz=UTC0).rows] == [
        ("2025-W01", 3),
        ("2025-W02", 4),
    ]
    assert [(r.key, r.input_tokens) for r in aggregate(evs, "month", tz=UTC0).rows] == [
        ("2024-12", 1),
        ("2025-01", 6),
    ]


def test_since_and_until_are_inclusive_local_days() -> None:
    evs = [ev(f"2025-03-0{d}T12:00:00+00:00", mid=str(d), i=d) for d in range(1, 6)]
    r = aggregate(
        evs,
        tz=UTC0,
        since=parse_day("2025-03-02", "--since"),
        until=parse_day("20250304", "--until"),
    )
    assert [x.key for x in r.rows] == ["2025-03-02", "2025-03-03", "2025-03-04"]


@pytest.mark.parametrize("bad", ["2025-13-01", "yesterday", "2025-3-1", "", "2025-02-30"])
def test_bad_dates_are_usage_errors(bad) -> None:
    with pytest.raises(UsageError):
        parse_day(bad, "--since")


def test_unknown_grouping_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        aggregate([ev(i=1)], "year")


def test_a_model_without_a_price_makes_the_cost_unknown_never_zero() -> None:
    r = aggregate([ev(mid="a", i=1000, model="claude-fake-9"), ev(mid="b", i=1000)], tz=UTC0)
    row = r.rows[0]
    assert row.cost is None and row.unpriced == {"claude-fake-9"}
    assert row.to_json()["cost_usd"] is None and r.to_json()["totals"]["cost_usd"] is None
    assert row.cost_usd == pytest.approx(1000 * 3e-6)  # the priced part is kept
    r = aggregate([ev(mid="a", i=1000, model=None)], tz=UTC0)
    assert r.rows[0].unpriced == {"(no model)"}


def test_rows_without_tokens_are_left_out_but_their_models_are_named() -> None:
    assert aggregate([ev(i=0)], tz=UTC0).rows == []
    r = aggregate([ev(mid="a", model="claude-opus-4-20250514"), ev(mid="b", i=2)], tz=UTC0)
    assert r.rows[0].models == {"claude-opus-4-20250514", M}


def test_json_shape() -> None:
    d = aggregate([ev(i=1, o=2, cw=3, cr=4)], tz=UTC0).to_json()
    assert set(d) >= {"rows", "totals"}
    assert set(d["rows"][0]) == {
        "key",
        "input_tokens",
        "output_tokens",
        "cache_creation_tokens",
        "cache_read_tokens",
        "cost_usd",
        "models",
        "unpriced_models",
    }
    assert set(d["totals"]) == set(d["rows"][0]) - {"key"}


def _placed(evs: list[UsageEvent]) -> list[UsageEvent]:
    """Each event at its own place in its file (two lines never share one)."""
    for n, e in enumerate(evs):
        e.offset = n
    return evs


_events = st.lists(
    st.builds(
        ev,
        ts=st.sampled_from(
            [
                "2025-03-01T23:30:00+00:00",
                "2025-03-02T00:30:00+00:00",
                "2025-03-09T10:00:00+00:00",
                "2025-04-01T00:00:00+00:00",
            ]
        ),
        mid=st.sampled_from(["a", "b", "c", None]),
        rid=st.sampled_from(["r1", "r2", None]),
        i=st.integers(0, 300_000),
        o=st.integers(0, 50),
        cw=st.integers(0, 5),
        cr=st.integers(0, 5),
        model=st.sampled_from([M, "claude-opus-4-6", "claude-fake-9", None]),
        file=st.sampled_from(["/a.jsonl", "/b.jsonl"]),
        offset=st.integers(0, 3),
        session=st.sampled_from(["s1", "s2"]),
        project=st.sampled_from(["p1", "p2"]),
    ),
    max_size=25,
).map(_placed)


@settings(max_examples=150, deadline=None)
@given(_events, st.sampled_from(GROUPINGS), st.randoms(use_true_random=False))
def test_totals_are_the_sum_of_rows_and_order_does_not_matter(evs, by, rnd) -> None:
    tz = ZoneInfo("America/Los_Angeles")
    r = aggregate(evs, by, tz=tz)
    for f in ("input_tokens", "output_tokens", "cache_creation_tokens", "cache_read_tokens"):
        assert getattr(r.totals, f) == sum(getattr(x, f) for x in r.rows)
    assert r.totals.cost_usd == pytest.approx(sum(x.cost_usd for x in r.rows))
    assert r.totals.models == set().union(*(x.models for x in r.rows)) if r.rows else True
    shuffled = list(evs)
    rnd.shuffle(shuffled)
    assert _canon(aggregate(shuffled, by, tz=tz).to_json()) == _canon(r.to_json())


def _canon(d: dict) -> dict:
    """Costs compared to 1e-9 relative (a float sum's order may move the last bit)."""

    def c(row: dict) -> dict:
        return {**row, "cost_usd": None if row["cost_usd"] is None else round(row["cost_usd"], 9)}

    return {**d, "rows": [c(x) for x in d["rows"]], "totals": c(d["totals"])}


def test_dedupe_keeps_every_event_without_an_id() -> None:
    evs = [ev(mid=None, i=n + 1, offset=n) for n in range(3)]
    assert sorted(e.input_tokens for e, _ in dedupe(evs)) == [1, 2, 3]


@settings(max_examples=150, deadline=None)
@given(_events, st.sampled_from(GROUPINGS))
def test_per_file_summaries_give_the_same_report(evs, by) -> None:
    """What the cache stores (each file prepared and summed) reports as all the events do."""
    tz = ZoneInfo("Asia/Kathmandu")
    want = _canon(aggregate(evs, by, tz=tz).to_json())
    import copy

    files: dict[str, list[UsageEvent]] = {}
    for e in copy.deepcopy(evs):
        files.setdefault(e.file, []).append(e)
    summaries = [
        FileUsage.of(path, prepare(sorted(fe, key=lambda e: e.offset)))
        for path, fe in sorted(files.items())
    ]
    assert _canon(aggregate_files(summaries, by, tz=tz).to_json()) == want

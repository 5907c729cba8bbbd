"""The vendored price table and the cost of one response (sidtui.core.usage.pricing)."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from sidtui.core.usage.events import Refused, UsageEvent, count, optional_count, text, timestamp_ms
from sidtui.core.usage.pricing import cost_of, default_table, parse_table


def e(model, i=0, o=0, cw=0, cr=0, hour=0, cost=None, fast=False) -> UsageEvent:
    return UsageEvent(0, model, "m", "r", i, o, cw, cr, hour, cost, fast)


def test_the_table_says_its_date_and_source() -> None:
    t = default_table()
    assert t.date and "ccusage" in t.source and "Anthropic" in t.source
    raw = json.loads(resources.files("sidtui.core.usage").joinpath("prices.json").read_text())
    assert set(raw["models"]) == set(t.models)


@pytest.mark.parametrize(
    ("model", "key"),
    [
        ("claude-sonnet-4-20250514", "claude-sonnet-4"),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("claude-opus-4-1-20250805", "claude-opus-4-1"),
        ("claude-opus-4-20250514", "claude-opus-4"),
        ("claude-opus-4-6-thinking", "claude-opus-4-6"),
        ("claude-sonnet-4-5[1m]", "claude-sonnet-4-5"),
        ("anthropic/claude-sonnet-4", "claude-sonnet-4"),
        ("sonnet", "claude-sonnet-4-5"),
        ("haiku", "claude-haiku-4-5"),
        ("claude-3-5-haiku-20241022", "claude-3-5-haiku"),
        ("deepseek-chat", "deepseek-chat"),
    ],
)
def test_model_names_find_their_price(model, key) -> None:
    p = default_table().price_of(model)
    assert p is not None and p.name == key


@pytest.mark.parametrize("model", ["claude-fake-9", "gpt-4o", "", None, "claude"])
def test_unknown_models_have_no_price(model) -> None:
    assert default_table().price_of(model) is None
    assert cost_of(e(model, i=1000)) is None


def test_prices_per_kind_of_token() -> None:
    assert cost_of(e("claude-sonnet-4-6", i=1_000_000)) == pytest.approx(3)
    assert cost_of(e("claude-sonnet-4-6", o=1_000_000)) == pytest.approx(15)
    assert cost_of(e("claude-sonnet-4-6", cw=1_000_000)) == pytest.approx(3.75)
    assert cost_of(e("claude-sonnet-4-6", cw=1_000_000, hour=1_000_000)) == pytest.approx(6)
    assert cost_of(e("claude-sonnet-4-6", cr=1_000_000)) == pytest.approx(0.3)


def test_tokens_past_200k_of_a_kind_cost_more_where_the_model_has_a_tier() -> None:
    # as ccusage measured: each count's tokens past 200,000 in one response, separately
    assert cost_of(e("claude-sonnet-4-20250514", i=300_000)) == pytest.approx(1.2)
    assert cost_of(e("claude-sonnet-4-20250514", o=300_000)) == pytest.approx(5.25)
    assert cost_of(e("claude-sonnet-4-20250514", i=100_000, cr=150_000)) == pytest.approx(0.345)
    assert cost_of(e("claude-sonnet-4-20250514", cw=300_000, hour=300_000)) == pytest.approx(2.4)
    assert cost_of(e("claude-sonnet-4-6", i=300_000)) == pytest.approx(0.9)  # no tier


def test_fast_mode_multiplies_where_the_table_says() -> None:
    assert cost_of(e("claude-opus-4-6", i=1_000_000, fast=True)) == pytest.approx(30)
    assert cost_of(e("claude-sonnet-4-6", i=1_000_000, fast=True)) == pytest.approx(3)
    assert e("claude-opus-4-6", fast=True).model_name == "claude-opus-4-6-fast"


def test_a_recorded_cost_wins_and_synthetic_replies_cost_nothing() -> None:
    assert cost_of(e("claude-fake-9", i=1000, cost=5.0)) == 5.0
    assert cost_of(e("claude-sonnet-4-6", i=1000, cost=0.0)) == 0.0
    assert cost_of(e("<synthetic>", i=1000)) == 0.0


def test_parse_table_rejects_a_broken_table() -> None:
    with pytest.raises((KeyError, ValueError, TypeError)):
        parse_table({"models": {}})


@pytest.mark.parametrize(
    ("ts", "want"),
    [
        ("2025-03-01T12:00:00Z", 1740830400000),
        ("2025-03-01T12:00:00.123Z", 1740830400123),
        ("2025-03-01T13:00:00+01:00", 1740830400000),
        ("2025-03-01T11:30:00.000-00:30", 1740830400000),
        ("2025-03-01T12:00:00.5Z", None),
        ("2025-03-01T12:00:00.123456Z", None),
        ("2025-03-01T12:00:00", None),
        ("2025-03-01 12:00:00Z", None),
        ("2025-02-30T12:00:00Z", None),
        ("2025-03-01T24:00:00Z", None),
        ("2025-03-01t12:00:00z", None),
        (1740830400000, None),
        (None, None),
    ],
)
def test_strict_timestamps_are_what_ccusage_accepts(ts, want) -> None:
    assert timestamp_ms(ts) == want


def test_lenient_timestamps_need_a_zone() -> None:
    assert timestamp_ms("2025-03-01T12:00:00.123456+00:00", strict=False) == 1740830400123
    assert timestamp_ms("2025-03-01T12:00:00", strict=False) is None


@pytest.mark.parametrize("bad", [1.0, "1", True, None, -1, 1 << 64])
def test_counts_are_json_integers(bad) -> None:
    with pytest.raises(Refused):
        count(bad)
    assert count(0) == 0 and count((1 << 64) - 1) == (1 << 64) - 1


def test_optional_counts_and_texts() -> None:
    import msgspec

    assert optional_count(msgspec.UNSET) == 0
    assert optional_count(None, null_is_zero=True) == 0
    with pytest.raises(Refused):
        optional_count(None)
    assert text(msgspec.UNSET) is None and text("x") == "x"
    for bad in ("", 5, None):
        with pytest.raises(Refused):
            text(bad)

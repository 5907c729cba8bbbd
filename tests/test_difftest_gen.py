"""The differential loop's generator (``scripts/difftest/gen.py``): combined damages and the
damages the held-out run of issue 32 used (a split line, swapped lines, a second
session_start, an interrupted turn appended, an unknown record type). No oracle needed."""

from __future__ import annotations

import json
import random

import pytest

from scripts.difftest import gen


def _base() -> bytes:
    return gen.make_case(7, 8, big_share=0, skip=frozenset({0, 1, 2})).data


def test_combined_cases_get_two_or_three_damages_the_same_every_time() -> None:
    for i in range(12):
        a = gen.make_case(5, i, big_share=0, damages="combined")
        b = gen.make_case(5, i, big_share=0, damages="combined")
        assert a.data == b.data and a.tags == b.tags
        assert 2 <= len(a.damages) <= 3


def test_a_mixed_case_is_what_it_was() -> None:
    """``mixed`` (the default) draws the same count as before ``--damages`` existed."""
    assert gen.make_case(3, 1, big_share=0).tags == gen.make_case(3, 1, 0, frozenset()).tags


@pytest.mark.parametrize("seed", range(6))
def test_split_line_cuts_one_line_in_two(seed: int) -> None:
    base = _base()
    got, label = gen.split_line(base, random.Random(seed))
    assert label.startswith("split_line(")
    assert got.count(b"\n") == base.count(b"\n") + 1
    assert got.replace(b"\n", b"") == base.replace(b"\n", b"")


@pytest.mark.parametrize("seed", range(6))
def test_swap_lines_keeps_every_line(seed: int) -> None:
    base = _base()
    got, _ = gen.swap_lines(base, random.Random(seed))
    assert sorted(got.split(b"\n")) == sorted(base.split(b"\n")) and got != base


@pytest.mark.parametrize("seed", range(6))
def test_second_start_adds_a_session_start_mid_file(seed: int) -> None:
    base = _base()
    got, label = gen.second_start(base, random.Random(seed))
    lines = got.split(b"\n")[:-1]
    starts = [i for i, ln in enumerate(lines) if json.loads(ln)["type"] == "session_start"]
    assert len(starts) == 2 and starts[0] == 0, label


@pytest.mark.parametrize("seed", range(8))
def test_append_turn_hangs_an_interrupted_turn_on_the_last_record(seed: int) -> None:
    base = _base()
    got, label = gen.append_turn(base, random.Random(seed))
    assert got.startswith(base)
    new = [json.loads(ln) for ln in got[len(base) :].split(b"\n")[:-1]]
    last = json.loads(base.split(b"\n")[-2])
    assert new[0]["parentUuid"] == last["uuid"] and new[0]["type"] == "user_message"
    assert all(b["parentUuid"] == a["uuid"] for a, b in zip(new, new[1:], strict=False)), label


@pytest.mark.parametrize("seed", range(8))
def test_unknown_record_puts_a_type_the_agent_does_not_know(seed: int) -> None:
    base = _base()
    got, label = gen.unknown_record(base, random.Random(seed))
    known = {json.loads(ln)["type"] for ln in base.split(b"\n")[:-1]}
    types = {json.loads(ln)["type"] for ln in got.split(b"\n")[:-1]}
    assert types - known, label

"""gc_paused: the collector is off inside, back on after the outermost pause, and a big
load's survivors are frozen out of later collections (docs/DECISIONS.md)."""

from __future__ import annotations

import gc

import pytest

from sidtui.core.base.gcpause import gc_paused


@pytest.fixture(autouse=True)
def _collector_restored():
    was = gc.isenabled()
    gc.enable()
    gc.collect()
    yield
    gc.unfreeze()
    if not was:
        gc.disable()


def test_nested_pauses_enable_the_collector_only_after_the_outermost():
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_pause_leaves_a_disabled_collector_disabled():
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()


def test_a_big_load_is_frozen_and_a_small_one_is_not():
    before = gc.get_freeze_count()
    with gc_paused(freeze_above=1_000):
        small = [[] for _ in range(100)]
    assert gc.get_freeze_count() == before
    with gc_paused(freeze_above=1_000):
        big = [[] for _ in range(5_000)]
    assert gc.get_freeze_count() >= before + 5_000
    del small, big


def test_freeze_true_always_freezes_and_wins_over_a_threshold():
    before = gc.get_freeze_count()
    with gc_paused(freeze_above=10**9):
        with gc_paused(freeze=True):
            kept = [[] for _ in range(10)]
    assert gc.get_freeze_count() >= before + 10
    del kept

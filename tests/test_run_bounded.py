"""The hostile-input tests' child runner measures the child, not the test worker."""

from __future__ import annotations

from tests.helpers import run_bounded


def test_peak_rss_is_the_childs_own_even_from_a_big_worker():
    """A worker that grew (earlier tests) must not lend its high-water mark to the child:
    Linux carries it over fork and exec, which failed memory bounds at random."""
    ballast = bytearray(400 << 20)  # the worker now holds 400 MiB
    ballast[::4096] = b"x" * len(ballast[::4096])  # touched: resident, not just reserved
    r = run_bounded(["--version"])
    assert r.rc == 0 and not r.hung
    assert 0 < r.peak_rss < 200 << 20, r
    del ballast


def test_a_child_killed_at_the_timeout_is_hung_and_gone():
    r = run_bounded([], code="import time; time.sleep(60)", timeout=1)
    assert r.hung and r.rc == -9

"""Small helpers shared by the benchmark modules: timing side by side, result rows, data dir.

A benchmark module ``bench/bench_<topic>.py`` exposes ``run(quick: bool) -> list[dict]``;
each dict has ``name``, ``value_s``, ``baseline_s``, ``ratio``, ``target`` (text such as
``"≤ 4×"``), ``passed`` (bool, or None when informational) and optionally ``median`` /
``spread`` (``{"value": (min, max), "baseline": (min, max)}`` in seconds), ``unit`` (when
the figures are not seconds, e.g. ``"MB"``) and ``extra`` (free text).
"""

from __future__ import annotations

import gc
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

DATA = Path(__file__).resolve().parent / "_data"

#: ``python -m bench --smoke`` (the test suite's smoke run; the variable carries it to each
#: module's interpreter): ``--quick``'s code paths on the least data that still takes them,
#: one timed run a side. Never judged, never a figure to quote.
SMOKE = os.environ.get("SIDTUI_BENCH_SMOKE") == "1"


def sized(quick: bool, full: int, small: int, smoke: int | None = None) -> int:
    """A size or repeat count: ``full``, ``small`` for ``--quick``, ``smoke`` for
    ``--smoke`` (default: a tenth of ``small``, at least 1)."""
    if not quick:
        return full
    if SMOKE:
        return max(1, small // 10) if smoke is None else smoke
    return small


def tier(quick: bool) -> str:
    """The data folder of a size tier: ``full``, ``quick`` or ``smoke``."""
    return "full" if not quick else "smoke" if SMOKE else "quick"


def data_dir(*parts: str) -> Path:
    """``bench/_data/<parts>`` (gitignored), created."""
    p = DATA.joinpath(*parts)
    p.mkdir(parents=True, exist_ok=True)
    return p


def side_by_side(
    fns: dict[str, Callable[[], object]], repeat: int, *, warmup: bool = True
) -> dict[str, list[float]]:
    """Time every function ``repeat`` times, interleaved (a, b, c, a, b, c, …) so machine
    noise hits every side alike. One untimed warm-up call each first unless ``warmup`` is
    False (for expensive calls whose caches the caller has already warmed). What a call
    returns is freed after its time is taken."""
    if warmup:
        for fn in fns.values():
            fn()
    runs: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeat):
        for k, fn in fns.items():
            gc.collect()
            t0 = time.perf_counter()
            result = fn()
            runs[k].append(time.perf_counter() - t0)
            del result  # freeing what the call built is not the call's work (the CLI exits)
    return runs


def row(
    name: str,
    value_runs: list[float],
    baseline_runs: list[float],
    max_ratio: float | None,
    *,
    extra: str | None = None,
    target: str | None = None,
) -> dict:
    """A result row: medians, min–max spreads, ratio and pass/fail against ``max_ratio``."""
    v = statistics.median(value_runs)
    b = statistics.median(baseline_runs)
    ratio = v / b if b else None
    return {
        "name": name,
        "value_s": v,
        "baseline_s": b,
        "ratio": ratio,
        "target": target or (f"≤ {max_ratio:g}×" if max_ratio is not None else "reported only"),
        "passed": None if max_ratio is None or ratio is None else ratio <= max_ratio,
        "median": {"value": v, "baseline": b},
        "spread": {
            "value": (min(value_runs), max(value_runs)),
            "baseline": (min(baseline_runs), max(baseline_runs)),
        },
        "runs": len(value_runs),
        "extra": extra,
    }

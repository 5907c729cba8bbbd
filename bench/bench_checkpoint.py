"""Checkpoint benchmarks: diff cost and rebuild cost against their floors.

* ``diff_10k_vs_split`` — diff of two 10,000-line files differing in 10 lines, against
  merely splitting both into lines (target ≤ 3×).
* ``diff_100k_vs_10k`` — the same at 100,000 lines against the 10,000-line pair (≤ 12×);
  ``diff_100k_vs_10k_repeats`` with files made mostly of one repeated line.
* ``rebuild_50th_vs_apply`` — :func:`sidtui.core.checkpoints.rebuild.rebuild` at the 50th entry of a
  5,000-line file (1 gzip full + 49 diffs, from the index as stored) against applying those
  49 diffs to an in-memory line list (≤ 2×).

Measurement and baseline are timed interleaved in the same run (``perf_counter``, GC
disabled while timing); the median and the spread (max − min of the middle half, i.e. the
IQR) of each are reported.

``run(quick) -> list[dict]`` with keys ``name, value_s, baseline_s, ratio, target, passed``
(``target`` is text such as ``"≤ 3×"``, as :mod:`bench.harness` rows; ``target_ratio`` the
number; ``median``/``spread`` as harness rows; plus ``value_spread_s``, ``baseline_spread_s``, ``repeats``; the 100k rows also give
``split_floor_ratio``, how splitting alone scales from 10k to 100k lines in the same run).
Run directly: ``.venv/bin/python bench/bench_checkpoint.py [--quick]``.
"""

from __future__ import annotations

import gc
import random
import statistics
import sys
import time
from collections.abc import Callable

from bench.harness import sized
from sidtui.core.checkpoints.diff import apply_ops, compute_diff, split_lines
from sidtui.core.checkpoints.index import CheckpointIndex, encode_full
from sidtui.core.checkpoints.rebuild import rebuild


def _pair(n: int, changed: int = 10, repeats: bool = False, seed: int = 1) -> tuple[str, str]:
    rng = random.Random(seed)
    if repeats:
        a = ["    return value;"] * n
    else:
        a = [f"line {i}: " + "lorem ipsum " * rng.randint(1, 5) for i in range(n)]
    b = list(a)
    for i in rng.sample(range(n), changed):
        b[i] = f"changed line {i}"
    return "\n".join(a) + "\n", "\n".join(b) + "\n"


def _time_pair(
    work: Callable[[], object], base: Callable[[], object], repeats: int
) -> tuple[list[float], list[float]]:
    tw: list[float] = []
    tb: list[float] = []
    work()
    base()  # warm up
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeats):
            t = time.perf_counter()
            work()
            tw.append(time.perf_counter() - t)
            t = time.perf_counter()
            base()
            tb.append(time.perf_counter() - t)
            gc.collect()
    finally:
        if enabled:
            gc.enable()
    return tw, tb


def _spread(xs: list[float]) -> float:
    if len(xs) < 4:
        return max(xs) - min(xs)
    q = statistics.quantiles(xs, n=4)
    return q[2] - q[0]


def _row(name: str, tw: list[float], tb: list[float], target: float) -> dict:
    """A result row in :mod:`bench.harness`'s shape (plus IQR spreads and the numeric target)."""
    v, b = statistics.median(tw), statistics.median(tb)
    ratio = v / b if b else float("inf")
    return {
        "name": name,
        "value_s": v,
        "baseline_s": b,
        "ratio": ratio,
        "target": f"≤ {target:g}×",
        "target_ratio": target,
        "passed": ratio <= target,
        "median": {"value": v, "baseline": b},
        "spread": {"value": (min(tw), max(tw)), "baseline": (min(tb), max(tb))},
        "value_spread_s": _spread(tw),
        "baseline_spread_s": _spread(tb),
        "repeats": len(tw),
    }


def bench_diff_10k_vs_split(quick: bool = False) -> dict:
    """Diff of a 10,000-line pair (10 lines differ) vs splitting both (≤ 3×)."""
    a, b = _pair(10_000)
    tw, tb = _time_pair(
        lambda: compute_diff(a, b), lambda: (a.split("\n"), b.split("\n")), sized(quick, 41, 15, 2)
    )
    return _row("diff_10k_vs_split", tw, tb, 3.0)


def _diff_scale(name: str, repeats_text: bool, quick: bool) -> dict:
    a10, b10 = _pair(10_000, repeats=repeats_text)
    a100, b100 = _pair(100_000, repeats=repeats_text)
    reps = sized(quick, 21, 7, 2)
    tw, tb = _time_pair(lambda: compute_diff(a100, b100), lambda: compute_diff(a10, b10), reps)
    row = _row(name, tw, tb, 12.0)
    # The floor: how splitting alone scales from 10k to 100k lines on this machine
    # (allocation and cache effects make it superlinear).
    sw, sb = _time_pair(lambda: a100.split("\n"), lambda: a10.split("\n"), reps)
    row["split_floor_ratio"] = statistics.median(sw) / statistics.median(sb)
    row["extra"] = f"splitting alone scales {row['split_floor_ratio']:.1f}× in the same run"
    return row


def bench_diff_100k_vs_10k(quick: bool = False) -> dict:
    """Diff of a 100,000-line pair vs the 10,000-line pair (≤ 12×)."""
    return _diff_scale("diff_100k_vs_10k", False, quick)


def bench_diff_100k_vs_10k_repeats(quick: bool = False) -> dict:
    """The same when almost every line is an identical repeat (≤ 12×)."""
    return _diff_scale("diff_100k_vs_10k_repeats", True, quick)


def _chain(lines: int = 5_000, diffs: int = 49) -> tuple[CheckpointIndex, str, str, list[list]]:
    rng = random.Random(5)
    path = "/bench/file.txt"
    text = "\n".join(f"line {i}: " + "lorem ipsum " * rng.randint(1, 5) for i in range(lines))
    base_text = text
    idx = CheckpointIndex.empty("bench", 0)
    idx.snapshots.append(
        {
            "id": "s1",
            "timestamp": 1,
            "toolName": "edit",
            "toolSummary": path,
            "files": [
                {"filePath": path, "existedBefore": True, "type": "full", **encode_full(text)}
            ],
        }
    )
    all_ops = []
    cur = split_lines(text)
    for k in range(diffs):
        new = list(cur)
        for i in rng.sample(range(len(new)), 3):
            new[i] = f"edit {k} at {i}"
        d = compute_diff("\n".join(cur), "\n".join(new))
        all_ops.append(d["ops"])
        idx.snapshots.append(
            {
                "id": f"s{k + 2}",
                "timestamp": k + 2,
                "toolName": "edit",
                "toolSummary": path,
                "files": [{"filePath": path, "existedBefore": True, "type": "diff", "diff": d}],
            }
        )
        cur = new
    idx.data["nextId"] = diffs + 2
    idx.invalidate()
    return idx, path, base_text, all_ops


def bench_rebuild_50th_vs_apply(quick: bool = False) -> dict:
    """Rebuild at the 50th entry (1 full·gz + 49 diffs) vs applying the diffs in memory (≤ 2×)."""
    idx, path, base_text, all_ops = _chain()
    base_lines = split_lines(base_text)
    pos = len(idx.snapshots) - 1

    def apply_in_memory() -> list[str]:
        lines = base_lines
        for ops in all_ops:
            lines = apply_ops(lines, ops)
        return lines

    expect = "\n".join(apply_in_memory())
    assert rebuild(idx, path, pos).content == expect
    tw, tb = _time_pair(lambda: rebuild(idx, path, pos), apply_in_memory, sized(quick, 41, 15, 2))
    return _row("rebuild_50th_vs_apply", tw, tb, 2.0)


BENCHMARKS = [
    bench_diff_10k_vs_split,
    bench_diff_100k_vs_10k,
    bench_diff_100k_vs_10k_repeats,
    bench_rebuild_50th_vs_apply,
]


def run(quick: bool = False) -> list[dict]:
    """Run every checkpoint benchmark; one dict per benchmark (see the module docstring)."""
    return [b(quick) for b in BENCHMARKS]


if __name__ == "__main__":
    for row in run("--quick" in sys.argv):
        print(
            f"{row['name']:28} {row['value_s'] * 1e3:9.3f} ms (±{row['value_spread_s'] * 1e3:.3f})"
            f"  baseline {row['baseline_s'] * 1e3:9.3f} ms (±{row['baseline_spread_s'] * 1e3:.3f})"
            f"  ratio {row['ratio']:5.2f} {row['target']}  {'ok' if row['passed'] else 'FAIL'}"
            + (
                f"  (split alone: {row['split_floor_ratio']:.1f}×)"
                if "split_floor_ratio" in row
                else ""
            )
        )

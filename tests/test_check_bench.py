"""Smoke test of the benchmark runner: `python -m bench --smoke` runs every bench module
(``--quick``'s code paths on about a tenth of its data, one timed run a side) and writes the
report table. Never judged on timings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_bench_quick_writes_the_table(tmp_path):
    out = tmp_path / "BENCH.md"
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "--smoke", "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = out.read_text("utf-8")
    assert text.startswith("# Benchmarks")
    assert "python -m bench --smoke --out" in text and "smoke mode" in text
    for key in ("| cpu |", "| cores |", "| ram |", "| python |"):
        assert key in text
    assert "| benchmark | value | baseline | ratio | target | result |" in text
    assert "## bench_core" in text and "show's core" in text and "peak RSS" in text
    assert "ERROR" not in text
    for mod in sorted(p.stem for p in (REPO / "bench").glob("bench_*.py")):
        assert f"## {mod}" in text


def test_bench_runner_renders_rows_without_running_anything():
    sys.path.insert(0, str(REPO))
    from bench.__main__ import render

    rows = {
        "bench_x": [
            {
                "name": "a",
                "value_s": 0.5,
                "baseline_s": 0.25,
                "ratio": 2.0,
                "target": "≤ 4×",
                "passed": True,
                "spread": {"value": (0.4, 0.6), "baseline": (0.2, 0.3)},
            },
            {
                "name": "m",
                "value_s": 300.0,
                "baseline_s": 100.0,
                "unit": "MB",
                "ratio": 3.0,
                "target": "≤ 2×",
                "passed": False,
                "extra": "note",
            },
            {"name": "boom", "error": "RuntimeError: x"},
        ]
    }
    meta = {
        "command": "python -m bench",
        "date": "d",
        "elapsed": 1.0,
        "machine": {"cpu": "c", "cores": "2", "ram": "1 GiB", "os": "o", "python": "p"},
    }
    text = render(rows, {"bench_x": "doc"}, meta, quick=False)
    assert (
        "| a | 500.0 ms (400.0 ms–600.0 ms) | 250.0 ms (200.0 ms–300.0 ms) | 2.00× | ≤ 4× | **pass** |"
        in text
    )
    assert "| m | 300.0 MB | 100.0 MB | 3.00× | ≤ 2× | **FAIL** |" in text
    assert "| boom | — | — | — | — | ERROR |" in text
    assert "(quick: not judged)" in render(rows, {}, meta, quick=True)

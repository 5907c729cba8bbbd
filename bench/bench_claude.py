"""Claude Code reading benchmarks, each side by side with its baseline.

On data from :mod:`bench.gen_claude` (cached in ``bench/_data/claude``):

* a ~100 MB Claude Code session (quick: ~5 MB): the **I/O floor** (read the bytes, split
  lines) vs ``show``'s core for Claude Code
  (:func:`sidtui.core.claude.session.open_claude_session`: scan, DAG, the leaf resume
  picks, parallel-tool merge, messages, interruption, subagents, liveness — no printing),
  target ≤ 4×;
* ``ls`` over 10,000 Claude Code transcripts (quick: 200) with the real size distribution
  (median 38 KB, p90 1.1 MB, p99 4.5 MB; about 5 GB): answered warm from the session
  catalog (files unchanged: every file ``stat``-ed, rows read back, liveness recomputed)
  vs reading every file once, target ≤ 1/10; the cold fill is reported for reference.
"""

from __future__ import annotations

import os
import time

from bench.gen_claude import huge_claude_home, many_claude_home
from bench.harness import data_dir, row, side_by_side, sized, tier


def _huge(quick: bool, repeat: int) -> list[dict]:
    from sidtui.core.claude.layout import ClaudeHome, file_for_path
    from sidtui.core.claude.session import open_claude_session

    target = sized(quick, 100_000_000, 5_000_000)
    root = data_dir("claude", tier(quick), "huge-home")
    t0 = time.perf_counter()
    path = huge_claude_home(root, target)
    gen_s = time.perf_counter() - t0
    home = ClaudeHome(path.parents[2])
    cf = file_for_path(path)
    size = path.stat().st_size
    n_lines = path.read_bytes().count(b"\n")

    def floor() -> list[bytes]:
        return path.read_bytes().split(b"\n")

    def show() -> object:
        return open_claude_session(home, cf)

    runs = side_by_side({"floor": floor, "show": show}, repeat)
    v = show()
    what = f"{size / 1e6:.0f} MB, {n_lines:,} records"
    return [
        row(
            f"Claude Code show's core (open_claude_session, no printing) vs I/O floor (read + split lines), {what}",
            runs["show"],
            runs["floor"],
            4.0,
            extra=f"{len(v.messages):,} messages, {len(v.tree.tips):,} leaves "
            f"({sum(t.kind == 'parallel' for t in v.tree.tips):,} parallel-tool side leaves merged); "
            f"data generated or loaded from cache in {gen_s:.1f} s",
        )
    ]


def _ls(quick: bool, repeat: int) -> list[dict]:
    from sidtui.core.claude.layout import ClaudeHome
    from sidtui.core.index.catalog import Catalog

    n = sized(quick, 10_000, 200)
    root = data_dir("claude", tier(quick), f"many-{n}")
    t0 = time.perf_counter()
    many_claude_home(root, n)
    gen_s = time.perf_counter() - t0
    home = ClaudeHome(root)
    files = sorted(root.glob("projects/*/*.jsonl"))
    total = sum(p.stat().st_size for p in files)
    db = data_dir("claude", tier(quick), "cache") / f"catalog-{n}.sqlite3"
    cat = Catalog(home, db_path=db)
    t1 = time.perf_counter()
    cold = cat.refresh()
    cold_s = time.perf_counter() - t1

    def read_all() -> None:
        for p in files:
            with open(p, "rb", buffering=0) as fh:
                fh.readall()

    def warm() -> object:
        c = Catalog(home, db_path=db)
        c.refresh()
        rows = c.rows()
        c.close()
        return rows

    runs = side_by_side({"read": read_all, "warm": warm}, repeat)
    rows = warm()
    what = (
        f"{n:,} sessions, {total / 1e9:.2f} GB ({total / max(1, n) / 1e3:.0f} KB each on average)"
    )
    return [
        row(
            f"Claude Code ls warm (session catalog, files unchanged) vs reading every file once, {what}",
            runs["warm"],
            runs["read"],
            0.1,
            target="≤ 1/10",
            extra=f"{len(rows):,} rows; the cold fill (every file read and summarized, "
            f"{cold.changed:,} rows) took {cold_s:.1f} s once; data ready in {gen_s:.1f} s; "
            f"OS page cache warm on both sides; {os.cpu_count()} cores",
        )
    ]


def run(quick: bool = False) -> list[dict]:
    repeat = sized(quick, 7, 2)
    return [*_huge(quick, repeat), *_ls(quick, repeat)]

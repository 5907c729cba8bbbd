"""Benchmark homes: the size distribution of FORMAT.md §2.6, exact record shapes, valid chains."""

from __future__ import annotations

import random
import statistics

import orjson

from sidtui.core.base.discover import discover
from sidtui.core.base.home import Home
from sidtui.core.views.session import open_session
from sidtui.demo.scale import (
    MAX_BYTES,
    MIN_BYTES,
    P50_BYTES,
    huge_session_path,
    session_size,
    write_huge_session,
    write_scale_home,
)


def test_size_distribution_matches_the_real_one():
    rng = random.Random(0)
    sizes = sorted(session_size(rng) for _ in range(20000))
    assert MIN_BYTES <= sizes[0] and sizes[-1] <= MAX_BYTES
    assert abs(statistics.median(sizes) - P50_BYTES) / P50_BYTES < 0.05
    p95 = sizes[int(len(sizes) * 0.95)]
    assert 560 * 1024 < p95 < 690 * 1024


def test_scale_home_sessions_load_with_one_chain(tmp_path):
    stats = write_scale_home(tmp_path / "home", 12, seed=1)
    home = Home(tmp_path / "home")
    files = discover(home)
    assert stats.sessions == len(files) == 12
    assert sum(f.path.stat().st_size for f in files) == stats.bytes
    user_records = tool_records = 0
    max_merged = 0
    for sf in files:
        v = open_session(home, sf)
        assert v.loaded.loadable
        assert len(v.tree.heads) == 1 and len(v.tree.tips) == 1
        assert len(v.chain.chain) == len(v.rf.records)
        for line in sf.path.read_bytes().splitlines():
            rec = orjson.loads(line)
            if rec["type"] == "user_message":
                user_records += 1
                n = sum(b["type"] == "tool_result" for b in rec["message"]["content"])
                tool_records += n > 0
                max_merged = max(max_merged, n)
            assert list(rec)[-2:] == ["uuid", "parentUuid"]
    assert 0.85 < tool_records / user_records < 0.97  # FORMAT.md §3.3: 92%
    assert max_merged <= 8
    assert (tmp_path / "home" / "history.jsonl").exists()


def test_scale_is_deterministic(tmp_path):
    write_scale_home(tmp_path / "a", 3, seed=5)
    write_scale_home(tmp_path / "b", 3, seed=5)
    fa = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*.jsonl"))
    fb = sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*.jsonl"))
    assert fa == fb
    assert all((tmp_path / "a" / p).read_bytes() == (tmp_path / "b" / p).read_bytes() for p in fa)


def test_huge_session_small_target(tmp_path):
    path = huge_session_path(tmp_path / "home")
    stats = write_huge_session(path, 2 * 1024 * 1024, seed=0)
    assert 2 * 1024 * 1024 <= stats.bytes < 3 * 1024 * 1024
    assert 600 < stats.bytes / stats.records < 900  # ~100 MB ≈ 142k records
    home = Home(tmp_path / "home")
    (sf,) = discover(home)
    v = open_session(home, sf)
    assert v.loaded.loadable and len(v.chain.chain) == stats.records
    assert v.rf.records[-1].type == "session_end"

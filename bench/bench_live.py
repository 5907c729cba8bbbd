"""Live-layer benchmarks, each measured side by side with its baseline.

* ``append_one_vs_full_rebuild`` — one record appended to a ~100 MB session (quick: ~7k
  records) and handled by a primed :class:`~sidtui.core.live.watcher.Watcher`
  (``process_paths``: stat, ``os.pread`` of the new bytes, scan, chain extended, record
  decoded, event built) against a full rebuild of that file (read + ``scan_records`` +
  ``rebuild_chain``). Target ≤ 1/100.
* ``watch_latency`` — end to end, from just before the writer's ``write`` to the
  ``RecordsAppended`` batch reaching a subscriber, through the real watcher thread
  (watchfiles/notify, ``step=10`` ms); one append at a time, 1,000 appends (quick: 100).
  Median and p99 reported (no target set); ``watch_latency_polling`` does 50
  appends (quick: 20) with the polling fallback.
* ``catalog_warm_vs_cold`` — :meth:`Catalog.refresh` + ``rows()`` over 10,000 sessions
  (quick: 200) with an existing cache (a new ``Catalog`` object on the same database)
  against an empty cache. Target ≤ 1/10.
* ``search_vs_scan`` — :meth:`SearchIndex.search` for two words against a plain scan of
  every file for the same words (read bytes, lower-case, find both). Target ≤ 1/20. The
  one-off index fill time is given in ``extra``.

Data: :mod:`bench.gen` (the many-session home is shared with ``bench_core``; the big file is
copied to a temp dir because this benchmark appends to it).
Run directly: ``.venv/bin/python -m bench.bench_live [--quick]``.
"""

from __future__ import annotations

import gc
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import orjson

from bench.gen import huge_home, many_home
from bench.harness import data_dir, row, side_by_side, sized, tier


def _record(uuid: str, parent: str, i: int) -> bytes:
    return (
        orjson.dumps(
            {
                "type": "user_message",
                "uuid": uuid,
                "parentUuid": parent,
                "timestamp": "2026-01-01T00:00:00.000Z",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "text",
                            "text": f"follow-up prompt number {i}: tighten the login form "
                            "validation and re-run the tests",
                        }
                    ],
                },
            }
        )
        + b"\n"
    )


def _tail_uuid(path: Path) -> str:
    with open(path, "rb") as fh:
        fh.seek(max(0, path.stat().st_size - (1 << 20)))
        last = fh.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    return orjson.loads(last)["uuid"]


def _append_bench(quick: bool, tmp: Path) -> list[dict]:
    from sidtui.core.base.home import Home
    from sidtui.core.live.watcher import Watcher
    from sidtui.core.transcript.chain import rebuild_chain
    from sidtui.core.transcript.scan import scan_records

    n_records = sized(quick, 142_000, 7_000)
    src = huge_home(data_dir("core", tier(quick), "huge-home"), n_records)
    home = tmp / "huge"
    (home / "sessions" / "bench-huge").mkdir(parents=True)
    path = home / "sessions" / "bench-huge" / src.name
    shutil.copyfile(src, path)
    size = path.stat().st_size

    def full_rebuild() -> None:
        rf = scan_records(path.read_bytes())
        rebuild_chain(rf)

    w = Watcher(Home(home), force_polling=True)
    w.prime()
    parent = _tail_uuid(path)
    with open(path, "ab") as fh:  # first touch builds the tail's baseline (not timed)
        fh.write(_record("warm-0", parent, 0))
    w.process_paths([str(path)])
    parent = "warm-0"
    appends = sized(quick, 1000, 200)
    runs: list[float] = []
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        for i in range(1, appends + 1):
            uuid = f"bench-{i}"
            os.write(fd, _record(uuid, parent, i))
            parent = uuid
            gc.disable()
            t0 = time.perf_counter()
            batch = w.process_paths([str(path)])
            runs.append(time.perf_counter() - t0)
            gc.enable()
            assert len(batch) == 1 and batch[0].records[0].ref.uuid == uuid
    finally:
        os.close(fd)
    assert not w.tails[str(path)].chain.linear
    base = side_by_side({"full": full_rebuild}, sized(quick, 5, 3))["full"]
    r = row(
        "append_one_vs_full_rebuild",
        runs,
        base,
        0.01,
        target="≤ 1/100",
        extra=f"file {size / 2**20:.0f} MB, {n_records} records; {appends} appends, each "
        "handled by Watcher.process_paths (the watcher thread's work per change)",
    )
    return [r]


def _latency(quick: bool, tmp: Path, polling: bool) -> dict:
    from sidtui.core.base.home import Home
    from sidtui.core.live import events as ev
    from sidtui.core.live.watcher import Watcher

    n = (sized(quick, 50, 20)) if polling else (sized(quick, 1000, 100))
    home = tmp / ("lat-poll" if polling else "lat")
    folder = home / "sessions" / "p"
    folder.mkdir(parents=True)
    path = folder / "20260101-000000-1a7e1a7e.jsonl"
    path.write_bytes(_record("s0", None, 0).replace(b'"parentUuid":null', b'"parentUuid":null'))
    sent: dict[str, int] = {}
    lat: list[float] = []
    got = threading.Event()

    def on_batch(batch) -> None:
        now = time.perf_counter_ns()
        for e in batch:
            if isinstance(e, ev.RecordsAppended):
                for r in e.records:
                    t = sent.get(r.ref.uuid or "")
                    if t is not None:
                        lat.append((now - t) / 1e9)
                        got.set()

    w = Watcher(Home(home), on_batch, force_polling=polling, poll_interval=0.5, poll_delay_ms=50)
    w.start()
    try:
        w.ready.wait(30)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        parent = "s0"
        for i in range(1, n + 1):
            uuid = f"l{i}"
            data = _record(uuid, parent, i)
            parent = uuid
            got.clear()
            sent[uuid] = time.perf_counter_ns()
            os.write(fd, data)
            if not got.wait(30):
                raise RuntimeError(f"append {i} never reached the subscriber")
        os.close(fd)
    finally:
        w.stop()
    lat.sort()
    med = statistics.median(lat)
    p99 = lat[min(len(lat) - 1, int(round(0.99 * (len(lat) - 1))))]
    name = "watch_latency_polling" if polling else "watch_latency"
    return {
        "name": name,
        "value_s": med,
        "baseline_s": None,
        "ratio": None,
        "target": "reported only",
        "passed": None,
        "median": {"value": med},
        "p99_s": p99,
        "max_s": lat[-1],
        "runs": len(lat),
        "spread": {"value": (lat[0], lat[-1])},
        "extra": f"median {med * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms over {len(lat)} appends "
        f"({'polling, 50 ms' if polling else 'notify, step 10 ms'})",
    }


def _catalog_and_search(quick: bool, tmp: Path) -> list[dict]:
    from sidtui.core.base.home import Home
    from sidtui.core.index.catalog import Catalog
    from sidtui.core.index.files import scan_session_files
    from sidtui.core.index.search import SearchIndex

    n = sized(quick, 10_000, 200)
    root = data_dir("core", tier(quick), "many-home")
    many_home(root, n)
    home = Home(root)
    # the home is shared with other benchmarks, which may have added sessions: count them
    n = sum(1 for p, _, _ in scan_session_files(home) if p.endswith(".jsonl"))
    dbs = tmp / "dbs"
    dbs.mkdir()
    k = [0]

    def cold() -> None:
        k[0] += 1
        cat = Catalog(home, dbs / f"cold-{k[0]}.sqlite3")
        cat.refresh()
        assert len(cat.rows()) == n
        cat.close()

    warm_db = dbs / "warm.sqlite3"
    Catalog(home, warm_db).refresh()

    def warm() -> None:
        cat = Catalog(home, warm_db)
        res = cat.refresh()
        assert res.changed == 0
        assert len(cat.rows()) == n
        cat.close()

    reps = sized(quick, 3, 3)
    runs = side_by_side({"warm": warm, "cold": cold}, reps)
    out = [
        row(
            "catalog_warm_vs_cold",
            runs["warm"],
            runs["cold"],
            0.1,
            target="≤ 1/10",
            extra=f"{n} sessions",
        )
    ]

    cat = Catalog(home, warm_db)
    t0 = time.perf_counter()
    fill = SearchIndex(cat).fill()
    fill_s = time.perf_counter() - t0
    idx = SearchIndex(cat)
    words = ("snapshot", "flush")
    files = [Path(p) for p in cat.paths()]

    def search() -> None:
        idx.search(" ".join(words), limit=50)

    def scan() -> None:
        needles = [w.encode() for w in words]
        hits = 0
        for p in files:
            data = p.read_bytes().lower()
            if all(nd in data for nd in needles):
                hits += 1
        assert hits

    runs = side_by_side({"search": search, "scan": scan}, sized(quick, 3, 5))
    out.append(
        row(
            "search_vs_scan",
            runs["search"],
            runs["scan"],
            0.05,
            target="≤ 1/20",
            extra=f"{n} sessions, words {' '.join(words)!r}, 50 hits; index fill "
            f"{fill_s:.1f} s once ({fill.documents} documents)",
        )
    )
    cat.close()
    return out


def run(quick: bool) -> list[dict]:
    """Every live benchmark row (see module docstring)."""
    tmp = Path(tempfile.mkdtemp(prefix="sidtui-bench-live-"))
    try:
        out = _append_bench(quick, tmp)
        out.append(_latency(quick, tmp, polling=False))
        out.append(_latency(quick, tmp, polling=True))
        out += _catalog_and_search(quick, tmp)
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    for r in run("--quick" in sys.argv):
        ratio = f"{r['ratio']:.4f}" if r.get("ratio") is not None else "-"
        print(
            f"{r['name']:<28} value {r['value_s']:.6f}s  base {r.get('baseline_s')}  "
            f"ratio {ratio}  {r['target']}  passed={r['passed']}  {r.get('extra') or ''}"
        )

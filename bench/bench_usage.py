"""``sidtui usage --by day`` beside ccusage, cold and warm, as the CLI runs.

On a Claude Code home from :func:`bench.gen_claude.many_claude_home` (2,000 sessions, about
1 GB; quick: 200) whose message and request ids are made unique per file (the generator
reuses 48 templates, so its files would all share their responses; real files share only a
fork's or a sub-agent's): wall time of ``ccusage daily --offline --json`` (the command in
``$SIDTUI_CCUSAGE``; skipped without it) and of ``sidtui usage --by day --json`` with an
empty cache (cold: every file read, on the machine's cores) and a filled one (warm: every
file stat-ed, none read), each in a fresh process. Targets: cold ≤ 1× ccusage, warm ≤ 0.1×
cold.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.gen_claude import many_claude_home
from bench.harness import data_dir, row, side_by_side, sized, tier

_ID = re.compile(rb'"(msg|req)_([0-9a-f]{24})"')


def unique_ids_home(src: Path, dst: Path) -> Path:
    """``src`` copied to ``dst`` with every ``msg_``/``req_`` id suffixed by the file's
    number (cached by a stamp)."""
    stamp = dst / ".done-unique-v1"
    if stamp.exists():
        return dst
    shutil.rmtree(dst, ignore_errors=True)
    for n, p in enumerate(sorted(src.glob("projects/*/*.jsonl"))):
        out = dst / p.relative_to(src)
        out.parent.mkdir(parents=True, exist_ok=True)
        suffix = b"%08x" % n
        out.write_bytes(_ID.sub(lambda m, s=suffix: b'"%s_%s%s"' % (m[1], m[2], s), p.read_bytes()))
    stamp.write_text("ok")
    return dst


#: CPU seconds (user + sys) of each child run, by side: the machine may be shared, and
#: wall time then counts other processes' work too.
CPU: dict[str, list[float]] = {}


def _run(cmd: list[str], env: dict[str, str], side: str) -> None:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    CPU.setdefault(side, []).append(used)


def run(quick: bool = False) -> list[dict]:
    n = sized(quick, 2_000, 200)
    repeat = sized(quick, 5, 2)
    base = data_dir("claude", tier(quick))
    t0 = time.perf_counter()
    home = unique_ids_home(many_claude_home(base / f"many-{n}", n), base / f"usage-{n}")
    gen_s = time.perf_counter() - t0
    total = sum(p.stat().st_size for p in home.glob("projects/*/*.jsonl"))
    cache = Path(tempfile.mkdtemp(prefix="sidtui-usage-bench-"))
    env = dict(os.environ, TZ="UTC", XDG_CACHE_HOME=str(cache))
    sidtui = [sys.executable, "-m", "sidtui", "usage", "--claude-home", str(home), "--json"]

    def cold() -> None:
        shutil.rmtree(cache, ignore_errors=True)
        _run(sidtui, env, "cold")

    def warm() -> None:
        _run(sidtui, env, "warm")

    fns = {"cold": cold, "warm": warm}
    ccusage = os.environ.get("SIDTUI_CCUSAGE")
    if ccusage:
        empty = tempfile.mkdtemp(prefix="sidtui-usage-bench-home-")
        cc_env = dict(os.environ, TZ="UTC", HOME=empty, CLAUDE_CONFIG_DIR=str(home))
        fns = {
            "ccusage": lambda: _run(
                [*ccusage.split(), "daily", "--offline", "--json"], cc_env, "ccusage"
            ),
            **fns,
        }
    CPU.clear()
    try:
        runs = side_by_side(fns, repeat)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    what = f"{n:,} sessions, {total / 1e9:.2f} GB"
    note = f"fresh process each; {os.cpu_count()} cores; data ready in {gen_s:.1f} s"
    rows = [
        row(
            f"usage --by day warm (cache filled, files unchanged) vs cold, {what}",
            runs["warm"],
            runs["cold"],
            0.1,
            target="≤ 1/10",
            extra=note,
        )
    ]
    cpu = {k: v[-repeat:] for k, v in CPU.items()}  # the warm-up call left out
    rows.append(
        row(
            f"reference: CPU time (user + sys) of usage warm vs cold, {what}",
            cpu["warm"],
            cpu["cold"],
            None,
        )
    )
    if ccusage:
        rows += [
            row(
                f"reference: CPU time (user + sys) of usage cold vs ccusage, {what}",
                cpu["cold"],
                cpu["ccusage"],
                None,
            )
        ]
        rows = [
            row(
                f"usage --by day cold (empty cache) vs ccusage daily --offline --json, {what}",
                runs["cold"],
                runs["ccusage"],
                1.0,
                extra=note + f"; ccusage: {ccusage}",
            ),
            *rows,
            row(
                f"reference: usage --by day warm vs ccusage, {what}",
                runs["warm"],
                runs["ccusage"],
                None,
            ),
        ]
    return rows

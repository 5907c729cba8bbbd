"""``sidtui export`` beside claude-code-log on the ~100 MB Claude Code transcript.

The transcript is :func:`bench.gen_claude.huge_claude_home`'s (quick: 5 MB). Each side runs
as its CLI in a fresh process and writes one file: ``sidtui export PATH -o out.html`` /
``--format md -o out.md`` against ``claude-code-log PATH -o out.html`` / ``-o out.md``
(``--no-cache``; ``$HOME`` an empty folder so it reads and writes nothing of the user's;
sidtui's usage cache emptied before each run), interleaved; wall time and peak RSS
(``wait4``'s ``ru_maxrss``) of each, and their CPU time for reference (on a shared machine
wall time counts other processes' work too). claude-code-log is
found as ``$SIDTUI_CLAUDE_CODE_LOG``, else ``claude-code-log`` on ``PATH`` or beside this
interpreter (``pip install claude-code-log`` into the bench's venv: never a dependency);
without it the module reports nothing. Targets: HTML ≤ 0.1× claude-code-log's time and
≤ 0.25× its peak memory; Markdown likewise.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.gen_claude import huge_claude_home
from bench.harness import data_dir, row


def _claude_code_log() -> list[str] | None:
    named = os.environ.get("SIDTUI_CLAUDE_CODE_LOG")
    if named:
        return named.split()
    beside = Path(sys.executable).parent / "claude-code-log"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("claude-code-log")
    return [found] if found else None


def _child(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Run ``cmd``; its wall time (s), peak RSS (MB) and CPU time (user + sys, s; its own
    children's included: ``wait4`` reports them)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert p.stderr is not None
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(
            f"{cmd[:3]} exited {p.returncode}: {err[-500:].decode(errors='replace')}"
        )
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def run(quick: bool = False) -> list[dict]:
    ccl = _claude_code_log()
    if ccl is None:
        return []
    target = 5_000_000 if quick else 100_000_000
    t0 = time.perf_counter()
    path = huge_claude_home(data_dir("claude", "quick" if quick else "full", "huge-home"), target)
    gen_s = time.perf_counter() - t0
    size = path.stat().st_size
    work = Path(tempfile.mkdtemp(prefix="sidtui-export-bench-"))
    home = work / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), XDG_CACHE_HOME=str(work / "cache"), TZ="UTC")
    sidtui = [sys.executable, "-m", "sidtui", "export", str(path)]
    cmds = {
        ("sidtui", "html"): [*sidtui, "-o", str(work / "s.html")],
        ("ccl", "html"): [*ccl, str(path), "--no-cache", "-o", str(work / "c.html")],
        ("sidtui", "md"): [*sidtui, "--format", "md", "-o", str(work / "s.md")],
        ("ccl", "md"): [*ccl, str(path), "--no-cache", "-o", str(work / "c.md")],
    }
    repeat = 1 if not quick else 2
    wall: dict[tuple[str, str], list[float]] = {k: [] for k in cmds}
    rss: dict[tuple[str, str], list[float]] = {k: [] for k in cmds}
    cpu: dict[tuple[str, str], list[float]] = {k: [] for k in cmds}
    out_mb: dict[tuple[str, str], float] = {}
    try:
        for _ in range(repeat):
            for k, cmd in cmds.items():
                shutil.rmtree(work / "cache", ignore_errors=True)
                w, m, c = _child(cmd, env)
                wall[k].append(w)
                rss[k].append(m)
                cpu[k].append(c)
                out = work / (("s" if k[0] == "sidtui" else "c") + "." + k[1])
                out_mb[k] = out.stat().st_size / 1e6 if out.exists() else 0.0
    finally:
        shutil.rmtree(work, ignore_errors=True)
    what = f"{size / 1e6:.0f} MB Claude Code transcript"
    rows = []
    for fmt, name in (("html", "HTML"), ("md", "Markdown")):
        note = (
            f"fresh process each, run {repeat}× (the machine is shared); outputs "
            f"{out_mb[('sidtui', fmt)]:.0f} MB (sidtui) and {out_mb[('ccl', fmt)]:.0f} MB "
            f"(claude-code-log {' '.join(ccl[1:]) or ''}); data ready in {gen_s:.1f} s"
        )
        rows.append(
            row(
                f"export {name}: sidtui vs claude-code-log, {what}",
                wall[("sidtui", fmt)],
                wall[("ccl", fmt)],
                0.1,
                extra=note,
            )
        )
        mem = row(
            f"peak RSS of export {name}: sidtui vs claude-code-log, {what}",
            rss[("sidtui", fmt)],
            rss[("ccl", fmt)],
            0.25,
        )
        mem["unit"] = "MB"
        rows.append(mem)
        rows.append(
            row(
                f"reference: CPU time (user + sys) of export {name}: sidtui vs claude-code-log, {what}",
                cpu[("sidtui", fmt)],
                cpu[("ccl", fmt)],
                None,
            )
        )
    return rows

"""Peak memory of every reading verb on the worst JSON shapes (JSON amplification).

JSON amplification: a few bytes of text that decode to a Python object each (``[]`` is 3
bytes of a line and 64 bytes as a list). Shapes, at full size (``--quick``: a tenth):

* ``unknown-field``: a sid-code message record with a 120 MB field sidtui does not use,
  ``[[],[],…]``;
* ``tiny-blocks``: a sid-code prompt of 4 M text blocks ``{"type":"text","text":"a"}``
  (110 MB);
* ``index``: a 40 MB ``index.json`` whose extra field is ``[[],[],…]``;
* ``cc-unknown-field``: the same 120 MB field on the leaf record of a Claude Code session.

Each verb runs as the CLI in a fresh interpreter; its peak RSS (``ru_maxrss`` of the
child) is judged against the documented ceiling, 1 GiB (docs/DECISIONS.md, "Memory is
bounded by what is decoded"). ``run(quick) -> list[dict]`` (:mod:`bench.harness` rows,
``unit`` MB). Run directly, optionally against another checkout (a before/after):
``.venv/bin/python bench/bench_memory.py [--quick] [--tree DIR] [--only SHAPE]``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CEILING_MB = 1024
#: ``python -m bench --smoke`` (bench.harness.SMOKE; this file also runs on its own)
SMOKE = os.environ.get("SIDTUI_BENCH_SMOKE") == "1"
S01 = "20261130-052907-9ff3799b"
CC_SESSION = "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
FIXTURES = REPO / "tests" / "fixtures"
FULL_MB = {"unknown-field": 120, "tiny-blocks": 110, "index": 40, "cc-unknown-field": 120}
VERBS = {
    "unknown-field": ["ls", "show S --json", "check --session S", "search hello", "fork S"],
    "tiny-blocks": ["show S --json", "check --session S", "search hello", "fork S"],
    "index": ["checkpoints S", "undo S --dry-run --allow-outside-root"],
    "cc-unknown-field": ["ls", "show C --json", "check --session C", "search hello"],
}
_BLOCK = b'{"type":"text","text":"a"}'


def _bomb(nbytes: int) -> bytes:
    return b"[" + b"[]," * (nbytes // 3) + b"[]]"


def _sid_home(work: Path) -> Path:
    sys.path.insert(0, str(REPO))
    from tests.helpers import copy_real_home

    copy_real_home(work / "home", work / "projects")
    return next((work / "home").rglob(f"{S01}.jsonl"))


def build(shape: str, work: Path, mb: float) -> None:
    """The home of ``shape`` under ``work`` (``home``, ``claude``, ``projects``)."""
    nbytes = int(mb * 1e6)
    (work / "claude" / "projects").mkdir(parents=True, exist_ok=True)
    if shape == "cc-unknown-field":
        (work / "home").mkdir(parents=True, exist_ok=True)
        src = next((FIXTURES / "claude-code" / "projects").rglob(f"{CC_SESSION}.jsonl"))
        dst = work / "claude" / "projects" / src.parent.name / src.name
        dst.parent.mkdir(parents=True, exist_ok=True)
        lines = src.read_bytes().rstrip(b"\n").split(b"\n")
        lines[-1] = lines[-1][:-1] + b',"zzUnknown":' + _bomb(nbytes) + b"}"
        dst.write_bytes(b"\n".join(lines) + b"\n")
        return
    path = _sid_home(work)
    if shape == "index":
        idx = work / "home" / "checkpoints" / S01 / "index.json"
        text = idx.read_bytes().rstrip()
        idx.write_bytes(text[:-1] + b',"zzUnknown":' + _bomb(nbytes) + b"}")
        return
    lines = path.read_bytes().split(b"\n")
    i = next(n for n, line in enumerate(lines) if b'"user_message"' in line)
    rec = json.loads(lines[i])
    if shape == "unknown-field":
        lines[i] = lines[i][:-1] + b',"zzUnknown":' + _bomb(nbytes) + b"}"
    else:  # tiny-blocks
        rec["message"]["content"] = ["@"]
        head, tail = json.dumps(rec, separators=(",", ":")).encode().split(b'"@"')
        n = nbytes // (len(_BLOCK) + 1)
        lines[i] = head + b",".join([_BLOCK] * n) + tail
    path.write_bytes(b"\n".join(lines))


_PEAK = (
    "import resource,subprocess,sys;"
    "r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.PIPE);"
    "print(r.returncode,resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss*1024);"
    "sys.stderr.write(r.stderr.decode(errors='replace')[-300:])"
)


def peak(tree: Path, work: Path, verb: str) -> tuple[int, int, float, str]:
    """``(exit code, peak RSS bytes, seconds, stderr tail)`` of one CLI run."""
    argv = [{"S": S01, "C": CC_SESSION}.get(a, a) for a in verb.split()]
    argv += ["--home", str(work / "home"), "--claude-home", str(work / "claude")]
    with tempfile.TemporaryDirectory(dir=work) as cache:  # a cold search index each run
        env = {**os.environ, "PYTHONPATH": str(tree), "XDG_CACHE_HOME": cache}
        t = time.perf_counter()
        r = subprocess.run(
            [sys.executable, "-c", _PEAK, sys.executable, "-m", "sidtui", *argv],
            capture_output=True,
            text=True,
            env=env,
            cwd=work,
        )
        took = time.perf_counter() - t
    code, rss = (int(x) for x in r.stdout.split())
    return code, rss, took, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""


def measure(tree: Path, data: Path, quick: bool, only: str | None = None) -> list[dict]:
    rows = []
    for shape, full in FULL_MB.items():
        if only and shape != only:
            continue
        mb = full if not quick else full / 1000 if SMOKE else full / 10
        work = data / f"{shape}-{mb:g}"
        if not (work / ".built").exists():
            shutil.rmtree(work, ignore_errors=True)
            build(shape, work, mb)
            (work / ".built").touch()
        for verb in VERBS[shape]:
            code, rss, took, err = peak(tree, work, verb)
            rows.append(
                {
                    "shape": shape,
                    "mb": mb,
                    "verb": verb,
                    "code": code,
                    "rss": rss,
                    "s": took,
                    "err": err,
                }
            )
    return rows


def run(quick: bool = False) -> list[dict]:
    from bench.harness import data_dir

    out = []
    for r in measure(REPO, data_dir("memory"), quick):
        rss_mb = r["rss"] / 2**20
        out.append(
            {
                "name": f"peak RSS of `sidtui {r['verb']}`, {r['shape']} ({r['mb']:g} MB)",
                "value_s": rss_mb,
                "baseline_s": float(CEILING_MB),
                "ratio": rss_mb / CEILING_MB,
                "target": "≤ 1×",
                "passed": None if quick else rss_mb <= CEILING_MB,
                "unit": "MB",
                "extra": f"exit {r['code']}, {r['s']:.1f} s; baseline: the documented ceiling",
            }
        )
    return out


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--tree", type=Path, default=REPO, help="the checkout whose sidtui runs")
    ap.add_argument("--only", choices=sorted(FULL_MB))
    a = ap.parse_args()
    data = REPO / "bench" / "_data" / "memory"
    print("| shape | verb | exit | peak RSS | time |")
    print("|---|---|---|---|---|")
    for r in measure(a.tree.resolve(), data, a.quick, a.only):
        print(
            f"| {r['shape']} ({r['mb']:g} MB) | `{r['verb']}` | {r['code']} | "
            f"{r['rss'] / 2**20:,.0f} MB | {r['s']:.1f} s |",
            flush=True,
        )

"""``python -m bench [--quick | --smoke] [--out PATH] [--only NAME]``: run every benchmark.

Every module ``bench/bench_*.py`` exposes ``run(quick: bool) -> list[dict]`` (keys in
:mod:`bench.harness`); each figure is measured side by side with its baseline in the same
run, and each module runs in a fresh interpreter (as the CLI does). The report (``BENCHMARKS.md`` for a full run; a ``--quick`` or ``--only`` run prints
it unless ``--out`` is given) records the machine (CPU model, cores, RAM),
the Python version, the exact command, every figure as median and min–max spread, and each
ratio with its target and pass/fail. A module that fails is reported as an error row and the
others still run.

``--quick`` is a CI-sized smoke run on small data: it never fails on a timing (exit 0 unless
a module raised). ``--smoke`` is ``--quick`` on the least data that takes the same code paths
(about a tenth), one timed run a side: the test suite's check that every module still runs
(seconds). A full run exits 1 when a judged target is missed.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import sys
import time
import traceback
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def machine() -> dict[str, str]:
    """CPU model, cores, RAM, OS and Python of this machine."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = os.cpu_count() or 0
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = cores
    try:
        import psutil

        ram = f"{psutil.virtual_memory().total / 2**30:.1f} GiB"
    except Exception:  # noqa: BLE001 - RAM is only a label in the report
        ram = "unknown"
    return {
        "cpu": cpu,
        "cores": f"{cores} logical ({usable} usable by this process)",
        "ram": ram,
        "os": f"{platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
    }


def _load() -> float | None:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def modules(only: str | None) -> list[str]:
    names = sorted(p.stem for p in HERE.glob("bench_*.py"))
    return [n for n in names if only is None or only in n]


def _fmt(v, unit: str | None) -> str:
    if v is None:
        return "—"
    if unit and unit != "s":
        return f"{v:,.1f} {unit}"
    if v >= 1:
        return f"{v:.3f} s"
    if v >= 1e-3:
        return f"{v * 1e3:.1f} ms"
    return f"{v * 1e6:.0f} µs"


def _cell(r: dict, side: str) -> str:
    unit = r.get("unit")
    key = "value_s" if side == "value" else "baseline_s"
    med = (r.get("median") or {}).get(side, r.get(key))
    spread = (r.get("spread") or {}).get(side)
    text = _fmt(med, unit)
    if spread and spread[0] != spread[1]:
        text += f" ({_fmt(spread[0], unit)}–{_fmt(spread[1], unit)})"
    return text


def _smoke() -> bool:
    """Whether this is a ``--smoke`` run (bench.harness.SMOKE, read when rendering)."""
    return os.environ.get("SIDTUI_BENCH_SMOKE") == "1"


def _result(r: dict, quick: bool) -> str:
    if r.get("error"):
        return "ERROR"
    p = r.get("passed")
    if p is None:
        return "—"
    if quick:
        return ("pass" if p else "miss") + " (quick: not judged)"
    return "**pass**" if p else "**FAIL**"


def render(results: dict[str, list[dict]], docs: dict[str, str], meta: dict, quick: bool) -> str:
    out = [
        "# Benchmarks",
        "",
        f"Written by `{meta['command']}` on {meta['date']} in {meta['elapsed']:.0f} s"
        + (
            (" — **smoke mode: tiny data, figures meaningless**" if _smoke() else "")
            or (" — **quick mode: small data, timings not judged**" if quick else "")
        )
        + ".",
        "",
        "| machine | |",
        "|---|---|",
    ]
    for k in ("cpu", "cores", "ram", "os", "python", "load"):
        if k in meta["machine"]:
            out.append(f"| {k} | {meta['machine'][k]} |")
    out += [
        "",
        "Each figure is the median of the runs with the min–max spread in brackets; the value "
        "and its baseline were measured side by side, interleaved, in the same run; what a "
        "timed call returns is freed after its time is taken (the CLI exits instead of freeing); "
        "each module runs in a fresh interpreter, as the CLI does. "
        "Regenerate with `python -m bench` (about a few minutes; data is cached in "
        "`bench/_data/`).",
        "",
    ]
    for mod, rows in results.items():
        out += [f"## {mod}", ""]
        if docs.get(mod):
            out += [docs[mod], ""]
        out += [
            "| benchmark | value | baseline | ratio | target | result |",
            "|---|---|---|---|---|---|",
        ]
        notes = []
        for r in rows:
            if r.get("error"):
                out.append(f"| {r['name']} | — | — | — | — | ERROR |")
                notes.append(f"- {r['name']}: `{r['error']}`")
                continue
            ratio = r.get("ratio")
            out.append(
                f"| {r['name']} | {_cell(r, 'value')} | {_cell(r, 'baseline')} | "
                f"{'—' if ratio is None else f'{ratio:.2f}×'} | {r.get('target', '—')} | "
                f"{_result(r, quick)} |"
            )
            if r.get("extra"):
                notes.append(f"- {r['name']}: {r['extra']}")
        if notes:
            out += ["", *notes]
        out.append("")
    return "\n".join(out)


def _run_one(name: str, quick: bool, out: Path) -> int:
    """Run module ``name`` here and write ``{"doc", "rows"}`` as JSON to ``out``."""
    try:
        mod = importlib.import_module(f"bench.{name}")
        doc = (mod.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        rows = list(mod.run(quick))
    except Exception as exc:  # noqa: BLE001 - one failing benchmark must not hide the others
        traceback.print_exc()
        doc, rows = "", [{"name": name, "error": f"{type(exc).__name__}: {exc}"}]
    out.write_text(json.dumps({"doc": doc, "rows": rows}, default=str), encoding="utf-8")
    return 0


def _run_isolated(name: str, quick: bool) -> tuple[str, list[dict]]:
    """Run one module in a fresh interpreter, as the CLI runs: a benchmark before it in the
    same process left a heap that slowed the next one's allocations (``show``'s core read
    ~25% slower after the checkpoint benchmarks than alone)."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="sidtui-bench-") as tmp:
        out = Path(tmp) / "rows.json"
        cmd = [sys.executable, "-m", "bench", "--one", name, "--rows-to", str(out)]
        proc = subprocess.run([*cmd, "--quick"] if quick else cmd, cwd=REPO)
        try:
            got = json.loads(out.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return "", [{"name": name, "error": f"the benchmark process exited {proc.returncode}"}]
    return got["doc"], got["rows"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small data, timings never fail")
    ap.add_argument(
        "--smoke",
        action="store_true",
        help="--quick on the least data that takes the same code paths, one timed run a side "
        "(the test suite's smoke run; its figures mean nothing)",
    )
    ap.add_argument(
        "--out",
        default=None,
        help="report path (default: BENCHMARKS.md for a full run; a --quick or --only run "
        "prints its report instead, so it never replaces the run of record)",
    )
    ap.add_argument("--only", default=None, help="only modules whose name contains this")
    # internal: run one module in this (fresh) process and write its rows as JSON
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--rows-to", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.smoke:  # every module's interpreter reads it (bench.harness.SMOKE)
        os.environ["SIDTUI_BENCH_SMOKE"] = "1"
        args.quick = True
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    if args.one is not None:
        return _run_one(args.one, args.quick, Path(args.rows_to))
    t0 = time.perf_counter()
    load_before = _load()
    results: dict[str, list[dict]] = {}
    docs: dict[str, str] = {}
    for name in modules(args.only):
        print(f"bench: {name} …", file=sys.stderr, flush=True)
        t = time.perf_counter()
        docs[name], results[name] = _run_isolated(name, args.quick)
        print(f"bench: {name} done in {time.perf_counter() - t:.1f} s", file=sys.stderr, flush=True)
    cmd = "python -m bench" + (
        " " + " ".join(sys.argv[1:]) if argv is None and sys.argv[1:] else ""
    )
    if argv is not None:
        cmd = "python -m bench " + " ".join(argv)
    meta = {
        "command": cmd.strip(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "elapsed": time.perf_counter() - t0,
        "machine": machine(),
    }
    if load_before is not None:
        # Other work on the machine slows both sides of a ratio, but not always alike.
        meta["machine"]["load"] = (
            f"1-minute load average {load_before:.1f} at the start, {_load():.1f} at the end"
        )
    text = render(results, docs, meta, args.quick)
    if args.out is None and (args.quick or args.only):
        sys.stdout.write(text)
    else:
        out = Path(args.out or REPO / "BENCHMARKS.md")
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, out)
        print(f"bench: wrote {out}", file=sys.stderr)
    rows = [r for rs in results.values() for r in rs]
    if any(r.get("error") for r in rows):
        return 1
    if not args.quick and any(r.get("passed") is False for r in rows):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

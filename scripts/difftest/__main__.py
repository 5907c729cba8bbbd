"""``python -m scripts.difftest``: sidtui against the agent's own loader, on new files.

    run     generate N cases from a seed, judge each, report the classes
    case    write one generated case to a file (regenerate an example)
    check   judge given files
    vendor  store a case (input + the oracle's output) as a regression case

The oracle command comes from ``--oracle CMD`` or ``SIDTUI_ORACLE``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from scripts.difftest.compare import compare, sidtui_view
from scripts.difftest.gen import DAMAGE_COUNTS, grow, make_case
from scripts.difftest.oracle import OracleError, oracle_command, run_batch
from scripts.difftest.runner import minimize, run, write_examples
from scripts.difftest.vendor import CASES_DIR, vendor


def _run(a: argparse.Namespace) -> int:
    cmd = oracle_command(a.oracle)
    rep = run(
        cmd,
        a.seed,
        a.cases,
        start=a.start,
        batch=a.batch,
        big_share=a.big_share,
        damages=a.damages,
    )
    out = Path(a.out or tempfile.mkdtemp(prefix="sidtui-difftest-report-"))
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(rep.to_json(), indent=1))
    if a.examples:
        write_examples(cmd, rep, out, shrink=a.minimize)
    md = rep.markdown()
    (out / "report.md").write_text(md)
    print(md)
    print(f"\nreport: {out}", file=sys.stderr)
    return 0


def _case(a: argparse.Namespace) -> int:
    c = make_case(a.seed, a.index, damages=a.damages)
    out = Path(a.out) if a.out else Path(c.filename)
    if out.is_dir():
        out = out / c.filename
    out.write_bytes(c.data)
    print(f"{out}: {len(c.data)} bytes, tags {c.tags}")
    return 0


def _check(a: argparse.Namespace) -> int:
    cmd = oracle_command(a.oracle)
    files = [Path(f) for f in a.files]
    bad = 0
    for f, o in zip(files, run_batch(cmd, files), strict=True):
        diffs = compare(o, sidtui_view(f), f)
        bad += bool(diffs)
        print(f"{f}: {'agrees' if not diffs else ''}")
        for d in diffs:
            print(f"  {d.key}\n    {d.detail}")
        if diffs and a.minimize:
            small = minimize(cmd, f.read_bytes(), f.name, diffs[0].key)
            mp = f.with_suffix(".min.jsonl")
            mp.write_bytes(small)
            print(f"  minimized ({diffs[0].key}): {mp}")
    return 1 if bad else 0


def _vendor(a: argparse.Namespace) -> int:
    cmd = oracle_command(a.oracle)
    if a.file:
        data = Path(a.file).read_bytes()
        filename, pad = Path(a.file).name, None
        if a.grow:  # grown to exactly that many bytes inside a string (gen.grow)
            import random

            grown, pad = grow(data, a.grow, random.Random(a.grow))
            if pad is None:
                raise SystemExit(f"difftest: cannot grow {a.file} to {a.grow} bytes")
            assert len(grown) == a.grow
    else:
        c = make_case(a.seed, a.index, damages=a.damages)
        data, filename, pad = c.data, c.filename, c.pad
        if pad is not None:
            data = c.core
    suffix = ".json" if Path(filename).suffix == ".json" and pad is None else ".jsonl"
    name = a.name or Path(filename).stem
    written = vendor(cmd, a.cls, name, data, pad, Path(a.dir), suffix)
    for p in written:
        print(p)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m scripts.difftest", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--oracle", help="the agent's loader as a command (else $SIDTUI_ORACLE)")
    sub = ap.add_subparsers(dest="verb", required=True)
    damages_arg: dict = {
        "choices": sorted(DAMAGE_COUNTS),
        "default": "mixed",
        "help": "damages per case: mixed (0-3, mostly 1) or combined (2 or 3)",
    }
    r = sub.add_parser("run", help="generate and judge cases")
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--cases", type=int, default=5000)
    r.add_argument("--start", type=int, default=0)
    r.add_argument("--batch", type=int, default=100)
    r.add_argument("--big-share", type=float, default=0.12)
    r.add_argument("--damages", **damages_arg)
    r.add_argument("--out", help="report folder (default: a new temporary folder)")
    r.add_argument("--examples", action="store_true", help="write each class's example")
    r.add_argument("--minimize", action="store_true", help="shrink the examples (with --examples)")
    r.set_defaults(func=_run)
    c = sub.add_parser("case", help="write one generated case")
    c.add_argument("--seed", type=int, required=True)
    c.add_argument("--index", type=int, required=True)
    c.add_argument("--out")
    c.add_argument("--damages", **damages_arg)
    c.set_defaults(func=_case)
    k = sub.add_parser("check", help="judge files")
    k.add_argument("files", nargs="+")
    k.add_argument("--minimize", action="store_true")
    k.set_defaults(func=_check)
    v = sub.add_parser("vendor", help="store a regression case")
    v.add_argument("--class", dest="cls", required=True, help="the class folder name")
    v.add_argument("--name", help="the case name (default: the file's stem)")
    src = v.add_mutually_exclusive_group(required=True)
    src.add_argument("--file")
    src.add_argument("--seed", type=int)
    v.add_argument("--index", type=int)
    v.add_argument("--damages", **damages_arg)
    v.add_argument("--grow", type=int, help="with --file: grow it to this many bytes first")
    v.add_argument("--dir", default=str(CASES_DIR))
    v.set_defaults(func=_vendor)
    a = ap.parse_args(argv)
    try:
        return a.func(a)
    except OracleError as exc:
        print(f"difftest: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())

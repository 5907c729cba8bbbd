"""Compare ``sidtui show SESSION --json`` byte for byte between a git revision and the tree.

Usage::

    .venv/bin/python -m bench.compare_show_json REV HOME [HOME ...] [--file PATH ...]

Every session file under each HOME's ``sessions/`` (``*.jsonl``, ``*.json``, summaries
excluded), plus each ``--file``, is shown twice in subprocesses: once with ``REV``'s
package (``git archive REV`` unpacked in a temp folder, first on ``PYTHONPATH``) and once
with the working tree's. Prints one line per file (``same``/``DIFF`` and both wall times
and peak RSS for big files) and exits 1 if any output differs. The working tree is never
touched (no checkout).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _unpack(rev: str, dest: Path) -> None:
    tar = subprocess.run(["git", "archive", rev], cwd=REPO, capture_output=True, check=True).stdout
    import io

    with tarfile.open(fileobj=io.BytesIO(tar)) as tf:
        tf.extractall(dest, filter="data")


def _show(pythonpath: Path, home: Path, path: Path) -> tuple[int, bytes, float, int]:
    env = dict(os.environ, PYTHONPATH=str(pythonpath))
    code = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True)\n"
        "dt = time.perf_counter() - t\n"
        "sys.stdout.buffer.write(b'%d %f %d\\n' % (p.returncode, dt, "
        "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
        "sys.stdout.buffer.write(p.stdout)\n"
    )
    argv = [sys.executable, "-m", "sidtui", "--home", str(home), "show", str(path), "--json"]
    out = subprocess.run(
        [sys.executable, "-c", code, *argv],
        capture_output=True,
        env=env,
        cwd=tempfile.gettempdir(),
        check=True,
    ).stdout
    head, _, body = out.partition(b"\n")
    rc, dt, rss = head.split()
    return int(rc), body, float(dt), int(rss)


def _sessions(home: Path) -> list[Path]:
    out = []
    for p in sorted((home / "sessions").rglob("*")):
        if p.is_file() and p.suffix in (".jsonl", ".json") and "summaries" not in p.parts:
            out.append(p)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rev")
    ap.add_argument("homes", nargs="*", type=Path)
    ap.add_argument(
        "--file",
        action="append",
        type=Path,
        default=[],
        help="a session file (its home is the folder 3 levels up)",
    )
    args = ap.parse_args(argv)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        _unpack(args.rev, base)
        jobs = [(h, p) for h in args.homes for p in _sessions(h)]
        jobs += [(f.resolve().parents[2], f.resolve()) for f in args.file]
        for home, path in jobs:
            rc0, a, dt0, rss0 = _show(base, home, path)
            rc1, b, dt1, rss1 = _show(REPO, home, path)
            same = rc0 == rc1 and a == b
            bad += not same
            size = path.stat().st_size
            extra = ""
            if size > 10_000_000:
                extra = (
                    f"  {args.rev}: {dt0:.2f} s {rss0 / 1024:.0f} MB; tree: {dt1:.2f} s "
                    f"{rss1 / 1024:.0f} MB (file {size / 2**20:.0f} MB)"
                )
            print(f"{'same' if same else 'DIFF'} {len(b):>10} B  {path}{extra}", flush=True)
    print(f"{bad} differ" if bad else "all identical")
    return 1 if bad else 0


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sys.exit(main())

"""Safety snapshots: index growth and peak memory over undo/redo.

A project of 301 text files × 60 KB (≈ 18 MB), one agent batch that snapshotted every file
(fulls, as the agent's first sighting) and then changed a few lines in each; then 8
``undo``/``redo`` operations alternating (``force``), each in a fresh interpreter as the
CLI runs. Reported: ``index.json`` after the 8 operations against its size before them, and
the peak RSS of the 8th operation against the 1st.

``run(quick) -> list[dict]`` (:mod:`bench.harness` rows, ``unit`` MB; informational).
Run directly, optionally against another checkout (e.g. main, for a before/after):
``.venv/bin/python bench/bench_safety.py [--quick] [--tree DIR]``.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FILES, FILE_BYTES, OPS = 301, 60_000, 8

_OP = textwrap.dedent(
    """
    import json, resource, sys
    from pathlib import Path
    from sidtui.core.checkpoints.manager import CheckpointManager
    index, root, op = sys.argv[1:4]
    mgr = CheckpointManager(Path(index), "bench", project_root=Path(root), clock=lambda: 2)
    res = getattr(mgr, op)(force=True)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"changed": len(res.changed), "rss": rss}))
    """
)

_SETUP = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from sidtui.core.checkpoints.manager import CheckpointManager
    index, root = sys.argv[1:3]
    paths = sorted(str(p) for p in Path(root).rglob("*.py"))
    mgr = CheckpointManager(Path(index), "bench", project_root=Path(root), clock=lambda: 1)
    mgr.create_snapshot(paths, ["edit"] * len(paths), ", ".join(paths))
    """
)


def _project(root: Path, files: int, size: int) -> None:
    rng = random.Random(15)
    words = [f"name{i}" for i in range(400)] + ["return", "value", "self", "if", "for"]
    for i in range(files):
        lines, n = [], 0
        while n < size:
            ln = (
                f"    {' '.join(rng.choices(words, k=rng.randint(3, 9)))}  # {rng.randrange(10**6)}"
            )
            lines.append(ln)
            n += len(ln) + 1
        p = root / f"pkg{i % 7}" / f"mod{i}.py"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("\n".join(lines) + "\n")


def _agent_edits(root: Path) -> None:
    rng = random.Random(16)
    for p in sorted(root.rglob("*.py")):
        lines = p.read_text().split("\n")
        for j in rng.sample(range(len(lines) - 1), 3):
            lines[j] = "    # changed by the agent " + lines[j].strip()
        p.write_text("\n".join(lines))


def measure(
    tree: Path, work: Path, files: int = FILES, size: int = FILE_BYTES, ops: int = OPS
) -> dict:
    """Index sizes (bytes) and peak RSS (bytes) of each operation with ``tree``'s sidtui."""
    if work.exists():
        shutil.rmtree(work)
    root, index = work / "proj", work / "home" / "checkpoints" / "bench" / "index.json"
    _project(root, files, size)
    env = {**os.environ, "PYTHONPATH": str(tree)}
    # cwd outside any checkout: ``python -c`` puts the current folder first on sys.path.
    run_in = {"env": env, "cwd": work}
    subprocess.run([sys.executable, "-c", _SETUP, str(index), str(root)], check=True, **run_in)
    _agent_edits(root)
    sizes, rss = [index.stat().st_size], []
    for n in range(ops):
        op = "undo" if n % 2 == 0 else "redo"
        out = subprocess.run(
            [sys.executable, "-c", _OP, str(index), str(root), op],
            check=True,
            capture_output=True,
            text=True,
            **run_in,
        ).stdout
        doc = json.loads(out.strip().splitlines()[-1])
        assert doc["changed"] == files, (op, doc)
        sizes.append(index.stat().st_size)
        rss.append(doc["rss"])
    project = sum(p.stat().st_size for p in root.rglob("*.py"))
    return {"project": project, "index": sizes, "rss": rss}


def run(quick: bool = False) -> list[dict]:
    from bench.harness import data_dir, sized

    files = sized(quick, FILES, 60, 6)
    ops = sized(quick, OPS, OPS, 2)
    m = measure(REPO, data_dir("safety") / "run", files=files, ops=ops)
    mb = 1024 * 1024
    label = f"{files} files, {m['project'] / mb:.1f} MB, {ops} undo/redo"
    growth = (m["index"][-1] - m["index"][0]) / mb
    return [
        {
            "name": f"index.json growth over {label}",
            "value_s": growth,
            "baseline_s": m["project"] / mb,
            "ratio": growth / (m["project"] / mb),
            "target": "reported only",
            "passed": None,
            "unit": "MB",
            "extra": f"index {m['index'][0] / mb:.1f} → {m['index'][-1] / mb:.1f} MB; "
            "baseline: the project's size",
        },
        {
            "name": f"peak RSS of the {ops}th operation vs the 1st, {label}",
            "value_s": m["rss"][-1] / mb,
            "baseline_s": m["rss"][0] / mb,
            "ratio": m["rss"][-1] / m["rss"][0],
            "target": "reported only",
            "passed": None,
            "unit": "MB",
        },
    ]


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--tree", type=Path, default=REPO, help="the checkout whose sidtui runs")
    a = ap.parse_args()
    work = REPO / "bench" / "_data" / "safety" / ("run-" + a.tree.name)
    m = measure(a.tree.resolve(), work, files=60 if a.quick else FILES)
    mb = 1024 * 1024
    print(f"project {m['project'] / mb:.1f} MB")
    print("index MB after each op:", " ".join(f"{s / mb:.1f}" for s in m["index"]))
    print("peak RSS MB of each op:", " ".join(f"{r / mb:.0f}" for r in m["rss"]))

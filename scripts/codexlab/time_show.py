"""``sidtui show`` of a big Codex rollout beside ``codex exec resume`` of it, whole processes
(a development tool for BENCHMARKS.md; needs the lab's Codex: ``lab.py install``).

    python3 scripts/codexlab/time_show.py ROLLOUT WORKDIR [RUNS]

Copies ROLLOUT into WORKDIR's lab home, then RUNS times in turn (default 3): the real CLI
``sidtui show ID --codex-home HOME`` (stdout to /dev/null) and ``codex exec resume ID ping``
against the lab's stand-in, each a whole process timed to its exit (wall and user+sys CPU).
Prints one JSON object with every run and the median ratio.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from lab import CODEX, Lab, rollout_name, session_id_of  # noqa: E402


def _timed(cmd: list[str], **kw) -> tuple[float, float, int]:
    """``(wall s, cpu s, exit code)`` of one child process run to its exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw).returncode
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, rc


def main(argv: list[str]) -> int:
    rollout, root = Path(argv[0]), Path(argv[1])
    runs = int(argv[2]) if len(argv) > 2 else 3
    lab = Lab(root)
    sid = session_id_of(rollout)
    dest = lab.home / "sessions" / "2026" / "01" / "01" / rollout_name(rollout)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(rollout, dest)
    sidtui = [sys.executable, "-m", "sidtui", "show", sid, "--codex-home", str(lab.home)]
    out: dict[str, list] = {"sidtui": [], "codex": []}
    for i in range(runs):
        out["sidtui"].append(_timed(sidtui, env={**os.environ, "COLUMNS": "120"}))
        srv, _log, _port = lab._server([{"output": [{"text": "ok"}]}], f"time{i}")
        env = {**os.environ, "CODEX_HOME": str(lab.home), "LAB_API_KEY": "lab"}
        cmd = [str(CODEX), "exec", "--skip-git-repo-check", "resume", sid, "ping"]
        try:
            out["codex"].append(_timed(cmd, cwd=lab.work, env=env, stdin=subprocess.DEVNULL))
        finally:
            srv.terminate()
            srv.wait()
    walls = {k: statistics.median(r[0] for r in v) for k, v in out.items()}
    cpus = {k: statistics.median(r[1] for r in v) for k, v in out.items()}
    print(
        json.dumps(
            {
                "bytes": rollout.stat().st_size,
                "runs": out,
                "median_wall": walls,
                "median_cpu": cpus,
                "ratio_wall": walls["sidtui"] / walls["codex"],
                "ratio_cpu": cpus["sidtui"] / cpus["codex"],
                "load": os.getloadavg(),
            },
            indent=1,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

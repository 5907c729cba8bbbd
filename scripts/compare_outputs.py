"""Prove a change keeps ``show``, ``ls``, ``check`` and ``checkpoints`` ``--json`` byte-identical.

Usage::

    .venv/bin/python scripts/compare_outputs.py record OUT [--rev REV] [--home H] [--file F]
    .venv/bin/python scripts/compare_outputs.py compare OUT [--rev REV] [--home H] [--file F]

``record`` builds the inputs in ``OUT/inputs`` (a copy of ``tests/fixtures/real-home`` with its
projects remapped and its PIDs pointed at one that cannot exist; the demo home and the demo's
Claude Code home; a copy of the vendored Claude Code home ``tests/fixtures/claude-code``; and the
vendored loose Claude Code transcripts of ``claude-code-lab/``, ``claude-code-repair/`` and
``claude-code-rewind/``; the vendored Codex CLI lab home and the demo's Codex home, listed,
checked and each rollout shown) and writes every output to ``OUT/outputs``; ``compare`` reruns them on
the same inputs (same paths, inodes, mtimes, working directory) and prints ``same``/``DIFF`` per
output (wall time and peak RSS for files over 10 MB), exit 1 if any differs. Every session file
is shown and its checkpoints listed (``checkpoints FILE --json``; for sid-code also every
``checkpoints/<id>/`` folder by id); each home is listed (catalog cold, ``--no-cache``,
``--sidechains``) and checked. A loose transcript is read with no home at all. An output is
the exit code and stdout. ``--rev`` runs a git revision's package (``git archive`` into a temp
folder) instead of the working tree's. ``--renamed-keys`` accepts an output that differs only
in the keys the snake_case switch renamed (:data:`RENAMED_KEYS`, docs/DECISIONS.md "One
spelling for JSON keys"): both sides are read with those keys renamed and compared as values
(``same*``), so outputs recorded before the switch still prove nothing else moved.
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
FIXTURE_PREFIX = b"/tmp/sidtui-fixture-projects"
# Above PID_MAX_LIMIT (2**22) on Linux: never a running process, the same on every run.
NO_PID = 2**22 + 1
BIG = 10_000_000
#: Vendored Claude Code transcripts outside a home, shown and listed with no home flag.
CLAUDE_FILES = ("claude-code-lab", "claude-code-repair", "claude-code-rewind")


#: The ``--json`` keys renamed to snake_case (old → new), for ``--renamed-keys``.
RENAMED_KEYS = {
    "dryRun": "dry_run",
    "rootRefused": "root_refused",
    "safetySnapshot": "safety_snapshot",
    "sourceSnapshot": "source_snapshot",
    "oldBytes": "old_bytes",
    "newBytes": "new_bytes",
    "driftSource": "drift_source",
    "messageId": "message_id",
    "backupFileName": "backup_file_name",
    "sessionId": "session_id",
    "legacyMigrated": "legacy_migrated",
    "nextId": "next_id",
    "projectRoot": "project_root",
    "folderExists": "folder_exists",
    "filePath": "file_path",
    "absPath": "abs_path",
    "backupTime": "backup_time",
    "existedBefore": "existed_before",
    "hashMatches": "hash_matches",
    "fromDelta": "from_delta",
    "storedChars": "stored_chars",
    "snapshotId": "snapshot_id",
    "toolName": "tool_name",
    "toolSummary": "tool_summary",
    "promptInFile": "prompt_in_file",
    "messageIndex": "message_index",
    "restoreFrom": "restore_from",
    "checkpointExact": "checkpoint_exact",
    "badLines": "bad_lines",
    "recordsNotCopied": "records_not_copied",
    "resumeFailure": "resume_failure",
    "pendingJournal": "pending_journal",
}


def _renamed(data: bytes) -> object:
    """An output (``exit N`` line, then JSON) read with :data:`RENAMED_KEYS` applied at
    every depth (None when it is not JSON)."""
    head, _, body = data.partition(b"\n")

    def walk(v: object) -> object:
        if isinstance(v, dict):
            return {RENAMED_KEYS.get(k, k): walk(x) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x) for x in v]
        return v

    try:
        return (head, walk(orjson.loads(body)))
    except orjson.JSONDecodeError:
        return None


def _unpack(rev: str, dest: Path) -> None:
    tar = subprocess.run(["git", "archive", rev], cwd=REPO, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as tf:
        tf.extractall(dest, filter="data")


def _fixture_home(root: Path) -> Path:
    home, projects = root / "real-home", root / "real-projects"
    shutil.copytree(FIXTURES / "real-home", home)
    shutil.copytree(FIXTURES / "real-projects", projects, symlinks=True)
    for p in home.rglob("*"):
        if p.is_file():
            data = p.read_bytes()
            if FIXTURE_PREFIX in data:
                p.write_bytes(data.replace(FIXTURE_PREFIX, str(projects).encode()))
    for sub in ("active-sessions", "file-intents"):
        for p in (home / sub).glob("*.json"):
            d = orjson.loads(p.read_bytes())
            if isinstance(d, dict) and "pid" in d:
                d["pid"] = NO_PID
                p.write_bytes(orjson.dumps(d))
    return home


def _build_inputs(pythonpath: Path, inputs: Path) -> None:
    """The fixture home and the demo home (built by ``pythonpath``'s package), fresh."""
    shutil.rmtree(inputs, ignore_errors=True)
    (inputs / "cwd").mkdir(parents=True)
    _fixture_home(inputs)
    shutil.copytree(FIXTURES / "claude-code", inputs / "claude-code")
    shutil.copytree(FIXTURES / "codex-lab" / "home", inputs / "codex-lab")
    for name in CLAUDE_FILES:
        shutil.copytree(FIXTURES / name, inputs / "claude-files" / name)
    demo = inputs / "demo"
    rc, out, _, _ = _run(pythonpath, inputs, ["demo", "--dir", str(demo), "--no-open"])
    if rc or Path(out.decode().strip()) != demo / "home":
        sys.exit(f"compare_outputs: the demo home was not built in {demo / 'home'}")


def _homes(inputs: Path) -> list[tuple[str, Path]]:
    return [("real-home", inputs / "real-home"), ("demo", inputs / "demo" / "home")]


def _claude_homes(inputs: Path) -> list[tuple[str, Path]]:
    homes = [("claude-code", inputs / "claude-code")]
    if (inputs / "demo" / "claude").is_dir():
        homes.append(("demo-claude", inputs / "demo" / "claude"))
    return homes


def _codex_homes(inputs: Path) -> list[tuple[str, Path]]:
    """The vendored Codex CLI lab home and the demo's Codex home (when built)."""
    homes = [("codex-lab", inputs / "codex-lab")] if (inputs / "codex-lab").is_dir() else []
    if (inputs / "demo" / "codex").is_dir():
        homes.append(("demo-codex", inputs / "demo" / "codex"))
    return homes


def _claude_files(inputs: Path) -> list[Path]:
    return sorted((inputs / "claude-files").rglob("*.jsonl"))


def _run(pythonpath: Path, inputs: Path, args: list[str]) -> tuple[int, bytes, float, int]:
    """``sidtui ARGS`` in a subprocess: exit code, stdout, wall seconds, peak RSS (kB)."""
    cache = tempfile.mkdtemp(prefix="sidtui-compare-cache-")
    # HOME is one empty folder of the inputs (the same path every run: a file outside any
    # home prints paths under it), the catalog cache a fresh folder per run
    user = inputs / "user-home"
    user.mkdir(exist_ok=True)
    env = dict(
        os.environ, PYTHONPATH=str(pythonpath), XDG_CACHE_HOME=cache, HOME=str(user), TZ="UTC"
    )
    env.pop("SID_CONFIG_DIR", None)
    env.pop("CLAUDE_CONFIG_DIR", None)
    env.pop("CODEX_HOME", None)
    code = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True)\n"
        "dt = time.perf_counter() - t\n"
        "sys.stdout.buffer.write(b'%d %f %d\\n' % (p.returncode, dt, "
        "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
        "sys.stdout.buffer.write(p.stdout)\n"
    )
    try:
        out = subprocess.run(
            [sys.executable, "-c", code, sys.executable, "-m", "sidtui", *args],
            capture_output=True,
            env=env,
            cwd=inputs / "cwd",
            check=True,
        ).stdout
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    head, _, body = out.partition(b"\n")
    rc, dt, rss = head.split()
    return int(rc), body, float(dt), int(rss)


def _sessions(home: Path) -> list[Path]:
    return [
        p
        for p in sorted((home / "sessions").rglob("*"))
        if p.is_file() and p.suffix in (".jsonl", ".json") and "summaries" not in p.parts
    ]


def _jobs(
    homes: list[tuple[str, Path]],
    files: list[Path],
    claude_homes: Sequence[tuple[str, Path]] = (),
    claude_files: Sequence[Path] = (),
    claude_root: Path | None = None,
    codex_homes: Sequence[tuple[str, Path]] = (),
) -> list[tuple[str, list[str], Path | None]]:
    """(output name, sidtui arguments, the shown file or None) for every output."""
    jobs: list[tuple[str, list[str], Path | None]] = []

    def listings(name: str, h: list[str]) -> None:
        jobs.append((f"{name}/ls.json", [*h, "ls", "--json"], None))
        jobs.append((f"{name}/ls-no-cache.json", [*h, "ls", "--json", "--no-cache"], None))
        jobs.append(
            (f"{name}/ls-sidechains.json", [*h, "ls", "--json", "--no-cache", "--sidechains"], None)
        )
        jobs.append((f"{name}/check.json", [*h, "check", "--json"], None))

    def per_file(name: str, h: list[str], p: Path, rel: Path) -> None:
        jobs.append((f"{name}/show/{rel}.json", [*h, "show", str(p), "--json"], p))
        jobs.append((f"{name}/checkpoints/{rel}.json", [*h, "checkpoints", str(p), "--json"], p))

    for name, home in homes:
        h = ["--home", str(home)]
        listings(name, h)
        for p in _sessions(home):
            per_file(name, h, p, p.relative_to(home / "sessions"))
        if (home / "checkpoints").is_dir():
            for d in sorted((home / "checkpoints").iterdir()):
                if d.is_dir():
                    jobs.append(
                        (
                            f"{name}/checkpoints-id/{d.name}.json",
                            [*h, "checkpoints", d.name, "--json"],
                            None,
                        )
                    )
    for name, home in claude_homes:
        h = ["--claude-home", str(home)]
        listings(name, h)
        for p in sorted((home / "projects").rglob("*.jsonl")):
            per_file(name, h, p, p.relative_to(home / "projects"))
    for name, home in codex_homes:  # a rollout has no checkpoints: show only
        h = ["--codex-home", str(home)]
        listings(name, h)
        for p in sorted((home / "sessions").rglob("rollout-*.jsonl")):
            rel = p.relative_to(home / "sessions")
            jobs.append((f"{name}/show/{rel}.json", [*h, "show", str(p), "--json"], p))
    for p in claude_files:
        assert claude_root is not None
        per_file("claude-files", [], p, p.relative_to(claude_root))
    for f in files:
        f = f.resolve()
        jobs.append(
            (f"files/{f.name}.json", ["--home", str(f.parents[2]), "show", str(f), "--json"], f)
        )
    return jobs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=("record", "compare"))
    ap.add_argument("out", type=Path, help="the folder of inputs and recorded outputs")
    ap.add_argument("--rev", help="run this git revision's package instead of the tree's")
    ap.add_argument("--home", action="append", type=Path, default=[], help="one more home")
    ap.add_argument(
        "--file",
        action="append",
        type=Path,
        default=[],
        help="one more session file (its home is the folder 3 levels up)",
    )
    ap.add_argument(
        "--renamed-keys",
        action="store_true",
        help="count an output differing only in the snake_case renames as the same",
    )
    ap.add_argument("-j", "--jobs", type=int, default=4, help="parallel runs (default 4)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        pythonpath = REPO
        if args.rev:
            pythonpath = Path(tmp)
            _unpack(args.rev, pythonpath)
        out = args.out.resolve()
        inputs, outputs = out / "inputs", out / "outputs"
        if args.mode == "record":
            _build_inputs(pythonpath, inputs)
            shutil.rmtree(outputs, ignore_errors=True)
        elif not outputs.is_dir():
            sys.exit(f"compare_outputs: nothing recorded in {out} (run record first)")
        homes = _homes(inputs) + [(h.name, h.resolve()) for h in args.home]
        jobs = _jobs(
            homes,
            args.file,
            _claude_homes(inputs),
            _claude_files(inputs),
            inputs / "claude-files",
            _codex_homes(inputs),
        )
        with ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(lambda j: _run(pythonpath, inputs, j[1]), jobs))
    bad = 0
    for (name, _, shown), (rc, body, dt, rss) in zip(jobs, results, strict=True):
        data = b"exit %d\n" % rc + body
        target = outputs / name
        if args.mode == "record":
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            continue
        old = target.read_bytes() if target.is_file() else None
        same = old == data
        renamed = False
        if not same and old is not None and args.renamed_keys:
            renamed = same = (r := _renamed(data)) is not None and r == _renamed(old)
        bad += not same
        extra = ""
        if shown is not None and shown.stat().st_size > BIG:
            extra = f"  {dt:.2f} s {rss / 1024:.0f} MB (file {shown.stat().st_size / 2**20:.0f} MB)"
        print(
            f"{('same*' if renamed else 'same') if same else 'DIFF'} {len(body):>10} B  {name}{extra}",
            flush=True,
        )
    if args.mode == "record":
        print(f"recorded {len(jobs)} outputs in {outputs}")
        return 0
    recorded = {str(p.relative_to(outputs)) for p in outputs.rglob("*") if p.is_file()}
    missing = recorded - {name for name, _, _ in jobs}
    for name in sorted(missing):
        print(f"GONE {name}")
    bad += len(missing)
    print(
        f"{bad} of {len(recorded | {n for n, _, _ in jobs})} differ"
        if bad
        else f"all {len(jobs)} identical"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sys.exit(main())

"""Storing a case as a regression case: the input and the oracle's output, verbatim.

``tests/fixtures/oracle-cases/<class>/<name>.jsonl`` + ``<name>.jsonl.oracle.json``. A big
case (grown past the agent's 4 MiB threshold) stores its small core instead,
``<name>.core.jsonl`` + ``<name>.big.json`` (where the filler goes and how long it is);
``tests.helpers.oracle_case_input`` rebuilds the exact bytes, and the oracle's output was
made from those bytes at ``<name>.jsonl``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from scripts.difftest.gen import FILLER_UNIT, REPO
from scripts.difftest.oracle import run_raw

CASES_DIR = REPO / "tests" / "fixtures" / "oracle-cases"


def vendor(
    cmd: Sequence[str],
    cls: str,
    name: str,
    data: bytes,
    pad: tuple[int, int] | None,
    root: Path = CASES_DIR,
    suffix: str = ".jsonl",
) -> list[Path]:
    """Write the case ``cls/name`` (``data`` is the core when ``pad`` is given); the
    paths written. ``suffix``: ``.json`` for a v1 whole-file session (never grown)."""
    folder = root / cls
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{name}{suffix}"
    written = []
    if pad is None:
        target.write_bytes(data)
        written.append(target)
    else:
        at, n = pad
        core = folder / f"{name}.core.jsonl"
        core.write_bytes(data)
        spec = folder / f"{name}.big.json"
        spec.write_text(
            json.dumps(
                {
                    "insert_at": at,
                    "length": n,
                    "filler": FILLER_UNIT.decode(),
                    "size": len(data) + n,
                }
            )
            + "\n"
        )
        unit = FILLER_UNIT
        target.write_bytes(data[:at] + (unit * (n // len(unit) + 1))[:n] + data[at:])
        written += [core, spec]
    try:
        rel = target.relative_to(REPO)
        raw = run_raw(cmd, [rel])[0] if Path.cwd() == REPO else run_raw(cmd, [target])[0]
    finally:
        if pad is not None:
            target.unlink()
    out = json.loads(raw.decode("utf-8", "surrogatepass"))
    if out.get("error"):
        raise RuntimeError(f"the oracle could not read {target}: {out['error']}")
    o = folder / f"{name}{suffix}.oracle.json"
    o.write_bytes(raw + b"\n")  # verbatim: one line, as the oracle printed it
    written.append(o)
    return written

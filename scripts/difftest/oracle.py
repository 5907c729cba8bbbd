"""Running the agent's loader as a command (``oracle --batch FILE...``).

The command comes from ``--oracle`` or the ``SIDTUI_ORACLE`` environment variable; it is
never built in. Its stdout is one JSON object per input file, in input order, one per
line — split on ``\\n`` only: the objects may hold a raw U+2028, which ``str.splitlines``
would take for a line end.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ENV = "SIDTUI_ORACLE"


class OracleError(RuntimeError):
    """The oracle command is missing, failed, or printed something unexpected."""


def oracle_command(arg: str | None) -> list[str]:
    """The oracle command as argv, from ``arg`` or :data:`ENV`.

    Raises:
        OracleError: neither is set.
    """
    cmd = arg or os.environ.get(ENV)
    if not cmd:
        raise OracleError(f"no oracle command: pass --oracle CMD or set {ENV}")
    return shlex.split(cmd)


def start_batch(cmd: Sequence[str], files: Sequence[Path]) -> subprocess.Popen:
    """Start ``cmd --batch -`` on ``files`` (paths on stdin); read it with :func:`finish`."""
    proc = subprocess.Popen(
        [*cmd, "--batch", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None
    proc.stdin.write("".join(f"{p}\n" for p in files).encode())
    proc.stdin.close()
    return proc


def finish(proc: subprocess.Popen, count: int) -> list[dict[str, Any]]:
    """The ``count`` objects a :func:`start_batch` process prints.

    Raises:
        OracleError: it failed or printed another number of objects.
    """
    assert proc.stdout is not None
    raw = proc.stdout.read()
    rc = proc.wait()
    rows = [json.loads(x) for x in raw.decode("utf-8", "surrogatepass").split("\n") if x.strip()]
    if len(rows) != count:
        raise OracleError(f"oracle exited {rc} with {len(rows)} objects for {count} files")
    return rows


def run_raw(cmd: Sequence[str], files: Sequence[Path]) -> list[bytes]:
    """The oracle's output line for each file, as printed (no newline)."""
    if not files:
        return []
    proc = start_batch(cmd, files)
    assert proc.stdout is not None
    raw = proc.stdout.read()
    rc = proc.wait()
    rows = [x for x in raw.split(b"\n") if x.strip()]
    if len(rows) != len(files):
        raise OracleError(f"oracle exited {rc} with {len(rows)} objects for {len(files)} files")
    return rows


def run_batch(cmd: Sequence[str], files: Sequence[Path]) -> list[dict[str, Any]]:
    """The oracle's object for each file, in order."""
    if not files:
        return []
    return finish(start_batch(cmd, files), len(files))

"""Running the Claude Code lab (``lab resume FILE...``, ``lab run SCENARIO DIR``) and
normalising what it captured.

The command comes from ``--lab CMD`` or the ``SIDTUI_CLAUDE_LAB`` environment variable; it
is never built in (the lab lives outside the project and the suite never needs it).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ENV = "SIDTUI_CLAUDE_LAB"
REMINDER = "<system-reminder>"


class LabError(RuntimeError):
    """The lab command is missing, failed, or printed something unexpected."""


def lab_command(arg: str | None) -> list[str]:
    """The lab command as argv, from ``arg`` or :data:`ENV`.

    Raises:
        LabError: neither is set.
    """
    cmd = arg or os.environ.get(ENV)
    if not cmd:
        raise LabError(f"no lab command: pass --lab CMD or set {ENV}")
    return shlex.split(cmd)


def lab_resume(cmd: Sequence[str], files: Sequence[Path]) -> list[dict[str, Any]]:
    """One lab answer per file (``lab resume FILE...``), in order, normalised
    (:func:`normalise`).

    Raises:
        LabError: the lab printed no answer for some file.
    """
    if not files:
        return []
    proc = subprocess.run(
        ["nice", *cmd, "resume", *map(str, files)], capture_output=True, check=False
    )
    out = [json.loads(x) for x in proc.stdout.decode("utf-8").split("\n") if x.strip()]
    if len(out) != len(files):
        tail = proc.stderr.decode("utf-8", "replace")[-400:]
        raise LabError(f"lab answered {len(out)} of {len(files)} files: {tail}")
    return [normalise(a) for a in out]


def lab_run(cmd: Sequence[str], scenario: Path, out: Path) -> dict[str, Any]:
    """Play ``scenario`` into ``out`` (``lab run``); its ``result.json``."""
    proc = subprocess.run(
        ["nice", *cmd, "run", str(scenario), str(out)], capture_output=True, check=False
    )
    res = out / "result.json"
    if not res.exists():
        tail = proc.stderr.decode("utf-8", "replace")[-400:]
        raise LabError(f"lab run {scenario} wrote no result: {tail}")
    return json.loads(res.read_text())


def normalise(answer: dict[str, Any]) -> dict[str, Any]:
    """The lab's answer as sidtui's ``resume`` states it: ``{"messages", "error"}``.

    Text blocks starting with ``<system-reminder>`` (Claude Code's own context) and the
    PING text are left out; a turn left empty goes too.
    """
    if not answer.get("ok"):
        return {"messages": None, "error": answer.get("error") or "failed"}
    ping = answer.get("ping")
    turns = []
    for m in answer.get("messages") or []:
        blocks = [
            b
            for b in m["blocks"]
            if not (
                b.get("type") == "text"
                and isinstance(b.get("text"), str)
                and (b["text"].startswith(REMINDER) or b["text"] == ping)
            )
        ]
        if any(b.get("type") == "text" and b.get("text") == ping for b in m["blocks"]):
            # the join with the new prompt: Claude Code ends the text before it with "\n"
            last = blocks[-1] if blocks else None
            if last and last.get("type") == "text" and last["text"].endswith("\n"):
                blocks[-1] = {**last, "text": last["text"][:-1]}
        if blocks:
            turns.append({"role": m["role"], "blocks": blocks})
    return {"messages": turns, "error": None}

"""Storing a case as a regression case: the transcript and the lab's answer for it.

``tests/fixtures/claude-code-lab/<class>/<name>/<stem>.jsonl`` + ``<stem>.lab.json``: the
lab's answer normalised (:func:`scripts.ccdifftest.lab.normalise`: ``messages``, ``error``)
with the Claude Code version, how the input was made and whether sidtui agreed when it was
stored. A case whose input is one of the vendored real transcripts stores only the answer,
``real/<stem>.lab.json``, naming the transcript by its path under ``tests/fixtures/``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
CASES_DIR = REPO / "tests" / "fixtures" / "claude-code-lab"
AGENT_VERSION = "2.1.332"


def vendor(
    cls: str,
    name: str,
    data: bytes | None,
    stem: str,
    answer: dict[str, Any],
    made: str,
    agrees: bool,
    fixture: str | None = None,
    root: Path = CASES_DIR,
) -> Path:
    """Write one case; returns the ``.lab.json`` path. ``data`` None: ``fixture`` (a path
    under ``tests/fixtures/``) is the input."""
    folder = root / cls if fixture else root / cls / name
    folder.mkdir(parents=True, exist_ok=True)
    if data is not None:
        (folder / f"{stem}.jsonl").write_bytes(data)
    out = folder / f"{stem}.lab.json"
    doc = {
        "agent": "claude-code",
        "agent_version": AGENT_VERSION,
        "made": made,
        "sidtui_agreed": agrees,
        **({"input": fixture} if fixture else {}),
        "messages": answer["messages"],
        "error": answer["error"],
    }
    out.write_text(json.dumps(doc, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    return out

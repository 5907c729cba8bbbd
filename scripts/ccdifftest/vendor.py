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


#: Record types 2.1.332 writes that carry Claude Code's own request text (system prompt,
#: tool descriptions): left out of vendored inputs.
REQUEST_TYPES = frozenset({"api-request", "api-request-blob", "api-request-shape", "tools-used"})


def scrub(data: bytes) -> bytes:
    """A lab-written transcript without Claude Code's own prompt text: request records
    dropped, attachment payloads cut to their type (the lab's answer must be taken for the
    scrubbed bytes). Lines that do not parse are kept as they are."""
    out = []
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except ValueError:
            out.append(line)
            continue
        if not isinstance(d, dict) or d.get("type") in REQUEST_TYPES:
            continue
        a = d.get("attachment")
        if d.get("type") == "attachment" and isinstance(a, dict):
            d["attachment"] = {"type": a.get("type")}
            for k in ("rendered", "renderedRole"):
                d.pop(k, None)
        out.append(json.dumps(d, ensure_ascii=False, separators=(",", ":")).encode())
    return b"\n".join(out) + b"\n"


def restamp(root: Path = CASES_DIR) -> list[Path]:
    """Set ``sidtui_agreed`` of every stored case to what sidtui says now (the lab's answer
    is kept as it is); returns the cases whose flag changed."""
    from scripts.ccdifftest.compare import first_difference, sidtui_resume

    changed = []
    for case in sorted(root.rglob("*.lab.json")):
        doc = json.loads(case.read_text(encoding="utf-8"))
        src = (
            REPO / "tests" / "fixtures" / doc["input"]
            if "input" in doc
            else case.with_name(case.name[: -len(".lab.json")] + ".jsonl")
        )
        lab = {"messages": doc["messages"], "error": doc["error"]}
        agrees = first_difference(lab, sidtui_resume(src)) is None
        if agrees != doc["sidtui_agreed"]:
            doc["sidtui_agreed"] = agrees
            case.write_text(json.dumps(doc, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
            changed.append(case)
    return changed

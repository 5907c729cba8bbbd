"""What ``sidtui show`` of a Codex session computes and prints, without the CLI (whose
verbs read Codex once they are source-blind): for the side-by-side timing against
``codex exec resume`` (docs/CODEX.md §11). A development tool.

    .venv/bin/python scripts/codexlab/show_core.py HOME ROLLOUT > /dev/null
"""

from __future__ import annotations

import sys
from pathlib import Path

import msgspec

from sidtui.core.codex.layout import CodexHome, file_for_path
from sidtui.core.sources.codex import CodexSource


def main(argv: list[str]) -> int:
    src = CodexSource(CodexHome(argv[0]))
    v = src.open(file_for_path(Path(argv[1])))
    out = sys.stdout
    out.write(msgspec.json.encode(v.summary()).decode() + "\n")
    out.write(msgspec.json.encode(v.resume.to_json()).decode() + "\n")
    for w in v.warnings:
        out.write(f"warning: {w}\n")
    out.write(f"{len(v.turns)} turns, {len(v.messages)} messages, {len(v.prompts)} prompts\n")
    for m in v.messages[-40:]:
        out.write(f"{m.index:>6} {m.role:<9} {m.preview(100)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

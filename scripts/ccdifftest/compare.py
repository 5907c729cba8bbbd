"""sidtui's resume prediction against the lab's capture, exactly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sidtui.core.claude.layout import file_for_path
from sidtui.core.claude.resume import predict_for
from sidtui.core.claude.transcript import load_transcript


def sidtui_resume(path: Path) -> dict[str, Any]:
    """sidtui's ``resume`` for ``path`` (the ``show --json`` object)."""
    tr = load_transcript(file_for_path(path))
    return predict_for(tr).to_json()


def first_difference(lab: dict[str, Any], ours: dict[str, Any]) -> str | None:
    """None when they agree; else one line naming the first difference."""
    if lab["error"] is not None or ours["error"] is not None:
        if (lab["error"] is None) != (ours["error"] is None):
            return f"error: lab {lab['error']!r}, sidtui {ours['error']!r}"
        return None
    a, b = lab["messages"], ours["messages"]
    for k, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            if x["role"] != y["role"]:
                return f"turn {k}: role lab {x['role']} sidtui {y['role']}"
            for j, (bx, by) in enumerate(zip(x["blocks"], y["blocks"], strict=False)):
                if bx != by:
                    return f"turn {k} block {j}: lab {_short(bx)} sidtui {_short(by)}"
            return (
                f"turn {k} ({x['role']}): lab {len(x['blocks'])} blocks, sidtui "
                f"{len(y['blocks'])} (extra: {_short((x['blocks'] + y['blocks'])[min(len(x['blocks']), len(y['blocks']))])})"
            )
    if len(a) != len(b):
        extra = (a if len(a) > len(b) else b)[min(len(a), len(b))]
        return f"turns: lab {len(a)}, sidtui {len(b)} (next: {extra['role']} {[_short(x) for x in extra['blocks'][:3]]})"
    return None


def _short(b: dict[str, Any]) -> str:
    if b.get("type") == "text":
        return f"text {str(b.get('text'))[:50]!r}"
    return str(b)

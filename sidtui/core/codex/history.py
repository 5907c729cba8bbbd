"""What ``codex exec resume`` sends: the resume prediction (docs/CODEX.md §4).

Checked against the real Codex 0.169.0 on every vendored lab case
(tests/fixtures/codex-lab/). The request's ``input`` is the base instructions (written
afresh, not from the rollout), then the history rebuilt from the rollout, then whatever
context the new turn adds and the new prompt. The history is:

1. every ``response_item`` payload in file order, where a ``compacted`` record with a
   ``replacement_history`` replaces all the items before it by that list;
2. without the ``internal_chat_message_metadata_passthrough`` field (and the line's
   ``metadata``, which is outside the payload);
3. an output (``function_call_output``, ``custom_tool_call_output``) whose call is not
   before it is dropped (lost);
4. a call without an output gets one: ``{"type": "function_call_output", "call_id",
   "output": "aborted"}`` after it (added; Codex gives it an id of its own making).

Lines Codex cannot read and records of types it does not know are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sidtui.core.codex.rollout import Rollout

DROPPED_FIELDS = ("internal_chat_message_metadata_passthrough",)
CALLS = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "local_shell_call": "function_call_output",
}
OUTPUTS = frozenset(CALLS.values())
ABORTED = "aborted"


@dataclass
class Item:
    """One history item: the payload Codex sends, and the record it comes from
    (None: added by Codex; ``compacted``: from a compaction's replacement history)."""

    payload: dict[str, Any]
    record: int | None
    compacted: bool = False

    @property
    def type(self) -> str:
        t = self.payload.get("type")
        return t if isinstance(t, str) else ""


@dataclass
class ResumePrediction:
    """The history a resume sends, and how it differs from the items on disk.

    Attributes:
        items: in the order sent.
        lost: records whose item is not sent (``record``, ``reason``): outputs without
            their call. Items replaced by a compaction are not lost: ``replaced`` counts
            them.
        added: items Codex adds (the "aborted" outputs of calls left without one).
        compactions: ``compacted`` records that replaced the history.
    """

    items: list[Item] = field(default_factory=list)
    lost: list[dict[str, Any]] = field(default_factory=list)
    added: list[Item] = field(default_factory=list)
    replaced: int = 0
    compactions: int = 0

    def payloads(self) -> list[dict[str, Any]]:
        return [i.payload for i in self.items]

    def to_json(self) -> dict[str, Any]:
        return {
            "items": len(self.items),
            "lost": self.lost,
            "added": [i.payload for i in self.added],
            "replaced_by_compaction": self.replaced,
            "compactions": self.compactions,
        }


def clean(payload: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in payload.items() if k not in DROPPED_FIELDS}


def predict(rollout: Rollout) -> ResumePrediction:
    """The resume prediction of ``rollout`` (see the module docstring)."""
    out = ResumePrediction()
    items: list[Item] = []
    for r in rollout.records:
        if r.type == "response_item":
            items.append(Item(clean(r.payload), r.index))
        elif r.type == "compacted":
            repl = r.payload.get("replacement_history")
            if isinstance(repl, list):
                out.replaced += len(items)
                out.compactions += 1
                items = [Item(clean(p), r.index, True) for p in repl if isinstance(p, dict)]
    calls: set[str] = set()
    outputs = {
        i.payload.get("call_id") for i in items if i.type in OUTPUTS and i.payload.get("call_id")
    }
    for it in items:
        cid = it.payload.get("call_id")
        if it.type in OUTPUTS:
            if cid not in calls:
                out.lost.append({"record": it.record, "reason": "output without its call"})
                continue
        out.items.append(it)
        if it.type in CALLS and isinstance(cid, str):
            calls.add(cid)
            if cid not in outputs:
                added = Item({"type": CALLS[it.type], "call_id": cid, "output": ABORTED}, None)
                out.items.append(added)
                out.added.append(added)
    return out

"""What ``codex exec resume`` sends: the resume prediction (docs/CODEX.md §4).

Checked against the real Codex 0.169.0 on every vendored lab case
(tests/fixtures/codex-lab/). The request's ``input`` is the base instructions (written
afresh, not from the rollout), then the history rebuilt from the rollout, then whatever
context the new turn adds and the new prompt. The history is:

0. for a fork (``session_meta.history_base``): the history of the session it names, up to
   the byte offset (else ordinal) it names, itself rebuilt by these rules (steps 0-1);
1. every ``response_item`` payload in file order, where a ``compacted`` record with a
   ``replacement_history`` replaces all the items before it by that list; without the
   ``internal_chat_message_metadata_passthrough`` field (the line's ``metadata`` is
   outside the payload);
2. an output (``function_call_output``, ``custom_tool_call_output``) whose call is not
   before it is dropped (lost);
3. a call without an output gets one: ``{"type": "function_call_output", "call_id",
   "output": "aborted"}`` right after it (added; Codex gives it an id of its own making).

Lines Codex cannot read and records of types it does not know are skipped.
"""

from __future__ import annotations

from collections.abc import Callable
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
#: Forks of forks followed at most this deep (a loop of ``history_base`` ends there).
MAX_BASE_DEPTH = 64

#: Reads the rollout of a session id in the same home (None: not there).
Loader = Callable[[str], Rollout | None]


@dataclass
class Item:
    """One history item: the payload Codex sends, where it comes from.

    Attributes:
        record: its record's index in its rollout (None: added by Codex).
        base: the session id whose rollout holds it when that is a fork's base ("": this
            rollout).
        compacted: from a compaction's replacement history (``record`` is the compaction's).
        added: made by Codex on resume (an "aborted" output).
    """

    payload: dict[str, Any]
    record: int | None
    base: str = ""
    compacted: bool = False
    added: bool = False

    @property
    def type(self) -> str:
        t = self.payload.get("type")
        return t if isinstance(t, str) else ""


@dataclass
class ResumePrediction:
    """The history a resume sends, and how it differs from the items on disk.

    Attributes:
        items: in the order sent.
        lost: items not sent (``record``, ``base``, ``reason``): outputs without their call.
            Items replaced by a compaction are not lost: ``replaced`` counts them.
        added: items Codex adds (the "aborted" outputs of calls left without one).
        compactions: ``compacted`` records that replaced the history.
        bases: the sessions a fork's history comes from, nearest first
            (``session_id``, ``found``, ``items``).
    """

    items: list[Item] = field(default_factory=list)
    lost: list[dict[str, Any]] = field(default_factory=list)
    added: list[Item] = field(default_factory=list)
    replaced: int = 0
    compactions: int = 0
    bases: list[dict[str, Any]] = field(default_factory=list)

    def payloads(self) -> list[dict[str, Any]]:
        return [i.payload for i in self.items]

    def to_json(self) -> dict[str, Any]:
        return {
            "items": len(self.items),
            "lost": self.lost,
            "added": [i.payload for i in self.added],
            "replaced_by_compaction": self.replaced,
            "compactions": self.compactions,
            "bases": self.bases,
        }


def clean(payload: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in payload.items() if k not in DROPPED_FIELDS}


def collect(
    rollout: Rollout,
    out: ResumePrediction,
    load: Loader | None = None,
    base: str = "",
    depth: int = 0,
) -> list[Item]:
    """Steps 0-1 of the module docstring: the raw history of ``rollout``."""
    items: list[Item] = []
    hb = rollout.history_base
    if hb is not None and depth < MAX_BASE_DEPTH:
        sid, end_ord, end_off = hb
        parent = load(sid) if load is not None else None
        row: dict[str, Any] = {"session_id": sid, "found": parent is not None, "items": 0}
        out.bases.append(row)
        if parent is not None:
            items = collect(parent.cut(end_ord, end_off), out, load, sid, depth + 1)
            row["items"] = len(items)
    for r in rollout.records:
        if r.type == "response_item":
            items.append(Item(clean(r.payload), r.index, base))
        elif r.type == "compacted":
            repl = r.payload.get("replacement_history")
            if isinstance(repl, list):
                out.replaced += len(items)
                out.compactions += 1
                items = [Item(clean(p), r.index, base, True) for p in repl if isinstance(p, dict)]
    return items


def predict(rollout: Rollout, load: Loader | None = None) -> ResumePrediction:
    """The resume prediction of ``rollout`` (see the module docstring); ``load`` finds a
    fork's base sessions (without it a fork's history starts at its own records)."""
    out = ResumePrediction()
    items = collect(rollout, out, load)
    calls: set[str] = set()
    outputs = {
        i.payload.get("call_id") for i in items if i.type in OUTPUTS and i.payload.get("call_id")
    }
    for it in items:
        cid = it.payload.get("call_id")
        if it.type in OUTPUTS and cid not in calls:
            out.lost.append(
                {"record": it.record, "base": it.base, "reason": "output without its call"}
            )
            continue
        out.items.append(it)
        if it.type in CALLS and isinstance(cid, str):
            calls.add(cid)
            if cid not in outputs:
                payload = {"type": CALLS[it.type], "call_id": cid, "output": ABORTED}
                added = Item(payload, None, it.base, added=True)
                out.items.append(added)
                out.added.append(added)
    return out

"""A session as JSON in the common model's versioned schema (docs/EXPORT.md), written as read.

One object (:func:`write_json`)::

    {"schema": "sidtui.export", "version": 1, "session": {HEAD},
     "messages": [MESSAGE, ...], "subagents": [SUBAGENT, ...], "counts": {...}}

or JSON Lines (:func:`write_jsonl`), one object a line, for sessions too big to parse
whole: ``{"type": "session", "schema", "version", "session": HEAD}`` first, then one
``{"type": "message", "agent": null | AGENT_ID, ...MESSAGE}`` per message (a sub-agent's
messages follow a ``{"type": "subagent", "agent": AGENT_ID, "parent": ..., ...}`` line),
and ``{"type": "end", "counts": {...}}`` last. Messages are written one at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, BinaryIO

from sidtui.core.base.conversation import ConversationItem, SubagentLink
from sidtui.core.export.blocks import TOOL_USE, json_text, kind_of
from sidtui.core.export.document import Document, Tally
from sidtui.core.export.sink import Sink

SCHEMA = "sidtui.export"
#: Bumped when a field changes meaning or goes away (adding a field does not bump it).
VERSION = 1


def message_json(item: ConversationItem) -> dict[str, Any]:
    """One message in the schema."""
    return {
        "role": item.role,
        "status": item.status,
        "reason": item.reason,
        "note": item.note,
        "prompt": item.prompt,
        "line": item.line,
        "uuid": item.uuid,
        "timestamp": item.timestamp,
        "model": item.model,
        "blocks": item.blocks,
    }


def _subagent_json(link: SubagentLink, sub: Document | None) -> dict[str, Any]:
    return {
        "agent": link.label,
        "spawn_id": link.spawn_id,
        "agent_type": link.agent_type,
        "description": link.description,
        "status": link.status,
        "path": str(link.ref.path) if link.ref is not None else None,
        "read": sub is not None,
    }


def _walk(
    doc: Document,
    tally: Tally,
    on_message: Callable[[dict[str, Any]], None],
    on_subagent: Callable[[dict[str, Any], Document | None], None],
) -> None:
    """Every message of ``doc`` in order, then its sub-agents (each once)."""
    spawned: list[tuple[SubagentLink, Document | None]] = []
    spawns = doc.spawn_ids()
    for item in doc.items():
        tally.count(item)
        for b in item.blocks:
            if kind_of(b) == TOOL_USE:
                tally.tool_uses += 1
                tid = b.get("id")
                if isinstance(tid, str) and tid in spawns:
                    spawned += doc.subagents_of(tid)
        on_message(message_json(item))
    for link, sub in spawned + doc.unlinked():
        tally.subagents += 1
        on_subagent(_subagent_json(link, sub), sub)


def write_json(doc: Document, out: BinaryIO) -> Tally:
    """Write ``doc`` as one JSON object (see the module docstring)."""
    sink = Sink(out)
    tally = Tally()
    _object(sink, doc, tally, top=True)
    sink.write("\n")
    sink.close()
    return tally


def _object(sink: Sink, doc: Document, tally: Tally, top: bool) -> None:
    w = sink.write
    if top:
        w(f'{{"schema":"{SCHEMA}","version":{VERSION},')
    else:
        w("{")
    w(f'"session":{json_text(doc.head.to_json(), indent=False)},"messages":[')
    first = [True]

    def message(m: dict[str, Any]) -> None:
        w(("" if first[0] else ",") + "\n" + json_text(m, indent=False))
        first[0] = False
        sink.maybe_flush()

    subs: list[tuple[dict[str, Any], Document | None]] = []
    _walk(doc, tally, message, lambda j, sub: subs.append((j, sub)))
    w('\n],"subagents":[')
    for n, (j, sub) in enumerate(subs):
        w(("," if n else "") + "\n" + json_text(j, indent=False)[:-1])
        if sub is not None:
            w(',"transcript":')
            _object(sink, sub, Tally(), top=False)
        w("}")
    w(f'\n],"counts":{json_text(tally.to_json(), indent=False)}}}')


def write_jsonl(doc: Document, out: BinaryIO) -> Tally:
    """Write ``doc`` as JSON Lines (see the module docstring)."""
    sink = Sink(out)
    tally = Tally()
    head = {"type": "session", "schema": SCHEMA, "version": VERSION, "session": doc.head.to_json()}
    sink.write(json_text(head, indent=False) + "\n")
    _lines(sink, doc, tally, None)
    sink.write(json_text({"type": "end", "counts": tally.to_json()}, indent=False) + "\n")
    sink.close()
    return tally


def _lines(sink: Sink, doc: Document, tally: Tally, agent: str | None) -> None:
    def message(m: dict[str, Any]) -> None:
        sink.write(json_text({"type": "message", "agent": agent, **m}, indent=False) + "\n")
        sink.maybe_flush()

    def subagent(j: dict[str, Any], sub: Document | None) -> None:
        sink.write(json_text({"type": "subagent", "parent": agent, **j}, indent=False) + "\n")
        if sub is not None:
            _lines(sink, sub, Tally(), j["agent"])

    _walk(doc, tally, message, subagent)

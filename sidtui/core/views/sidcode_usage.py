"""What sid-code recorded of each API call's usage (FORMAT.md §3.4, §3.11).

An ``assistant_message`` record carries one call's ``usage`` (``inputTokens``,
``outputTokens``, ``cacheReadInputTokens?``, ``cacheCreationInputTokens?``), its ``model?``
(else the file's ``session_start`` model) and ``msgId?``; every such record in the file
counts — the live chain's and abandoned branches' alike, as the API billed them. sid-code
records no request id, no one-hour cache split, no per-call cost and nothing for
sub-agents (a sidechain's ``message`` records hold no usage) nor for a v1 ``.json``
session: those count zero. A fork copies messages without their usage (no double count);
a ``msgId`` repeated in one session is still counted once by the engine.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import msgspec

from sidtui.core.usage import events
from sidtui.core.usage.events import UsageEvent
from sidtui.core.usage.lines import UNSET, decode_line, lines_with


class _Usage(msgspec.Struct):
    inputTokens: Any = UNSET
    outputTokens: Any = UNSET
    cacheReadInputTokens: Any = UNSET
    cacheCreationInputTokens: Any = UNSET


class _Record(msgspec.Struct):
    """The fields read; the message content is skipped, never built."""

    type: Any = UNSET
    timestamp: Any = UNSET
    usage: Any = UNSET
    model: Any = UNSET
    msgId: Any = UNSET
    sessionId: Any = UNSET


_DECODE = msgspec.json.Decoder(_Record).decode


def _record(raw: bytes) -> _Record | None:
    r: _Record | None = decode_line(_DECODE, raw, _Record)
    return r


def event_of(
    r: _Record, offset: int, model: str | None, session: str, project: str
) -> UsageEvent | None:
    """One ``assistant_message`` record's event; None when it holds no valid usage (a
    missing or null cache count is 0: some providers leave them out)."""
    if r.type != "assistant_message" or not isinstance(r.usage, dict):
        return None
    ts = events.timestamp_ms(r.timestamp, strict=False)
    if ts is None:
        return None
    try:
        u = msgspec.convert(r.usage, _Usage)
        i, o = events.count(u.inputTokens), events.count(u.outputTokens)
        cw = events.optional_count(u.cacheCreationInputTokens, null_is_zero=True)
        cr = events.optional_count(u.cacheReadInputTokens, null_is_zero=True)
        mid = events.text(r.msgId)
    except (events.Refused, msgspec.ValidationError):
        return None
    try:
        own_model = events.text(r.model)
    except events.Refused:
        own_model = None
    return UsageEvent(
        ts,
        own_model or model,
        mid,
        None,
        i,
        o,
        cw,
        cr,
        session=session,
        project=project,
        offset=offset,
        response_key=events.response_key(mid, None, session),
    )


def read_usage(
    path: str | os.PathLike[str], project: str, errors: list[str] | None = None
) -> list[UsageEvent]:
    """Every usage event of one sid-code transcript, in file order (``file`` unset).

    Raises:
        OSError, NotRegularFile: the file cannot be read.
    """
    p = Path(path)
    if p.suffix != ".jsonl":
        return []  # a v1 whole-file session records no usage per call
    session, model = p.stem, None
    out: list[UsageEvent] = []
    # a session_start names the model; it is the first record, so it comes first
    for _, raw in lines_with(path, b'"session_start"', errors):
        r = _record(raw)
        if r is not None and r.type == "session_start":
            model = r.model if type(r.model) is str and r.model else None
            if type(r.sessionId) is str and r.sessionId:
                session = r.sessionId
            break
    for off, raw in lines_with(path, b'"usage"', errors):
        r = _record(raw)
        if r is None:
            continue
        e = event_of(r, off, model, session, project)
        if e is not None:
            out.append(e)
    return out

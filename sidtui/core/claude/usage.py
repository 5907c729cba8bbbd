"""What Claude Code recorded of each API response's usage (docs/CLAUDE-CODE.md §4.3).

Every line whose ``message.usage`` holds counts is one event — any record type, as
ccusage reads them (a response written over several lines repeats its ``message.id`` and
``requestId`` — or, without a request id, its ``message.id`` in one ``sessionId``: the
engine counts it once). A line is refused whole, as ccusage refuses it,
when its timestamp is not ``YYYY-MM-DDTHH:MM:SS[.mmm]`` with a zone, ``input_tokens`` or
``output_tokens`` is missing or not an integer ≥ 0, a cache count or ``costUSD`` is there
but not a number of its kind, or an id or the model is not a non-empty string. A
``cache_creation`` breakdown, when there, gives the cache writes (five-minute plus
one-hour); ``usage.speed == "fast"`` marks fast mode; a recorded ``costUSD`` is the cost.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import msgspec

from sidtui.core.usage.events import (
    Refused,
    UsageEvent,
    count,
    optional_count,
    response_key,
    text,
    timestamp_ms,
)
from sidtui.core.usage.lines import UNSET, decode_line, lines_with


class _Usage(msgspec.Struct):
    input_tokens: Any = UNSET
    output_tokens: Any = UNSET
    cache_creation_input_tokens: Any = UNSET
    cache_read_input_tokens: Any = UNSET
    cache_creation: Any = UNSET
    speed: Any = UNSET


class _Message(msgspec.Struct):
    id: Any = UNSET
    model: Any = UNSET
    usage: _Usage | None | msgspec.UnsetType = UNSET


class _Line(msgspec.Struct):
    """The fields read; everything else (the content) is skipped, never built."""

    timestamp: Any = UNSET
    requestId: Any = UNSET
    sessionId: Any = UNSET
    costUSD: Any = UNSET
    message: Any = UNSET
    data: Any = UNSET


class _Data(msgspec.Struct):
    message: Any = UNSET


class _RawLine(msgspec.Struct):
    """A line as first decoded: ``message`` and ``data`` kept as bytes until needed."""

    timestamp: Any = UNSET
    requestId: Any = UNSET
    sessionId: Any = UNSET
    costUSD: Any = UNSET
    message: msgspec.Raw | msgspec.UnsetType = UNSET
    data: msgspec.Raw | msgspec.UnsetType = UNSET


_DECODE = msgspec.json.Decoder(_RawLine).decode
_MESSAGE = msgspec.json.Decoder(_Message).decode
_DATA = msgspec.json.Decoder(_Data).decode
_CONVERT = msgspec.convert
_ERRORS = (msgspec.DecodeError, msgspec.ValidationError)


def _entry_of(obj: Any) -> _Line | None:
    """The entry of a line that carries usage: the line itself when its ``message`` has
    ``usage``, else its ``data.message`` (a sub-agent's response streamed into the
    parent's transcript as ``progress``), as ccusage reads both; None when neither."""
    try:
        if isinstance(obj, _RawLine):
            line = _Line(obj.timestamp, obj.requestId, obj.sessionId, obj.costUSD)
            if isinstance(obj.message, msgspec.Raw):
                line.message = _MESSAGE(obj.message)
            if isinstance(line.message, _Message) and isinstance(line.message.usage, _Usage):
                return line
            if not isinstance(obj.data, msgspec.Raw):
                return None
            inner = _DATA(obj.data).message
        else:
            line = _CONVERT({k: v for k, v in obj.items() if k != "data"}, _Line)
            if isinstance(line.message, dict):
                line.message = _CONVERT(line.message, _Message)
                if isinstance(line.message.usage, _Usage):
                    return line
            data = obj.get("data")
            inner = data.get("message", UNSET) if isinstance(data, dict) else UNSET
    except _ERRORS:
        return None
    if not isinstance(inner, dict):
        return None
    try:
        line = _CONVERT(inner, _Line)
        line.message = _CONVERT(line.message, _Message)
    except _ERRORS:
        return None
    return line if isinstance(line.message.usage, _Usage) else None


def _cache_writes(u: _Usage, total: int) -> tuple[int, int]:
    """(cache writes, of which one-hour): the ``cache_creation`` breakdown when there.

    Raises:
        Refused: a breakdown of the wrong shape.
    """
    cc = u.cache_creation
    if cc is UNSET or cc is None:
        return total, 0
    if type(cc) is not dict:
        raise Refused(cc)
    five = optional_count(cc.get("ephemeral_5m_input_tokens", UNSET))
    hour = optional_count(cc.get("ephemeral_1h_input_tokens", UNSET))
    return five + hour, hour


def event_of(raw: Any, offset: int, session: str, project: str) -> UsageEvent | None:
    """The event of one decoded line (a dict, or a ``_RawLine``), or None when the line
    holds no usage or is refused (module docstring)."""
    obj = _entry_of(raw)
    if obj is None:
        return None
    msg = obj.message
    u = msg.usage
    ts = timestamp_ms(obj.timestamp)
    cost = obj.costUSD
    if ts is None or (cost is not UNSET and type(cost) not in (int, float)):
        return None
    if u.speed is not UNSET and type(u.speed) is not str:
        return None
    try:
        i, o = count(u.input_tokens), count(u.output_tokens)
        cr = optional_count(u.cache_read_input_tokens)
        writes, hour = _cache_writes(u, optional_count(u.cache_creation_input_tokens))
        mid, rid, model = text(msg.id), text(obj.requestId), text(msg.model)
    except Refused:
        return None
    sid = obj.sessionId if type(obj.sessionId) is str and obj.sessionId else None
    return UsageEvent(
        ts,
        model,
        mid,
        rid,
        i,
        o,
        writes,
        cr,
        hour,
        None if cost is UNSET else float(cost),
        u.speed == "fast",
        sid or session,
        project,
        offset,
        response_key(mid, rid, sid),
    )


def read_usage(
    path: str | os.PathLike[str], project: str, errors: list[str] | None = None
) -> list[UsageEvent]:
    """Every usage event of one Claude Code transcript, in file order (``file`` unset).

    Args:
        path: the transcript (a main file or a subagent's).
        project: its project folder (the slug).
        errors: gets one line per line too long to decode.

    Raises:
        OSError, NotRegularFile: the file cannot be read.
    """
    p = Path(path)
    stem = p.name[: -len(".jsonl")] if p.name.endswith(".jsonl") else p.stem
    session = p.parent.parent.name if p.parent.name == "subagents" else stem
    out: list[UsageEvent] = []
    for n, raw in lines_with(path, b'"usage"', errors):
        obj = decode_line(_DECODE, raw)
        e = None if obj is None else event_of(obj, n, session, project)
        if e is not None:
            out.append(e)
    return out

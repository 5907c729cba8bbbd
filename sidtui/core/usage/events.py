"""One API response's usage as a source records it, and the checks every reader applies.

A reader (:mod:`sidtui.core.claude.usage`, :mod:`sidtui.core.views.sidcode_usage`) turns its
agent's records into :class:`UsageEvent`; the engine (:mod:`.aggregate`) never sees the
format. The checks copy what ccusage accepts (docs/DECISIONS.md "Usage is counted as
ccusage counts"): counts are JSON integers ≥ 0, timestamps ISO 8601 with a zone.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import msgspec


class TokenCounts:
    """The four token counts of an event, a part or a row, and their sum (a mixin: the
    class holds ``input_tokens``, ``output_tokens``, ``cache_creation_tokens`` and
    ``cache_read_tokens``)."""

    __slots__ = ()
    input_tokens: int
    output_tokens: int
    cache_creation_tokens: int
    cache_read_tokens: int

    @property
    def total_tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_creation_tokens
            + self.cache_read_tokens
        )


class UsageEvent(msgspec.Struct, TokenCounts, array_like=True, omit_defaults=True):
    """One API response (stored in the usage cache as an array: keep the field order).

    Attributes:
        ts_ms: when it was written, milliseconds since the epoch (UTC).
        model: the model id as recorded (None: not recorded).
        message_id, request_id: the response's ids (None: not recorded).
        input_tokens, output_tokens, cache_creation_tokens, cache_read_tokens: counts.
        cache_creation_1h_tokens: the part of ``cache_creation_tokens`` written to the
            one-hour cache (priced higher).
        cost_usd: a cost the agent recorded for this response (None: price it).
        fast: sent in fast mode (priced by the table's multiplier; ``-fast`` on the model).
        session, project: the session id and project key it belongs to.
        offset: where its line starts in the file, bytes (ties keep the earliest).
        response_key: what names the response across lines and files (:func:`response_key`;
            None: nothing does, the event is never merged with another); the engine counts
            one response once wherever it is repeated.
        priced, usd: set by the engine (``aggregate.prepare``): the cost in USD by the
            vendored table (None: unknown); stored with the event in the cache.
        file: the transcript's path (set when read, not stored in the cache).
    """

    ts_ms: int
    model: str | None
    message_id: str | None
    request_id: str | None
    input_tokens: int
    output_tokens: int
    cache_creation_tokens: int
    cache_read_tokens: int
    cache_creation_1h_tokens: int = 0
    cost_usd: float | None = None
    fast: bool = False
    session: str = ""
    project: str = ""
    offset: int = 0
    response_key: str | None = None
    priced: bool = False
    usd: float | None = None
    file: str = ""

    @property
    def model_name(self) -> str | None:
        """The model as reports name it (``-fast`` appended in fast mode)."""
        if self.model is None:
            return None
        return self.model + "-fast" if self.fast else self.model


def response_key(message_id: str | None, request_id: str | None, session: str | None) -> str | None:
    """What names one API response, as ccusage keys it: the message id with the request id,
    or, without a request id, with the session id the line records; None without a message
    id, or without both a request id and a recorded session (never merged)."""
    if message_id is None:
        return None
    if request_id is not None:
        return f"{message_id}\x00r\x00{request_id}"
    if session is not None:
        return f"{message_id}\x00s\x00{session}"
    return None


_U64 = 1 << 64


class Refused(ValueError):
    """A line whose usage a reader refuses whole (a count, id or model of the wrong kind)."""


def count(v: Any) -> int:
    """A token count: a JSON integer in ``[0, 2**64)``.

    Raises:
        Refused: anything else (a float, a string, a bool, null, a negative number, absent).
    """
    if type(v) is int and 0 <= v < _U64:
        return v
    raise Refused(v)


def optional_count(v: Any, null_is_zero: bool = False) -> int:
    """A count that may be absent (``msgspec.UNSET``: 0; null too with ``null_is_zero``).

    Raises:
        Refused: present and not a count.
    """
    if v is msgspec.UNSET or (v is None and null_is_zero):
        return 0
    return count(v)


_STRICT = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{3}))?(Z|[+-]\d{2}:\d{2})\Z"
)
_EPOCH = datetime(1970, 1, 1).toordinal()


def timestamp_ms(s: Any, strict: bool = True) -> int | None:
    """Milliseconds since the epoch of an ISO 8601 timestamp with a zone; None when it is
    not one.

    Args:
        s: the recorded value.
        strict: only ``YYYY-MM-DDTHH:MM:SS[.mmm](Z|±HH:MM)`` (what ccusage accepts; other
            fractions, a missing zone, a space for ``T`` are refused); False: anything
            :meth:`datetime.fromisoformat` reads that carries a zone.
    """
    if type(s) is not str:
        return None
    m = _STRICT.match(s)
    if m is None:
        if strict:
            return None
        try:
            d = datetime.fromisoformat(s)
        except ValueError:
            return None
        if d.tzinfo is None:
            return None
        return int(d.timestamp() * 1000)
    y, mo, da, h, mi, se, frac, zone = m.groups()
    hh, mm, ss = int(h), int(mi), int(se)
    if hh > 23 or mm > 59 or ss > 59:
        return None
    try:
        day = datetime(int(y), int(mo), int(da)).toordinal() - _EPOCH
    except ValueError:
        return None
    secs = day * 86400 + hh * 3600 + mm * 60 + ss
    if zone != "Z":
        off = int(zone[1:3]) * 3600 + int(zone[4:6]) * 60
        secs -= off if zone[0] == "+" else -off
    return secs * 1000 + (int(frac) if frac else 0)


def text(v: Any) -> str | None:
    """An id or model: a non-empty string, or None when absent (``msgspec.UNSET``).

    Raises:
        Refused: present but not a non-empty string.
    """
    if v is msgspec.UNSET:
        return None
    if type(v) is str and v:
        return v
    raise Refused(v)

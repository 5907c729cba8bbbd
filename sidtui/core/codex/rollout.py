"""Reading one rollout file into records (docs/CODEX.md §2).

Each line is one JSON object ``{"timestamp", "type", "payload"}`` (0.169.0 adds
``ordinal``, and ``metadata`` on ``response_item`` lines). Codex skips what it cannot
read and keeps going: so does :func:`read_rollout`: a line that is no JSON object with a
string ``type`` and an object ``payload`` is a :class:`BadLine` (the last one, without its
newline, a torn tail: a write cut short); blank lines are nothing; a record of a type this
reader does not know is kept (``known`` False) and plays no part in the conversation, as
Codex ignores it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from sidtui.core.base.errors import UnreadableInput

#: The record types of 0.169.0 rollouts.
KNOWN_TYPES = frozenset(
    {
        "session_meta",
        "response_item",
        "event_msg",
        "turn_context",
        "world_state",
        "token_usage_record",
        "compacted",
    }
)


class Record:
    """One line that is a record.

    Attributes:
        index: its place among the file's records; line: 1-based line number;
        offset: where the line starts, bytes; type, timestamp, ordinal: as written.
        payload: the payload, decoded when first asked for (most of a big rollout's bytes
            are events nothing here reads: they stay undecoded).
    """

    __slots__ = ("_payload", "_raw", "index", "line", "offset", "ordinal", "timestamp", "type")

    def __init__(
        self,
        index: int,
        line: int,
        offset: int,
        type: str,
        payload: dict[str, Any] | bytes,
        timestamp: str | None,
        ordinal: int | None = None,
    ) -> None:
        self.index, self.line, self.offset, self.type = index, line, offset, type
        self.timestamp, self.ordinal = timestamp, ordinal
        if isinstance(payload, dict):
            self._payload: dict[str, Any] | None = payload
            self._raw = b""
        else:
            self._payload, self._raw = None, payload

    @property
    def payload(self) -> dict[str, Any]:
        if self._payload is None:
            obj = _DECODE(self._raw)
            self._payload = obj if isinstance(obj, dict) else {}
            self._raw = b""
        return self._payload

    @property
    def known(self) -> bool:
        return self.type in KNOWN_TYPES

    @property
    def sub(self) -> str | None:
        """The payload's own ``type`` (an event's or item's kind)."""
        if self._payload is None:
            m = _SUB.match(self._raw)
            if m is not None:
                return m.group(1).decode()
        t = self.payload.get("type")
        return t if isinstance(t, str) else None


@dataclass
class BadLine:
    """A line Codex cannot read: where, why, and whether it is the torn tail."""

    line: int
    offset: int
    reason: str
    torn: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "offset": self.offset, "reason": self.reason, "torn": self.torn}


@dataclass
class Rollout:
    """A rollout read whole: records in file order, the lines it could not read."""

    path: Path
    records: list[Record] = field(default_factory=list)
    bad_lines: list[BadLine] = field(default_factory=list)
    size: int = 0
    lines: int = 0

    @property
    def meta(self) -> dict[str, Any]:
        """The first ``session_meta`` payload ({} when there is none)."""
        for r in self.records:
            if r.type == "session_meta":
                return r.payload
        return {}

    @property
    def history_base(self) -> tuple[str, int | None, int | None] | None:
        """``(thread id, end ordinal, end byte offset)`` of the session whose history this
        one continues (a fork: ``session_meta.history_base``), or None."""
        hb = self.meta.get("history_base")
        if not isinstance(hb, dict) or not isinstance(hb.get("thread_id"), str):
            return None
        ords, offs = hb.get("end_ordinal_exclusive"), hb.get("end_byte_offset")
        return (
            hb["thread_id"],
            ords if isinstance(ords, int) and not isinstance(ords, bool) else None,
            offs if isinstance(offs, int) and not isinstance(offs, bool) else None,
        )

    def cut(self, end_ordinal: int | None, end_offset: int | None) -> Rollout:
        """The records before ``end_offset`` bytes (else before ``end_ordinal``): the part
        of this session a fork's history starts with."""
        if end_offset is not None:
            keep = [r for r in self.records if r.offset < end_offset]
        elif end_ordinal is not None:
            keep = [r for r in self.records if r.ordinal is not None and r.ordinal < end_ordinal]
        else:
            keep = list(self.records)
        return Rollout(self.path, keep, [], self.size, self.lines)

    @property
    def unknown_types(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.records:
            if not r.known:
                out[r.type] = out.get(r.type, 0) + 1
        return out


_DECODE = msgspec.json.Decoder().decode
#: ``"type":"x"`` first in a payload (how Codex writes events): its kind without decoding it
_SUB = re.compile(rb'\{"type":"([A-Za-z0-9_]+)"[,}]')


class _Line(msgspec.Struct):
    timestamp: Any = None
    ordinal: Any = None
    type: Any = None
    payload: msgspec.Raw = msgspec.field(default_factory=lambda: msgspec.Raw(b""))


_DECODE_LINE = msgspec.json.Decoder(_Line).decode


def parse(data: bytes, path: Path | None = None) -> Rollout:
    """``data`` (a whole rollout) as records and bad lines."""
    out = Rollout(path or Path(""), size=len(data))
    pos = 0
    n = 0
    end = len(data)
    while pos < end:
        nl = data.find(b"\n", pos)
        stop = end if nl < 0 else nl
        raw = data[pos:stop]
        n += 1
        if raw.strip():
            _one(out, raw, n, pos, torn=nl < 0)
        pos = stop + 1
    out.lines = n
    return out


def _one(out: Rollout, raw: bytes, n: int, offset: int, *, torn: bool) -> None:
    try:
        obj = _DECODE_LINE(raw)
    except msgspec.ValidationError:
        try:
            _DECODE(raw)
        except (msgspec.DecodeError, ValueError) as exc:
            out.bad_lines.append(BadLine(n, offset, _why(exc, torn), torn))
            return
        out.bad_lines.append(BadLine(n, offset, "not a JSON object", torn))
        return
    except (msgspec.DecodeError, ValueError) as exc:
        out.bad_lines.append(BadLine(n, offset, _why(exc, torn), torn))
        return
    t, payload = obj.type, obj.payload
    if not isinstance(t, str) or bytes(payload)[:1] != b"{":
        out.bad_lines.append(BadLine(n, offset, "no record type or payload", torn))
        return
    ts, o = obj.timestamp, obj.ordinal
    out.records.append(
        Record(
            len(out.records),
            n,
            offset,
            t,
            bytes(payload),
            ts if isinstance(ts, str) else None,
            o if isinstance(o, int) and not isinstance(o, bool) else None,
        )
    )


def _why(exc: Exception, torn: bool) -> str:
    return "cut short (torn tail)" if torn else f"not JSON ({_short(exc)})"


def _short(exc: Exception) -> str:
    s = str(exc)
    return s if len(s) <= 60 else s[:57] + "..."


def read_rollout(path: Path) -> Rollout:
    """The rollout at ``path``.

    Raises:
        UnreadableInput: the file cannot be read.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UnreadableInput(f"cannot read {path}: {exc.strerror or exc}") from None
    return parse(data, path)

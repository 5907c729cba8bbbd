"""The one usage engine: responses counted once, grouped, priced, totalled.

Every source's reader yields :class:`~.events.UsageEvent`; :func:`dedupe` keeps one event
per response key (an API response written over several lines, replayed
into a fork or copied into another file is billed once), :func:`aggregate` groups the
rest by day, week, month, session, model or project in a time zone and totals them.
Nothing here knows which agent wrote an event (docs/ARCHITECTURE.md "Usage").
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, tzinfo
from typing import Any

from sidtui.core.base.errors import UsageError
from sidtui.core.usage.events import UsageEvent
from sidtui.core.usage.pricing import SYNTHETIC, PriceTable, cost_of, default_table

#: What a report can be grouped by.
GROUPINGS = ("day", "week", "month", "session", "model", "project")
#: The key of events that recorded no model (``--by model``).
NO_MODEL = "(no model)"


def _rank(e: UsageEvent, cost: float | None) -> tuple[int, float]:
    return (e.total_tokens, -1.0 if cost is None else cost)


def dedupe(
    events: Iterable[UsageEvent], table: PriceTable | None = None
) -> list[tuple[UsageEvent, float | None]]:
    """One ``(event, cost)`` per response: events sharing a ``response_key`` are one
    response; the one kept has the most tokens, then the highest cost, then the earliest
    ``(file, offset)`` — as ccusage keeps them — so the result does not depend on the order
    of ``events``. Events without a key are all kept.
    """
    table = table or default_table()
    best: dict[str, tuple[UsageEvent, float | None]] = {}
    out: list[tuple[UsageEvent, float | None]] = []
    for e in events:
        c = cost_of(e, table)
        k = e.response_key
        if k is None:
            out.append((e, c))
            continue
        held = best.get(k)
        if held is None:
            best[k] = (e, c)
            continue
        r, hr = _rank(e, c), _rank(held[0], held[1])
        if r > hr or (r == hr and (e.file, e.offset) < (held[0].file, held[0].offset)):
            best[k] = (e, c)
    out += best.values()
    return out


@dataclass
class UsageRow:
    """One row of a report (or its totals).

    Attributes:
        key: the group (an ISO date, ``YYYY-Www``, ``YYYY-MM``, a session id, a model, a
            project key; ``""`` for totals).
        cost_usd: the priced part, USD; the row's cost is unknown (``None`` in JSON) when
            ``unpriced`` names a model the table lacks.
    """

    key: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_tokens: int = 0
    cache_read_tokens: int = 0
    cost_usd: float = 0.0
    models: set[str] = field(default_factory=set)
    unpriced: set[str] = field(default_factory=set)

    @property
    def total_tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_creation_tokens
            + self.cache_read_tokens
        )

    @property
    def cost(self) -> float | None:
        """USD, or None when part of it is unknown."""
        return None if self.unpriced else self.cost_usd

    def add(self, e: UsageEvent, cost: float | None) -> None:
        self.input_tokens += e.input_tokens
        self.output_tokens += e.output_tokens
        self.cache_creation_tokens += e.cache_creation_tokens
        self.cache_read_tokens += e.cache_read_tokens
        name = e.model_name
        if name is not None and e.model != SYNTHETIC:
            self.models.add(name)
        if cost is not None:
            self.cost_usd += cost
        elif e.total_tokens:
            self.unpriced.add(name or NO_MODEL)

    def merge(self, other: UsageRow) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_creation_tokens += other.cache_creation_tokens
        self.cache_read_tokens += other.cache_read_tokens
        self.cost_usd += other.cost_usd
        self.models |= other.models
        self.unpriced |= other.unpriced

    def to_json(self, with_key: bool = True) -> dict[str, Any]:
        d: dict[str, Any] = {"key": self.key} if with_key else {}
        d.update(
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cache_creation_tokens=self.cache_creation_tokens,
            cache_read_tokens=self.cache_read_tokens,
            cost_usd=self.cost,
            models=sorted(self.models),
            unpriced_models=sorted(self.unpriced),
        )
        return d


@dataclass
class UsageReport:
    """Rows in order (dates ascending; sessions, models, projects by cost, highest
    first) and their totals."""

    by: str
    rows: list[UsageRow]
    totals: UsageRow
    prices_date: str = ""
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """``{"by", "rows": [{key, input_tokens, output_tokens, cache_creation_tokens,
        cache_read_tokens, cost_usd, models, unpriced_models}], "totals": {…},
        "prices_date", "notes"}``."""
        return {
            "by": self.by,
            "rows": [r.to_json() for r in self.rows],
            "totals": self.totals.to_json(with_key=False),
            "prices_date": self.prices_date,
            "notes": list(self.notes),
        }


class LocalDays:
    """Local calendar days of epoch milliseconds in ``tz`` (None: the process's local
    zone, which ``TZ`` sets). Offsets are looked up once per quarter hour (zones change
    offset on quarter hours); a quarter hour that holds a change is looked up per event."""

    _Q = 900

    def __init__(self, tz: tzinfo | None = None) -> None:
        self.tz = tz
        self._offsets: dict[int, int | None] = {}

    def _offset(self, secs: float) -> int:
        if self.tz is None:
            return time.localtime(secs).tm_gmtoff
        off = datetime.fromtimestamp(secs, self.tz).utcoffset()
        return int(off.total_seconds()) if off is not None else 0

    def ordinal(self, ts_ms: int) -> int:
        """The local day as a proleptic Gregorian ordinal (``date.fromordinal``)."""
        secs = ts_ms // 1000
        q = secs // self._Q
        try:
            off = self._offsets[q]
        except KeyError:
            a, b = self._offset(q * self._Q), self._offset(q * self._Q + self._Q - 1)
            off = self._offsets[q] = a if a == b else None
        if off is None:
            off = self._offset(secs)
        return (secs + off) // 86400 + _EPOCH_ORDINAL


_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


def parse_day(s: str, what: str) -> int:
    """``YYYY-MM-DD`` or ``YYYYMMDD`` as a date ordinal.

    Raises:
        UsageError: not a valid date (exit 2).
    """
    t = s.strip()
    if len(t) == 8 and t.isdigit():
        t = f"{t[:4]}-{t[4:6]}-{t[6:]}"
    try:
        if len(t) != 10:
            raise ValueError(t)
        return date.fromisoformat(t).toordinal()
    except ValueError:
        raise UsageError(f"{what} must be a date as YYYY-MM-DD (got {s!r})") from None


def _keyer(by: str) -> Callable[[UsageEvent, int], str]:
    cache: dict[int, str] = {}

    def day(e: UsageEvent, o: int) -> str:
        try:
            return cache[o]
        except KeyError:
            d = date.fromordinal(o)
            if by == "day":
                k = d.isoformat()
            elif by == "week":
                y, w, _ = d.isocalendar()
                k = f"{y}-W{w:02d}"
            else:
                k = f"{d.year:04d}-{d.month:02d}"
            cache[o] = k
            return k

    if by in ("day", "week", "month"):
        return day
    if by == "session":
        return lambda e, o: e.session
    if by == "project":
        return lambda e, o: e.project
    if by == "model":
        return lambda e, o: e.model_name or NO_MODEL
    raise UsageError(f"--by must be one of {', '.join(GROUPINGS)} (got {by!r})")


def aggregate(
    events: Iterable[UsageEvent],
    by: str = "day",
    *,
    tz: tzinfo | None = None,
    since: int | None = None,
    until: int | None = None,
    project: str | None = None,
    table: PriceTable | None = None,
) -> UsageReport:
    """Count ``events`` once each (:func:`dedupe`) and group them.

    Args:
        events: every source's events (any order: the result is the same).
        by: one of :data:`GROUPINGS`.
        tz: the zone of days (None: the local zone, ``TZ`` honoured).
        since, until: date ordinals (:func:`parse_day`), inclusive, of the local day.
        project: only events of this project key.
        table: prices (default: the vendored table).

    Returns:
        A :class:`UsageReport`; rows without a token or a cent are left out.

    Raises:
        UsageError: an unknown ``by``.
    """
    table = table or default_table()
    keyer = _keyer(by)
    days = LocalDays(tz)
    rows: dict[str, UsageRow] = {}
    for e, c in dedupe(events, table):
        if project is not None and e.project != project:
            continue
        o = days.ordinal(e.ts_ms)
        if (since is not None and o < since) or (until is not None and o > until):
            continue
        k = keyer(e, o)
        row = rows.get(k)
        if row is None:
            row = rows[k] = UsageRow(k)
        row.add(e, c)
    kept = [r for r in rows.values() if r.total_tokens or r.cost_usd]
    if by in ("day", "week", "month"):
        kept.sort(key=lambda r: r.key)
    else:
        kept.sort(key=lambda r: (-r.cost_usd, r.key))
    totals = UsageRow("")
    for r in kept:
        totals.merge(r)
    return UsageReport(by, kept, totals, prices_date=table.date)

"""The one usage engine: responses counted once, grouped, priced, totalled.

Every source's reader yields :class:`~.events.UsageEvent`; :func:`dedupe` keeps one event
per response key (an API response written over several lines, replayed
into a fork or copied into another file is billed once), :func:`aggregate` groups the
rest by day, week, month, session, model or project in a time zone and totals them.
Nothing here knows which agent wrote an event (docs/ARCHITECTURE.md "Usage").
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, tzinfo
from itertools import chain
from typing import Any

import msgspec

from sidtui.core.base.errors import UsageError
from sidtui.core.usage.events import TokenCounts, UsageEvent
from sidtui.core.usage.pricing import SYNTHETIC, PriceTable, cost_of, default_table

#: What a report can be grouped by.
GROUPINGS = ("day", "week", "month", "session", "model", "project")
#: The key of events that recorded no model (``--by model``).
NO_MODEL = "(no model)"


def _priced(
    events: Iterable[UsageEvent], table: PriceTable | None
) -> Iterable[tuple[UsageEvent, float | None]]:
    """``(event, cost)``: the cost :func:`prepare` stored, else priced now (always with a
    ``table`` other than the vendored one)."""
    if table is None or table is default_table():
        t = default_table()
        for e in events:
            yield e, (e.usd if e.priced else cost_of(e, t))
    else:
        for e in events:
            yield e, cost_of(e, table)


def dedupe(
    events: Iterable[UsageEvent], table: PriceTable | None = None
) -> list[tuple[UsageEvent, float | None]]:
    """One ``(event, cost)`` per response: events sharing a ``response_key`` are one
    response; the one kept has the most tokens, then the highest cost, then the earliest
    ``(file, offset)`` — as ccusage keeps them — so the result does not depend on the order
    of ``events``. Events without a key are all kept.
    """
    best: dict[str, tuple[UsageEvent, float | None, int]] = {}
    out: list[tuple[UsageEvent, float | None]] = []
    for e, c in _priced(events, table):
        k = e.response_key
        if k is None:
            out.append((e, c))
            continue
        n = e.total_tokens
        held = best.get(k)
        if held is None:
            best[k] = (e, c, n)
            continue
        h, hc, hn = held
        if n > hn:
            best[k] = (e, c, n)
        elif n == hn:
            c0, hc0 = -1.0 if c is None else c, -1.0 if hc is None else hc
            if c0 > hc0 or (c0 == hc0 and (e.file, e.offset) < (h.file, h.offset)):
                best[k] = (e, c, n)
    out += [(e, c) for e, c, _ in best.values()]
    return out


def prepare(events: list[UsageEvent]) -> list[UsageEvent]:
    """One file's events as the cache keeps them: priced by the vendored table and
    deduped within the file (:func:`dedupe`'s rule: the result of deduping every file's
    prepared events is the same as deduping all of them), in file order."""
    kept = []
    for e, c in dedupe(events):
        e.priced, e.usd = True, c
        kept.append(e)
    kept.sort(key=lambda e: e.offset)
    return kept


#: Parts are kept per quarter hour of UTC time: every zone changes offset on one.
QUARTER_MS = 900_000


class Part(msgspec.Struct, array_like=True):
    """Responses of one quarter hour, model, session and project, summed.

    Attributes:
        quarter: ``ts_ms // QUARTER_MS``.
        day: the local day's ordinal when the grouping zone was known (0: from ``quarter``).
        model: the model as rows name it (``NO_MODEL`` when none was recorded).
        listed: named among a row's models (not a ``<synthetic>`` reply).
        unpriced: tokens of a model without a price (``usd`` holds nothing of them).
    """

    quarter: int
    day: int
    model: str
    listed: bool
    unpriced: bool
    session: str
    project: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_tokens: int = 0
    cache_read_tokens: int = 0
    usd: float = 0.0


def parts_of(
    pairs: Iterable[tuple[UsageEvent, float | None]], days: LocalDays | None = None
) -> list[Part]:
    """``(event, cost)`` pairs summed into :class:`Part` s (``days``: set ``day`` too)."""
    groups: dict[tuple, Part] = {}
    for e, c in pairs:
        name = e.model_name
        n = e.total_tokens
        unpriced = c is None and n > 0
        q = e.ts_ms // QUARTER_MS
        day = days.ordinal(e.ts_ms) if days is not None else 0
        k = (q, day, name, e.model == SYNTHETIC, unpriced, e.session, e.project)
        p = groups.get(k)
        if p is None:
            listed = name is not None and e.model != SYNTHETIC
            p = groups[k] = Part(q, day, name or NO_MODEL, listed, unpriced, e.session, e.project)
        p.input_tokens += e.input_tokens
        p.output_tokens += e.output_tokens
        p.cache_creation_tokens += e.cache_creation_tokens
        p.cache_read_tokens += e.cache_read_tokens
        if c is not None:
            p.usd += c
    return list(groups.values())


@dataclass
class FileUsage:
    """One transcript's usage as the cache gives it: its events, prepared
    (:func:`prepare`), loaded on demand, and their summary (``keys``: the response keys
    it holds; ``parts``: its events summed, :func:`parts_of`)."""

    path: str
    keys: list[str]
    parts: list[Part]
    load: Callable[[], list[UsageEvent]]

    @classmethod
    def of(cls, path: str, prepared: list[UsageEvent]) -> FileUsage:
        """From a file's prepared events (kept in memory)."""
        keys = [e.response_key for e in prepared if e.response_key is not None]
        parts = parts_of((e, e.usd) for e in prepared)
        return cls(path, keys, parts, lambda: prepared)


@dataclass
class UsageRow(TokenCounts):
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
    #: the row per model (``by_model=True``), by model
    by_model: dict[str, UsageRow] | None = None

    @property
    def cost(self) -> float | None:
        """USD, or None when part of it is unknown."""
        return None if self.unpriced else self.cost_usd

    def add_part(self, p: Part) -> None:
        self.input_tokens += p.input_tokens
        self.output_tokens += p.output_tokens
        self.cache_creation_tokens += p.cache_creation_tokens
        self.cache_read_tokens += p.cache_read_tokens
        self.cost_usd += p.usd
        if p.listed:
            self.models.add(p.model)
        if p.unpriced:
            self.unpriced.add(p.model)
        if self.by_model is not None:
            sub = self.by_model.get(p.model)
            if sub is None:
                sub = self.by_model[p.model] = UsageRow(p.model)
            sub.add_part(p)

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

    def varies(self, quarter: int) -> bool:
        """The zone changes offset inside this quarter hour (never on a real zone)."""
        self.ordinal(quarter * QUARTER_MS)
        return self._offsets[quarter * QUARTER_MS // 1000 // self._Q] is None

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


def _keyer(by: str) -> Callable[[Part, int], str]:
    cache: dict[int, str] = {}

    def day(p: Part, o: int) -> str:
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
        return lambda p, o: p.session
    if by == "project":
        return lambda p, o: p.project
    if by == "model":
        return lambda p, o: p.model
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
    keyer = _keyer(by)
    days = LocalDays(tz)
    parts = parts_of(dedupe(events, table), days)
    return _report(parts, by, keyer, days, since, until, project, table or default_table())


def aggregate_files(
    files: Sequence[FileUsage],
    by: str = "day",
    *,
    tz: tzinfo | None = None,
    since: int | None = None,
    until: int | None = None,
    project: str | None = None,
    by_model: bool = False,
) -> UsageReport:
    """:func:`aggregate` of every file's events, from their summaries where it can: a
    file none of whose responses is in another file gives its stored parts; the files that
    share a response (a fork, a sub-agent replayed in its parent) are read back and deduped
    together. The same report as :func:`aggregate` of all their events. ``by_model``: each
    row's ``by_model`` holds its part per model (the app's bars)."""
    keyer = _keyer(by)
    days = LocalDays(tz)
    shared = _sharing(files)
    parts: list[Part] = []
    for n, f in enumerate(files):
        if n in shared or any(days.varies(p.quarter) for p in f.parts):
            shared.add(n)
        else:
            parts += f.parts
    if shared:
        events = [e for n in sorted(shared) for e in files[n].load()]
        parts += parts_of(dedupe(events), days)
    return _report(parts, by, keyer, days, since, until, project, default_table(), by_model)


def _sharing(files: Sequence[FileUsage]) -> set[int]:
    """The files holding a response another file holds too (a file's own keys are
    unique: :func:`prepare`). Set operations: no Python loop over keys when none is shared."""
    keys = list(chain.from_iterable(f.keys for f in files))
    if len(set(keys)) == len(keys):
        return set()
    twice = {k for k, n in Counter(keys).items() if n > 1}
    return {i for i, f in enumerate(files) if not twice.isdisjoint(f.keys)}


def _report(
    parts: list[Part],
    by: str,
    keyer: Callable[[Part, int], str],
    days: LocalDays,
    since: int | None,
    until: int | None,
    project: str | None,
    table: PriceTable,
    by_model: bool = False,
) -> UsageReport:
    rows: dict[str, UsageRow] = {}
    for p in parts:
        if project is not None and p.project != project:
            continue
        o = p.day or days.ordinal(p.quarter * QUARTER_MS)
        if (since is not None and o < since) or (until is not None and o > until):
            continue
        k = keyer(p, o)
        row = rows.get(k)
        if row is None:
            row = rows[k] = UsageRow(k, by_model={} if by_model else None)
        row.add_part(p)
    kept = [r for r in rows.values() if r.total_tokens or r.cost_usd]
    if by in ("day", "week", "month"):
        kept.sort(key=lambda r: r.key)
    else:
        kept.sort(key=lambda r: (-r.cost_usd, r.key))
    totals = UsageRow("")
    for r in kept:
        totals.merge(r)
    return UsageReport(by, kept, totals, prices_date=table.date)

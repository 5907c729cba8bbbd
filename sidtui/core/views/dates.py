"""Date words of ``ls --since/--until`` and the browser's ``since:``/``until:`` filter.

A date is a local calendar day (the process's zone, which ``TZ`` sets), as in ``sidtui
usage``, whose parser (:func:`~sidtui.core.usage.aggregate.parse_day`) reads the ISO
forms; this module adds ``today``, ``yesterday`` and ``Nd`` (the last N days, today
included: ``1d`` is today, ``7d`` the week up to today). A session is in a range when its
last activity's local day is.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, TypeVar

from sidtui.core.base.errors import UsageError
from sidtui.core.usage.aggregate import parse_day

_DAYS = re.compile(r"([0-9]{1,5})d")

T = TypeVar("T")


def today_ordinal(now: float | None = None) -> int:
    """Today's local date as an ordinal (``now``: epoch seconds, default the clock)."""
    t = time.localtime(time.time() if now is None else now)
    return date(t.tm_year, t.tm_mon, t.tm_mday).toordinal()


def parse_date_word(s: str, what: str, *, today: int | None = None) -> int:
    """A date word as a local date ordinal: ``YYYY-MM-DD`` / ``YYYYMMDD``, ``today``,
    ``yesterday`` or ``Nd`` (N ≥ 1: the first of the last N days).

    Raises:
        UsageError: none of these (exit 2), worded with ``what`` (``--since``).
    """
    t = s.strip().lower()
    day = today_ordinal() if today is None else today
    if t == "today":
        return day
    if t == "yesterday":
        return day - 1
    m = _DAYS.fullmatch(t)
    if m:
        n = int(m.group(1))
        if n < 1:
            raise UsageError(f"{what} {s!r}: the last 0 days is no day (1d is today)")
        return day - (n - 1)
    try:
        return parse_day(t, what)
    except UsageError:
        raise UsageError(
            f"{what} must be a date as YYYY-MM-DD, today, yesterday or Nd (got {s!r})"
        ) from None


def local_day(iso: str | None) -> int | None:
    """The local date (ordinal) of an ISO timestamp; None when missing or unparsable.
    A timestamp without a zone is taken as UTC (what the transcripts write)."""
    if not iso or not isinstance(iso, str):
        return None
    try:
        dt = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    try:
        return dt.astimezone().date().toordinal()
    except (OverflowError, OSError, ValueError):  # beyond what the platform's clock reads
        return None


@dataclass(frozen=True)
class DayRange:
    """Local days ``since`` .. ``until``, inclusive (None: open on that side)."""

    since: int | None = None
    until: int | None = None

    @classmethod
    def parse(
        cls,
        since: str | None,
        until: str | None,
        *,
        names: tuple[str, str] = ("--since", "--until"),
    ) -> DayRange:
        """The range two date words give (None: not given).

        Raises:
            UsageError: a word is no date, or ``since`` is after ``until``.
        """
        today = today_ordinal()
        lo = parse_date_word(since, names[0], today=today) if since is not None else None
        hi = parse_date_word(until, names[1], today=today) if until is not None else None
        if lo is not None and hi is not None and lo > hi:
            raise UsageError(f"{names[0]} {since} is after {names[1]} {until}")
        return cls(lo, hi)

    def __bool__(self) -> bool:
        return self.since is not None or self.until is not None

    def holds(self, iso: str | None) -> bool:
        """The local day of ``iso`` is in the range (an unknown time: only in an open one)."""
        if not self:
            return True
        day = local_day(iso)
        if day is None:
            return False
        return (self.since is None or day >= self.since) and (
            self.until is None or day <= self.until
        )

    def filter(self, rows: Iterable[T], attr: str = "last_activity") -> list[T]:
        """The rows whose ``attr`` (an ISO time; default the last activity) is in range."""
        if not self:
            return list(rows)
        return [r for r in rows if self.holds(_get(r, attr))]


def _get(row: Any, attr: str) -> Any:
    return row.get(attr) if isinstance(row, dict) else getattr(row, attr, None)

"""Find in the open session: which conversation entries hold every word, and where.

The rule is the global search's (all words required, case-insensitive), applied to what
the Conversation draws: an entry's one-line summary and its expanded text. Matching runs
in a worker (:func:`find_entries`; bodies of tool calls are decoded from the file on the
way); the view keeps the :class:`Finder` and highlights every word where it is drawn.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

#: Entries looked at between two checks of the worker's cancellation.
CHECK_EVERY = 1000


def find_terms(query: str) -> list[str]:
    """The query's words, lower case, duplicates dropped (order kept)."""
    out: list[str] = []
    for w in query.lower().split():
        if w not in out:
            out.append(w)
    return out


@dataclass
class Finder:
    """The words being found and the entries that hold them.

    Attributes:
        query: as typed.
        terms: :func:`find_terms` of it.
        pattern: any term, case-insensitive (for highlighting).
        matches: entry indices that hold every term, in order (None until computed).
        position: index into ``matches`` of the current match (-1: none yet).
    """

    query: str
    terms: list[str] = field(default_factory=list)
    pattern: re.Pattern[str] | None = None
    matches: list[int] | None = None
    position: int = -1

    @classmethod
    def of(cls, query: str) -> Finder:
        terms = find_terms(query)
        alts = sorted((re.escape(t) for t in terms), key=len, reverse=True)
        pattern = re.compile("|".join(alts), re.IGNORECASE) if alts else None
        return cls(query, terms, pattern)

    def holds(self, text: str) -> bool:
        """Whether ``text`` holds every term."""
        low = text.lower()
        return bool(self.terms) and all(t in low for t in self.terms)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """(start, end) of every term occurrence in ``text``, left to right."""
        if self.pattern is None or not text:
            return []
        return [m.span() for m in self.pattern.finditer(text)]


def entry_text(model, i: int) -> str:
    """What entry ``i`` of ``model`` shows, folded and expanded (for matching)."""
    e = model.entries[i]
    if e.kind == "header":
        return model.header_text(e)
    if e.kind == "text":
        return model.body(e)
    return model.header_text(e) + "\n" + model.body(e)


def find_entries(model, finder: Finder, cancelled: Callable[[], bool] | None = None) -> list[int]:
    """Indices of the entries of ``model`` that hold every term of ``finder``.

    Blocking (decodes tool bodies): run it in a worker; ``cancelled`` is polled every
    :data:`CHECK_EVERY` entries and stops the scan early (the result is then partial).
    """
    out: list[int] = []
    for i in range(len(model.entries)):
        if cancelled is not None and i % CHECK_EVERY == 0 and cancelled():
            break
        if finder.holds(entry_text(model, i)):
            out.append(i)
    return out

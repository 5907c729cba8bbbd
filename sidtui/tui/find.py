"""Find in the open session: which conversation entries hold every word, and where.

The rule is the global search's (all words required, case-insensitive), applied to what
the Conversation draws: an entry's one-line summary and its expanded text. Matching runs
in a worker (:func:`find_entries`; bodies of tool calls are decoded from the file on the
way); the view keeps the :class:`Finder` and highlights every word where it is drawn.
Big sessions are first narrowed with the file's bytes (:func:`lines_holding`): an entry
is decoded only when each word is in one of its message's lines (``model.lines_of``: a
Claude Code response has one per record) or in the words sidtui adds to it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

#: Entries looked at between two checks of the worker's cancellation.
CHECK_EVERY = 1000
#: Sessions with more entries than this are narrowed with the file's bytes first.
PREFILTER_FROM = 20_000
#: A word found more often than this in the file narrows nothing: it is not used to.
MAX_HITS = 200_000


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


def lines_holding(low: bytes, term: str) -> set[int] | None:
    """1-based numbers of the lines of ``low`` (a transcript's bytes, lower-cased) that
    hold ``term``; None when the bytes cannot say (a word with a character JSON escapes or
    outside ASCII, whose drawn form differs from the bytes, or one so common it would
    narrow nothing). A control character drawn as ``\\xNN`` is ``\\u00NN`` in the bytes:
    such a word is not found in big sessions."""
    if not term.isascii() or any(c in term for c in '"\\') or not term.isprintable():
        return None
    needle = term.encode()
    hits: list[int] = []
    at = low.find(needle)
    while at != -1:
        hits.append(at)
        if len(hits) > MAX_HITS:
            return None
        at = low.find(needle, at + 1)
    out: set[int] = set()
    line, pos = 1, 0
    for h in hits:  # occurrences are in order: count the newlines between them once
        line += low.count(b"\n", pos, h)
        pos = h
        out.add(line)
    return out


def loaded_bytes(model) -> bytes | None:
    """The transcript's bytes as far as ``model`` was loaded from them (``model.source()``),
    read as the core reads a disk it does not control: a regular file only, no symbolic
    link followed, never more than was loaded. None when there is no such file or it
    cannot be read so (a FIFO or a link put in its place, gone): find then decodes every
    entry instead."""
    from sidtui.core.base.errors import UnreadableInput
    from sidtui.core.base.regular import read_regular

    src = model.source()
    if src is None:
        return None
    path, size = src
    try:
        return read_regular(path, size, head=True, follow=False)
    except (OSError, UnreadableInput):
        return None


def added_words(model, e) -> str:
    """What sidtui draws for entry ``e`` besides its record's content (role, line, time,
    fold markers, status words, tool names, notes, drops), lower case: cheap, no decode."""
    parts = [e.kind.replace("_", " "), model.header_note(e) or "", e.dropped or ""]
    if e.msg is not None:
        m = model.messages[e.msg]
        if e.kind == "header":
            parts.append(model.header_text(e))
        else:
            b = m.blocks[e.block]
            parts += ["⚙ ⮑ ok error tool block thinking chars redacted dropped by"]
            parts.append(str(len(b.text_like or "")))
            parts.append(model.tool_name_for(getattr(b, "tool_use_id", None)) or "")
    return " ".join(parts).lower()


_NUMERIC = re.compile(r"[\d:.()\-]+")
#: Words sidtui draws around a record's content (headers, fold lines, banners).
FIXED_WORDS = (
    "user assistant tool system line turn header text thinking redacted other block chars "
    "⚙ ⮑ ▸ ▾ ok error dropped by parallel results re-queued as the next prompt on resume "
    "(interrupted prompt) changed by cleaning ✗"
)


def added_vocabulary(model) -> str:
    """Every word :func:`added_words` can give for any entry of ``model``, but numbers
    (line, time, counts): one string to test a term against once, lower case."""
    parts = [FIXED_WORDS, *model.tool_names().values()]
    parts += {e.note or "" for e in model.entries} | {e.dropped or "" for e in model.entries}
    return " ".join(parts).lower()


def find_entries(
    model,
    finder: Finder,
    cancelled: Callable[[], bool] | None = None,
    raw: bytes | None = None,
) -> list[int]:
    """Indices of the entries of ``model`` that hold every term of ``finder``.

    Blocking (decodes tool bodies): run it in a worker; ``cancelled`` is polled every
    :data:`CHECK_EVERY` entries and stops the scan early (the result is then partial).
    ``raw``: :func:`loaded_bytes` of ``model``; with it an entry none of whose message's
    lines holds a word (nor the words sidtui adds to it) is passed over without decoding.
    """
    narrow: list[tuple[str, set[int]]] = []
    if raw is not None:
        low = raw.lower()
        for t in finder.terms:
            ls = lines_holding(low, t)
            if ls is not None:
                narrow.append((t, ls))
    vocab = added_vocabulary(model) if narrow else ""
    # a word no entry can get from sidtui (not a number, not in the vocabulary) is only
    # ever in the record's own bytes: its line set decides alone
    only_raw = [ls for t, ls in narrow if t not in vocab and not _NUMERIC.fullmatch(t)]
    maybe_added = [(t, ls) for t, ls in narrow if t in vocab or _NUMERIC.fullmatch(t)]
    out: list[int] = []
    for i, e in enumerate(model.entries):
        if cancelled is not None and i % CHECK_EVERY == 0 and cancelled():
            break
        if narrow and e.msg is not None:
            lines = model.lines_of(e.msg)  # a Claude Code response: one line per record
            if lines:
                if any(ls.isdisjoint(lines) for ls in only_raw):
                    continue
                missing = [t for t, ls in maybe_added if ls.isdisjoint(lines)]
                if missing:
                    added = added_words(model, e)
                    if any(t not in added for t in missing):
                        continue
        if finder.holds(entry_text(model, i)):
            out.append(i)
    return out

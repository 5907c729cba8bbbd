"""The line under a session's conversation: records that arrived below the reader, and
whether the view follows the end of a live session (both session screens show it)."""

from __future__ import annotations

from textual.reactive import reactive
from textual.widgets import Static

from sidtui.fmt import plural


def follow_words(new_records: int, follow: bool, live: bool) -> str:
    """``▼ 2 new records — End to jump · not following (t)``; empty when there is nothing
    to say (no new records on a session nothing writes)."""
    parts = []
    if new_records:
        parts.append(f"▼ {plural(new_records, 'new record')} — End to jump")
    if live:
        parts.append("following the end (t)" if follow else "not following (t)")
    return " · ".join(parts)


class FollowLine(Static):
    """:func:`follow_words` of a :class:`ConversationView`, hidden when empty.

    :meth:`attach` it to the view once mounted; set :attr:`live` after every read.
    """

    DEFAULT_CSS = """
    FollowLine { height: 1; background: $panel-darken-1; color: $text-muted; }
    FollowLine.-has-new { background: $warning-muted; color: $text; text-style: bold; }
    """

    #: a running process writes the session (following means something)
    live: reactive[bool] = reactive(False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self._conv = None

    def attach(self, conv) -> None:
        """Show ``conv``'s ``new_records`` and ``follow`` from now on."""
        self._conv = conv
        self.watch(conv, "new_records", lambda _: self.show_words())
        self.watch(conv, "follow", lambda _: self.show_words())

    def watch_live(self, _live: bool) -> None:
        self.show_words()

    def show_words(self) -> None:
        conv = self._conv
        if conv is None:
            return
        words = follow_words(conv.new_records, conv.follow, self.live)
        self.update(" " + words)
        self.display = bool(words)
        self.set_class(bool(conv.new_records), "-has-new")

"""What a session screen (sid-code's and Claude Code's) does while its file is written.

A changed file is re-read in full (the view is the loader's verdict on the whole file; see
docs/DECISIONS.md, "The app at 80 columns"), spaced when reads are slow; the conversation
follows the end like ``tail -f`` (``t``), or a :class:`FollowLine` counts the new records
when the reader has scrolled up. A process that starts or ends re-reads the open screens
(whether the session is live is the read's verdict).
"""

from __future__ import annotations

import time

from textual import work
from textual.binding import Binding

from sidtui.tui.messages import SessionFileChanged
from sidtui.tui.widgets.follow_line import FollowLine

#: The follow key, in each screen's ``BINDINGS`` where its footer shows it.
FOLLOW_BINDING = Binding("t", "toggle_follow", "Follow")
#: A live session is re-read at most once per this many times the last read's duration.
RELOAD_SPACING = 2.0
#: Reads quicker than this (seconds) are never spaced.
RELOAD_SPACED_FROM = 0.25


def load_error_text(sf, exc: Exception) -> str:
    """A failed read in words (never a raw ``[Errno 2] …``)."""
    if isinstance(exc, FileNotFoundError):
        return f"the session file is gone: {sf.path} (deleted or moved since the list was read)"
    if isinstance(exc, PermissionError):
        return f"cannot read {sf.path}: permission denied"
    if isinstance(exc, OSError):
        return f"cannot read {sf.path}: {exc.strerror or exc}"
    return str(exc)


class LiveSessionScreen:
    """Mixin for a session screen, listed before ``Screen``: the live re-read and follow.

    The screen has ``sf`` (its file), ``view`` (None until read; ``view.liveness.live``),
    ``_conv`` (its ``ConversationView``) and ``load(reload)``, which reads in a worker of
    group :attr:`LOAD_GROUP`. It calls :meth:`watch_live` on mount and :meth:`read_done`
    when a read arrives (after setting ``view``), and shows :data:`FOLLOW_BINDING`.
    """

    LOAD_GROUP = "open-session"
    _stat: tuple[int, int] | None = None  # (size, mtime_ns) of the file last read
    _reload_pending = False
    _load_seconds = 0.0  # how long the last read took
    _loaded_at = 0.0  # time.monotonic() when it ended
    _reload_timer = None
    _reading = False  # a read started and its result not handed over yet

    def load(self, reload: bool = False) -> None:
        """Read the session in a worker (the screen's ``_load``, group :attr:`LOAD_GROUP`)."""
        self._reading = True
        self._load(reload, self._conv.content_width())

    def watch_live(self, line: FollowLine) -> None:
        """Show the conversation's follow state in ``line``; poll the file when the app
        polls (``poll_interval``; the app's watcher calls :meth:`check_file` too)."""
        line.attach(self._conv)
        interval = getattr(self.app, "poll_interval", 0)
        if interval:
            self.set_interval(interval, self.check_file)

    def is_live(self) -> bool:
        """A running process writes the session (as of the last read)."""
        return self.view is not None and self.view.liveness.live

    def read_done(self, stat: tuple[int, int], seconds: float) -> None:
        """A read of ``stat`` ended after ``seconds``: re-read if the file changed meanwhile."""
        first, self._stat = self._stat is None, stat
        self._reading = False
        if self._reload_pending:
            self._reload_pending = False
            self.call_after_refresh(self.reload_when_idle)
        elif first:  # a change announced while the first read ran had no stat to compare
            self.check_file()
        self._loaded_at = time.monotonic()
        self._load_seconds = seconds
        line = self.query_one(FollowLine)
        if line.live != self.is_live():
            line.live = self.is_live()
            self.refresh_bindings()  # the footer's follow key comes or goes

    # ------------------------------------------------------------------ re-reading

    def check_file(self) -> None:
        """Re-read the session when its file grew or changed (the live tail)."""
        self._check_file(self._stat)

    @work(
        thread=True,
        exclusive=True,
        group="watch-session",
        exit_on_error=False,
        description="checking the session file",
    )
    def _check_file(self, known: tuple[int, int] | None) -> None:
        try:
            st = self.sf.path.stat()
        except OSError:
            return
        now = (st.st_size, st.st_mtime_ns)
        if known is not None and now != known:
            self.post_message(SessionFileChanged(now))

    def on_session_file_changed(self, msg: SessionFileChanged) -> None:
        self._stat = msg.stat
        self.reload_when_idle()

    def process_changed(self) -> None:
        """An agent process started, exited or died: re-read, since whether the session is
        live (the header's word, the follow key) is the read's verdict. Rare: a process
        that ends without writing again would otherwise be shown live until the next append."""
        self.reload_when_idle()

    def reload_when_idle(self) -> None:
        """Re-read now, or right after the read in progress (a busy live session must not
        start a new full read on every append).

        Reads of a live session that took a quarter second or more are spaced by twice
        their duration, so a huge session being written keeps at most a third of a core
        busy instead of re-reading back to back; quicker ones re-read at once.
        """
        # a read whose result was handed over (read_done) is over even while its worker
        # thread still winds down: a change then must re-read, not wait for it
        if self._reading and any(
            w.node is self and w.group == self.LOAD_GROUP and not w.is_finished
            for w in self.workers
        ):
            self._reload_pending = True
            return
        wait = self.reload_wait()
        if wait <= 0:
            self.load(True)
        elif self._reload_timer is None:
            self._reload_timer = self.set_timer(wait, self._timed_reload)

    def reload_wait(self) -> float:
        """Seconds to wait before the next live re-read (0 when it may start now)."""
        if self._load_seconds < RELOAD_SPACED_FROM:
            return 0.0  # a quick read: re-read at once
        return RELOAD_SPACING * self._load_seconds - (time.monotonic() - self._loaded_at)

    def _timed_reload(self) -> None:
        self._reload_timer = None
        self.reload_when_idle()

    # ------------------------------------------------------------------ follow

    def action_toggle_follow(self) -> None:
        conv = self._conv
        conv.follow = not conv.follow
        if conv.follow:
            conv.action_last()
        self.notify("following the end of the session" if conv.follow else "follow off")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_follow":
            return self.is_live()
        return super().check_action(action, parameters)  # type: ignore[misc]

    def follow_command(self) -> tuple:
        """The command palette's entry for ``t``."""
        return (
            "Toggle follow",
            "Follow the end of a live session like tail -f (t)",
            self.action_toggle_follow,
        )

"""The Conversation tab: a virtualised Line-API view of a :class:`ConversationModel`.

Only visible lines are drawn (:meth:`render_line`), each entry's wrapped lines are built on
first use and kept in an LRU cache, and the line → entry map is a prefix-sum array searched
with ``bisect``; drawing a screen therefore costs the same for 50 messages and 500,000.
Follows the end of the session like ``tail -f`` while ``follow`` is on and the view is at
the bottom; otherwise appended records raise the ``new_records`` count shown by the screen.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right

from rich.cells import cell_len, chop_cells
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events, work
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from sidtui.fmt import cut_path, plural
from sidtui.tui.conversation_model import TEXT_PREVIEW_LINES, ConversationModel, Entry
from sidtui.tui.find import Finder, find_entries
from sidtui.tui.messages import FindAnswered, LayoutMeasured
from sidtui.tui.worker_errors import ReportsWorkerErrors

INDENT = {"header": 0, "banner": 0}
BODY_INDENT = 4


_WORDS = re.compile(r"[^ ]*(?: +|$)")


def word_cells(word: str) -> int:
    """``cell_len(word)``; a printable ASCII word (most words of any text) is one cell a
    character, so ``len`` answers at C speed."""
    return len(word) if word.isascii() and word.isprintable() else cell_len(word)


def _wrap_para(para: str, width: int) -> list[str]:
    """Greedy word wrap by terminal cells; words wider than a line are cut."""
    cells = len if para.isascii() and para.isprintable() else word_cells
    out: list[str] = []
    line, used = "", 0
    for word in _WORDS.findall(para):
        if not word:
            continue
        w = cells(word)
        if used + w <= width:
            line, used = line + word, used + w
            continue
        bare = word.rstrip(" ")
        if used + cells(bare) <= width:  # fits once its trailing spaces are dropped
            out.append(line + bare)
            line, used = "", 0
            continue
        if line:
            out.append(line.rstrip(" ") or line)
        if w > width:
            parts = chop_cells(word, width)
            out.extend(parts[:-1])
            line = parts[-1]
            used = cell_len(line)
        else:
            line, used = word, w
    if line or not out:
        out.append(line)
    return out


def wrap(text: str, width: int, limit: int | None = None) -> list[str]:
    """Wrap ``text`` to ``width`` cells per line at spaces (stops after ``limit`` lines)."""
    width = max(width, 8)
    out: list[str] = []
    for para in text.split("\n"):
        para = para.replace("\t", "    ")
        if len(para) * 2 <= width or (para.isascii() and para.isprintable() and len(para) <= width):
            out.append(para)  # fits (at most two cells a character); else the wrap says
        else:
            out.extend(_wrap_para(para, width))
        if limit is not None and len(out) > limit:
            break
    return out


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` cells with an ellipsis (one-line summaries)."""
    if len(text) <= width // 2 or cell_len(text) <= width:
        return text
    return chop_cells(text, max(1, width - 1))[0] + "…"


def fit_tool_line(line: str, path: str | None, width: int) -> str:
    """A tool line cut to ``width`` cells: when it ends with the ``path`` the tool acts on,
    the path loses its middle and keeps its file name (``⚙ Edit  /home/…/src/app.py``)."""
    if path is None or cell_len(line) <= width:
        return fit(line, width)
    tail = next((p for p in (path, cut_path(path, 100)) if line.endswith(p)), None)
    if tail is None:
        return fit(line, width)
    head = line[: len(line) - len(tail)]
    room = width - cell_len(head)
    if room < 12:  # no room for "…/" and a name: cut the end as any line
        return fit(line, width)
    return fit(head + cut_path(path, room), width)


def measure(model: ConversationModel, e: Entry, width: int) -> int:
    """Lines entry ``e`` takes at ``width`` — cheap: no styling, wraps capped when folded."""
    if e.kind == "header":
        note = model.header_note(e)
        extra = len(wrap(note, width - BODY_INDENT - 2)) if note else 0
        return (2 if e.msg else 1) + extra
    if e.kind == "compact":
        return 1
    if e.kind == "text":
        text = model.body(e)  # the text, control characters shown
        avail = max(width - BODY_INDENT - 2, 8)
        if e.collapsed:
            n = 0
            for para in text.split("\n", TEXT_PREVIEW_LINES + 1)[: TEXT_PREVIEW_LINES + 1]:
                # A paragraph of at most avail/2 characters fits even if every one is wide.
                n += 1 if len(para) * 2 <= avail else len(wrap(para, avail))
                if n > TEXT_PREVIEW_LINES:
                    return TEXT_PREVIEW_LINES + 1
            return max(1, n)
        return max(1, len(wrap(text, avail)))
    if e.kind == "banner":
        return (
            1
            + len(wrap(model.banner[0] if model.banner else "", width - 1))
            + len(wrap(model.body(e), width - 2))
        )
    if e.collapsed:
        return 1
    note = model.header_note(e)
    extra = len(wrap(note, width - BODY_INDENT - 2)) if note else 0
    return 1 + extra + len(wrap(model.body(e), width - BODY_INDENT - 2))


def layout(model: ConversationModel, width: int) -> array:
    """Start line of every entry plus the total (``array('q')``); safe to run in a worker."""
    starts = array("q", [0])
    total = 0
    for e in model.entries:
        total += measure(model, e, width)
        starts.append(total)
    return starts


class ConversationView(ReportsWorkerErrors, ScrollView, can_focus=True):
    """Messages as the agent will see them on resume, virtualised.

    Find (:meth:`find`): every entry whose text holds all the words is a match, the words
    are highlighted wherever they are drawn, and :meth:`next_match` moves the cursor from
    match to match (a folded entry whose match is hidden is expanded).
    """

    COMPONENT_CLASSES = {
        "conversation--user",
        "conversation--assistant",
        "conversation--tool",
        "conversation--thinking",
        "conversation--dropped",
        "conversation--cursor",
        "conversation--banner",
        "conversation--banner-bad",
        "conversation--dim",
        "conversation--match",
    }

    DEFAULT_CSS = """
    ConversationView { background: $surface; scrollbar-gutter: stable; }
    ConversationView > .conversation--user { color: $text-primary; text-style: bold; }
    ConversationView > .conversation--assistant { color: $text-success; text-style: bold; }
    ConversationView > .conversation--tool { color: $text-warning; }
    ConversationView > .conversation--thinking { color: $text-muted; text-style: italic; }
    ConversationView > .conversation--dropped { color: $text-disabled; text-style: strike; }
    ConversationView > .conversation--cursor { background: $block-cursor-blurred-background; }
    ConversationView:focus > .conversation--cursor { background: $block-cursor-background; color: $block-cursor-foreground; }
    ConversationView > .conversation--banner { background: $success-muted; color: $text; text-style: bold; }
    ConversationView > .conversation--banner-bad { background: $error-muted; color: $text; text-style: bold; }
    ConversationView > .conversation--dim { color: $text-muted; }
    ConversationView > .conversation--match { background: $warning; color: $background; text-style: bold; }
    """

    HELP_NAME = "conversation"  # what the help table calls it
    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "first", "Top", show=False),
        Binding("end,G", "last", "End", show=False),
        Binding(
            "enter",
            "activate",
            "Expand",
            tooltip="Expand or fold; on a sub-agent's call, open its transcript",
        ),
        Binding("space", "toggle", "Expand", show=False),
        Binding("[", "prev_message", "Prev message", show=False),
        Binding("]", "next_message", "Next message", show=False),
    ]

    cursor: reactive[int] = reactive(0, always_update=True)
    follow: reactive[bool] = reactive(True)
    new_records: reactive[int] = reactive(0)

    class CursorMoved(Message):
        """The selected entry changed (``entry`` index into the model)."""

        def __init__(self, entry: int) -> None:
            super().__init__()
            self.entry = entry

    class SubagentChosen(Message):
        """Enter on a sub-agent's call: open its transcript (``link``: a
        :class:`~sidtui.core.base.conversation.SubagentLink` with a ``ref``)."""

        def __init__(self, link) -> None:
            super().__init__()
            self.link = link

    class LineNotShown(Message):
        """File line ``line`` holds no message of the conversation (off the live chain)."""

        def __init__(self, line: int) -> None:
            super().__init__()
            self.line = line

    class FindMoved(Message):
        """The find state changed: match ``position`` (1-based, 0: none) of ``total``."""

        def __init__(self, query: str, position: int, total: int) -> None:
            super().__init__()
            self.query = query
            self.position = position
            self.total = total

        def status(self, typing: bool = False) -> str | Text:
            """What a find bar's status shows for this state (empty: no query); the keys
            that move between matches: Enter/shift+Enter while ``typing`` in the box (``n``
            would type), ``n``/``N`` once the box is left."""
            if not self.query.strip():
                return ""
            if not self.total:
                return Text(" no match", style="bold red")
            if not self.position:
                return f" {plural(self.total, 'match', 'matches')}"
            keys = "Enter/shift+Enter" if typing else "n/N"
            return f" {self.position}/{self.total} · {keys}: next/previous"

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.model: ConversationModel | None = None
        self._starts = array("q", [0])  # line where each entry starts; last = total
        self._lines: LRUCache[tuple, list[tuple[str, str]]] = LRUCache(1024)
        self._strips: LRUCache[tuple, Strip] = LRUCache(2048)
        self._layout_width = 0
        self.finder: Finder | None = None  # the words being found, and their matches
        self._pending_anchor: int | None = None

    # ------------------------------------------------------------------ model

    def set_model(
        self,
        model: ConversationModel,
        *,
        keep_position: bool = False,
        starts: array | None = None,
        width: int | None = None,
    ) -> None:
        """Show ``model`` (attributes down); keeps the cursor's message when asked."""
        old_msg = None
        if keep_position and self.model is not None and self.model.entries:
            old_msg = self.model.entries[min(self.cursor, len(self.model.entries) - 1)].msg
        at_end = (
            self.model is None
            or self.cursor >= len(self.model.entries) - 1
            or self.is_vertical_scroll_end
        )
        prev_count = len(self.model.messages) if self.model is not None else 0
        self.model = model
        if starts is not None and width != self.content_width() and len(model.entries) >= 5_000:
            # Measured at another width (the view was not laid out yet): show that layout
            # now and re-measure in a worker rather than freezing the UI.
            self._relayout(starts)
            self._relayout_in_worker(model, self.content_width())
        else:
            self._relayout(starts if width == self.content_width() else None)
        if keep_position:
            added = max(0, len(model.messages) - prev_count)
            if self.follow and at_end:
                self.action_last()
            else:
                self.new_records += added
                if old_msg is not None and old_msg in model.message_entry:
                    self.cursor = model.message_entry[old_msg]
        else:
            self.cursor = 0
            self.new_records = 0
            self.scroll_to(y=0, animate=False)

    def content_width(self) -> int:
        """Columns a line of text may use (the loading worker measures at this width)."""
        return max(20, self.scrollable_content_region.width or self.size.width or 80)

    def _entry_lines(self, i: int, width: int) -> list[tuple[str, str]]:
        """(style-class, text) lines of entry ``i`` at ``width`` (cached)."""
        e = self.model.entries[i]
        key = (i, width, e.collapsed)
        hit = self._lines.get(key)
        if hit is not None:
            return hit
        lines = self._build_lines(e, width)
        self._lines[key] = lines
        return lines

    def _style_of(self, e: Entry) -> str:
        if e.dropped:
            return "dropped"
        if e.kind == "header":
            return "user" if e.role == "user" else "assistant" if e.role == "assistant" else "dim"
        if e.kind in ("tool_use", "tool_result"):
            return "tool"
        if e.kind in ("thinking", "redacted_thinking"):
            return "thinking"
        return ""

    def _build_lines(self, e: Entry, width: int) -> list[tuple[str, str]]:
        m = self.model
        style = self._style_of(e)
        if e.kind == "banner":
            bad = m.banner_kind != "none"
            cls = "banner-bad" if bad else "banner"
            out = [(cls, " " + line) for line in wrap(m.banner[0], width - 1)]
            for line in wrap(m.body(e), width - 2):
                out.append((cls, "  " + line))
            return [("", "")] + out
        ind = " " * BODY_INDENT
        avail = width - BODY_INDENT - 2
        if e.kind == "header":
            gap = [("", "")] if e.msg else []
            note = m.header_note(e)
            below = (
                [("dropped" if e.dropped else "dim", ind + line) for line in wrap(note, avail)]
                if note
                else []
            )
            return gap + [(style, fit("▌ " + m.header_text(e), width))] + below
        if e.kind == "compact":
            return [("dim", fit("  " + m.header_text(e), width))]
        if e.kind == "text":
            text = m.body(e)
            lines = wrap(text, avail, None if not e.collapsed else TEXT_PREVIEW_LINES)
            extra = ""
            if e.collapsed and len(lines) > TEXT_PREVIEW_LINES:
                rest = len(wrap(text, avail)) - TEXT_PREVIEW_LINES
                lines = lines[:TEXT_PREVIEW_LINES]
                extra = f"… {rest} more lines (enter to expand)"
            body = [(style, ind + line) for line in lines] or [(style, ind)]
            if extra:
                body.append(("dim", ind + extra))
            return body
        marker = "▸ " if e.collapsed else "▾ "
        head = [(style, fit_tool_line("  " + marker + m.header_text(e), m.header_path(e), width))]
        if e.collapsed:
            return head
        note = m.header_note(e)
        why = [(style, ind + line) for line in wrap(note, avail)] if note else []
        return (
            head
            + why
            + [(style if style != "tool" else "", ind + line) for line in wrap(m.body(e), avail)]
        )

    def _relayout(self, starts: array | None = None) -> None:
        """Recompute the line → entry map for the current width.

        ``starts`` may come precomputed from the loading worker (:func:`layout`) when it
        used the same width; otherwise it is computed here (O(entries), capped wraps).
        """
        width = self.content_width()
        self._layout_width = width
        self._lines.clear()
        self._strips.clear()
        if starts is None or self.model is None:
            starts = layout(self.model, width) if self.model is not None else array("q", [0])
        self._starts = starts
        self.virtual_size = Size(width, starts[-1])
        self.refresh()

    def _measure_entry(self, i: int, width: int) -> int:
        return measure(self.model, self.model.entries[i], width)

    # ------------------------------------------------------------------ drawing

    def entry_at_line(self, y: int) -> int:
        """Index of the entry drawn on virtual line ``y``."""
        return max(0, bisect_right(self._starts, y) - 1)

    def render_line(self, y: int) -> Strip:
        _, scroll_y = self.scroll_offset
        try:
            return self._render_virtual(scroll_y + y)
        except Exception as exc:  # noqa: BLE001 - a bad record must not take the app down
            return Strip(
                [
                    Segment(
                        f"  (cannot draw this line: {type(exc).__name__}: {exc})", self.rich_style
                    )
                ]
            )

    def _render_virtual(self, y: int) -> Strip:
        width = self.size.width
        if self.model is None or y >= self._starts[-1]:
            return Strip.blank(width, self.rich_style)
        i = self.entry_at_line(y)
        sub = y - self._starts[i]
        is_cursor = i == self.cursor
        key = (i, sub, width, is_cursor, self.model.entries[i].collapsed)
        hit = self._strips.get(key)
        if hit is not None:
            return hit
        lines = self._entry_lines(i, self._layout_width)
        cls, text = lines[sub] if sub < len(lines) else ("", "")
        base = self.rich_style
        style = base + self.get_component_rich_style(f"conversation--{cls}") if cls else base
        if is_cursor and (sub == 0 or self.model.entries[i].kind == "header"):
            style = style + self.get_component_rich_style("conversation--cursor")
        segments = [Segment(text, style)]
        spans = self.finder.spans(text) if self.finder is not None else []
        if spans:
            match = style + self.get_component_rich_style("conversation--match")
            segments, at = [], 0
            for a, b in spans:
                segments += [Segment(text[at:a], style), Segment(text[a:b], match)]
                at = b
            segments.append(Segment(text[at:], style))
        strip = Strip(segments).crop_extend(0, width, style if is_cursor else base)
        self._strips[key] = strip
        return strip

    def notify_style_update(self) -> None:
        # A new theme (ctrl+t) restyles the widget: lines drawn in the old colours go.
        super().notify_style_update()
        self._strips.clear()
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        self._fit_width()

    def on_show(self) -> None:
        # A resize while another tab was shown reached no hidden widget: re-wrap on return.
        self._fit_width()

    def _fit_width(self) -> None:
        width = self.content_width()
        if width == self._layout_width or self.model is None:
            return
        if len(self.model.entries) < 5_000:
            self._relayout()
            self._scroll_into_view(self.cursor)
        else:
            self._relayout_in_worker(self.model, width)

    # A description, or Textual would repr() the whole model to name the worker.
    @work(
        thread=True,
        exclusive=True,
        group="conversation-layout",
        description="measuring the conversation",
        exit_on_error=False,
    )
    def _relayout_in_worker(self, model: ConversationModel, width: int) -> None:
        """Big sessions: measure in a thread; the old layout stays on screen meanwhile."""
        self.post_message(LayoutMeasured(model, width, layout(model, width)))

    def on_layout_measured(self, msg: LayoutMeasured) -> None:
        msg.stop()
        if msg.model is self.model and msg.width == self.content_width():
            self._relayout(msg.starts)
            self._scroll_into_view(self.cursor)

    # ------------------------------------------------------------------ cursor

    def watch_cursor(self, old: int, new: int) -> None:
        if self.model is None:
            return
        self._strips.clear()
        self.refresh()
        self._scroll_into_view(new)
        self.post_message(self.CursorMoved(new))

    def _scroll_into_view(self, entry: int, line: int = 0) -> None:
        """Scroll so entry ``entry`` (its ``line``-th line when given) is on screen."""
        if self.model is None:
            return
        top = self._starts[min(entry, len(self._starts) - 1)]
        bottom = self._starts[min(entry + 1, len(self._starts) - 1)]
        if line:
            top = bottom = top + line
            bottom += 1
        height = self.scrollable_content_region.height or 1
        y = self.scroll_offset.y
        if top < y:
            target = top
        elif bottom > y + height:
            target = max(top, bottom - height) if not line else max(0, top - height // 3)
        else:
            return
        if target > self.max_scroll_y:
            # Not laid out at this height yet (a session opened at a search hit): the scroll
            # would be clamped to the top, so it waits for the next refresh.
            self.call_after_refresh(self.scroll_to, y=target, animate=False)
        else:
            self.scroll_to(y=target, animate=False)

    def action_cursor(self, delta: int) -> None:
        if self.model and self.model.entries:
            self.cursor = max(0, min(len(self.model.entries) - 1, self.cursor + delta))

    def action_page(self, direction: int) -> None:
        height = self.scrollable_content_region.height or 10
        y = self._starts[self.cursor] + direction * height
        self.cursor = self.entry_at_line(max(0, min(y, self._starts[-1] - 1)))

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        if self.model and self.model.entries:
            self.cursor = len(self.model.entries) - 1
            # force: records that make the conversation outgrow the view come before the
            # layout shows its scrollbar, and a scroll is ignored until it does
            self.scroll_end(animate=False, immediate=True, force=True)
            self.new_records = 0

    def _jump_message(self, direction: int) -> None:
        if not self.model:
            return
        i = self.cursor + direction
        while 0 <= i < len(self.model.entries):
            if self.model.entries[i].kind == "header":
                self.cursor = i
                return
            i += direction

    def action_prev_message(self) -> None:
        self._jump_message(-1)

    def action_next_message(self) -> None:
        self._jump_message(1)

    def action_activate(self) -> None:
        """Enter: a sub-agent's call opens its transcript; any other entry folds."""
        if self.model and self.model.entries:
            link = self.model.subagent_of(self.model.entries[self.cursor])
            if link is not None:
                self.post_message(self.SubagentChosen(link))
                return
        self.action_toggle()

    def action_toggle(self) -> None:
        """Expand or collapse the selected entry."""
        if not self.model or not self.model.entries:
            return
        e = self.model.entries[self.cursor]
        if not e.collapsible:
            return
        e.collapsed = not e.collapsed
        self._relayout()
        self.watch_cursor(self.cursor, self.cursor)

    # ------------------------------------------------------------------ find

    def find_or_next(self, query: str, direction: int = 1) -> None:
        """A find bar's Enter (``direction`` 1) or shift+Enter (-1): the next or previous
        match of the same words, else find ``query``."""
        finder = self.finder
        if finder is not None and finder.query == query and finder.matches:
            self.next_match(direction)
        else:
            self.find(query)

    def find(self, query: str, anchor_line: int | None = None) -> None:
        """Find ``query``'s words (empty: stop finding); the cursor goes to the first match
        from the cursor on, or to the match in the message of file line ``anchor_line``."""
        self._strips.clear()
        self.refresh()
        if not query.strip() or self.model is None:
            self.finder = None
            self.post_message(self.FindMoved(query, 0, 0))
            return
        self.finder = Finder.of(query)
        self._pending_anchor = anchor_line
        self._find_worker(self.model, self.finder)

    @work(
        thread=True,
        exclusive=True,
        group="conversation-find",
        description="finding in the session",
        exit_on_error=False,
    )
    def _find_worker(self, model: ConversationModel, finder: Finder) -> None:
        from textual.worker import get_current_worker

        from sidtui.tui.find import PREFILTER_FROM, loaded_bytes

        worker = get_current_worker()
        raw = loaded_bytes(model) if len(model.entries) > PREFILTER_FROM else None
        matches = find_entries(model, finder, lambda: worker.is_cancelled, raw)
        if not worker.is_cancelled:
            self.post_message(FindAnswered(finder.query, matches))

    def on_find_answered(self, msg: FindAnswered) -> None:
        msg.stop()
        f = self.finder
        if f is None or f.query != msg.query or self.model is None:
            return
        f.matches = msg.matches
        anchor, self._pending_anchor = self._pending_anchor, None
        target = None
        if anchor is not None:
            target = self.anchor_entry(anchor, msg.matches)
            if target is None:  # the words are not drawn there (a file path, a prefix)
                if not self.scroll_to_line(anchor):
                    self.post_message(self.LineNotShown(anchor))
                self.post_message(self.FindMoved(f.query, 0, len(msg.matches)))
                return
        if target is None and msg.matches:
            later = [p for p, i in enumerate(msg.matches) if i >= self.cursor]
            target = later[0] if later else 0
        if target is None:
            self.post_message(self.FindMoved(f.query, 0, 0))
            return
        self._goto_match(target)

    def anchor_entry(self, line: int, matches: list[int]) -> int | None:
        """Position in ``matches`` of the first match in the message of file ``line``."""
        assert self.model is not None
        for p, i in enumerate(matches):
            e = self.model.entries[i]
            if e.msg is not None and getattr(self.model.messages[e.msg], "line", None) == line:
                return p
        return None

    def next_match(self, direction: int = 1) -> bool:
        """Move to the next (``1``) or previous (``-1``) match; False when there is none."""
        f = self.finder
        if f is None or not f.matches:
            return False
        if 0 <= f.position < len(f.matches) and f.matches[f.position] == self.cursor:
            p = (f.position + direction) % len(f.matches)
        elif direction > 0:
            p = next((p for p, i in enumerate(f.matches) if i > self.cursor), 0)
        else:
            before = [p for p, i in enumerate(f.matches) if i < self.cursor]
            p = before[-1] if before else len(f.matches) - 1
        self._goto_match(p)
        return True

    def _goto_match(self, p: int) -> None:
        f = self.finder
        assert f is not None and f.matches is not None and self.model is not None
        f.position = p
        i = f.matches[p]
        e = self.model.entries[i]
        width = self._layout_width
        shown = [t for _, t in self._entry_lines(i, width)]
        if e.collapsible and e.collapsed and not any(f.spans(t) for t in shown):
            e.collapsed = False  # the words are in the folded part: unfold it
            self._relayout()
            shown = [t for _, t in self._entry_lines(i, width)]
        line = next((k for k, t in enumerate(shown) if f.spans(t)), 0)
        self._strips.clear()
        self.cursor = i
        if line:
            self._scroll_into_view(i, line)
        self.post_message(self.FindMoved(f.query, p + 1, len(f.matches)))

    def set_all_collapsed(self, collapsed: bool) -> None:
        if not self.model:
            return
        for e in self.model.entries:
            if e.collapsible:
                e.collapsed = collapsed
        self._relayout()

    def scroll_to_message(self, msg: int) -> None:
        """Put the cursor on message ``msg`` (loader index)."""
        if self.model and msg in self.model.message_entry:
            self.cursor = self.model.message_entry[msg]

    def scroll_to_line(self, line: int) -> bool:
        """Put the cursor on the message of file line ``line`` (or the last one before it)."""
        """Put the cursor on the message of file line ``line``; False when no message of
        the conversation comes from that line (a record off the live chain)."""
        if not self.model:
            return False
        for i, m in enumerate(self.model.messages):
            if getattr(m, "line", None) == line:
                self.scroll_to_message(i)
                return True
        return False

    def on_click(self, event: events.Click) -> None:
        if self.model is None:
            return
        y = event.y + self.scroll_offset.y
        if y < self._starts[-1]:
            i = self.entry_at_line(y)
            if i == self.cursor:
                self.action_toggle()
            else:
                self.cursor = i

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        if self.is_vertical_scroll_end:
            self.new_records = 0


__all__ = ["ConversationView", "wrap", "Style"]

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
from textual import events, work
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from sidtui.tui.conversation_model import TEXT_PREVIEW_LINES, ConversationModel, Entry

INDENT = {"header": 0, "banner": 0}
BODY_INDENT = 4


_WORDS = re.compile(r"[^ ]*(?: +|$)")


def _wrap_para(para: str, width: int) -> list[str]:
    """Greedy word wrap by terminal cells; words wider than a line are cut."""
    out: list[str] = []
    line, used = "", 0
    for word in _WORDS.findall(para):
        if not word:
            continue
        w = cell_len(word)
        if used + w <= width:
            line, used = line + word, used + w
            continue
        bare = word.rstrip(" ")
        if used + cell_len(bare) <= width:  # fits once its trailing spaces are dropped
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
        if cell_len(para) <= width:
            out.append(para)
        else:
            out.extend(_wrap_para(para, width))
        if limit is not None and len(out) > limit:
            break
    return out


def measure(model: ConversationModel, e: Entry, width: int) -> int:
    """Lines entry ``e`` takes at ``width`` — cheap: no styling, wraps capped when folded."""
    if e.kind == "header":
        return 2 if e.msg else 1
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
    return 1 + len(wrap(model.body(e), width - BODY_INDENT - 2))


def layout(model: ConversationModel, width: int) -> array:
    """Start line of every entry plus the total (``array('q')``); safe to run in a worker."""
    starts = array("q", [0])
    total = 0
    for e in model.entries:
        total += measure(model, e, width)
        starts.append(total)
    return starts


class ConversationView(ScrollView, can_focus=True):
    """Messages as the agent will see them on resume, virtualised."""

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
    """

    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "first", "Top", show=False),
        Binding("end,G", "last", "End", show=False),
        Binding("enter,space", "toggle", "Expand"),
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

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.model: ConversationModel | None = None
        self._starts = array("q", [0])  # line where each entry starts; last = total
        self._lines: LRUCache[tuple, list[tuple[str, str]]] = LRUCache(1024)
        self._strips: LRUCache[tuple, Strip] = LRUCache(2048)
        self._layout_width = 0

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
        if starts is not None and width != self._content_width() and len(model.entries) >= 5_000:
            # Measured at another width (the view was not laid out yet): show that layout
            # now and re-measure in a worker rather than freezing the UI.
            self._relayout(starts)
            self._relayout_in_worker(model, self._content_width())
        else:
            self._relayout(starts if width == self._content_width() else None)
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

    def _content_width(self) -> int:
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
        if e.kind == "header":
            gap = [("", "")] if e.msg else []
            return gap + [(style, "▌ " + m.header_text(e))]
        if e.kind == "compact":
            return [("dim", "  " + m.header_text(e))]
        ind = " " * BODY_INDENT
        avail = width - BODY_INDENT - 2
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
        head = [(style, "  " + marker + m.header_text(e)[: max(0, width * 2)])]
        if e.collapsed:
            return head
        return head + [
            (style if style != "tool" else "", ind + line) for line in wrap(m.body(e), avail)
        ]

    def _relayout(self, starts: array | None = None) -> None:
        """Recompute the line → entry map for the current width.

        ``starts`` may come precomputed from the loading worker (:func:`layout`) when it
        used the same width; otherwise it is computed here (O(entries), capped wraps).
        """
        width = self._content_width()
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
        strip = Strip([Segment(text, style)]).crop_extend(0, width, style if is_cursor else base)
        self._strips[key] = strip
        return strip

    def on_resize(self, event: events.Resize) -> None:
        width = self._content_width()
        if width == self._layout_width or self.model is None:
            return
        if len(self.model.entries) < 5_000:
            self._relayout()
        else:
            self._relayout_in_worker(self.model, width)

    # A description, or Textual would repr() the whole model to name the worker.
    @work(
        thread=True, exclusive=True, group="conversation-layout", description="conversation layout"
    )
    def _relayout_in_worker(self, model: ConversationModel, width: int) -> None:
        """Big sessions: measure in a thread; the old layout stays on screen meanwhile."""
        starts = layout(model, width)
        self.app.call_from_thread(self._apply_layout, model, width, starts)

    def _apply_layout(self, model: ConversationModel, width: int, starts: array) -> None:
        if model is self.model and width == self._content_width():
            self._relayout(starts)

    # ------------------------------------------------------------------ cursor

    def watch_cursor(self, old: int, new: int) -> None:
        if self.model is None:
            return
        self._strips.clear()
        self.refresh()
        top = self._starts[min(new, len(self._starts) - 1)]
        bottom = self._starts[min(new + 1, len(self._starts) - 1)]
        height = self.scrollable_content_region.height or 1
        y = self.scroll_offset.y
        if top < y:
            self.scroll_to(y=top, animate=False)
        elif bottom > y + height:
            self.scroll_to(y=max(top, bottom - height), animate=False)
        self.post_message(self.CursorMoved(new))

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
            self.scroll_end(animate=False, immediate=True)
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

    def scroll_to_line(self, line: int) -> None:
        """Put the cursor on the message of file line ``line`` (or the last one before it)."""
        if not self.model:
            return
        best = None
        for i, m in enumerate(self.model.messages):
            ml = getattr(m, "line", None)
            if ml is not None and ml <= line:
                best = i
        if best is not None:
            self.scroll_to_message(best)

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

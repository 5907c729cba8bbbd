"""The Chain tab: every physical line of the transcript as a node of the record tree.

One row per line (records and bad lines, physical order), virtualised with the Line API
like the Conversation view. The live chain (what the loader follows from the tail) is
highlighted; records of skipped branches (concurrent writers, restarts) are dimmed with
their branch's record count; heads, branch points, the live tip, sidtui's rewind and
branch-switch markers and bad lines (with their reason) are marked. All of it comes from
:class:`sidtui.core.transcript.chain.RecordTree` and :class:`~sidtui.core.transcript.chain.ChainResult`.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from sidtui.fmt import plural, printable

MARKER_KEYS = ("rewind", "branch_switch")


@dataclass(slots=True)
class ChainRow:
    """One physical line: ``kind`` ``"record"`` (``index`` into records) or ``"bad"``."""

    kind: str
    index: int
    line: int


class ChainIndex:
    """Per-record facts for drawing, computed once from a SessionView (O(records))."""

    def __init__(self, view) -> None:
        self.view = view
        rf = view.rf
        self.rows: list[ChainRow] = []
        if rf is None:
            return
        recs = [ChainRow("record", r.index, r.line) for r in rf.records]
        bads = [ChainRow("bad", i, b.line) for i, b in enumerate(rf.bad_lines)]
        self.rows = sorted(recs + bads, key=lambda r: r.line)
        tree = view.tree
        self.on_chain = set(view.chain.chain)
        self.linear = view.chain.linear
        self.heads = set(tree.heads) | set(tree.forked_heads)
        self.branch_points = set(tree.branch_points)
        self.live_tip = tree.live_tip
        self.lost = set(tree.lost_parents)
        # A cycle: the loader's walk met this uuid twice and stopped there (FORMAT.md §4.4).
        self.cycle_uuid = view.chain.cycle_uuid if view.chain.cycle else None
        self.branch_of: dict[int, int] = {}
        for bi, br in enumerate(tree.branches):
            for ri in br.records:
                self.branch_of[ri] = bi

    def describe(self, row: ChainRow) -> tuple[str, str]:
        """(style class, text) of one row; types, keys and reasons come from the file, so
        control characters are shown as ``\\xNN`` and tabs as spaces."""
        cls, text = self._describe(row)
        return cls, printable(text).expandtabs(4)

    def _describe(self, row: ChainRow) -> tuple[str, str]:
        rf = self.view.rf
        if row.kind == "bad":
            b = rf.bad_lines[row.index]
            torn = "" if b.terminated else " (no newline: torn or unfinished)"
            return "bad", f"✗ line {b.line:>6}  BAD LINE  byte {b.offset}: {b.reason}{torn}"
        r = rf.records[row.index]
        i = r.index
        notes: list[str] = []
        if i in self.heads:
            notes.append("head")
        if i in self.branch_points:
            notes.append("branch point")
        if i == self.live_tip:
            notes.append("live tip")
        if i in self.lost:
            notes.append("parent lost")
        if self.cycle_uuid is not None and r.uuid == self.cycle_uuid:
            notes.append("⟳ cycle: the loader's walk stops here")
        if r.type == "metadata":
            rec = rf.decode(r)
            key = rec.get("key") if isinstance(rec, dict) else None
            if key in MARKER_KEYS:
                notes.append(f"⟲ {key} marker")
            elif isinstance(key, str):
                notes.append(key)
        if self.linear:
            glyph, cls = "│", "chain"
        elif i in self.on_chain:
            glyph, cls = "┃", "chain"
        elif i in self.branch_of:
            br = self.view.tree.branches[self.branch_of[i]]
            tip_line = rf.records[br.tip].line
            glyph, cls = "╎", "skipped"
            notes.append(f"skipped branch → line {tip_line} ({plural(br.skipped, 'record')})")
        else:
            glyph, cls = "·", "skipped"
        if any(n.endswith("marker") for n in notes):
            cls = "marker"
        uuid = (r.uuid or "—")[:8]
        parent = (r.parent or "null")[:8]
        text = f"{glyph} line {r.line:>6}  {(r.type or '(no type)'):<18} {uuid:<8} ← {parent:<8}"
        if notes:
            text += "  " + " · ".join(notes)
        return cls, text


class ChainView(ScrollView, can_focus=True):
    """The record tree, one line per physical line, virtualised."""

    COMPONENT_CLASSES = {
        "chain--chain",
        "chain--skipped",
        "chain--bad",
        "chain--marker",
        "chain--cursor",
    }
    DEFAULT_CSS = """
    ChainView { background: $surface; }
    ChainView > .chain--chain { color: $text; }
    ChainView > .chain--skipped { color: $text-disabled; }
    ChainView > .chain--bad { color: $text-error; text-style: bold; }
    ChainView > .chain--marker { color: $text-accent; text-style: bold; }
    ChainView > .chain--cursor { background: $block-cursor-blurred-background; }
    ChainView:focus > .chain--cursor { background: $block-cursor-background; color: $block-cursor-foreground; }
    """
    HELP_NAME = "raw lines"  # what the help table calls it
    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "cursor(-20)", "Page up", show=False),
        Binding("pagedown", "cursor(20)", "Page down", show=False),
        Binding("home,g", "first", "Top", show=False),
        Binding("end,G", "last", "End", show=False),
        Binding("b", "screen.switch_branch", "Make live"),
    ]

    cursor: reactive[int] = reactive(0, always_update=True)

    class NodeSelected(Message):
        """The highlighted row changed."""

        def __init__(self, row: ChainRow | None) -> None:
            super().__init__()
            self.row = row

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.index: ChainIndex | None = None
        self._strips: LRUCache[tuple, Strip] = LRUCache(2048)
        self._text: LRUCache[int, tuple[str, str]] = LRUCache(4096)

    def set_index(self, index: ChainIndex) -> None:
        self.index = index
        self._strips.clear()
        self._text.clear()
        self.virtual_size = Size(self.size.width, len(index.rows))
        self.cursor = min(self.cursor, max(0, len(index.rows) - 1))
        self.refresh()

    def render_line(self, y: int) -> Strip:
        row = y + self.scroll_offset.y
        width = self.size.width
        if self.index is None or row >= len(self.index.rows):
            return Strip.blank(width, self.rich_style)
        is_cursor = row == self.cursor
        key = (row, width, is_cursor)
        hit = self._strips.get(key)
        if hit is not None:
            return hit
        desc = self._text.get(row)
        if desc is None:
            try:
                desc = self.index.describe(self.index.rows[row])
            except Exception as exc:  # noqa: BLE001 - a bad record must not take the app down
                desc = ("bad", f"  (cannot describe this line: {type(exc).__name__}: {exc})")
            self._text[row] = desc
        cls, text = desc
        style = self.rich_style + self.get_component_rich_style(f"chain--{cls}")
        if is_cursor:
            style += self.get_component_rich_style("chain--cursor")
        strip = Strip([Segment(" " + text, style)]).crop_extend(0, width, style)
        self._strips[key] = strip
        return strip

    def watch_cursor(self, old: int, new: int) -> None:
        self._strips.clear()
        self.refresh()
        self.scroll_to_region_row(new)
        rows = self.index.rows if self.index else []
        self.post_message(self.NodeSelected(rows[new] if 0 <= new < len(rows) else None))

    def scroll_to_region_row(self, row: int) -> None:
        height = self.scrollable_content_region.height or 1
        y = self.scroll_offset.y
        if row < y:
            self.scroll_to(y=row, animate=False)
        elif row >= y + height:
            self.scroll_to(y=row - height + 1, animate=False)

    def action_cursor(self, delta: int) -> None:
        if self.index and self.index.rows:
            self.cursor = max(0, min(len(self.index.rows) - 1, self.cursor + delta))

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        if self.index and self.index.rows:
            self.cursor = len(self.index.rows) - 1

    def select_line(self, line: int) -> None:
        """Move the cursor to the row of physical ``line``."""
        if not self.index:
            return
        for i, r in enumerate(self.index.rows):
            if r.line >= line:
                self.cursor = i
                return

    def on_click(self, event: events.Click) -> None:
        row = event.y + self.scroll_offset.y
        if self.index and row < len(self.index.rows):
            self.cursor = row

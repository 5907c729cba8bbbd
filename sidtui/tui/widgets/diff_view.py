"""A side-by-side / unified diff, virtualised (Line API), with hunk navigation.

Rows come from :func:`sidtui.core.checkpoints.sidebyside.side_by_side`; syntax colouring is computed
once per side in the worker that loads the texts (:func:`highlight_lines`), changed words
inside replaced lines are emphasised (:func:`sidtui.core.checkpoints.sidebyside.word_spans`). ``s``
toggles unified / side-by-side, ``n`` / ``p`` jump between hunks. Until ``s`` is pressed
the mode follows the terminal: unified at 100 columns or fewer (two halves of 40 columns
showed one word each), side by side above.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from sidtui.core.checkpoints.sidebyside import (
    SideBySide,
    side_by_side,
    too_large_to_diff,
    unified_rows,
    word_spans,
)
from sidtui.fmt import printable
from sidtui.tui.fmt import NARROW_MAX

MAX_HIGHLIGHT_CHARS = 2_000_000


def highlight_lines(text: str, path: str, dark: bool = True) -> list[Text] | None:
    """Syntax-coloured lines of ``text`` (lexer from ``path``); None when too big."""
    if len(text) > MAX_HIGHLIGHT_CHARS:
        return None
    try:
        lexer = Syntax.guess_lexer(path, code=text[:4000])
    except Exception:  # noqa: BLE001 - Pygments raises what its lexers raise: plain text then
        return None
    if lexer in ("default", "text"):
        return None
    syntax = Syntax(text, lexer, theme="ansi_dark" if dark else "ansi_light")
    return syntax.highlight(text).split("\n", allow_blank=True)


def diff_syntax(diff: str, dark: bool = True) -> Syntax:
    """A unified diff as shown in a preview: made printable, coloured for the theme,
    wrapped."""
    return Syntax(
        printable(diff), "diff", theme="ansi_dark" if dark else "ansi_light", word_wrap=True
    )


@dataclass
class DiffData:
    """What a DiffView shows: a title, the rows, and optional coloured lines per side.

    Everything in it is already printable: file contents, the title and the note may hold
    ESC sequences, NUL, BEL, CR, DEL or C1 bytes, shown as ``\\xNN``
    (:func:`sidtui.fmt.printable`) and never sent to the terminal.
    """

    title: str
    sbs: SideBySide
    old_hl: list[Text] | None = None
    new_hl: list[Text] | None = None
    note: str | None = None

    def __post_init__(self) -> None:
        self.title = printable(self.title)
        self.note = printable(self.note) if self.note else self.note

    @classmethod
    def build(
        cls,
        title: str,
        old: str,
        new: str,
        path: str = "",
        dark: bool = True,
        note: str | None = None,
    ) -> DiffData:
        if reason := too_large_to_diff(old, new):  # neither diffed nor coloured
            return cls(title, SideBySide(too_large=reason), None, None, reason)
        if _all_crlf(old) and _all_crlf(new) and ("\r\n" in old or "\r\n" in new):
            # both sides end every line in CRLF: drawn as plain lines, said once in the
            # note (a \x0d on every line hid the change; mixed endings stay visible)
            old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
            note = f"{note} · CRLF line endings" if note else "CRLF line endings"
        # escaped before the diff, so word spans and colouring index the text as drawn
        old, new = printable(old), printable(new)
        return cls(
            title,
            side_by_side(old, new),
            highlight_lines(old, path, dark),
            highlight_lines(new, path, dark),
            note,
        )


def _all_crlf(text: str) -> bool:
    """Every line break in ``text`` is CRLF and no other CR is there (an empty text or one
    without line breaks counts: it does not make the other side's endings news)."""
    return text.count("\r") == text.count("\r\n") == text.count("\n")


class DiffView(ScrollView, can_focus=True):
    """Two texts compared, side by side or unified."""

    COMPONENT_CLASSES = {
        "diff--add",
        "diff--remove",
        "diff--add-word",
        "diff--remove-word",
        "diff--lineno",
        "diff--fold",
        "diff--title",
        "diff--hunk",
    }
    DEFAULT_CSS = """
    DiffView { background: $surface; }
    DiffView > .diff--add { background: $success-muted; }
    DiffView > .diff--remove { background: $error-muted; }
    DiffView > .diff--add-word { background: $success; color: $text; text-style: bold; }
    DiffView > .diff--remove-word { background: $error; color: $text; text-style: bold; }
    DiffView > .diff--lineno { color: $text-muted; }
    DiffView > .diff--fold { color: $text-muted; background: $panel; }
    DiffView > .diff--title { background: $panel; text-style: bold; }
    DiffView > .diff--hunk { background: $accent-muted; }
    """
    HELP_NAME = "diff"  # what the help table calls it
    BINDINGS = [
        Binding("n", "hunk(1)", "Next hunk"),
        Binding("p", "hunk(-1)", "Prev hunk"),
        Binding("s", "toggle_mode", "Unified/side-by-side"),
        Binding("up,k", "scroll_lines(-1)", "Up", show=False),
        Binding("down,j", "scroll_lines(1)", "Down", show=False),
    ]

    unified: reactive[bool] = reactive(False)
    current_hunk: reactive[int] = reactive(-1)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.chosen_mode = False  # the user pressed s: the mode no longer follows the width
        self.data: DiffData | None = None
        self._urows: list | None = None
        self._strips: LRUCache[tuple, Strip] = LRUCache(1024)

    def show(self, data: DiffData | None) -> None:
        self.data = data
        self._urows = unified_rows(data.sbs) if data else None
        self.current_hunk = -1
        self._relayout()
        self.scroll_to(y=0, animate=False)

    def _row_count(self) -> int:
        if self.data is None:
            return 1
        n = len(self._urows) if self.unified else len(self.data.sbs.rows)
        return n + 1 + (1 if self.data.note else 0)

    def _relayout(self) -> None:
        self._strips.clear()
        self.virtual_size = Size(self.size.width, self._row_count())
        self.refresh()

    def watch_unified(self) -> None:
        self._relayout()

    def action_toggle_mode(self) -> None:
        self.chosen_mode = True
        self.unified = not self.unified

    def _follow_width(self) -> None:
        if not self.chosen_mode:
            self.unified = self.app.size.width <= NARROW_MAX

    def on_mount(self) -> None:
        self._follow_width()

    def action_scroll_lines(self, delta: int) -> None:
        self.scroll_to(y=self.scroll_offset.y + delta, animate=False)

    def _hunk_rows(self) -> list[int]:
        if self.data is None:
            return []
        head = 1 + (1 if self.data.note else 0)
        if not self.unified:
            return [h + head for h in self.data.sbs.hunks]
        rows, prev = [], False
        for i, r in enumerate(self._urows or []):
            ch = r[0] in "+-"
            if ch and not prev:
                rows.append(i + head)
            prev = ch
        return rows

    def action_hunk(self, direction: int) -> None:
        hunks = self._hunk_rows()
        if not hunks:
            self.notify("no changes", severity="information")
            return
        nxt = max(0, min(len(hunks) - 1, self.current_hunk + direction))
        self.current_hunk = nxt
        self.scroll_to(y=max(0, hunks[nxt] - 2), animate=False)
        self._strips.clear()
        self.refresh()

    def render_line(self, y: int) -> Strip:
        row = y + self.scroll_offset.y
        width = self.size.width
        key = (row, width, self.unified, self.current_hunk)
        hit = self._strips.get(key)
        if hit is not None:
            return hit
        try:
            strip = self._render_row(row, width)
        except Exception as exc:  # noqa: BLE001 - a bad line must not take the app down
            return Strip([Segment(f" (cannot draw: {type(exc).__name__}: {exc})", self.rich_style)])
        self._strips[key] = strip
        return strip

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"diff--{name}")

    def _render_row(self, row: int, width: int) -> Strip:
        base = self.rich_style
        if self.data is None:
            if row:
                return Strip.blank(width, base)
            return Strip(
                [Segment(" select a file to see its diff", base + self._style("fold"))]
            ).crop_extend(0, width, base)
        d = self.data
        if row == 0:
            stats = f"  +{d.sbs.added} −{d.sbs.removed}" + (
                "  (identical)" if d.sbs.identical else ""
            )
            mode = "unified" if self.unified else "side by side"
            t = Text(
                f" {d.title}{stats}  [{mode}; n/p hunks, s toggles]",
                style=base + self._style("title"),
            )
            return Strip(t.render(self.app.console)).crop_extend(
                0, width, base + self._style("title")
            )
        row -= 1
        if d.note:
            if row == 0:
                return Strip([Segment(" " + d.note, base + self._style("fold"))]).crop_extend(
                    0, width, base
                )
            row -= 1
        hunk_rows = self._hunk_rows()
        in_hunk = (
            self.current_hunk >= 0
            and hunk_rows
            and hunk_rows[self.current_hunk] == row + 1 + (1 if d.note else 0)
        )
        if self.unified:
            return self._unified_line(row, width, base, in_hunk)
        return self._sbs_line(row, width, base, in_hunk)

    def _text_for(self, side: str, no: int | None, text: str | None) -> Text:
        hl = self.data.old_hl if side == "old" else self.data.new_hl
        if no is not None and hl is not None and 0 < no <= len(hl):
            return hl[no - 1].copy()
        return Text(text or "")

    def _unified_line(self, row: int, width: int, base: Style, in_hunk: bool) -> Strip:
        if row >= len(self._urows):
            return Strip.blank(width, base)
        tag, old_no, new_no, text = self._urows[row]
        if tag == "~":
            return Strip([Segment(f"      ⋯ {text}", base + self._style("fold"))]).crop_extend(
                0, width, base + self._style("fold")
            )
        bg = {"+": self._style("add"), "-": self._style("remove")}.get(tag, Style())
        num = Text(
            f"{old_no or '':>5} {new_no or '':>5} {tag} ", style=base + self._style("lineno") + bg
        )
        body = self._text_for(
            "new" if tag == "+" else "old", new_no if tag == "+" else old_no, text
        )
        body.stylize(base + bg)
        line = Text.assemble(num, body)
        if in_hunk:
            line.stylize(self._style("hunk"), 0, 1)
        return Strip(line.render(self.app.console)).crop_extend(0, width, base + bg)

    def _sbs_line(self, row: int, width: int, base: Style, in_hunk: bool) -> Strip:
        rows = self.data.sbs.rows
        if row >= len(rows):
            return Strip.blank(width, base)
        r = rows[row]
        half = max(10, (width - 1) // 2)
        if r.tag == "fold":
            return Strip(
                [Segment(f"      ⋯ {r.old_text}", base + self._style("fold"))]
            ).crop_extend(0, width, base + self._style("fold"))
        left = self._half("old", r.old_no, r.old_text, r.tag, half, base, r.new_text)
        right = self._half("new", r.new_no, r.new_text, r.tag, width - half - 1, base, r.old_text)
        sep = Segment("│", base + self._style("lineno"))
        segs = list(left) + [sep] + list(right)
        return Strip(segs).crop_extend(0, width, base)

    def _half(self, side: str, no, text, tag, width: int, base: Style, other) -> Strip:
        if text is None:
            return Strip.blank(width, base + self._style("fold"))
        changed = tag != "equal"
        bg = (
            (self._style("remove") if side == "old" else self._style("add")) if changed else Style()
        )
        body = self._text_for(side, no, text)
        body.stylize(base + bg)
        if tag == "replace" and other is not None:
            sa, sb = word_spans(text if side == "old" else other, other if side == "old" else text)
            spans = sa if side == "old" else sb
            word = self._style("remove-word" if side == "old" else "add-word")
            for a, b in spans:
                body.stylize(word, a, b)
        num = Text(f"{no:>5} ", style=base + self._style("lineno") + bg)
        line = Text.assemble(num, body)
        line.truncate(width, overflow="ellipsis")
        return Strip(line.render(self.app.console)).crop_extend(0, width, base + bg)

    def on_resize(self) -> None:
        self._follow_width()
        self._relayout()


class DiffPane:
    """Mixin for a Checkpoints panel with a :class:`DiffView` (``#DIFF_ID``) and a
    ``_load_diff()``: the diff arrives in a ``DiffComputed`` message; ``d`` switches
    between the next state (:attr:`NEXT_WORDS`) and the disk now, ``n``/``p`` move
    between hunks, ``s`` toggles unified / side by side (each panel binds the keys)."""

    DIFF_ID = "diff"
    NEXT_WORDS = "the next state"
    vs_disk = False

    def on_diff_computed(self, msg) -> None:
        msg.stop()
        self.query_one(f"#{self.DIFF_ID}", DiffView).show(msg.data)  # type: ignore[attr-defined]

    def action_toggle_disk(self) -> None:
        self.vs_disk = not self.vs_disk
        self.notify(  # type: ignore[attr-defined]
            "diff against the file on disk now"
            if self.vs_disk
            else f"diff against {self.NEXT_WORDS}"
        )
        self._load_diff()  # type: ignore[attr-defined]

    def action_hunk(self, direction: int) -> None:
        self.query_one(f"#{self.DIFF_ID}", DiffView).action_hunk(direction)  # type: ignore[attr-defined]

    def action_toggle_diff_mode(self) -> None:
        self.query_one(f"#{self.DIFF_ID}", DiffView).action_toggle_mode()  # type: ignore[attr-defined]

"""Small display helpers shared by the screens (no I/O, no Textual).

Times are shown as written in the files (ISO, UTC), never relative to the clock, so a
screen looks the same whenever it is drawn (snapshot tests depend on it).

Text that comes from session files (prompts, paths, tool names, ids, reasons...) reaches
Textual only through :func:`plain` or :func:`cell`: a ``str`` given to a ``Static``, a
``DataTable`` row, an ``Option`` or a Rich ``Table`` is read as markup, so ``[/]`` raised
``MarkupError`` and ``[x]`` / ``[bold]`` / ``[@click=...]`` were eaten or acted on.
Notifications carrying such text are sent with ``markup=False``.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

from sidtui.fmt import (  # the CLI's own wording
    cut_path,
    human_size,
    pretty_json,
    printable,
    state_badge,
)

#: Terminals this wide or narrower get the compact layouts (``-narrow`` on every screen):
#: a hidden projects pane, stacked dialogs, unified diffs.
NARROW_MAX = 100
#: Terminals lower than this get ``-short``: one-line inputs, buttons and headers.
SHORT_BELOW = 20

__all__ = [
    "human_size",
    "state_badge",
    "short_time",
    "one_line",
    "pretty_json",
    "cost",
    "plain",
    "cell",
]


def short_time(iso: str | None) -> str:
    """``2026-11-29T21:29:07.123Z`` → ``2026-11-29 21:29:07`` (empty for None)."""
    return iso[:19].replace("T", " ") if isinstance(iso, str) else ""


def clock_time(iso: str | None) -> str:
    """``2026-11-29T21:29:07.123Z`` → ``21:29:07``."""
    return iso[11:19] if isinstance(iso, str) else ""


def one_line(text: str | None, width: int = 80) -> str:
    """First non-empty line of ``text``, cut to ``width`` characters with an ellipsis;
    control characters shown as ``\\xNN`` (:func:`sidtui.fmt.printable`) and tabs as
    spaces (a tab reached the terminal and left cells of the line before behind)."""
    if not text:
        return ""
    for line in str(text).splitlines():  # CR, FF, VT... end a line here, as before
        line = line.strip()
        if line:
            line = printable(line).expandtabs(4)
            return line if len(line) <= width else line[: width - 1] + "…"
    return ""


class PathCell:
    """A file path for a Rich table cell: on one line, the middle cut to the width it is
    given (:func:`sidtui.fmt.cut_path`) so the file name stays, never wrapped mid-name."""

    MIN = 12  # the narrowest a path column gets: "…/" and a short name

    def __init__(self, path: str, style: str = "") -> None:
        self.path = printable(path).expandtabs(4)
        self.style = style

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        n = len(self.path)
        return Measurement(min(n, self.MIN), n)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text(cut_path(self.path, options.max_width), style=self.style, no_wrap=True)


def cost(value: float | None) -> str:
    return f"${value:.4f}" if value is not None else ""


def plain(value: Any, style: str = "") -> Text:
    """``value`` (None → empty) as literal text: never read as Rich or Textual markup,
    control characters shown as ``\\xNN`` (:func:`sidtui.fmt.printable`), tabs as spaces."""
    return Text("" if value is None else printable(str(value)).expandtabs(4), style=style)


def cell(value: Any, style: str = "") -> Text:
    """A one-line ``DataTable`` cell of literal text (first line only, tabs expanded, no
    wrapping, an ellipsis where the column cuts it), never read as markup."""
    text = "" if value is None else printable(str(value))
    nl = text.find("\n")
    if nl != -1 and nl != len(text) - 1:
        text = text[:nl]
    return Text(text.expandtabs(4), style=style, no_wrap=True, end="", overflow="ellipsis")

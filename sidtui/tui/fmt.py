"""Small display helpers shared by the screens (no I/O, no Textual).

Times are shown as written in the files (ISO, UTC), never relative to the clock, so a
screen looks the same whenever it is drawn (snapshot tests depend on it).
"""

from __future__ import annotations

from typing import Any

import orjson

from sidtui.core.listing import state_badge
from sidtui.fmt import human_size  # the CLI's own wording, one source

__all__ = ["human_size", "state_badge", "short_time", "one_line", "pretty_json", "cost"]


def short_time(iso: str | None) -> str:
    """``2026-11-29T21:29:07.123Z`` → ``2026-11-29 21:29:07`` (empty for None)."""
    return (iso or "")[:19].replace("T", " ")


def clock_time(iso: str | None) -> str:
    """``2026-11-29T21:29:07.123Z`` → ``21:29:07``."""
    return (iso or "")[11:19]


def one_line(text: str | None, width: int = 80) -> str:
    """First non-empty line of ``text``, cut to ``width`` characters with an ellipsis."""
    if not text:
        return ""
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= width else line[: width - 1] + "…"
    return ""


def pretty_json(value: Any) -> str:
    """Two-space indented JSON (non-ASCII kept), for raw record views."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return repr(value)


def cost(value: float | None) -> str:
    return f"${value:.4f}" if value is not None else ""

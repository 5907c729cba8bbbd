"""Counts in words for the core's own messages: ``1 record`` / ``2 records``.

The core cannot use :func:`sidtui.fmt.plural` (the core imports no presentation module);
this is the same rule, kept as small.
"""

from __future__ import annotations


def plural(n: int, noun: str, many: str | None = None, *, zero: str | None = None) -> str:
    """``1 record`` / ``2 records`` (``many``: an irregular plural, ``1 branch`` /
    ``2 branches``); with ``zero``, that word for none (``no files``)."""
    word = noun if n == 1 else (many or noun + "s")
    return f"{zero} {word}" if n == 0 and zero is not None else f"{n} {word}"

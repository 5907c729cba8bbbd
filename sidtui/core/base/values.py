"""Typed reads of decoded JSON values, for every adapter's records and side files.

A value an agent wrote may be of any JSON type; these give it as the type wanted or None,
never raising (a wrong type is the same as an absent field).
"""

from __future__ import annotations

from typing import Any


def json_int(v: Any, *, digits: bool = False) -> int | None:
    """``v`` as an int: an int, or a float with no fraction (JavaScript has one number
    type); with ``digits`` also a string of decimal digits (``str.isdecimal``: what ``int``
    reads; a superscript digit passes ``isdigit`` but not ``int``); never a bool."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if digits and isinstance(v, str) and v.isdecimal():
        return int(v)
    return None


def json_str(v: Any) -> str | None:
    """``v`` when it is a string, else None."""
    return v if isinstance(v, str) else None

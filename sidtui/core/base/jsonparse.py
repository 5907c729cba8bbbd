"""A line parser that accepts exactly what JavaScript's ``JSON.parse`` accepts.

sid-code reads its transcripts with ``JSON.parse`` after decoding the file as UTF-8
(invalid bytes become U+FFFD), so a line is *bad* only when ``JSON.parse`` would throw
(FORMAT.md §2.4: a file a strict parser calls corrupt need not be — stricter parsers
such as jq reject lone surrogate escapes that JSON.parse accepts). Fast decoders
(msgspec, orjson) refuse some lines JSON.parse accepts (lone surrogates, invalid UTF-8
bytes, numbers beyond float range), so they are only a fast path: a refusal is decided
here. Python's :mod:`json` differs from JSON.parse in accepting ``NaN``/``Infinity``
literals, which we reject, and in its recursion limit (documented in ``reason``).
"""

from __future__ import annotations

import json
from typing import Any

# Characters String.prototype.trim() removes (ECMAScript WhiteSpace + LineTerminator).
JS_WHITESPACE = (
    " \t\n\r\x0b\x0c\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_falsy(v: object) -> bool:
    """JavaScript's ``!v`` for a JSON value: null, false, 0 and "" (an empty list or object
    is truthy there, unlike in Python)."""
    return v is None or v is False or v == "" or (type(v) in (int, float) and v == 0)


class JSONParseError(ValueError):
    """``JSON.parse`` would throw for this text. ``reason`` is a short explanation."""

    def __init__(self, reason: str, pos: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.pos = pos


def _reject_constant(name: str) -> Any:
    raise JSONParseError(f"{name} is not valid JSON (JSON.parse rejects it)")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, strict=True)


def decode_text(raw: bytes) -> str:
    """Decode a line's bytes the way sid-code's file read does (UTF-8, U+FFFD for bad bytes)."""
    return raw.decode("utf-8", errors="replace")


def js_json_parse(text: str) -> Any:
    """Parse ``text`` with JSON.parse's acceptance rules.

    Args:
        text: one decoded line (without its ``\\n``).

    Returns:
        The parsed value (dict, list, str, int, float, bool or None).

    Raises:
        JSONParseError: when JSON.parse would throw; ``reason`` names the cause.
    """
    if text[:1] == "\ufeff":  # not JSON whitespace: JSON.parse throws, as here
        raise JSONParseError("starts with a byte-order mark (U+FEFF), which JSON.parse rejects", 0)
    try:
        value, end = _DECODER.raw_decode(text, _skip_ws(text, 0))
    except JSONParseError:
        raise
    except json.JSONDecodeError as exc:
        raise JSONParseError(f"{exc.msg} (column {exc.colno})", exc.pos) from None
    except RecursionError:
        raise JSONParseError("nesting deeper than sidtui's parser supports") from None
    end = _skip_ws(text, end)
    if end != len(text):
        raise JSONParseError(f"unexpected data after JSON value at column {end + 1}", end)
    return value


def _skip_ws(text: str, pos: int) -> int:
    # JSON.parse whitespace is exactly these four characters.
    n = len(text)
    while pos < n and text[pos] in " \t\n\r":
        pos += 1
    return pos


def is_blank(raw: bytes) -> bool:
    """True when sid-code skips the line as blank (``!line.trim()``)."""
    stripped = raw.strip()
    if not stripped:
        return True
    if stripped.isascii() or len(stripped) > 64:
        return False
    return not decode_text(stripped).strip(JS_WHITESPACE)


def parse_line_slow(raw: bytes) -> Any:
    """Decide one line by JSON.parse's rules (the slow path behind the fast decoders).

    Raises:
        JSONParseError: the line is bad.
    """
    return js_json_parse(decode_text(raw))


def parse_line(raw: bytes) -> Any:
    """One line by JSON.parse's rules: orjson first (strict RFC 8259, so what it reads
    JSON.parse reads too; it also reads the ~1,000-level nesting msgspec's fast decoders
    and Python's parser give up on), :func:`parse_line_slow` for what it refuses.

    Raises:
        JSONParseError: the line is bad.
    """
    import orjson

    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return parse_line_slow(raw)


def would_strict_parser_reject(raw: bytes) -> bool:
    """True when a strict RFC 8259 parser (jq, orjson) refuses a line JSON.parse accepts.

    Used by ``sidtui check`` to show which lines other tools would call corrupt.
    """
    import orjson

    try:
        orjson.loads(raw)
    except orjson.JSONDecodeError:
        return True
    return False

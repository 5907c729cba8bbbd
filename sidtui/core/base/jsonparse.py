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
import re
from json.decoder import scanstring as _scanstring  # type: ignore[attr-defined]
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
    except RecursionError:  # JSON.parse has no depth limit: parse it without recursion
        return _parse_deep(text)
    end = _skip_ws(text, end)
    if end != len(text):
        raise JSONParseError(f"unexpected data after JSON value at column {end + 1}", end)
    return value


_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_LITERALS = (("true", True), ("false", False), ("null", None))


def _parse_deep(text: str) -> Any:
    """JSON.parse's grammar with an explicit stack instead of recursion: any depth (the
    agent's parser takes millions of levels; Python's and msgspec's stop near 1,000).
    Strings go through the standard library's own scanner, so they read as in
    :func:`js_json_parse`.

    Raises:
        JSONParseError: the text is not one JSON value.
    """
    n = len(text)
    stack: list[Any] = []  # open containers, innermost last
    keys: list[Any] = []  # the pending key of each open object (None for an array)
    i = 0

    def fail(what: str) -> JSONParseError:
        return JSONParseError(f"{what} (column {i + 1})", i)

    def key_at(j: int) -> tuple[str, int]:
        j = _skip_ws(text, j)
        if j >= n or text[j] != '"':
            raise fail("expecting a property name in double quotes")
        k, j = _scan_string(text, j + 1)
        j = _skip_ws(text, j)
        if j >= n or text[j] != ":":
            raise fail("expecting ':' delimiter")
        return k, j + 1

    while True:
        i = _skip_ws(text, i)
        if i >= n:
            raise fail("expecting value")
        c = text[i]
        value: Any
        if c == "{" or c == "[":
            j = _skip_ws(text, i + 1)
            if j < n and text[j] == ("}" if c == "{" else "]"):
                value, i = ({} if c == "{" else []), j + 1
            else:
                if c == "{":
                    k, i = key_at(i + 1)
                    stack.append({})
                    keys.append(k)
                else:
                    stack.append([])
                    keys.append(None)
                    i += 1
                continue
        elif c == '"':
            value, i = _scan_string(text, i + 1)
        else:
            m = _NUMBER.match(text, i)
            if m is not None:
                t = m.group()
                is_int = not any(ch in t for ch in ".eE") and len(t) < 4000
                value, i = (int(t) if is_int else float(t)), m.end()
            else:
                for word, v in _LITERALS:
                    if text.startswith(word, i):
                        value, i = v, i + len(word)
                        break
                else:
                    raise fail("expecting value")
        while True:  # put the value in its container; close what it completes
            if not stack:
                i = _skip_ws(text, i)
                if i != n:
                    raise fail("unexpected data after JSON value")
                return value
            top = stack[-1]
            if type(top) is dict:
                top[keys[-1]] = value
            else:
                top.append(value)
            i = _skip_ws(text, i)
            c = text[i] if i < n else ""
            if c == ",":
                if type(top) is dict:
                    keys[-1], i = key_at(i + 1)
                else:
                    i += 1
                break
            if c == ("}" if type(top) is dict else "]"):
                value = stack.pop()
                keys.pop()
                i += 1
                continue
            raise fail("expecting ',' delimiter")


def _scan_string(text: str, start: int) -> tuple[str, int]:
    try:
        return _scanstring(text, start, True)
    except json.JSONDecodeError as exc:
        raise JSONParseError(f"{exc.msg} (column {exc.colno})", exc.pos) from None


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

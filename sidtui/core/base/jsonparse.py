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
import os
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

    A line of more than :func:`values_ceiling` JSON values (outside strings) is decoded
    within that budget (:func:`parse_bounded`): a million ``[]`` cost 64 MB as Python
    objects against 3 MB of text.

    Raises:
        JSONParseError: the line is bad.
    """
    import orjson

    if len(raw) > _SMALL_LINE:  # a shorter line cannot build much (the hot path skips this)
        limit = values_ceiling()
        if len(raw) > limit:
            n = value_count(raw, limit)
            if n > limit:
                return parse_bounded(raw, limit, n)
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return parse_line_slow(raw)


# --------------------------------------------------------------------------- bounded decoding

VALUES_ENV, VALUES_CEILING = "SIDTUI_MAX_LINE_VALUES", 500_000
"""At most this many JSON values (containers, and elements after a ``,``) are built as
Python objects from one line or one whole-file document (docs/DECISIONS.md, "Memory is
bounded by what is decoded")."""


class RawValue:
    """A JSON value kept as its exact bytes, not decoded (:func:`parse_bounded`).

    It is neither a list nor a dict to a reader; :func:`sidtui.core.base.jsonout.stringify`
    and ``dumps_lenient`` write ``data`` back verbatim.

    Attributes:
        data: the value's JSON text (valid JSON, as in the file).
    """

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __repr__(self) -> str:
        return f"RawValue({len(self.data):,} bytes)"


_NOT_STRUCTURAL = bytes(b for b in range(256) if b not in b",[{")
_NOT_QUOTING = bytes(b for b in range(256) if b not in b'"\\')
_SMALL_LINE = 64 * 1024  # bytes: a shorter line is never bounded (it builds ~32 K values at most)
_SCALAR_START = frozenset(b'"-0123456789tfn')
_MAX_SHALLOW_DEPTH = 8
_JSON_WS = b" \t\r\n"
#: :func:`value_count` reads a view this many bytes at a time
_COUNT_WINDOW = 4 << 20


def values_ceiling() -> int:
    """``$SIDTUI_MAX_LINE_VALUES`` when set (a positive integer), else :data:`VALUES_CEILING`.

    Raises:
        UsageError: the variable is set to something that is not a positive integer.
    """
    raw = os.environ.get(VALUES_ENV)
    if raw is None:
        return VALUES_CEILING
    if raw != _last_setting[0]:
        from sidtui.core.base.regular import ceiling

        _last_setting[:] = [raw, ceiling(VALUES_ENV, VALUES_CEILING)]
    return _last_setting[1]


_last_setting: list = [None, VALUES_CEILING]  # the variable's text and its value, parsed once


def value_count(raw: Any, limit: int) -> int:
    """An upper bound of the JSON values ``raw`` (bytes-like) would decode to: its ``[``,
    ``{`` and ``,`` outside strings, plus one.

    The plain count (inside strings too) is exact enough when it is at most ``limit``;
    above it the ones inside strings are taken off, string by string, until the strings
    alone prove more than ``limit`` values (each string is a key or a value, so at most
    ``2 * limit + 2`` strings are visited: about a second at the default ceiling).
    """
    if isinstance(raw, bytes):
        data = raw
        n = len(data.translate(None, _NOT_STRUCTURAL)) + 1  # one pass (bytes.count is three)
        if n <= limit:
            return n
        quoting = data.translate(None, _NOT_QUOTING)
        quotes, slashes = quoting.count(b'"'), quoting.count(b"\\")
        del quoting
    else:  # a view (a field of a bigger value): counted a window at a time, not copied
        n, quotes, slashes = 1, 0, 0
        for i in range(0, len(raw), _COUNT_WINDOW):
            w = bytes(raw[i : i + _COUNT_WINDOW])
            n += len(w.translate(None, _NOT_STRUCTURAL))
            quoting = w.translate(None, _NOT_QUOTING)
            quotes += quoting.count(b'"')
            slashes += quoting.count(b"\\")
        if n <= limit:
            return n
    if (quotes - slashes) // 2 > 2 * limit + 2:
        return n  # more strings than that prove more than limit values: no need to look
    data = raw if isinstance(raw, bytes) else bytes(raw)
    inside = strings = 0
    find, count = data.find, data.count
    i = find(b'"')
    while i >= 0:
        j = find(b'"', i + 1)
        while j > 0 and data[j - 1] == 0x5C:  # an escaped quote, unless the \\ is escaped
            k = j - 1
            while k > 0 and data[k - 1] == 0x5C:
                k -= 1
            if (j - k) % 2 == 0:
                break
            j = find(b'"', j + 1)
        if j < 0:
            break  # not JSON: the plain count stands
        inside += count(b",", i, j) + count(b"[", i, j) + count(b"{", i, j)
        strings += 1
        if strings > 2 * limit + 2:
            break  # more than limit values for sure
        i = find(b'"', j + 1)
    return n - inside


def parse_bounded(raw: Any, limit: int, count: int | None = None) -> Any:
    """``raw`` (one JSON value, bytes-like) decoded with at most about ``limit`` values built.

    An object is decoded field by field (msgspec ``Raw`` spans: nothing inside a field is
    built until it is chosen); a field that fits what is left of the budget is decoded
    whole, an object that does not is decoded the same way one level down (up to 8), and
    any other value that does not fit is kept as a :class:`RawValue` of its exact bytes:
    written back verbatim by :func:`sidtui.core.base.jsonout.stringify`, never looked into
    (it is neither a list nor a dict to the caller). A top-level value that is not an
    object is a RawValue as a whole. ``count``: :func:`value_count` of ``raw`` when the
    caller has it.

    Raises:
        JSONParseError: the text is not JSON (or JSON.parse-only syntax such as a lone
            surrogate escape inside a value this large: not decoded).
    """
    budget = [limit]
    return _bounded(memoryview(raw), budget, 0, count)


def _bounded(raw: memoryview, budget: list[int], depth: int, count: int | None = None) -> Any:
    """One value of :func:`parse_bounded`: ``raw`` is a view into the line, never copied
    but for what is kept (a :class:`RawValue`): a 110 MB prompt was four copies at once,
    one per level."""
    import msgspec

    a, b = 0, len(raw)
    while a < b and raw[a] in _JSON_WS:
        a += 1
    while b > a and raw[b - 1] in _JSON_WS:
        b -= 1
    if a == b:
        raise JSONParseError("expecting value")
    data = raw[a:b]
    first = data[0]
    if first in _SCALAR_START:
        return _whole(data)
    n = value_count(data, budget[0]) if count is None else count
    if n <= budget[0]:
        budget[0] -= n
        return _whole(data)
    if first != ord("{") or depth >= _MAX_SHALLOW_DEPTH:
        try:
            msgspec.json.decode(data, type=msgspec.Raw)  # validated, nothing built
        except msgspec.DecodeError as exc:
            raise JSONParseError(
                f"{exc} (a value of more than {budget[0]:,} JSON values)"
            ) from None
        return RawValue(bytes(data))
    try:
        fields = _RAW_FIELDS.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise JSONParseError(f"{exc} (a value of more than {budget[0]:,} JSON values)") from None
    del data
    budget[0] -= 1
    return {k: _bounded(memoryview(v), budget, depth + 1) for k, v in fields.items()}


def _whole(data: Any) -> Any:
    import orjson

    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return parse_line_slow(bytes(data))


def _raw_fields_decoder() -> Any:
    import msgspec

    return msgspec.json.Decoder(dict[str, msgspec.Raw])


_RAW_FIELDS = _raw_fields_decoder()


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

"""Bytes exactly as JavaScript's ``JSON.stringify`` writes them (FORMAT.md §8.1).

:func:`stringify` (``JSON.stringify(x)``), :func:`stringify_pretty` (``JSON.stringify(x,
null, 2)``) and :func:`dumps_lenient` (orjson, lone surrogates escaped): orjson when its
output cannot differ from JavaScript's, an exact encoder otherwise.

Design notes: docs/ARCHITECTURE.md, “core/base/jsonout.py”.
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Any

import orjson

from sidtui.core.base.jsonparse import RawValue

_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}
_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f\ud800-\udfff]')
# Number tokens orjson may print differently from JS: integral floats ("5.0") and
# exponents ("1e16"). Only tokens that start a value (after ``:``, ``,``, ``[`` or at the
# start) are checked, so uuids and hashes inside strings ("…4e5…") do not send a record
# down the slow exact path; a string that happens to contain ":1e5" only costs speed.
# (A top-level number has no such prefix: ``stringify`` checks it on its own.)
_RISKY_FLOAT = re.compile(rb"[:,\[]-?\d+(?:\.0[,}\]]|(?:\.\d+)?[eE])")
_RISKY_TOP_NUMBER = re.compile(rb"\.0$|[eE]")


def _escape_char(m: re.Match[str]) -> str:
    c = m.group(0)
    short = _ESCAPES.get(c)
    if short is not None:
        return short
    return f"\\u{ord(c):04x}"


def js_string(s: str) -> str:
    """``JSON.stringify(s)`` for one string (quotes included)."""
    if _NEEDS_ESCAPE.search(s) is None:
        return f'"{s}"'
    # Paired surrogates only exist in Python strs built with surrogatepass; JS would
    # print a valid pair raw. Re-pair them first so only lone halves are escaped.
    if any("\ud800" <= ch <= "\udfff" for ch in s):
        s = s.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")
    return '"' + _NEEDS_ESCAPE.sub(_escape_char, s) + '"'


def js_number(x: float | int) -> str:
    """``Number.prototype.toString()`` for a finite number; ``null`` for NaN/±Infinity."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    if not math.isfinite(x):
        return "null"
    if x == 0:
        return "0"
    r = repr(x)  # shortest round-trip digits, same digits JS picks
    mantissa, _, exp = r.partition("e")
    sign = ""
    if mantissa.startswith("-"):
        sign, mantissa = "-", mantissa[1:]
    int_part, _, frac = mantissa.partition(".")
    digits = (int_part + frac).lstrip("0")
    # decimal exponent n such that value = 0.d1d2... × 10^n
    point = len(int_part) + (int(exp) if exp else 0)
    if int_part == "0":
        stripped = frac.lstrip("0")
        point = -(len(frac) - len(stripped)) + (int(exp) if exp else 0)
        digits = stripped
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    n = point
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    es = f"+{e}" if e >= 0 else str(e)
    if k == 1:
        return f"{sign}{digits}e{es}"
    return f"{sign}{digits[0]}.{digits[1:]}e{es}"


def js_to_string(v: Any) -> str:
    """JavaScript's ``String(v)`` for a JSON value: ``"null"``, ``"true"``, a number as
    ``Number.prototype.toString`` writes it, an array's elements joined by ``,`` (null
    elements empty), ``"[object Object]"`` for an object.

    Raises:
        RecursionError: an array nested deeper than Python's recursion limit.
    """
    if isinstance(v, str):
        return v
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        # JSON.parse reads every number as a double: a big integer loses digits
        return str(v) if abs(v) < 1 << 53 else js_number(_to_double(v))
    if isinstance(v, float):
        return js_number(v) if math.isfinite(v) else ("Infinity" if v > 0 else "-Infinity")
    if isinstance(v, list):
        return ",".join("" if x is None else js_to_string(x) for x in v)
    return "[object Object]"


def _to_double(v: int) -> float:
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def _encode(obj: Any, indent: str | None, level: int, out: list[str], default: Any = None) -> None:
    """Append ``JSON.stringify(obj)``'s pieces to ``out``, walking with a stack of its own
    (no recursion: a value nested thousands of levels deep, which ``JSON.parse`` reads,
    is written too; orjson stops at 254). ``default`` turns any other value into one
    JSON can hold (as orjson's); without it such a value raises TypeError."""
    todo: list[Any] = [(obj, level)]  # a str is text to write, a tuple a value to encode
    pop, push, write = todo.pop, todo.extend, out.append
    while todo:
        item = pop()
        if type(item) is str:
            write(item)
            continue
        obj, level = item
        if obj is None:
            write("null")
        elif obj is True:
            write("true")
        elif obj is False:
            write("false")
        elif isinstance(obj, str):
            write(js_string(obj))
        elif isinstance(obj, (int, float)):
            write(js_number(obj))
        elif isinstance(obj, (dict, list, tuple)):
            is_dict = isinstance(obj, dict)
            if not obj:
                write("{}" if is_dict else "[]")
                continue
            inner = "\n" + indent * (level + 1) if indent is not None else ""
            colon = ": " if indent is not None else ":"
            seq: list[Any] = []
            pairs = obj.items() if isinstance(obj, dict) else enumerate(obj)
            for i, (k, v) in enumerate(pairs):
                lead = inner if not i else "," + inner
                seq.append(lead + js_string(str(k)) + colon if is_dict else lead)
                seq.append((v, level + 1))
            seq.append(
                ("\n" + indent * level if indent is not None else "") + ("}" if is_dict else "]")
            )
            write("{" if is_dict else "[")
            push(reversed(seq))
        elif isinstance(obj, RawValue):
            write(obj.data.decode("utf-8", "surrogatepass"))
        elif default is not None:
            todo.append((default(obj), level))
        else:
            raise TypeError(f"cannot stringify {type(obj).__name__}")


def raw_fragment(obj: Any) -> Any:
    """orjson's ``default``: a :class:`RawValue` is written as its bytes."""
    if isinstance(obj, RawValue):
        return orjson.Fragment(obj.data)
    raise TypeError(f"Type is not JSON serializable: {type(obj).__name__}")


def stringify(obj: Any, *, line: bool = False) -> bytes:
    """Compact ``JSON.stringify(obj)`` as UTF-8 bytes (no trailing newline).

    Args:
        line: end it with ``\n`` (a JSONL line), written in place: a huge record is
            never copied to add it.

    Raises:
        TypeError: for values JSON cannot hold (sets, bytes, objects).
    """
    try:
        opt = orjson.OPT_APPEND_NEWLINE if line else None
        out = orjson.dumps(obj, default=raw_fragment, option=opt)
    except TypeError:
        pass  # lone surrogates, ints beyond 64 bits, ...: the exact path decides
    else:
        if out[:1] in b"-0123456789":  # a top-level number
            if _RISKY_TOP_NUMBER.search(out) is None:
                return out
        elif _RISKY_FLOAT.search(out) is None:
            return out
    parts: list[str] = []
    _encode(obj, None, 0, parts)
    if line:
        parts.append("\n")
    return "".join(parts).encode("utf-8", "surrogatepass")


def stringify_pretty(obj: Any, indent: int = 2) -> str:
    """``JSON.stringify(obj, null, indent)`` as a str (no trailing newline)."""
    parts: list[str] = []
    _encode(obj, " " * indent, 0, parts)
    return "".join(parts)


def _has_surrogate(s: str) -> bool:
    if s.isascii():
        return False
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _kept(obj: Any, default: Any) -> Any:
    """``obj`` with every string holding a lone surrogate turned into an
    ``orjson.Fragment`` of its ``JSON.stringify`` form (the escape kept); the rest is left
    for orjson, so everything else serializes as before. Dataclasses and msgspec structs
    become dicts of their fields (as orjson writes a dataclass); a value orjson cannot write goes through ``default``.
    A dict key holding a lone surrogate gets U+FFFD in its place (a key cannot be a
    fragment)."""
    if isinstance(obj, str):
        return orjson.Fragment(js_string(obj).encode("utf-8")) if _has_surrogate(obj) else obj
    if isinstance(obj, dict):
        return {
            (_LONE.sub("\ufffd", k) if isinstance(k, str) and _has_surrogate(k) else k): _kept(
                v, default
            )
            for k, v in obj.items()
        }
    if isinstance(obj, (list, tuple)):
        return [_kept(v, default) for v in obj]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _kept(getattr(obj, f.name), default) for f in dataclasses.fields(obj)}
    fields = getattr(type(obj), "__struct_fields__", None)
    if fields is not None:  # a msgspec struct: the same as a dataclass
        return {k: _kept(getattr(obj, k), default) for k in fields}
    if obj is None or isinstance(obj, (bool, int, float)):
        return obj
    try:
        orjson.dumps(obj)
    except TypeError:
        if default is not None:
            return _kept(default(obj), None)
    return obj


_LONE = re.compile("[\ud800-\udfff]")


def _with_structs(default: Any) -> Any:
    """``default`` that first writes a msgspec struct as the dict of its fields (in field
    order, as orjson writes a dataclass); anything else goes to ``default`` (TypeError
    without one, as orjson says)."""
    import msgspec

    def write(obj: Any) -> Any:
        if isinstance(obj, RawValue):
            return orjson.Fragment(obj.data)
        if isinstance(obj, msgspec.Struct):
            return msgspec.structs.asdict(obj)
        if default is None:
            raise TypeError(f"Type is not JSON serializable: {type(obj).__name__}")
        return default(obj)

    return write


def dumps_lenient(obj: Any, option: int = 0, default: Any = None) -> bytes:
    """``orjson.dumps(obj, option=option, default=default)``, except that a string holding
    a lone surrogate is written with the escape kept (``"\\ud800"``, as ``JSON.stringify``
    does) instead of raising.

    Such strings reach us two ways: ``JSON.parse`` accepts ``"\\ud800"`` in a transcript,
    and ``os.listdir`` gives a file name holding a byte that is not UTF-8 as a
    ``surrogateescape`` string (byte 0xE9 → ``"\\udce9"``; ``json.loads`` then
    ``os.fsencode`` gets the name's bytes back). Data without one gives exactly orjson's
    bytes (orjson runs first; only on its refusal is the value walked).

    Raises:
        TypeError: for what orjson refuses for another reason.
    """
    default = _with_structs(default)
    try:
        return orjson.dumps(obj, option=option, default=default)
    except TypeError:
        pass
    try:
        return orjson.dumps(_kept(obj, default), option=option, default=default)
    except (TypeError, RecursionError):
        # nested deeper than orjson writes (254 levels): our own encoder has no limit
        parts: list[str] = []
        _encode(obj, "  " if option & orjson.OPT_INDENT_2 else None, 0, parts, default)
        return "".join(parts).encode("utf-8", "surrogatepass")

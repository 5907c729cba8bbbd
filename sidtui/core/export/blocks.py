"""What a content block is to a reader, for every writer: its kind, a one-line summary
of a tool call, a tool result's text, and an edit as a diff.

Blocks are the values as written (any JSON), so every reader here accepts anything and
falls back to the value's JSON text. An edit is recognised by the shape of its input, not
by the tool's name: ``old_string``/``new_string`` (one replacement), ``edits`` (several),
``content`` with a path (a whole file written) or a patch text (``*** Begin Patch``,
``diff --git``, ``--- a/…``); the diff is sidtui's own (:func:`~sidtui.core.checkpoints.
diff.compute_diff`, never quadratic) with three lines of context.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

#: Lines of context around a change in an edit's diff.
CONTEXT = 3
#: An edit whose sides are longer than this (characters) is shown as its two sides' sizes
#: plus the diff's first lines only (a diff of megabytes helps no reader).
MAX_DIFF_LINES = 2_000

TEXT = "text"
THINKING = "thinking"
TOOL_USE = "tool_use"
TOOL_RESULT = "tool_result"
IMAGE = "image"
OTHER = "other"

_KINDS = {
    "text": TEXT,
    "thinking": THINKING,
    "redacted_thinking": THINKING,
    "tool_use": TOOL_USE,
    "server_tool_use": TOOL_USE,
    "tool_result": TOOL_RESULT,
    "image": IMAGE,
}


def kind_of(block: Any) -> str:
    """:data:`TEXT`, :data:`THINKING`, :data:`TOOL_USE`, :data:`TOOL_RESULT`,
    :data:`IMAGE` or :data:`OTHER` (anything else, a value that is no object)."""
    if not isinstance(block, dict):
        return OTHER
    t = block.get("type")
    return _KINDS.get(t, OTHER) if isinstance(t, str) else OTHER


def json_text(value: Any, indent: bool = True) -> str:
    """``value`` as JSON text (any value: a lone surrogate or a huge int too)."""
    try:
        opt = orjson.OPT_INDENT_2 if indent else 0
        return orjson.dumps(value, option=opt | orjson.OPT_NON_STR_KEYS).decode()
    except (TypeError, orjson.JSONEncodeError):
        import json

        return json.dumps(value, indent=2 if indent else None, ensure_ascii=True, default=repr)


def text_of(block: dict[str, Any]) -> str:
    """A text or thinking block's text (``[redacted thinking]`` for a redacted one)."""
    for key in ("text", "thinking"):
        v = block.get(key)
        if isinstance(v, str):
            return v
    if block.get("type") == "redacted_thinking":
        return "[redacted thinking]"
    return json_text(block)


def tool_name(block: dict[str, Any]) -> str:
    name = block.get("name")
    return name if isinstance(name, str) else json_text(name, indent=False)


def one_line(s: str, width: int = 120) -> str:
    """``s`` on one line (runs of white space as one space), cut at ``width`` with "…"."""
    head = s[: width * 4 + 16]  # only the head can show: a huge text is never split whole
    out = " ".join(head.split())
    if len(out) > width or len(head) < len(s):
        return out[: width - 1] + "…"
    return out


def input_summary(inp: Any, width: int = 120) -> str:
    """One line for a tool input: the path, command or pattern it acts on."""
    if not isinstance(inp, dict):
        return one_line(inp if isinstance(inp, str) else json_text(inp, indent=False), width)
    for key in ("file_path", "path", "command", "cmd", "pattern", "url", "query", "description"):
        v = inp.get(key)
        if isinstance(v, str) and v:
            return one_line(v, width)
    for v in inp.values():
        if isinstance(v, str) and v:
            return one_line(v, width)
    return one_line(json_text(inp, indent=False), width)


def result_text(block: dict[str, Any]) -> str:
    """A tool result's content as text (a string, or its blocks' texts)."""
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for c in content:
            if isinstance(c, dict) and isinstance(c.get("text"), str):
                parts.append(c["text"])
            elif isinstance(c, dict):
                parts.append(f"[{c.get('type', 'block')}]")
            else:
                parts.append(json_text(c))
        return "\n".join(parts)
    return "" if content is None else json_text(content)


@dataclass
class Edit:
    """One change a tool call makes to a file: ``path`` (None: not said) and its diff
    lines, each ``(tag, text)``: ``" "`` context, ``"-"`` removed, ``"+"`` added, ``"@"``
    a hunk head or a skipped stretch, in words."""

    path: str | None
    lines: list[tuple[str, str]]


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def edits_of(inp: Any) -> list[Edit] | None:
    """The edits a tool input makes, as diffs; None when it is no edit (see the module
    docstring for the shapes)."""
    if isinstance(inp, str):
        return [Edit(None, patch_lines(inp))] if _is_patch(inp) else None
    if not isinstance(inp, dict):
        return None
    path = _str(inp.get("file_path")) or _str(inp.get("path")) or _str(inp.get("notebook_path"))
    old, new = inp.get("old_string"), inp.get("new_string")
    if isinstance(old, str) and isinstance(new, str):
        return [Edit(path, diff_lines(old, new))]
    edits = inp.get("edits")
    if isinstance(edits, list) and edits and all(isinstance(e, dict) for e in edits):
        out = []
        for e in edits:
            o, n = e.get("old_string"), e.get("new_string")
            if isinstance(o, str) and isinstance(n, str):
                out.append(Edit(path, diff_lines(o, n)))
        return out or None
    content = inp.get("content")
    if isinstance(content, str) and path is not None:
        return [Edit(path, diff_lines("", content))]
    for key in ("patch", "input", "diff"):
        p = inp.get(key)
        if isinstance(p, str) and _is_patch(p):
            return [Edit(path, patch_lines(p))]
    return None


def _is_patch(s: str) -> bool:
    head = s.lstrip()[:200]
    return head.startswith(("*** Begin Patch", "diff --git", "--- ")) and "\n" in s


def patch_lines(patch: str) -> list[tuple[str, str]]:
    """A patch text's lines, tagged by their first character."""
    out: list[tuple[str, str]] = []
    for n, line in enumerate(patch.split("\n")):
        if n >= MAX_DIFF_LINES:
            out.append(("@", f"… {patch.count(chr(10)) + 1 - n:,} more lines"))
            break
        tag = line[:1]
        if line.startswith(("+++", "---", "***", "@@", "diff ")):
            out.append(("@", line))
        elif tag in ("+", "-", " "):
            out.append((tag, line[1:]))
        else:
            out.append((" ", line))
    return out


def diff_lines(old: str, new: str) -> list[tuple[str, str]]:
    """``old`` → ``new`` as tagged lines with :data:`CONTEXT` lines around each change."""
    from sidtui.core.checkpoints.diff import compute_diff

    if old == "":
        lines = new.split("\n")
        out = [("+", x) for x in lines[:MAX_DIFF_LINES]]
        if len(lines) > MAX_DIFF_LINES:
            out.append(("@", f"… {len(lines) - MAX_DIFF_LINES:,} more lines"))
        return out
    out = []
    for tag, text in _hunks(compute_diff(old, new)["ops"]):
        if len(out) >= MAX_DIFF_LINES:
            out.append(("@", "… the rest of the diff is left out"))
            break
        out.append((tag, text))
    return out


def _hunks(ops: list[dict[str, Any]]) -> Iterator[tuple[str, str]]:
    last = len(ops) - 1
    for n, op in enumerate(ops):
        lines = op.get("lines") or []
        kind = op.get("type")
        if kind == "remove":
            yield from (("-", x) for x in lines)
        elif kind == "add":
            yield from (("+", x) for x in lines)
        else:
            head = lines[:CONTEXT] if n > 0 else []
            tail = lines[-CONTEXT:] if n < last and len(lines) > len(head) else []
            if len(lines) <= 2 * CONTEXT and n > 0 and n < last:
                yield from ((" ", x) for x in lines)
                continue
            yield from ((" ", x) for x in head)
            skipped = len(lines) - len(head) - len(tail)
            if skipped > 0:
                yield ("@", f"… {skipped:,} unchanged line{'s' if skipped != 1 else ''}")
            yield from ((" ", x) for x in tail)

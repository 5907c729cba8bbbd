"""Side-by-side and unified diff rows for previews (checkpoints, undo, rewind).

Builds display rows from :func:`sidtui.core.checkpoints.diff.compute_ops` (common prefix/suffix
stripped, Myers or rapidfuzz in the middle — never quadratic), pairs each run of removed
lines with the added lines that replace it, folds unchanged stretches longer than
``2 × context`` into one fold row, and records where each hunk starts for ``n``/``p``
navigation. A final newline ends the last line rather than starting an empty one
(:func:`display_lines`). :func:`word_spans` marks the changed words inside a replaced line pair
(difflib on word tokens of two single lines: short inputs only). No Textual here; the
app and any CLI printer draw the same rows.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from sidtui.core.base.regular import ceiling
from sidtui.core.base.words import plural
from sidtui.core.checkpoints.diff import compute_ops, split_lines

_WORD = re.compile(r"\w+|\s+|[^\w\s]")
MAX_WORD_DIFF_CHARS = 2000

#: Environment variables and defaults of the largest pair of texts a preview diffs (both
#: sides together): above either, the preview says so instead (the restore still works).
DIFF_BYTES_ENV, DIFF_BYTES_CEILING = "SIDTUI_MAX_DIFF_BYTES", 8 << 20
DIFF_LINES_ENV, DIFF_LINES_CEILING = "SIDTUI_MAX_DIFF_LINES", 200_000
#: Characters of one line a printed preview shows; the rest becomes a marker.
PREVIEW_LINE_CHARS = 1000


def _fold_row(hidden: int) -> DiffRow:
    """A fold row: ``hidden`` unchanged lines left out (``1 unchanged line``)."""
    return DiffRow("fold", None, plural(hidden, "unchanged line"), None, None)


def _size(text: str | bytes | None) -> tuple[int, int]:
    if not text:
        return 0, 0
    if isinstance(text, str):
        lines, nbytes = text.count("\n"), len(text.encode("utf-8", "surrogatepass"))
        last = text[-1] != "\n"
    else:
        lines, nbytes, last = text.count(b"\n"), len(text), text[-1:] != b"\n"
    return lines + last, nbytes


def too_large_to_diff(old: str | bytes | None, new: str | bytes | None) -> str | None:
    """Why a preview shows no diff of ``old`` → ``new``, or None when it may diff them.

    The one rule for the CLI's unified diff and the app's side by side: both sides together
    above ``SIDTUI_MAX_DIFF_BYTES`` (8 MiB) or ``SIDTUI_MAX_DIFF_LINES`` (200,000 lines)
    give ``"too large to diff here (N lines, M bytes)"``; counting is linear, nothing diffed.
    """
    (la, ba), (lb, bb) = _size(old), _size(new)
    lines, nbytes = la + lb, ba + bb
    if nbytes > ceiling(DIFF_BYTES_ENV, DIFF_BYTES_CEILING) or lines > ceiling(
        DIFF_LINES_ENV, DIFF_LINES_CEILING
    ):
        return f"too large to diff here ({lines:,} lines, {nbytes:,} bytes)"
    return None


def cut_line(line: str, width: int = PREVIEW_LINE_CHARS) -> str:
    """``line`` cut after ``width`` characters with a marker saying how many were left out
    (a line break at its end is kept)."""
    body = line[:-1] if line.endswith("\n") else line
    if len(body) <= width:
        return line
    cut = f"{body[:width]} … [{len(body) - width:,} more characters]"
    return cut + "\n" if line.endswith("\n") else cut


@dataclass(slots=True)
class DiffRow:
    """One display row.

    Attributes:
        tag: ``equal``, ``replace`` (old and new both set), ``delete``, ``insert`` or
            ``fold`` (``old_text`` says how many unchanged lines are hidden).
        old_no / new_no: 1-based line numbers (None on the side without a line).
        old_text / new_text: the lines (None on the side without a line).
    """

    tag: str
    old_no: int | None
    old_text: str | None
    new_no: int | None
    new_text: str | None


@dataclass
class SideBySide:
    """Rows of a diff plus hunk starts and counts.

    Attributes:
        rows: display rows.
        hunks: indexes into ``rows`` where each change group starts.
        added / removed: changed line counts.
        too_large: set (and nothing else) when the texts were too large to diff
            (:func:`too_large_to_diff`).
    """

    rows: list[DiffRow] = field(default_factory=list)
    hunks: list[int] = field(default_factory=list)
    added: int = 0
    removed: int = 0
    too_large: str | None = None

    @property
    def identical(self) -> bool:
        return not self.added and not self.removed and not self.too_large


def display_lines(old: str, new: str) -> tuple[list[str], list[str]]:
    """The lines of two texts as a reader counts them: an empty text has none, and a final
    ``\\n`` ends the last line instead of starting an empty one — when both texts agree
    on it (or one is empty); when only one ends in ``\\n`` the agent's split is kept, so
    that difference shows as an empty line added or removed."""
    a, b = split_lines(old), split_lines(new)
    if not old or not new or old.endswith("\n") == new.endswith("\n"):
        if not old or old.endswith("\n"):
            a.pop()
        if not new or new.endswith("\n"):
            b.pop()
    return a, b


def side_by_side(old: str, new: str, context: int | None = 3) -> SideBySide:
    """Diff two texts into side-by-side rows.

    Args:
        old: the left text; new: the right text (lines as :func:`display_lines` counts).
        context: unchanged lines kept around each change; None keeps every line.

    Returns:
        A :class:`SideBySide`; only its ``too_large`` set above :func:`too_large_to_diff`.
    """
    if reason := too_large_to_diff(old, new):
        return SideBySide(too_large=reason)
    a, b = display_lines(old, new)
    out = SideBySide()
    raw: list[DiffRow] = []
    i = j = 0
    ops = compute_ops(a, b)
    k = 0
    while k < len(ops):
        op = ops[k]
        n = len(op["lines"])
        if op["type"] == "keep":
            for t in range(n):
                raw.append(DiffRow("equal", i + t + 1, a[i + t], j + t + 1, b[j + t]))
            i, j = i + n, j + n
        elif op["type"] == "remove":
            adds = ops[k + 1]["lines"] if k + 1 < len(ops) and ops[k + 1]["type"] == "add" else []
            m = len(adds)
            for t in range(max(n, m)):
                if t < n and t < m:
                    raw.append(DiffRow("replace", i + t + 1, a[i + t], j + t + 1, b[j + t]))
                elif t < n:
                    raw.append(DiffRow("delete", i + t + 1, a[i + t], None, None))
                else:
                    raw.append(DiffRow("insert", None, None, j + t + 1, b[j + t]))
            out.removed += n
            out.added += m
            i, j = i + n, j + m
            if m:
                k += 1
        else:  # add
            for t in range(n):
                raw.append(DiffRow("insert", None, None, j + t + 1, b[j + t]))
            out.added += n
            j += n
        k += 1
    out.rows = _fold(raw, context)
    prev_changed = False
    for idx, r in enumerate(out.rows):
        changed = r.tag in ("replace", "delete", "insert")
        if changed and not prev_changed:
            out.hunks.append(idx)
        prev_changed = changed
    return out


def _fold(rows: list[DiffRow], context: int | None) -> list[DiffRow]:
    if context is None:
        return rows
    changed = [i for i, r in enumerate(rows) if r.tag != "equal"]
    if not changed:
        if len(rows) > 2 * context:
            return [_fold_row(len(rows))]
        return rows
    keep = [False] * len(rows)
    for c in changed:
        for t in range(max(0, c - context), min(len(rows), c + context + 1)):
            keep[t] = True
    out: list[DiffRow] = []
    hidden = 0
    for r, k in zip(rows, keep, strict=True):
        if k:
            if hidden:
                out.append(_fold_row(hidden))
                hidden = 0
            out.append(r)
        else:
            hidden += 1
    if hidden:
        out.append(_fold_row(hidden))
    return out


def word_spans(old: str, new: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Character spans of the changed words in ``old`` and ``new`` (one line each).

    Returns ``([], [])`` for lines longer than :data:`MAX_WORD_DIFF_CHARS` (no emphasis
    rather than a slow diff).
    """
    if len(old) > MAX_WORD_DIFF_CHARS or len(new) > MAX_WORD_DIFF_CHARS:
        return [], []
    ta, tb = _WORD.findall(old), _WORD.findall(new)
    sm = difflib.SequenceMatcher(None, ta, tb, autojunk=False)
    pa = _positions(ta)
    pb = _positions(tb)
    sa: list[tuple[int, int]] = []
    sb: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            sa.append((pa[i1], pa[i2]))
        if j2 > j1:
            sb.append((pb[j1], pb[j2]))
    return sa, sb


def _positions(tokens: list[str]) -> list[int]:
    pos = [0]
    for t in tokens:
        pos.append(pos[-1] + len(t))
    return pos


def unified_rows(sbs: SideBySide) -> list[tuple[str, int | None, int | None, str]]:
    """The same diff as unified rows ``(tag, old_no, new_no, text)``.

    Tags: ``" "`` unchanged, ``"-"`` removed, ``"+"`` added, ``"~"`` a fold. Within each
    change group every removed line comes before the added lines, as in ``diff -u``.
    """
    out: list[tuple[str, int | None, int | None, str]] = []
    minus: list[tuple[str, int | None, int | None, str]] = []
    plus: list[tuple[str, int | None, int | None, str]] = []

    def flush() -> None:
        out.extend(minus)
        out.extend(plus)
        minus.clear()
        plus.clear()

    for r in sbs.rows:
        if r.tag in ("equal", "fold"):
            flush()
            if r.tag == "equal":
                out.append((" ", r.old_no, r.new_no, r.old_text or ""))
            else:
                out.append(("~", None, None, r.old_text or ""))
            continue
        if r.old_text is not None:
            minus.append(("-", r.old_no, None, r.old_text))
        if r.new_text is not None:
            plus.append(("+", None, r.new_no, r.new_text))
    flush()
    return out

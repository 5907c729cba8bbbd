"""Line diffs in the agent's own op format (FORMAT.md §10.4–10.6).

:func:`compute_diff` / :func:`compute_ops` write ``{"ops": [...]}`` (keep/remove/add runs)
and never the empty ops list the agent stores for big files; :func:`apply_ops` replays them.
Near linear on huge or repetitive files (prefix/suffix stripping, Myers, rapidfuzz, patience
anchors); difflib is never used.

Design notes: docs/ARCHITECTURE.md, “core/checkpoints/diff.py”.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

from rapidfuzz.distance import Indel

# Myers is cheap per edit but pays Python overhead per diagonal; past this many edits
# (or when the bit-parallel matrix is small) rapidfuzz is faster.
_MYERS_MAX_D = 400
_SMALL_MATRIX = 250_000  # len(a) * len(b) below which rapidfuzz wins outright


def split_lines(text: str) -> list[str]:
    """``text.split("\\n")`` — the agent's line model (``""`` gives ``[""]``)."""
    return text.split("\n")


def _common_prefix(a: Sequence[str], i: int, b: Sequence[str], j: int, limit: int) -> int:
    """Length of the common run ``a[i:]`` / ``b[j:]`` (at most ``limit``), galloping."""
    if limit <= 0 or a[i] != b[j]:
        return 0
    lo, step = 1, 1
    while lo + step <= limit and a[i + lo : i + lo + step] == b[j + lo : j + lo + step]:
        lo += step
        step *= 2
    while step > 1:
        step //= 2
        if lo + step <= limit and a[i + lo : i + lo + step] == b[j + lo : j + lo + step]:
            lo += step
    return lo


def _common_suffix(a: Sequence[str], b: Sequence[str], limit: int) -> int:
    """Length of the common tail of ``a`` and ``b`` (at most ``limit``), galloping."""
    na, nb = len(a), len(b)
    if limit <= 0 or a[na - 1] != b[nb - 1]:
        return 0
    lo, step = 1, 1
    while lo + step <= limit and a[na - lo - step : na - lo] == b[nb - lo - step : nb - lo]:
        lo += step
        step *= 2
    while step > 1:
        step //= 2
        if lo + step <= limit and a[na - lo - step : na - lo] == b[nb - lo - step : nb - lo]:
            lo += step
    return lo


def _myers(a: list[str], b: list[str], max_d: int) -> list[tuple[str, int]] | None:
    """Myers' greedy O(ND) edit script as runs ``[(kind, count)]`` or None past ``max_d``.

    ``kind`` is ``"k"`` (keep), ``"r"`` (remove from a) or ``"a"`` (add from b).
    """
    n, m = len(a), len(b)
    v: dict[int, int] = {1: 0}
    trace: list[dict[int, int]] = []
    for d in range(min(n + m, max_d) + 1):
        trace.append(v)
        nv: dict[int, int] = {}
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[k - 1] < v[k + 1]):
                x = v[k + 1]
            else:
                x = v[k - 1] + 1
            y = x - k
            if x < n and y < m:
                x += _common_prefix(a, x, b, y, min(n - x, m - y))
            nv[k] = x
            if x >= n and x - k >= m:
                trace.append(nv)
                return _myers_path(trace, n, m)
        v = nv
    return None


def _myers_path(trace: list[dict[int, int]], n: int, m: int) -> list[tuple[str, int]]:
    runs: list[tuple[str, int]] = []
    x, y = n, m
    # trace[d + 1] holds the furthest x per diagonal after d edits.
    for d in range(len(trace) - 2, -1, -1):
        v = trace[d]
        k = x - y
        if d == 0:
            prev_x, prev_y = 0, 0
        elif k == -d or (k != d and v[k - 1] < v[k + 1]):
            prev_k = k + 1
            prev_x = v[prev_k]
            prev_y = prev_x - prev_k
        else:
            prev_k = k - 1
            prev_x = v[prev_k]
            prev_y = prev_x - prev_k
        if d == 0:
            if x > 0:
                runs.append(("k", x))
            break
        if k == prev_k + 1:  # a removal moved x by one, then the snake
            snake = x - (prev_x + 1)
            if snake:
                runs.append(("k", snake))
            runs.append(("r", 1))
        else:  # an addition moved y by one
            snake = x - prev_x
            if snake:
                runs.append(("k", snake))
            runs.append(("a", 1))
        x, y = prev_x, prev_y
    runs.reverse()
    return runs


def _rapidfuzz_runs(a: list[str], b: list[str]) -> list[tuple[str, int]]:
    ids: dict[str, int] = {}
    ia = [ids.setdefault(s, len(ids)) for s in a]
    ib = [ids.setdefault(s, len(ids)) for s in b]
    runs: list[tuple[str, int]] = []
    opcodes = cast("Iterable[tuple[str, int, int, int, int]]", Indel.opcodes(ia, ib))
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            runs.append(("k", i2 - i1))
        elif tag == "delete":
            runs.append(("r", i2 - i1))
        elif tag == "insert":
            runs.append(("a", j2 - j1))
        else:  # "replace" (not produced by Indel, handled for safety)
            runs.append(("r", i2 - i1))
            runs.append(("a", j2 - j1))
    return runs


def _middle_runs(a: list[str], b: list[str]) -> list[tuple[str, int]]:
    if not a:
        return [("a", len(b))] if b else []
    if not b:
        return [("r", len(a))]
    if len(a) * len(b) <= _SMALL_MATRIX:
        return _rapidfuzz_runs(a, b)
    runs = _myers(a, b, _MYERS_MAX_D)
    if runs is None:
        runs = _anchored_runs(a, b)
    return runs


def _anchored_runs(a: list[str], b: list[str]) -> list[tuple[str, int]]:
    """Many edits in a large middle: split it at lines unique to both sides (patience).

    The longest increasing run of unique-line pairs anchors the two sides; the pieces in
    between are diffed on their own (valid, usually minimal). Without anchors (highly
    repetitive text) the bit-parallel matcher takes the whole middle.
    """
    from bisect import bisect_left
    from collections import Counter

    ca, cb = Counter(a), Counter(b)
    pos_b = {line: j for j, line in enumerate(b) if cb[line] == 1}
    pairs = [(i, pos_b[line]) for i, line in enumerate(a) if ca[line] == 1 and line in pos_b]
    if not pairs:
        return _rapidfuzz_runs(a, b)
    # Longest increasing subsequence of the b positions (patience sorting).
    tails: list[int] = []
    tail_idx: list[int] = []
    prev: list[int] = [-1] * len(pairs)
    for n, (_, j) in enumerate(pairs):
        k = bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            tail_idx.append(n)
        else:
            tails[k] = j
            tail_idx[k] = n
        prev[n] = tail_idx[k - 1] if k else -1
    chain: list[tuple[int, int]] = []
    n = tail_idx[-1]
    while n >= 0:
        chain.append(pairs[n])
        n = prev[n]
    chain.reverse()
    runs: list[tuple[str, int]] = []
    pi = pj = 0
    for i, j in chain:
        runs.extend(_middle_runs_stripped(a[pi:i], b[pj:j]))
        runs.append(("k", 1))
        pi, pj = i + 1, j + 1
    runs.extend(_middle_runs_stripped(a[pi:], b[pj:]))
    return runs


def compute_ops(a: list[str], b: list[str]) -> list[dict[str, Any]]:
    """Ops turning lines ``a`` into lines ``b`` (remove before add inside each change).

    Returns:
        ``[{"type": ..., "lines": [...]}, ...]``; ``[]`` only when ``a == b``.
    """
    return _runs_to_ops(_middle_runs_stripped(a, b), a, b)


def _runs_to_ops(runs: list[tuple[str, int]], a: list[str], b: list[str]) -> list[dict[str, Any]]:
    ops: list[dict[str, Any]] = []
    i = j = 0
    pend_r = pend_a = 0
    r_start = a_start = 0

    def flush() -> None:
        nonlocal pend_r, pend_a
        if pend_r:
            ops.append({"type": "remove", "lines": a[r_start : r_start + pend_r]})
        if pend_a:
            ops.append({"type": "add", "lines": b[a_start : a_start + pend_a]})
        pend_r = pend_a = 0

    for kind, count in runs:
        if not count:
            continue
        if kind == "k":
            flush()
            if ops and ops[-1]["type"] == "keep":
                ops[-1]["lines"].extend(a[i : i + count])
            else:
                ops.append({"type": "keep", "lines": a[i : i + count]})
            i += count
            j += count
        elif kind == "r":
            if not pend_r:
                r_start = i
            pend_r += count
            i += count
        else:
            if not pend_a:
                a_start = j
            pend_a += count
            j += count
    flush()
    return ops


def compute_diff(old: str, new: str) -> dict[str, Any]:
    """The agent's diff object ``{"ops": [...]}`` from ``old`` to ``new``.

    Unlike the agent (which gives up at 10,000 lines and stores ``{"ops": []}``), this
    always produces a real script; ``ops`` is empty only when ``old == new``.

    The common head and tail are found on the text itself and cut back to line
    boundaries, so only ``old`` is split whole and ``new`` only in its changed middle.
    """
    if old == new:
        return {"ops": []}
    # old = P + Mo [+ "\n" + S],  new = P + Mn [+ "\n" + S]; P ends at a line start.
    # the same galloping compares work on str (a sequence of characters) as on line lists
    pe = old.rfind("\n", 0, _common_prefix(old, 0, new, 0, min(len(old), len(new)))) + 1
    tail = _common_suffix(old, new, min(len(old), len(new)) - pe)
    nl = old.find("\n", len(old) - tail) if tail else -1
    a = split_lines(old)
    head = old.count("\n", 0, pe)  # lines in P
    if nl >= 0:
        s_len = len(old) - nl - 1
        rest = old.count("\n", nl + 1) + 1  # lines in S
        b_mid = split_lines(new[pe : len(new) - s_len - 1])
    else:
        rest = 0
        b_mid = split_lines(new[pe:])
    a_mid = a[head : len(a) - rest]
    runs: list[tuple[str, int]] = []
    if head:
        runs.append(("k", head))
    runs.extend(_middle_runs_stripped(a_mid, b_mid))
    if rest:
        runs.append(("k", rest))
    b = a[:head] + b_mid + a[len(a) - rest :] if rest else a[:head] + b_mid
    return {"ops": _runs_to_ops(runs, a, b)}


def _middle_runs_stripped(a: list[str], b: list[str]) -> list[tuple[str, int]]:
    """Edit runs of ``a`` → ``b``: common head and tail kept, the middle matched."""
    na, nb = len(a), len(b)
    pre = _common_prefix(a, 0, b, 0, min(na, nb)) if na and nb else 0
    suf = _common_suffix(a, b, min(na, nb) - pre) if na and nb else 0
    runs: list[tuple[str, int]] = []
    if pre:
        runs.append(("k", pre))
    runs.extend(_middle_runs(a[pre : na - suf], b[pre : nb - suf]))
    if suf:
        runs.append(("k", suf))
    return runs


def apply_ops(base: list[str], ops: Sequence[dict[str, Any]]) -> list[str]:
    """Walk ``ops`` over ``base`` lines exactly as the agent's ``applyDiff`` does."""
    out: list[str] = []
    i = 0
    for op in ops:
        lines = op.get("lines") or []
        kind = op.get("type")
        if kind == "keep":
            n = len(lines)
            out.extend(base[i : i + n])
            i += n
        elif kind == "remove":
            i += len(lines)
        elif kind == "add":
            out.extend(lines)
    return out


def apply_diff(base: str, diff: dict[str, Any]) -> str:
    """``applyDiff(base, diff)``: the text after applying ``diff["ops"]`` to ``base``."""
    return "\n".join(apply_ops(split_lines(base), diff.get("ops") or []))


def ops_are_empty(diff: Any) -> bool:
    """True for the agent's ≥ 10,000-line bug: a stored diff with no ops (unrecoverable)."""
    return not isinstance(diff, dict) or not diff.get("ops")


OP_TYPES = frozenset({"keep", "add", "remove"})


def invalid_ops(ops: Any) -> str | None:
    """Why a stored ``ops`` list is not one the agent writes (None: it is): a list of
    objects with a known ``type`` and ``lines`` a list of strings. Such a diff rebuilds to
    nothing true, so its entry is unrecoverable (docs/DECISIONS.md)."""
    if not isinstance(ops, list):
        return f"its ops are {type(ops).__name__}, not a list"
    for n, op in enumerate(ops, 1):
        if not isinstance(op, dict):
            return f"op {n} is {type(op).__name__}, not an object"
        kind = op.get("type")
        if kind not in OP_TYPES:
            return f"op {n} has an unknown type {kind!r}"
        lines = op.get("lines")
        if not isinstance(lines, list):
            return f"op {n} ({kind}) has lines of type {type(lines).__name__}, not a list"
        try:  # C speed (a keep op holds most of the file): the loop below only names it
            "".join(lines)
            continue
        except TypeError:
            pass
        for k, line in enumerate(lines, 1):
            if not isinstance(line, str):
                return f"op {n} ({kind}) line {k} is {type(line).__name__}, not a string"
    return None


def ops_overrun(base_len: int, ops: Sequence[dict[str, Any]]) -> str | None:
    """Why valid ``ops`` cannot apply to a base of ``base_len`` lines (their keep and
    remove ops run past its end), or None."""
    i = 0
    for n, op in enumerate(ops, 1):
        if op["type"] != "add":
            i += len(op["lines"])
            if i > base_len:
                return (
                    f"op {n} ({op['type']}) reaches line {i} of a base of {base_len} "
                    "line(s): the diff was not made against it"
                )
    return None


def has_keep(ops: Sequence[dict[str, Any]]) -> bool:
    """Whether applying ``ops`` reads the base at all (no keep ⇒ base-independent)."""
    return any(op.get("type") == "keep" and op.get("lines") for op in ops)


def keeps_match(base: list[str], ops: Sequence[dict[str, Any]]) -> bool:
    """Whether every keep op's stored lines equal the base lines it copies.

    The agent stores keep lines verbatim, so a mismatch means the diff was computed
    against a different base than the one rebuilt (a cut or corrupt chain).
    """
    i = 0
    for op in ops:
        lines = op.get("lines") or []
        kind = op.get("type")
        if kind == "keep":
            if base[i : i + len(lines)] != lines:
                return False
            i += len(lines)
        elif kind == "remove":
            i += len(lines)
    return i <= len(base)


EditRow = tuple[str, int, int, str]


def edit_hunks(a: list[str], b: list[str], context: int = 3) -> list[list[EditRow]]:
    """The edit script of ``a`` → ``b`` grouped into hunks with ``context`` lines around.

    Args:
        a, b: line lists (any line convention; lines are compared as given).
        context: unchanged lines kept before and after each change.

    Returns:
        Hunks, each a list of rows ``(tag, old_index, new_index, line)`` with tag
        ``" "``, ``"-"`` or ``"+"`` and 0-based indexes of the row's position in ``a`` and
        ``b``. Built on :func:`compute_ops` (never quadratic); empty when nothing differs.
    """
    rows: list[EditRow] = []
    i = j = 0
    for op in compute_ops(a, b):
        for line in op["lines"]:
            if op["type"] == "keep":
                rows.append((" ", i, j, line))
                i += 1
                j += 1
            elif op["type"] == "remove":
                rows.append(("-", i, j, line))
                i += 1
            else:
                rows.append(("+", i, j, line))
                j += 1
    spans: list[list[int]] = []
    for k, r in enumerate(rows):
        if r[0] == " ":
            continue
        lo, hi = max(0, k - context), min(len(rows), k + context + 1)
        if spans and lo <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], hi)
        else:
            spans.append([lo, hi])
    return [rows[lo:hi] for lo, hi in spans]

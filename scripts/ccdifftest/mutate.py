"""Damage mutations of a Claude Code transcript (what crashes, stale writers and careless
edits leave), each a ``(name, bytes)`` from a seed: deterministic."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

Mutation = Callable[[list[bytes], random.Random], list[bytes] | None]


def _conv(lines: list[bytes]) -> list[int]:
    out = []
    for k, ln in enumerate(lines):
        if b'"type":"user"' in ln or b'"type":"assistant"' in ln:
            out.append(k)
    return out


def _pick(lines: list[bytes], rng: random.Random, lo: float = 0.2) -> int | None:
    c = _conv(lines)
    if len(c) < 3:
        return None
    return c[rng.randrange(int(len(c) * lo), len(c) - 1)]


def lost_line(lines, rng):
    k = _pick(lines, rng)
    return None if k is None else lines[:k] + lines[k + 1 :]


def torn_line(lines, rng):
    k = _pick(lines, rng)
    if k is None:
        return None
    ln = lines[k]
    return lines[:k] + [ln[: max(1, rng.randrange(len(ln) // 4, len(ln) - 1))]] + lines[k + 1 :]


def torn_glued(lines, rng):
    """A torn record with the next record written on the same line."""
    k = _pick(lines, rng)
    if k is None:
        return None
    ln = lines[k]
    return lines[:k] + [ln[: len(ln) // 2] + lines[k + 1]] + lines[k + 2 :]


def glued(lines, rng):
    """Two whole records on one line (a newline missing)."""
    k = _pick(lines, rng)
    if k is None:
        return None
    return lines[:k] + [lines[k] + lines[k + 1]] + lines[k + 2 :]


def nul_run(lines, rng):
    k = _pick(lines, rng)
    if k is None:
        return None
    return lines[:k] + [b"\x00" * rng.randrange(8, 200) + lines[k]] + lines[k + 1 :]


def nul_line(lines, rng):
    k = _pick(lines, rng)
    if k is None:
        return None
    return lines[:k] + [b"\x00" * rng.randrange(8, 200)] + lines[k + 1 :]


def api_error_sibling(lines, rng):
    """An API-error reply written as a sibling of a real reply (same parent)."""
    c = [k for k in _conv(lines) if b'"type":"assistant"' in lines[k]]
    if not c:
        return None
    k = rng.choice(c)
    try:
        d = json.loads(lines[k])
    except ValueError:
        return None
    if not isinstance(d, dict):
        return None
    d["uuid"] = f"e0000000-0000-4000-8000-{rng.randrange(10**12):012d}"
    d["isApiErrorMessage"] = True
    d["message"] = {
        "id": f"msg_err{rng.randrange(10**6)}",
        "role": "assistant",
        "model": "<synthetic>",
        "type": "message",
        "content": [{"type": "text", "text": "API Error: 500 internal error"}],
    }
    new = json.dumps(d, separators=(",", ":")).encode()
    return (
        lines[:k] + [new] + lines[k:]
        if rng.random() < 0.5
        else lines[: k + 1] + [new] + lines[k + 1 :]
    )


def pending_tool(lines, rng):
    """Cut the file just after an assistant tool_use (its result never written)."""
    c = [k for k in _conv(lines) if b'"tool_use"' in lines[k] and b'"type":"assistant"' in lines[k]]
    if not c:
        return None
    k = rng.choice(c)
    return lines[: k + 1]


def cut_tail(lines, rng):
    c = _conv(lines)
    if len(c) < 3:
        return None
    return lines[: c[rng.randrange(1, len(c))] + 1]


def bom(lines, rng):
    return [b"\xef\xbb\xbf" + lines[0]] + lines[1:] if lines else None


def crlf(lines, rng):
    return [ln + b"\r" for ln in lines]


def whitespace_text(lines, rng):
    c = [k for k in _conv(lines) if b'"type":"assistant"' in lines[k]]
    if not c:
        return None
    k = rng.choice(c)
    try:
        d = json.loads(lines[k])
    except ValueError:
        return None
    if not isinstance(d, dict) or not isinstance(d.get("message"), dict):
        return None
    d["uuid"] = f"f0000000-0000-4000-8000-{rng.randrange(10**12):012d}"
    d["message"] = dict(d["message"], content=[{"type": "text", "text": "\n\n"}])
    new = json.dumps(d, separators=(",", ":")).encode()
    # the next record hangs off the whitespace reply
    nxt = k + 1
    if nxt < len(lines):
        try:
            n = json.loads(lines[nxt])
            if n.get("parentUuid") == json.loads(lines[k]).get("uuid"):
                d["parentUuid"] = n["parentUuid"]
                n["parentUuid"] = d["uuid"]
                new = json.dumps(d, separators=(",", ":")).encode()
                return (
                    lines[: k + 1]
                    + [new, json.dumps(n, separators=(",", ":")).encode()]
                    + lines[nxt + 1 :]
                )
        except ValueError:
            pass
    return None


MUTATIONS: dict[str, Mutation] = {
    "lost_line": lost_line,
    "torn_line": torn_line,
    "torn_glued": torn_glued,
    "glued": glued,
    "nul_run": nul_run,
    "nul_line": nul_line,
    "api_error_sibling": api_error_sibling,
    "pending_tool": pending_tool,
    "cut_tail": cut_tail,
    "bom": bom,
    "crlf": crlf,
    "whitespace_text": whitespace_text,
}


def mutate(data: bytes, seed: int, k: int = 1) -> tuple[str, bytes] | None:
    """``k`` random mutations of ``data`` chained (names joined by ``+``); None when
    none applies."""
    rng = random.Random(seed)
    lines = data.rstrip(b"\n").split(b"\n")
    names = []
    for _ in range(k):
        for _try in range(5):
            name = rng.choice(sorted(MUTATIONS))
            out = MUTATIONS[name](lines, rng)
            if out is not None and out != lines:
                lines = out
                names.append(name)
                break
    if not names:
        return None
    return "+".join(names), b"\n".join(lines) + b"\n"

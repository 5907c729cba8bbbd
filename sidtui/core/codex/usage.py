"""What Codex CLI recorded of each API response's usage, counted as ccusage counts it
(docs/CODEX.md §5; checked with ccusage 20.0.24's ``ccusage codex session`` on the lab home).

Codex writes each response's counts twice: a ``token_usage_record`` and an ``event_msg``
of type ``token_count`` (``info.last_token_usage``: this response; ``info.total_token_usage``:
the session's running sum). ccusage reads only the ``token_count`` events, skips one whose
running sum equals the previous event's (Codex repeats the last count when a turn starts
or is interrupted), and counts ``last_token_usage`` (or, without it, the running sum's
growth). Its ``input_tokens`` include the cached ones: the event's input is
``input_tokens - cached_input_tokens`` and its cache reads ``cached_input_tokens``;
``output_tokens`` include the reasoning tokens. The model is the last ``turn_context``'s.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sidtui.core.codex.rollout import read_rollout
from sidtui.core.usage.events import UsageEvent, timestamp_ms

FIELDS = ("input_tokens", "cached_input_tokens", "output_tokens")


def _counts(u: Any) -> tuple[int, int, int] | None:
    if not isinstance(u, dict):
        return None
    vals = []
    for k in FIELDS:
        v = u.get(k, 0)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            return None
        vals.append(v)
    return vals[0], vals[1], vals[2]


def read_usage(
    path: str | os.PathLike[str], project: str, errors: list[str] | None = None
) -> list[UsageEvent]:
    """Every counted response of one rollout, in file order (``file`` set).

    Raises:
        UnreadableInput: the file cannot be read.
    """
    p = Path(path)
    ro = read_rollout(p)
    session = str(ro.meta.get("id") or p.stem[-36:])
    model: str | None = None
    prev_total: tuple[int, int, int] | None = None
    out: list[UsageEvent] = []
    for r in ro.records:
        if r.type == "turn_context":
            m = r.payload.get("model")
            model = m if isinstance(m, str) and m else model
            continue
        if r.type != "event_msg" or r.sub != "token_count":
            continue
        info = r.payload.get("info")
        if not isinstance(info, dict):
            continue
        total = _counts(info.get("total_token_usage"))
        if total is not None and total == prev_total:
            continue
        last = _counts(info.get("last_token_usage"))
        if last is None and total is not None:
            base = prev_total or (0, 0, 0)
            last = (total[0] - base[0], total[1] - base[1], total[2] - base[2])
        if total is not None:
            prev_total = total
        ts = timestamp_ms(r.timestamp) if r.timestamp else None
        if last is None or ts is None:
            continue
        inp, cached, output = last
        out.append(
            UsageEvent(
                ts_ms=ts,
                model=model,
                message_id=None,
                request_id=None,
                input_tokens=max(inp - cached, 0),
                output_tokens=output,
                cache_creation_tokens=0,
                cache_read_tokens=cached,
                session=session,
                project=project,
                offset=r.offset,
                file=str(p),
            )
        )
    return out

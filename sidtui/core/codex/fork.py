"""A fork of a Codex CLI session as Codex itself writes one (docs/CODEX.md §9).

Codex 0.169.0's ``codex exec fork ID`` writes a new rollout whose ``session_meta`` names
the history it continues instead of copying it: ``history_base`` = the session id, the
ordinal and the byte offset where that history ends (``history_mode: "paginated"``,
``forked_from_id``, ``forked_from_ordinal_exclusive``). :func:`write_fork` writes the same
first line, ending the history before the prompt you pick (a conversation rewind that
keeps the original), so ``codex exec resume NEW_ID`` sends exactly the items before it
(checked with the lab). The original is never touched; the new file is created whole
(:func:`~sidtui.core.base.safefs.create_at`: temp, fsync, link: nothing is replaced).
"""

from __future__ import annotations

import json
import os
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sidtui.core.base.errors import UsageError
from sidtui.core.base.safefs import create_at, make_dirs, open_dir
from sidtui.core.codex.layout import CodexHome
from sidtui.core.codex.session import CodexSessionView


def uuid7(now_ms: int | None = None, rand: int | None = None) -> str:
    """A UUIDv7 (time-ordered, as Codex names sessions); ``rand``: its 80 random bits
    (default: from the OS)."""
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    if rand is None:
        rand = int.from_bytes(secrets.token_bytes(10), "big")
    n = (ms & ((1 << 48) - 1)) << 80 | 0x7 << 76 | (rand >> 68 & 0xFFF) << 64
    n |= 0b10 << 62 | (rand & ((1 << 62) - 1))
    h = f"{n:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


@dataclass
class ForkPlan:
    """Where a fork's history ends: in session ``base`` (this one or one it was forked
    from), before the record at ``offset`` bytes / ``ordinal``; ``items``: how many
    history items a resume of the fork sends."""

    base: str
    ordinal: int
    offset: int
    items: int


def plan_fork(view: CodexSessionView, before_prompt: int | None) -> ForkPlan:
    """The cut of a fork that keeps the history before typed prompt ``before_prompt``
    (1-based among :attr:`CodexSessionView.prompts`; None: the whole history).

    Raises:
        UsageError: no such prompt, or it lies in a base session that is not in the home.
    """
    if before_prompt is None:
        recs = view.rollout.records
        last = recs[-1].ordinal if recs and recs[-1].ordinal is not None else len(recs) - 1
        return ForkPlan(view.session_id, last + 1, view.rollout.size, len(view.resume.items))
    prompts = view.prompts
    if not 1 <= before_prompt <= len(prompts):
        raise UsageError(f"no prompt {before_prompt} (the session has {len(prompts)})")
    m = prompts[before_prompt - 1]
    if m.base:
        raise UsageError(
            f"prompt {before_prompt} is in session {m.base}, which this one was forked from: "
            "fork that session instead"
        )
    if m.record is None or m.compacted:
        raise UsageError(f"prompt {before_prompt} has no record of its own to cut before")
    rec = view.rollout.records[m.record]
    ordinal = rec.ordinal if rec.ordinal is not None else rec.index
    return ForkPlan(view.session_id, ordinal, rec.offset, m.items[0])


def fork_meta(
    view: CodexSessionView,
    plan: ForkPlan,
    new_id: str,
    now: datetime,
    window_id: str | None = None,
) -> dict[str, Any]:
    """The new rollout's ``session_meta`` line (the original's, renamed and pointed at its
    base)."""
    payload = dict(view.rollout.meta)
    stamp = now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"
    payload.update(
        {
            "session_id": new_id,
            "id": new_id,
            "forked_from_id": view.session_id,
            "forked_from_ordinal_exclusive": plan.ordinal,
            "timestamp": stamp,
            "history_mode": "paginated",
            "history_base": {
                "thread_id": plan.base,
                "end_ordinal_exclusive": plan.ordinal,
                "end_byte_offset": plan.offset,
            },
            "context_window": {"window_id": window_id or uuid7()},
        }
    )
    return {"timestamp": stamp, "ordinal": plan.ordinal, "type": "session_meta", "payload": payload}


def write_fork(
    home: CodexHome, view: CodexSessionView, before_prompt: int | None, now: datetime | None = None
) -> tuple[str, Path]:
    """Write the fork (see the module docstring); returns ``(new session id, its path)``.

    Raises:
        UsageError: see :func:`plan_fork`; OSError: the write failed (nothing left).
    """
    plan = plan_fork(view, before_prompt)
    when = now or datetime.now().astimezone()
    new_id = uuid7(int(when.timestamp() * 1000))
    meta = fork_meta(view, plan, new_id, when)
    line = json.dumps(meta, ensure_ascii=False, separators=(",", ":")) + "\n"
    local = when.astimezone()
    folder = home.sessions_dir / local.strftime("%Y/%m/%d")
    make_dirs(folder)
    name = f"rollout-{local.strftime('%Y-%m-%dT%H-%M-%S')}-{new_id}.jsonl"
    fd = open_dir(os.path.realpath(folder))
    try:
        create_at(fd, name, line.encode(), 0o644, where=str(folder / name))
    finally:
        os.close(fd)
    return new_id, folder / name

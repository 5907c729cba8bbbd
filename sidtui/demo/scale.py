"""Homes at benchmark scale: many sessions with the size distribution of FORMAT.md §2.6, or one huge one.

* :func:`write_scale_home(dir, n, seed)` — ``n`` main sessions spread over projects (about
  one project per 15 sessions), sizes drawn from a log-normal fitted to FORMAT.md §2.6 (p50
  76 KB, p95 626 KB), clamped to [661 B, 975 KB]; a third end with ``session_end``
  (FORMAT.md §3.8); ``history.jsonl`` gets one line per prompt.
* :func:`write_huge_session(path, target_bytes, seed)` — one session of about
  ``target_bytes`` (100 MB ≈ 142k records, FORMAT.md §2.6).

Design notes: docs/ARCHITECTURE.md, “demo/scale.py”.
"""

from __future__ import annotations

import math
import os
import random
from dataclasses import dataclass
from pathlib import Path

from sidtui.core.base.jsonout import stringify
from sidtui.core.base.project import project_key
from sidtui.demo.clock import DEMO_EPOCH_MS, SeededIds, iso_ms
from sidtui.demo.projects import session_start_record

P50_BYTES = 76 * 1024
P95_BYTES = 626 * 1024
MIN_BYTES = 661
MAX_BYTES = 975 * 1024
_SIGMA = math.log(P95_BYTES / P50_BYTES) / 1.6449
_PARALLEL = [1] * 735 + [2] * 123 + [3] * 26 + [4] * 11 + [5] * 2 + [6] * 2 + [8]
_WORDS = (
    "the cache record index chain parser buffer stream token session agent file line diff "
    "snapshot tool result user assistant model request value error retry config module test "
    "function return import export class const let async await promise handler route query"
).split()
_TOOLS = ["read", "read", "read", "grep", "glob", "edit", "edit", "bash", "write"]


def word_pool(rng: random.Random, words: int = 4000) -> str:
    """Filler text the records slice their contents from."""
    return " ".join(rng.choices(_WORDS, k=words))


def session_size(rng: random.Random) -> int:
    """One session's target size in bytes (log-normal, clamped)."""
    return int(min(MAX_BYTES, max(MIN_BYTES, rng.lognormvariate(math.log(P50_BYTES), _SIGMA))))


@dataclass
class ScaleStats:
    """What was written: sessions, records, bytes."""

    sessions: int = 0
    records: int = 0
    bytes: int = 0


class _Writer:
    """Streams one session's records (the store's shapes, a valid chain)."""

    def __init__(self, fh, rng: random.Random, ids: SeededIds, t_ms: int, pool: str) -> None:
        self.fh = fh
        self.rng = rng
        self.ids = ids
        self.t = t_ms
        self.parent: str | None = None
        self.records = 0
        self.bytes = 0
        self.messages = 0
        self.cost = 0.0
        self.pool = pool
        self.files: list[str] = []

    def put(self, rec: dict) -> None:
        self.t += self.rng.randint(3, 4000)
        rec["timestamp"] = iso_ms(self.t)
        uid = self.ids.uuid()
        rec["uuid"] = uid
        rec["parentUuid"] = self.parent
        self.parent = uid
        line = stringify(rec) + b"\n"
        self.fh.write(line)
        self.records += 1
        self.bytes += len(line)

    def text(self, lo: int, hi: int) -> str:
        n = self.rng.randint(lo, hi)
        start = self.rng.randint(0, max(0, len(self.pool) - n - 1))
        return self.pool[start : start + n]

    def usage(self) -> dict:
        inp, out, read = (
            self.rng.randint(20, 160),
            self.rng.randint(30, 900),
            self.rng.randint(2000, 90000),
        )
        self.cost += (inp * 3 + out * 15 + read * 0.3) / 1e6
        return {
            "inputTokens": inp,
            "outputTokens": out,
            "cacheReadInputTokens": read,
            "cacheCreationInputTokens": self.rng.choice((0, 411, 633)),
        }

    def assistant(self, blocks: list, stop: str, model: str) -> None:
        self.messages += 1
        self.put(
            {
                "type": "assistant_message",
                "message": {"role": "assistant", "content": blocks},
                "usage": self.usage(),
                "model": model,
                "stopReason": stop,
                "msgId": self.ids.msg_id(),
            }
        )


def _write_session(
    fh,
    rng: random.Random,
    ids: SeededIds,
    *,
    session_id: str,
    cwd: str,
    t_ms: int,
    target: int,
    end: bool,
    model: str = "claude-sonnet-4-6",
    history: list | None = None,
    pool: str | None = None,
) -> _Writer:
    w = _Writer(fh, rng, ids, t_ms, pool or word_pool(rng))
    w.put(session_start_record(session_id, model, cwd))
    first = True
    while w.bytes < target:
        prompt = w.text(20, 240).strip() or "continue"
        user = {
            "type": "user_message",
            "message": {"role": "user", "content": [{"type": "text", "text": prompt}]},
        }
        if first:
            user.update({"cwd": cwd, "gitBranch": "main", "permissionMode": "default"})
        w.messages += 1
        w.put(user)
        if history is not None:
            history.append((prompt, w.t))
        # ~11.6 tool batches per human prompt (881 / 76, FORMAT.md §3.3)
        for _ in range(max(1, int(rng.expovariate(1 / 11.6)))):
            if w.bytes >= target:
                break
            _tool_batch(w, rng, ids, cwd, model)
        w.assistant([{"type": "text", "text": w.text(20, 400)}], "end_turn", model)
        w.put(_usage_stats(w, t_ms, model))
        w.put({"type": "metadata", "key": "todo_state", "value": {"todos": []}})
        first = False
    if end:
        w.put({"type": "session_end", "totalCostUSD": w.cost, "totalMessages": w.messages})
    return w


def _tool_batch(w: _Writer, rng: random.Random, ids: SeededIds, cwd: str, model: str) -> None:
    """One assistant message of parallel tool calls, its ``file_changes`` and the results."""
    k = rng.choice(_PARALLEL)
    calls = []
    for _ in range(k):
        name = rng.choice(_TOOLS)
        fp = f"{cwd}/src/{rng.choice(_WORDS)}.ts"
        inp = (
            {"command": w.text(10, 60)}
            if name == "bash"
            else {"pattern": rng.choice(_WORDS)}
            if name in ("grep", "glob")
            else {"file_path": fp}
        )
        if name == "edit":
            inp.update({"old_string": w.text(10, 120), "new_string": w.text(10, 160)})
        elif name == "write":
            inp["content"] = w.text(100, 1500)
        calls.append((ids.tool_use_id(), name, inp))
    blocks: list = []
    if rng.random() < 0.3:
        blocks.append(
            {"type": "thinking", "thinking": w.text(40, 400), "signature": ids.signature()}
        )
    if rng.random() < 0.7:
        blocks.append({"type": "text", "text": w.text(10, 200)})
    blocks += [{"type": "tool_use", "id": i, "name": n, "input": inp} for i, n, inp in calls]
    w.assistant(blocks, "tool_use", model)
    changed = [inp["file_path"] for _, n, inp in calls if n in ("edit", "write")]
    if changed:
        new = [f for f in changed if f not in w.files]
        w.files.extend(new)
        if new or rng.random() < 0.3:
            w.put(
                {
                    "type": "metadata",
                    "key": "file_changes",
                    "value": {
                        "files": list(w.files[-40:]),
                        "lastTool": ", ".join(n for _, n, _ in calls),
                        "count": len(w.files),
                    },
                }
            )
    results = []
    for i, _n, _ in calls:
        size = int(min(20000, rng.lognormvariate(math.log(150), 1.1)))
        block = {
            "type": "tool_result",
            "tool_use_id": i,
            "content": w.text(size // 2, size),
        }
        if rng.random() < 0.03:
            block["is_error"] = True
        results.append(block)
    w.messages += 1
    w.put({"type": "user_message", "message": {"role": "user", "content": results}})


def _usage_stats(w: _Writer, t_ms: int, model: str) -> dict:
    """The ``usage_stats`` metadata record after a turn."""
    return {
        "type": "metadata",
        "key": "usage_stats",
        "value": {
            "totalCostUSD": w.cost,
            "sideCostUSD": 0,
            "totalAPIDuration": w.t - t_ms,
            "totalToolDuration": w.records * 7,
            "modelUsage": {
                model: {
                    "inputTokens": 80,
                    "stockPromptTokens": 9000,
                    "cumulativePromptTokens": w.records * 40,
                    "outputTokens": w.records * 90,
                    "cacheReadInputTokens": w.records * 3000,
                    "cacheCreationInputTokens": 411,
                    "requests": w.messages // 2,
                    "costUSD": w.cost,
                    "cacheSavingsUSD": w.cost * 2,
                    "provider": "anthropic",
                }
            },
        },
    }


def write_scale_home(root: str | os.PathLike[str], n: int, seed: int = 0) -> ScaleStats:
    """Write ``n`` sessions into the home ``root`` (created if needed).

    Args:
        root: the agent home (``sessions/`` and ``history.jsonl`` go inside).
        n: number of main sessions.
        seed: same seed ⇒ same bytes.

    Returns:
        :class:`ScaleStats`.
    """
    home = Path(root).absolute()
    rng = random.Random(f"{seed}:scale")
    ids = SeededIds(random.Random(f"{seed}:scale-ids"))
    n_projects = max(1, n // 15)
    stats = ScaleStats()
    t = DEMO_EPOCH_MS - n * 600_000
    history: list[tuple[str, int, str, str]] = []
    pool = word_pool(rng)
    for _i in range(n):
        project = f"/tmp/sidtui-scale/project-{rng.randrange(n_projects):04d}"
        folder = home / "sessions" / project_key(project)
        folder.mkdir(parents=True, exist_ok=True)
        t += rng.randint(60_000, 1_140_000)
        sid = f"{iso_ms(t)[:10].replace('-', '')}-{iso_ms(t)[11:19].replace(':', '')}-{ids.hex8()}"
        path = folder / f"{sid}.jsonl"
        prompts: list = []
        with open(path, "wb", buffering=1 << 20) as fh:
            w = _write_session(
                fh,
                rng,
                ids,
                session_id=sid,
                cwd=project,
                t_ms=t,
                target=session_size(rng),
                end=rng.random() < 0.33,
                history=prompts,
                pool=pool,
            )
        os.utime(path, (w.t / 1000, w.t / 1000))
        history.extend((p, ts, project, sid) for p, ts in prompts)
        stats.sessions += 1
        stats.records += w.records
        stats.bytes += w.bytes
    history.sort(key=lambda h: h[1])
    with open(home / "history.jsonl", "ab") as fh:
        for display, ts, project, sid in history:
            fh.write(
                stringify(
                    {
                        "display": display,
                        "pastedContents": [],
                        "timestamp": iso_ms(ts),
                        "project": project,
                        "sessionId": sid,
                    }
                )
                + b"\n"
            )
    return stats


def write_huge_session(
    path: str | os.PathLike[str], target_bytes: int = 100 * 1024 * 1024, seed: int = 0
) -> ScaleStats:
    """Write one session of about ``target_bytes`` at ``path`` (its stem is the id).

    Returns:
        :class:`ScaleStats` (1 session, its records and bytes).
    """
    p = Path(path).absolute()
    p.parent.mkdir(parents=True, exist_ok=True)
    rng = random.Random(f"{seed}:huge")
    ids = SeededIds(random.Random(f"{seed}:huge-ids"))
    with open(p, "wb", buffering=1 << 22) as fh:
        w = _write_session(
            fh,
            rng,
            ids,
            session_id=p.stem,
            cwd="/tmp/sidtui-scale/huge",
            t_ms=DEMO_EPOCH_MS,
            target=target_bytes,
            end=True,
        )
    return ScaleStats(1, w.records, w.bytes)


def huge_session_path(home: str | os.PathLike[str], seed: int = 0) -> Path:
    """Where ``sidtui demo --huge`` puts the huge session inside ``home``."""
    return (
        Path(home)
        / "sessions"
        / project_key("/tmp/sidtui-scale/huge")
        / f"20261122-000000-{seed & 0xFFFFFFFF:08x}.jsonl"
    )

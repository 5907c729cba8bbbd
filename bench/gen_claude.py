"""A deterministic generator of Claude Code-shaped transcripts for the benchmarks.

Records follow what Claude Code 2.1.x writes (docs/CLAUDE-CODE.md; the vendored transcripts
in tests/fixtures/claude-code): a ``file-history-snapshot`` before each prompt, the prompt,
hook ``progress`` records on side chains, each API response split over one line per content
block sharing ``message.id`` (thinking, text, parallel ``tool_use``), each tool result
parented to its own part (the parallel-tool forks), a structured ``toolUseResult``,
``system`` turn durations, now and then an auto-compaction (``compact_boundary`` +
summary). Text comes from :class:`bench.gen.Corpus`, so a seed always gives the same bytes.
:func:`huge_claude_home` writes one ~100 MB session; :func:`many_claude_home` 10,000
sessions with the long-tailed size distribution measured on real homes (median 38 KB).
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import orjson

from bench.gen import Corpus, Ids, write_atomic

GEN_VERSION = 1
TEMPLATE_ID = "00000000-0000-4000-8000-000000000000"
_TOOLS = ("Read", "Bash", "Edit", "Grep", "Glob", "Write", "WebFetch")


def claude_records(session_id: str, target_bytes: int, seed: int, cwd: str = "/home/dev/proj"):
    """Yield Claude Code-shaped records (dicts) until about ``target_bytes`` are written."""
    rng = random.Random(seed)
    corpus = Corpus(seed)
    ids = Ids(rng)
    t = 1_767_225_600_000
    written = 0
    parent: str | None = None
    turn = 0

    def ts() -> str:
        nonlocal t
        t += rng.randrange(20, 3000)
        s, ms = divmod(t, 1000)
        import time as _time

        return _time.strftime("%Y-%m-%dT%H:%M:%S", _time.gmtime(s)) + f".{ms:03d}Z"

    def env(type_: str, parent_uuid: str | None, **kw) -> dict:
        d = {
            "parentUuid": parent_uuid,
            "isSidechain": False,
            "userType": "external",
            "cwd": cwd,
            "sessionId": session_id,
            "version": "2.1.114",
            "gitBranch": "main",
            "slug": "quiet-reading-otter",
            "type": type_,
        }
        d.update(kw)
        d["uuid"] = ids.uuid()
        d["timestamp"] = ts()
        return d

    def emit(rec: dict) -> dict:
        nonlocal written
        written += len(orjson.dumps(rec)) + 1
        return rec

    def progress(parent_uuid: str, event: str, tool_id: str) -> dict:
        data = {
            "type": "hook_progress",
            "hookEvent": event,
            "hookName": f"{event}:Bash",
            "command": "callback",
        }
        return env("progress", parent_uuid, data=data, parentToolUseID=tool_id, toolUseID=tool_id)

    while written < target_bytes:
        turn += 1
        prompt_uuid = ids.uuid()
        yield emit(
            {
                "type": "file-history-snapshot",
                "messageId": prompt_uuid,
                "snapshot": {"messageId": prompt_uuid, "trackedFileBackups": {}, "timestamp": ts()},
                "isSnapshotUpdate": False,
            }
        )
        prompt = env(
            "user", parent, message={"role": "user", "content": corpus.take(rng.randrange(40, 600))}
        )
        prompt["uuid"] = prompt_uuid
        prompt["promptId"] = ids.uuid()
        yield emit(prompt)
        parent = prompt_uuid
        for _ in range(rng.randrange(1, 7)):  # API calls in this turn
            msg_id = f"msg_{rng.getrandbits(96):024x}"
            usage = {"input_tokens": rng.randrange(1, 50), "output_tokens": rng.randrange(10, 900)}

            def part(block: dict, p: str | None, msg_id: str = msg_id, usage: dict = usage) -> dict:
                msg = {
                    "model": "claude-opus-4-5",
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "content": [block],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": usage,
                }
                return env("assistant", p, message=msg, requestId=f"req_{msg_id[4:]}")

            if rng.random() < 0.3:
                sig = corpus.take(120)
                rec = part(
                    {
                        "type": "thinking",
                        "thinking": corpus.take(rng.randrange(100, 1500)),
                        "signature": sig,
                    },
                    parent,
                )
                yield emit(rec)
                parent = rec["uuid"]
            if rng.random() < 0.6:
                rec = part({"type": "text", "text": corpus.take(rng.randrange(20, 800))}, parent)
                yield emit(rec)
                parent = rec["uuid"]
            n_tools = 1 if rng.random() < 0.7 else rng.randrange(2, 4)
            parts: list[tuple[str, str, str]] = []
            for _ in range(n_tools):
                tool_id = f"toolu_{rng.getrandbits(96):024x}"
                name = rng.choice(_TOOLS)
                inp = {
                    "command": corpus.take(rng.randrange(10, 200)),
                    "description": corpus.take(30),
                }
                rec = part({"type": "tool_use", "id": tool_id, "name": name, "input": inp}, parent)
                yield emit(rec)
                parent = rec["uuid"]
                parts.append((rec["uuid"], tool_id, name))
                for _ in range(rng.randrange(0, 3)):  # PreToolUse hooks: a side chain of progress
                    yield emit(progress(rec["uuid"], "PreToolUse", tool_id))
            for part_uuid, tool_id, _name in parts:  # each result hangs off its own part
                body = corpus.take(rng.randrange(100, 2500))
                rec = env(
                    "user",
                    part_uuid,
                    message={
                        "role": "user",
                        "content": [
                            {"tool_use_id": tool_id, "type": "tool_result", "content": body}
                        ],
                    },
                    toolUseResult={
                        "stdout": body,
                        "stderr": "",
                        "interrupted": False,
                        "isImage": False,
                    },
                    sourceToolAssistantUUID=part_uuid,
                )
                yield emit(rec)
                if rng.random() < 0.5:
                    yield emit(progress(rec["uuid"], "PostToolUse", tool_id))
                parent = rec["uuid"]
        rec = env(
            "assistant",
            parent,
            message={
                "model": "claude-opus-4-5",
                "id": f"msg_{rng.getrandbits(96):024x}",
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": corpus.take(rng.randrange(50, 1200))}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 3, "output_tokens": 200},
            },
        )
        yield emit(rec)
        parent = rec["uuid"]
        if rng.random() < 0.5:
            yield emit(
                env(
                    "system",
                    parent,
                    subtype="turn_duration",
                    durationMs=rng.randrange(1000, 90000),
                    isMeta=False,
                )
            )
        if turn % 300 == 0:  # an auto-compaction: a new root linked to the leaf it compacts
            b = env(
                "system",
                None,
                subtype="compact_boundary",
                content="Conversation compacted",
                isMeta=False,
                level="info",
                logicalParentUuid=parent,
                compactMetadata={"trigger": "auto", "preTokens": 167000},
            )
            yield emit(b)
            s = env(
                "user",
                b["uuid"],
                message={
                    "role": "user",
                    "content": "This session is being continued. " + corpus.take(3000),
                },
                isVisibleInTranscriptOnly=True,
                isCompactSummary=True,
            )
            yield emit(s)
            parent = s["uuid"]


def claude_session_bytes(session_id: str, target_bytes: int, seed: int) -> bytes:
    """One session's JSONL bytes (compact ``JSON.stringify`` form)."""
    dumps = orjson.dumps
    return b"".join(dumps(r) + b"\n" for r in claude_records(session_id, target_bytes, seed))


def huge_claude_home(root: Path, target_bytes: int, seed: int = 1) -> Path:
    """A Claude Code home with one session of about ``target_bytes``; cached by parameters.

    Returns:
        The transcript's path (its home is ``path.parents[2]``).
    """
    sid = "b16b16b1-0000-4000-8000-00000000b16b"
    path = root / "projects" / "-home-dev-proj" / f"{sid}.jsonl"
    stamp = root / f".done-v{GEN_VERSION}-{target_bytes}-{seed}"
    if not stamp.exists() or not path.exists():
        write_atomic(path, claude_session_bytes(sid, target_bytes, seed))
        stamp.write_text("ok")
    return path


#: Quantiles of real Claude Code transcript sizes (docs/CLAUDE-CODE.md §2.4: median 38 KB,
#: p90 1.1 MB, p99 4.5 MB, max ~52 MB over ~10k files; a 5 GB ``projects/`` seen).
SIZE_QUANTILES = (
    (0.0, 1_000),
    (0.5, 38_000),
    (0.9, 1_100_000),
    (0.99, 4_500_000),
    (1.0, 52_000_000),
)


def session_sizes(n: int, seed: int = 7) -> list[int]:
    """``n`` file sizes drawn from :data:`SIZE_QUANTILES` (log-linear between them); one
    file in twenty is zero bytes (sessions that wrote nothing, as on real homes)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        if rng.random() < 0.05:
            out.append(0)
            continue
        u = rng.random()
        for (a, x), (b, y) in zip(SIZE_QUANTILES, SIZE_QUANTILES[1:], strict=False):
            if u <= b:
                t = (u - a) / (b - a)
                out.append(int(math.exp(math.log(x) + t * (math.log(y) - math.log(x)))))
                break
    return out


def many_claude_home(root: Path, n_sessions: int, templates: int = 48) -> Path:
    """A Claude Code home of ``n_sessions`` transcripts in 40 project folders.

    Sizes follow :func:`session_sizes` (about 5 GB for 10,000 files). ``templates`` distinct
    sessions are generated at sizes spread over the drawn ones (log scale) and each file is
    the template closest to its size, with its own session id (same length, so sizes hold).
    Cached by parameters.
    """
    stamp = root / f".done-v{GEN_VERSION}-{n_sessions}-{templates}"
    if stamp.exists():
        return root
    sizes = session_sizes(n_sessions)
    drawn = sorted(s for s in sizes if s)
    lo, hi = math.log(drawn[0]), math.log(drawn[-1])
    picks = sorted(
        {int(math.exp(lo + (hi - lo) * k / max(1, templates - 1))) for k in range(templates)}
    )
    bodies = {p: claude_session_bytes(TEMPLATE_ID, p, 5000 + k) for k, p in enumerate(picks)}
    tmpl = TEMPLATE_ID.encode()
    for i, size in enumerate(sizes):
        sid = f"{i:08x}-0000-4000-8000-{i:012x}"
        folder = root / "projects" / f"-home-dev-proj{i % 40:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        data = b""
        if size:
            best = min(picks, key=lambda p: abs(math.log(p) - math.log(size)))
            data = bodies[best].replace(tmpl, sid.encode())
        with open(folder / f"{sid}.jsonl", "wb") as fh:
            fh.write(data)
    stamp.write_text("ok")
    return root

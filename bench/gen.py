"""A small deterministic generator of agent-shaped transcripts for the benchmarks.

Records follow the shapes sid-code writes (FORMAT.md §3, fixtures/real-home): a
``session_start``, then turns of prompt → assistant (thinking, text, parallel ``tool_use``)
→ ``file_changes`` metadata → one merged ``user_message`` of ``tool_result`` blocks → …
→ final assistant text → ``usage_stats`` / ``todo_state`` / ``hypothesis_ledger`` metadata,
chained by ``uuid``/``parentUuid``, ending with ``session_end``. Text comes from slices of a
seeded word corpus, so a seed always gives the same bytes. The huge session comes from the
demo's generator (``sidtui demo --huge``) when it is installed; the many ~76 KB sessions of
the ``ls`` benchmark come from here (the demo's ``--scale`` home follows the long-tail
size distribution of FORMAT.md §2.6 instead, p95 626 KB). Sizes match the reading goals' figures (≈ 100 MB / 142k
records, ≈ 76 KB per listed session).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import orjson

from bench.harness import SMOKE

GEN_VERSION = 1
_WORDS = (
    "the session file chain parent record tool result edit write read bash grep glob login "
    "form password rules validate token cache usage model stream buffer flush snapshot diff "
    "restore undo rewind branch fork resume interrupt prompt assistant thinking 工作 测试 "
    "函数 返回 错误 修复 src/login.ts README.md package.json const let return if else for "
    "while await async function class import export => {} [] () ; , . : ok done fixed"
).split()


class Corpus:
    """Seeded text: ``take(n)`` returns ~n characters of words."""

    def __init__(self, seed: int, size: int | None = None) -> None:
        if size is None:  # a smoke run's templates draw from 64 KiB (a 1 MiB corpus: 0.12 s each)
            size = 1 << 16 if SMOKE else 1 << 20
        rng = random.Random(seed)
        parts: list[str] = []
        n = 0
        while n < size:
            w = rng.choice(_WORDS)
            parts.append(w)
            n += len(w) + 1
        self.text = " ".join(parts)
        self.rng = rng

    def take(self, n: int) -> str:
        n = max(1, n)
        start = self.rng.randrange(0, len(self.text) - n - 1)
        return self.text[start : start + n]


class Ids:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def uuid(self) -> str:
        h = f"{self.rng.getrandbits(128):032x}"
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def session_records(session_id: str, n_records: int, seed: int, result_chars: int = 230):
    """Yield about ``n_records`` agent-shaped records (dicts) for one session.

    Args:
        session_id: written into ``session_start``.
        n_records: stop after the turn that reaches this many records (+ ``session_end``).
        seed: the random seed (same seed ⇒ same records).
        result_chars: typical size of one tool result's text (controls bytes per record).
    """
    rng = random.Random(seed)
    corpus = Corpus(seed)
    ids = Ids(rng)
    t = 1_767_225_600_000  # 2026-01-01T00:00:00Z in ms
    count = 0
    parent: str | None = None

    def ts() -> str:
        nonlocal t
        t += rng.randrange(50, 4000)
        s, ms = divmod(t, 1000)
        import time as _time

        return _time.strftime("%Y-%m-%dT%H:%M:%S", _time.gmtime(s)) + f".{ms:03d}Z"

    def emit(rec: dict) -> dict:
        nonlocal parent, count
        u = ids.uuid()
        out = {"type": rec.pop("type"), **rec, "uuid": u, "parentUuid": parent}
        parent = u
        count += 1
        return out

    yield emit(
        {
            "type": "session_start",
            "version": "3.0",
            "schemaCompat": 1,
            "sessionId": session_id,
            "model": "claude-sonnet-4",
            "provider": "anthropic",
            "cwd": "/home/dev/webapp",
            "timestamp": ts(),
        }
    )
    files: list[str] = []
    tool_n = 0
    while count < n_records:
        yield emit(
            {
                "type": "user_message",
                "message": {
                    "role": "user",
                    "content": [{"type": "text", "text": corpus.take(rng.randrange(30, 300))}],
                },
                "timestamp": ts(),
            }
        )
        for _ in range(rng.randrange(1, 5)):
            calls = []
            for _ in range(rng.choice((1, 1, 1, 2, 3))):
                tool_n += 1
                name = rng.choice(("read", "edit", "bash", "grep", "write"))
                path = f"/home/dev/webapp/src/{corpus.take(8).strip().replace(' ', '_')}.ts"
                calls.append((f"toolu_{tool_n:08d}", name, path))
            content = []
            if rng.random() < 0.5:
                content.append(
                    {
                        "type": "thinking",
                        "thinking": corpus.take(rng.randrange(60, 360)),
                        "signature": "sig" + ids.uuid(),
                    }
                )
            content.append({"type": "text", "text": corpus.take(rng.randrange(20, 200))})
            for cid, name, path in calls:
                content.append(
                    {
                        "type": "tool_use",
                        "id": cid,
                        "name": name,
                        "input": {
                            "file_path": path,
                            "old_string": corpus.take(40),
                            "new_string": corpus.take(40),
                        },
                    }
                )
            yield emit(
                {
                    "type": "assistant_message",
                    "message": {"role": "assistant", "content": content},
                    "timestamp": ts(),
                    "usage": {
                        "inputTokens": rng.randrange(1000, 90000),
                        "outputTokens": rng.randrange(10, 4000),
                        "cacheReadInputTokens": rng.randrange(0, 80000),
                        "cacheCreationInputTokens": rng.randrange(0, 5000),
                    },
                    "model": "claude-sonnet-4",
                    "stopReason": "tool_use",
                    "msgId": "msg_" + ids.uuid(),
                }
            )
            edits = [p for _, n, p in calls if n in ("edit", "write")]
            if edits:
                files.extend(p for p in edits if p not in files)
                yield emit(
                    {
                        "type": "metadata",
                        "key": "file_changes",
                        "value": {"files": files[-20:], "lastTool": "edit", "count": len(files)},
                        "timestamp": ts(),
                    }
                )
            yield emit(
                {
                    "type": "user_message",
                    "message": {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": cid,
                                "content": corpus.take(
                                    rng.randrange(result_chars // 4, result_chars * 2)
                                ),
                            }
                            for cid, _, _ in calls
                        ],
                    },
                    "timestamp": ts(),
                }
            )
        yield emit(
            {
                "type": "assistant_message",
                "message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": corpus.take(rng.randrange(60, 500))}],
                },
                "timestamp": ts(),
                "usage": {
                    "inputTokens": rng.randrange(1000, 90000),
                    "outputTokens": rng.randrange(10, 4000),
                },
                "model": "claude-sonnet-4",
                "stopReason": "end_turn",
                "msgId": "msg_" + ids.uuid(),
            }
        )
        yield emit(
            {
                "type": "metadata",
                "key": "usage_stats",
                "value": {
                    "totalCostUSD": rng.random(),
                    "modelUsage": {
                        "claude-sonnet-4": {
                            "inputTokens": rng.randrange(1, 9**6),
                            "stockPromptTokens": rng.randrange(1, 9**6),
                            "cumulativePromptTokens": rng.randrange(1, 9**7),
                            "cacheReadInputTokens": rng.randrange(1, 9**7),
                            "requests": count,
                            "costUSD": rng.random(),
                        }
                    },
                },
                "timestamp": ts(),
            }
        )
        yield emit(
            {
                "type": "metadata",
                "key": "todo_state",
                "value": {"todos": [{"content": corpus.take(40), "status": "completed"}]},
                "timestamp": ts(),
            }
        )
    yield emit(
        {
            "type": "session_end",
            "totalCostUSD": rng.random(),
            "totalMessages": count,
            "timestamp": ts(),
        }
    )


def session_bytes(session_id: str, n_records: int, seed: int, result_chars: int = 230) -> bytes:
    """One session's JSONL bytes (``JSON.stringify`` compact form, non-ASCII kept)."""
    dumps = orjson.dumps
    return b"".join(
        dumps(r) + b"\n" for r in session_records(session_id, n_records, seed, result_chars)
    )


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temp file in the same folder and ``os.replace``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def huge_home(root: Path, n_records: int, seed: int = 1) -> Path:
    """A home with one big session of about ``n_records`` records; cached by parameters.

    Uses the demo's generator (:func:`sidtui.demo.scale.write_huge_session`, the data
    ``sidtui demo --huge`` writes: 100 MiB ≈ 142k records) when it exists, else
    :func:`session_bytes`.

    Returns:
        The session file's path (its home is ``path.parents[2]``).
    """
    try:
        from sidtui.demo.scale import huge_session_path, write_huge_session
    except ImportError:
        sid = "20260101-000000-b16b16b1"
        path = root / "sessions" / "bench-huge" / f"{sid}.jsonl"
        stamp = root / f".done-v{GEN_VERSION}-{n_records}-{seed}"
        if not stamp.exists() or not path.exists():
            write_atomic(path, session_bytes(sid, n_records, seed))
            stamp.write_text("ok")
        return path
    sub = root / f"demo-{n_records}-{seed}"  # one home per parameter set (same file name)
    path = huge_session_path(sub, seed)
    stamp = sub / f".done-demo-v{GEN_VERSION}"
    if not stamp.exists() or not path.exists():
        target = n_records * (100 * 1024 * 1024) // 142_000
        tmp_dir = sub / f".tmp-{os.getpid()}"
        tmp = tmp_dir / path.name  # the file's stem is its session id
        write_huge_session(tmp, target, seed)
        path.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp, path)
        tmp_dir.rmdir()
        stamp.write_text("ok")
    return path


def many_home(root: Path, n_sessions: int, n_records: int = 100, templates: int = 32) -> Path:
    """A home with ``n_sessions`` sessions of ~``n_records`` records (~76 KB) each.

    ``templates`` distinct sessions are generated and each file is one of them with its own
    session id (ids have the same length, so sizes are unchanged). Cached by parameters.
    """
    stamp = root / f".done-v{GEN_VERSION}-{n_sessions}-{n_records}-{templates}"
    if stamp.exists():
        return root
    tmpl_id = "20260101-000000-00000000"
    bodies = [session_bytes(tmpl_id, n_records, 1000 + k, 300) for k in range(templates)]
    for i in range(n_sessions):
        sid = f"20260101-{i // 1000:06d}-{i:08x}"
        folder = root / "sessions" / f"bench-proj-{i % 20:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        data = bodies[i % templates].replace(tmpl_id.encode(), sid.encode(), 1)
        with open(folder / f"{sid}.jsonl", "wb") as fh:
            fh.write(data)
    stamp.write_text("ok")
    return root

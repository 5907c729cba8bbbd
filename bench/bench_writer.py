"""Writer benchmark: the buffered path costs ≤ 2× encoding + one write.

100,000 records (20,000 with ``quick``) are appended through :class:`SessionStore`'s
buffered path (queue per file, one ``write`` per 100 ms flush, plus the final flush),
against the floor: encoding the same records with the same encoder
(:func:`sidtui.core.base.jsonout.stringify`, uuids and timestamps already in place) and one
``write`` of all their bytes. The synchronous path (one ``appendFileSync``-style write per
record, as ``session_start``/``session_end`` are written) is reported beside it.

``run(quick) -> list[dict]`` with keys ``name, value_s, baseline_s, ratio, target, passed``.
Run directly: ``.venv/bin/python bench/bench_writer.py [--quick]``.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from sidtui.core.base.jsonout import stringify
from sidtui.core.transcript.writer import SessionStore, flush_pending_writes, iso_now, new_uuid

SID = "20261130-000000-be0cbe0c"


def _messages(n: int) -> list[dict]:
    """Realistic small records: alternating prompts/tool results and assistant replies."""
    out = []
    for i in range(n):
        if i % 2:
            out.append(
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": f"Step {i}: editing the login form — 工作 ok."},
                        {
                            "type": "tool_use",
                            "id": f"toolu_{i:08d}",
                            "name": "edit",
                            "input": {
                                "file_path": "/w/src/login.ts",
                                "old_string": "a",
                                "new_string": "b",
                            },
                        },
                    ],
                }
            )
        else:
            out.append(
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": f"toolu_{i:08d}",
                            "content": "文件已编辑: /w/src/login.ts（替换了 1 处）",
                        }
                    ],
                }
            )
    return out


def _buffered(msgs: list[dict], folder: Path) -> None:
    path = folder / f"{SID}.jsonl"
    if path.exists():
        path.unlink()
    store = SessionStore(folder)
    store.start_session(SID, "m", "anthropic", "/w")
    for m in msgs:
        store.append_message(m)
    store.flush()


def _synchronous(msgs: list[dict], folder: Path) -> None:
    """The critical-record path for every record: stamp, encode, one O_APPEND write each."""
    from sidtui.core.transcript import writer as w

    path = os.fspath(folder / f"{SID}-sync.jsonl")
    if os.path.exists(path):
        os.unlink(path)
    parent = new_uuid()
    for m in msgs:
        u = new_uuid()
        t = "assistant_message" if m["role"] == "assistant" else "user_message"
        rec = {"type": t, "message": m, "timestamp": iso_now(), "uuid": u, "parentUuid": parent}
        w._write_critical(path, stringify(rec) + b"\n")
        parent = u


def _records(msgs: list[dict]) -> list[dict]:
    """The same records as the store writes them, uuid/parent/timestamp in place."""
    ts = iso_now()
    recs = []
    parent = new_uuid()
    for m in msgs:
        u = new_uuid()
        t = "assistant_message" if m["role"] == "assistant" else "user_message"
        recs.append({"type": t, "message": m, "timestamp": ts, "uuid": u, "parentUuid": parent})
        parent = u
    return recs


def _floor(recs: list[dict], folder: Path) -> None:
    path = folder / "floor.jsonl"
    if path.exists():
        path.unlink()
    data = b"".join([stringify(r) + b"\n" for r in recs])
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def run(quick: bool = False) -> list[dict]:
    from bench.harness import row, side_by_side, sized

    n = sized(quick, 100_000, 20_000)
    repeat = sized(quick, 5, 3)
    msgs = _messages(n)
    recs = _records(msgs)
    tenth = msgs[: n // 10]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        runs = side_by_side(
            {
                "floor": lambda: _floor(recs, folder),
                "buffered": lambda: _buffered(msgs, folder),
                "sync": lambda: _synchronous(tenth, folder),
            },
            repeat,
        )
        flush_pending_writes()
    sync_runs = [t * 10 for t in runs["sync"]]
    return [
        row(
            f"writer: {n:,} records, buffered path vs encode + one write",
            runs["buffered"],
            runs["floor"],
            2.0,
            extra="SessionStore.append_message per record, 100 ms flushes, final flush",
        ),
        row(
            f"writer: {n:,} records, synchronous path (one write per record)",
            sync_runs,
            runs["floor"],
            None,
            extra="critical-record path for every record; measured on a tenth, ×10",
        ),
    ]


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    for r in run("--quick" in sys.argv):
        print(
            f"{r['name']}: {r['value_s']:.3f} s vs {r['baseline_s']:.3f} s "
            f"= {r['ratio']:.2f}× (target {r['target']}: "
            f"{'ok' if r['passed'] else 'FAIL' if r['passed'] is False else 'info'})"
        )

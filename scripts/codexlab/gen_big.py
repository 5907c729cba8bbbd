"""A big rollout for the side-by-side timing of docs/CODEX.md §11 (a development tool).

    python3 scripts/codexlab/gen_big.py SOURCE.jsonl OUT_HOME SIZE_BYTES

Repeats SOURCE's turns (``task_started`` … ``task_complete``) with fresh ids and ordinals,
and tool outputs padded to 4 KB, until the file is SIZE_BYTES; writes it as a rollout in
OUT_HOME/sessions/2026/01/01/ under a new session id (prints it).
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path


def main(argv: list[str]) -> int:
    src, home, size = Path(argv[0]), Path(argv[1]), int(argv[2])
    recs = [json.loads(x) for x in src.read_text().splitlines() if x.strip()]
    starts = [i for i, r in enumerate(recs) if r["payload"].get("type") == "task_started"]
    head, turn = recs[: starts[0]], recs[starts[0] : starts[1] if len(starts) > 1 else len(recs)]
    sid = str(uuid.UUID(int=uuid.uuid4().int & ~(0xF << 76) | (0x7 << 76)))
    head[0]["payload"]["id"] = head[0]["payload"]["session_id"] = sid
    pad = "x" * 4000
    folder = home / "sessions" / "2026" / "01" / "01"
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"rollout-2026-01-01T00-00-00-{sid}.jsonl"
    n = 0
    with out.open("w") as f:
        for r in head:
            r["ordinal"] = n
            n += 1
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
        k = 0
        while f.tell() < size:
            k += 1
            for r in turn:
                r = json.loads(json.dumps(r))
                p = r["payload"]
                if "call_id" in p:
                    p["call_id"] = f"{p['call_id']}_{k}"
                if isinstance(p.get("id"), str):
                    p["id"] = f"{p['id']}_{k}"
                if p.get("type") == "function_call_output":
                    p["output"] = p["output"] + pad
                if p.get("type") == "token_count":
                    continue
                r["ordinal"] = n
                n += 1
                f.write(json.dumps(r, separators=(",", ":")) + "\n")
    print(sid, out, out.stat().st_size, n, "records")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

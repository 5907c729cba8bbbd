"""A local stand-in for the OpenAI Responses API, driven by a script of model turns.

Development tool for the Codex lab (scripts/codexlab/lab.py); the test suite never runs it.

    python3 fakeresponses.py --port 0 --script turns.json --log DIR

``turns.json`` is a list; each request to ``POST /v1/responses`` takes the next entry, a
dict with ``output``: a list of output items (``{"text": "..."}``, ``{"reasoning": "..."}``,
``{"call": "shell_command", "args": {...}}``, ``{"custom": "apply_patch", "input": "..."}``),
optional ``usage`` (input/cached/output/reasoning token counts) and ``hang: true`` (send
``response.created`` and the first item's deltas, then stall until the client goes away:
the lab kills Codex there). Every request body is written to ``DIR/request-NNN.json``; the
port is written to ``DIR/port`` once listening.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class State:
    def __init__(self, script: list[dict], log: Path) -> None:
        self.script = script
        self.log = log
        self.n = 0
        self.lock = threading.Lock()

    def next(self, body: bytes) -> tuple[int, dict]:
        with self.lock:
            self.n += 1
            n = self.n
            (self.log / f"request-{n:03d}.json").write_bytes(body)
            turn = (
                self.script[n - 1]
                if n - 1 < len(self.script)
                else {"output": [{"text": "(script ended)"}]}
            )
            return n, turn


def _item(spec: dict, n: int, i: int) -> dict:
    iid = f"{n:03d}_{i}"
    if "text" in spec:
        return {
            "type": "message",
            "id": f"msg_{iid}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": spec["text"], "annotations": []}],
        }
    if "reasoning" in spec:
        return {
            "type": "reasoning",
            "id": f"rs_{iid}",
            "summary": [{"type": "summary_text", "text": spec["reasoning"]}],
            "encrypted_content": spec.get("encrypted", f"enc-{iid}"),
        }
    if "call" in spec:
        return {
            "type": "function_call",
            "id": f"fc_{iid}",
            "call_id": f"call_{iid}",
            "name": spec["call"],
            "arguments": json.dumps(spec["args"]),
            "status": "completed",
        }
    if "custom" in spec:
        return {
            "type": "custom_tool_call",
            "id": f"ctc_{iid}",
            "call_id": f"call_{iid}",
            "name": spec["custom"],
            "input": spec["input"],
            "status": "completed",
        }
    raise ValueError(f"unknown output spec: {spec}")


class Handler(BaseHTTPRequestHandler):
    state: State

    def log_message(self, *args: object) -> None:
        pass

    def _json(self, code: int, obj: object) -> None:
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.split("?")[0].endswith("/models"):
            self._json(200, {"object": "list", "data": [], "models": []})
        else:
            self._json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length)
        if not self.path.split("?")[0].endswith("/responses"):
            self._json(404, {"error": {"message": "not found"}})
            return
        n, turn = self.state.next(body)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.end_headers()
        rid = f"resp_{n:03d}"

        def ev(kind: str, **fields: object) -> None:
            payload = {"type": kind, **fields}
            self.wfile.write(f"event: {kind}\ndata: {json.dumps(payload)}\n\n".encode())
            self.wfile.flush()

        ev("response.created", response={"id": rid, "status": "in_progress", "output": []})
        items = [_item(s, n, i) for i, s in enumerate(turn.get("output", []))]
        for idx, item in enumerate(items):
            ev(
                "response.output_item.added",
                output_index=idx,
                item={**item, "status": "in_progress"},
            )
            if item["type"] == "message":
                text = item["content"][0]["text"]
                for k in range(0, len(text), 16):
                    ev(
                        "response.output_text.delta",
                        item_id=item["id"],
                        output_index=idx,
                        content_index=0,
                        delta=text[k : k + 16],
                    )
            if turn.get("hang"):
                (self.state.log / f"hang-{n:03d}").write_text("")
                try:
                    while True:
                        time.sleep(0.2)
                        self.wfile.write(b": keepalive\n\n")
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    return
            ev("response.output_item.done", output_index=idx, item=item)
        u = turn.get("usage", {})
        inp, cached = u.get("input", 1000 + 100 * n), u.get("cached", 500)
        out, rsn = u.get("output", 50 + n), u.get("reasoning", 10)
        usage = {
            "input_tokens": inp,
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": out,
            "output_tokens_details": {"reasoning_tokens": rsn},
            "total_tokens": inp + out,
        }
        ev(
            "response.completed",
            response={"id": rid, "status": "completed", "output": items, "usage": usage},
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--script", required=True)
    ap.add_argument("--log", required=True)
    a = ap.parse_args()
    log = Path(a.log)
    log.mkdir(parents=True, exist_ok=True)
    Handler.state = State(json.loads(Path(a.script).read_text()), log)
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    (log / "port").write_text(str(srv.server_address[1]))
    srv.serve_forever()


if __name__ == "__main__":
    main()

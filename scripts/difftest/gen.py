"""Transcripts the way real files happen, from a seed: deterministic per ``(seed, index)``.

A case starts from a *base*: one of the fixture sessions (tests/fixtures/real-home, written
by the agent's own code) or a session written here by sidtui's own writer
(:class:`~sidtui.core.transcript.writer.SessionStore` /
:class:`~sidtui.core.transcript.writer.SidechainWriter`,
whose lines are what ``JSON.stringify`` writes) acting out one of the ways a session file
grows: one process, a resume, a resume glued onto a torn line, two concurrent writers,
two processes hanging records on one tail, a fork, a reused session id, sidtui's rewind
and branch-switch markers, a sub-agent. Then 0–3 *damages* are applied to the bytes
(:data:`DAMAGES`): crashes mid-write, hand edits, editors' byte-order marks, CRLF and
whitespace, odd records and messages, deep nesting, glued lines; and some cases are grown
to a size on either side of the agent's 4 MiB streaming threshold (:func:`grow`).
"""

from __future__ import annotations

import random
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from sidtui.core.base.jsonout import stringify

REPO = Path(__file__).resolve().parents[2]
FIXTURE_SESSIONS = REPO / "tests" / "fixtures" / "real-home" / "sessions"

#: The agent reads files above this many bytes through its streaming reader (found by
#: experiment with the oracle: 4,194,304 bytes still read whole, 4,194,305 streamed).
STREAM_ABOVE = 4 << 20


@dataclass
class Case:
    """One generated transcript.

    Attributes:
        seed, index: what regenerates it (:func:`make_case`).
        filename: its file name (a session id, or ``<parent>-<agent>`` for a sidechain).
        data: its bytes.
        tags: the base, then each damage, in order (the report groups by them).
        damages: ``(position, label)`` of each damage applied (``-1``: the growth).
        pad: ``(offset, length)`` of the filler :func:`grow` inserted, or None.
    """

    seed: int
    index: int
    filename: str
    data: bytes
    tags: list[str] = field(default_factory=list)
    pad: tuple[int, int] | None = None
    damages: list[tuple[int, str]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"s{self.seed}-{self.index:05d}"

    @property
    def core(self) -> bytes:
        """The bytes without :func:`grow`'s filler (what a vendored big case stores)."""
        if self.pad is None:
            return self.data
        at, n = self.pad
        return self.data[:at] + self.data[at + n :]


# --------------------------------------------------------------------------- words

_WORDS = (
    "read the file",
    "fix the failing test",
    "ok",
    "Done.",
    "修改配置文件",
    "日本語のテキスト",
    "emoji 🎉 ok",
    "tab\there",
    "two\nlines",
    'quote " and backslash \\',
    "café",
    "a long explanation of what changed and why it matters for the build",
    "control \x01 char",
    "lone surrogate \ud800 kept",
    "line separator \u2028 inside",
    "paragraph separator \u2029 inside",
    "nbsp\u00a0space",
)
_RARE_WORDS = {"control \x01 char", "lone surrogate \ud800 kept"}
_SEPARATOR_WORDS = {"line separator \u2028 inside", "paragraph separator \u2029 inside"}
_TOOLS = ("read", "edit", "write", "bash", "grep", "todo_write", "sub_agent")


def _text(rng: random.Random, sep: bool = False) -> str:
    w = rng.choice(_WORDS)
    if w in _RARE_WORDS and rng.random() < 0.7:
        w = "plain text"
    if w in _SEPARATOR_WORDS and not sep and rng.random() < 0.8:
        w = "no separator"
    return w if rng.random() < 0.6 else f"{w} {rng.choice(_WORDS[:6])}"


class Ids:
    """Deterministic uuids and clock for one case."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.ms = 1_796_000_000_000 + rng.randrange(10**9)

    def uuid(self) -> str:
        h = f"{self.rng.getrandbits(128):032x}"
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:]}"

    def clock(self) -> str:
        from sidtui.core.transcript.writer import iso_now

        self.ms += self.rng.randrange(1, 5000)
        return iso_now(self.ms)

    def session_id(self) -> str:
        r = self.rng
        return f"2026{r.randrange(101, 1231):04d}-{r.randrange(240000):06d}-{r.getrandbits(32):08x}"

    def agent_id(self) -> str:
        return "a" + "".join(
            self.rng.choice("0123456789abcdefghijklmnopqrstuvwxyz") for _ in range(8)
        )


# --------------------------------------------------------------------------- writing sessions


class _Writer:
    """A process of the agent writing one session (sidtui's SessionStore underneath)."""

    def __init__(self, folder: Path, ids: Ids, rng: random.Random) -> None:
        from sidtui.core.transcript.writer import SessionStore

        self.rng = rng
        self.ids = ids
        self.store = SessionStore(
            folder, flush_interval=3600, clock=ids.clock, uuid_factory=ids.uuid
        )
        self.prompts: list[tuple[str, str | None]] = []  # (prompt uuid, its parent)
        self.uuids: list[str] = []

    def _put(self, uuid: str) -> str:
        self.uuids.append(uuid)
        return uuid

    def user(self, text: str | None = None, first: bool = False) -> str:
        rng = self.rng
        parent = self.store.last_uuid
        u = self.store.append_message(
            {"role": "user", "content": [{"type": "text", "text": text or _text(rng)}]},
            cwd="/tmp/proj" if first or rng.random() < 0.1 else None,
            permission_mode=rng.choice(("default", "default", "acceptEdits", "plan", "yolo"))
            if first or rng.random() < 0.1
            else None,
            git_branch="main" if rng.random() < 0.2 else None,
        )
        self.prompts.append((u, parent))
        return self._put(u)

    def assistant(
        self, tools: list[tuple[str, str]] = (), thinking: bool = False, text: bool = True
    ):  # type: ignore[assignment]
        rng = self.rng
        content: list[dict[str, Any]] = []
        if thinking:
            content.append({"type": "thinking", "thinking": _text(rng), "signature": "sig"})
        if text:
            content.append({"type": "text", "text": _text(rng, sep=True)})
        for tid, name in tools:
            content.append(
                {
                    "type": "tool_use",
                    "id": tid,
                    "name": name,
                    "input": {"file_path": "/tmp/proj/a.py"},
                }
            )
        return self._put(
            self.store.append_message(
                {"role": "assistant", "content": content},
                usage={"inputTokens": rng.randrange(5000), "outputTokens": rng.randrange(900)},
                model="m",
                stop_reason="tool_use" if tools else "end_turn",
                msg_id=self.ids.uuid(),
            )
        )

    def results(self, tools: list[tuple[str, str]], errors: bool = False) -> str:
        rng = self.rng
        return self._put(
            self.store.append_message(
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": tid,
                            "content": _text(rng, sep=True),
                            **({"is_error": True} if errors and rng.random() < 0.5 else {}),
                        }
                        for tid, _ in tools
                    ],
                }
            )
        )

    def metadata(self, key: str | None = None) -> str:
        rng = self.rng
        key = key or rng.choice(("usage_stats", "file_changes", "todo_state", "session_name"))
        value: Any = {
            "usage_stats": {"totalCostUSD": rng.random(), "requests": rng.randrange(9)},
            "file_changes": {"files": ["/tmp/proj/a.py"], "count": rng.randrange(5)},
            "todo_state": {"todos": []},
            "session_name": _text(rng),
        }.get(key, _text(rng))
        return self._put(self.store.append_metadata(key, value))

    def turn(self, ending: str = "done", first: bool = False) -> None:
        """One user turn: prompt, tool rounds, answer. ``ending`` stops it early:
        ``prompt`` (no reply), ``tools`` (results written, no answer), ``orphan`` (tool_use
        written, results lost), ``thinking`` (only thinking reached disk)."""
        rng = self.rng
        self.user(first=first)
        if ending == "prompt":
            return
        if ending == "thinking":
            self.assistant(thinking=True, text=False)
            return
        for r in range(rng.choice((0, 1, 1, 2, 3))):
            tools = [
                (f"call_{self.ids.uuid()[:12]}", rng.choice(_TOOLS))
                for _ in range(rng.choice((1, 1, 2, 3)))
            ]
            self.assistant(tools, thinking=rng.random() < 0.3, text=rng.random() < 0.8)
            if rng.random() < 0.3:
                self.metadata("file_changes")
            if ending == "orphan" and r == 0:
                return
            self.results(tools, errors=rng.random() < 0.2)
        if ending in ("tools", "orphan"):
            tools = [(f"call_{self.ids.uuid()[:12]}", rng.choice(_TOOLS))]
            self.assistant(tools)
            if ending == "tools":
                self.results(tools)
            return
        self.assistant(thinking=rng.random() < 0.2)
        if rng.random() < 0.3:
            self.metadata()

    def flush(self) -> None:
        self.store.flush()


def _endings(rng: random.Random) -> str:
    return rng.choice(("done",) * 6 + ("prompt", "tools", "orphan", "thinking"))


def _conversation(w: _Writer, rng: random.Random, first: bool = True) -> None:
    n = rng.choice((1, 1, 2, 3, 4, 6))
    for t in range(n):
        w.turn(_endings(rng) if t == n - 1 else "done", first=first and t == 0)
        if rng.random() < 0.05:
            w.store.append_compact(_text(rng), rng.randrange(1, 20))


def _start(folder: Path, ids: Ids, rng: random.Random, sid: str | None = None) -> _Writer:
    w = _Writer(folder, ids, rng)
    w.store.start_session(sid or ids.session_id(), "m", "p", "/tmp/proj")
    return w


def _end(w: _Writer, rng: random.Random) -> None:
    if rng.random() < 0.6:
        w.store.end_session(rng.random(), len(w.uuids))
    w.flush()


def _resume(folder: Path, path: Path, ids: Ids, rng: random.Random) -> _Writer:
    w = _Writer(folder, ids, rng)
    w.store.resume(path)
    w.metadata("trace_session_id")
    return w


def _glue_resume(folder: Path, path: Path, ids: Ids, rng: random.Random) -> _Writer:
    """The agent's resume of a torn file: no newline first, its record glued on."""
    from sidtui.core.transcript import writer

    w = _Writer(folder, ids, rng)
    w.store.resume(path)
    with writer._lock:
        writer._torn.discard(str(path))  # sidtui ends a torn line first; the agent does not
    w.metadata("trace_session_id")
    return w


def base_session(kind: str, folder: Path, rng: random.Random) -> Path:
    """Write one session of ``kind`` (see :data:`BASES`) into ``folder``; its path."""
    ids = Ids(rng)
    if kind == "sidechain":
        from sidtui.core.transcript.writer import SidechainWriter

        sw = SidechainWriter(folder, ids.session_id(), ids.agent_id(), clock=ids.clock)
        sw.start(rng.choice(("Explore", "general-purpose")), _text(rng), "m")
        for turn in range(1, rng.choice((1, 2, 3)) + 1):
            sw.message("user", [{"type": "text", "text": _text(rng)}], turn)
            tid = f"call_{ids.uuid()[:12]}"
            sw.message(
                "assistant",
                [
                    {"type": "text", "text": _text(rng)},
                    {"type": "tool_use", "id": tid, "name": "read", "input": {}},
                ],
                turn,
            )
            sw.message(
                "user", [{"type": "tool_result", "tool_use_id": tid, "content": _text(rng)}], turn
            )
            sw.message("assistant", [{"type": "text", "text": _text(rng)}], turn)
        if rng.random() < 0.7:
            sw.end(rng.choice(("completed", "failed", "aborted")))
        return sw.path
    w = _start(folder, ids, rng)
    path = w.store.path
    assert path is not None
    if kind == "fork":
        src_id = ids.session_id()
        w.store.start_session(
            w.store.session_id or "x", "m", "p", "/tmp/proj", forked_from_session_id=src_id
        )
        w.metadata("forked_from")
    _conversation(w, rng)
    _end(w, rng)
    if kind == "single" or kind == "fork":
        return path
    if kind in ("resume", "resume_glued"):
        if kind == "resume_glued":
            data = path.read_bytes()
            path.write_bytes(data[: len(data) - rng.randrange(2, max(3, min(len(data), 200)))])
            w2 = _glue_resume(folder, path, ids, rng)
        else:
            w2 = _resume(folder, path, ids, rng)
        _conversation(w2, rng, first=True)
        _end(w2, rng)
        return path
    if kind in ("concurrent", "same_tail"):
        a = _resume(folder, path, ids, rng)
        b = _Writer(folder, ids, rng)
        b.store.resume(path)
        if kind == "same_tail":
            b.store.last_uuid = a.store.last_uuid  # both hang on one record
        else:
            b.metadata("trace_session_id")
        for _ in range(rng.randrange(2, 12)):
            who = a if rng.random() < 0.5 else b
            who.turn(
                "done"
            ) if rng.random() < 0.3 else who.user() if rng.random() < 0.5 else who.assistant()
            who.flush()
        _end(rng.choice((a, b)), rng)
        return path
    if kind == "reuse_id":
        w2 = _start(folder, ids, rng, sid=w.store.session_id)
        _conversation(w2, rng)
        _end(w2, rng)
        return path
    if kind in ("rewind", "branch_switch"):
        w2 = _Writer(folder, ids, rng)
        w2.store.resume(path)
        if kind == "rewind" and w.prompts:
            target, parent = rng.choice(w.prompts)
            w2.store.last_uuid = parent
            w2.metadata("rewind")
        elif w.uuids:
            w2.store.last_uuid = rng.choice(w.uuids)
            w2.metadata("branch_switch")
        w2.flush()
        if rng.random() < 0.6:  # the agent resumes from the marker
            w3 = _resume(folder, path, ids, rng)
            _conversation(w3, rng)
            _end(w3, rng)
        return path
    raise ValueError(kind)


BASES = {
    "fixture": 20,
    "single": 22,
    "resume": 10,
    "resume_glued": 3,
    "concurrent": 6,
    "same_tail": 4,
    "fork": 5,
    "reuse_id": 3,
    "rewind": 5,
    "branch_switch": 3,
    "sidechain": 8,
}


def _fixtures() -> list[Path]:
    return sorted(
        p for p in FIXTURE_SESSIONS.rglob("*.json*") if "summaries" not in p.parts and p.is_file()
    )


# --------------------------------------------------------------------------- damages

Lines = list[bytes]


def _lines(data: bytes) -> tuple[Lines, bool]:
    """``data`` as lines without ``\\n`` and whether it ended with one."""
    if not data:
        return [], True
    nl = data.endswith(b"\n")
    parts = data.split(b"\n")
    if nl:
        parts.pop()
    return parts, nl


def _join(lines: Lines, nl: bool) -> bytes:
    if not lines:
        return b""
    return b"\n".join(lines) + (b"\n" if nl else b"")


def _pos(rng: random.Random, n: int, end_bias: float = 0.3) -> int:
    """A line position in ``0..n`` (n = after the last), the end more often."""
    if n == 0 or rng.random() < end_bias:
        return n
    return rng.randrange(n + 1)


def cut_tail(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """A crash mid-write: the file ends inside its last line (or just before its ``\\n``)."""
    if len(data) < 2:
        return data, "cut_tail(none)"
    end = len(data) - 1 if data.endswith(b"\n") else len(data)
    start = data.rfind(b"\n", 0, end) + 1
    at = rng.randrange(start, end + 1) if end > start else end
    return data[:at], f"cut_tail(-{len(data) - at})"


def cut_any(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    if not data:
        return data, "cut_any(none)"
    at = rng.randrange(1, len(data) + 1)
    return data[:at], "cut_any"


def nul_tail(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """A power loss: the last block is zeros (a file system that extends before it writes)."""
    n = rng.randrange(1, 200)
    keep = max(0, len(data) - rng.randrange(0, 100))
    return data[:keep] + b"\x00" * n + (b"\n" if rng.random() < 0.3 else b""), "nul_tail"


def del_lines(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    lines, nl = _lines(data)
    if len(lines) < 2:
        return data, "del_lines(none)"
    k = rng.choice((1, 1, 2))
    for _ in range(k):
        if len(lines) > 1:
            del lines[rng.randrange(len(lines))]
    return _join(lines, nl), f"del_lines({k})"


def dup_line(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    lines, nl = _lines(data)
    if not lines:
        return data, "dup_line(none)"
    i = rng.randrange(len(lines))
    where = rng.choice(("next", "end"))
    lines.insert(i + 1 if where == "next" else len(lines), lines[i])
    return _join(lines, nl), f"dup_line({where})"


def move_line(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    lines, nl = _lines(data)
    if len(lines) < 3:
        return data, "move_line(none)"
    i = rng.randrange(len(lines))
    line = lines.pop(i)
    lines.insert(rng.randrange(len(lines) + 1), line)
    return _join(lines, nl), "move_line"


def bom(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    return b"\xef\xbb\xbf" + data, "bom"


def crlf(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    if rng.random() < 0.7:
        return data.replace(b"\n", b"\r\n"), "crlf"
    lines, nl = _lines(data)
    out = [ln + (b"\r" if rng.random() < 0.5 else b"") for ln in lines]
    return _join(out, nl), "crlf(some)"


def lone_cr(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """An old-Mac line end, or a stray ``\\r`` an editor left between two records."""
    idx = [i for i in range(len(data)) if data[i] == 10]
    if not idx:
        return data + b"\r", "lone_cr(end)"
    i = rng.choice(idx)
    if rng.random() < 0.5:
        return data[:i] + b"\r" + data[i + 1 :], "lone_cr(replace)"
    return data[:i] + b"\r" + data[i:], "lone_cr(before_nl)"


_WS = (
    b" ",
    b"  ",
    b"\t",
    b"\xc2\xa0",
    b"\xe3\x80\x80",
    b"\xef\xbb\xbf",
    b"\x0b",
    b"\x0c",
    b"\xe2\x80\xa8",
)


def trailing_ws(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    lines, nl = _lines(data)
    if not lines:
        return data, "trailing_ws(none)"
    ws = rng.choice(_WS)
    which = rng.choice(("last", "some"))
    if which == "last":
        lines[-1] += ws
    else:
        lines = [ln + ws if rng.random() < 0.3 else ln for ln in lines]
    return _join(lines, nl), f"trailing_ws({which},{ws!r})"


def eof_ws(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    ws = rng.choice((b"\n", b"\n\n", b" ", b"\r\n", b"\t\n", *_WS))
    return data + ws, f"eof_ws({ws!r})"


def lead_ws(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    ws = rng.choice((b"\n", b" ", b"\n\n", b"\r\n", b" \n", b"\t", *_WS))
    return ws + data, f"lead_ws({ws!r})"


def blank_lines(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    lines, nl = _lines(data)
    k = rng.choice((1, 1, 2, 3))
    for _ in range(k):
        blank = rng.choice(
            (b"", b"", b"   ", b"\t", b"\r", b"\xc2\xa0", b"\xef\xbb\xbf", b"\xe2\x80\xa8")
        )
        lines.insert(_pos(rng, len(lines), 0.2), blank)
    return _join(lines, nl), f"blank_lines({k})"


_NONOBJ = (
    b"null",
    b"5",
    b"[]",
    b'"x"',
    b"true",
    b"{}",
    b"[1,2]",
    b"-0.5e3",
    b'{"type":"user_message"}',
)


def nonobj_line(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    lines, nl = _lines(data)
    v = rng.choice(_NONOBJ)
    at = _pos(rng, len(lines), 0.4)
    lines.insert(at, v)
    where = "end" if at == len(lines) - 1 else "mid"
    return _join(lines, nl or where == "end"), f"nonobj_line({v.decode()},{where})"


def _records(lines: Lines) -> list[tuple[int, dict]]:
    out = []
    for i, ln in enumerate(lines):
        try:
            v = orjson.loads(ln)
        except orjson.JSONDecodeError:
            continue
        if isinstance(v, dict):
            out.append((i, v))
    return out


def _message_records(lines: Lines) -> list[tuple[int, dict]]:
    return [
        (i, r)
        for i, r in _records(lines)
        if r.get("type") in ("user_message", "assistant_message", "tool_result", "message")
    ]


def _odd(rec: dict, rng: random.Random) -> str:
    """Change one message record in place the way a bug or an editor would; its label."""
    msg = rec.get("message") if rec.get("type") != "message" else rec
    choice = rng.choice(
        (
            "message_null",
            "message_missing",
            "message_string",
            "message_array",
            "message_number",
            "content_string",
            "content_null",
            "content_missing",
            "content_object",
            "null_block",
            "number_block",
            "string_block",
            "block_type_odd",
            "tool_use_no_id",
            "tool_use_empty_id",
            "tool_use_no_name",
            "tool_use_empty_name",
            "tool_use_null_name",
            "tool_result_no_id",
            "tool_result_empty_id",
            "ws_text",
            "ws_text",
            "empty_text",
            "empty_content",
            "thinking_only",
            "text_null",
            "role_missing",
            "role_odd",
            "role_swap",
            "meta_odd",
            "mode_invalid",
            "type_odd",
            "usage_added",
        )
    )
    blocks = msg.get("content") if isinstance(msg, dict) else None
    if not isinstance(blocks, list):
        blocks = None

    def first_block(t: str) -> dict | None:
        for b in blocks or ():
            if isinstance(b, dict) and b.get("type") == t:
                return b
        return None

    if choice.startswith("message_") and rec.get("type") != "message":
        rec["message"] = {
            "message_null": None,
            "message_string": "hello",
            "message_array": [1],
            "message_number": 5,
        }.get(choice)
        if choice == "message_missing":
            del rec["message"]
    elif choice.startswith("content_") and isinstance(msg, dict):
        if choice == "content_missing":
            msg.pop("content", None)
        else:
            msg["content"] = {
                "content_string": "plain text",
                "content_null": None,
                "content_object": {},
            }[choice]
    elif choice in ("null_block", "number_block", "string_block") and blocks is not None:
        blocks.insert(
            rng.randrange(len(blocks) + 1),
            {"null_block": None, "number_block": 5, "string_block": "s"}[choice],
        )
    elif choice == "block_type_odd" and blocks:
        b = rng.choice(blocks)
        if isinstance(b, dict):
            b["type"] = rng.choice((None, 5, "image", "TEXT"))
    elif choice.startswith("tool_use_") and first_block("tool_use") is not None:
        b = first_block("tool_use")
        assert b is not None
        if choice == "tool_use_no_id":
            b.pop("id", None)
        elif choice == "tool_use_empty_id":
            b["id"] = ""
        elif choice == "tool_use_no_name":
            b.pop("name", None)
        elif choice == "tool_use_empty_name":
            b["name"] = ""
        else:
            b["name"] = None
    elif choice.startswith("tool_result_") and first_block("tool_result") is not None:
        b = first_block("tool_result")
        assert b is not None
        if choice == "tool_result_no_id":
            b.pop("tool_use_id", None)
        else:
            b["tool_use_id"] = ""
    elif choice in ("ws_text", "empty_text", "empty_content", "thinking_only") and isinstance(
        msg, dict
    ):
        msg["content"] = {
            "ws_text": [
                {"type": "text", "text": rng.choice((" ", "\n\n", " \t ", "\u00a0", "\u3000"))}
            ],
            "empty_text": [{"type": "text", "text": ""}],
            "empty_content": [],
            "thinking_only": [{"type": "thinking", "thinking": "hm"}],
        }[choice]
    elif choice == "text_null" and first_block("text") is not None:
        first_block("text")["text"] = None  # type: ignore[index]
    elif choice.startswith("role_") and isinstance(msg, dict):
        if choice == "role_missing":
            msg.pop("role", None)
        elif choice == "role_odd":
            msg["role"] = rng.choice(("system", 5, None, "tool"))
        else:
            msg["role"] = "user" if msg.get("role") == "assistant" else "assistant"
    elif choice == "meta_odd" and isinstance(msg, dict):
        msg["_meta"] = rng.choice(
            ("x", None, [], {"permissionMode": "yolo"}, {"permissionMode": 5})
        )
    elif choice == "mode_invalid":
        rec["permissionMode"] = rng.choice(("yolo", "", 5, None, "bypassPermissions"))
    elif choice == "type_odd":
        rec["type"] = rng.choice(
            ("tool_result", "unknown_type", None, "assistant_message", "user_message")
        )
    elif choice == "usage_added":
        key = rng.choice(
            ("usage", "model", "stopReason", "msgId", "cwd", "gitBranch", "permissionMode")
        )
        rec[key] = rng.choice(({}, "x", 0, "", None, False))
        return f"usage_added({key})"
    else:
        return f"{choice}(n/a)"
    # bugs that leave an odd message often leave the record's per-call fields beside it
    if choice.startswith(("message_", "content_")) and rng.random() < 0.4:
        rec["usage" if rec.get("type") == "assistant_message" else "cwd"] = {"x": 1}
        choice += "+meta"
    return choice


def odd_message(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    lines, nl = _lines(data)
    recs = _message_records(lines)
    if not recs:
        return data, "odd_message(none)"
    # the last message more often: it decides the interruption state
    i, rec = recs[-1] if rng.random() < 0.35 else rng.choice(recs)
    label = _odd(rec, rng)
    lines[i] = stringify(rec)
    return _join(lines, nl), f"odd_message({label})"


def deep_nest(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """A record holding a value nested ~900–1,100 levels deep (a tool's JSON output)."""
    lines, nl = _lines(data)
    recs = _records(lines)
    if not recs:
        return data, "deep_nest(none)"
    i, _ = rng.choice(recs)
    depth = rng.randrange(900, 1101)
    inner = (
        (b"[" * depth + b"]" * depth)
        if rng.random() < 0.5
        else (b'{"a":' * depth + b"1" + b"}" * depth)
    )
    ln = lines[i].rstrip()
    lines[i] = ln[:-1] + b',"deep":' + inner + b"}"
    return _join(lines, nl), f"deep_nest({depth})"


def glue(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """Two records on one line ``{a}{b}`` (a lost newline)."""
    lines, nl = _lines(data)
    if len(lines) < 2:
        return data, "glue(none)"
    i = rng.randrange(len(lines) - 1)
    lines[i : i + 2] = [lines[i] + lines[i + 1]]
    tag = "glue"
    if rng.random() < 0.5:
        lines.insert(_pos(rng, len(lines), 0.2), b"")
        tag = "glue+blank"
    return _join(lines, nl), tag


def uuid_edit(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    lines, nl = _lines(data)
    recs = [(i, r) for i, r in _records(lines) if "uuid" in r]
    if len(recs) < 2:
        return data, "uuid_edit(none)"
    i, rec = rng.choice(recs)
    what = rng.choice(
        ("dup_uuid", "number_uuid", "lost_parent", "cycle", "null_parent", "parent_later")
    )
    j, other = rng.choice(recs)
    if what == "dup_uuid":
        rec["uuid"] = other.get("uuid")
    elif what == "number_uuid":
        rec["uuid"] = 5
    elif what == "lost_parent":
        rec["parentUuid"] = "00000000-0000-4000-8000-000000000000"
    elif what == "cycle":
        rec["parentUuid"] = rec.get("uuid")
    elif what == "null_parent":
        rec["parentUuid"] = None
    else:
        rec["parentUuid"] = recs[-1][1].get("uuid")
    lines[i] = stringify(rec)
    return _join(lines, nl), f"uuid_edit({what})"


def raw_separator(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """A raw U+2028/U+2029 in a text (``JSON.stringify`` writes them unescaped)."""
    lines, nl = _lines(data)
    recs = _message_records(lines)
    if not recs:
        return data, "raw_separator(none)"
    i, rec = rng.choice(recs)
    msg = rec.get("message") if rec.get("type") != "message" else rec
    sep = rng.choice(("\u2028", "\u2029"))
    if isinstance(msg, dict) and isinstance(msg.get("content"), list):
        for b in msg["content"]:
            if isinstance(b, dict) and isinstance(b.get("text"), str):
                b["text"] += sep + "more"
                break
            if isinstance(b, dict) and isinstance(b.get("content"), str):
                b["content"] += sep + "more"
                break
        else:
            return data, "raw_separator(n/a)"
    else:
        return data, "raw_separator(n/a)"
    lines[i] = stringify(rec)
    return _join(lines, nl), f"raw_separator({'2028' if sep == chr(0x2028) else '2029'})"


def bad_bytes(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """Invalid UTF-8 or a raw control character inside a string."""
    lines, nl = _lines(data)
    cands = [i for i, ln in enumerate(lines) if b'"text":"' in ln or b'"content":"' in ln]
    if not cands:
        return data, "bad_bytes(none)"
    i = rng.choice(cands)
    ln = lines[i]
    k = ln.find(b'"text":"')
    k = k + 8 if k >= 0 else ln.find(b'"content":"') + 11
    junk = rng.choice((b"\xff", b"\xe6\x97", b"\xc0\xaf", b"\x01", b"\t", b"\x7f"))
    lines[i] = ln[:k] + junk + ln[k:]
    return _join(lines, nl), f"bad_bytes({junk!r})"


def field_edit(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """A field another tool or a hand edit changed: a uuid link made a number or boolean
    on both ends, a metadata key that is no string, a session_start field of another type
    or missing, a timestamp dropped or made a number."""
    lines, nl = _lines(data)
    recs = _records(lines)
    if not recs:
        return data, "field_edit(none)"
    what = rng.choice(("number_link", "meta_key", "start_field", "timestamp"))
    if what == "number_link":
        by_uuid = {r.get("uuid"): (i, r) for i, r in recs if isinstance(r.get("uuid"), str)}
        pairs = [
            (by_uuid[r["parentUuid"]], (i, r)) for i, r in recs if r.get("parentUuid") in by_uuid
        ]
        if not pairs:
            return data, "field_edit(number_link,n/a)"
        (pi, parent), (ci, child) = rng.choice(pairs)
        v = rng.choice((7, 0, 1.0, True, False))
        parent["uuid"] = child["parentUuid"] = v
        lines[pi], lines[ci] = stringify(parent), stringify(child)
        label = f"number_link({v!r})"
    elif what == "meta_key":
        metas = [(i, r) for i, r in recs if r.get("type") == "metadata"]
        if not metas:
            return data, "field_edit(meta_key,n/a)"
        i, r = rng.choice(metas)
        k = rng.choice((5, None, ["session_name"], {"a": 1}, "missing", True))
        if k == "missing":
            r.pop("key", None)
        else:
            r["key"] = k
        lines[i] = stringify(r)
        label = f"meta_key({k!r})"
    elif what == "start_field":
        starts = [(i, r) for i, r in recs if r.get("type") == "session_start"]
        if not starts:
            return data, "field_edit(start_field,n/a)"
        i, r = rng.choice(starts)
        f = rng.choice(("sessionId", "model", "provider", "version", "cwd", "timestamp"))
        v = rng.choice(("missing", "", 5, None, "other"))
        if v == "missing":
            r.pop(f, None)
        else:
            r[f] = v
        lines[i] = stringify(r)
        label = f"start_field({f}={v!r})"
    else:
        i, r = recs[-1] if rng.random() < 0.7 else rng.choice(recs)
        v = rng.choice(("missing", 1234, None, ""))
        if v == "missing":
            r.pop("timestamp", None)
        else:
            r["timestamp"] = v
        lines[i] = stringify(r)
        label = f"timestamp({v!r})"
    return _join(lines, nl), f"field_edit({label})"


def split_line(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """A newline inserted into a line (an editor's stray Enter, a bad merge): two halves,
    neither a record — or, cut inside a string or a number, halves that read as one
    value when glued with a comma."""
    lines, nl = _lines(data)
    cands = [i for i, ln in enumerate(lines) if len(ln) > 2]
    if not cands:
        return data, "split_line(none)"
    i = cands[-1] if rng.random() < 0.2 else rng.choice(cands)
    ln = lines[i]
    where = rng.choice(("string", "any", "any"))
    k = -1
    if where == "string":  # inside a string value
        k = ln.find(b'":"', rng.randrange(len(ln)))
        k = k + 3 + rng.randrange(0, 4) if k >= 0 else -1
    if not 0 < k < len(ln):
        k, where = rng.randrange(1, len(ln)), "any"
    lines[i : i + 1] = [ln[:k], ln[k:]]
    return _join(lines, nl), f"split_line({where})"


def swap_lines(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """Two neighbouring lines swapped (a hand edit, a bad sort): lines 1 and 2 often, so
    ``session_start`` is not first."""
    lines, nl = _lines(data)
    if len(lines) < 2:
        return data, "swap_lines(none)"
    i = 0 if rng.random() < 0.4 else rng.randrange(len(lines) - 1)
    lines[i], lines[i + 1] = lines[i + 1], lines[i]
    return _join(lines, nl), f"swap_lines({'1-2' if i == 0 else 'mid'})"


def second_start(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """A second ``session_start`` in the middle of the file: a copy of the first (a
    replayed write), or a fresh head (``parentUuid`` null, as a reused session id writes)
    that the records after it may chain to."""
    lines, nl = _lines(data)
    recs = _records(lines)
    starts = [(i, r) for i, r in recs if r.get("type") == "session_start"]
    if not starts or len(lines) < 3:
        return data, "second_start(none)"
    i0, first = starts[0]
    at = rng.randrange(1, len(lines))
    how = rng.choice(("copy", "fresh", "fresh_chained"))
    if how == "copy":
        lines.insert(at, lines[i0])
    else:
        rec = dict(first)
        rec["uuid"] = f"5ec0{rng.getrandbits(28):07x}-0000-4000-8000-000000000000"
        rec["parentUuid"] = None
        if how == "fresh_chained" and at < len(lines):
            nxt = _records([lines[at]])
            if nxt and "parentUuid" in nxt[0][1]:
                nxt[0][1]["parentUuid"] = rec["uuid"]
                lines[at] = stringify(nxt[0][1])
        lines.insert(at, stringify(rec))
    return _join(lines, nl), f"second_start({how})"


def append_turn(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """An interrupted turn appended at the end, on the last record with a uuid: a prompt
    with no reply, a tool call with its results and no answer, a tool call whose results
    never reached disk, or only thinking."""
    lines, nl = _lines(data)
    recs = [(i, r) for i, r in _records(lines) if isinstance(r.get("uuid"), str)]
    parent = recs[-1][1]["uuid"] if recs else None
    how = rng.choice(("prompt", "tools", "orphan", "thinking"))
    stamp = "2026-12-31T23:59:0{}.000Z"
    tag = f"{rng.getrandbits(24):06x}"
    out: list[dict] = []

    def add(rec: dict) -> None:
        rec["uuid"] = f"a99e{tag}-{len(out):04d}-4000-8000-000000000000"
        rec["parentUuid"] = out[-1]["uuid"] if out else parent
        rec["timestamp"] = stamp.format(len(out))
        out.append(rec)

    user = {"role": "user", "content": [{"type": "text", "text": "and then?"}]}
    add({"type": "user_message", "message": user, "permissionMode": "default"})
    call = {"type": "tool_use", "id": f"call_{tag}", "name": "bash", "input": {"command": "ls"}}
    if how in ("tools", "orphan"):
        add({"type": "assistant_message", "message": {"role": "assistant", "content": [call]}})
    if how == "tools":
        res = {"type": "tool_result", "tool_use_id": call["id"], "content": "a.py"}
        add({"type": "user_message", "message": {"role": "user", "content": [res]}})
    if how == "thinking":
        think = {"type": "thinking", "thinking": "hm"}
        add({"type": "assistant_message", "message": {"role": "assistant", "content": [think]}})
    # (after a torn last line too: the join gives the turn lines of their own)
    return _join(lines + [stringify(r) for r in out], True), f"append_turn({how})"


def unknown_record(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """A record of a type the agent does not know (a newer version's, a plugin's):
    inserted (line 2 often), or a record's type changed; with or without a uuid on the
    chain."""
    lines, nl = _lines(data)
    recs = [(i, r) for i, r in _records(lines) if r.get("type") != "session_start"]
    kind = rng.choice(("future_event", "checkpoint_v9", "x-plugin"))
    if recs and rng.random() < 0.4:
        i, rec = recs[0] if rng.random() < 0.5 else rng.choice(recs)
        rec["type"] = kind
        lines[i] = stringify(rec)
        return _join(lines, nl), f"unknown_record(retyped,{'line2' if i == 1 else 'mid'})"
    at = 1 if rng.random() < 0.5 or len(lines) < 2 else rng.randrange(1, len(lines) + 1)
    before = [r for i, r in _records(lines[:at]) if isinstance(r.get("uuid"), str)]
    rec: dict[str, Any] = {"type": kind, "timestamp": "2026-12-31T00:00:00.000Z"}
    how = rng.choice(("chained", "loose", "no_uuid"))
    if how != "no_uuid":
        rec["uuid"] = f"0dd0{rng.getrandbits(28):07x}-0000-4000-8000-000000000000"
        rec["parentUuid"] = before[-1]["uuid"] if how == "chained" and before else None
    if how == "chained" and at < len(lines):  # the next record hangs on it
        nxt = _records([lines[at]])
        if nxt and "parentUuid" in nxt[0][1] and "uuid" in rec:
            nxt[0][1]["parentUuid"] = rec["uuid"]
            lines[at] = stringify(nxt[0][1])
    lines.insert(at, stringify(rec))
    return _join(
        lines, nl or at == len(lines) - 1
    ), f"unknown_record({how},{'line2' if at == 1 else 'mid'})"


Damage = Callable[[bytes, random.Random], tuple[bytes, str]]

#: Every damage with its weight.
DAMAGES: dict[Damage, int] = {
    cut_tail: 7,
    cut_any: 2,
    nul_tail: 1,
    del_lines: 3,
    dup_line: 3,
    move_line: 2,
    bom: 4,
    crlf: 4,
    lone_cr: 2,
    trailing_ws: 3,
    eof_ws: 3,
    lead_ws: 3,
    blank_lines: 3,
    nonobj_line: 3,
    odd_message: 9,
    deep_nest: 2,
    glue: 3,
    uuid_edit: 2,
    raw_separator: 2,
    bad_bytes: 1,
    field_edit: 3,
    split_line: 3,
    swap_lines: 2,
    second_start: 2,
    append_turn: 3,
    unknown_record: 2,
}

#: How many damages a case gets: ``(counts, weights)``. ``mixed``: mostly one, sometimes
#: none or several; ``combined``: two or three at once (``run --damages combined``), where
#: the disagreements that need two mutations together live.
DAMAGE_COUNTS = {
    "mixed": ((0, 1, 2, 3), (12, 50, 28, 10)),
    "combined": ((2, 3), (55, 45)),
}


# --------------------------------------------------------------------------- growing


#: What :func:`grow` inserts, repeated: plain ASCII, safe inside any JSON string.
FILLER_UNIT = b"lorem ipsum dolor sit amet, consectetur adipiscing elit \\n "


def filler(n: int) -> bytes:
    """``n`` bytes of :data:`FILLER_UNIT` repeated."""
    return (FILLER_UNIT * (n // len(FILLER_UNIT) + 1))[:n]


def grow(data: bytes, size: int, rng: random.Random) -> tuple[bytes, tuple[int, int] | None]:
    """``data`` grown to exactly ``size`` bytes by text inserted into one string value (a
    long tool result, as big sessions have): ``(bytes, (offset, length))``, or the input
    and None when no line has a string to grow or it is already that big."""
    n = size - len(data)
    if n <= 0:
        return data, None
    lines, _ = _lines(data)
    offs = []
    pos = 0
    for ln in lines:
        for key in (b'"content":"', b'"text":"', b'"thinking":"', b'"value":"'):
            k = ln.find(key)
            if k >= 0:
                offs.append(pos + k + len(key))
                break
        pos += len(ln) + 1
    if not offs:
        return data, None
    at = offs[rng.randrange(len(offs))] if len(offs) < 3 else rng.choice(offs[1:-1])
    return data[:at] + filler(n) + data[at:], (at, n)


def _big_size(rng: random.Random) -> int:
    r = rng.random()
    if r < 0.6:
        return STREAM_ABOVE + rng.randrange(-40, 41)
    if r < 0.8:
        return STREAM_ABOVE + rng.randrange(1, 2 << 20)
    return STREAM_ABOVE - rng.randrange(1, 1 << 20)


# --------------------------------------------------------------------------- cases


def make_case(
    seed: int,
    index: int,
    big_share: float = 0.12,
    skip: frozenset[int] = frozenset(),
    damages: str = "mixed",
) -> Case:
    """The case ``index`` of run ``seed`` (the same bytes every time for the same
    ``damages``: a key of :data:`DAMAGE_COUNTS`).

    Each damage, and the growth, draws from its own random stream, so ``skip`` (positions
    in :attr:`Case.damages`; ``-1`` is the growth) leaves the others as they were: that is
    how the runner finds which damages a disagreement needs.
    """
    rng = random.Random(f"{seed}:{index}")
    kinds = list(BASES)
    kind = rng.choices(kinds, weights=[BASES[k] for k in kinds])[0]
    tags: list[str]
    if kind == "fixture":
        src = rng.choice(_fixtures())
        data = src.read_bytes()
        filename = src.name
        tags = [f"fixture({src.stem[:24]})"]
    else:
        tmp = Path(tempfile.mkdtemp(prefix="sidtui-difftest-gen-"))
        try:
            path = base_session(kind, tmp, random.Random(f"{seed}:{index}:base"))
            data = path.read_bytes() if path.exists() else b""
            filename = path.name
        finally:
            from sidtui.core.transcript.writer import flush_pending_writes

            flush_pending_writes()
            shutil.rmtree(tmp, ignore_errors=True)
        tags = [kind]
    kinds_of_damage = list(DAMAGES)
    weights = [DAMAGES[d] for d in kinds_of_damage]
    counts, count_weights = DAMAGE_COUNTS[damages]
    k = rng.choices(counts, weights=count_weights)[0]
    chosen = rng.choices(kinds_of_damage, weights=weights, k=k)
    big = rng.random() < big_share
    case = Case(seed, index, filename, data, tags)
    for j, dmg in enumerate(chosen):
        if j in skip:
            continue
        data, label = dmg(data, random.Random(f"{seed}:{index}:d{j}"))
        case.damages.append((j, label))
        tags.append(label)
    case.data = data
    if big and -1 not in skip:
        r = random.Random(f"{seed}:{index}:big")
        size = _big_size(r)
        grown, pad = grow(data, size, r)
        if pad is not None:
            case.data, case.pad = grown, pad
            side = "above" if len(grown) > STREAM_ABOVE else "at_or_below"
            label = f"big({side} 4MiB, {len(grown) - STREAM_ABOVE:+d})"
            case.damages.append((-1, label))
            tags.append(label)
    return case

"""Per-session summaries for ``ls``, the catalog and the browser (seed §4.9–4.10, §13.5).

:func:`summarize` answers "how did this session end, can the agent load it, is it running"
without decoding whole files:

* the **head line** gives the start record (id, model, cwd, version, start time);
* the **walk from the tail** along parent links finds each parent by searching the bytes
  backwards for ``"uuid":"<parent>"`` and validating only that line (msgspec, three
  fields), so records of skipped branches are never decoded; it gives ``loadable`` (the
  walk reaches ``session_start``) and the chain's message records, of which only the last
  few are decoded to run the recovery pipeline's interruption detection;
* a byte count of newlines gives ``records`` (non-blank lines).

Files the fast path does not cover (v1 JSON, linear legacy files, sidechains) or where it
meets anything unusual fall back to the full :func:`sidtui.core.session.open_session`. The
result is the same either way (a test checks both paths agree on every fixture).
"""

from __future__ import annotations

import operator
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

import msgspec
import orjson

from sidtui.core.home import Home, SessionFile, discover
from sidtui.core.jsonparse import JSONParseError, is_blank, parse_line_slow
from sidtui.core.loader import MESSAGE_RECORD_TYPES, Message, _message_from_record
from sidtui.core.process import Registration, liveness_for, read_registrations, trace_session_ids
from sidtui.core.records import _HEAD, RecordFile, RecordRef
from sidtui.core.recovery import TERMINAL_TOOL_NAMES, recover

#: How many trailing chain messages are decoded to decide the interruption state.
TAIL_MESSAGES = 12


@dataclass
class SessionSummary:
    """One row of ``ls`` / the browser.

    Attributes:
        session_id: the file-name id (what ``show``/``--resume`` look up), project, path,
            kind ("main"/"sidechain"), container ("jsonl"/"json").
        format_version: "3.0", "2.0", a v1 file's own version (None for sidechains).
        started: the start record's ISO timestamp; last_activity: the tail's timestamp
            (else the file's mtime, ISO).
        model, provider, cwd: from the start record.
        records: non-blank lines (messages for v1 ``.json`` files); bytes: file size;
            mtime_ns, inode: for cache keys.
        interruption: none / interrupted_prompt / interrupted_turn (None when not loadable).
        tool_names: for interrupted_turn.
        loadable / load_failure: whether the agent's loader returns anything, and why not.
        ended: the last record is ``session_end`` (the last process exited cleanly).
        live / stale: a running process writes it now / a dead one left a registration.
        cost_usd: from the last ``session_end`` or ``usage_stats`` on the chain.
        first_prompt: the first human prompt (preview); title: ``session_name`` or the
            summary file's ``summary``.
        parent_session_id: for sidechains.
    """

    session_id: str
    project: str
    path: str
    kind: str = "main"
    container: str = "jsonl"
    format_version: str | None = None
    started: str | None = None
    last_activity: str | None = None
    model: str | None = None
    provider: str | None = None
    cwd: str | None = None
    records: int = 0
    bytes: int = 0
    mtime_ns: int = 0
    inode: int = 0
    interruption: str | None = None
    tool_names: list[str] | None = None
    loadable: bool = False
    load_failure: str | None = None
    ended: bool = False
    live: bool = False
    stale: bool = False
    cost_usd: float | None = None
    first_prompt: str | None = None
    title: str | None = None
    parent_session_id: str | None = None
    trace_ids: list[str] | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


BADGES = {
    "none": ("clean", "green"),
    "interrupted_prompt": ("interrupted prompt", "yellow"),
    "interrupted_turn": ("interrupted turn", "red"),
}


def state_badge(s: SessionSummary) -> tuple[str, str]:
    """(label, Rich style) of a session's state, as ``ls`` and the browser show it.

    Live beats everything; then a main file the agent cannot load; else the interruption
    state, with " (stale)" when a dead process left its registration.
    """
    if s.live:
        return "live", "bold magenta"
    if not s.loadable and s.kind == "main":
        return "unloadable", "bold red"
    label, colour = BADGES.get(s.interruption or "", (s.interruption or "—", "dim"))
    if s.stale:
        label += " (stale)"
    return label, colour


class _FallBack(Exception):
    """The fast path met something it does not handle; use the full reader."""


def _iso_from_ns(ns: int) -> str:
    return datetime.fromtimestamp(ns / 1e9, tz=UTC).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z"
    )


def count_records(data: bytes) -> int:
    """Non-blank lines: newlines counted in C, empty lines subtracted."""
    if not data:
        return 0
    n = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    n -= data.count(b"\n\n") + (1 if data.startswith(b"\n") else 0)
    return max(n, 0)


def _line_bounds(data: bytes, pos: int) -> tuple[int, int]:
    start = data.rfind(b"\n", 0, pos) + 1
    end = data.find(b"\n", pos)
    return start, (len(data) if end < 0 else end)


def _head_at(mv: memoryview, start: int, end: int):
    try:
        return _HEAD.decode(mv[start:end])
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def _last_good_line(data: bytes, mv: memoryview) -> tuple[int, int, Any] | None:
    end = len(data)
    if data.endswith(b"\n"):
        end -= 1
    while end >= 0:
        start = data.rfind(b"\n", 0, end) + 1
        raw = data[start:end]
        if not is_blank(raw):
            h = _head_at(mv, start, end)
            if h is not None:
                return start, end, h
            try:
                parse_line_slow(raw)
            except JSONParseError:
                pass
            else:
                raise _FallBack  # valid JSON the fast decoder refused: let the full path decide
        if start == 0:
            return None
        end = start - 1
    return None


class _LineIndex:
    """Bounds of line ``i`` (no blank lines), found lazily from the nearer end of the file.

    ``ls`` needs the bounds of a handful of lines (the head, the last messages, the last
    metadata), so it never indexes every newline.
    """

    def __init__(self, data: bytes, n: int) -> None:
        self.data, self.n = data, n
        self.last_end = len(data) - 1 if data.endswith(b"\n") else len(data)
        self.front = [0]  # starts of lines 0, 1, 2, ...
        self.back: list[int] = []  # starts of lines n-1, n-2, ...

    def start(self, i: int) -> int:
        if i < len(self.front):
            return self.front[i]
        j = self.n - 1 - i
        if j < len(self.back):
            return self.back[j]
        data = self.data
        if i < self.n // 2:
            while len(self.front) <= i:
                self.front.append(data.find(b"\n", self.front[-1]) + 1)
            return self.front[i]
        while len(self.back) <= j:
            end = self.back[-1] - 1 if self.back else self.last_end
            self.back.append(data.rfind(b"\n", 0, end) + 1)
        return self.back[j]

    def bounds(self, i: int) -> tuple[int, int]:
        end = self.start(i + 1) - 1 if i + 1 < self.n else self.last_end
        return self.start(i), end


Entry = tuple[int, "str | None", "str | None"]  # (line key, type, uuid)


def _walk_tail(
    data: bytes,
) -> tuple[list[Entry], Callable[[int], tuple[int, int]], bool, int | None]:
    """Walk from the tail: chain entries oldest first, their bounds, loadable, line count.

    When every line is valid (the common case) one C call decodes the three chain fields
    of every line, a linear file is recognised in C (each parent is the previous uuid),
    and only the few lines a summary reads get their bounds; otherwise each parent is
    found by searching the bytes backwards for its uuid and only that line is validated.
    """
    try:
        heads = _HEAD.decode_lines(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return _walk_tail_search(data)
    n = len(heads)
    if not n or n != data.count(b"\n") + (0 if data.endswith(b"\n") else 1):
        return _walk_tail_search(data)  # blank/odd lines: the exact per-line path
    tail = heads[-1]
    if not isinstance(tail.uuid, str):
        raise _FallBack  # linear legacy parse
    uuids = [h.uuid for h in heads]
    parents = [h.parentUuid for h in heads]
    types = [h.type if isinstance(h.type, str) else None for h in heads]
    idx = _LineIndex(data, n)
    if (
        parents[0] is None
        and all(map(operator.eq, parents[1:], uuids[:-1]))
        and len(set(uuids)) == n
    ):
        order = range(n)  # one writer, one chain: every line, in order
    else:
        picked = [n - 1]
        seen = {tail.uuid}
        expected = parents[-1] if isinstance(parents[-1], str) else None
        i = n - 2
        while i >= 0 and expected is not None:
            if uuids[i] == expected:
                if expected in seen:
                    break  # cycle
                seen.add(expected)
                picked.append(i)
                p = parents[i]
                expected = p if isinstance(p, str) else None
            i -= 1
        picked.reverse()
        order = picked
    chain = [(i, types[i], uuids[i]) for i in order]
    return chain, idx.bounds, any(t == "session_start" for _, t, _ in chain), n


def _walk_tail_search(
    data: bytes,
) -> tuple[list[Entry], Callable[[int], tuple[int, int]], bool, int | None]:
    """The per-line walk: find each parent by a backward byte search for its uuid."""
    mv = memoryview(data)
    found = _last_good_line(data, mv)
    if found is None:
        return [], lambda i: (0, 0), False, None
    start, end, h = found
    if not isinstance(h.uuid, str):
        raise _FallBack  # linear legacy parse
    chain = [(start, end, h.type if isinstance(h.type, str) else None, h.uuid)]
    seen = {h.uuid}
    expected = h.parentUuid if isinstance(h.parentUuid, str) else None
    pos = start
    while expected is not None:
        needle = b'"uuid":"' + expected.encode() + b'"'
        j = data.rfind(needle, 0, pos)
        hit = None
        while j >= 0:
            ls, le = _line_bounds(data, j)
            cand = _head_at(mv, ls, le)
            if cand is not None and cand.uuid == expected:
                hit = (ls, le, cand)
                break
            if cand is None and not is_blank(data[ls:le]):
                try:
                    parse_line_slow(data[ls:le])
                except JSONParseError:
                    pass
                else:
                    raise _FallBack
            j = data.rfind(needle, 0, ls)
        if hit is None:
            break  # lost parent: the walk stops (fork heads end here too)
        ls, le, cand = hit
        if cand.uuid in seen:
            break  # cycle
        seen.add(cand.uuid)
        chain.append((ls, le, cand.type if isinstance(cand.type, str) else None, cand.uuid))
        expected = cand.parentUuid if isinstance(cand.parentUuid, str) else None
        pos = ls
    chain.reverse()
    spans = [(ls, le) for ls, le, _, _ in chain]
    entries = [(k, t, u) for k, (_, _, t, u) in enumerate(chain)]
    return entries, spans.__getitem__, any(t == "session_start" for _, t, _ in entries), None


def _decode_line(data: bytes, start: int, end: int) -> Any:
    raw = data[start:end]
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        try:
            return parse_line_slow(raw)
        except JSONParseError:
            return None


def _summary_file_title(sf: SessionFile) -> str | None:
    try:
        d = orjson.loads(sf.summary_path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    s = d.get("summary") if isinstance(d, dict) else None
    return s if isinstance(s, str) else None


def _fast_summary(sf: SessionFile, data: bytes, st: os.stat_result) -> SessionSummary:
    chain, bounds, loadable, n_lines = _walk_tail(data)
    s = SessionSummary(sf.session_id, sf.project, str(sf.path), sf.kind, sf.container)
    s.records = n_lines or 0  # every line valid and non-blank: the count is exact
    if not loadable:
        raise _FallBack  # let the full reader explain why, with lines and uuids
    s.loadable = True
    # the start record on the chain (a reused id restarts the chain with a new one)
    start_key = next(k for k, t, _ in chain if t == "session_start")
    start_rec = _decode_line(data, *bounds(start_key))
    if isinstance(start_rec, dict):
        v = start_rec.get("version")
        s.format_version = v if isinstance(v, str) else "2.0"
        s.started = start_rec.get("timestamp")
        s.model, s.provider = start_rec.get("model"), start_rec.get("provider")
        s.cwd = start_rec.get("cwd")
    tail = _decode_line(data, *bounds(chain[-1][0])) or {}
    s.ended = chain[-1][1] == "session_end"
    for k, _, _ in reversed(chain):  # the loader's updatedAt: last timestamp on the chain
        d = tail if k == chain[-1][0] else _decode_line(data, *bounds(k))
        ts = d.get("timestamp") if isinstance(d, dict) else None
        if isinstance(ts, str):
            s.last_activity = ts
            break
    if s.ended and isinstance(tail.get("totalCostUSD"), (int, float)):
        s.cost_usd = float(tail["totalCostUSD"])
    # decode only the last messages on the chain, plus the latest cost/title metadata
    rf = RecordFile(data=data)

    def message(k: int, t: str | None, u: str | None, index: int) -> Message | None:
        ls, le = bounds(k)
        return _message_from_record(rf, RecordRef(0, 0, ls, le, t, u, None), index)

    msg_keys = [(k, t, u) for k, t, u in chain if t in MESSAGE_RECORD_TYPES]
    tail_msgs: list[Message] = []
    for k, t, u in msg_keys[-TAIL_MESSAGES:]:
        m = message(k, t, u, len(tail_msgs))
        if m is not None:
            tail_msgs.append(m)
    r = recover(tail_msgs, terminal_tool_names=TERMINAL_TOOL_NAMES)
    if not r.messages and len(msg_keys) > TAIL_MESSAGES:
        raise _FallBack
    s.interruption = r.interruption.kind
    s.tool_names = r.interruption.tool_names if r.interruption.kind == "interrupted_turn" else []
    for k, t, u in msg_keys:
        if t != "user_message":
            continue
        m = message(k, t, u, 0)
        if m is not None and m.is_human_prompt and m.preview():
            s.first_prompt = m.preview(120)
            break
    on_chain = {u for _, _, u in chain}
    if s.cost_usd is None:
        usage = _last_metadata(data, b"usage_stats", on_chain)
        if isinstance(usage, dict) and isinstance(usage.get("totalCostUSD"), (int, float)):
            s.cost_usd = float(usage["totalCostUSD"])
    name = _last_metadata(data, b"session_name", on_chain)
    s.title = name if isinstance(name, str) else None
    return s


def _last_metadata(data: bytes, key: bytes, on_chain: set) -> Any:
    """The value of the last ``metadata`` record with ``key`` on the chain (byte search)."""
    needle = b'"key":"' + key + b'"'
    j = data.rfind(needle)
    while j >= 0:
        ls, le = _line_bounds(data, j)
        d = _decode_line(data, ls, le)
        if isinstance(d, dict) and d.get("type") == "metadata" and d.get("key") == key.decode():
            if d.get("uuid") in on_chain:
                return d.get("value")
        j = data.rfind(needle, 0, ls)
    return None


def _full_summary(home: Home, sf: SessionFile, data: bytes, registrations) -> SessionSummary:
    from sidtui.core.session import open_session

    v = open_session(home, sf, data=data, registrations=registrations, with_sidechains=False)
    j = v.to_json()
    # the file-name id: what `show`, `rewind` and the agent's `--resume` look up
    s = SessionSummary(sf.session_id, sf.project, str(sf.path), sf.kind, sf.container)
    if sf.container == "json":
        s.records = len(v.loaded.messages)
    s.format_version = v.format_version
    s.started = v.loaded.created_at
    s.last_activity = v.loaded.updated_at
    s.model, s.provider, s.cwd = v.loaded.model, v.loaded.provider, v.loaded.cwd
    s.loadable = j["loadable"]
    s.load_failure = j["load_failure"]
    s.interruption = j["interruption"]["kind"]
    s.tool_names = j["interruption"]["tool_names"]
    if v.rf is not None and v.chain.chain:
        s.ended = v.rf.records[v.chain.chain[-1]].type == "session_end" and not v.chain.linear
        if v.chain.linear and v.rf.records:
            s.ended = v.rf.records[-1].type == "session_end"
    usage = v.loaded.metadata.get("usage_stats")
    if isinstance(usage, dict) and isinstance(usage.get("totalCostUSD"), (int, float)):
        s.cost_usd = float(usage["totalCostUSD"])
    if s.ended and v.rf is not None and s.loadable:  # same rule as the fast path
        end = v.rf.decode(v.rf.records[v.chain.chain[-1]])
        if isinstance(end, dict) and isinstance(end.get("totalCostUSD"), (int, float)):
            s.cost_usd = float(end["totalCostUSD"])
    title = v.loaded.metadata.get("session_name")
    s.title = title if isinstance(title, str) else None
    for m in v.loaded.messages:
        if m.is_human_prompt and m.preview():
            s.first_prompt = m.preview(120)
            break
    if v.sidechain is not None:
        s.parent_session_id = v.sidechain.parent_session_id
        s.started = v.sidechain.started_at
        s.last_activity = v.sidechain.ended_at or s.last_activity
        s.model = v.sidechain.model
        s.ended = v.sidechain.ended
        if v.sidechain.messages:
            s.first_prompt = v.sidechain.messages[0].preview(120)
        s.title = v.sidechain.description
    return s


def summarize(
    home: Home,
    sf: SessionFile,
    *,
    registrations: list[Registration] | None = None,
    data: bytes | None = None,
) -> SessionSummary:
    """Summarize one session file (fast path when possible, see module docstring).

    Args:
        home: the home.
        sf: the file.
        registrations: pre-read registrations (read once per listing, not per file).
        data: the file's bytes if already read.

    Returns:
        A :class:`SessionSummary`.

    Raises:
        UnreadableInput: the file cannot be read.
    """
    from sidtui.core.session import _read_bytes

    try:
        st = sf.path.stat()
    except OSError:
        st = None
    if data is None:
        data = _read_bytes(sf.path)
    if registrations is None:
        registrations = read_registrations(home)
    s: SessionSummary
    if sf.container == "jsonl" and sf.kind == "main":
        try:
            s = _fast_summary(sf, data, st)
        except _FallBack:
            s = _full_summary(home, sf, data, registrations)
    else:
        s = _full_summary(home, sf, data, registrations)
    if sf.container == "jsonl" and not s.records:
        s.records = count_records(data)
    s.bytes = len(data)
    if st is not None:
        s.mtime_ns, s.inode = st.st_mtime_ns, st.st_ino
        if s.last_activity is None:
            s.last_activity = _iso_from_ns(st.st_mtime_ns)
    if s.title is None and sf.kind == "main":
        s.title = _summary_file_title(sf)
    if sf.kind == "main":
        tids = trace_session_ids(data) if sf.container == "jsonl" else []
        s.trace_ids = tids
        lv = liveness_for(s.session_id, tids, registrations)
        s.live, s.stale = lv.live, lv.stale
    else:
        s.parent_session_id = s.parent_session_id or sf.parent_session_id
    return s


def list_sessions(
    home: Home,
    project: str | None = None,
    *,
    include_sidechains: bool = False,
    progress=None,
) -> tuple[list[SessionSummary], list[str]]:
    """Summaries of every session under the home, newest activity first.

    Args:
        home: the home.
        project: only this project folder.
        include_sidechains: also list sidechain files.
        progress: optional ``callable(done, total)`` called after each file.

    Returns:
        (summaries, errors) — a file that cannot be read becomes one error line, never an
        exception.
    """
    from sidtui.core.errors import SidtuiError

    errors: list[str] = []
    files = [f for f in discover(home, project, errors) if include_sidechains or f.kind == "main"]
    regs = read_registrations(home)
    out: list[SessionSummary] = []
    for i, f in enumerate(files):
        try:
            out.append(summarize(home, f, registrations=regs))
        except SidtuiError as exc:
            errors.append(str(exc))
        if progress is not None:
            progress(i + 1, len(files))
    out.sort(key=lambda s: (s.last_activity or "", s.session_id), reverse=True)
    return out, errors

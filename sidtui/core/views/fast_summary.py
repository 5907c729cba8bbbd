"""The fast summary path: how a session ended, read from a few of its lines.

:func:`fast_summary` decodes only the chain fields of every line (one msgspec call), walks
the chain over them, and reads the start, the tail, the first prompt and the last messages
from their own lines; anything unusual raises :class:`FallBack` for the full view.

Design notes: docs/ARCHITECTURE.md, “core/views/fast_summary.py”.
"""

from __future__ import annotations

import re
from operator import attrgetter
from typing import Any

import msgspec

from sidtui.core.base.home import SessionFile
from sidtui.core.base.jsonparse import JSONParseError, is_blank, js_falsy, parse_line
from sidtui.core.resume.interruption import TERMINAL_TOOL_NAMES
from sidtui.core.resume.recovery import recover
from sidtui.core.transcript.chain import is_one_linear_chain, walk_columns
from sidtui.core.transcript.decode import decode_lines_exact
from sidtui.core.transcript.loader import nonempty_str
from sidtui.core.transcript.messages import (
    MESSAGE_DECODER,
    MESSAGE_RECORD_TYPES,
    LoaderFails,
    Message,
    message_from_record,
    message_from_struct,
)
from sidtui.core.transcript.records import RecordFile, parse_or_none
from sidtui.core.transcript.source import agent_reads_as_lines
from sidtui.core.transcript.structs import FAST_DECODE_ERRORS, RecordRef
from sidtui.core.views.summary import SessionSummary

_TYPE = attrgetter("type")

#: How many trailing chain messages are decoded to decide the interruption state.
TAIL_MESSAGES = 12


class FallBack(Exception):
    """The fast path met something it does not handle; use the full reader."""


def _line_bounds(data: bytes, pos: int) -> tuple[int, int]:
    start = data.rfind(b"\n", 0, pos) + 1
    end = data.find(b"\n", pos)
    return start, (len(data) if end < 0 else end)


def _head_at(mv: memoryview, start: int, end: int):
    """The line's head (None: the fast decoder refuses it).

    Raises:
        FallBack: a message record without a message object or content list (the
            agent's loader or resume may fail on it: the full reader decides).
    """
    try:
        h = _LS_ONE.decode(mv[start:end])
    except FAST_DECODE_ERRORS:
        return None
    if h.type in MESSAGE_RECORD_TYPES and (h.message is None or h.message.content is None):
        raise FallBack
    return h


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
                parse_line(raw)
            except JSONParseError:
                pass
            else:
                raise FallBack  # valid JSON the fast decoder refused: let the full path decide
        if start == 0:
            return None
        end = start - 1
    return None


class _LineIndex:
    """Bounds of line ``i`` (no blank lines), found lazily from the nearer end of the file.

    ``ls`` needs the bounds of a handful of lines (the head, the last messages, the last
    metadata), so it never indexes every newline: ``front`` holds the ends (``\\n``
    offsets) of lines 0, 1, ... and ``back`` the starts of lines n-1, n-2, ...
    """

    __slots__ = ("data", "n", "front", "back")

    def __init__(self, data: bytes, n: int) -> None:
        self.data, self.n = data, n
        self.front: list[int] = [-1]  # front[i] = offset of the newline before line i
        last_end = len(data) - 1 if data.endswith(b"\n") else len(data)
        self.back: list[int] = [last_end + 1]  # back[j] = start of line n-j (+1 past end)

    def bounds(self, i: int) -> tuple[int, int]:
        j = self.n - i  # line i is the j-th from the end
        if i < j:
            front = self.front
            if len(front) <= i + 1:
                find, pos = self.data.find, front[-1]
                for _ in range(i + 2 - len(front)):
                    pos = find(b"\n", pos + 1)
                    if pos < 0:  # the last line, without a trailing newline
                        pos = len(self.data)
                    front.append(pos)
            return front[i] + 1, front[i + 1]
        back = self.back
        if len(back) <= j:
            rfind, start = self.data.rfind, back[-1]
            for _ in range(j + 1 - len(back)):
                start = rfind(b"\n", 0, start - 1) + 1
                back.append(start)
        return back[j], back[j - 1] - 1


class _Obj(msgspec.Struct, gc=False):
    """Any JSON object (its keys skipped)."""


class _LsMessage(msgspec.Struct, gc=False):
    """A message as far as ``ls`` must see it: an object whose content is a list of
    objects. Anything else (a message or block that is no object, content that is no
    list) fails the fast decode or leaves ``content`` None, and the full reader decides
    what the agent does with it (its loader or resume may fail on it)."""

    content: list[_Obj] | None = None


class _LsHead(msgspec.Struct, gc=False):
    """The chain fields plus a metadata record's ``key``; msgspec skips every other key."""

    type: Any = None
    uuid: Any = None
    parentUuid: Any = None
    key: Any = None
    message: _LsMessage | None = None


#: every line's head, one per line (:func:`~sidtui.core.transcript.decode.decode_lines_exact`)
_LS_HEAD = msgspec.json.Decoder(list[_LsHead])


class _LsHeadT(msgspec.Struct, gc=False):
    """:class:`_LsHead` with the chain fields typed ``str | None`` (the usual record), so
    a linear file is recognised and summarized on the heads themselves
    (:func:`_is_linear`, :func:`_linear_summary`), without building columns."""

    type: str | None = None
    uuid: str | None = None
    parentUuid: str | None = None
    key: Any = None
    message: _LsMessage | None = None


_LS_HEAD_T = msgspec.json.Decoder(list[_LsHeadT])
_LS_ONE = msgspec.json.Decoder(_LsHeadT)


class _Walk:
    """The chain the tail walk found, in file order.

    Attributes:
        order: the chain's line keys, oldest first (``range(n)`` for a linear file).
        types, uuids: per line key (str or None).
        bounds: ``bounds(key) -> (start, end)`` byte span of a line (``\\n`` excluded).
        n_lines: every line valid and non-blank: their count (the exact ``records``),
            else None.
        heads: every line's decoded head when all lines were valid, else None (then the
            metadata lookups search the bytes).
    """

    __slots__ = ("order", "types", "uuids", "bounds", "n_lines", "heads")

    def __init__(self, order, types, uuids, bounds, n_lines, heads) -> None:
        self.order, self.types, self.uuids = order, types, uuids
        self.bounds, self.n_lines, self.heads = bounds, n_lines, heads


def _strs(col: list) -> list:
    """A column with every non-string value as None (as the chain reads them)."""
    if set(map(type, col)) <= {str, type(None)}:
        return col
    return [v if isinstance(v, str) else None for v in col]


def _valid_heads(data: bytes) -> list | None:
    """Every line's decoded head in one C call, or None when some line is not valid for
    the fast decoder or is blank (then the exact per-line path decides).

    Heads are :class:`_LsHeadT` unless a chain field has another JSON type
    (:class:`_LsHead` then).

    Raises:
        FallBack: the tail has no string uuid (linear legacy parse), or the agent's
            reader does not see the file's lines as they are split here.
    """
    if not agent_reads_as_lines(data):
        raise FallBack  # the agent's trim or streaming reader changes a line: the full reader
    # one value per line, or None: a chain field of another type, a blank line, two
    # records glued on one line, too deep (the exact per-line path decides then)
    heads = decode_lines_exact(data, len(data), _LS_HEAD_T)
    if heads is None:
        heads = decode_lines_exact(data, len(data), _LS_HEAD)
        if heads is not None and any(
            not isinstance(v, (str, type(None))) for h in heads for v in (h.uuid, h.parentUuid)
        ):
            raise FallBack  # a number/boolean link the agent's walk follows: the full reader
    n = len(heads) if heads is not None else 0
    if not n:
        return None
    mt = MESSAGE_RECORD_TYPES
    if any(
        (h.message is None or h.message.content is None) and type(h.type) is str and h.type in mt
        for h in heads
    ):
        return None  # a message without a message object or content list: the full reader
    if not isinstance(heads[-1].uuid, str):
        raise FallBack  # linear legacy parse
    return heads


def _walk_tail(data: bytes, heads: list | None) -> _Walk | None:
    """Walk from the tail along parent links (None: no valid line at all).

    With ``heads`` (:func:`_valid_heads`) the loader's own walk runs over their columns
    and only the few lines a summary reads get their bounds; otherwise each parent is
    found by searching the bytes backwards for its uuid and only that line is validated.
    """
    if heads is None:
        return _walk_tail_search(data)
    n = len(heads)
    uuids = _strs([h.uuid for h in heads])
    parents = _strs([h.parentUuid for h in heads])
    types = _strs([h.type for h in heads])
    # the loader's own walk (sidtui.core.transcript.chain), over these columns
    order = (
        range(n) if is_one_linear_chain(uuids, parents) else walk_columns(uuids, parents, n - 1)[0]
    )
    return _Walk(order, types, uuids, _LineIndex(data, n).bounds, n, heads)


def _is_linear(heads: list) -> bool:
    """:func:`sidtui.core.transcript.chain.is_one_linear_chain` of typed heads without building their
    columns (one plain pass measured faster here): each parent is the previous uuid, the
    first is a head, and no uuid is missing or repeats."""
    prev = None
    for h in heads:
        if h.parentUuid != prev:
            return False
        prev = h.uuid
        if prev is None:
            return False
    return len({h.uuid for h in heads}) == len(heads)


def _walk_tail_search(data: bytes) -> _Walk | None:
    """The per-line walk: find each parent by a backward byte search for its uuid."""
    mv = memoryview(data)
    found = _last_good_line(data, mv)
    if found is None:
        return None
    start, end, h = found
    if not isinstance(h.uuid, str):
        raise FallBack  # linear legacy parse
    chain = [(start, end, h.type, h.uuid)]
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
                    parse_line(data[ls:le])
                except JSONParseError:
                    pass
                else:
                    raise FallBack
            j = data.rfind(needle, 0, ls)
        if hit is None:
            break  # lost parent: the walk stops (fork heads end here too)
        ls, le, cand = hit
        if cand.uuid in seen:
            break  # cycle
        seen.add(cand.uuid)
        chain.append((ls, le, cand.type, cand.uuid))
        expected = cand.parentUuid if isinstance(cand.parentUuid, str) else None
        pos = ls
    chain.reverse()
    spans = [(ls, le) for ls, le, _, _ in chain]
    return _Walk(
        range(len(chain)),
        [c[2] for c in chain],
        [c[3] for c in chain],
        spans.__getitem__,
        None,
        None,
    )


def _decode_line(data: bytes, start: int, end: int) -> Any:
    """Line ``data[start:end]`` by JSON.parse's rules (None: not valid)."""
    return parse_or_none(data[start:end])


def _start_and_end(
    s: SessionSummary, data: bytes, bounds, start_keys: list[int], keys_back, tail_type: str | None
) -> None:
    """The start records' fields, ``ended``, ``last_activity`` and the end's cost.

    Args:
        start_keys: the ``session_start`` records on the chain, in order (a reused id
            adds one); each sets the fields in turn, as the loader reads them
            (:func:`sidtui.core.transcript.loader._start_fields`).
        keys_back: the chain's line keys, newest first.
        tail_type: the tail record's type.

    Raises:
        FallBack: the last one has no sessionId (the agent loads nothing: the full reader
            says why).
    """
    version = None
    for key in start_keys:
        start_rec = _decode_line(data, *bounds(key))
        if not isinstance(start_rec, dict):
            continue
        if js_falsy(start_rec.get("sessionId")) and key == start_keys[-1]:
            raise FallBack
        v, cwd = start_rec.get("version"), start_rec.get("cwd")
        if isinstance(v, str):
            version = v
        if isinstance(cwd, str):
            s.cwd = cwd or None
        # as the loader reads them (show's created_at/model/...): a non-string is absent
        s.started = nonempty_str(start_rec.get("timestamp"))
        s.model, s.provider = (
            nonempty_str(start_rec.get("model")),
            nonempty_str(start_rec.get("provider")),
        )
    s.format_version = "2.0" if version is None else version
    tail: Any = None
    for k in keys_back:  # the loader's updatedAt: last timestamp on the chain
        d = _decode_line(data, *bounds(k))
        if tail is None:
            tail = d or {}
        ts = d.get("timestamp") if isinstance(d, dict) else None
        if isinstance(ts, str):
            s.last_activity = ts
            break
    s.ended = tail_type == "session_end"
    if s.ended and isinstance(tail.get("totalCostUSD"), (int, float)):
        s.cost_usd = float(tail["totalCostUSD"])


class _Reader:
    """Decodes chain messages one line at a time, as the loader would.

    Each message is read at its own record index of :attr:`rf` (a message may read its
    line again through ``rf``, e.g. its ``meta``); a message only looked at
    (``peek=True``: role, blocks) gets no record of its own.
    """

    __slots__ = ("data", "_rf")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._rf: RecordFile | None = None

    @property
    def rf(self) -> RecordFile:
        if self._rf is None:  # made on first use: most summaries only peek
            self._rf = RecordFile(data=self.data, records=[])
        return self._rf

    def message(
        self,
        span: tuple[int, int],
        rtype: str | None,
        uuid: str | None,
        index: int,
        peek: bool = False,
    ) -> Message | None:
        ls, le = span
        try:
            o = MESSAGE_DECODER.decode(self.data[ls:le])
        except FAST_DECODE_ERRORS:  # the loader's dict path
            o = None
        if o is not None and o.message is None:
            raise FallBack  # no message object: the full reader says what the agent does
        if o is not None and peek:
            m = message_from_struct(o, index, -1, uuid, 0, rtype, None)
        else:
            rf = self.rf
            refs = rf.records
            ref = RecordRef(len(refs), 0, ls, le, rtype, uuid, None)
            refs.append(ref)
            try:
                m = (
                    message_from_record(rf, ref, index)
                    if o is None
                    else message_from_struct(o, index, ref.index, uuid, 0, rtype, rf)
                )
            except LoaderFails:
                raise FallBack from None
        if m is not None and m.shape is not None:
            raise FallBack  # a message the agent's resume cannot take: the full reader
        return m


def _is_visible_reply(m: Message | None) -> bool:
    """An assistant message of text blocks only, one with visible text.

    No cleaning layer touches such a message (they strip unanswered tool_use blocks and
    tool blocks missing their ids, drop thinking-only assistant messages and those with
    an empty content list, and rewrite ``permissionMode``), so when it is the last message
    the last cleaned one is not the user's: the state is ``none`` (FORMAT.md §6.9).
    tests/test_listing_fast.py checks this against :func:`recover`.
    """
    if m is None or m.role != "assistant" or not m.blocks:
        return False
    visible = False
    for b in m.blocks:
        if b.type != "text":
            return False
        visible = visible or b.has_text
    return visible


def _ends_in_reply(s: SessionSummary, reader: _Reader, k: int | None, bounds, types, uuids) -> bool:
    """Whether the chain's last message record (line key ``k``; None: there is none) is a
    visible reply; then ``s`` gets the state :func:`recover` would give, ``none``."""
    if k is None or not _is_visible_reply(reader.message(bounds(k), types[k], uuids[k], 0, True)):
        return False
    s.interruption, s.tool_names = "none", []
    return True


def _interruption(
    s: SessionSummary, reader: _Reader, keys: list, bounds, types, uuids, more: bool
) -> None:
    """The recovery pipeline's interruption state of the last chain messages.

    Args:
        keys: the line keys of the last :data:`TAIL_MESSAGES` message records on the
            chain, oldest first.
        bounds, types, uuids: by line key.
        more: the chain holds more message records than these.
    """
    tail_msgs: list[Message] = []
    for k in keys:
        m = reader.message(bounds(k), types[k], uuids[k], len(tail_msgs))
        if m is not None:
            tail_msgs.append(m)
    r = recover(tail_msgs, terminal_tool_names=TERMINAL_TOOL_NAMES)
    if not r.messages and more:
        raise FallBack
    s.interruption = r.interruption.kind
    s.tool_names = r.interruption.tool_names if r.interruption.kind == "interrupted_turn" else []


def fast_summary(sf: SessionFile, data: bytes) -> tuple[SessionSummary, list[str] | None]:
    """The tail-walk summary and, when every line was valid, the file's trace ids."""
    heads = _valid_heads(data)
    if heads is not None and type(heads[0]) is _LsHeadT and _is_linear(heads):
        return _linear_summary(sf, data, heads)
    w = _walk_tail(data, heads)
    if w is None:
        raise FallBack  # no valid line: let the full reader explain
    order, types, bounds = w.order, w.types, w.bounds
    linear = type(order) is range and w.heads is not None
    chain_types = types if linear else [types[i] for i in order]
    if "session_start" not in chain_types:
        raise FallBack  # not loadable: let the full reader explain why, with lines and uuids
    s = SessionSummary(sf.session_id, sf.project, str(sf.path), sf.kind, sf.container)
    s.records = w.n_lines or 0  # every line valid and non-blank: the count is exact
    s.loadable = True
    starts = [k for k, t in zip(order, chain_types, strict=True) if t == "session_start"]
    _start_and_end(s, data, bounds, starts, reversed(order), types[order[-1]])
    # decode only the last messages on the chain, plus the latest cost/title metadata
    uuids = w.uuids
    reader = _Reader(data)
    msg_keys = [k for k in order if types[k] in MESSAGE_RECORD_TYPES]
    if not _ends_in_reply(s, reader, msg_keys[-1] if msg_keys else None, bounds, types, uuids):
        _interruption(
            s,
            reader,
            msg_keys[-TAIL_MESSAGES:],
            bounds,
            types,
            uuids,
            len(msg_keys) > TAIL_MESSAGES,
        )
    for k in msg_keys:
        if types[k] != "user_message":
            continue
        m = reader.message(bounds(k), types[k], uuids[k], 0, True)
        if m is not None and m.is_human_prompt and m.preview():
            s.first_prompt = m.preview(120)
            break
    heads = w.heads
    trace_ids: list[str] | None = None
    if heads is None:  # some line was not valid: search the bytes
        if _NON_STRING_KEY.search(data):
            raise FallBack  # a key the agent uses as String(key): the byte search misses it
        on_chain = {uuids[k] for k in order}
        if s.cost_usd is None:
            usage = _last_metadata(data, b"usage_stats", on_chain)
            if isinstance(usage, dict) and isinstance(usage.get("totalCostUSD"), (int, float)):
                s.cost_usd = float(usage["totalCostUSD"])
        name = _last_metadata(data, b"session_name", on_chain)
        s.title = name if isinstance(name, str) else None
    else:  # every line's head is decoded: metadata lines are known by their key
        trace_ids = _metadata(s, data, bounds, heads, types, None if linear else set(order))
    return s, trace_ids


def _linear_summary(sf: SessionFile, data: bytes, heads: list) -> tuple[SessionSummary, list[str]]:
    """:func:`fast_summary` of the usual file: every line valid with typed chain fields,
    and one linear chain through every line (line key = head index = chain position).

    Reads each head's type where needed instead of building columns, and decodes only the
    lines it uses.
    """
    n = len(heads)
    col = list(map(_TYPE, heads))  # (C-level passes: ~15 ns a line)
    if heads[0].type == "session_start" and col.count("session_start") == 1:
        starts = [0]  # the usual file: one session_start, the first line
    else:
        starts = [k for k, t in enumerate(col) if t == "session_start"]
        if not starts:
            raise FallBack  # not loadable: let the full reader explain why
    s = SessionSummary(sf.session_id, sf.project, str(sf.path), sf.kind, sf.container)
    s.records = n  # every line valid and non-blank: the count is exact
    s.loadable = True
    bounds = _LineIndex(data, n).bounds
    _start_and_end(s, data, bounds, starts, range(n - 1, -1, -1), heads[-1].type)
    mt = MESSAGE_RECORD_TYPES
    types, uuids = _Field(heads, "type"), _Field(heads, "uuid")
    reader = _Reader(data)
    k = n - 1
    while k >= 0 and heads[k].type not in mt:
        k -= 1
    if not _ends_in_reply(s, reader, k if k >= 0 else None, bounds, types, uuids):
        # the last TAIL_MESSAGES message records, and whether there are more
        keys: list[int] = []
        k = n
        while k and len(keys) <= TAIL_MESSAGES:
            k -= 1
            if heads[k].type in mt:
                keys.append(k)
        more = len(keys) > TAIL_MESSAGES
        if more:
            keys.pop()
        keys.reverse()
        _interruption(s, reader, keys, bounds, types, uuids, more)
    for k, h in enumerate(heads):
        if h.type != "user_message":
            continue
        m = reader.message(bounds(k), h.type, h.uuid, 0, True)
        if m is not None and m.is_human_prompt and m.preview():
            s.first_prompt = m.preview(120)
            break
    return s, _metadata(s, data, bounds, heads, types, None)


def _metadata(
    s: SessionSummary, data: bytes, bounds, heads: list, types, on_chain: set | None
) -> list[str]:
    """The title and (unless the end gave it) the cost from the last metadata records on
    the chain, when every line's head is decoded; returns the file's trace ids (any
    branch, file order, as :func:`sidtui.core.resume.process.trace_session_ids`).

    Args:
        types: the heads' types (a string or None) by line key.
        on_chain: the chain's line keys (None: every line).
    """
    keys = [h.key for h in heads]
    # the keys present (few lines have one): scanning those is much cheaper than
    # comparing every None with each wanted key
    present = list(filter(None, keys))
    if not all(type(k) is str for k in present):
        raise FallBack  # a key the agent uses as String(key) ("session_name" from a list)
    if (
        "session_name" not in present
        and "trace_session_id" not in present
        and (s.cost_usd is not None or "usage_stats" not in present)
    ):
        s.title = None
        return []
    name = _last_on_chain(data, bounds, keys, types, on_chain, "session_name")
    if s.cost_usd is None:
        usage = _last_on_chain(data, bounds, keys, types, on_chain, "usage_stats")
        if isinstance(usage, dict) and isinstance(usage.get("totalCostUSD"), (int, float)):
            s.cost_usd = float(usage["totalCostUSD"])
    s.title = name if isinstance(name, str) else None
    trace_ids: list[str] = []
    if "trace_session_id" in keys:  # any branch, file order (as trace_session_ids)
        for k, key in enumerate(keys):
            if key == "trace_session_id" and types[k] == "metadata":
                v = _metadata_value(data, bounds(k), "trace_session_id")
                if isinstance(v, str) and v not in trace_ids:
                    trace_ids.append(v)
    return trace_ids


class _Field:
    """``col[k]``: one field of the heads, read in place (no column for a few lookups)."""

    __slots__ = ("heads", "name")

    def __init__(self, heads: list, name: str) -> None:
        self.heads, self.name = heads, name

    def __getitem__(self, k: int) -> Any:
        return getattr(self.heads[k], self.name)


def _last_on_chain(data, bounds, keys, types, on_chain, key: str) -> Any:
    """The value of the last metadata record with ``key`` on the chain (None: none)."""
    if key not in keys:  # the common answer, found in C
        return None
    for k in range(len(keys) - 1, -1, -1):
        if keys[k] == key and types[k] == "metadata" and (on_chain is None or k in on_chain):
            return _metadata_value(data, bounds(k), key)
    return None


def _metadata_value(data: bytes, span: tuple[int, int], key: str) -> Any:
    """The ``value`` of a metadata line (what the byte-search path reads from it)."""
    d = _decode_line(data, *span)
    if isinstance(d, dict) and d.get("type") == "metadata" and d.get("key") == key:
        return d.get("value")
    return None


#: A ``"key":`` followed by anything but a string (a JSON string's own quotes are escaped).
_NON_STRING_KEY = re.compile(rb'"key"\s*:\s*[^"\s]')


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

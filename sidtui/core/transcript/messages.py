"""A message of the agent's loader, read from one record (FORMAT.md §4).

``user_message``, ``assistant_message`` and ``tool_result`` records become a :class:`Message`:
role, partially decoded blocks (types, ids, names, text; tool inputs and result bodies are
decoded when the UI asks: :meth:`sidtui.core.transcript.records.RecordFile.decode`) and the
record's context moved into ``_meta`` (``usage``/``model``/``stopReason``/``msgId``/
``cwd``/``gitBranch``/``permissionMode``, on every message record whatever its type). A message
shaped so the agent's loader or resume throws says how (:class:`LoaderFails`, the shape
constants); :class:`MessageScan` collects what recovery's pre-pass needs while messages are built.
"""

from __future__ import annotations

from typing import Any

import msgspec
import orjson

from sidtui.core.base.jsonparse import js_falsy
from sidtui.core.transcript.records import RecordFile
from sidtui.core.transcript.structs import (
    FAST_DECODE_ERRORS,
    META_DECODER,
    Block,
    RecordRef,
    RecordS,
    make_block,
    visible_text,
)

MESSAGE_RECORD_TYPES = frozenset({"user_message", "assistant_message", "tool_result"})
#: The record fields the loader copies into ``message._meta``, in its order: every one on
#: every message record — a user or tool_result record's ``usage`` too (FORMAT.md §5.2;
#: observed with the agent's loader, oracle cases loader-returns-nothing/*-with-*)
META_KEYS = ("usage", "model", "stopReason", "msgId", "cwd", "gitBranch", "permissionMode")


MESSAGE_DECODER = msgspec.json.Decoder(RecordS)
"""Decodes one message record's line into :class:`RecordS` (raises a msgspec error on a
line the typed decode cannot take: fall back to the line's JSON.parse value)."""


class Message(msgspec.Struct, gc=False):
    """A message as the agent's loader returns it.

    Attributes:
        index: position in the loader's message list (0-based).
        record: index into ``RecordFile.records`` (None for v1 whole-file JSON).
        uuid: the record's uuid (None for legacy records).
        line: 1-based physical line (None for v1).
        record_type: the record's ``type`` (None for v1).
        role: ``user`` / ``assistant`` (as written).
        blocks: the content blocks (a string content becomes one text block and
            ``string_content`` is True).
        meta_: ``message._meta`` merged with the per-record keys, when given at creation;
            read it through ``meta`` (built lazily from ``src`` otherwise).
        timestamp: the record's ISO timestamp, if any.
        raw: for v1 messages, the message object itself (jsonl messages decode lazily).
        src: the scanned :class:`sidtui.core.transcript.structs.RecordS` (jsonl files).
        rf: the :class:`sidtui.core.transcript.records.RecordFile` the message was read from; ``meta``
            is decoded from its line on demand.
        shape: None for a message the agent's resume pipeline takes; else what is odd
            about it, in words (:data:`NOT_AN_OBJECT`, :data:`CONTENT_NOT_A_LIST`, a null
            block...; see :func:`sidtui.core.resume.recovery.resume_failure`).
    """

    index: int
    record: int | None
    uuid: str | None
    line: int | None
    record_type: str | None
    role: str | None
    blocks: list[Block]
    meta_: dict[str, Any] | None = None
    timestamp: str | None = None
    string_content: bool = False
    raw: dict | None = None
    src: Any = None
    rf: Any = None
    shape: str | None = None

    @property
    def meta(self) -> dict[str, Any]:
        """``message._meta`` merged with the per-record keys the loader moves there.

        Built on first read from the scanned record (``src``) and then kept: most
        messages are never asked (decode only what is displayed).
        """
        m = self.meta_
        if m is None:
            m = self.meta_ = _meta_of(self.rf, self.record, self.record_type)
        return m

    @property
    def permission_mode(self) -> Any:
        """``meta["permissionMode"]`` without building ``meta`` (None when absent).

        The scan decodes the record's own ``permissionMode`` and ``message._meta``, so no
        line is read again.
        """
        s = self.src
        if self.meta_ is not None or s is None:
            return self.meta.get("permissionMode")
        if s.permissionMode is not None:  # the record's own (layer 2 reads it on any record)
            return s.permissionMode
        m = s.message
        if m is None or m.meta is None:
            return None
        return m.meta.get("permissionMode") if type(m.meta) is dict else None

    @property
    def block_types(self) -> list[str | None]:
        """The content's block types, as written (none for a string content: the agent's
        loader reports no blocks for it; ``blocks`` still holds its text to show)."""
        if self.string_content:
            return []
        return [b.type for b in self.blocks]

    @property
    def tool_names(self) -> list[str]:
        """The names of the tool_use blocks, as text (:func:`tool_name_text`)."""
        return [tool_name_text(b.name) for b in self.blocks if b.type == "tool_use"]

    @property
    def is_human_prompt(self) -> bool:
        """A real human prompt: a user message with no tool_result block (FORMAT.md §3.3)."""
        return self.role == "user" and not any(b.type == "tool_result" for b in self.blocks)

    def preview(self, width: int = 60) -> str:
        """First ``width`` characters of the first text block that is not only blank (a
        reply's thinking only when it has no text: the reply is what was said)."""
        for kinds in (("text",), ("thinking", "redacted_thinking")):
            for b in self.blocks:
                t = b.text_like if b.type in kinds else None
                if t and not t.isspace():
                    return t.strip()[:width]
        return ""


def tool_name_text(name: object) -> str:
    """A tool_use ``name`` as text: a string as written, a value JavaScript calls falsy
    (null, false, 0) as ``""``, anything else (JSON allows it; layer 6 drops only a falsy
    name) as its JSON text (``5``, ``[]``)."""
    if isinstance(name, str):
        return name
    if js_falsy(name):
        return ""
    try:
        return orjson.dumps(name).decode()
    except TypeError:
        return str(name)


#: Block types that hold the model's reasoning (layers 4 and 5 read them as text-like).
THINKING_TYPES = frozenset({"thinking", "redacted_thinking"})


class MessageScan:
    """What one pass over a message list learns for recovery's pre-scan, so it needs no pass of its own.

    :func:`load_jsonl` fills it while it builds the messages (each record is touched
    once, while hot); :func:`sidtui.core.resume.recovery.recover` takes it instead of walking
    the messages again. The rule per message is :meth:`add`; the loader's hot path holds
    an inlined copy (tests/test_loader_scan.py checks both agree).

    Attributes:
        uses, use_pos: every tool_use block's ``id`` (as written) and its message position.
        results, result_pos: every tool_result block's ``tool_use_id`` and its position.
        modes: positions where layer 2 could act: a ``_meta`` object, or a user record
            that carries ``permissionMode`` (a superset: layer 2 decides).
        shells: assistant messages whose blocks are only thinking or text with nothing
            visible (:func:`~sidtui.core.transcript.structs.visible_text`), or none: what layers 4–5
            could drop (a message with visible text is neither thinking-only nor blank).
        names_ok: every tool_use has a truthy ``name``.
        ok: False when a message held values the scan cannot classify (an unhashable
            block type, a message without a scanned record): recovery then runs every
            layer on every message.
        count: messages scanned (the scan belongs to a list of exactly this length).
        odd: some message has a :attr:`Message.shape` (recovery then checks whether the
            agent's resume pipeline throws).
    """

    __slots__ = (
        "uses",
        "use_pos",
        "results",
        "result_pos",
        "modes",
        "shells",
        "names_ok",
        "ok",
        "count",
        "odd",
    )

    def __init__(self) -> None:
        self.uses: list = []
        self.use_pos: list[int] = []
        self.results: list = []
        self.result_pos: list[int] = []
        self.modes: list[int] = []
        self.shells: list[int] = []
        self.names_ok = True
        self.ok = True
        self.count = 0
        self.odd = False

    @classmethod
    def of(cls, msgs: list[Message]) -> MessageScan:
        """The scan of a message list (one pass)."""
        scan = cls()
        add = scan.add
        for m in msgs:
            add(m)
        return scan

    def add(self, m: Message) -> None:
        """Scan the next message (its position is :attr:`count`)."""
        i = self.count
        self.count = i + 1
        if m.shape is not None:
            self.odd = True
        if not self.ok:
            return
        try:
            s = m.src
            if m.meta_ is not None or (
                s is not None and (s.message.meta is not None or s.permissionMode is not None)
            ):
                self.modes.append(i)
            textish = True
            for b in m.blocks:
                t = b.type
                if t == "tool_result":
                    self.results.append(b.tool_use_id)
                    self.result_pos.append(i)
                    textish = False
                elif t == "tool_use":
                    self.uses.append(b.id)
                    self.use_pos.append(i)
                    textish = False
                    if not b.name:
                        self.names_ok = False
                elif t == "text":
                    if textish and visible_text(b.text):
                        textish = False
                elif textish and t not in THINKING_TYPES:
                    textish = False
            if textish and m.role == "assistant":
                self.shells.append(i)
        except (AttributeError, TypeError):
            self.ok = False


_BLOCK_FIELDS = ("type", "id", "name", "tool_use_id", "text", "is_error", "thinking")


def block_from_dict(b: Any) -> Block:
    """A :class:`Block` from a decoded block (anything that is not an object → type None)."""
    if not isinstance(b, dict):
        return Block(None)
    return Block(*(b.get(k) for k in _BLOCK_FIELDS))


def blocks_from_content(content: Any) -> tuple[list[Block], bool]:
    if isinstance(content, str):
        return [make_block("text", text=content)], True
    if isinstance(content, list):
        return [block_from_dict(b) for b in content], False
    return [], False


def _meta_of(rf: RecordFile | None, record: int | None, record_type: str | None) -> dict[str, Any]:
    """``message._meta`` plus the per-record context the loader moves there (per type),
    decoded from the record's line."""
    if rf is None or record is None:
        return {}
    raw = rf.raw_at(record)
    try:
        s = META_DECODER.decode(raw)
    except FAST_DECODE_ERRORS:
        d = rf.decode_at(record)
        if not isinstance(d, dict):
            return {}
        m = d.get("message")
        mm = m.get("_meta") if isinstance(m, dict) else None
        get = d.get
    else:
        mm = s.message.meta if s.message is not None else None
        get = s.__getattribute__
    meta = dict(mm) if type(mm) is dict else {}
    keys = META_KEYS if record_type in MESSAGE_RECORD_TYPES else ()
    for k in keys:
        v = get(k)
        if v is not None:
            meta[k] = v
    v = get("permissionMode")  # layer 2 reads a record's own mode on any record (first)
    if v is not None:
        meta["permissionMode"] = v
    return meta


#: :attr:`Message.shape` of a message record whose ``message`` is not a JSON object.
NOT_AN_OBJECT = "its message is not an object"
#: :attr:`Message.shape` of a message whose ``content`` is not a list (and not a string).
CONTENT_NOT_A_LIST = "its content is not a list"
#: :attr:`Message.shape` of a message whose content is a string.
STRING_CONTENT = "its content is a string"
#: :attr:`Message.shape` of a message whose content holds a null block.
NULL_BLOCK = "its content holds a null block"


class LoaderFails(Exception):
    """The agent's loader throws on this record and loads nothing (``reason``)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def json_kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    return "an array" if isinstance(v, list) else "an object"


def odd_message(rf: RecordFile, record: int, line: int, record_type: str | None) -> tuple[str, Any]:
    """A message record whose ``message`` is no JSON object: ``(shape, message value)``.

    The agent's loader keeps it as a message with no role and no blocks; but it first
    moves the record's per-message context (any of :data:`META_KEYS`, whatever the
    record's type; any value, null too) into ``message._meta``, which throws on
    null or a string, and the whole load fails (an array is an object there).

    Raises:
        LoaderFails: the record carries such a key.
    """
    d = rf.decode_at(record)
    d = d if isinstance(d, dict) else {}
    v = d.get("message")
    what = "missing" if "message" not in d else json_kind(v)
    if what != "an array":
        keys = META_KEYS if record_type in MESSAGE_RECORD_TYPES else ()
        for k in keys:
            if k in d:
                raise LoaderFails(
                    f"line {line}: the {record_type} record's message is {what} and the "
                    f"record carries {k}: the agent's loader fails on it and loads nothing"
                )
    return f"{NOT_AN_OBJECT} ({what})", v


def content_shape(content: Any, role: Any) -> str | None:
    """What is odd about a message's ``content`` for the agent's resume pipeline
    (:attr:`Message.shape`), or None."""
    if type(content) is list:
        return NULL_BLOCK if None in content else None
    if isinstance(content, str):
        return STRING_CONTENT
    return f"{CONTENT_NOT_A_LIST} ({'missing or null' if content is None else json_kind(content)})"


def message_from_record(rf: RecordFile, rec: RecordRef, index: int) -> Message | None:
    """Message ``index`` from the scanned record ``rec`` of ``rf``: its typed scan when it
    has one, else its line decoded again (typed, or by JSON.parse's rules as a fallback).

    None when the record is no message the agent keeps (its line no longer reads, or its
    value is not a message).

    Raises:
        LoaderFails: see :func:`odd_message`.
    """
    s = rec.obj
    if s is None:
        try:
            s = MESSAGE_DECODER.decode(rf.raw(rec))
        except FAST_DECODE_ERRORS:
            return _message_from_dict(rf, rf.decode(rec), rec, index)
    return message_from_struct(s, index, rec.index, rec.uuid, rec.line, rec.type, rf)


def message_from_struct(
    s: RecordS,
    index: int,
    record: int,
    uuid: str | None,
    line: int,
    record_type: str | None,
    rf: RecordFile,
) -> Message:
    """A message from its typed scan ``s`` (``record``: the record's index in the file,
    ``line``: its 1-based physical line; ``rf``: the file it came from, kept on the message
    to read its full record back when asked).

    Raises:
        LoaderFails: see :func:`odd_message`.
    """
    m = s.message
    ts = s.timestamp
    ts = ts if isinstance(ts, str) else None
    if m is None:  # null or absent
        shape, _ = odd_message(rf, record, line, record_type)
        return Message(
            index, record, uuid, line, record_type, None, [], {}, ts, src=s, rf=rf, shape=shape
        )
    content = m.content
    shape = None
    if type(content) is list:
        blocks, is_str = content, False
    elif isinstance(content, str):
        blocks, is_str, shape = [make_block("text", text=content)], True, STRING_CONTENT
    else:
        blocks, is_str, shape = [], False, f"{CONTENT_NOT_A_LIST} (missing or null)"
    return Message(
        index,
        record,
        uuid,
        line,
        record_type,
        m.role if isinstance(m.role, str) else None,
        blocks,
        None,
        ts,
        is_str,
        None,
        s,
        rf,
        shape,
    )


def _message_from_dict(rf: RecordFile, d: Any, rec: RecordRef, index: int) -> Message | None:
    """A message from its decoded record (None: the line could not be read again).

    Raises:
        LoaderFails: see :func:`odd_message`.
    """
    if not isinstance(d, dict):
        return None
    m = d.get("message")
    ts = d.get("timestamp")
    ts = ts if isinstance(ts, str) else None
    if isinstance(m, list) or not isinstance(m, dict):
        shape, _ = odd_message(rf, rec.index, rec.line, rec.type)
        return Message(
            index, rec.index, rec.uuid, rec.line, rec.type, None, [], {}, ts, shape=shape
        )
    content = m.get("content")
    blocks, is_str = blocks_from_content(content)
    meta = dict(m["_meta"]) if isinstance(m.get("_meta"), dict) else {}
    keys = META_KEYS if rec.type in MESSAGE_RECORD_TYPES else ()
    for k in keys:
        if d.get(k) is not None:
            meta[k] = d[k]
    if d.get("permissionMode") is not None:
        meta["permissionMode"] = d["permissionMode"]  # layer 2 reads it on any record
    role = m.get("role")
    return Message(
        index,
        rec.index,
        rec.uuid,
        rec.line,
        rec.type,
        role if isinstance(role, str) else None,
        blocks,
        meta,
        ts,
        is_str,
        shape=content_shape(content, role),
    )

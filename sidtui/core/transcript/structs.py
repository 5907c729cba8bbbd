"""The typed partial records a transcript line decodes into (FORMAT.md §2.1, §3): msgspec
structs that skip every field the chain and loader never read, their decoders, and the
scan's results per line: :class:`RecordRef` (a good line) and :class:`BadLine`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from sidtui.core.base.jsonparse import (
    JS_WHITESPACE,
)

#: What a msgspec decode of file content may raise instead of returning: invalid JSON or
#: a field of another type, and nesting deeper than its C recursion allows (~1,000 levels,
#: which JSON.parse still accepts). Every fast decode of a line catches all three and lets
#: the tolerant path (JSON.parse's rules) decide.
FAST_DECODE_ERRORS = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)


class _Head(msgspec.Struct, gc=False):
    """The three fields the chain needs; every other key is skipped by msgspec.

    Typed ``str | None``: a record whose ``type``/``uuid``/``parentUuid`` has another JSON
    type fails the fast decode and the file goes through the tolerant path, which keeps
    such values as None (they end a parent walk, as in the agent).
    """

    type: str | None = None
    uuid: str | None = None
    parentUuid: str | None = None


HEAD_DECODER = msgspec.json.Decoder(_Head)
HEAD_LIST_DECODER = msgspec.json.Decoder(list[_Head])


def visible_text(t: Any) -> bool:
    """``t`` is a str that JavaScript's ``trim()`` does not empty (layer 5's test).

    The first and last characters settle the usual text without copying it.
    """
    if not isinstance(t, str) or not t:
        return False
    ws = JS_WHITESPACE
    return t[0] not in ws or t[-1] not in ws or bool(t.strip(ws))


#: One shared copy of each record type, role and block type (a decoder makes a new str
#: per value): the first :data:`SHARED_NAMES_MAX` distinct ones seen.
SHARED_NAMES: dict[str, str] = {}
SHARED_NAMES_MAX = 512


class Block(msgspec.Struct, gc=False):
    """One content block, with only what cleaning and listing need (msgspec-decoded).

    Fields hold the JSON values as written (normally strings; anything else is kept, never
    a decode failure). Tool inputs and tool-result bodies are not decoded here; the scan
    keeps no view into the file's bytes, so a big file is read in pieces and never held
    whole (peak memory within 2× the file).

    Attributes:
        type: ``text``, ``tool_use``, ``tool_result``, ``thinking``, ``redacted_thinking``...
        id: ``tool_use.id``; name: ``tool_use.name``; tool_use_id: ``tool_result.tool_use_id``.
        text: ``text.text``; thinking: ``thinking.thinking``.
        is_error: ``tool_result.is_error``.
    """

    type: Any = None
    id: Any = None
    name: Any = None
    tool_use_id: Any = None
    text: Any = None
    is_error: Any = None
    thinking: Any = None

    def __post_init__(self) -> None:
        # One str object per distinct type: a session's blocks share a handful of types,
        # and msgspec decodes each as a new string (53 bytes a block, 212 MB of 4 M tiny
        # blocks). The duplicate is freed as soon as this block is decoded.
        t = self.type
        if t.__class__ is str:
            shared = SHARED_NAMES.get(t)
            if shared is not None:
                self.type = shared
            elif len(SHARED_NAMES) < SHARED_NAMES_MAX and len(t) <= 64:
                SHARED_NAMES[t] = t

    @property
    def has_text(self) -> bool:
        """``text`` is a str with something other than whitespace, as JavaScript's
        ``trim()`` sees it (the agent's rule; Python's ``strip()`` differs on U+001C–U+001F,
        U+0085 and U+FEFF)."""
        return visible_text(self.text)

    @property
    def text_like(self) -> str | None:
        """The block's readable text: ``text`` or ``thinking`` (None otherwise)."""
        t = self.text if self.text is not None else self.thinking
        return t if isinstance(t, str) else None


#: Builds a :class:`Block` from plain values (tests, v1 files, decoded dicts).
make_block = Block


class MessageS(msgspec.Struct, gc=False):
    """``record.message``: role, blocks (partially decoded), ``_meta``."""

    role: str | None = None
    content: list[Block] | str | None = None
    meta: Any = msgspec.field(default=None, name="_meta")


class RecordS(msgspec.Struct, gc=False):
    """What reading needs from every transcript record, decoded in one C pass.

    ``type``/``uuid``/``parentUuid``, the message's role and block skeletons, the
    timestamp, the metadata ``key`` and ``permissionMode`` (the one per-record context key
    a cleaning layer reads for every message) are decoded; everything else — the other context keys the loader moves into
    ``message._meta``, metadata values, tool inputs, tool-result bodies, unknown keys —
    is skipped and decoded from the line only when asked (:class:`MetaS`). Decoding is
    typed: a record whose fields have unexpected JSON types fails here and is decided by
    the tolerant path instead.
    """

    type: str | None = None
    uuid: str | None = None
    parentUuid: str | None = None
    message: MessageS | None = None
    timestamp: str | None = None
    permissionMode: str | None = None
    key: Any = msgspec.UNSET  # UNSET: no key at all (String() of it is "undefined")


class _MetaMessage(msgspec.Struct, gc=False):
    meta: Any = msgspec.field(default=None, name="_meta")


class MetaS(msgspec.Struct, gc=False):
    """The per-record context the loader moves into ``message._meta`` (decoded on demand)."""

    message: _MetaMessage | None = None
    usage: Any = None
    model: Any = None
    stopReason: Any = None
    msgId: Any = None
    cwd: Any = None
    gitBranch: Any = None
    permissionMode: Any = None


META_DECODER = msgspec.json.Decoder(MetaS)


RECORD_DECODER = msgspec.json.Decoder(RecordS)
RECORD_LIST_DECODER = msgspec.json.Decoder(list[RecordS])
#: the one-value-per-line decoder of each record decoder (:func:`decode_lines_exact`)
LIST_DECODER_OF = {id(HEAD_DECODER): HEAD_LIST_DECODER, id(RECORD_DECODER): RECORD_LIST_DECODER}
#: the record decoder of each list decoder (a line alone is decoded in place, no copy)
ITEM_DECODER_OF = {id(HEAD_LIST_DECODER): HEAD_DECODER, id(RECORD_LIST_DECODER): RECORD_DECODER}


class RecordRef(msgspec.Struct, gc=False):
    """One JSON.parse-valid line of a transcript.

    Attributes:
        index: position in :attr:`RecordFile.records` (0-based, physical order).
        line: 1-based physical line number (blank and bad lines count).
        offset: byte offset of the line's first byte.
        end: byte offset just past the line's last byte (the ``\\n`` excluded).
        type: the record's ``type`` if it is a string, else None.
        uuid: the record's ``uuid`` if it is a string, else None.
        parent: the record's ``parentUuid`` if it is a string, else None (null, absent
            or another JSON type all end a parent walk, as in the agent).
        is_object: False for valid JSON that is not an object (``5``, ``[]``, ``null``).
        obj: the record decoded into :class:`RecordS` (None when the typed decode
            refused it; :meth:`RecordFile.decode` still works).
    """

    index: int
    line: int
    offset: int
    end: int
    type: str | None
    uuid: str | None
    parent: str | None
    is_object: bool = True
    obj: RecordS | None = None


@dataclass(slots=True)
class BadLine:
    """A line JSON.parse would reject.

    Attributes:
        line: 1-based physical line number.
        offset: byte offset of the line's first byte.
        length: the line's length in bytes (without ``\\n``).
        reason: why JSON.parse rejects it.
        terminated: False when this is the file's last line and has no ``\\n`` (a write
            may still be in progress, or was torn).
    """

    line: int
    offset: int
    length: int
    reason: str
    terminated: bool = True

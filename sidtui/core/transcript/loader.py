"""What sid-code's loader returns for a transcript (FORMAT.md §4–§5).

From the accepted chain (:mod:`sidtui.core.transcript.chain`) the message records become
messages in chain order (``transcript.messages``); ``metadata`` is last-wins per key
(first-write key order kept; a key that is no string is used as ``String(key)``); each
``session_start`` on the chain sets the session fields in turn (the last gives id, model,
provider and created time, the last string cwd and version; none ⇒ "2.0"; FORMAT.md §5.3–5.4);
``updatedAt`` is the last record's timestamp, as written. A chain without a
``session_start`` loads as nothing (the agent's ``load()`` returns null). v1 files are one
whole JSON object (``version`` missing ⇒ "0.0", as the agent reports it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from sidtui.core.base.jsonout import js_to_string
from sidtui.core.base.jsonparse import JS_WHITESPACE, js_falsy
from sidtui.core.transcript.chain import ChainResult, uuid_text
from sidtui.core.transcript.messages import (
    MESSAGE_RECORD_TYPES,
    NOT_AN_OBJECT,
    THINKING_TYPES,
    LoaderFails,
    Message,
    MessageScan,
    json_kind,
    message_from_record,
    message_from_struct,
    odd_message,
)
from sidtui.core.transcript.records import DEFINED_RECORD_TYPES, RecordFile
from sidtui.core.transcript.structs import RecordS

KNOWN_RECORD_TYPES = frozenset(DEFINED_RECORD_TYPES)


__all__ = [
    "LinearLoad",
    "LoadedSession",
    "load_jsonl",
]


class MetadataEntry(msgspec.Struct, gc=False):
    """One metadata record on the chain: ``(record index, line, key)`` (a struct: a third
    of a dataclass's build time, for the 16k of a big session)."""

    record: int | None
    line: int | None
    key: str


@dataclass
class LoadedSession:
    """What the agent's ``load()`` returns, plus where each part came from.

    Attributes:
        loadable: False when the agent loads nothing (no ``session_start`` on the chain,
            or a v1 file JSON.parse rejects).
        load_failure: why, naming the line/uuid; None when loadable.
        version: "3.0", "2.0", v1's own value or "0.0".
        session_id, model, provider, cwd, created_at, updated_at, schema_compat, kind,
        summary, directories: the loader's session fields.
        messages: the loader's messages, in order.
        metadata: last-wins map; metadata_keys: first-write order; metadata_entries: every
            metadata record on the chain, in order.
        agent_fields: the session fields exactly as the agent's loader returns them
            (``id``, ``model``, ``provider``, ``cwd``, ``createdAt``, ``updatedAt``,
            ``version``; values of any JSON type); the typed fields above are their
            strings (None for anything else), ``updated_at`` the last string timestamp.
        session_start: index of the first session_start record on the chain.
        session_starts: all session_start record indexes on the chain.
        session_ends: session_end record indexes on the chain.
        compacts: context_compact record indexes on the chain (markers only).
        opaque: chain records of a type the loader does not know (kept, shown, counted).
        warnings: loader-level warnings (malformed messages...).
        scan: recovery's pre-scan of ``messages``, filled while loading (None when the
            loader did not make one); see :class:`MessageScan`.
        fatal: why the agent's loader throws on this file (and so loads nothing), else
            None (:class:`LoaderFails`).
    """

    loadable: bool = False
    load_failure: str | None = None
    version: str | None = None
    session_id: str | None = None
    model: str | None = None
    provider: str | None = None
    cwd: str | None = None
    created_at: str | None = None
    updated_at: str | None = None
    schema_compat: str | None = None
    kind: str | None = None
    summary: str | None = None
    directories: list | None = None
    messages: list[Message] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    metadata_keys: list[str] = field(default_factory=list)
    metadata_entries: list[MetadataEntry] = field(default_factory=list)
    agent_fields: dict[str, Any] = field(default_factory=dict)
    session_start: int | None = None
    session_starts: list[int] = field(default_factory=list)
    session_ends: list[int] = field(default_factory=list)
    compacts: list[int] = field(default_factory=list)
    opaque: list[int] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    scan: MessageScan | None = field(default=None, repr=False)
    fatal: str | None = None


def nonempty_str(v: Any) -> str | None:
    """``v`` when it is a non-empty string, else None (a metadata field the agent ignores)."""
    return v if isinstance(v, str) and v else None


def load_jsonl(
    rf: RecordFile,
    chain: ChainResult,
    file_stem: str | None = None,
    *,
    ahead: LinearLoad | None = None,
) -> LoadedSession:
    """Load a v2/v3 transcript from its accepted chain, as the agent does.

    Args:
        rf: the scanned file.
        chain: :func:`sidtui.core.transcript.chain.rebuild_chain` of the same file.
        file_stem: the file name's id, used only in messages.
        ahead: the :class:`LinearLoad` given to ``scan_records(on_piece=...)`` for ``rf``;
            its work is used when the file proved to be one linear chain (same result).

    Returns:
        A :class:`LoadedSession`; ``loadable`` is False when no ``session_start`` is on
        the chain (the messages are still filled in so the UI can show what is there).
    """
    got = ahead.result(rf, chain) if ahead is not None else None
    if got is not None:
        ls, last_ts, winners = got
    else:
        ls = LoadedSession()
        if rf.objs is not None:
            last_ts, winners = _load_fast(rf, chain, ls)
        else:
            got_fast = _load_decoded(rf, chain, ls)
            if got_fast is None:
                last_ts, winners = _load_records(rf, chain, ls)
            else:
                last_ts, winners = got_fast
    proto: Any = None  # what a "__proto__" key made the metadata object's prototype
    if "__proto__" in winners:
        proto = _metadata_prototype(rf, ls)
    for key in ls.metadata_keys:  # last-wins: only the winning values are decoded
        d = rf.decode_at(winners[key])
        ls.metadata[key] = d.get("value") if isinstance(d, dict) else None
    ls.updated_at = last_ts
    if ls.session_start is not None:
        if ls.version is None:
            ls.version = "2.0"
        ls.agent_fields["version"] = ls.version
        ls.agent_fields["cwd"] = ls.cwd
        ls.agent_fields["updatedAt"] = _last_timestamp(rf, chain)
    inherited = proto if isinstance(proto, dict) else {}
    summary = ls.metadata["summary"] if "summary" in ls.metadata else inherited.get("summary")
    kind = ls.metadata["kind"] if "kind" in ls.metadata else inherited.get("kind")
    if isinstance(summary, str):
        ls.summary = summary
    if isinstance(kind, str):  # (a session_start's kind is not read)
        ls.kind = kind
    if len(ls.session_starts) > 1:
        ls.warnings.append(
            f"{len(ls.session_starts)} session_start records on the chain; the last one "
            "gives the session's id, model and provider (the agent reads each in turn)"
        )
    if ls.fatal is None and chain.linear and not rf.is_fast:
        for r in rf.records:
            if not r.is_object and rf.raw(r).strip() == b"null":
                ls.fatal = (
                    f"line {r.line} is null: the agent reads this file linearly (its last good "
                    "line has no uuid) and fails on a null line, so it loads nothing"
                )
                break
    if ls.fatal is not None:
        ls.loadable = False
        ls.load_failure = ls.fatal
    elif ls.session_start is None:
        ls.loadable = False
        ls.load_failure = _failure_reason(rf, chain)
    elif js_falsy(ls.agent_fields.get("id")):
        ls.loadable = False
        last = rf.records[ls.session_starts[-1]]
        ls.load_failure = (
            f"the last session_start on the chain (line {last.line}) has no sessionId "
            f"({json_kind(ls.agent_fields.get('id'))}): the agent's loader returns nothing"
        )
    else:
        ls.loadable = True
    return ls


#: Record types whose timestamp the agent's loader takes as ``updatedAt``.
_TIMED_TYPES = KNOWN_RECORD_TYPES


def _last_timestamp(rf: RecordFile, chain: ChainResult) -> Any:
    """``updatedAt`` as the agent's loader sets it: the ``timestamp`` of the last record
    on the chain of a type it knows, as written (None when that record has none)."""
    objs = rf.objs
    if objs is not None:  # a fast scan: its structs, never the records materialised
        for ci in reversed(chain.chain):
            o = objs[ci]
            if o.type in _TIMED_TYPES:
                return o.timestamp
        return None
    recs = rf.records
    for ci in reversed(chain.chain):
        rec = recs[ci]
        if rec.type not in _TIMED_TYPES or not rec.is_object:
            continue
        o = rec.obj
        if o is not None:
            return o.timestamp
        d = rf.decode(rec)
        return d.get("timestamp") if isinstance(d, dict) else None
    return None


def _metadata_key(key: Any) -> str:
    """A metadata record's key as the agent uses it: ``String(key)`` (``msgspec.UNSET``, a
    missing key, is ``"undefined"``)."""
    if isinstance(key, str):
        return key
    if key is msgspec.UNSET:
        return "undefined"
    try:
        return js_to_string(key)
    except RecursionError:
        return "[a deeply nested array]"


def _metadata_prototype(rf: RecordFile, ls: LoadedSession) -> Any:
    """The agent's loader sets ``metadata[key] = value``: for the key ``__proto__`` that
    makes an object (or null) value the metadata object's prototype and ignores any other
    — never a key of that name (its fields then read as inherited metadata: ``summary``,
    ``kind``). Takes the key out of ``ls.metadata_keys``, says so, and returns the
    prototype the chain's ``__proto__`` records leave (a dict, or None)."""
    proto: Any = None
    for e in ls.metadata_entries:
        if e.key != "__proto__":
            continue
        d = rf.decode_at(e.record)
        if not isinstance(d, dict) or "value" not in d:
            continue  # undefined: ignored
        v = d["value"]
        if v is None or isinstance(v, dict):
            proto = v
        elif isinstance(v, list):
            proto = {}  # an array: none of the fields sidtui reads
    ls.metadata_keys.remove("__proto__")
    ls.warnings.append(
        "a metadata record has the key __proto__: the agent's loader makes its value the "
        "prototype of the session's metadata (no key of that name; its fields read as "
        "inherited metadata)"
    )
    return proto


def _start_fields(ls: LoadedSession, index: int, d: Any) -> None:
    """The loader's session fields from one session_start record on the chain (called for
    each, in chain order: the agent reads every one, so the last wins; FORMAT.md §5.3).

    id, model, provider and timestamp are taken as written; cwd, version and schemaCompat
    only when they are strings (an empty cwd reads as none)."""
    if not isinstance(d, dict):
        d = {}  # the line could not be read again (the file changed under it)
    ls.session_starts.append(index)
    if ls.session_start is None:
        ls.session_start = index
    raw = ls.agent_fields
    raw["id"] = sid = d.get("sessionId")
    raw["model"] = model = d.get("model")
    raw["provider"] = provider = d.get("provider")
    raw["createdAt"] = ts = d.get("timestamp")
    ls.session_id, ls.model, ls.provider = (
        nonempty_str(sid),
        nonempty_str(model),
        nonempty_str(provider),
    )
    ls.created_at = nonempty_str(ts)
    v, cwd, compat = d.get("version"), d.get("cwd"), d.get("schemaCompat")
    if isinstance(v, str):
        ls.version = v
    if isinstance(cwd, str):
        ls.cwd = cwd or None
    if isinstance(compat, str):
        ls.schema_compat = compat


def _other_record(ls: LoadedSession, t: str | None, index: int) -> None:
    if t == "session_end":
        ls.session_ends.append(index)
    elif t == "context_compact":
        ls.compacts.append(index)
    else:
        ls.opaque.append(index)


def _load_records(
    rf: RecordFile, chain: ChainResult, ls: LoadedSession
) -> tuple[str | None, dict[str, int]]:
    """The loader's walk over materialised records (tolerant scans, chain-only scans)."""
    recs = rf.records
    last_ts: str | None = None
    winners: dict[str, int] = {}  # metadata key -> its last record (decoded at the end)
    messages = ls.messages
    for ci in chain.chain:
        rec = recs[ci]
        t = rec.type
        if t in MESSAGE_RECORD_TYPES:
            try:
                msg = message_from_record(rf, rec, len(messages))
            except LoaderFails as exc:
                ls.fatal = ls.fatal or exc.reason
                continue
            if msg is None:  # the line could not be read again
                continue
            messages.append(msg)
            if msg.timestamp:
                last_ts = msg.timestamp
            continue
        if not rec.is_object:
            continue
        o = rec.obj
        if t == "metadata":
            # the typed scan already holds key and timestamp; else decode the line
            d = o if o is not None else rf.decode(rec)
            ts, key = (o.timestamp, o.key) if o is not None else (d.get("timestamp"), d.get("key"))
            if isinstance(ts, str):
                last_ts = ts
            if o is None and "key" not in d:
                key = msgspec.UNSET
            key = _metadata_key(key)
            if key not in winners:
                ls.metadata_keys.append(key)
            winners[key] = rec.index
            ls.metadata_entries.append(MetadataEntry(rec.index, rec.line, key))
            continue
        d = rf.decode(rec)
        ts = d.get("timestamp")
        if isinstance(ts, str):
            last_ts = ts
        if t == "session_start":
            _start_fields(ls, rec.index, d)
        else:
            _other_record(ls, t, rec.index)
    return last_ts, winners


def _load_fast(
    rf: RecordFile, chain: ChainResult, ls: LoadedSession
) -> tuple[str | None, dict[str, int]]:
    """The same walk over a full fast scan's decoded records, plus recovery's pre-scan
    (:class:`_FastLoad` over the chain's records)."""
    run = _FastLoad(rf, ls)
    objs: list[RecordS] = rf.objs  # type: ignore[assignment]
    order = chain.chain
    run.feed(zip(order, map(objs.__getitem__, order), strict=True))
    return run.finish()


def _load_decoded(
    rf: RecordFile, chain: ChainResult, ls: LoadedSession
) -> tuple[str | None, dict[str, int]] | None:
    """:func:`_load_fast`'s walk over a per-line scan (a file with a bad or blank line:
    ``rf.records``) when every record on the chain was typed-decoded; None otherwise (the
    general walk, :func:`_load_records`, decides). The same load, ~5× faster, and
    recovery's pre-scan made on the way."""
    recs = rf.records
    order = chain.chain
    objs = [recs[ci].obj for ci in order]
    if None in objs:
        return None
    run = _FastLoad(rf, ls, [r.line for r in recs])
    run.feed(zip(order, objs, strict=True))
    return run.finish()


class _FastLoad:
    """The loader's walk over fast-scan structs, fed ``(record index, RecordS)`` pairs in
    chain order, in one or more runs (:meth:`feed`), then :meth:`finish`.

    Every record is a JSON object on its own line (record ``i`` is line
    ``start_line + i + 1``) whose ``type``/``uuid``/``timestamp`` are typed ``str|None``.
    One plain loop that touches each record once: measured 3–4× faster here than building
    the messages column-wise with C-level passes, which pay for their temporary lists and
    re-read every record; scanning each message for recovery (:class:`MessageScan`) in
    the same loop, while its blocks are in hand, saves recovery a second pass over 140k
    messages (~30 ms of ~140 ms). Fed piece by piece during the scan
    (:class:`LinearLoad`), each record is still in the CPU cache (~25 ms less).
    ``session_start`` lines are decoded in :meth:`finish` (the file may still be being
    scanned while records are fed).
    """

    __slots__ = (
        "rf",
        "ls",
        "sl",
        "k",
        "last_ts",
        "winners",
        "names_ok",
        "ok",
        "starts",
        "odd",
        "lines",
    )

    def __init__(self, rf: RecordFile, ls: LoadedSession, lines: list[int] | None = None) -> None:
        self.rf, self.ls = rf, ls
        self.sl = rf.start_line + 1
        #: each record's line when record ``i`` is not line ``start_line + i + 1`` (a
        #: per-line scan: bad and blank lines are no records)
        self.lines = lines
        self.k = 0
        self.last_ts: str | None = None
        self.winners: dict[str, int] = {}
        self.names_ok = self.ok = True
        self.starts: list[int] = []
        self.odd: list[Message] = []  # messages without a message object (see finish)
        ls.scan = MessageScan()

    def feed(self, pairs: Iterable[tuple[int, RecordS]]) -> None:
        """Walk the next chain records: ``(record index, struct)`` pairs, in chain order."""
        rf, ls, sl = self.rf, self.ls, self.sl
        lines = self.lines
        mt = MESSAGE_RECORD_TYPES
        add = ls.messages.append
        winners = self.winners
        last_ts = self.last_ts
        scan = ls.scan
        assert scan is not None
        uses, use_pos, results, result_pos = scan.uses, scan.use_pos, scan.results, scan.result_pos
        add_use, add_use_pos = uses.append, use_pos.append
        add_result, add_result_pos = results.append, result_pos.append
        modes, shells = scan.modes, scan.shells
        thinking = THINKING_TYPES
        ws = JS_WHITESPACE
        names_ok, ok, k = self.names_ok, self.ok, self.k
        for ci, o in pairs:
            t = o.type
            if t in mt:
                m = o.message
                if m is not None and type(c := m.content) is list:
                    ts = o.timestamp
                    role = m.role
                    ln = ci + sl if lines is None else lines[ci]
                    add(Message(k, ci, o.uuid, ln, t, role, c, None, ts, False, None, o, rf))
                    # MessageScan.add, inlined (a call per message costs ~15 ms here)
                    if m.meta is not None or o.permissionMode is not None:
                        modes.append(k)
                    textish = True
                    try:
                        for b in c:
                            bt = b.type
                            if bt == "tool_result":
                                add_result(b.tool_use_id)
                                add_result_pos(k)
                                textish = False
                            elif bt == "tool_use":
                                add_use(b.id)
                                add_use_pos(k)
                                textish = False
                                if not b.name:
                                    names_ok = False
                            elif bt == "text":
                                if textish:  # visible_text(b.text), inlined
                                    x = b.text
                                    if (
                                        isinstance(x, str)
                                        and x
                                        and (x[0] not in ws or x[-1] not in ws or x.strip(ws))
                                    ):
                                        textish = False
                            elif textish and bt not in thinking:
                                textish = False
                    except TypeError:  # an unhashable block type: recovery checks everything
                        ok = False
                    if textish and role == "assistant":
                        shells.append(k)
                else:
                    if m is None:  # no message object: decided in finish (still scanning)
                        ts = o.timestamp if isinstance(o.timestamp, str) else None
                        ln = ci + sl if lines is None else lines[ci]
                        msg = Message(k, ci, o.uuid, ln, t, None, [], {}, ts, src=o, rf=rf)
                        msg.shape = NOT_AN_OBJECT
                        self.odd.append(msg)
                    else:
                        ln = ci + sl if lines is None else lines[ci]
                        msg = message_from_struct(o, k, ci, o.uuid, ln, t, rf)
                    add(msg)
                    scan.count = k
                    scan.names_ok = names_ok
                    scan.add(msg)
                    names_ok = scan.names_ok
                    ts = msg.timestamp
                k += 1
                if ts:
                    last_ts = ts
                continue
            if o.timestamp is not None:
                last_ts = o.timestamp
            if t == "metadata":
                key = o.key
                if type(key) is not str:
                    key = _metadata_key(key)
                if key not in winners:
                    ls.metadata_keys.append(key)
                winners[key] = ci
                ls.metadata_entries.append(
                    MetadataEntry(ci, ci + sl if lines is None else lines[ci], key)
                )
            elif t == "session_start":
                self.starts.append(ci)
            else:
                _other_record(ls, t, ci)
        self.names_ok, self.ok, self.k, self.last_ts = names_ok, ok, k, last_ts

    def finish(self) -> tuple[str | None, dict[str, int]]:
        """Close the walk: session fields, the pre-scan's totals; ``(last timestamp,
        metadata winners)``."""
        ls, scan = self.ls, self.ls.scan
        assert scan is not None
        for ci in self.starts:
            _start_fields(ls, ci, self.rf.decode_at(ci))
        for msg in self.odd:
            assert msg.record is not None and msg.line is not None
            try:
                msg.shape = odd_message(self.rf, msg.record, msg.line, msg.record_type)[0]
            except LoaderFails as exc:
                ls.fatal = ls.fatal or exc.reason
        scan.count = self.k
        scan.names_ok = self.names_ok
        scan.ok = scan.ok and self.ok
        return self.last_ts, self.winners


class LinearLoad:
    """The loader run ahead, while :func:`sidtui.core.transcript.scan.scan_records` decodes a
    file piece by piece (its ``on_piece`` hook), on the guess that the file is one linear
    chain — the usual case, where the agent's walk takes every record in file order.

    :func:`load_jsonl` uses what it built only when the scan proved the guess
    (:attr:`RecordFile.whole`, the chain is every record, every piece was fed); otherwise
    it is dropped and the loader walks the chain as usual. The records are
    walked while they are still in the CPU cache.
    """

    __slots__ = ("rf", "run", "fed", "broken")

    def __init__(self) -> None:
        self.rf: RecordFile | None = None
        self.run: _FastLoad | None = None
        self.fed = 0
        self.broken = False

    def __call__(self, rf: RecordFile, part: list, first: int) -> None:
        """Feed records ``first .. first + len(part) - 1`` (full-scan structs)."""
        if self.broken:
            return
        if self.run is None:
            self.rf = rf
            self.run = _FastLoad(rf, LoadedSession())
        if rf is not self.rf or first != self.fed:
            self.broken = True  # not the guess this object can keep
            return
        self.run.feed(enumerate(part, first))
        self.fed = first + len(part)

    def abandon(self) -> None:
        """The scan feeds no more (the guess failed): drop what was built, now, so it does
        not stay alive next to the loader's own walk (or the tolerant scan)."""
        self.broken = True
        self.run = None
        self.rf = None

    def result(
        self, rf: RecordFile, chain: ChainResult
    ) -> tuple[LoadedSession, str | None, dict[str, int]] | None:
        """The loaded session if the guess held for ``rf`` and ``chain``, else None (and
        what was built is dropped)."""
        run = self.run
        order = chain.chain
        n = rf.count
        if (
            self.broken
            or run is None
            or rf is not self.rf
            or not rf.whole
            or self.fed != n
            or len(order) != n
            or (n and (order[0] != 0 or order[-1] != n - 1))
        ):
            self.abandon()
            return None
        last_ts, winners = run.finish()
        return run.ls, last_ts, winners


def _failure_reason(rf: RecordFile, chain: ChainResult) -> str:
    recs = rf.records
    if not recs:
        if rf.bad_lines:
            return f"no line of the file is valid JSON ({len(rf.bad_lines)} bad lines)"
        return "the file is empty"
    if chain.linear:
        return "no session_start record in the file (linear legacy parse)"
    first = recs[chain.chain[0]]
    if chain.cycle:
        return (
            f"the parent chain from line {recs[chain.tail].line} runs into a cycle at uuid "
            f"{uuid_text(chain.cycle_uuid)} before reaching session_start"
        )
    if chain.lost_parent is not None:
        bad = ""
        prior_bad = [b for b in rf.bad_lines if b.line < first.line]
        if prior_bad:
            bad = f"; line {prior_bad[-1].line} is unparseable and probably held it"
        return (
            f"the chain from the last line (line {recs[chain.tail].line}) reaches line "
            f"{first.line}, whose parent {uuid_text(chain.lost_parent)} "
            f"{chain.lost_parent_where(rf)}{bad}: "
            "session_start is never reached"
        )
    return (
        f"the chain from the last line (line {recs[chain.tail].line}) ends at line "
        f"{first.line} ({first.type}) without a session_start"
    )

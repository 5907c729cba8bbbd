"""One session as the agent will see it on resume — the view ``show`` and the app share.

:func:`open_session` scans the file once (:mod:`records`), rebuilds the loader's chain and
the whole record tree (:mod:`chain`), loads messages and metadata (:mod:`loader`), runs
the recovery pipeline (:mod:`recovery`), restores the ten state items (:mod:`state`) and
checks liveness (:mod:`process`). :meth:`SessionView.to_json` is the machine-readable
contract of ``sidtui show --json`` (keys kept stable; more may be added).

For a file the agent cannot load, everything that is there is still shown (the record tree,
the longest readable chain) and ``loadable`` says plainly that the agent will see nothing.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sidtui.core.base.errors import UnreadableInput
from sidtui.core.base.home import Home, SessionFile
from sidtui.core.resume.process import (
    Liveness,
    liveness_for,
    read_registrations,
    trace_session_ids_of,
)
from sidtui.core.resume.recovery import TERMINAL_TOOL_NAMES, RecoveryResult, recover
from sidtui.core.resume.sidechain import Sidechain, parse_sidechain, sidechains_of
from sidtui.core.resume.state import RestoredState, restore_state
from sidtui.core.transcript.chain import (
    ChainResult,
    RecordTree,
    build_tree,
    longest_readable_chain,
    rebuild_chain,
)
from sidtui.core.transcript.loader import LinearLoad, LoadedSession, load_jsonl, load_v1_json
from sidtui.core.transcript.records import FileChanged, RecordFile, read_transcript, scan_records

_TREE_SLOT = "\x00tree"  # where the tree's warnings go in the warning order

#: Bad lines named one by one in warnings (all of them stay in ``bad_lines``).
MAX_BAD_LINE_WARNINGS = 20


@dataclass
class SessionView:
    """Everything known about one session file.

    Attributes:
        home: the home it was read from.
        file: the session file.
        rf: the scanned transcript (None for v1 whole-file JSON).
        chain: the loader's chain.
        tree: the whole record tree (built on first use: reading what the agent sees
            does not need it; the Chain view and ``show`` do).
        loaded: the loader's output.
        recovery: the recovery pipeline's output (None when not loadable).
        state: the restored items.
        liveness: registration matches.
        trace_ids: every ``trace_session_id`` recorded in the file.
        sidechains: for a main session, its sub-agent transcripts.
        sidechain: for a sidechain file, its parsed content.
        format_version: "3.0", "2.0", a v1 file's own version, None for sidechains.
        warnings: every warning, worded for users (the tree's are added on first use).
    """

    home: Home
    file: SessionFile
    rf: RecordFile | None
    chain: ChainResult
    loaded: LoadedSession
    recovery: RecoveryResult | None
    state: RestoredState
    liveness: Liveness
    trace_ids: list[str] = field(default_factory=list)
    sidechains: list[Sidechain] = field(default_factory=list)
    sidechain: Sidechain | None = None
    format_version: str | None = None
    base_warnings: list[str] = field(default_factory=list)
    _tree: RecordTree | None = field(default=None, repr=False)
    _warnings: list[str] | None = field(default=None, repr=False)

    @property
    def tree(self) -> RecordTree:
        """The whole record tree (heads, tips, branches), built once on first use."""
        if self._tree is None:
            if self.rf is None:
                self._tree = RecordTree()
            else:
                gc_was_enabled = gc.isenabled()
                gc.disable()
                try:
                    self._tree = build_tree(self.rf, self.chain)
                finally:
                    if gc_was_enabled:
                        gc.enable()
        return self._tree

    @property
    def warnings(self) -> list[str]:
        """Every warning, worded for users: file, chain, tree, loader, state, process."""
        if self._warnings is None:
            out: list[str] = []
            for w in self.base_warnings:
                if w == _TREE_SLOT:
                    out.extend(self.tree.warnings(self.rf))
                else:
                    out.append(w)
            self._warnings = out
        return self._warnings

    @property
    def session_id(self) -> str:
        return self.loaded.session_id or self.file.session_id

    def longest_chain(self) -> list[int]:
        """Record indexes of the longest readable chain (for salvage and display)."""
        if self.rf is None:
            return []
        return longest_readable_chain(self.rf, self.tree)

    def full_record(self, record_index: int) -> Any:
        """The full decoded record (for raw-JSON views); None for v1 files."""
        if self.rf is None:
            return None
        return self.rf.decode(self.rf.records[record_index])

    def to_json(self) -> dict[str, Any]:
        """The ``sidtui show --json`` object (see the issue's machine-readable contract)."""
        return session_to_json(self)


def _read_bytes(path: Path, pieces: bool = False) -> bytes:
    try:
        return read_transcript(path) if pieces else path.read_bytes()
    except IsADirectoryError:
        raise UnreadableInput(f"{path} is a directory, not a session file") from None
    except PermissionError:
        raise UnreadableInput(f"permission denied reading {path}") from None
    except FileNotFoundError:
        raise UnreadableInput(f"{path} does not exist (deleted while reading?)") from None
    except OSError as exc:
        raise UnreadableInput(f"cannot read {path}: {exc.strerror or exc}") from None


def _format_version(rf: RecordFile, loaded: LoadedSession, chain: ChainResult) -> str:
    if loaded.version:
        return loaded.version
    for rec in rf.records:
        if rec.type == "session_start":
            v = rf.decode(rec).get("version")
            return v if isinstance(v, str) else "2.0"
    return "2.0" if chain.linear else "3.0"


def open_session(
    home: Home,
    sf: SessionFile,
    *,
    data: bytes | None = None,
    current_cwd: Path | None = None,
    terminal_tool_names=TERMINAL_TOOL_NAMES,
    registrations=None,
    with_sidechains: bool = True,
) -> SessionView:
    """Read one session file completely.

    Args:
        home: the home.
        sf: the file (from :func:`sidtui.core.base.home.resolve_session` or ``discover``).
        data: the file's bytes if already read (else read here).
        current_cwd: the directory a resume would run in (cross-project warning).
        terminal_tool_names: see :data:`sidtui.core.resume.recovery.TERMINAL_TOOL_NAMES`.
        registrations: pre-read registrations (else read from the home).
        with_sidechains: parse the session's sidechains (item 9 and the Sidechains tab).

    Returns:
        A :class:`SessionView`. Never raises on file *content*.

    Raises:
        UnreadableInput: the file cannot be read at all.
        FileChanged: a big file (read in pieces) got shorter while it was read, so what
            was read back from it may be wrong (an ``UnreadableInput``: exit 1).
    """
    if data is None:
        # FORMAT.md §8.5: anything this process still holds in its write queue lands first
        from sidtui.core.edits.writer import flush_pending_writes

        flush_pending_writes(sf.path)
        data = _read_bytes(sf.path, pieces=sf.container != "json")
    # Millions of small objects: the cyclic GC would rescan them over and over while
    # loading (none of them form cycles), so it is paused for the duration.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        view = _open_session(
            home, sf, data, current_cwd, terminal_tool_names, registrations, with_sidechains
        )
        src = view.rf.source if view.rf is not None else None
        if src is not None and src.changed:  # a line read back after the scan was missing
            raise FileChanged(
                f"{sf.path} changed while sidtui read it (it is shorter now): read it again"
            )
        return view
    finally:
        if gc_was_enabled:
            gc.enable()


def _open_session(
    home, sf, data, current_cwd, terminal_tool_names, registrations, with_sidechains
) -> SessionView:
    warnings: list[str] = []
    if sf.container == "json":
        rf = None
        chain = ChainResult(linear=True)
        loaded = load_v1_json(data)
        trace_ids: list[str] = []
        fmt = loaded.version
    else:
        ahead = LinearLoad()  # the loader runs during the scan if the file is linear
        rf = scan_records(data, on_piece=ahead)
        chain = rebuild_chain(rf)
        loaded = load_jsonl(rf, chain, ahead=ahead)
        trace_ids = trace_session_ids_of(rf, loaded, chain)
        fmt = None if sf.kind == "sidechain" else _format_version(rf, loaded, chain)
        for b in rf.bad_lines[:MAX_BAD_LINE_WARNINGS]:
            tail_note = (
                "" if b.terminated else " (last line, no newline: a torn or unfinished write)"
            )
            warnings.append(
                f"line {b.line} (byte {b.offset}) is not valid JSON: {b.reason}{tail_note}"
            )
        if len(rf.bad_lines) > MAX_BAD_LINE_WARNINGS:
            more = len(rf.bad_lines) - MAX_BAD_LINE_WARNINGS
            warnings.append(f"… and {more} more bad lines (all listed in --json bad_lines)")
        warnings.extend(chain.warnings(rf))
        if not chain.linear:
            warnings.append(_TREE_SLOT)
        if not rf.count and not rf.bad_lines:
            warnings.append("the file holds no records (empty or only blank lines)")
        nonobj = 0 if rf.is_fast else sum(1 for r in rf.records if not r.is_object)
        if nonobj:
            warnings.append(f"{nonobj} line(s) are valid JSON but not records (not objects)")
        if chain.linear and any(r.uuid for r in rf.records) and sf.kind == "main":
            warnings.append(
                "the last good line has no uuid, so the agent parses the whole file linearly"
            )
    warnings.extend(loaded.warnings)
    recovery = (
        recover(loaded.messages, terminal_tool_names=terminal_tool_names, scan=loaded.scan)
        if loaded.loadable
        else None
    )
    if sf.kind == "main" and not loaded.loadable:
        warnings.insert(0, f"the agent will see nothing in this file: {loaded.load_failure}")
    sidechain = None
    sidechains: list[Sidechain] = []
    if sf.kind == "sidechain" and rf is not None:
        sidechain = parse_sidechain(sf.path, rf)
    elif with_sidechains:
        for scf in sidechains_of(home, sf):
            try:
                sidechains.append(parse_sidechain(scf.path))
            except OSError as exc:
                warnings.append(f"sidechain {scf.path.name} unreadable: {exc}")
    unfinished = [
        {
            "agentId": s.agent_id,
            "agentType": s.agent_type,
            "description": s.description,
            "messages": len(s.messages),
            "path": str(s.path),
        }
        for s in sidechains
        if s.unfinished
    ]
    state = restore_state(
        home,
        sf,
        loaded,
        message_count=len(recovery.messages) if recovery else None,
        unfinished_sidechains=unfinished,
        current_cwd=current_cwd,
    )
    if sf.kind == "sidechain":
        if sidechain is not None and sidechain.unfinished:
            warnings.append("no sidechain_end: the sub-agent was killed or timed out (unfinished)")
    else:
        for w in state.warnings:
            # the unloadable reason is already the first warning; say it once
            if w not in warnings and not (not loaded.loadable and loaded.load_failure in w):
                warnings.append(w)
    if registrations is None:
        registrations = read_registrations(home)
    liveness = liveness_for(loaded.session_id or sf.session_id, trace_ids, registrations)
    if liveness.live:
        warnings.append(
            "a running agent process is writing this session now: what it holds in memory "
            "may differ from the file"
        )
    return SessionView(
        home=home,
        file=sf,
        rf=rf,
        chain=chain,
        loaded=loaded,
        recovery=recovery,
        state=state,
        liveness=liveness,
        trace_ids=trace_ids,
        sidechains=sidechains,
        sidechain=sidechain,
        format_version=fmt,
        base_warnings=warnings,
    )


def _jsonable(v: Any) -> Any:
    if isinstance(v, Path):
        return str(v)
    return v


def session_to_json(v: SessionView, *, lazy: bool = False) -> dict[str, Any]:
    """Build the ``show --json`` object for a view (stable keys; see the core issue).

    Args:
        v: the view.
        lazy: make the per-record arrays (``messages``, ``resumed``, ``records`` and the
            chain's ``lines``/``longest_readable_lines``)
            :class:`~sidtui.core.views.show_rows.RowChunks` (rows made a chunk at a time), so
            :func:`write_json_stream` can write a 100 MB session's object without holding
            hundreds of thousands of rows at once.

    The arrays are built from the scan's structs and line starts and the cleaned
    messages' parts (:mod:`sidtui.core.views.show_rows`): no record or message wrapper per row.
    """
    from sidtui.core.views.show_rows import (
        RowChunks,
        message_rows,
        record_ids,
        record_line_chunks,
        record_lines,
        record_rows,
        resumed_rows,
    )

    loadable = v.loaded.loadable and v.file.kind == "main"
    rf = v.rf

    def materialize(chunks):
        rows = RowChunks(chunks)
        return rows if lazy else rows.rows()

    def line_of(i: int) -> int:
        return record_lines(rf, (i,))[0]  # type: ignore[arg-type]

    def uuid_of(i: int) -> str | None:
        return record_ids(rf, i)[0]  # type: ignore[arg-type]

    messages = materialize(message_rows(v.loaded.messages)) if loadable else []
    resumed = []
    dropped = []
    interruption: dict[str, Any] = {"kind": None, "tool_names": []}
    integrity: dict[str, Any] = {"orphans": [], "dangling": []}
    if loadable and v.recovery is not None:
        r = v.recovery
        resumed = materialize(resumed_rows(r.messages))
        dropped = [
            {
                "layer": d.layer,
                "index": d.index,
                "uuid": d.uuid,
                "reason": d.reason,
                "block": d.block,
            }
            for d in r.dropped
        ]
        interruption = {
            "kind": r.interruption.kind,
            "tool_names": r.interruption.tool_names
            if r.interruption.kind == "interrupted_turn"
            else [],
        }
        if r.interruption.message is not None:
            m = r.interruption.message
            interruption["message"] = {
                "src_index": m.src_index,
                "uuid": m.message.uuid,
                "line": m.message.line,
                "text": m.message.preview(200),
            }
        integrity = {
            "orphans": [o[0] for o in r.integrity_before.orphans],
            "dangling": [d[0] for d in r.integrity_before.dangling],
            "after_recovery": {
                "orphans": [o[0] for o in r.integrity_after.orphans],
                "dangling": [d[0] for d in r.integrity_after.dangling],
            },
        }
    tree = v.tree
    tips = []
    branch_of = {b.tip: b for b in reversed(tree.branches)}  # the first per tip, as next() took
    for t in tree.tips:
        br = branch_of.get(t)
        tips.append(
            {
                "line": line_of(t),
                "uuid": uuid_of(t),
                "live": t == tree.live_tip,
                "skipped": br.skipped if br else 0,
                "joins_at_line": line_of(br.joins_at) if br and br.joins_at is not None else None,
            }
        )
    state_items = [
        {
            "number": it.number,
            "name": it.name,
            "value": it.value,
            "source": it.source,
            "restored": it.restored,
            "note": it.note,
            "warning": it.warning,
        }
        for it in v.state.items
    ]
    out: dict[str, Any] = {
        "session_id": v.session_id,
        "path": str(v.file.path),
        "project": v.file.project,
        "format_version": v.format_version,
        "kind": v.file.kind,
        "loadable": loadable,
        "load_failure": None
        if loadable
        else (
            "a sidechain file: the agent's session loader returns nothing for it (sub-agent "
            "transcripts are read by the sidechain scan)"
            if v.file.kind == "sidechain"
            else v.loaded.load_failure
        ),
        "model": v.loaded.model,
        "provider": v.loaded.provider,
        "cwd": v.loaded.cwd,
        "created_at": v.loaded.created_at,
        "updated_at": v.loaded.updated_at,
        "messages": messages,
        "resumed": resumed,
        "dropped": dropped,
        "interruption": interruption,
        "resume_note": v.recovery.resume_note if (loadable and v.recovery) else None,
        "integrity": integrity,
        "bad_lines": [
            {"line": b.line, "offset": b.offset, "reason": b.reason, "terminated": b.terminated}
            for b in (v.rf.bad_lines if v.rf else [])
        ],
        "branches": {
            "heads": [{"line": line_of(h), "uuid": uuid_of(h)} for h in tree.heads],
            "forked_heads": [
                {"line": line_of(h), "uuid": uuid_of(h), "source": record_ids(rf, h)[1]}  # type: ignore[arg-type]
                for h in tree.forked_heads
            ],
            "tips": tips,
            "branch_points": record_lines(rf, tree.branch_points) if rf else [],
            "skipped_records": tree.skipped_records,
        },
        "chain": {
            "lines": materialize(record_line_chunks(rf, v.chain.chain)) if rf else [],
            "linear": v.chain.linear,
            "lost_parent": v.chain.lost_parent,
            "fork_source": v.chain.fork_source,
            "longest_readable_lines": materialize(record_line_chunks(rf, v.longest_chain()))
            if rf
            else [],
        },
        "cycle": v.chain.cycle,
        "metadata": v.loaded.metadata,
        "state": state_items,
        "live": v.liveness.live,
        "stale": v.liveness.stale,
        "registrations": [
            {
                "session_id": r.session_id,
                "pid": r.pid,
                "live": r.live,
                "reason": r.reason,
                "path": str(r.path),
            }
            for r in v.liveness.registrations
        ],
        "trace_session_ids": v.trace_ids,
        "warnings": v.warnings,
        "records": materialize(record_rows(rf, v.chain.chain, encoded=lazy)) if rf else [],
    }
    if v.sidechain is not None:
        s = v.sidechain
        out["sidechain"] = {
            "parent_session_id": s.parent_session_id,
            "agent_id": s.agent_id,
            "agent_type": s.agent_type,
            "description": s.description,
            "ended": s.ended,
            "status": s.status,
            "unfinished": s.unfinished,
            "messages": [
                {
                    "index": m.index,
                    "role": m.role,
                    "blocks": [b.type for b in m.blocks],
                    "turn": m.turn,
                    "line": m.line,
                }
                for m in s.messages
            ],
        }
    if v.sidechains:
        out["sidechains"] = [
            {
                "agent_id": s.agent_id,
                "agent_type": s.agent_type,
                "path": str(s.path),
                "ended": s.ended,
                "status": s.status,
                "messages": len(s.messages),
            }
            for s in v.sidechains
        ]
    return out


#: How deep :func:`write_json_stream` looks for streamed values (``RowChunks``,
#: generators) in the object it writes; deeper values are written as plain data.
_STREAM_DEPTH = 3


def write_json_stream(obj: dict[str, Any], out, chunk: int = 2000) -> None:
    """Write a JSON object whose values may be generators, without materialising them.

    Args:
        obj: a dict; values (at any depth of nested dicts) that are
            :class:`~sidtui.core.views.show_rows.RowChunks` are written as arrays, each chunk
            with one ``orjson`` call (or as given, for chunks already encoded); values that
            are iterators (generators) are written as arrays, element by element in chunks
            of ``chunk``; everything else with orjson.
        out: a binary file object.

    The output is compact JSON (one line), equal to ``orjson.dumps`` of the materialised
    object. A value orjson refuses because a string holds a lone surrogate (JSON.parse
    accepts ``"\\ud800"``, so a transcript may carry one) is written by the standard
    library with each lone surrogate escaped as ``\\udXXX``, as ``JSON.stringify`` does.
    The cyclic GC is paused while writing: the rows are short-lived dicts and lists with
    no cycles, and its passes over them cost as much as building them.
    """
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        import types

        import orjson

        from sidtui.core.base.jsonout import dumps_lenient
        from sidtui.core.views.show_rows import RowChunks

        opts = orjson.OPT_NON_STR_KEYS
        write = out.write

        def dumps(val: Any) -> bytes:
            # lone surrogates kept as escapes, any depth (orjson alone writes 254 levels)
            return dumps_lenient(val, option=opts, default=str)

        def streamed(val: Any, depth: int = 0) -> bool:
            # streams sit in show's own keys, a few levels down at most; below that lies
            # file content (a metadata value may nest hundreds of levels: never walked)
            if isinstance(val, (RowChunks, types.GeneratorType)):
                return True
            return (
                depth < _STREAM_DEPTH
                and isinstance(val, dict)
                and any(streamed(v, depth + 1) for v in val.values())
            )

        def put(val: Any) -> None:
            if isinstance(val, RowChunks):
                write(b"[")
                sep = b""
                for rows in val:
                    if rows:
                        enc = rows if isinstance(rows, bytes) else dumps(rows)
                        if len(enc) > 2:  # not an empty array
                            write(sep)
                            write(memoryview(enc)[1:-1])  # the rows without the brackets
                            sep = b","
                write(b"]")
            elif isinstance(val, types.GeneratorType):
                write(b"[")
                buf: list[bytes] = []
                n = 0
                for item in val:
                    buf.append(dumps(item))
                    n += 1
                    if len(buf) >= chunk:
                        write((b"," if n > len(buf) else b"") + b",".join(buf))
                        buf.clear()
                if buf:
                    write((b"," if n > len(buf) else b"") + b",".join(buf))
                write(b"]")
            elif isinstance(val, dict) and streamed(val):
                put_object(val)
            else:
                write(dumps(val))

        def put_object(d: dict) -> None:
            write(b"{")
            first = True
            for k, v in d.items():
                if not first:
                    write(b",")
                first = False
                write(orjson.dumps(str(k)) + b":")
                put(v)
            write(b"}")

        put_object(obj)
        write(b"\n")
    finally:
        if gc_was_enabled:
            gc.enable()

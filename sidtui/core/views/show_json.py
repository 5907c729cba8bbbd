"""The ``sidtui show --json`` contract: :func:`session_to_json` and :func:`write_json_stream`.

Keys are kept stable (more may be added). The per-record arrays come from
:mod:`sidtui.core.views.show_rows`, chunk by chunk when streamed, so a 100 MB session's
object is written without holding all of its rows at once.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

import orjson

from sidtui.core.base.gcpause import gc_paused
from sidtui.core.base.jsonout import dumps_lenient
from sidtui.core.views.show_rows import (
    RowChunks,
    message_rows,
    record_ids,
    record_line_chunks,
    record_lines,
    record_rows,
    resumed_rows,
)

if TYPE_CHECKING:
    from sidtui.core.resume.sidechain import Sidechain
    from sidtui.core.views.session import SessionView


def session_to_json(v: SessionView, *, lazy: bool = False) -> dict[str, Any]:
    """Build the ``show --json`` object for a view.

    Args:
        v: the view.
        lazy: make the per-record arrays (``messages``, ``resumed``, ``records`` and the
            chain's ``lines``/``longest_readable_lines``) :class:`RowChunks` (rows made a
            chunk at a time), so :func:`write_json_stream` can write a 100 MB session's
            object without holding hundreds of thousands of rows at once.

    The arrays are built from the scan's structs and line starts and the cleaned
    messages' parts (:mod:`sidtui.core.views.show_rows`): no record or message wrapper per row.
    """
    loadable = v.loaded.loadable and v.file.kind == "main"
    rf = v.rf

    def materialize(chunks):
        rows = RowChunks(chunks)
        return rows if lazy else rows.rows()

    messages = materialize(message_rows(v.loaded.messages)) if loadable else []
    resumed: Any = []
    dropped: list[dict[str, Any]] = []
    interruption: dict[str, Any] = {"kind": None, "tool_names": []}
    integrity: dict[str, Any] = {"orphans": [], "dangling": [], "agent_counts_paired": []}
    fails = loadable and v.recovery is not None and v.recovery.failure is not None
    if loadable and v.recovery is not None and not fails:
        resumed = materialize(resumed_rows(v.recovery.messages))
        dropped, interruption, integrity = _recovery_json(v)
    agent = v.loaded.agent_fields  # as the agent's loader returns them (v1 and JSONL)
    out: dict[str, Any] = {
        "session_id": v.session_id,
        "path": str(v.file.path),
        "project": v.file.project,
        "format_version": agent.get("version", v.format_version)
        if v.file.container == "json"
        else v.format_version,
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
        # the session fields as the agent's loader returns them (any JSON type)
        "model": agent.get("model", v.loaded.model),
        "provider": agent.get("provider", v.loaded.provider),
        "cwd": agent.get("cwd", v.loaded.cwd),
        "created_at": agent.get("createdAt", v.loaded.created_at),
        "updated_at": agent.get("updatedAt", v.loaded.updated_at),
        "messages": messages,
        "resumed": resumed,
        "resume_fails": fails,
        "resume_failure": v.recovery.failure if fails else None,  # type: ignore[union-attr]
        "dropped": dropped,
        "interruption": interruption,
        "resume_note": v.recovery.resume_note if (loadable and v.recovery) else None,
        "integrity": integrity,
        "bad_lines": [
            {"line": b.line, "offset": b.offset, "reason": b.reason, "terminated": b.terminated}
            for b in (v.rf.bad_lines if v.rf else [])
        ],
        "branches": _branches_json(v),
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
        "state": [
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
        ],
        **v.liveness.to_json(),
        "trace_session_ids": v.trace_ids,
        "warnings": v.warnings,
        "notes": v.notes,
        "records": materialize(record_rows(rf, v.chain.chain, encoded=lazy)) if rf else [],
    }
    if v.sidechain is not None:
        out["sidechain"] = _sidechain_json(v.sidechain)
    if v.sidechains:
        out["sidechains"] = _sidechains_json(v)
    return out


def _sidechains_json(v: SessionView) -> list[dict[str, Any]]:
    """One row per sidechain file of the session (id, type, path, end, status, count)."""
    return [
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


def _recovery_json(v: SessionView) -> tuple[list, dict[str, Any], dict[str, Any]]:
    """``dropped``, ``interruption`` and ``integrity`` of a loadable view's recovery."""
    r = v.recovery
    assert r is not None
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
    interruption: dict[str, Any] = {
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
    orphans = [o[0] for o in r.integrity_before.orphans]
    dangling = [d[0] for d in r.integrity_before.dangling]
    both = set(dangling)
    integrity = {
        "orphans": orphans,
        "dangling": dangling,
        # a tool_result before its tool_use: the agent's check pairs ids in any order and
        # counts these intact (docs/DECISIONS.md, "Integrity pairs in order")
        "agent_counts_paired": [i for i in orphans if i in both],
        "after_recovery": {
            "orphans": [o[0] for o in r.integrity_after.orphans],
            "dangling": [d[0] for d in r.integrity_after.dangling],
        },
    }
    return dropped, interruption, integrity


def tip_rows(v: SessionView) -> list[dict[str, Any]]:
    """Every tip of the record tree: ``line``, ``uuid``, ``live`` (the one the loader
    resumes), ``skipped`` (records only its branch holds), ``joins_at_line``."""
    rf, tree = v.rf, v.tree
    if rf is None:
        return []
    out = []
    branch_of = {b.tip: b for b in reversed(tree.branches)}  # the first per tip, as next() took
    for t in tree.tips:
        br = branch_of.get(t)
        out.append(
            {
                "line": record_lines(rf, (t,))[0],
                "uuid": record_ids(rf, t)[0],
                "live": t == tree.live_tip,
                "skipped": br.skipped if br else 0,
                "joins_at_line": record_lines(rf, (br.joins_at,))[0]
                if br and br.joins_at is not None
                else None,
            }
        )
    return out


def _branches_json(v: SessionView) -> dict[str, Any]:
    """``branches``: the record tree's heads, tips and branch points, by line and uuid."""
    rf, tree = v.rf, v.tree

    def line_of(i: int) -> int:
        return record_lines(rf, (i,))[0]  # type: ignore[arg-type]

    def uuid_of(i: int) -> str | None:
        return record_ids(rf, i)[0]  # type: ignore[arg-type]

    tips = tip_rows(v)
    return {
        "heads": [{"line": line_of(h), "uuid": uuid_of(h)} for h in tree.heads],
        "forked_heads": [
            {"line": line_of(h), "uuid": uuid_of(h), "source": record_ids(rf, h)[1]}  # type: ignore[arg-type]
            for h in tree.forked_heads
        ],
        "tips": tips,
        "branch_points": record_lines(rf, tree.branch_points) if rf else [],
        "skipped_records": tree.skipped_records,
    }


def _sidechain_json(s: Sidechain) -> dict[str, Any]:
    """``sidechain``: a sub-agent transcript's own fields and messages."""
    return {
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
        # what the agent rebuilds to resume the sub-agent (None: its rebuild throws)
        "resumed": None
        if s.resumed is None
        else [{"role": m.role, "blocks": [b.type for b in m.blocks]} for m in s.resumed],
    }


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
    with gc_paused():
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

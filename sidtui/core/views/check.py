"""Count what is on disk: as one function (FORMAT.md §13).

Every file is read once and scanned with the product's own parser (a bad line never hides
the rest), counts come from decoded records, and a line is bad only when JSON.parse rejects
it (strict-parser rejections are listed apart); fields that never landed, checkpoint totals
and sessions vs indexes come with it. :func:`run_check` → :class:`CheckReport`.

Design notes: docs/ARCHITECTURE.md, “core/views/check.py”.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sidtui.core.base.discover import FIRST_LINE_CAP, classify_file, first_line_of, project_folders
from sidtui.core.base.errors import UnreadableInput
from sidtui.core.base.home import Home, SessionFile
from sidtui.core.base.jsonparse import JSONParseError, decode_text, js_json_parse
from sidtui.core.base.jsonparse import would_strict_parser_reject as _strict_rejects
from sidtui.core.base.pool import ordered_map
from sidtui.core.base.regular import NotRegularFile, read_regular
from sidtui.core.base.words import plural
from sidtui.core.transcript.chain import rebuild_chain
from sidtui.core.transcript.messages import LoaderFails, message_from_record
from sidtui.core.transcript.records import DEFINED_RECORD_TYPES, RecordFile
from sidtui.core.transcript.scan import scan_records
from sidtui.core.transcript.source import FileSource, read_transcript
from sidtui.core.transcript.structs import RecordRef
from sidtui.core.views.check_checkpoints import checkpoint_totals, coverage
from sidtui.core.views.check_report import (
    DEFINED_METADATA_KEYS,
    BadLineReport,
    CheckReport,
    FileCounts,
    Finding,
)
from sidtui.core.views.listing import whole_read_max

#: Optional fields inside records: (field name, record selector, key path).
_SUBFIELDS = (
    ("file_changes.lastSnapshotId", "file_changes", ("lastSnapshotId",)),
    ("file_changes.snapshotIds", "file_changes", ("snapshotIds",)),
    ("forked_from.uuid", "forked_from", ("uuid",)),
    ("session_start.version", "session_start", ("version",)),
    ("session_start.schemaCompat", "session_start", ("schemaCompat",)),
    ("context_compact.source", "context_compact", ("source",)),
    ("session_end.totalCostUSD", "session_end", ("totalCostUSD",)),
)


#: A strict parser (orjson/jq) refuses three things JSON.parse accepts: a lone surrogate
#: escape, invalid UTF-8 (read as U+FFFD) and a number beyond double range (JSON.parse gives
#: Infinity). Overflow needs a 3-digit exponent or a 100+ digit run (a shorter mantissa needs
#: an exponent ≥ 209). Candidates are found with byte searches (digits folded to "0" first)
#: and the strict parser decides.
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")


_FOLD = bytes.maketrans(b"123456789E", b"000000000e")


_BIG_EXPONENT = re.compile(rb"0e\+?000+(?:[,\]}\s]|\Z)")


_LONG_DIGITS = b"0" * 100


# --- reading -------------------------------------------------------------------------------


def _is_file_or_unstatable(e: os.DirEntry[str]) -> bool:
    """``e.is_file()``, but True when it cannot be stat'ed (a symlink loop, a link into a
    folder we may not search) or is a FIFO, a device or a socket (or a link to one):
    reading it then reports an ``unreadable_file`` with why."""
    try:
        return e.is_file() or not (e.is_dir() or not os.path.exists(e.path))
    except OSError:
        return True


def _candidates(
    home: Home, project: str | None, unreadable: list[tuple[Path, str]] | None = None
) -> list[tuple[Path, str]]:
    """(path, project folder) of every ``.jsonl``/``.json`` under ``sessions/``, as
    :func:`sidtui.core.base.discover.discover` finds them (flat files have project ``""``); folders
    that cannot be listed go to ``unreadable`` as (folder, reason)."""
    out: list[tuple[Path, str]] = []

    def scan(folder: Path, name: str) -> None:
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except FileNotFoundError:
            return
        except OSError as exc:  # a folder we cannot read hides its sessions: say so
            if unreadable is not None:
                unreadable.append((folder, exc.strerror or str(exc)))
            return
        for e in entries:
            if e.name.endswith((".jsonl", ".json")) and _is_file_or_unstatable(e):
                out.append((Path(e.path), name))

    if project is None or project == "":
        scan(home.sessions_dir, "")
    folders = project_folders(home) if project is None else ([project] if project else [])
    for name in folders:
        scan(home.sessions_dir / name, name)
    return out


class _Scan:
    """Accumulates one report; one call of :meth:`jsonl` per transcript file."""

    def __init__(self, report: CheckReport) -> None:
        self.r = report
        self.land: Counter = Counter()
        self.denoms: Counter = Counter()
        self.has_file_changes: dict[str, bool] = {}

    def jsonl(self, sf: SessionFile, data: bytes | FileSource) -> None:
        r = self.r
        path = str(sf.path)
        rf = scan_records(data)
        fc = FileCounts(path, sf.project, sf.session_id, sf.kind, len(data))
        fc.blank = rf.blank_lines
        fc.bad = len(rf.bad_lines)
        fc.lines = len(rf.records) + fc.bad
        for b in rf.bad_lines:
            r.bad_lines.append(BadLineReport(path, b.line, b.offset, b.reason, b.terminated))
        self._strict(path, rf)
        types = r.record_types if sf.kind == "main" else r.sidechain_record_types
        types.update(
            rec.type if rec.type is not None and rec.is_object else _type_key(rec)
            for rec in rf.records
        )
        if sf.kind == "main":
            self._main(fc, rf)
        r.files.append(fc)

    def _strict(self, path: str, rf: RecordFile) -> None:
        for rec in _strict_candidates(rf):
            raw = rf.raw(rec)
            if _strict_rejects(raw):
                self.r.strict_only.append(
                    BadLineReport(path, rec.line, rec.offset, _strict_reason(raw))
                )

    def _main(self, fc: FileCounts, rf: RecordFile) -> None:
        records = rf.records
        uuids = {rec.uuid for rec in records if rec.uuid is not None}
        fc.chained = bool(uuids)
        self.denoms["record"] += len(records)
        first_dangling: RecordRef | None = None
        chained = fc.chained
        decode = rf.decode
        for rec in records:
            t = rec.type
            if chained and rec.is_object:
                if rec.uuid is None:
                    fc.records_without_uuid += 1
                elif rec.parent is None:
                    fc.heads += 1
                elif rec.parent not in uuids:
                    if t == "session_start":
                        fc.fork_heads += 1  # a fork's start points at its source session id
                    else:
                        fc.dangling_parents += 1
                        first_dangling = first_dangling or rec
            if t == "assistant_message":
                continue  # nothing here is counted beyond its type
            if t == "user_message":
                self._user(rf, rec)
            elif t == "metadata":
                self._metadata(fc, decode(rec))
            elif t == "session_start":
                fc.session_starts += 1
                self._fields("session_start", decode(rec))
            elif t == "session_end":
                fc.session_ends += 1
                self._fields("session_end", decode(rec))
            elif t == "context_compact":
                self._fields("context_compact", decode(rec))
        if records and records[-1].type == "session_end":
            fc.ends_with_session_end = True
        self.has_file_changes[fc.session_id] = (
            self.has_file_changes.get(fc.session_id, False) or fc.file_changes > 0
        )
        self._structure(fc, rf, first_dangling)

    def _fields(self, selector: str, value: Any) -> None:
        self.denoms[selector] += 1
        if not isinstance(value, dict):
            return
        for name, sel, path in _SUBFIELDS:
            if sel != selector:
                continue
            v: Any = value
            for k in path:
                v = v.get(k) if isinstance(v, dict) else None
            if v is not None:
                self.land[name] += 1

    def _metadata(self, fc: FileCounts, rec: Any) -> None:
        self.denoms["metadata"] += 1
        if not isinstance(rec, dict):
            return
        key = rec.get("key")
        if not isinstance(key, str):
            key = "(no key)"
        self.r.metadata_keys[key] += 1
        if key in DEFINED_METADATA_KEYS:
            self.land[f"metadata.{key}"] += 1
        value = rec.get("value")
        if key == "file_changes":
            fc.file_changes += 1
            self._fields("file_changes", value)
        elif key == "forked_from":
            self._fields("forked_from", value)
        elif key == "trace_session_id" and isinstance(value, str):
            fc.trace_ids.append(value)

    def _user(self, rf: RecordFile, rec: RecordRef) -> None:
        try:
            msg = message_from_record(rf, rec, 0)
        except LoaderFails:  # no message object (the loader's verdict is reported elsewhere)
            msg = None
        r = self.r
        if msg is None:
            r.other_user_records += 1
            return
        n = sum(1 for b in msg.blocks if b.type == "tool_result")
        if msg.is_human_prompt:
            r.human_prompts += 1
        elif n:
            r.tool_result_records += 1
        else:
            r.other_user_records += 1  # a user_message whose role is not "user"
        r.tool_result_blocks += n
        r.max_tool_results = max(r.max_tool_results, n)

    def _structure(self, fc: FileCounts, rf: RecordFile, dangling: RecordRef | None) -> None:
        r, path = self.r, fc.path
        if fc.session_starts == 0:
            r.faults.append(
                Finding(
                    "session_start_missing",
                    path,
                    "no session_start record: the file is damaged or its first write was "
                    "cut (the agent's loader returns nothing for it)",
                )
            )
        elif fc.session_starts > 1:
            lines = [str(x.line) for x in rf.records if x.type == "session_start"]
            r.faults.append(
                Finding(
                    "session_start_multiple",
                    path,
                    f"{fc.session_starts} session_start records (lines {', '.join(lines)}): "
                    "a second process started the same id instead of resuming it",
                )
            )
        if fc.chained:
            n = fc.heads + fc.fork_heads
            if n == 0:
                r.faults.append(
                    Finding(
                        "head_missing",
                        path,
                        "no head (no record with a null parentUuid, no forked start): "
                        "the chain's beginning was lost",
                    )
                )
            elif n > 1:
                lines = [str(x.line) for x in rf.records if x.uuid is not None and x.parent is None]
                r.faults.append(
                    Finding(
                        "head_multiple",
                        path,
                        f"{n} heads (null parentUuid at lines {', '.join(lines)}"
                        + (f"; {fc.fork_heads} forked start" if fc.fork_heads else "")
                        + "): the loader reaches only the last one's history",
                    )
                )
            if fc.records_without_uuid:
                r.warnings.append(
                    Finding(
                        "records_without_uuid",
                        path,
                        f"{plural(fc.records_without_uuid, 'record')} without a uuid in a chained file",
                    )
                )
            chain = rebuild_chain(rf)  # the loader's own walk, for what only it sees
            if chain.cycle:
                r.warnings.append(
                    Finding(
                        "cycle",
                        path,
                        f"the parent chain loops at uuid {chain.cycle_uuid}: the agent's "
                        f"loader stops there and keeps {len(chain.chain)} record(s)",
                    )
                )
            if chain.chain and not any(rf.records[i].type == "session_start" for i in chain.chain):
                assert chain.tail is not None  # a chain has a tail
                first = rf.records[chain.chain[0]]
                why = (
                    f"it stops at line {first.line}, whose parent {chain.lost_parent} is not "
                    "in the file"
                    if chain.lost_parent
                    else "it runs into a cycle"
                    if chain.cycle
                    else f"it ends at line {first.line} ({first.type})"
                )
                r.warnings.append(
                    Finding(
                        "unloadable",
                        path,
                        f"the agent's loader returns nothing for this file: the chain from the "
                        f"last line (line {rf.records[chain.tail].line}) never reaches "
                        f"session_start; {why} (`sidtui salvage` can rescue it)",
                    )
                )
            if dangling is not None:
                r.warnings.append(
                    Finding(
                        "dangling_parent",
                        path,
                        f"{fc.dangling_parents} record(s) point at a parent that is not in "
                        f"the file (first: line {dangling.line}, parent {dangling.parent}); "
                        "a walk that meets one stops there",
                    )
                )
        if rf.bad_lines:
            bad = rf.bad_lines[0]
            r.warnings.append(
                Finding(
                    "bad_lines",
                    path,
                    f"{len(rf.bad_lines)} line(s) JSON.parse rejects (first: line "
                    f"{bad.line}, byte {bad.offset}: {bad.reason})",
                )
            )

    def finish_landings(self) -> None:
        land, d = self.land, self.denoms
        out: dict[str, tuple[int, int, str]] = {}
        types = self.r.record_types  # main files only, as the denominator
        for t in DEFINED_RECORD_TYPES:
            out[f"record.{t}"] = (types[t], d["record"], "records in main files")
        for k in DEFINED_METADATA_KEYS:
            out[f"metadata.{k}"] = (land[f"metadata.{k}"], d["metadata"], "metadata records")
        for name, sel, _ in _SUBFIELDS:
            label = f"{sel} metadata records" if sel in DEFINED_METADATA_KEYS else f"{sel} records"
            out[name] = (land[name], d[sel], label)
        self.r.landings = out


def _type_key(rec: RecordRef) -> str:
    if not rec.is_object:
        return "(not an object)"
    return rec.type if rec.type is not None else "(no type)"


def _strict_candidates(rf: RecordFile) -> list[RecordRef]:
    """Good lines a strict parser might refuse (a superset; the parser decides)."""
    if rf.in_pieces:  # read in pieces: span by span
        out: list[RecordRef] = []
        for recs, base, span in _spans(rf):
            out += _candidates_in(recs, span, base)
        return out
    return _candidates_in(rf.records, rf.data, rf.base_offset)


def _spans(rf: RecordFile, most: int = 4 << 20):
    """``(records, file offset, bytes)`` runs of consecutive records about ``most`` bytes
    long, read back from a file read in pieces (a bad line between records is never read)."""
    recs = rf.records
    i = 0
    while i < len(recs):
        j = i + 1
        while j < len(recs) and recs[j].end - recs[i].offset <= most:
            j += 1
        start, end = recs[i].offset, recs[j - 1].end
        try:
            yield recs[i:j], start, rf.bytes_between(start, end)
        except UnreadableInput:  # the file got shorter: its lines are not candidates
            return
        i = j


#: :func:`_candidates_in` looks at a record's bytes this many at a time (one window's
#: copies at once, not the whole line's: a 110 MB prompt was two more 110 MB copies)
_WINDOW = 4 << 20


def _candidates_in(records: list[RecordRef], data: bytes, base: int) -> list[RecordRef]:
    """:func:`_strict_candidates` of ``records``, whose bytes are ``data`` from ``base``.

    Looked at in windows of about :data:`_WINDOW` bytes, each ending just after a comma:
    no pattern sought spans a comma, and a comma never splits a UTF-8 character.
    """
    offsets: list[int] = []
    a, n = 0, len(data)
    while a < n:
        b = n if n - a <= _WINDOW else data.find(b",", a + _WINDOW) + 1 or n
        found = _suspects(data if (a, b) == (0, n) else data[a:b])
        if found is None:
            return list(records)  # invalid UTF-8 somewhere: every line is a candidate
        offsets += [a + o for o in found]
        a = b
    if not offsets:
        return []
    offsets.sort()
    return _records_at(records, [base + o for o in offsets])


def _suspects(data: bytes) -> list[int] | None:
    """Offsets in ``data`` a strict parser may refuse there (None: invalid UTF-8)."""
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    offsets = [m.end() - 1 for m in _SURROGATE.finditer(data)]
    folded = data.translate(_FOLD)
    offsets += [m.start() for m in _BIG_EXPONENT.finditer(folded)]
    i = folded.find(_LONG_DIGITS)
    while i >= 0:
        offsets.append(i)
        i = folded.find(_LONG_DIGITS, i + len(_LONG_DIGITS))
    return offsets


def _records_at(records: list[RecordRef], offsets: list[int]) -> list[RecordRef]:
    """The good records containing the given file offsets (each once, in order)."""
    from bisect import bisect_right

    starts = [rec.offset for rec in records]
    seen: dict[int, RecordRef] = {}
    for off in offsets:
        i = bisect_right(starts, off) - 1
        if i >= 0:
            rec = records[i]
            if rec.offset <= off < rec.end:
                seen.setdefault(i, rec)
    return [seen[i] for i in sorted(seen)]


def _strict_reason(raw: bytes) -> str:
    import orjson

    try:
        orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return f"a strict parser (jq/orjson) refuses it: {exc}; JSON.parse accepts it"
    return "a strict parser refuses it; JSON.parse accepts it"


def _read(path: Path) -> bytes | FileSource | str:
    """The file's bytes (a :class:`FileSource` when sparse or huge), or a one-line reason it
    cannot be read (a FIFO or a device is never opened for a blocking read)."""
    try:
        if path.name.endswith(".json"):
            return read_regular(path)
        return read_transcript(path, whole_read_max() + 1)
    except NotRegularFile as exc:
        return f"not a regular file ({exc.kind})"
    except PermissionError:
        return "permission denied"
    except FileNotFoundError:
        return "deleted while checking"
    except OSError as exc:
        return str(exc.strerror or exc)


# --- entry point ---------------------------------------------------------------------------


#: Files per worker task when checking in parallel (see ``workers`` in :func:`run_check`).
CHUNK_FILES = 200


def run_check(
    home: Home,
    *,
    project: str | None = None,
    session: SessionFile | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    workers: int = 1,
) -> CheckReport:
    """Count everything FORMAT.md §13 counts, per file, with the product's own parser.

    Args:
        home: the home to check.
        project: only this project folder under ``sessions/`` (``""``: the flat files).
        session: only this file (from :func:`sidtui.core.base.resolve.resolve_session`).
        progress: called as ``progress(done, total, path)`` after each file (after each
            chunk of :data:`CHUNK_FILES` files when parallel).
        workers: processes to scan with (files are split in chunks; the report is the same
            as with one). Parallel scanning forks, so only a caller without other threads
            gets processes (:func:`sidtui.core.base.pool.can_fork`).

    Returns:
        A :class:`CheckReport`. Never raises on file content: unreadable files and
        indexes become faults, bad lines are listed, and every other file is counted.
        Structural faults (→ exit 1): a main file with no or several ``session_start``
        records, a chained file with no or several heads (a forked start counts as its
        head), an unreadable file or index, a checkpoint entry that cannot be rebuilt.
    """
    scope: dict[str, str | None] = {"project": project, "session": None}
    report = CheckReport(str(home.root), scope)
    if session is not None:
        scope["session"] = str(session.path)
        todo = [(session.path, session.project)]
    else:
        unreadable: list[tuple[Path, str]] = []
        todo = _candidates(home, project, unreadable)
        for unlisted, why in unreadable:
            report.faults.append(
                Finding(
                    "unreadable_folder",
                    str(unlisted),
                    f"cannot list it ({why}): its sessions were not counted",
                )
            )
    scan = _Scan(report)
    total = len(todo)
    if workers > 1 and total > CHUNK_FILES:
        _scan_parallel(scan, todo, workers, progress)
    else:
        for n, (path, folder) in enumerate(todo, 1):
            _scan_one(scan, path, folder)
            if progress is not None:
                progress(n, total, str(path))
    scan.finish_landings()
    whole = session is None and project is None
    wanted: set[str] | None = None
    if not whole:
        wanted = {f.session_id for f in report.main_files}
        wanted |= {Path(p).name.removesuffix(".json") for p in report.v1_files}
    checkpoint_totals(home, wanted, report)
    coverage(scan.has_file_changes, report, whole)
    return report


def _scan_one(scan: _Scan, path: Path, folder: str) -> None:
    report = scan.r
    data = _read(path)
    if isinstance(data, str):
        report.faults.append(Finding("unreadable_file", str(path), data))
    elif isinstance(data, bytes) and path.name.endswith(".json"):  # (read whole: _read)
        _v1(report, path, data)
    else:
        head = data if isinstance(data, bytes) else data.read_any(0, FIRST_LINE_CAP)
        sf = classify_file(path, folder, first_line_of(head))
        if sf is not None:
            try:
                scan.jsonl(sf, data)
            except Exception as exc:  # noqa: BLE001 - never let one file hide the others
                report.faults.append(
                    Finding("unreadable_file", str(path), f"{type(exc).__name__}: {exc}")
                )


def _scan_chunk(root: str, chunk: list[tuple[Path, str]]) -> tuple:
    """Worker: scan ``chunk`` into a fresh partial report."""
    scan = _Scan(CheckReport(root, {}))
    for path, folder in chunk:
        _scan_one(scan, path, folder)
    return scan.r, scan.land, scan.denoms, scan.has_file_changes


def _scan_parallel(
    scan: _Scan,
    todo: list[tuple[Path, str]],
    workers: int,
    progress: Callable[[int, int, str], None] | None,
) -> None:
    """Scan ``todo`` in chunks on ``workers`` forked processes; merge in file order."""
    chunks = [todo[i : i + CHUNK_FILES] for i in range(0, len(todo), CHUNK_FILES)]
    done = 0
    root = scan.r.home
    # results come in submission order, so the merged report equals a serial scan
    parts = ordered_map(lambda chunk: _scan_chunk(root, chunk), chunks, workers)
    for chunk, part in zip(chunks, parts, strict=True):
        _merge(scan, part)
        done += len(chunk)
        if progress is not None:
            progress(done, len(todo), str(chunk[-1][0]))


def _merge(scan: _Scan, part: tuple) -> None:
    rep, land, denoms, has_fc = part
    r = scan.r
    r.files += rep.files
    r.v1_files += rep.v1_files
    r.record_types.update(rep.record_types)
    r.sidechain_record_types.update(rep.sidechain_record_types)
    r.metadata_keys.update(rep.metadata_keys)
    r.human_prompts += rep.human_prompts
    r.tool_result_records += rep.tool_result_records
    r.other_user_records += rep.other_user_records
    r.tool_result_blocks += rep.tool_result_blocks
    r.max_tool_results = max(r.max_tool_results, rep.max_tool_results)
    r.bad_lines += rep.bad_lines
    r.strict_only += rep.strict_only
    r.faults += rep.faults
    r.warnings += rep.warnings
    scan.land.update(land)
    scan.denoms.update(denoms)
    for sid, has in has_fc.items():
        scan.has_file_changes[sid] = scan.has_file_changes.get(sid, False) or has


def _v1(report: CheckReport, path: Path, data: bytes) -> None:
    report.v1_files.append(str(path))
    try:
        value = js_json_parse(decode_text(data))
    except JSONParseError as exc:
        report.warnings.append(
            Finding(
                "v1_unreadable",
                str(path),
                f"not valid JSON ({exc.reason}): the agent loads nothing",
            )
        )
        return
    if not isinstance(value, dict):
        report.warnings.append(Finding("v1_unreadable", str(path), "not a JSON object"))

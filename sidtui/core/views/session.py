"""One session as the agent will see it on resume — the view ``show`` and the app share.

:func:`open_session` scans the file once (:mod:`records`), rebuilds the loader's chain and
the whole record tree (:mod:`chain`), loads messages and metadata (:mod:`loader`), runs
the recovery pipeline (:mod:`recovery`), restores the twelve state items (:mod:`state`) and
checks liveness (:mod:`process`). :meth:`SessionView.to_json` is the ``sidtui show --json``
object (:mod:`sidtui.core.views.show_json`).

For a file the agent cannot load, everything that is there is still shown (the record tree,
the longest readable chain) and ``loadable`` says plainly that the agent will see nothing.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sidtui.core.base.errors import UnreadableInput, unreadable
from sidtui.core.base.gcpause import gc_paused
from sidtui.core.base.home import Home, SessionFile
from sidtui.core.base.model_views import ModelViews
from sidtui.core.base.regular import read_regular
from sidtui.core.resume.interruption import TERMINAL_TOOL_NAMES
from sidtui.core.resume.process import (
    Liveness,
    liveness_for,
    read_registrations,
    trace_session_ids_of,
)
from sidtui.core.resume.recovery import RecoveryResult, recover
from sidtui.core.resume.sidechain import Sidechain, parse_sidechain, sidechains_of
from sidtui.core.resume.state import RestoredState, restore_state
from sidtui.core.transcript.chain import (
    ChainResult,
    RecordTree,
    build_tree,
    longest_readable_chain,
    rebuild_chain,
)
from sidtui.core.transcript.loader import LinearLoad, LoadedSession, load_jsonl
from sidtui.core.transcript.records import RecordFile
from sidtui.core.transcript.scan import scan_records
from sidtui.core.transcript.source import (
    STREAM_ABOVE,
    FileChanged,
    FileSource,
    read_transcript,
    trim_note,
)
from sidtui.core.transcript.wholejson import load_v1_json
from sidtui.core.transcript.writer import flush_pending_writes
from sidtui.core.views.show_json import session_to_json

_TREE_SLOT = "\x00tree"  # where the tree's warnings go in the warning order

#: Bad lines named one by one in warnings (all of them stay in ``bad_lines``).
MAX_BAD_LINE_WARNINGS = 20


@dataclass
class SessionView(ModelViews):
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

    export_items = "sidtui.core.views.export_items"
    reading_module = "sidtui.core.views.reading"

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
                with gc_paused(freeze_above=FREEZE_ABOVE):
                    self._tree = build_tree(self.rf, self.chain)
        return self._tree

    @property
    def notes(self) -> list[str]:
        """What is off the chain by sidtui's own doing (a rewind taken back): said, not
        counted as a warning (:meth:`RecordTree.notes`)."""
        return self.tree.notes(self.rf) if self.rf is not None else []

    @property
    def warnings(self) -> list[str]:
        """Every warning, worded for users: file, chain, tree, loader, state, process."""
        if self._warnings is None:
            out: list[str] = []
            for w in self.base_warnings:
                if w == _TREE_SLOT:
                    if self.rf is not None:  # the slot is only set for a scanned file
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

    def to_json(self, lazy: bool = False) -> dict[str, Any]:
        """The ``sidtui show --json`` object (:func:`sidtui.core.views.show_json.session_to_json`;
        ``lazy``: long lists as iterators, for the streamed writer)."""
        return session_to_json(self, lazy=lazy)

    # --- the common model (sidtui.core.sources.base.SessionModel) ---------------------

    source = "sid-code"

    @property
    def conversation(self) -> Sequence[Any]:
        """What the agent sends on resume: the cleaned messages (none when not loadable)."""
        return self.recovery.messages if self.recovery is not None else []

    @property
    def tip_rows(self) -> list[dict[str, Any]]:
        """Every tip (:func:`~sidtui.core.views.show_json.tip_rows`), with the common
        ``kind`` (``resume``: the live tip; ``branch``), ``resume`` and ``records``."""
        from sidtui.core.views.show_json import tip_rows

        return [
            {
                **t,
                "kind": "resume" if t["live"] else "branch",
                "resume": t["live"],
                "records": t["skipped"],
            }
            for t in tip_rows(self)
        ]

    @property
    def resume_leaf(self) -> str | None:
        """The uuid of the tail the loader resumes from (None: linear, empty or v1)."""
        tail = self.chain.tail
        if self.rf is None or tail is None or self.chain.linear:
            return None
        from sidtui.core.views.show_rows import record_ids

        return record_ids(self.rf, tail)[0]

    @property
    def interruption_kind(self) -> str | None:
        return self.recovery.interruption.kind if self.recovery is not None else None

    @property
    def interruption_tools(self) -> list[str]:
        r = self.recovery
        if r is None or r.interruption.kind != "interrupted_turn":
            return []
        return list(r.interruption.tool_names)

    @property
    def bad_lines(self) -> list[Any]:
        return self.rf.bad_lines if self.rf is not None else []


def _read_bytes(path: Path, pieces: bool = False) -> bytes | FileSource:
    try:
        return read_transcript(path) if pieces else read_regular(path)
    except OSError as exc:
        raise unreadable(path, exc) from None


def _format_version(rf: RecordFile, loaded: LoadedSession, chain: ChainResult) -> str:
    if loaded.version is not None:
        return loaded.version
    for rec in rf.records:
        if rec.type == "session_start":
            v = rf.decode(rec).get("version")
            return v if isinstance(v, str) else "2.0"
    return "2.0" if chain.linear else "3.0"


#: Tracked containers a load must keep for its view to be frozen out of the cyclic GC
#: (a session of about 1 MB; a test fixture stays below it).
FREEZE_ABOVE = 1_000


def open_session(
    home: Home,
    sf: SessionFile,
    *,
    data: bytes | FileSource | None = None,
    current_cwd: Path | None = None,
    terminal_tool_names=TERMINAL_TOOL_NAMES,
    registrations=None,
    with_sidechains: bool = True,
) -> SessionView:
    """Read one session file completely.

    Args:
        home: the home.
        sf: the file (from :func:`sidtui.core.base.resolve.resolve_session` or ``discover``).
        data: the file's bytes if already read (else read here).
        current_cwd: the directory a resume would run in (cross-project warning).
        terminal_tool_names: see :data:`sidtui.core.resume.interruption.TERMINAL_TOOL_NAMES`.
        registrations: pre-read registrations (else read from the home).
        with_sidechains: parse the session's sidechains (item 9 and the Sidechains tab).

    Returns:
        A :class:`SessionView`. Never raises on file *content*.

    Raises:
        UnreadableInput: the file cannot be read at all.
        FileChanged: a big file (read in pieces) got shorter while it was read, so what
            was read back from it may be wrong (an ``UnreadableInput``: exit 1).
    """
    src: bytes | FileSource
    if data is None:
        # FORMAT.md §8.5: anything this process still holds in its write queue lands first
        flush_pending_writes(sf.path)
        src = _read_bytes(sf.path, pieces=sf.container != "json")
    else:
        src = data
    # Millions of small objects: the cyclic GC would rescan them over and over while
    # loading (none of them form cycles), so it is paused for the duration, and the view
    # is frozen out of later collections when big (the first one after the pause walked
    # ~120k content lists of a 100 MB session: 45–70 ms; see docs/DECISIONS.md).
    with gc_paused(freeze_above=FREEZE_ABOVE):
        view = _open_session(
            home, sf, src, current_cwd, terminal_tool_names, registrations, with_sidechains
        )
    pieces = view.rf.source if view.rf is not None else None
    if pieces is not None and pieces.changed:  # a line read back after the scan was missing
        raise FileChanged(
            f"{sf.path} changed while sidtui read it (it is shorter now): read it again"
        )
    return view


def _sidechains(
    home: Home, sf: SessionFile, rf: RecordFile | None, with_sidechains: bool, warnings: list[str]
) -> tuple[Sidechain | None, list[Sidechain]]:
    """``(this file as a sidechain, or None; the session's own sidechains when asked)``;
    a sidechain that cannot be read is a warning."""
    sidechains: list[Sidechain] = []
    if sf.kind == "sidechain" and rf is not None:
        return parse_sidechain(sf.path, rf), sidechains
    if with_sidechains:
        odd: list[str] = []
        for scf in sidechains_of(home, sf, odd):
            try:
                sidechains.append(parse_sidechain(scf.path))
            except OSError as exc:
                warnings.append(f"sidechain {scf.path.name} unreadable: {exc}")
            except UnreadableInput as exc:  # replaced by a FIFO or a device since listed
                warnings.append(f"sidechain {scf.path.name} unreadable: {exc}")
        warnings.extend(f"sidechain {line}" for line in odd)
    return None, sidechains


def _read_jsonl(sf: SessionFile, data: Any, warnings: list[str]):
    """Scan, chain and load a v2/v3 transcript or a sidechain; the file's own warnings go
    to ``warnings``. Returns ``(rf, chain, loaded, trace_ids, format_version)``."""
    ahead = LinearLoad()  # the loader runs during the scan if the file is linear
    # the agent's sidechain readers read a file whole at any size (no streaming)
    side = sf.kind == "sidechain"
    rf = scan_records(data, on_piece=None if side else ahead, streamed=False if side else None)
    chain = rebuild_chain(rf)
    loaded = load_jsonl(rf, chain, ahead=ahead)
    trace_ids = trace_session_ids_of(rf, loaded, chain)
    fmt = None if side else _format_version(rf, loaded, chain)
    if rf.trimmed is not None:
        warnings.append(
            f"the file holds {trim_note(data, rf.trimmed)}: the agent trims it "
            f"away because it reads a file of at most {STREAM_ABOVE >> 20} MiB whole; "
            "above that size it reads line by line and would find that line unreadable"
        )
    for b in rf.bad_lines[:MAX_BAD_LINE_WARNINGS]:
        tail_note = "" if b.terminated else " (last line, no newline: a torn or unfinished write)"
        warnings.append(f"line {b.line} (byte {b.offset}) is not valid JSON: {b.reason}{tail_note}")
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
    return rf, chain, loaded, trace_ids, fmt


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
        rf, chain, loaded, trace_ids, fmt = _read_jsonl(sf, data, warnings)
    warnings.extend(loaded.warnings)
    recovery = (
        recover(loaded.messages, terminal_tool_names=terminal_tool_names, scan=loaded.scan)
        if loaded.loadable
        else None
    )
    if sf.kind == "main" and not loaded.loadable:
        warnings.insert(0, f"the agent will see nothing in this file: {loaded.load_failure}")
    elif recovery is not None and recovery.failure is not None:
        warnings.insert(0, f"the agent cannot resume this session: {recovery.failure}")
    sidechain, sidechains = _sidechains(home, sf, rf, with_sidechains, warnings)
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
            failure = loaded.load_failure if not loaded.loadable else None
            if w not in warnings and not (failure is not None and failure in w):
                warnings.append(w)
    if registrations is None:
        registrations = read_registrations(home)
    liveness = liveness_for(
        {sf.session_id, loaded.session_id or sf.session_id}, trace_ids, registrations
    )
    if liveness.live and not all(r.possibly for r in liveness.registrations if r.live):
        warnings.append(
            "a running agent process is writing this session now: what it holds in memory "
            "may differ from the file"
        )
    elif liveness.live:
        odd = "; ".join(f"{r.path}: {r.reason}" for r in liveness.registrations if r.live)
        warnings.append(f"counted as possibly live: its registration cannot be told ({odd})")
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


def current_view(view):
    """``view``, re-read when the file changed size since it was read (an agent or our own
    queue appended): rewinds, forks and switches decide on what is on disk now."""
    flush_pending_writes(view.file.path)
    if view.rf is None:
        return view
    try:
        size = os.stat(view.file.path).st_size
    except OSError:
        return view
    if size == view.rf.size:
        return view
    return open_session(view.home, view.file, with_sidechains=False)

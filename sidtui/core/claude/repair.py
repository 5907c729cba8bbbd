"""``repair``: a new Claude Code session that Claude Code resumes whole (docs/CLAUDE-CODE.md
§10.8).

Claude Code 2.1.332 resumes less than a damaged transcript holds: it does not salvage the
records of a torn or glued line, it does not bridge a parent that was never written the way
sidtui reads it, and a reply whose sibling is an ``isApiErrorMessage`` record the next prompt
hangs off is on a branch resume never walks. A repair copies every complete record of the
conversation sidtui reads — one record per line, each parent a record of the copy — into a
new session beside the source:

- a parent never written: the record hangs off the record sidtui bridges it to;
- a torn or glued line: every complete record in it is written on a line of its own;
- a reply behind an API-error sibling: the reply's branch is put back on the conversation,
  just before the error record (which Claude Code leaves out when it sends);
- inline sidechain records (the pre-2.0 layout) come along, still sidechains;
- file-history snapshots with their blobs, and the ``<session>/subagents/`` and
  ``<session>/tool-results/`` files (byte for byte).

The source is never written; the copy is made and checked by the fork machinery
(:func:`~sidtui.core.claude.fork.prepare_cut`), then checked again: every conversation
record copied must be on the copy's conversation.
"""

from __future__ import annotations

import os
import uuid as _uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sidtui.core.base import safefs
from sidtui.core.base.errors import SidtuiError, UsageError
from sidtui.core.base.regular import read_regular
from sidtui.core.claude.fork import (
    ClaudeForkResult,
    Cut,
    ForkError,
    PreparedFork,
    prepare_cut,
    with_parallel,
    write_fork,
)
from sidtui.core.claude.scan import CONVERSATION_TYPES
from sidtui.core.claude.tree import BRANCH, SIDECHAIN

#: Folders beside a main transcript (``<session>/…``) carried over to the repair.
SIBLING_FOLDERS = ("subagents", "tool-results")
#: Most files carried over from one sibling folder (a bound on untrusted input).
MAX_SIBLING_FILES = 10_000
#: Largest sibling file carried over (bytes).
MAX_SIBLING_BYTES = 256 * 1024 * 1024


def _new_uuid() -> str:
    return str(_uuid.uuid4())


@dataclass
class RepairResult:
    """What :func:`repair_session` did (or, for a dry run, would do).

    Attributes:
        fork: the new session (:class:`~sidtui.core.claude.fork.ClaudeForkResult`).
        fixes: what the copy mends, each ``{"what", "line", "detail"}`` — ``bridged`` (a
            parent never written, or on the damaged line named), ``salvaged`` (a record from a damaged line), ``reply``
            (a reply behind an API-error sibling, put back).
        lost: damaged lines with nothing complete to copy, ``{"line", "reason"}``.
        files_copied: subagent and tool-result files carried over (a dry run: to copy).
        branches_left: branches (rewinds, stale writers) not copied (`sidtui branch` forks
            each into a session of its own).
    """

    fork: ClaudeForkResult
    fixes: list[dict[str, Any]] = field(default_factory=list)
    lost: list[dict[str, Any]] = field(default_factory=list)
    files_copied: int = 0
    branches_left: int = 0

    def to_json(self) -> dict[str, Any]:
        d = self.fork.to_json()
        d["kind"] = "repair"
        d["fixes"] = self.fixes
        d["lost"] = self.lost
        d["files_copied"] = self.files_copied
        d["branches_left"] = self.branches_left
        return d


@dataclass
class PreparedRepair:
    """A verified repair not yet written."""

    result: RepairResult
    fork: PreparedFork
    files: list[tuple[Path, Path]]  # (source file, target) carried over


def hidden_replies(view: Any) -> dict[int, int]:
    """Replies hidden behind an API-error sibling: API-error record on the conversation →
    the last record of the branch to put before it.

    The branch hangs off the error record's parent, holds an assistant record that is no
    API error, and no typed prompt (a rewind's branch starts with one)."""
    tree, objs = view.tree, view.scan.objs
    on_conv = set(tree.conversation)
    errors = {
        tree.parent[i]: i
        for i in tree.conversation
        if objs[i].type == "assistant" and objs[i].isApiErrorMessage is True and tree.parent[i] >= 0
    }
    out: dict[int, int] = {}
    for t in tree.tips:
        e = errors.get(t.joins_at) if t.joins_at is not None else None
        if t.kind != BRANCH or e is None or e in out or not t.records:
            continue
        recs = [objs[k] for k in t.records]
        if objs[t.records[0]].type != "assistant" or not all(k not in on_conv for k in t.records):
            continue
        if any(o.type == "user" and not _is_result_or_meta(o) for o in recs):
            continue
        if any(o.type == "assistant" and o.isApiErrorMessage is not True for o in recs):
            out[e] = t.records[-1]
    return out


def _is_result_or_meta(o: Any) -> bool:
    from sidtui.core.claude.kinds import TOOL_RESULTS, user_kind

    return o.isMeta is True or user_kind(o) == TOOL_RESULTS


def _repair_cut(view: Any) -> tuple[Cut, list[dict[str, Any]], int]:
    """The copy set: the conversation, what hangs below its leaf, hidden replies put back,
    inline sidechains; the fixes it makes; the branches left out."""
    tree, objs, lines = view.tree, view.scan.objs, view.scan.lines
    keep = set(tree.conversation) | set(tree.after_leaf)
    fixes: list[dict[str, Any]] = []
    relink: dict[int, int] = {}
    hidden = hidden_replies(view)
    kids: dict[int, list[int]] = {}
    for i in keep:
        if tree.parent[i] in hidden:
            kids.setdefault(tree.parent[i], []).append(i)
    for e, last in sorted(hidden.items()):
        t = tree.tip_of(last)
        assert t is not None
        keep |= with_parallel(tree, set(t.records))
        # what followed the error follows the reply; the error stays where it was, a side
        # leaf (Claude Code leaves API errors out when it sends); an error nothing follows
        # follows the reply itself
        for c in kids.get(e, [e]):
            relink[c] = last
        fixes.append(
            {
                "what": "reply",
                "line": lines[t.records[0]],
                "detail": f"a reply hidden behind the API error at line {lines[e]} is put back",
            }
        )
    side = [t for t in tree.tips if t.kind == SIDECHAIN]
    for t in side:
        keep.update(tree.walk(t.index))
    damaged = [b.line for b in view.scan.bad_lines]
    for i in sorted(tree.bridges):
        if i in keep:
            p = tree.parent[i]
            # a damaged line between the bridge and the record most likely held the parent
            # (as the resume prediction says it; a record torn or zeroed keeps no uuid)
            low = lines[p] if p >= 0 else 0
            near = max((d for d in damaged if low < d < lines[i]), default=None)
            where = "was never written" if near is None else f"is on damaged line {near}"
            fixes.append(
                {
                    "what": "bridged",
                    "line": lines[i],
                    "detail": f"its parent {tree.bridges[i]} {where}; it follows "
                    + (f"line {lines[p]}" if p >= 0 else "nothing (a root)"),
                }
            )
    salvaged = {b.line for b in view.scan.bad_lines}
    for i in sorted(keep):
        if lines[i] in salvaged and objs[i].uuid is not None:
            fixes.append(
                {
                    "what": "salvaged",
                    "line": lines[i],
                    "detail": "a complete record on a damaged line, written on a line of its own",
                }
            )
    branches = sum(1 for t in tree.branches if not any(k in keep for k in t.records))
    cut = Cut("repair", keep, tree.leaf, None, None, relink)
    return cut, fixes, branches


def prepare_repair(
    view: Any, *, session_id: str | None = None, new_uuid: Callable[[], str] = _new_uuid
) -> PreparedRepair:
    """Build and check a repair of ``view`` (nothing written).

    Raises:
        UsageError: a subagent file, or no conversation.
        ForkError: the copy would not resume whole (nothing is written).
    """
    if view.file.kind != "main":
        raise UsageError("cannot repair a subagent transcript; repair its session")
    if view.tree.leaf is None:
        raise UsageError(f"{view.file.path.name} has no conversation to repair")
    cut, fixes, branches = _repair_cut(view)
    pf = prepare_cut(view, cut, session_id=session_id, new_uuid=new_uuid)
    res = pf.result
    res.kind = "repair"
    res.warnings = [w for w in res.warnings if "subagent transcript" not in w]
    _check_whole(view, pf, cut)
    lost = [
        {"line": b.line, "reason": b.reason}
        for b in view.scan.bad_lines
        if not any(view.scan.lines[i] == b.line for i in cut.keep)
    ]
    files = _sibling_files(view, res.session_id)
    if view.liveness.live:  # as a conversation rewind: the copy is what was read
        res.warnings.append(
            "the session is live: the copy holds what was on disk when sidtui read it"
        )
    if branches:
        res.warnings.append(
            f"{branches} branch(es) resume does not pick stay in the source "
            "(`sidtui branch` forks each into a session of its own)"
        )
    rr = RepairResult(res, fixes, lost, len(files), branches)
    return PreparedRepair(rr, pf, files)


def _check_whole(view: Any, pf: PreparedFork, cut: Cut) -> None:
    """The copy's conversation holds every main-side conversation record copied."""
    from sidtui.core.claude.layout import ClaudeFile
    from sidtui.core.claude.transcript import load_transcript

    res = pf.result
    objs = view.scan.objs
    back = load_transcript(ClaudeFile(res.path, res.session_id, view.file.project), pf.data)
    got = len([i for i in back.tree.conversation if back.scan.objs[i].type in CONVERSATION_TYPES])
    aside = {e for e in hidden_replies(view) if e not in cut.relink}  # errors left as side leaves
    want = sum(
        1
        for i in cut.keep
        if objs[i].type in CONVERSATION_TYPES and objs[i].isSidechain is not True and i not in aside
    )
    if got != want:
        raise ForkError(
            f"the repaired copy would resume {got} of the {want} records it holds; nothing "
            "was written"
        )


def _sibling_files(view: Any, new_id: str) -> list[tuple[Path, Path]]:
    """The regular files of the source's ``<session>/subagents/`` and ``tool-results/``
    (one level), with their places beside the new session."""
    src_dir = view.file.path.parent / view.session_id
    dst_dir = view.file.path.parent / new_id
    out: list[tuple[Path, Path]] = []
    for name in SIBLING_FOLDERS:
        try:
            entries = sorted(os.scandir(src_dir / name), key=lambda e: e.name)
        except OSError:
            continue
        for e in entries[:MAX_SIBLING_FILES]:
            if e.is_file(follow_symlinks=False):
                out.append((Path(e.path), dst_dir / name / e.name))
    return out


def write_repair(prepared: PreparedRepair) -> RepairResult:
    """Write a prepared repair: the sibling files, then the blobs and the transcript (the
    transcript last, linked into place complete). A failure removes what this call wrote.

    Raises:
        ForkError: a write failed (nothing of the repair is left).
    """
    import shutil

    rr = prepared.result
    res = rr.fork
    top = res.path.parent / res.session_id
    made = not top.exists()
    copied = 0
    try:
        for s, t in prepared.files:
            try:
                data = read_regular(s, MAX_SIBLING_BYTES, follow=False)
            except (OSError, SidtuiError) as exc:
                res.warnings.append(f"not carried over: {s.name} ({exc})")
                continue
            safefs.create_new(t, data, 0o600)
            copied += 1
    except (OSError, safefs.UnsafePath) as exc:
        if made:
            shutil.rmtree(top, ignore_errors=True)
        raise ForkError(
            f"cannot write {top}: {getattr(exc, 'strerror', None) or exc}; nothing was written"
        ) from None
    try:
        write_fork(prepared.fork, op="repair")
    except ForkError:
        if made:
            shutil.rmtree(top, ignore_errors=True)
        raise
    rr.files_copied = copied
    return rr


def repair_session(
    view: Any,
    *,
    dry_run: bool = False,
    session_id: str | None = None,
    new_uuid: Callable[[], str] = _new_uuid,
) -> RepairResult:
    """:func:`prepare_repair` then, unless ``dry_run``, :func:`write_repair`."""
    prepared = prepare_repair(view, session_id=session_id, new_uuid=new_uuid)
    if dry_run:
        prepared.result.fork.dry_run = True
        return prepared.result
    return write_repair(prepared)

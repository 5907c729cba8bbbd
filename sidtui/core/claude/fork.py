"""New Claude Code sessions made from an existing one: fork at a prompt, of the whole
conversation, or of a branch (docs/CLAUDE-CODE.md §10.6–10.7).

A fork is a new ``projects/<same folder>/<new uuid>.jsonl`` Claude Code can ``--resume``;
the source is never written. :func:`remap_records` gives every copied record a new uuid,
the same wherever the old one was named, rewrites ``sessionId`` and adds ``forkedFrom``;
parents not copied are joined as the reader bridges them. The checkpoints of copied prompts
come along with their blobs. :func:`prepare_fork` reads the copy back with the reader (the
intended leaf and messages) before :func:`write_fork` links it into place, complete.

:func:`write_fork` keeps a journal in ``<claude home>/sidtui/forks/<new id>/`` while it
writes; what a killed sidtui left (a blob folder without its transcript, hidden temp
files) is removed by the next fork (:func:`clean_dead_forks`) and said.
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
from sidtui.core.base.jsonout import stringify
from sidtui.core.checkpoints.journal import note_complete, write_journal
from sidtui.core.claude.file_history import blob_name_ok, read_blob
from sidtui.core.claude.fork_journal import clean_dead_forks, drop_journal, forks_dir
from sidtui.core.claude.kinds import checkpoint_prompt
from sidtui.core.claude.scan import CONVERSATION_TYPES, DAG_TYPES
from sidtui.core.claude.tree import PARALLEL

#: Top-level keys never searched for uuids (payloads: text and tool data are copied as is).
PAYLOAD_KEYS = frozenset(
    {"message", "toolUseResult", "data", "content", "snapshot", "compactMetadata", "forkedFrom"}
)
#: Session-setting records copied when they precede the cut (no uuid of their own).
SETTING_TYPES = frozenset({"permission-mode", "mode", "agent-setting"})
SNAPSHOT_TYPES = frozenset({"file-history-snapshot", "file-history-delta"})


class ForkError(SidtuiError):
    """A fork could not be made or written (exit 1); nothing was written."""


def _new_uuid() -> str:
    return str(_uuid.uuid4())


def _map(v: Any, mapping: dict[str, str]) -> Any:
    return mapping.get(v, v) if isinstance(v, str) else v


def remap_records(
    records: list[dict[str, Any]],
    new_session_id: str,
    source_session_id: str,
    new_uuid: Callable[[], str] = _new_uuid,
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Copies of ``records`` with every record uuid replaced (see the module docstring).

    Args:
        records: decoded records, file order (not changed).
        new_session_id: the fork's session id.
        source_session_id: the source's (for ``forkedFrom``).
        new_uuid: uuid factory (tests and the demo pass a seeded one).

    Returns:
        ``(copies, mapping)``: ``mapping`` is old uuid → new uuid. A ``parentUuid`` that
        names no copied record becomes null (the record is a root of the copy).
    """
    mapping: dict[str, str] = {}
    for r in records:
        u = r.get("uuid")
        if isinstance(u, str) and r.get("type") in DAG_TYPES and u not in mapping:
            mapping[u] = new_uuid()
    out = []
    for r in records:
        d: dict[str, Any] = {}
        own = r.get("uuid") if r.get("type") in DAG_TYPES else None
        for k, v in r.items():
            if k == "uuid":
                d[k] = _map(v, mapping)
            elif k == "parentUuid":
                d[k] = mapping.get(v) if isinstance(v, str) else None
            elif k in ("sessionId", "session_id"):
                d[k] = new_session_id
            elif k == "snapshot" and isinstance(v, dict):
                s = dict(v)
                if "messageId" in s:
                    s["messageId"] = _map(s["messageId"], mapping)
                d[k] = s
            elif k == "compactMetadata" and isinstance(v, dict):
                d[k] = _remap_compact(v, mapping)
            elif k == "forkedFrom":
                continue  # replaced below: the copy names its own source
            elif k in PAYLOAD_KEYS:
                d[k] = v
            else:
                d[k] = _map(v, mapping)
        if isinstance(own, str):
            d["forkedFrom"] = {"sessionId": source_session_id, "messageUuid": own}
        out.append(d)
    return out, mapping


def _remap_compact(v: dict[str, Any], mapping: dict[str, str]) -> dict[str, Any]:
    d = dict(v)
    seg = d.get("preservedSegment")
    if isinstance(seg, dict):
        d["preservedSegment"] = {k: _map(x, mapping) for k, x in seg.items()}
    kept = d.get("preservedMessages")
    if isinstance(kept, list):
        d["preservedMessages"] = [_map(x, mapping) for x in kept]
    elif isinstance(kept, dict):  # 2.1.332: {"anchorUuid", "uuids": [...], "allUuids": [...]}
        d["preservedMessages"] = {
            k: [_map(x, mapping) for x in x_] if isinstance(x_, list) else _map(x_, mapping)
            for k, x_ in kept.items()
        }
    return d


@dataclass
class ClaudeForkResult:
    """A session written (or, for a dry run, prepared) by :func:`prepare_fork`.

    Attributes:
        session_id, path: the new session and its file (a dry run's are provisional: the
            real run picks its own id when it writes).
        source_session_id, source_path: where it was copied from.
        leaf_uuid: the new session's resume leaf; source_leaf_uuid: the record it copies.
        message_count: messages of the new session's conversation (as sidtui reads it).
        resume_messages: messages ``claude --resume`` of the new session sends (the resume
            prediction, :mod:`~sidtui.core.claude.resume`: turns merged, before the last
            compaction left out); None until the copy is verified.
        records_copied: records written; left_out: record types not copied → count.
        blobs_copied: file-history blobs copied into ``file-history/<session_id>/``.
        blobs_missing: backups the copied snapshots name whose blob was already gone.
        kind: ``whole``, ``before-prompt`` or ``branch``.
    """

    session_id: str
    path: Path
    source_session_id: str
    source_path: Path
    leaf_uuid: str | None
    source_leaf_uuid: str | None
    message_count: int
    records_copied: int
    kind: str
    left_out: dict[str, int] = field(default_factory=dict)
    blobs_copied: int = 0
    blobs_missing: int = 0
    warnings: list[str] = field(default_factory=list)
    dry_run: bool = False
    resume_messages: int | None = None
    #: Always False: a Claude Code fork is written whole or not at all, never finished
    #: from an interrupted run's copy (sid-code's ``ForkResult.resumed``; one renderer).
    resumed: bool = field(default=False, init=False)

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` shape; a dry run's ``session_id``, ``path``, ``leaf_uuid`` and
        ``resume`` are null (the real run picks its ids when it writes)."""
        real = not self.dry_run
        return {
            "source": "claude-code",
            "session_id": self.session_id if real else None,
            "path": str(self.path) if real else None,
            "source_session_id": self.source_session_id,
            "source_path": str(self.source_path),
            "leaf_uuid": self.leaf_uuid if real else None,
            "source_leaf_uuid": self.source_leaf_uuid,
            "message_count": self.message_count,
            "resume_messages": self.resume_messages,
            "records_copied": self.records_copied,
            "kind": self.kind,
            "left_out": self.left_out,
            "blobs_copied": self.blobs_copied,
            "blobs_missing": self.blobs_missing,
            "warnings": self.warnings,
            "dry_run": self.dry_run,
            "resume": f"claude --resume {self.session_id}" if real else None,
        }


@dataclass
class PreparedFork:
    """A verified fork not yet written: the bytes and the blobs to copy."""

    result: ClaudeForkResult
    data: bytes
    blobs: list[tuple[Path, Path]]  # (source blob, target)
    blob_dir: Path
    request: dict[str, Any] = field(default_factory=dict)  # prepare_fork's before/tip


def _nearest_conversation(tree: Any, objs: list[Any], i: int, keep: set[int] | None) -> int | None:
    """``i`` or its nearest ancestor that is a user/assistant record (in ``keep``)."""
    while i >= 0:
        if objs[i].type in CONVERSATION_TYPES and (keep is None or i in keep):
            return i
        i = tree.parent[i]
    return None


def with_parallel(tree: Any, base: set[int]) -> set[int]:
    """``base`` plus every parallel-tool side branch hanging off it (at any depth)."""
    out = set(base)
    pending = [t for t in tree.tips if t.kind == PARALLEL]
    grew = True
    while grew:
        grew = False
        rest = []
        for t in pending:
            if t.joins_at is not None and t.joins_at in out:
                out.update(t.records)
                grew = True
            else:
                rest.append(t)
        pending = rest
    return out


def _parent_in(tree: Any, i: int, keep: set[int]) -> int | None:
    """The nearest display ancestor of ``i`` that is copied (None: a root of the copy)."""
    p = tree.parent[i]
    while p >= 0 and p not in keep:
        p = tree.parent[p]
    return p if p >= 0 else None


def _fresh_session_id(folder: Path, blob_root: Path, new_uuid: Callable[[], str]) -> str:
    for _ in range(100):
        sid = new_uuid()
        if not (folder / f"{sid}.jsonl").exists() and not (blob_root / sid).exists():
            return sid
    raise ForkError(f"cannot find a free session id in {folder}")  # pragma: no cover


@dataclass
class Cut:
    """What a fork copies: the records kept, the leaf it resumes, the messages expected."""

    kind: str
    keep: set[int]
    leaf: int
    expect: list[Any] | None
    line: int | None  # settings records before this line are copied (None: all)
    relink: dict[int, int] = field(default_factory=dict)  # record → its parent in the copy


def _cut(view: Any, before: int | None, tip: int | None) -> Cut:
    """The copy set of a fork (see :func:`prepare_fork`).

    Raises:
        UsageError: nothing comes before the cut, or no such message.
    """
    tree, objs, lines = view.tree, view.scan.objs, view.scan.lines
    if tip is not None:
        keep = with_parallel(tree, set(tree.walk(tip)))
        leaf = _nearest_conversation(tree, objs, tip, None)
        kind, expect, line = "branch", None, lines[tip]
    elif before is not None:
        if not 0 <= before < len(view.messages):
            raise UsageError(f"no message {before} in the conversation")
        m = view.messages[before]
        keep = set(tree.conversation[: tree.conversation.index(m.record)])
        leaf = _nearest_conversation(tree, objs, tree.parent[m.record], keep)
        kind, expect, line = "before-prompt", view.messages[:before], m.line
    else:
        keep = set(tree.conversation) | set(tree.after_leaf)
        leaf = tree.leaf
        kind, expect, line = "whole", list(view.messages), None
    if leaf is None or not keep:
        raise UsageError("nothing to fork: no message comes before that point")
    return Cut(kind, keep, leaf, expect, line)


def _choose(view: Any, cut: Cut) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The records to copy, decoded, file order (parents joined to copied records); and
    the count of records left out per type.

    Raises:
        ForkError: a record cannot be read back.
    """
    tr = view.transcript
    tree, objs, lines = tr.tree, tr.scan.objs, tr.scan.lines
    keep = cut.keep
    copied = {objs[i].uuid for i in keep if objs[i].uuid is not None}
    chosen: list[dict[str, Any]] = []
    left_out: dict[str, int] = {}
    for i, o in enumerate(objs):
        t = o.type or "(no type)"
        maybe = t not in DAG_TYPES and (t in SNAPSHOT_TYPES or t == "summary" or t in SETTING_TYPES)
        if i not in keep and not maybe:
            left_out[t] = left_out.get(t, 0) + 1
            continue
        d = tr.record(i)
        if not isinstance(d, dict):
            raise ForkError(
                f"line {lines[i]} of {view.file.path} cannot be read back (the file "
                "changed while sidtui read it?): nothing was written"
            )
        if i not in keep:
            if not (
                (t in SNAPSHOT_TYPES and checkpoint_prompt(o) in copied)
                or (t == "summary" and d.get("leafUuid") in copied)
                or (t in SETTING_TYPES and (cut.line is None or lines[i] < cut.line))
            ):
                left_out[t] = left_out.get(t, 0) + 1
                continue
            if t == "file-history-snapshot" and d.get("messageId") not in copied:
                d = {**d, "messageId": checkpoint_prompt(o)}  # an update's editor is not copied
        elif i in cut.relink:
            d = {**d, "parentUuid": objs[cut.relink[i]].uuid}
        elif o.parentUuid is not None:
            p = _parent_in(tree, i, keep)
            d = {**d, "parentUuid": objs[p].uuid if p is not None else None}
        chosen.append(d)
    return chosen, dict(sorted(left_out.items()))


def prepare_fork(
    view: Any,
    *,
    before: int | None = None,
    tip: int | None = None,
    session_id: str | None = None,
    new_uuid: Callable[[], str] = _new_uuid,
) -> PreparedFork:
    """Build and verify a fork of ``view`` (nothing written).

    Args:
        view: a main :class:`~sidtui.core.claude.session.ClaudeSessionView`.
        before: a message index: the fork ends just before that message (a typed prompt).
        tip: a record index: the fork is the conversation ending at that record (a branch
            resume will not pick, or any record of the tree).
        session_id: the new id (default: a fresh uuid).
        new_uuid: uuid factory for the remapped records (and the default id).

    Raises:
        UsageError: a subagent file, nothing to copy, both ``before`` and ``tip``.
        ForkError: the copy would not resume as intended (nothing is written).
    """
    if view.file.kind != "main":
        raise UsageError("cannot fork a subagent transcript; fork its session")
    if before is not None and tip is not None:
        raise UsageError("fork at a prompt or at a branch, not both")
    if view.tree.leaf is None:
        raise UsageError(f"{view.file.path.name} has no conversation to fork")
    prepared = prepare_cut(view, _cut(view, before, tip), session_id=session_id, new_uuid=new_uuid)
    prepared.request = {"before": before, "tip": tip}
    if before is not None:
        prepared.result.warnings[:0] = rewind_notes(view, before)
    return prepared


def rewind_notes(view: Any, before: int) -> list[str]:
    """Where a copy ending before message ``before`` resumes otherwise than Claude Code's own
    conversation rewind (``--resume-session-at`` the prompt's parent) of the source, as
    measured with Claude Code 2.1.332 (docs/CLAUDE-CODE.md §10.6)."""
    out = []
    m = view.messages[before]
    if m.compacted:
        cb = view.tree.compactions[-1]
        out.append(
            f"Claude Code's own rewind cannot go back this far: the prompt at line {m.line} is before the "
            f"compaction at line {view.scan.lines[cb]}, which Claude Code no longer loads (it "
            "answers 'No message found'); this copy holds the conversation as it was before "
            "that compaction"
        )
    if before and view.messages[before - 1].role == "user":
        out.append(
            "Claude Code may add a turn of its own ('No response requested.') when it resumes "
            f"this copy: it ends on a {view.messages[before - 1].kind.replace('_', ' ')} "
            "record, which Claude Code's own rewind sends with the next prompt instead"
        )
    return out


def prepare_cut(
    view: Any,
    cut: Cut,
    *,
    session_id: str | None = None,
    new_uuid: Callable[[], str] = _new_uuid,
) -> PreparedFork:
    """:func:`prepare_fork` for a copy set made elsewhere (``repair``'s).

    Raises:
        ForkError: the copy would not resume as intended, or the source's path is not
            valid UTF-8 (docs/DECISIONS.md: such a name is refused, in the dry run too;
            the journal and the copy's records name it); nothing is written.
    """
    from sidtui.core.claude.layout import ClaudeHome

    try:
        str(view.file.path).encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(view.file.path).decode("ascii", "backslashreplace")
        raise ForkError(
            f"the session file's path is not valid UTF-8 ({shown}): sidtui cannot tell "
            "which file it names; nothing written (rename it to copy it)"
        ) from None
    objs = view.scan.objs
    tip = cut.leaf if cut.kind == "branch" else None
    home = view.home if view.home is not None else ClaudeHome(view.file.path.parent.parent.parent)
    folder = view.file.path.parent
    new_id = session_id or _fresh_session_id(folder, home.file_history_dir, new_uuid)
    source_sid = view.session_id
    chosen, left_out = _choose(view, cut)
    kind, keep, leaf, expect = cut.kind, cut.keep, cut.leaf, cut.expect
    copies, mapping = remap_records(chosen, new_id, source_sid, new_uuid)
    data = b"".join(stringify(d) + b"\n" for d in copies)
    path = folder / f"{new_id}.jsonl"
    res = ClaudeForkResult(
        new_id,
        path,
        source_sid,
        view.file.path,
        mapping.get(objs[leaf].uuid or ""),
        objs[leaf].uuid,
        0,
        len(copies),
        kind,
        left_out,
    )
    _verify(res, data, view, expect, mapping, keep, tip)
    blobs, missing = _blobs(copies, home.file_history(source_sid), home.file_history(new_id))
    res.blobs_missing = missing
    if missing:
        res.warnings.append(
            f"{missing} backup(s) the copied checkpoints name were already gone from the source "
            "(unrecoverable there too)"
        )
    subagents = [a for a in getattr(view, "subagents", []) if a.file is not None]
    if subagents:
        res.warnings.append(
            f"{len(subagents)} subagent transcript(s) stay with the source session (not copied)"
        )
    return PreparedFork(res, data, blobs, home.file_history(new_id))


def _verify(
    res: ClaudeForkResult,
    data: bytes,
    view: Any,
    expect: list[Any] | None,
    mapping: dict[str, str],
    keep: set[int],
    tip: int | None,
) -> None:
    """Read the copy back with the reader: one file, no damaged line, the intended leaf,
    the intended messages."""
    from sidtui.core.claude.layout import ClaudeFile
    from sidtui.core.claude.resume import predict_for
    from sidtui.core.claude.transcript import load_transcript

    back = load_transcript(ClaudeFile(res.path, res.session_id, view.file.project), data)
    if back.scan.bad_lines:
        raise ForkError("the copy does not read back cleanly (a damaged line): nothing written")
    got = back.scan.objs[back.tree.leaf].uuid if back.tree.leaf is not None else None
    if got != res.leaf_uuid:
        raise ForkError(
            "Claude Code would resume the copy at another record than intended (a later "
            "side branch); nothing was written"
        )
    res.message_count = len(back.messages)
    res.resume_messages = len(predict_for(back).messages)
    if expect is not None:
        want = [mapping.get(m.uuid or "") for m in expect]
        if [m.uuid for m in back.messages] != want:
            raise ForkError(
                "the copy's conversation differs from the source's up to that point; nothing "
                "was written"
            )
    elif tip is not None:
        objs = view.scan.objs
        need = {
            mapping[objs[i].uuid]
            for i in view.tree.walk(tip)
            if objs[i].type in CONVERSATION_TYPES and objs[i].uuid in mapping
        }
        have = {back.scan.objs[i].uuid for i in back.tree.conversation}
        if not need <= have:
            raise ForkError("the copy does not resume the whole branch; nothing was written")


def _blobs(
    copies: list[dict[str, Any]], src: Path, dst: Path
) -> tuple[list[tuple[Path, Path]], int]:
    names: dict[str, None] = {}
    for d in copies:
        if d.get("type") == "file-history-snapshot":
            snap = d.get("snapshot")
            tfb = snap.get("trackedFileBackups") if isinstance(snap, dict) else None
            entries = list(tfb.values()) if isinstance(tfb, dict) else []
        elif d.get("type") == "file-history-delta":
            entries = [d.get("backup")]
        else:
            continue
        for e in entries:
            n = e.get("backupFileName") if isinstance(e, dict) else None
            if isinstance(n, str) and blob_name_ok(n):
                names.setdefault(n, None)
    out, missing = [], 0
    for n in names:
        s = src / n
        if os.path.isfile(s) and not os.path.islink(s):
            out.append((s, dst / n))
        else:
            missing += 1
    return out, missing


def write_fork(prepared: PreparedFork, op: str = "fork") -> ClaudeForkResult:
    """Write a prepared fork: its blobs first, then the transcript (linked into place
    complete), under a journal in :func:`forks_dir`. A failure (an interrupt too) removes
    what this call wrote; what a killed run left is removed by the next one first
    (:func:`clean_dead_forks`, said in the warnings).

    Raises:
        ForkError: a write failed (nothing of the fork is left).
    """
    import shutil

    res = prepared.result
    notes, complete = clean_dead_forks(prepared.blob_dir, res.path.parent)
    res.warnings.extend(notes)
    for c in complete:  # a killed run of this same request had finished its copy
        part = c["part"]
        if (c["op"], part.get("source"), part.get("request")) == (
            op,
            res.source_session_id,
            prepared.request,
        ):
            res.session_id, res.path = str(c["id"]), Path(str(part.get("transcript")))
            res.warnings.append(
                f"an interrupted sidtui {op} had already written this copy ({c['id']}); "
                "nothing else was written"
            )
            return res
    made_dir = not prepared.blob_dir.exists()
    jfolder = forks_dir(prepared.blob_dir) / res.session_id
    part = {
        "transcript": str(res.path),
        "blobDir": str(prepared.blob_dir),
        "madeDir": made_dir,
        "source": res.source_session_id,
        "request": prepared.request,
    }
    try:
        write_journal(jfolder, {"op": op, "claudeFork": part})
    except (OSError, SidtuiError) as exc:
        drop_journal(jfolder)
        raise ForkError(
            f"cannot start the new session in {jfolder}: "
            f"{getattr(exc, 'strerror', None) or exc}; nothing was written"
        ) from None
    try:
        for s, t in prepared.blobs:
            try:
                blob, st = read_blob(s)
            except OSError as exc:  # a FIFO, a symlink, above the ceiling: not copied
                res.blobs_missing += 1
                res.warnings.append(f"backup not copied: {exc.strerror or exc}")
                continue
            safefs.create_new(t, blob, st.st_mode)
            res.blobs_copied += 1
        note_complete(res.session_id, res.path)  # once create_new linked it, complete
        safefs.create_new(res.path, prepared.data, 0o600)
    except BaseException as exc:
        if not os.path.lexists(res.path):
            if made_dir:
                shutil.rmtree(prepared.blob_dir, ignore_errors=True)
            res.blobs_copied = 0
        drop_journal(jfolder)
        if isinstance(exc, (OSError, safefs.UnsafePath)):
            raise ForkError(
                f"cannot write the new session {res.path}: "
                f"{getattr(exc, 'strerror', None) or exc}; nothing was written"
            ) from None
        raise
    drop_journal(jfolder)
    return res


def fork_session(
    view: Any,
    *,
    before: int | None = None,
    tip: int | None = None,
    dry_run: bool = False,
    session_id: str | None = None,
    new_uuid: Callable[[], str] = _new_uuid,
) -> ClaudeForkResult:
    """:func:`prepare_fork` then, unless ``dry_run``, :func:`write_fork`."""
    prepared = prepare_fork(view, before=before, tip=tip, session_id=session_id, new_uuid=new_uuid)
    if dry_run:
        prepared.result.dry_run = True
        prepared.result.blobs_copied = 0
        return prepared.result
    return write_fork(prepared)


def branch_tips(view: Any) -> list[dict[str, Any]]:
    """Every leaf of ``view``'s tree: ``index`` (its record, for :func:`fork_session`'s
    ``tip``), ``uuid``, ``line``, ``type``, ``kind``, ``live`` (resume picks it),
    ``rewind``, ``records`` (its branch), ``timestamp``, ``messages`` (its conversation)."""
    objs, lines, tree = view.scan.objs, view.scan.lines, view.tree
    messages = conversation_depths(tree.parent, objs, [t.index for t in tree.tips])
    out = []
    for t in tree.tips:
        out.append(
            {
                "index": t.index,
                "uuid": objs[t.index].uuid,
                "line": lines[t.index],
                "type": objs[t.index].type,
                "kind": t.kind,
                "live": t.kind == "resume",
                "rewind": t.rewind,
                "records": len(t.records),
                "timestamp": t.timestamp,
                "messages": messages[t.index],
            }
        )
    return out


def conversation_depths(parent: list[int], objs: list[Any], starts: list[int]) -> dict[int, int]:
    """User/assistant records on the parent walk from each of ``starts`` to its root
    (``tree.walk``'s records), for every record passed on the way: O(records) in all, as
    the walks share their ancestors (a file with thousands of tips stays linear)."""
    memo: dict[int, int] = {}
    for start in starts:
        path = []
        i = start
        while i >= 0 and i not in memo:
            path.append(i)
            i = parent[i]
        n = memo[i] if i >= 0 else 0
        for j in reversed(path):
            n += objs[j].type in CONVERSATION_TYPES
            memo[j] = n
    return memo

"""Claude Code's file checkpoints: snapshot records folded per prompt, backups, blobs, chain
health (docs/CLAUDE-CODE.md §4.7, §10.1–10.2).

:func:`read_file_history` groups ``file-history-snapshot`` lines by ``snapshot.messageId``
(the last line wins) and folds ``file-history-delta`` records in (a path added only when
absent): one :class:`Checkpoint` per prompt. A :class:`Backup` is a path's
``sha256(path)[:16]@v<n>`` blob in ``file-history/<session>/`` or null (the file did not
exist); a blob not on disk is unrecoverable, never guessed. :meth:`FileHistory.state_before`
is what a code rewind writes back; :func:`backup_counts` is ``check``'s count.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sidtui.core.base import safefs
from sidtui.core.base.chain_health import LinkChain
from sidtui.core.base.errors import UsageError
from sidtui.core.base.regular import (
    NotRegularFile,
    TooBig,
    ceiling,
    kind_of,
    open_regular,
    read_open,
)
from sidtui.core.base.values import json_int as _int
from sidtui.core.base.values import json_str as _s
from sidtui.core.checkpoints.index import INFLATE_CEILING, INFLATE_ENV

SNAPSHOT = "file-history-snapshot"
DELTA = "file-history-delta"
#: A backup file name as Claude Code writes it (16 hex of the path's sha256, ``@v`` + n).
BACKUP_NAME = re.compile(r"^([0-9a-f]{16})@v(\d+)$")


def read_blob(path: Path) -> tuple[bytes, os.stat_result]:
    """A backup blob's bytes and ``fstat``: never through a symlink, never waiting on a
    FIFO, and at most ``SIDTUI_MAX_INFLATE_BYTES`` (1 GiB: what sidtui gives back of a
    stored version; a sparse 2 GB blob is refused, not read as zeros).

    Raises:
        OSError: it cannot be read; ``strerror`` says why (a symlink, a FIFO, too big).
    """
    limit = ceiling(INFLATE_ENV, INFLATE_CEILING)
    try:
        fd, st = open_regular(path, follow=False)
    except NotRegularFile as exc:
        raise OSError(errno.EINVAL, f"{path.name} is not a regular file ({exc.kind})") from None
    try:
        return read_open(
            fd,
            st,
            path,
            limit,
            too_big=f"{path.name} is {{size}} bytes, more than the {{limit}} sidtui reads "
            f"of a backup ({INFLATE_ENV})",
        ), st
    except TooBig as exc:
        raise OSError(errno.EFBIG, str(exc)) from None
    finally:
        os.close(fd)


def path_hash(abs_path: str) -> str:
    """``sha256(absolute path)`` as hex, first 16 digits (the blob name's prefix)."""
    return hashlib.sha256(abs_path.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def blob_name_ok(name: str) -> bool:
    """A backup name that is a plain file name (never a path out of the folder)."""
    return bool(name) and "/" not in name and "\x00" not in name and name not in (".", "..")


@dataclass(frozen=True)
class Backup:
    """One path's entry in a checkpoint.

    Attributes:
        key: the path as written in ``trackedFileBackups`` (relative or absolute).
        path: the absolute path it stands for (None: a relative key and no absolute cwd).
        name: ``backupFileName`` (None: the file did not exist then; a rewind deletes it).
        version: ``version`` as written (None when absent or not an integer).
        backup_time: ``backupTime`` as written.
        blob: ``file-history/<session>/<name>`` (None for a null backup or an unsafe name).
        present: the blob is a regular file on disk (True for a null backup: nothing needed).
        hash_matches: the name's hash is ``sha256(path)[:16]`` (None: not checkable).
        from_delta: folded in from a ``file-history-delta`` record.
        raw: the entry as written.
        odd: what is at ``blob`` when it is there but no regular file (``"a FIFO"``,
            ``"a folder"``, ``"a symbolic link"``); None otherwise.
    """

    key: str
    path: str | None
    name: str | None
    version: int | None
    backup_time: str | None
    blob: Path | None
    present: bool
    hash_matches: bool | None = None
    from_delta: bool = False
    raw: Any = None
    odd: str | None = None

    @property
    def existed(self) -> bool:
        """The file existed when the backup was taken (a null backup: it did not)."""
        return self.name is not None

    @property
    def restorable(self) -> bool:
        return self.present and self.path is not None

    @property
    def reason(self) -> str | None:
        """Why this backup cannot be written back (None when it can)."""
        if self.path is None:
            return f"the path {self.key!r} is relative and the session has no absolute cwd"
        if self.name is not None and self.blob is None:
            return f"backup name {self.name!r} is not a plain file name"
        if self.odd is not None:
            return (
                f"backup {self.name} in the session's file-history folder is not a regular "
                f"file ({self.odd}): sidtui does not read it"
            )
        if not self.present:
            return (
                f"backup {self.name} is not in the session's file-history folder "
                "(pruned by Claude Code, or never copied): its content is lost"
            )
        return None

    @property
    def label(self) -> str:
        """``absent`` (null backup), ``v<n>``, or the name; ``✗`` when unrecoverable."""
        text = "absent" if self.name is None else f"v{self.version}" if self.version else self.name
        return text if self.present else text + " ✗"

    def read(self) -> bytes:
        """The blob's bytes (:func:`read_blob`).

        Raises:
            OSError: it cannot be read (gone, a symlink, not a regular file, too big).
        """
        if self.blob is None:
            raise FileNotFoundError(f"no blob for {self.key}")
        return read_blob(self.blob)[0]

    def mode(self) -> int | None:
        """The blob's permission bits (Claude Code keeps the file's mode; never setuid,
        setgid or sticky: :func:`~sidtui.core.base.safefs.permission_bits`), or None."""
        if self.blob is None:
            return None
        try:
            st = os.lstat(self.blob)
        except OSError:
            return None
        return safefs.permission_bits(st.st_mode) if stat.S_ISREG(st.st_mode) else None

    def to_json(self) -> dict[str, Any]:
        return {
            "file_path": self.key,
            "abs_path": self.path,
            "backup_file_name": self.name,
            "version": self.version,
            "backup_time": self.backup_time,
            "existed_before": self.existed,
            "blob": str(self.blob) if self.blob is not None else None,
            "present": self.present,
            "hash_matches": self.hash_matches,
            "from_delta": self.from_delta,
            "rebuilds": self.restorable,
            "reason": self.reason,
        }


@dataclass
class Checkpoint:
    """The snapshot of one prompt after last-wins and delta folding.

    Attributes:
        id: ``c1``, ``c2``, … in the order the snapshots first appear in the file.
        position: index in :attr:`FileHistory.checkpoints`.
        message_id: the prompt's uuid (``snapshot.messageId``).
        record, line: the first snapshot record of it (scan index, physical line).
        lines: every line folded into it (snapshot lines, updates, deltas).
        timestamp: ``snapshot.timestamp`` of the winning line.
        updates: later lines for the same prompt (``isSnapshotUpdate``).
        deltas: ``file-history-delta`` records folded in.
        prompt: scan index of the user record ``message_id`` names (None: not in this file).
        backups: tracked path (absolute when known) → :class:`Backup`.
    """

    id: str
    position: int
    message_id: str
    record: int
    line: int
    lines: list[int] = field(default_factory=list)
    timestamp: str | None = None
    updates: int = 0
    deltas: int = 0
    prompt: int | None = None
    backups: dict[str, Backup] = field(default_factory=dict)

    def to_json(self, point: int | None = None) -> dict[str, Any]:
        return {
            "id": self.id,
            "message_id": self.message_id,
            "timestamp": self.timestamp,
            "line": self.line,
            "lines": self.lines,
            "updates": self.updates,
            "deltas": self.deltas,
            "prompt_in_file": self.prompt is not None,
            "point": point,
            "files": [b.to_json() for b in self.backups.values()],
        }


@dataclass(frozen=True)
class FileChainLink:
    """One distinct backup of a file, with the checkpoints that name it."""

    backup: Backup
    checkpoints: tuple[str, ...]

    @property
    def label(self) -> str:
        return self.backup.label

    @property
    def rebuilds(self) -> bool:
        return self.backup.restorable

    def to_json(self) -> dict[str, Any]:
        return {
            "snapshot_id": self.checkpoints[0],
            "checkpoints": list(self.checkpoints),
            "backup_file_name": self.backup.name,
            "version": self.backup.version,
            "existed_before": self.backup.existed,
            "rebuilds": self.backup.restorable,
            "reason": self.backup.reason,
        }


@dataclass(frozen=True)
class FileChain(LinkChain):
    """A tracked file's distinct backups, oldest first (the chain-health view): its
    drawing is ``"absent → v1 → v2 ✗ → v3"`` (``✗``: the blob is gone)."""

    links: tuple[FileChainLink, ...]


@dataclass
class FileHistory:
    """Every checkpoint of one session and where its blobs are.

    Attributes:
        session_id: the session (its ``file-history/<session_id>/`` folder).
        folder: that folder; folder_exists: whether it is there.
        cwd: the session's cwd (relative keys are resolved against the prompts' cwds).
        checkpoints: one :class:`Checkpoint` per prompt, file order.
        warnings: records that could not be read, odd entries.
    """

    session_id: str
    folder: Path
    folder_exists: bool
    cwd: str | None
    checkpoints: list[Checkpoint] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def get(self, spec: str) -> Checkpoint:
        """A checkpoint by id (``c3``), number (``3``) or a unique ``messageId`` prefix.

        Raises:
            UsageError: none or several match.
        """
        s = spec.strip()
        if not self.checkpoints:
            raise UsageError(f"session {self.session_id} has no file checkpoints")
        n = s[1:] if s[:1] in ("c", "C") and s[1:].isdigit() else s
        if n.isdigit():
            k = int(n)
            if 1 <= k <= len(self.checkpoints):
                return self.checkpoints[k - 1]
            raise UsageError(f"no checkpoint {spec!r}: choose c1–c{len(self.checkpoints)}")
        hits = [c for c in self.checkpoints if s and c.message_id.startswith(s)]
        if len(hits) == 1:
            return hits[0]
        if hits:
            raise UsageError(f"{spec!r} matches {len(hits)} checkpoints; give more of the id")
        raise UsageError(
            f"no checkpoint {spec!r} in session {self.session_id} "
            f"(have c1–c{len(self.checkpoints)})"
        )

    def for_message(self, uuid: str | None) -> Checkpoint | None:
        """The checkpoint of the prompt whose uuid is ``uuid``."""
        if uuid is None:
            return None
        return next((c for c in self.checkpoints if c.message_id == uuid), None)

    def state_before(self, k: int) -> dict[str, tuple[Backup, Checkpoint]]:
        """What a code rewind to checkpoint ``k`` writes back, per path: checkpoint ``k``'s
        backups, then the paths first tracked by later checkpoints (the first wins), each
        with the checkpoint it comes from."""
        out: dict[str, tuple[Backup, Checkpoint]] = {}
        for c in self.checkpoints[k:]:
            for p, b in c.backups.items():
                if p not in out:
                    out[p] = (b, c)
        return out

    def tracked(self) -> list[str]:
        """Every tracked path, in the order first seen."""
        seen: dict[str, None] = {}
        for c in self.checkpoints:
            for p in c.backups:
                seen.setdefault(p, None)
        return list(seen)

    def chains(self) -> list[FileChain]:
        """Each tracked file's distinct backups with the checkpoints naming them."""
        per: dict[str, dict[Any, tuple[Backup, list[str]]]] = {}
        for c in self.checkpoints:
            for p, b in c.backups.items():
                links = per.setdefault(p, {})
                ident = (b.name, b.version)
                if ident in links:
                    links[ident][1].append(c.id)
                else:
                    links[ident] = (b, [c.id])
        return [
            FileChain(p, tuple(FileChainLink(b, tuple(ids)) for b, ids in links.values()))
            for p, links in per.items()
        ]

    def unrecoverable(self) -> list[Backup]:
        """Distinct backups (by name) whose blob is not on disk."""
        seen: dict[str, Backup] = {}
        for c in self.checkpoints:
            for b in c.backups.values():
                if b.name is not None and not b.present and b.name not in seen:
                    seen[b.name] = b
        return list(seen.values())


def _absolute(key: str, cwds: list[str], name: str | None) -> tuple[str | None, bool | None]:
    """``(absolute path, hash matches)`` for a key: an absolute key as is; a relative one
    joined to the first cwd whose join hashes to the backup name (else the first cwd)."""
    want = None
    if name is not None:
        m = BACKUP_NAME.match(name)
        want = m.group(1) if m else None
    if os.path.isabs(key):
        return key, (path_hash(key) == want) if want is not None else None
    absolute = [c for c in cwds if os.path.isabs(c)]
    if not absolute:
        return None, None
    if want is not None:
        for c in absolute:
            p = os.path.join(c, key)
            if path_hash(p) == want:
                return p, True
        return os.path.join(absolute[0], key), False
    return os.path.join(absolute[0], key), None


def _backup(
    key: str,
    raw: Any,
    cwds: list[str],
    folder: Path,
    found: dict[str, str | None],
    delta: bool,
) -> Backup:
    d = raw if isinstance(raw, dict) else {}
    name = _s(d.get("backupFileName"))
    path, matches = _absolute(key, cwds, name)
    blob: Path | None = None
    ok = True
    odd: str | None = None
    if name is not None:
        if blob_name_ok(name):
            blob = folder / name
            if name not in found:  # None: a regular file; "": nothing there; else its kind
                try:
                    mode = os.lstat(blob).st_mode
                    found[name] = None if stat.S_ISREG(mode) else kind_of(mode)
                    if stat.S_ISLNK(mode):
                        found[name] = f"a symbolic link to {os.readlink(blob)}"
                except OSError:
                    found[name] = ""
            ok = found[name] is None
            odd = found[name] or None
        else:
            ok = False
    return Backup(
        key,
        path,
        name,
        _int(d.get("version")),
        _s(d.get("backupTime")),
        blob,
        ok,
        matches,
        delta,
        raw,
        odd,
    )


@dataclass
class _Fold:
    """One prompt's lines while folding: the winning snapshot and the deltas."""

    record: int
    line: int
    lines: list[int] = field(default_factory=list)
    snapshot_lines: int = 0
    deltas: list[tuple[str, Any]] = field(default_factory=list)
    base: dict[str, Any] = field(default_factory=dict)
    ts: str | None = None


def _fold(view: Any, warnings: list[str]) -> dict[str, _Fold]:
    """Group the snapshot and delta records by prompt (insertion order = first line)."""
    folds: dict[str, _Fold] = {}
    for s in view.snapshots:
        d = view.full_record(s.record)
        if not isinstance(d, dict):
            warnings.append(f"line {s.line}: the file-history record cannot be read")
            continue
        if not s.delta:
            snap = d.get("snapshot")
            snap = snap if isinstance(snap, dict) else {}
            key = s.message_id  # kinds.checkpoint_prompt: the one grouping rule
            if key is None:
                warnings.append(f"line {s.line}: a snapshot without a messageId (ignored)")
                continue
            tfb = snap.get("trackedFileBackups")
            if not isinstance(tfb, dict):
                warnings.append(f"line {s.line}: a snapshot without trackedFileBackups")
                tfb = {}
            f = folds.setdefault(key, _Fold(s.record, s.line))
            f.snapshot_lines += 1
            f.lines.append(s.line)
            f.base = tfb  # the last line for a prompt wins
            f.ts = _s(snap.get("timestamp")) or f.ts
        else:
            key = s.message_id
            path = _s(d.get("trackingPath"))
            if key is None or path is None:
                warnings.append(f"line {s.line}: a file-history-delta without its snapshot/path")
                continue
            f = folds.setdefault(key, _Fold(s.record, s.line, ts=_s(d.get("timestamp"))))
            f.lines.append(s.line)
            f.deltas.append((path, d.get("backup")))
    return folds


def _cwds(view: Any, prompt: int | None) -> list[str]:
    """Where a checkpoint's relative keys may live: its prompt's cwd, then the session's."""
    out: list[str] = []
    if prompt is not None:
        pd = view.full_record(prompt)
        if isinstance(pd, dict) and isinstance(pd.get("cwd"), str):
            out.append(pd["cwd"])
    if view.cwd and view.cwd not in out:
        out.append(view.cwd)
    return out


def read_file_history(view: Any) -> FileHistory:
    """Fold a session's snapshot records into checkpoints (see the module docstring).

    Args:
        view: a :class:`~sidtui.core.claude.session.ClaudeSessionView` (its ``snapshots``,
            ``home``, ``cwd`` and scan).

    Returns:
        The :class:`FileHistory` (empty when the session has no snapshot records). The
        blob folder is ``file-history/<session>/`` of the view's home (for a file outside
        a home, the ``file-history`` folder two levels above its project folder).
    """
    from sidtui.core.claude.layout import ClaudeHome

    sid = view.file.session_id if view.file.kind == "main" else view.file.parent_session_id
    sid = sid or view.file.session_id
    home = view.home if view.home is not None else ClaudeHome(view.file.path.parent.parent.parent)
    folder = home.file_history(sid)
    fh = FileHistory(sid, folder, folder.is_dir(), view.cwd)
    if not view.snapshots:
        return fh
    uuid_at: dict[str, int] = {}
    for i, o in enumerate(view.scan.objs):
        if o.uuid is not None and o.type == "user" and o.uuid not in uuid_at:
            uuid_at[o.uuid] = i
    present: dict[str, str | None] = {}
    for n, (key, f) in enumerate(_fold(view, fh.warnings).items()):
        prompt = uuid_at.get(key)
        cwds = _cwds(view, prompt)
        cp = Checkpoint(
            f"c{n + 1}",
            n,
            key,
            f.record,
            f.line,
            sorted(f.lines),
            f.ts,
            max(0, f.snapshot_lines - 1),
            len(f.deltas),
            prompt,
        )
        for k, raw in f.base.items():
            b = _backup(k, raw, cwds, folder, present, False)
            cp.backups.setdefault(b.path or k, b)
        for k, raw in f.deltas:
            b = _backup(k, raw, cwds, folder, present, True)
            cp.backups.setdefault(b.path or k, b)  # a delta never overwrites
        fh.checkpoints.append(cp)
    return fh


def unrecoverable_backups(view: Any) -> int:
    """How many distinct backups a session's snapshots name whose blob is gone."""
    return len(read_file_history(view).unrecoverable())


def backup_counts(home: Any, view: Any) -> dict[str, int]:
    """``sidtui check``'s backup counts of one session (a ``BackupCheck``,
    :mod:`sidtui.core.claude.check`): distinct backups its snapshots name, how many of them
    are unrecoverable (the blob is gone), distinct null backups (files that did not exist)
    and checkpoints."""
    fh = read_file_history(view)
    names: set[str] = set()
    nulls: set[tuple[str, int | None]] = set()
    for c in fh.checkpoints:
        for p, b in c.backups.items():
            if b.name is None:
                nulls.add((p, b.version))
            else:
                names.add(b.name)
    lost = len(fh.unrecoverable())
    return {
        "checkpoints": len(fh.checkpoints),
        "backups": len(names),
        "unrecoverable": lost,
        "null_backups": len(nulls),
        "sessions_with_unrecoverable": 1 if lost else 0,
    }

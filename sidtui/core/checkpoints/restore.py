"""What a restore plans, writes and reports (FORMAT.md §10.13).

:class:`FileRestore` (one file: restored, deleted, unchanged or skipped, with old/new bytes for
previews) and :class:`RestoreResult` (one operation) are what every restore returns;
:func:`plan_files` decides each file (:func:`confine` keeps targets inside the project root,
:func:`read_current` reads one safely), :func:`write_files` writes them.
:class:`CheckpointError`, :class:`DriftRefused` and :class:`InterruptedPending` are the ways a
restore stops before writing. The manager (journal, safety snapshot) drives these.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

from sidtui.core.base import safefs
from sidtui.core.base.errors import SidtuiError
from sidtui.core.base.regular import NotRegularFile, TooBig, ceiling, open_regular, read_open
from sidtui.core.checkpoints.drift import (
    DRIFT_WORDING,
    FileDrift,
    PostImage,
    drift_of,
    expected_now,
)
from sidtui.core.checkpoints.index import INFLATE_CEILING, INFLATE_ENV, CheckpointIndex
from sidtui.core.checkpoints.rebuild import rollback_target


class CheckpointError(SidtuiError):
    """A checkpoint operation cannot proceed (exit 1)."""


def confine(path: str, root: Path | None, allow_outside: bool = False) -> tuple[str | None, str]:
    """Check a target path against the project root.

    Args:
        path: the path as stored in the index.
        root: the project root (None: unknown).
        allow_outside: accept any absolute path (NUL bytes are still refused).

    Returns:
        ``(reason, real_path)``: ``reason`` is None when writing ``real_path`` (symlinks
        resolved) is allowed, else why not.
    """
    if "\x00" in path:
        return "path contains a NUL byte", path
    if not os.path.isabs(path):
        return "path is not absolute", path
    try:
        real = os.path.realpath(path)
        root_real = os.path.realpath(root) if root is not None else None
    except OSError as exc:  # a component swapped between realpath's lstat and readlink
        return f"the path changed while it was checked ({exc.strerror}): run it again", path
    if allow_outside:
        return None, real
    if ".." in PurePosixPath(path).parts:
        return "path contains '..'", real
    if root is None:
        return "no project root is known (use --allow-outside-root)", real
    assert root_real is not None

    def inside(p: str) -> bool:
        return p == root_real or p.startswith(root_real.rstrip(os.sep) + os.sep)

    if not inside(os.path.normpath(path)) and not inside(real):
        return f"outside the project root {root_real}", real
    if not inside(real):
        return f"resolves through a symlink to {real}, outside the project root {root_real}", real
    return None, real


class Current(NamedTuple):
    """A project file as :func:`read_current` found it.

    Attributes:
        exists: something is at the path (False: absent, or a folder of it is).
        data: its bytes (None: absent or not read).
        error: why it was not read (None: read, or absent).
        mode: its permission bits (None: not read).
        st: its ``fstat`` (None: not read), for its identity (hard links, owner).
    """

    exists: bool
    data: bytes | None
    error: str | None
    mode: int | None = None
    st: os.stat_result | None = None


def read_in_root(
    fr: FileRestore, path: str, root: Path | None, allow_outside: bool
) -> Current | None:
    """The current file at ``path`` for a restore plan's entry ``fr``: confined to
    ``root`` (:func:`confine`) and read (:func:`read_current`), ``fr.real_path``,
    ``fr.old`` and ``fr.old_mode`` filled. None when it is refused or cannot be read,
    ``fr.reason`` saying why (every writer's plan words it so)."""
    reason, real = confine(path, root, allow_outside)
    fr.real_path = real
    if reason is not None:
        fr.reason = f"refused: {reason}"
        return None
    found = read_current(real)
    fr.old_mode, fr.old = found.mode, found.data
    if found.error is not None:
        fr.reason = f"cannot read the current file: {found.error}"
        return None
    return found


def current_ceiling() -> int:
    """The largest current file read for a restore: what an entry may unpack to
    (``SIDTUI_MAX_INFLATE_BYTES``, 1 GiB), since a bigger one could not be given back."""
    return ceiling(INFLATE_ENV, INFLATE_CEILING)


def read_current(real_path: str) -> Current:
    """A file on disk now, read without following any symlink.

    Args:
        real_path: the absolute path, symlinks resolved (:func:`confine`'s). Its folders are
            walked as writes walk them (:func:`sidtui.core.base.safefs.read_file`), so one
            swapped for a symlink since it was resolved is refused, never followed.

    Returns:
        A :class:`Current` (a folder, a FIFO, a device, a symlink, a file above
        :func:`current_ceiling` or a swapped folder: ``error`` says so).
    """
    limit = current_ceiling()
    try:
        data, st = safefs.read_file(
            real_path,
            limit,
            too_big=f"is {{size}} bytes, more than the {{limit}} sidtui keeps ({INFLATE_ENV})",
        )
    except (FileNotFoundError, safefs.Gone):
        return Current(False, None, None)
    except safefs.UnsafePath as exc:
        return Current(True, None, str(exc))
    except NotRegularFile as exc:
        return Current(True, None, "is a directory" if exc.kind == "a folder" else f"is {exc.kind}")
    except TooBig as exc:
        return Current(True, None, str(exc))
    except OSError as exc:
        return Current(os.path.lexists(real_path), None, exc.strerror or str(exc))
    return Current(True, data, None, safefs.permission_bits(st.st_mode), st)


def path_refusal(path: str) -> str | None:
    """Why the file at ``path`` (as stored, unresolved) is not written, one rule for every
    source: its name is not valid UTF-8 (a lone surrogate: how Python spells a byte that is
    not UTF-8 and JSON a lone UTF-16 half; the agent's file is not the one Python would open,
    docs/DECISIONS.md "Which folder, which file"), or it is a symbolic link (the file it
    points to is another path's; Claude Code skips symlinks too). None: neither (or absent).
    """
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return "refused: the file name is not valid UTF-8: sidtui cannot tell which file it names"
    try:
        st = os.lstat(path)
    except (OSError, ValueError):
        return None  # absent, or unreadable: the plan's own read says why
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link: not written through (sidtui skips symlinks, as Claude Code does)"
    return None


def hard_link_refusal(st: os.stat_result | None) -> str | None:
    """Why a file with ``st`` is not replaced: it has other names (hard links), which a
    new file would silently part from the rest. One rule for every source. None: one name."""
    if st is not None and stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
        return (
            f"has {st.st_nlink} hard links: not written (a new file would break them; "
            "sidtui skips hard links, as Claude Code does)"
        )
    return None


def content_of(data: bytes) -> str | bytes:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


@dataclass
class FileRestore:
    """What a restore did (or would do) to one file.

    Attributes:
        path: the path as stored in the index.
        action: ``"restored"``, ``"deleted"``, ``"unchanged"`` or ``"skipped"``.
        reason: why skipped (or a write error), else None.
        source_snapshot: id of the entry whose pre-image is the target.
        old: current bytes (None: absent/unknown); new: target bytes (None: absent).
        uncertain: the pre-image cannot be proven (history evicted).
        real_path: the path written (symlinks resolved when planned).
        mode: permission bits to give the file (recorded by a safety snapshot), else None
            (an existing file keeps its own).
        drift: whether the file is still what this session left there
            (:class:`sidtui.core.checkpoints.drift.FileDrift`; None when not compared).
        existing_dirs: how many components of the file's folder existed when planned
            (the rest may be created; a vanished one is a refusal).
        old_mode: the permission bits of the current file as read (None: absent or not
            read), for the safety snapshot.
        raced: skipped at write time because the file was no longer what the plan read
            (:func:`changed_since_plan`): never replaced, so the safety snapshot drops it.
    """

    path: str
    action: str
    reason: str | None = None
    source_snapshot: str | None = None
    old: bytes | None = None
    new: bytes | None = None
    uncertain: bool = False
    real_path: str | None = None
    mode: int | None = None
    drift: FileDrift | None = None
    existing_dirs: int | None = None
    old_mode: int | None = None
    raced: bool = False

    @property
    def drifted(self) -> bool:
        """Changed after this session, or its last batch cannot be proven (a shell command
        ran: :attr:`FileDrift.refuses`), and about to be replaced (needs ``force``)."""
        return self.drift is not None and self.drift.refuses

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "action": self.action,
            "reason": self.reason,
            "source_snapshot": self.source_snapshot,
            "uncertain": self.uncertain,
            "old_bytes": None if self.old is None else len(self.old),
            "new_bytes": None if self.new is None else len(self.new),
            "drift": None if self.drift is None else self.drift.status,
            "drift_source": None if self.drift is None else self.drift.source,
        }


@dataclass
class RestoreResult:
    """The outcome of one restore operation.

    Attributes:
        op: ``"undo"``, ``"redo"``, ``"undo-file"``, ``"restore"``, ``"rewind"``, ``"rollback"``.
        dry_run: nothing was written.
        from_position: ``k`` of ``rollback_from(k)`` (None when there was nothing to do).
        target_snapshot_id: ``snapshots[k].id``.
        reverts: ids of the snapshots rolled back.
        safety_snapshot_id: the ``sidtui-restore`` snapshot appended (None on dry runs or
            when no file changed); ``redo()`` takes it back.
        files: one :class:`FileRestore` per file.
        note: a human sentence when there was nothing to do.
        root: the project root the writes were confined to (None: unknown), and
            root_refusal: why it is refused (then every file is skipped).
        resumed: this finished an interrupted operation of an earlier run (see
            :meth:`CheckpointManager.finish_journal`).
        journal_token: the journal's token (``sidtuiJournal`` of the safety snapshot),
            for a caller that keeps the journal for steps of its own.
        warnings: notes in words a source adds (drift, liveness; Claude Code's restores),
            printed before the report; not in :meth:`to_json` (a source's own shape says them).
        refusal: a dry run: the error a real run with the same flags stops at (drift
            without ``force``: :class:`DriftRefused`'s message), else None.
        unfinished: some files were written and some failed to (:func:`write_failures`):
            the journal was kept for the next run to finish.
    """

    op: str
    dry_run: bool
    from_position: int | None = None
    target_snapshot_id: str | None = None
    reverts: list[str] = field(default_factory=list)
    safety_snapshot_id: str | None = None
    files: list[FileRestore] = field(default_factory=list)
    note: str | None = None
    root: str | None = None
    root_refusal: str | None = None
    resumed: bool = False
    journal_token: str | None = None
    warnings: list[str] = field(default_factory=list)
    refusal: str | None = None
    unfinished: bool = False

    @property
    def changed(self) -> list[FileRestore]:
        return [f for f in self.files if f.action in ("restored", "deleted")]

    @property
    def skipped(self) -> list[FileRestore]:
        return [f for f in self.files if f.action == "skipped"]

    @property
    def drifted(self) -> list[FileRestore]:
        """Files changed after this session that the restore replaces (or would)."""
        return [f for f in self.files if f.drifted and f.action in ("restored", "deleted")]

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` object of a sid-code restore."""
        return {
            "op": self.op,
            "dry_run": self.dry_run,
            "target": self.target_snapshot_id,
            "reverts": self.reverts,
            "safety_snapshot": self.safety_snapshot_id,
            "note": self.note,
            "root": self.root,
            "root_refused": self.root_refusal,
            "resumed": self.resumed,
            "refusal": self.refusal,
            "unfinished": self.unfinished,
            "drift": [f.path for f in self.drifted],
            "files": [f.to_json() for f in self.files],
        }


class DriftRefused(CheckpointError):
    """Files changed after this session would be replaced; refused without ``force``.

    Attributes:
        result: the plan (a dry-run :class:`RestoreResult` naming the drifted files).
    """

    def __init__(self, message: str, result: RestoreResult) -> None:
        super().__init__(message)
        self.result = result


class InterruptedPending(CheckpointError):
    """An earlier run was killed mid-way; it must be finished first (exit 1)."""


# --- planning and writing ----------------------------------------------------------------


def plan_files(
    index: CheckpointIndex,
    k: int,
    paths: Sequence[str] | None,
    *,
    force: bool,
    drift: bool = True,
    project_root: Path | None = None,
    allow_outside_root: bool = False,
    root_refusal: str | None = None,
    post_image: PostImage | None = None,
) -> list[FileRestore]:
    """What ``rollback_from(k)`` would do to each file of ``snapshots[k:]`` (nothing written).

    Args:
        index: the session's index; k: the snapshot position (in range).
        paths: only these files (None: all).
        force: plan uncertain pre-images too.
        drift: compare each file to be changed with what the session left there.
        project_root / allow_outside_root / root_refusal / post_image: as
            :class:`~sidtui.core.checkpoints.manager.CheckpointManager` takes them.

    Returns:
        One :class:`FileRestore` per file, in the order the snapshots name them.
    """
    snaps = index.snapshots
    order: list[str] = []
    seen: set[str] = set()
    for s in snaps[k:]:
        for e in s.get("files") or []:
            p = e.get("filePath") if isinstance(e, dict) else None
            if isinstance(p, str) and p not in seen:
                seen.add(p)
                order.append(p)
    if paths is not None:
        wanted = set(paths)
        order = [p for p in order if p in wanted]
    plan: list[FileRestore] = []
    for p in order:
        target, why = rollback_target(index, p, k)
        assert target is not None  # p has an entry in snapshots[k:]
        fr = FileRestore(p, "skipped", source_snapshot=target.snapshot_id)
        plan.append(fr)
        if root_refusal is not None:
            fr.reason = (
                f"refused: the project root is refused ({root_refusal}; "
                "--allow-outside-root writes anyway)"
            )
            continue
        if (refused := path_refusal(p)) is not None:
            fr.reason = refused
            continue
        if (found := read_in_root(fr, p, project_root, allow_outside_root)) is None:
            continue
        exists, cur, _err, _mode, st = found
        real = str(fr.real_path)  # set by read_in_root
        if not target.recoverable:
            fr.reason = f"unrecoverable: {target.reason}"
            continue
        if why is not None:
            fr.uncertain = True
            if not force:
                fr.reason = f"uncertain: {why} (use --force to restore anyway)"
                continue
        new = target.data()
        fr.new = new
        fr.mode = recorded_mode(snaps[target.position], p)
        fr.existing_dirs = existing_components(os.path.dirname(real))
        if not target.exists:
            fr.action = "deleted" if exists else "unchanged"
        elif exists and cur == new:
            fr.action = "unchanged"
        else:
            fr.action = "restored"
        if fr.action != "unchanged" and (links := hard_link_refusal(st)) is not None:
            fr.action, fr.reason = "skipped", links
            continue
        if drift and fr.action != "unchanged":
            fr.drift = drift_of(expected_now(index, p, post_image), p, cur)
    return plan


_FAILED = "write failed: "


def changed_since_plan(dir_fd: int, name: str, f: FileRestore) -> str | None:
    """Why ``f`` must not be replaced now: the file ``name`` in ``dir_fd`` is no longer
    what the plan read (``f.old``; a user saved it since, or created it), or it gained a
    hard link. Read through the same folder descriptor the write uses, no symlink followed.
    None: still as planned (or gone: replacing nothing loses nothing)."""
    try:
        fd, st = open_regular(name, follow=False, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except NotRegularFile as exc:
        return f"write refused: it is {exc.kind} now"
    try:
        if (links := hard_link_refusal(st)) is not None:
            return links
        now = read_open(fd, st, name, current_ceiling())
    except TooBig:
        now = None
    finally:
        os.close(fd)
    if f.old is None or now != f.old:
        return (
            "changed since sidtui read it (saved while sidtui ran?): left as it is — "
            "run the command again"
        )
    return None


def write_files(todo: Sequence[FileRestore]) -> None:
    """Write or delete every file of ``todo`` through :mod:`sidtui.core.base.safefs`.

    Folders are reached without following symlinks, so a folder swapped since the plan
    cannot redirect a write; right before each replace the file is compared with what the
    plan read (:func:`changed_since_plan`), so an edit saved meanwhile is never lost: that
    file's action becomes ``"skipped"``, saying why. Owner and group are kept
    (:func:`sidtui.core.base.safefs.keep_owner`).
    """
    fds: dict[str, int] = {}
    try:
        for f in todo:
            real = f.real_path or f.path
            folder, name = os.path.split(real)
            try:
                dfd = fds.get(folder)
                if dfd is None:
                    dfd = fds[folder] = safefs.open_dir(folder, create_below=f.existing_dirs)
                if (changed := changed_since_plan(dfd, name, f)) is not None:
                    f.reason, f.action, f.raced = changed, "skipped", True
                    continue
                if f.action == "deleted":
                    safefs.unlink_at(dfd, name, where=real)
                else:
                    assert f.new is not None
                    safefs.replace_at(dfd, name, f.new, f.mode, where=real)
            except safefs.UnsafePath as exc:
                f.reason = f"write refused: {exc}"
                f.action = "skipped"
            except OSError as exc:
                f.reason = f"{_FAILED}{exc.strerror or exc}"
                f.action = "skipped"
    finally:
        for dfd in fds.values():
            os.close(dfd)


def write_failures(files: Sequence[FileRestore]) -> list[FileRestore]:
    """The files of ``files`` whose write failed (an ``OSError``: disk full, I/O error) —
    not those refused on purpose: a run with some written and some of these is unfinished,
    and its journal stays for the next run to finish (docs/DECISIONS.md, "Writes on a
    hostile disk")."""
    return [f for f in files if f.action == "skipped" and (f.reason or "").startswith(_FAILED)]


def unfinished_note(failed: Sequence[FileRestore], session_id: str) -> str:
    """The sentence for a run left unfinished by :func:`write_failures`."""
    return (
        f"{len(failed)} file(s) could not be written ({failed[0].path}: {failed[0].reason}); "
        f"the run is unfinished and its journal stays: once the cause is fixed, the next "
        f"undo, redo, restore or rewind of {session_id} finishes it first"
    )


def mark_unfinished(res: RestoreResult, session_id: str) -> bool:
    """Set ``res.unfinished`` and say it in its warnings when some of its files failed to
    be written (:func:`write_failures`); returns ``res.unfinished``."""
    if failed := write_failures(res.files):
        res.unfinished = True
        res.warnings.append(unfinished_note(failed, session_id))
    return res.unfinished


def clean_temps(files: Sequence[FileRestore], index_folder: Path) -> None:
    """Remove temp files killed runs left beside ``files`` and in ``index_folder``."""
    by_dir: dict[str, set[str]] = {}
    for f in files:
        real = f.real_path or f.path
        by_dir.setdefault(os.path.dirname(real), set()).add(os.path.basename(real))
    for folder, names in by_dir.items():
        safefs.remove_stale_temps(folder, names)
    safefs.remove_stale_temps(index_folder)


def drift_message(result: RestoreResult) -> str:
    """The one-line refusal naming the drifted files of a plan: those changed after this
    session, then those whose last batch cannot be proven (a shell command ran)."""

    def shown(names: list[str]) -> str:
        return ", ".join(names[:8]) + (f", … ({len(names) - 8} more)" if len(names) > 8 else "")

    changed = [f.path for f in result.drifted if f.drift and f.drift.status == "changed"]
    unproven = [f for f in result.drifted if f.drift and f.drift.status != "changed"]
    parts = [f"{len(changed)} file(s) {DRIFT_WORDING}: {shown(changed)}"] if changed else []
    if unproven:
        why = unproven[0].drift.source if unproven[0].drift else ""
        parts.append(
            f"{len(unproven)} file(s) whose last change by this session cannot be proven "
            f"({why}) — any later edits in them will be replaced (kept in the safety "
            f"snapshot): {shown([f.path for f in unproven])}"
        )
    return "; ".join(parts) + (
        "; nothing was changed — use --force to replace them (--dry-run shows the diffs)"
    )


def recorded_mode(snapshot: dict[str, Any], path: str) -> int | None:
    """The permission bits a safety snapshot recorded for ``path`` (None: not recorded)."""
    modes = snapshot.get("sidtuiModes")
    m = modes.get(path) if isinstance(modes, dict) else None
    return safefs.permission_bits(m) if isinstance(m, int) and not isinstance(m, bool) else None


def current_mode(real_path: str) -> int | None:
    """The permission bits of a regular file now (None: absent or not a regular file)."""
    try:
        st = os.lstat(real_path)
    except OSError:
        return None
    return safefs.permission_bits(st.st_mode) if stat.S_ISREG(st.st_mode) else None


def existing_components(folder: str) -> int:
    """How many leading components of the absolute ``folder`` exist now."""
    parts = [c for c in os.path.normpath(folder).split(os.sep) if c]
    n = len(parts)
    while n > 0 and not os.path.isdir(os.sep + os.sep.join(parts[:n])):
        n -= 1
    return n

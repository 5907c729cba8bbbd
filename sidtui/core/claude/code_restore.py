"""Code rewind of a Claude Code session from outside (docs/CLAUDE-CODE.md §10.3–10.5).

:class:`CodeRestorer` writes a checkpoint's state back (blobs copied, null backups deleted;
symlinks, hard links, unrecoverable blobs, paths outside the root skipped and said; equal
bytes left alone), refused for a live session, a refused root or drift unless forced. A
safety snapshot ``sN`` in sidtui's journal ``<claude home>/sidtui/restores/<session>/`` (never
read by Claude Code) keeps the current contents: ``redo``/``restore --before sN`` use it."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sidtui.core.base.errors import SessionLive, SidtuiError
from sidtui.core.base.project import ProjectRoot, explicit_root, project_root_for, user_home
from sidtui.core.checkpoints.drift import FileDrift, digest
from sidtui.core.checkpoints.journal import journal_refusal, remove_journal, write_journal
from sidtui.core.checkpoints.manager import CheckpointManager
from sidtui.core.checkpoints.restore import (
    CheckpointError,
    FileRestore,
    RestoreResult,
    clean_temps,
    existing_components,
    hard_link_refusal,
    mark_unfinished,
    path_refusal,
    read_in_root,
    write_files,
)
from sidtui.core.checkpoints.restore import (
    DriftRefused as PlanDriftRefused,
)
from sidtui.core.claude.drift import LastEdits
from sidtui.core.claude.file_history import Checkpoint, FileHistory, read_file_history
from sidtui.core.claude.layout import ClaudeHome
from sidtui.core.claude.liveness import live_words

#: A file modified more than this after the session's last record is drift (clock and
#: mtime granularity: Claude Code stamps a tool result just after the tool wrote).
DRIFT_SLACK_MS = 2000
DRIFT_CHANGED = "changed"


class CodeRestoreError(SidtuiError):
    """A code restore was refused or failed before any file was written (exit 1)."""


class SessionIsLive(CodeRestoreError, SessionLive):
    """A running Claude Code process writes the session (refused unless forced)."""


class DriftRefused(CodeRestoreError, PlanDriftRefused):
    """Files changed after this session would be replaced; refused without ``force``.

    Attributes:
        result: the plan (a :class:`CodeRestoreResult` naming the drifted files; nothing
            was written; the attribute of :class:`PlanDriftRefused`).
    """


def journal_path(home: ClaudeHome, session_id: str) -> Path:
    """``<home>/sidtui/restores/<session>/index.json``: the safety snapshots of a session."""
    return home.restore_folder(session_id) / "index.json"


def session_root(cwd: str | None, *, root: str | os.PathLike[str] | None = None) -> ProjectRoot:
    """The project root file restores are confined to: ``root`` (``--root``) or the one
    rule of sid-code's (:func:`~sidtui.core.base.project.project_root_for`: the git top
    level of ``cwd``, else ``cwd``; refused for no/relative cwd, ``/``, or outside the
    user's home and not in git)."""
    if root is not None:
        return explicit_root(os.fspath(root))
    return project_root_for(cwd, user_home(os.environ))


def iso_ms(ts: str | None) -> int | None:
    """Milliseconds since the epoch of an ISO timestamp (None when absent or unreadable)."""
    if not ts:
        return None
    try:
        return int(datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None


def session_end_ms(view: Any) -> int | None:
    """When the session last wrote: its latest record ``timestamp`` (else the file mtime)."""
    best = None
    for o in view.scan.objs:
        ms = iso_ms(o.timestamp) if isinstance(o.timestamp, str) else None
        if ms is not None and (best is None or ms > best):
            best = ms
    if best is not None:
        return best
    try:
        return os.stat(view.file.path).st_mtime_ns // 1_000_000
    except OSError:
        return None


def _fmt_ms(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M:%S")


@dataclass
class ClaudeFileRestore(FileRestore):
    """:class:`~sidtui.core.checkpoints.manager.FileRestore` plus what Claude Code adds.

    Attributes:
        backup: the backup file name written back (None: a deletion).
    """

    backup: str | None = None

    def to_json(self) -> dict[str, Any]:
        d = super().to_json()
        d["backup_file_name"] = self.backup
        return d


@dataclass
class CodeRestoreResult(RestoreResult):
    """A :class:`~sidtui.core.checkpoints.restore.RestoreResult` of a Claude Code session
    (``op``: ``undo``, ``undo-file``, ``restore``, ``rewind`` or ``redo``; ``target_snapshot_id``
    the checkpoint restored to, ``c3``; ``reverts`` the ``messageId`` of every checkpoint
    rolled back), so one report prints both sources.

    Attributes:
        session_id: the session.
        message_id: the prompt of the checkpoint restored to.
        journal: sidtui's journal of the session's safety snapshots.
    """

    session_id: str = ""
    message_id: str | None = None
    journal: Path | None = None

    def describe(self) -> str:
        """What a run that finished an interrupted one did, in one line."""
        said = self.warnings[0] if self.warnings else f"sidtui {self.op}"
        return f"{said}: {len(self.changed)} file(s) written" + (
            f" ({self.note})" if self.note else ""
        )

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` object of a Claude Code restore."""
        return {
            "source": "claude-code",
            "session_id": self.session_id,
            "op": self.op,
            "dry_run": self.dry_run,
            "target": self.target_snapshot_id,
            "message_id": self.message_id,
            "reverts": self.reverts,
            "safety_snapshot": self.safety_snapshot_id,
            "journal": str(self.journal) if self.journal else None,
            "root": self.root,
            "root_refused": self.root_refusal,
            "note": self.note,
            "warnings": self.warnings,
            "refusal": self.refusal,
            "files": [f.to_json() for f in self.files],
        }


def _to_finish(said: str, res: CodeRestoreResult) -> str:
    """A dry run's one statement of what finishing an interrupted restore writes."""
    return (
        f"{said}: {len(res.changed)} more file(s) to write (safety snapshot "
        f"{res.safety_snapshot_id}); nothing else is done"
    )


def _root_text(root: Path | None) -> str | None:
    return str(root) if root else None


def _wrap(
    res: RestoreResult, session_id: str, root: Path | None, journal: Path
) -> CodeRestoreResult:
    """A journal manager's result (``redo``, a finished journal) as this session's."""
    return CodeRestoreResult(
        res.op,
        res.dry_run,
        target_snapshot_id=res.target_snapshot_id,
        reverts=list(res.reverts),
        safety_snapshot_id=res.safety_snapshot_id,
        files=list(res.files),
        note=res.note,
        root=_root_text(root),
        session_id=session_id,
        journal=journal,
    )


class CodeRestorer:
    """Code restores of one Claude Code session (see the module docstring).

    Args:
        view: the :class:`~sidtui.core.claude.session.ClaudeSessionView`.
        allow_outside_root: lift the root checks (NUL bytes and relative paths still refused).
        root: use this root instead of the session's (``--root``).
        file_history: pre-read checkpoints (else read from ``view``).
    """

    def __init__(
        self,
        view: Any,
        *,
        allow_outside_root: bool = False,
        root: str | os.PathLike[str] | None = None,
        file_history: FileHistory | None = None,
    ) -> None:
        self.view = view
        self.fh = file_history if file_history is not None else read_file_history(view)
        self.home = view.home if view.home is not None else ClaudeHome(self.fh.folder.parent.parent)
        self.allow_outside_root = allow_outside_root
        self.project = session_root(view.cwd, root=root)
        self.root = self.project.path
        self.root_refusal = None if allow_outside_root else self.project.refusal
        self.journal_path = journal_path(self.home, self.fh.session_id)
        self.journal = CheckpointManager(
            self.journal_path,
            self.fh.session_id,
            project_root=self.root,
            allow_outside_root=allow_outside_root,
        )
        self._end = session_end_ms(view)
        self._edits = LastEdits(view)

    @property
    def session_id(self) -> str:
        return self.fh.session_id

    @property
    def project_root(self) -> Path | None:
        """The root restores are confined to (the name ``CheckpointManager`` uses)."""
        return self.root

    # --- reading ---------------------------------------------------------------------

    def reverted(self) -> set[str]:
        """``messageId`` of checkpoints rolled back by restores still in effect."""
        if not self.journal.exists:
            return set()
        return self.journal.reverted_ids()

    def _journal_times(self) -> dict[str, tuple[int, str | None, str]]:
        """Path → ``(ms, sha256 | None, safety id)`` of the last file sidtui wrote there (a
        safety snapshot's ``sidtuiTargets``; ms 0 when the target is not recorded)."""
        out: dict[str, tuple[int, str | None, str]] = {}
        if not self.journal.exists:
            return out
        for s in self.journal.index.snapshots:
            ts = s.get("timestamp")
            if not isinstance(ts, (int, float)) or s.get("sidtuiFailed"):
                continue
            targets = s.get("sidtuiTargets")
            for e in s.get("files") or []:
                p = e.get("filePath") if isinstance(e, dict) else None
                if isinstance(p, str) and int(ts) >= out.get(p, (0,))[0]:
                    h = targets.get(p, "") if isinstance(targets, dict) else ""
                    out[p] = (int(ts), h if h != "" else "?", str(s.get("id")))
        return out

    def _drift(
        self, p: str, cur: bytes | None, st: os.stat_result, times: dict[str, tuple]
    ) -> FileDrift:
        """Whether the file ``p`` (now ``cur``) changed after this session and sidtui last
        left it: modified after both, and not what the last of them left (when provable)."""
        ours = times.get(p)
        ref = max(self._end or 0, ours[0] if ours else 0)
        mtime = st.st_mtime_ns // 1_000_000
        if not ref or mtime <= ref + DRIFT_SLACK_MS:
            return FileDrift(p, "same", "not modified after the session and sidtui last wrote")
        if ours is not None and ours[0] >= (self._end or 0) and ours[1] != "?":
            if digest(cur) == ours[1]:
                return FileDrift(p, "same", f"as sidtui's restore {ours[2]} left it")
        else:
            last = self._edits.get(p)
            if last is not None and last.expected().matches(cur):
                return FileDrift(p, "same", f"as the session left it ({last.expected().source})")
        return FileDrift(
            p,
            DRIFT_CHANGED,
            f"modified {_fmt_ms(mtime)}, after the session's last record or sidtui's last "
            f"write at {_fmt_ms(ref)}",
        )

    def plan(
        self, k: int, paths: list[str] | None = None, *, force: bool = False
    ) -> list[ClaudeFileRestore]:
        """One :class:`ClaudeFileRestore` per path of ``state_before(k)`` (nothing written)."""
        state = self.fh.state_before(k)
        if paths is not None:
            wanted = set(paths)
            state = {p: v for p, v in state.items() if p in wanted}
        times = self._journal_times()
        out: list[ClaudeFileRestore] = []
        for p, (b, c) in state.items():
            fr = ClaudeFileRestore(p, "skipped", source_snapshot=c.id, backup=b.name)
            out.append(fr)
            if self.root_refusal is not None:
                fr.reason = (
                    f"refused: the project root is refused ({self.root_refusal}; "
                    "--allow-outside-root writes anyway)"
                )
                continue
            if b.path is None:
                fr.reason = f"unrecoverable: {b.reason}"
                continue
            if (refused := path_refusal(b.path)) is not None:
                fr.reason = refused
                continue
            try:
                st = os.lstat(b.path)
            except FileNotFoundError:
                st = None
            except OSError as exc:
                fr.reason = f"cannot look at the current file: {exc.strerror or exc}"
                continue
            if (found := read_in_root(fr, b.path, self.root, self.allow_outside_root)) is None:
                continue
            exists, cur, _err, _mode, now = found
            real = str(fr.real_path)  # set by read_in_root
            if not b.existed:
                fr.action = "deleted" if exists else "unchanged"
            else:
                if not b.present:
                    fr.reason = f"unrecoverable: {b.reason}"
                    continue
                try:
                    new = b.read()
                except OSError as exc:
                    fr.reason = f"unrecoverable: cannot read backup {b.name}: {exc.strerror or exc}"
                    continue
                fr.new = new
                fr.action = "unchanged" if exists and cur == new else "restored"
            fr.mode = fr.old_mode if fr.old_mode is not None else b.mode()
            if fr.action != "unchanged" and (links := hard_link_refusal(now)) is not None:
                fr.action, fr.reason = "skipped", links
                continue
            fr.existing_dirs = existing_components(os.path.dirname(real))
            if fr.action != "unchanged" and st is not None:
                fr.drift = self._drift(p, cur, st, times)
        return out

    # --- writing ---------------------------------------------------------------------

    def restore_to(
        self,
        k: int,
        *,
        dry_run: bool = False,
        force: bool = False,
        paths: list[str] | None = None,
        op: str = "restore",
        intent: dict[str, Any] | None = None,
    ) -> CodeRestoreResult:
        """Put every file back as it was before checkpoint ``k``'s prompt.

        ``intent``: more parts for the journal (a rewind's ``{"rewind": {point, mode}}``,
        so a re-run of the same command knows the rest of it is still to do).

        Raises:
            CodeRestoreError: refused before anything was written (root, drift, the safety
                snapshot cannot be saved, a pending journal; one not sidtui's: dry run too).
            SessionIsLive: a running Claude Code process writes the session (not forced).
        """
        cps = self.fh.checkpoints
        cp: Checkpoint = cps[k]
        res = CodeRestoreResult(
            op,
            dry_run,
            target_snapshot_id=cp.id,
            reverts=[c.message_id for c in cps[k:]] if paths is None else [cp.message_id],
            root=_root_text(self.root),
            root_refusal=self.root_refusal,
            session_id=self.session_id,
            message_id=cp.message_id,
            journal=self.journal_path,
        )
        if (j := self.pending_journal()) is not None and not dry_run:
            raise CodeRestoreError(
                f"an interrupted sidtui {j.get('op', 'restore')} (process {j.get('pid')}) left "
                f"{self.journal_path.parent / 'sidtui-journal.json'}; finish it first (any "
                "sidtui undo/redo/restore/rewind of this session does)"
            )
        res.files = list(self.plan(k, paths, force=force))
        self._checks(res, dry_run=dry_run, force=force)
        todo = res.changed
        if dry_run or not todo:
            if not todo and not dry_run:
                res.note = "nothing to change: every file is already as it was"
            return res
        token = self._begin_journal(res, cp, op, intent)
        res.safety_snapshot_id = self._safety(res, cp, paths, op, token)
        self._write(res)
        return res

    def _checks(self, res: CodeRestoreResult, *, dry_run: bool, force: bool) -> None:
        """Live, root and drift: refused (raises) on a real run; a dry run records the same
        refusal as ``res.refusal`` (the first, as a real run stops at it)."""

        def refuse(exc: CodeRestoreError | SessionIsLive) -> None:
            if not dry_run:
                raise exc
            if res.refusal is None:
                res.refusal = str(exc)

        if self.view.liveness.live:
            msg = (
                f"{live_words(self.session_id, self.view.liveness)}: it tracks the files in "
                "memory and would take our restore for its own edits"
            )
            if not force:
                refuse(SessionIsLive(msg + "; stop it first or pass --force"))
            elif dry_run:
                res.warnings.append(msg + "; --force: a real run writes anyway")
        if self.root_refusal is not None:
            refuse(
                CodeRestoreError(
                    f"refused: {self.root_refusal} (--allow-outside-root writes anyway); "
                    "nothing was changed"
                )
            )
        # drifted files are named once: by the refusal, or (--force) by the drift summary
        drifted = [f for f in res.files if f.drifted]
        if drifted and not force:
            shown = "; ".join(
                f"{f.path} ({f.drift.source if f.drift else ''})" for f in drifted[:5]
            )
            more = f" (and {len(drifted) - 5} more)" if len(drifted) > 5 else ""
            refuse(
                DriftRefused(
                    f"{len(drifted)} file(s) changed after this session: {shown}{more}; "
                    "nothing was changed (pass --force to restore anyway: the safety "
                    f"snapshot keeps their current contents for `sidtui redo {self.session_id}`)",
                    res,
                )
            )

    def _safety(
        self, res: CodeRestoreResult, cp: Checkpoint, paths: list[str] | None, op: str, token: str
    ) -> str | None:
        """Save the current contents of every file about to change (the checkpoint
        manager's safety snapshot, in sidtui's own folder); its id."""
        one = {"sidtuiFile": paths[0]} if paths is not None and len(paths) == 1 else {}
        try:
            return self.journal.save_safety(
                op,
                res.reverts,
                res.changed,
                token,
                one,
                summary=f"sidtui {op} (claude-code): back to before {cp.id}",
                message_id=cp.message_id,
                tags={"source": "claude-code", "claudeCheckpoint": cp.id},
            )
        except CheckpointError as exc:
            raise CodeRestoreError(str(exc)) from None

    def _write(self, res: CodeRestoreResult) -> None:
        """Write (or delete) every planned file through ``safefs`` (no symlink followed; a
        failed write is skipped and said), then drop the journal — unless some were
        written and some failed (:func:`write_failures`): then it stays for the next run."""
        todo = res.changed
        write_files(todo)
        self.journal.drop_unwritten(res.safety_snapshot_id, todo)  # saved meanwhile: kept
        if all(f.action == "skipped" for f in todo):
            self.journal.mark_failed(res.safety_snapshot_id)
            res.safety_snapshot_id = None
            res.note = "no file could be written; nothing was changed"
        else:
            mark_unfinished(res, self.session_id)
        clean_temps(res.files, self.journal_path.parent)
        if not res.unfinished:
            remove_journal(self.journal_path.parent)

    # --- the journal of an interrupted run ---------------------------------------------

    def _begin_journal(
        self, res: CodeRestoreResult, cp: Checkpoint, op: str, intent: dict[str, Any] | None
    ) -> str:
        """Write the journal of a restore about to start (before its safety snapshot).

        Raises:
            CodeRestoreError: it cannot be written (no file was changed).
        """
        token = secrets.token_hex(8)
        try:
            write_journal(
                self.journal_path.parent,
                {
                    "op": op,
                    "source": "claude-code",
                    "token": token,
                    "root": str(self.root) if self.root else None,
                    "allowOutsideRoot": self.allow_outside_root,
                    "claude": {"checkpoint": cp.id, "paths": [f.path for f in res.changed]},
                    **(intent or {}),
                },
            )
        except (OSError, SidtuiError) as exc:
            raise CodeRestoreError(
                f"cannot write the journal in {self.journal_path.parent} "
                f"({getattr(exc, 'strerror', None) or exc}); no file was changed"
            ) from None
        return token

    def pending_journal(self) -> dict[str, Any] | None:
        """The journal a killed restore or redo of this session left (None: none).

        Raises:
            CodeRestoreError: not sidtui's (left alone, never followed), or its writer still
                runs: every code write, dry run too, refuses (``journal_refusal``).
        """
        j = self.journal.journal  # read_journal of the same folder
        if j is not None and (no := journal_refusal(j, self.journal_path.parent)) is not None:
            raise CodeRestoreError(no)
        return j

    def finish_interrupted(self, *, dry_run: bool = False) -> CodeRestoreResult | None:
        """Finish what a killed restore of this session left (its journal), else None.

        A run that died before its safety snapshot changed nothing: its journal is dropped
        (``safety_snapshot_id`` None; the first warning says so, once). With ``dry_run``
        nothing is written and the first warning says what a real run does.
        One that died after it writes the rest of its files (no new snapshot, no drift
        check: the snapshot holds what they were). A killed ``redo`` left the checkpoint
        manager's own journal: the manager finishes it.

        Raises:
            CodeRestoreError: not sidtui's (:meth:`pending_journal`), or it cannot be finished.
        """
        j = self.pending_journal()
        if j is None:
            return None
        op = str(j.get("op") or "restore")
        who = f"an interrupted sidtui {op} of this session (process {j.get('pid')})"
        # a dry run says what a real run does: only this, or drop it and go on
        said = f"a real run only finishes {who}" if dry_run else f"{who} is finished first"
        nothing = f"{who} had changed nothing; " + (
            "a real run drops its journal first" if dry_run else "its journal is dropped"
        )
        if not isinstance(j.get("claude"), dict):
            try:
                finished = self.journal.finish_journal(j, dry_run=dry_run)
            except (OSError, SidtuiError) as exc:
                raise CodeRestoreError(f"cannot finish the interrupted {op}: {exc}") from None
            done = _wrap(finished, self.session_id, self.root, self.journal_path)
            if finished.safety_snapshot_id is None and finished.note is None:
                said = nothing  # died before its safety snapshot
            elif dry_run and finished.safety_snapshot_id is not None:
                said = _to_finish(said, done)
            done.warnings.insert(0, said)
            if not dry_run and not finished.unfinished:
                remove_journal(self.journal_path.parent)
            return done
        part = j["claude"]
        res = CodeRestoreResult(
            op,
            dry_run,
            root=_root_text(self.root),
            session_id=self.session_id,
            journal=self.journal_path,
        )
        res.warnings.append(said)
        token = str(j.get("token"))
        safety = next(
            (
                s
                for s in (self.journal.index.snapshots if self.journal.exists else [])
                if s.get("sidtuiJournal") == token
            ),
            None,
        )
        try:
            cp = self.fh.get(str(part.get("checkpoint")))
        except SidtuiError:
            cp = None
        paths = part.get("paths")
        if safety is None or cp is None or not isinstance(paths, list):
            res.warnings[0] = nothing  # said once, as the one line about it
            if not dry_run:
                remove_journal(self.journal_path.parent)
            return res
        res.target_snapshot_id, res.message_id = cp.id, cp.message_id
        res.safety_snapshot_id = str(safety.get("id"))
        res.files = list(self.plan(cp.position, [str(p) for p in paths]))
        for f in res.files:
            f.drift = None  # the safety snapshot holds what they were
        if dry_run:
            res.warnings[0] = _to_finish(said, res)
        else:
            write_files(res.changed)
            clean_temps(res.files, self.journal_path.parent)
            if not mark_unfinished(res, self.session_id):  # else the journal stays
                remove_journal(self.journal_path.parent)
        return res

    def undo(
        self, *, dry_run: bool = False, force: bool = False, path: str | None = None
    ) -> CodeRestoreResult:
        """Files back to before the latest prompt not yet rolled back (again: one further).

        A checkpoint whose files are all already as they were before it is passed over.
        ``path``: only that file (``undo --file``).
        """
        reverted = self.reverted()
        cps = self.fh.checkpoints
        for k in range(len(cps) - 1, -1, -1):
            if cps[k].message_id in reverted:
                continue
            if path is not None and path not in self.fh.state_before(k):
                continue
            plan = self.plan(k, [path] if path is not None else None, force=force)
            if not plan or all(f.action == "unchanged" for f in plan):
                continue
            return self.restore_to(
                k,
                dry_run=dry_run,
                force=force,
                paths=[path] if path is not None else None,
                op="undo-file" if path is not None else "undo",
            )
        return CodeRestoreResult(
            "undo",
            dry_run,
            note="nothing to undo: no checkpoint left whose files differ",
            root=_root_text(self.root),
            session_id=self.session_id,
            journal=self.journal_path,
        )

    def redo(
        self, *, dry_run: bool = False, force: bool = False, before: str | None = None
    ) -> CodeRestoreResult:
        """Take back the latest sidtui restore still in effect (``before``: back to before its
        safety snapshot ``sN``); refused as :meth:`restore_to`: live, root, a foreign journal."""
        self.pending_journal()  # raises for a journal sidtui did not write, dry run too
        if self.view.liveness.live and not force and not dry_run:
            raise SessionIsLive(
                f"{live_words(self.session_id, self.view.liveness)}; stop it first or pass --force"
            )
        if self.root_refusal is not None and not dry_run:
            raise CodeRestoreError(
                f"refused: {self.root_refusal} (--allow-outside-root writes anyway); "
                "nothing was changed"
            )
        if not self.journal.exists:
            return CodeRestoreResult(
                "redo",
                dry_run,
                note="nothing to redo: sidtui never restored files of this session",
                root=_root_text(self.root),
                session_id=self.session_id,
                journal=self.journal_path,
            )
        j, kw = self.journal, {"dry_run": dry_run, "force": force}
        res = j.redo(**kw) if before is None else j.restore_before(before, **kw)
        return _wrap(res, self.session_id, self.root, self.journal_path)

    def restore_before(
        self, spec: str, *, dry_run: bool = False, force: bool = False
    ) -> CodeRestoreResult:
        """Files back to before checkpoint ``spec`` (``c3``/``3``/messageId prefix) or ``sN``."""
        if spec.strip()[:1] in ("s", "S") and spec.strip()[1:].isdigit() and self.journal.exists:
            return self.redo(dry_run=dry_run, force=force, before=spec.strip().lower())
        cp = self.fh.get(spec)
        return self.restore_to(cp.position, dry_run=dry_run, force=force, op="restore")

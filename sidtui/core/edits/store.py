"""sid-code's code store (:class:`~sidtui.core.sources.writes.CodeStore`): a session's
``checkpoints/<id>/`` through :class:`~sidtui.core.checkpoints.manager.CheckpointManager`.

A session is named by its transcript, or by an id (or unique prefix) with only a
checkpoint folder. Writing refuses a live session (the agent would rewrite ``index.json``
from memory, FORMAT.md §11.6); a dry run keeps the refusal to say it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sidtui.core.base.errors import AmbiguousSession, SessionNotFound, SidtuiError
from sidtui.core.base.home import Home
from sidtui.core.base.project import ProjectRoot, explicit_root, project_root_for, user_home
from sidtui.core.checkpoints.finishing import Finishing, Shown, match_tracked, split_spec
from sidtui.core.checkpoints.manager import CheckpointManager


def resolve(home: Home, arg: str) -> tuple[str, ProjectRoot, Any]:
    """``(session_id, ProjectRoot, SessionFile | None)`` for ``arg``.

    Raises:
        SessionNotFound / AmbiguousSession: nothing (or several) match, neither as a
        transcript nor as a checkpoint folder.
    """
    from sidtui.core.base.discover import session_cwd
    from sidtui.core.base.resolve import resolve_session

    unknown = ProjectRoot(None, "no transcript", "no project root is known (no transcript)")
    try:
        sf = resolve_session(home, arg)
    except SessionNotFound:
        ids = checkpoint_ids(home)
        if arg in ids:
            return arg, unknown, None
        hits = [i for i in ids if i.startswith(arg)]
        if len(hits) == 1:
            return hits[0], unknown, None
        if len(hits) > 1:
            raise AmbiguousSession(
                f"{arg!r} matches {len(hits)} checkpoint folders", hits
            ) from None
        raise
    sid = sf.checkpoint_id
    cwd = session_cwd(sf) if sf.container == "jsonl" else _v1_cwd(sf.path)
    return sid, project_root_for(cwd, user_home(os.environ)), sf


def _v1_cwd(path: Path) -> str | None:
    """``cwd`` (else the first of ``directories``) of a v1 whole-file JSON session."""
    import orjson

    from sidtui.core.base.errors import UnreadableInput
    from sidtui.core.base.regular import read_regular

    try:
        data = orjson.loads(read_regular(path))
    except (OSError, UnreadableInput, orjson.JSONDecodeError):
        return None
    if not isinstance(data, dict):
        return None
    cwd = data.get("cwd")
    if isinstance(cwd, str) and cwd:
        return cwd
    dirs = data.get("directories")
    if isinstance(dirs, list) and dirs and isinstance(dirs[0], str):
        return dirs[0]
    return None


def refuse_live(home: Home, session_id: str, sf: Any) -> None:
    """Refuse to write while an agent process has this session open (FORMAT.md §11.6).

    The agent keeps its checkpoint index in memory and rewrites ``index.json`` on its next
    snapshot, which would drop our safety snapshot.

    Raises:
        SidtuiError: the session is live.
    """
    from sidtui.core.base.discover import session_ids
    from sidtui.core.base.errors import UnreadableInput
    from sidtui.core.resume.process import (
        live_refusal,
        liveness_for,
        read_registrations,
        trace_session_ids_in_file,
    )

    trace: list[str] = []
    ids = {session_id}
    if sf is not None:
        ids |= session_ids(sf)
        try:
            trace = trace_session_ids_in_file(sf.path)
        except (OSError, UnreadableInput):
            trace = []
    lv = liveness_for(ids, trace, read_registrations(home))
    if lv.live:
        raise SidtuiError(live_refusal(session_id, lv, "it would overwrite index.json from memory"))


def checkpoint_ids(home: Home) -> list[str]:
    """The ids of the checkpoint folders with an ``index.json``, sorted."""

    def has_index(e: os.DirEntry[str]) -> bool:
        try:  # a symlink loop or an unreadable folder is not one (and hides no other)
            return e.is_dir() and os.path.exists(os.path.join(e.path, "index.json"))
        except OSError:
            return False

    try:
        with os.scandir(home.checkpoints_dir) as it:
            return sorted(e.name for e in it if has_index(e))
    except OSError:
        return []


def _post_images(sf: Any) -> Any:
    """The drift check's ``post_image``, reading ``sf``'s transcript on first use."""
    from sidtui.core.edits.batches import post_image_of

    return post_image_of(sf.path if sf is not None and sf.container == "jsonl" else None)


class SidCodeStore:
    """One sid-code session's checkpoints (see the module docstring).

    Args:
        home: the session's home. arg: the SESSION argument.
        writes: for undo/redo/restore (the live check, the drift check's post-images).
        root, allow_outside_root, force, dry_run: the confinement and force flags.
    """

    root_first = False
    project: ProjectRoot | None

    @classmethod
    def of_view(cls, view: Any, manager: CheckpointManager | None = None) -> SidCodeStore:
        """The store of a session open in the app (``manager``: the one already read, with
        its project root; else one is made as the Checkpoints tab makes it). No live
        check: the engine refuses nothing live, the app says it."""
        from sidtui.core.edits.batches import post_image_of
        from sidtui.core.edits.rewind import project_root

        st = cls.__new__(cls)
        st.home = view.home
        st.session_id = st.followup_id = view.file.checkpoint_id
        st.dry_refusal = None
        if manager is None:
            root = project_root(view)
            manager = CheckpointManager.for_session(
                view.home,
                view.file.checkpoint_id,
                project_root=root.path,
                root_refusal=root.refusal,
                post_image=post_image_of(view.rf),
            )
        st.manager = manager
        st.project = None
        return st

    @property
    def shown_root(self) -> str | None:
        """The root paths are shown relative to."""
        root = self.manager.project_root
        return str(root) if root else None

    def __init__(
        self,
        home: Home,
        arg: str,
        *,
        writes: bool = False,
        root: str | None = None,
        allow_outside_root: bool = False,
        force: bool = False,
        dry_run: bool = False,
    ) -> None:
        sid, project, sf = resolve(home, arg)
        self.home = home
        self.session_id = self.followup_id = sid  # follow-ups name it by its full id
        if writes and root:
            project = explicit_root(root, user_home(os.environ))
        self.project = project
        self.dry_refusal: str | None = None
        if writes and not force:
            try:
                refuse_live(home, sid, sf)
            except SidtuiError as exc:
                if not dry_run:
                    raise
                self.dry_refusal = str(exc)  # a dry run says it, exit 1, as the real run would
        self.manager = CheckpointManager.for_session(
            home,
            sid,
            project_root=project.path,
            root_refusal=project.refusal,
            allow_outside_root=allow_outside_root,
            post_image=_post_images(sf) if writes else None,
        )

    def require(self) -> None:
        mgr = self.manager
        if not mgr.exists:
            raise SidtuiError(
                f"session {self.session_id} has no file checkpoints "
                f"({mgr.index_path} does not exist)"
            )

    @property
    def warnings(self) -> list[str]:
        """Malformed index entries (loading it now: a corrupt index fails first)."""
        return self.manager.index.malformed_entries() if self.manager.exists else []

    def pending(self) -> list[Any]:
        from sidtui.core.checkpoints.journal import pending_journals

        return pending_journals(self.manager.index_path.parent.parent, [self.session_id])

    def pending_journal(self) -> dict[str, Any] | None:
        """The raw journal a killed write of this session left (None: none)."""
        from sidtui.core.checkpoints.journal import read_journal

        return read_journal(self.manager.index_path.parent)

    def finish_interrupted(self, *, dry_run: bool) -> Finishing | None:
        from sidtui.core.edits.interrupted import finish_interrupted

        mgr = self.manager
        if self.home is None:  # the core refuses a real run while a journal is pending
            mgr.require_no_journal()
            return None
        done = finish_interrupted(
            self.home, mgr.session_id, dry_run=dry_run, project_root=mgr.project_root
        )
        if done is None:
            return None
        return Finishing(
            said=done.describe(),
            changed=done.changed,
            files=done.restore,
            doc={"resumed": done.to_json()},
        )

    def undo(self, *, dry_run: bool, force: bool, path: str | None = None) -> Any:
        if path is not None:
            return self.manager.undo_file(path, dry_run=dry_run, force=force)
        return self.manager.undo(dry_run=dry_run, force=force)

    def redo(self, *, dry_run: bool, force: bool) -> Any:
        return self.manager.redo(dry_run=dry_run, force=force)

    def restore_before(self, checkpoint: str, *, dry_run: bool, force: bool) -> Any:
        return self.manager.restore_before(checkpoint, dry_run=dry_run, force=force)

    def match_path(self, given: str) -> str:
        """The tracked path ``given`` names: as stored, relative to the project root,
        absolute, or the one tracked path ending in it.

        Raises:
            UsageError: no tracked path, or several, match.
        """
        mgr = self.manager
        root = mgr.project_root
        return match_tracked(
            mgr.index.tracked_files(),
            given,
            [
                *([os.path.join(str(root), given)] if root is not None else []),
                os.path.abspath(given),
            ],
            f"is not tracked in {mgr.index_path}",
        )

    def show(self, spec: str) -> Shown:
        path, sid = split_spec(spec, "PATH@SNAPSHOT, e.g. src/login.ts@s3")
        r = self.manager.rebuild_at(self.match_path(path), sid)
        what = f"{r.file_path} at {r.snapshot_id}"
        if not r.recoverable:
            kind = "unknown" if r.uncertain else "unrecoverable"
            return Shown(what, error=f"{kind}: {what}: {r.reason}")
        if not r.exists:
            return Shown(what, error=f"{r.file_path} did not exist before {r.snapshot_id}")
        return Shown(what, content=r.content if r.content is not None else b"")

    def listing(self) -> dict[str, Any]:
        """The machine-readable listing (snapshots + chain health)."""
        mgr = self.manager
        health = {c.file_path: c for c in mgr.chain_health()}
        rebuilds: dict[tuple[str, Any], Any] = {
            (link.snapshot_id, c.file_path): link for c in health.values() for link in c.links
        }
        snaps = []
        for s in mgr.list_snapshots():
            files = []
            for e in s.files:
                link = rebuilds.get((s.id, e.get("filePath")))
                files.append(
                    {
                        "file_path": e.get("filePath"),
                        "type": e.get("type"),
                        "existed_before": e.get("existedBefore") is not False,
                        "compressed": bool(e.get("compressed")),
                        "binary": bool(e.get("binary")),
                        "stored_chars": link.stored_chars if link else None,
                        "rebuilds": link.rebuilds if link else None,
                        "reason": link.reason if link else None,
                    }
                )
            snaps.append(
                {
                    "id": s.id,
                    "timestamp": s.timestamp,
                    "tool_name": s.tool_name,
                    "tool_summary": s.tool_summary,
                    "reverts": list(s.reverts),
                    "reverted": s.reverted,
                    "files": files,
                }
            )
        idx = mgr.index
        return {
            "session_id": idx.session_id,
            "index": str(mgr.index_path),
            "legacy_migrated": idx.migrated,
            "next_id": idx.data.get("nextId"),
            "project_root": str(mgr.project_root) if mgr.project_root else None,
            "snapshots": snaps,
            "files": [c.to_json() for c in health.values()],
        }

"""Shared by `checkpoints`, `undo`, `restore`, `redo`: session → checkpoint manager.

Not a subcommand module (it is not in ``SUBCOMMANDS``).
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime
from pathlib import Path

from sidtui.fmt import plural, refused_line


def add_session_args(p: argparse.ArgumentParser, writes: bool) -> None:
    """SESSION plus, for verbs that write files, the confinement and force flags."""
    p.add_argument(
        "session",
        metavar="SESSION",
        help="session id, unique id prefix, transcript path, or an id with only a "
        "checkpoints/<id>/ folder",
    )
    p.add_argument("--json", action="store_true", help="print the machine-readable object")
    if writes:
        p.add_argument("--dry-run", action="store_true", help="show unified diffs; write nothing")
        p.add_argument(
            "--force",
            action="store_true",
            help="also restore files whose pre-image is uncertain, replace files changed "
            "after the session, and act on a live session",
        )
        p.add_argument(
            "--root",
            metavar="DIR",
            default=None,
            help="project root to confine writes to (default: git top level of the "
            "session's session_start.cwd, else that cwd)",
        )
        p.add_argument(
            "--allow-outside-root",
            action="store_true",
            help="allow writing files outside the project root",
        )


def resolve(args: argparse.Namespace):
    """``(home, session_id, ProjectRoot, SessionFile | None)`` for ``args.session``.

    Raises:
        SessionNotFound / AmbiguousSession: nothing (or several) match, neither as a
        transcript nor as a checkpoint folder.
    """
    from sidtui.cli.common import session_home
    from sidtui.core.base.discover import session_cwd
    from sidtui.core.base.errors import AmbiguousSession, SessionNotFound
    from sidtui.core.base.project import ProjectRoot, project_root_for, user_home
    from sidtui.core.base.resolve import resolve_session

    arg = args.session
    home = session_home(args, arg)
    unknown = ProjectRoot(None, "no transcript", "no project root is known (no transcript)")
    try:
        sf = resolve_session(home, arg)
    except SessionNotFound:
        ids = _checkpoint_ids(home)
        if arg in ids:
            return home, arg, unknown, None
        hits = [i for i in ids if i.startswith(arg)]
        if len(hits) == 1:
            return home, hits[0], unknown, None
        if len(hits) > 1:
            raise AmbiguousSession(
                f"{arg!r} matches {len(hits)} checkpoint folders", hits
            ) from None
        raise
    sid = sf.checkpoint_id
    cwd = session_cwd(sf) if sf.container == "jsonl" else _v1_cwd(sf.path)
    return home, sid, project_root_for(cwd, user_home(os.environ)), sf


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


def refuse_live(home, session_id: str, sf) -> None:
    """Refuse to write while an agent process has this session open (FORMAT.md §11.6).

    The agent keeps its checkpoint index in memory and rewrites ``index.json`` on its next
    snapshot, which would drop our safety snapshot.

    Raises:
        SidtuiError: the session is live.
    """
    from sidtui.core.base.discover import session_ids
    from sidtui.core.base.errors import SidtuiError, UnreadableInput
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


def _checkpoint_ids(home) -> list[str]:
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


def manager(args: argparse.Namespace, writes: bool = False):
    """The session's :class:`~sidtui.core.checkpoints.manager.CheckpointManager`.

    Raises:
        SidtuiError: no checkpoint index for the session.
    """
    from sidtui.core.base.errors import SidtuiError
    from sidtui.core.base.project import explicit_root, user_home
    from sidtui.core.checkpoints.manager import CheckpointManager

    home, sid, root, sf = resolve(args)
    args.session_id = sid  # printed follow-ups name the session by its full id
    if writes and getattr(args, "root", None):
        root = explicit_root(args.root, user_home(os.environ))
    if writes and not args.force:
        try:
            refuse_live(home, sid, sf)
        except SidtuiError as exc:
            if not args.dry_run:
                raise
            args._dry_refusal = str(exc)  # a dry run says it, exit 1, as the real run would
    mgr = CheckpointManager.for_session(
        home,
        sid,
        project_root=root.path,
        root_refusal=root.refusal,
        allow_outside_root=bool(getattr(args, "allow_outside_root", False)),
        post_image=_post_images(sf) if writes else None,
    )
    args._home, args._root_info = home, root
    if not mgr.exists:
        raise SidtuiError(
            f"session {sid} has no file checkpoints ({mgr.index_path} does not exist)"
        )
    for line in mgr.index.malformed_entries():  # load now: a corrupt index fails first
        print(f"sidtui: warning: {line}", file=sys.stderr)
    return mgr


def _post_images(sf):
    """The drift check's ``post_image``, reading ``sf``'s transcript on first use."""
    from sidtui.core.edits.batches import post_image_of

    return post_image_of(sf.path if sf is not None and sf.container == "jsonl" else None)


def prepare(args: argparse.Namespace):
    """``(manager, exit code | None)`` for undo/redo/restore: the manager, after finishing
    what an interrupted earlier run of this session left (then the exit code is set and
    that is all this run does; a dry run says that, with the real run's exit code)."""
    from sidtui.cli.common import print_json
    from sidtui.core.edits.interrupted import finish_interrupted

    mgr = manager(args, writes=True)
    done = finish_interrupted(
        args._home, mgr.session_id, dry_run=args.dry_run, project_root=mgr.project_root
    )
    if done is None:
        return mgr, None
    if args.dry_run and done.changed:  # what the real run does, and only that
        doc = {"resumed": done.to_json()}
        res = done.restore
        return mgr, report_finish(args, res, done.describe(), doc=doc)
    print(f"sidtui: {'dry run: ' if args.dry_run else ''}{done.describe()}", file=sys.stderr)
    if not done.changed:
        return mgr, None
    if args.json:
        print_json({"resumed": done.to_json()})
    skipped = done.restore is not None and bool(done.restore.skipped)
    if done.restore is not None:
        for f in done.restore.skipped:
            print(f"skipped   {f.path}: {f.reason}", file=sys.stderr)
    return mgr, 1 if skipped else 0


def match_path(mgr, given: str) -> str:
    """The tracked path ``given`` names: as stored, relative to the project root, absolute,
    or the one tracked path ending in it.

    Raises:
        UsageError: no tracked path, or several, match.
    """
    from sidtui.core.base.errors import UsageError

    tracked = mgr.index.tracked_files()
    if given in tracked:
        return given
    if mgr.project_root is not None:
        cand = os.path.join(str(mgr.project_root), given)
        if cand in tracked:
            return cand
    absolute = os.path.abspath(given)
    if absolute in tracked:
        return absolute
    hits = [t for t in tracked if t.endswith("/" + given.lstrip("/"))]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise UsageError(f"{given!r} matches several tracked files: {', '.join(hits)}")
    raise UsageError(f"{given!r} is not tracked in {mgr.index_path}")


def fmt_time(ms: int) -> str:
    """Local time of a ms timestamp, ``YYYY-MM-DD HH:MM:SS``."""
    try:
        return datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M:%S")
    except (OverflowError, OSError, ValueError):
        return str(ms)


def report_finish(args: argparse.Namespace, res, said: str, *, doc: dict) -> int:
    """A dry run whose real run only finishes an interrupted earlier one: ``said`` (the one
    statement of what it does), the diffs of the files it writes, the files it skips; the
    real run's exit code (1: a file skipped, or the real run refused before it).

    Args:
        res: the files finishing writes (a ``RestoreResult`` or ``CodeRestoreResult``; None:
            none). doc: the real run's ``--json`` object, given ``diffs`` and ``refusal``.
    """
    from sidtui.cli.common import followups_in, print_json

    refusal = getattr(args, "_dry_refusal", None)  # a live session: refused before it
    changed = res.changed if res is not None else []
    skipped = res.skipped if res is not None else []
    code = 1 if skipped or refusal else 0
    args.exit_code = code
    print(f"sidtui: dry run: {said}", file=sys.stderr)  # as the real run says it, --json too
    if args.json:
        from sidtui.core.views.rewind_text import unified_diff

        print_json({**doc, "diffs": {f.path: unified_diff(f) for f in changed}, "refusal": refusal})
        return code
    print_diffs(changed)
    for f in skipped:
        print(f"skipped   {f.path}: {f.reason}", file=sys.stderr)
    if refusal:
        print(f"sidtui: dry run: {refused_line(followups_in(refusal, args))}", file=sys.stderr)
    return code


def print_diffs(files) -> None:
    """The unified diff (current → restored) of each file on stdout; a change no line
    shows (a deletion, an empty file, bytes only) is said in words."""
    from sidtui.core.views.rewind_text import unified_diff

    for f in files:
        diff = unified_diff(f)
        if not diff:  # no line differs: a deletion, or a file (re)created empty
            diff = (
                f"(delete {f.path})\n"
                if f.action == "deleted"
                else f"(create {f.path}, empty)\n"
                if f.old is None
                else f"(rewrite {f.path}: same lines, different bytes)\n"
            )
        sys.stdout.write(diff)
    sys.stdout.flush()


def report(args: argparse.Namespace, res, verb: str, project=None) -> int:
    """Print a :class:`~sidtui.core.checkpoints.restore.RestoreResult` of either source
    (a Claude Code one is a ``CodeRestoreResult``); exit 1 when files were skipped.

    ``project``: a source's :class:`~sidtui.core.base.project.ProjectRoot`, described
    first (then the result's warnings)."""
    from sidtui.cli.common import followup, followups_in, print_json, session_word, stdout_console
    from sidtui.core.views.rewind_text import unified_diff

    # a dry run predicts the real run: what would refuse it is said, with its exit code
    refusal = (getattr(args, "_dry_refusal", None) or res.refusal) if res.dry_run else None
    code = 1 if res.skipped or refusal else 0
    args.exit_code = code  # kept when stdout is closed early (`| head`)
    if args.json:
        doc = res.to_json()
        if res.dry_run:
            doc["diffs"] = {f.path: unified_diff(f) for f in res.changed}
            doc["refusal"] = refusal
        print_json(doc)
        return code
    from rich.markup import escape as esc

    from sidtui.core.checkpoints.drift import DRIFT_WORDING

    c = stdout_console()
    err = sys.stderr
    if project is not None:
        print(project.describe(), file=err)
    for w in res.warnings:
        print(f"warning: {w}", file=err)
    if project is None:  # else said above
        root = getattr(args, "_root_info", None)
        print(root.describe() if root is not None else f"project root: {res.root}", file=err)
    if res.note and not res.files:
        print(res.note, file=err)
        if refusal:
            print(f"sidtui: dry run: {refused_line(followups_in(refusal, args))}", file=err)
        return code
    if res.drifted:
        names = ", ".join(f.path for f in res.drifted)
        if res.dry_run:
            if res.refusal is None:  # else the refusal below names them
                print(f"{len(res.drifted)} file(s) {DRIFT_WORDING}: {names}", file=err)
                print("--force: a real run replaces them (kept in its safety snapshot)", file=err)
        else:
            print(
                f"replaced {_drift_kinds(res.drifted)} (kept in safety snapshot "
                f"{res.safety_snapshot_id}): {names}",
                file=err,
            )
    if res.dry_run:
        print_diffs(res.changed)
        n = len(res.changed)
        print(
            f"dry run: {verb} would change {plural(n, 'file', zero='no')} "
            f"(back to before {res.target_snapshot_id}){' with --force' if refusal else ''}; "
            "nothing written",
            file=err,
        )
    else:
        for f in res.files:
            if f.action in ("restored", "deleted"):
                c.print(
                    f"{f.action:9} {esc(str(f.path))}  [dim](from {esc(str(f.source_snapshot))})[/dim]"
                )
        if res.safety_snapshot_id:
            back = "undo" if res.op == "redo" else "redo"
            cmd = followup(
                args, back, session_word(args, getattr(args, "session_id", args.session))
            )
            c.print(
                f"saved the previous contents as {res.safety_snapshot_id}; take this back with "
                f"[bold]`{esc(cmd)}`[/bold]",
                soft_wrap=True,  # a command is never broken across lines
            )
        elif res.note:
            print(res.note, file=err)
    for f in res.files:
        if f.action == "unchanged" and not res.dry_run:
            continue
        if f.action == "skipped":
            print(f"skipped   {f.path}: {f.reason}", file=err)
    if refusal:
        print(f"sidtui: dry run: {refused_line(followups_in(refusal, args))}", file=err)
    return code


def _drift_kinds(drifted: list) -> str:
    """What is known of the files a forced restore replaced: changed after this session
    (proven), or whose last change by this session cannot be proven (a shell command ran,
    a result is missing): never "changed" for a change not proven."""
    changed = sum(1 for f in drifted if f.drift is None or f.drift.status == "changed")
    parts = []
    if changed:
        parts.append(f"{changed} file(s) changed after this session")
    if len(drifted) - changed:
        parts.append(
            f"{len(drifted) - changed} file(s) whose last change by this session cannot be proven"
        )
    return " and ".join(parts)

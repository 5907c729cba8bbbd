"""Shared by `checkpoints`, `undo`, `restore`, `redo`, `rewind`: session → code store
(:meth:`sidtui.core.sources.base.Source.code_store`), finishing an interrupted write, and
the report of a restore.

Not a subcommand module (it is not in ``SUBCOMMANDS``).
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime

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


def store(args: argparse.Namespace, writes: bool = False, target=None):
    """The session's code store (:class:`~sidtui.core.sources.writes.CodeStore`), its
    warnings said, with the follow-up id and a dry run's live refusal kept on ``args``.

    Raises:
        SidtuiError: the session has no checkpoints.
    """
    from sidtui.cli.target import write_target
    from sidtui.core.sources.writes import WriteOptions

    t = target if target is not None else write_target(args)
    opts = WriteOptions(
        root=getattr(args, "root", None) if writes else None,
        allow_outside_root=bool(getattr(args, "allow_outside_root", False)),
        force=bool(getattr(args, "force", False)),
        dry_run=bool(getattr(args, "dry_run", False)),
        writes=writes,
    )
    st = t.source.code_store(t.store_arg(), opts)
    if st.followup_id is not None:
        args.session_id = st.followup_id  # printed follow-ups name the session by its full id
    if st.dry_refusal is not None:
        args._dry_refusal = st.dry_refusal  # a dry run says it, exit 1, as the real run would
    for line in st.warnings:  # loads the index now: a corrupt one fails first
        print(f"sidtui: warning: {line}", file=sys.stderr)
    st.require()
    return st


def prepare(args: argparse.Namespace, verb: str, target=None):
    """``(store, exit code | None)`` for undo/redo/restore: the store, after finishing
    what an interrupted earlier run of this session left (then the exit code is set and
    that is all this run does; a dry run says that, with the real run's exit code)."""
    st = store(args, writes=True, target=target)
    return st, finish_first(args, st, verb)


def finish_first(args: argparse.Namespace, st, verb: str) -> int | None:
    """Finish what a killed sidtui write of this session left (its journal): then that is
    all this run does (its exit code); None when nothing was pending, or when it had
    changed nothing (said, and dropped: the run goes on). A dry run says what the real run
    does there, with its exit code."""
    from sidtui.cli.common import print_json

    done = st.finish_interrupted(dry_run=args.dry_run)
    if done is None:
        return None
    dry = "dry run: " if args.dry_run else ""
    if not done.changed:
        print(f"sidtui: {dry}{done.said}", file=sys.stderr)
        if done.note:
            print(f"sidtui: {done.note}", file=sys.stderr)
        return None  # it had changed nothing (said above): this run does what was asked
    if args.dry_run:  # what the real run does, and only that
        for w in done.warnings:
            print(f"warning: {w}", file=sys.stderr)
        return report_finish(args, done.files, done.said, doc=done.doc)
    print(f"sidtui: {done.said}", file=sys.stderr)
    if done.report is not None:
        return report(args, done.report, verb, st)
    if args.json:
        print_json(done.doc)
    skipped = done.files.skipped if done.files is not None else []
    for f in skipped:
        print(f"skipped   {f.path}: {f.reason}", file=sys.stderr)
    return 1 if skipped else 0


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


def report(args: argparse.Namespace, res, verb: str, st) -> int:
    """Print a :class:`~sidtui.core.checkpoints.restore.RestoreResult` of any source's
    code store ``st``; exit 1 when files were skipped. The project root is described
    before the result's warnings or after them, as the store says (``root_first``)."""
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
    if st.root_first:
        print(st.project.describe(), file=err)
    for w in res.warnings:
        print(f"warning: {w}", file=err)
    if not st.root_first:
        print(st.project.describe(), file=err)
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

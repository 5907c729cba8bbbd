"""`sidtui rewind SESSION --to N --mode conversation|code|both`: rewind conversation, code or both.

Without ``--to`` the session's rewind points are listed. ``--dry-run`` prints the messages
that would drop and unified diffs of the files that would change, and writes nothing.
"""

from __future__ import annotations

import argparse
import sys

from sidtui.cli.common import print_json, stderr_console, stdout_console
from sidtui.fmt import refused_line


def register(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "rewind",
        parents=parents,
        help="rewind a session's conversation, files, or both to before a prompt",
        description="Rewind SESSION to just before human prompt N (see the list without "
        "--to). The conversation rewind is append-only (a marker record; `sidtui branch` "
        "takes it back); files are restored through the checkpoints with a safety "
        "snapshot (`sidtui undo`/redo takes it back).",
    )
    p.add_argument("session", metavar="SESSION")
    p.add_argument("--to", type=int, metavar="N", help="rewind point number (1 = first prompt)")
    p.add_argument(
        "--mode",
        choices=["conversation", "code", "both", "conversation-and-code"],
        default=None,
        help="what to rewind (default: both)",
    )
    p.add_argument("--fork", action="store_true", help="write the result as a new session")
    p.add_argument("--dry-run", action="store_true", help="show what would change; write nothing")
    p.add_argument(
        "--force",
        action="store_true",
        help="rewind a live session; restore uncertain files; replace files changed after "
        "the session",
    )
    p.add_argument(
        "--root",
        metavar="DIR",
        default=None,
        help="project root to confine the file step to (default: git top level of the "
        "session's cwd, else that cwd)",
    )
    p.add_argument(
        "--allow-outside-root",
        action="store_true",
        help="let the file step write outside the session's project root",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


#: Flags that only mean something with --to (given without it: a usage error, not ignored).
_NEED_TO = (
    ("mode", "--mode"),
    ("fork", "--fork"),
    ("dry_run", "--dry-run"),
    ("force", "--force"),
    ("allow_outside_root", "--allow-outside-root"),
)


def run(args: argparse.Namespace) -> int:
    from sidtui.cli.target import write_target
    from sidtui.core.base.errors import UsageError
    from sidtui.core.sources.writes import NEW_SESSION, WriteOptions

    if args.to is None:
        given = [flag for name, flag in _NEED_TO if getattr(args, name) not in (None, False)]
        if given:
            raise UsageError(
                f"{', '.join(given)} need{'s' * (len(given) == 1)} --to N (the rewind point); "
                "without --to, rewind lists the points"
            )
    t = write_target(args)
    src = t.source
    view = t.open()
    args.session_id = view.file.session_id  # what printed follow-ups look up
    if args.to is None:
        points = src.rewind_points(view)
        if args.json:
            doc = {"session_id": view.session_id, "points": [p.to_json() for p in points]}
            print_json({**src.json_head(), **doc})
            return 0
        render_points(view, points, src)
        return 0
    mode = args.mode or "both"
    if not src.rewind_finishes_interrupted and mode != "conversation":
        done = _finish_first(args, t)
        if done is not None:
            return done
        if getattr(args, "_reopen", False):
            view = t.open()
    opts = WriteOptions(
        root=args.root,
        allow_outside_root=args.allow_outside_root,
        force=args.force,
        dry_run=args.dry_run,
        as_fork=args.fork,
    )
    result = src.rewind(view, args.to, mode, opts)
    code = exit_code(result)  # the one rule (dry run or not)
    args.exit_code = code  # kept when stdout is closed early (`| head`)
    if args.json:
        print_json(result.to_json())
        return code
    new_session = src.conversation_rewind == NEW_SESSION
    # a rewind writing a new session keeps the safety snapshot with the source, never it
    render_result(result, args, safety_session=view.session_id if new_session else None)
    if new_session and result.fork is not None:
        resume = src.resume_command(result.fork.session_id)
        if result.dry_run:
            print(
                "would write the rewound conversation as a new session (the original is "
                f"unchanged); the real run prints its `{src.resume_command('').strip()}` command",
                file=sys.stderr,
            )
        else:
            print(
                "wrote the rewound conversation as a new session (the original is unchanged); "
                f"resume it with: {resume}",
                file=sys.stderr,
            )
    return code


def _finish_first(args: argparse.Namespace, t) -> int | None:
    """For a source whose rewind does not finish a killed write itself: finish the code
    store's journal first (then that is all, unless it was this very rewind, whose
    conversation step is still due: ``args._reopen``)."""
    from sidtui.cli.checkpoint_args import finish_first
    from sidtui.core.sources.writes import WriteOptions

    opts = WriteOptions(root=args.root, allow_outside_root=args.allow_outside_root, writes=True)
    st = t.source.code_store(t.resolve(), opts)
    pending = st.pending_journal()
    done = finish_first(args, st, "rewind")
    if done is None:
        return None
    if args.dry_run or done != 0 or not _same_rewind(pending, args):
        return done
    # the interrupted run was this very rewind: its conversation step is still due
    print("sidtui: the rest of that rewind follows (the conversation)", file=sys.stderr)
    args._reopen = True
    return None


def _same_rewind(journal: dict | None, args: argparse.Namespace) -> bool:
    """Whether ``journal`` (a pending restore's) is of a rewind with this point and mode
    whose conversation step was still to do when it was interrupted."""
    from sidtui.core.views.rewind_text import normalize_mode

    part = journal.get("rewind") if isinstance(journal, dict) else None
    if not isinstance(part, dict) or part.get("point") != args.to:
        return False
    mode = normalize_mode(args.mode or "both")
    return part.get("mode") == mode and mode != "code"


def exit_code(result) -> int:
    """The one exit-code rule: a file skipped (or that a dry run would skip), also by the
    finishing of an interrupted earlier run, or a dry run whose real run would be refused
    (``result.refusal``), is exit 1."""
    skipped = any(f.get("action") == "skipped" for f in result.files)
    resumed = getattr(result, "resumed", None)
    skipped = skipped or bool(getattr(resumed, "skipped", None))
    return 1 if skipped or getattr(result, "refusal", None) else 0


def render_points(view, points, src) -> None:
    """The rewind points as a table; the note under it says how this source writes a
    conversation rewind when that is a new session (else what the message column is)."""
    from rich.table import Table
    from rich.text import Text

    from sidtui.core.sources.writes import NEW_SESSION

    c = stdout_console()
    if not points:
        c.print(Text(f"{view.session_id}: no rewind points ({src.no_points_reason})"))
        return
    from sidtui.fmt import local_time

    title = Text(f"rewind points of {view.file.session_id}", overflow="fold")
    t = Table(title=title, title_justify="left")
    # the number (what --to takes) and the message index never shrink; on a narrow
    # terminal the prompt preview gives way first, then the other columns
    narrow = c.width < 60
    heads = (
        ("time", "msg", "code from")
        if narrow
        else ("time (local)", "message", "code restores from")
    )
    num_w = max(len(str(p.id)) for p in points)
    msg_w = max(len(heads[1]), *(len(str(p.message_index)) for p in points))
    files = [p.code_from for p in points]
    times = [local_time(p.timestamp, seconds=True) or "—" for p in points]
    time_w = max(len(heads[0]), *(len(x) for x in times))
    files_w = max(len(heads[2]), *(len(x) for x in files))
    prompt_w = c.width - (3 * 5 + 1) - num_w - time_w - msg_w - files_w
    with_prompt = prompt_w >= 10
    cols: list[tuple[str, dict]] = [
        ("#", {"justify": "right", "no_wrap": True, "min_width": num_w}),
        (heads[0], {"no_wrap": True, "overflow": "ellipsis"}),
        (heads[1], {"justify": "right", "no_wrap": True, "min_width": msg_w}),
        (heads[2], {"no_wrap": True, "overflow": "ellipsis", "min_width": min(files_w, 9)}),
    ]
    if with_prompt:
        cols.append(("prompt", {"overflow": "ellipsis", "no_wrap": True, "max_width": prompt_w}))
    for col, kw in cols:
        t.add_column(col, **kw)
    for p, when, what in zip(points, times, files, strict=True):
        cells = [str(p.id), when, str(p.message_index), Text(what)]
        t.add_row(*cells, *([Text(p.preview or "")] if with_prompt else []))
    c.print(t)
    if src.conversation_rewind == NEW_SESSION:
        code = (
            f"{heads[2]}: the checkpoint whose backups a code rewind writes back"
            if src.checkpoint_unit is not None
            else f"{src.label} keeps no file states: no code rewind"
        )
        c.print(
            "[dim]a conversation rewind writes a new session (the original is never edited); "
            f"{code}[/]"
        )
        return
    c.print(
        f"[dim]{heads[1]}: messages before the prompt that a conversation rewind keeps; "
        f"{heads[2]}: the snapshot whose pre-images a code rewind writes back[/]"
    )


def print_diff(c, diff: str) -> None:
    from rich.text import Text

    for line in diff.splitlines():
        style = (
            "bold"
            if line.startswith(("---", "+++"))
            else "cyan"
            if line.startswith("@@")
            else "green"
            if line.startswith("+")
            else "red"
            if line.startswith("-")
            else ""
        )
        c.print(Text(line, style=style))


def render_result(
    r, args: argparse.Namespace | None = None, *, safety_session: str | None = None
) -> None:
    """Human output of a :class:`~sidtui.core.edits.rewind.RewindResult`: what changed on
    stdout, each skipped file once on stderr, follow-up commands runnable as printed.

    ``safety_session``: the session whose checkpoints hold the safety snapshot when it is
    not the one the result names (a source whose rewind writes a new session keeps it with
    the original, never the new one);
    default: the fork's for a rewind ``--fork``, else the session's."""
    import sys

    from rich.text import Text

    from sidtui.cli.common import followup, followups_in, session_word
    from sidtui.core.checkpoints.drift import drift_lines, drift_said, replaced_kinds

    args = args or argparse.Namespace()
    c = stdout_console()
    err = stderr_console()
    if r.resumed is not None:  # the run only finishes an interrupted earlier one
        print(f"sidtui: {'dry run: ' if r.dry_run else ''}{r.resumed.describe()}", file=sys.stderr)
        for d in r.diffs:
            print_diff(c, d)
        for f in getattr(r.resumed, "skipped", []):
            print(f"skipped   {f.path}: {f.reason}", file=sys.stderr)
        for w in r.warnings:
            err.print(Text(f"warning: {followups_in(w, args)}", style="yellow"))
        if r.dry_run and r.refusal:
            print(
                f"sidtui: dry run: {refused_line(followups_in(r.refusal, args))}", file=sys.stderr
            )
        return
    if r.mode != "conversation":
        root = r.root or "unknown"
        refused = f" — refused: {r.root_refusal}" if r.root_refusal else ""
        print(f"project root: {root}{refused}", file=sys.stderr)
        if r.drift:
            names = ", ".join(d["path"] for d in r.drift)
            if r.dry_run:
                if not drift_said(r.refusal):  # else the refusal says them
                    for line in drift_lines((d["path"], d.get("status")) for d in r.drift):
                        print(line, file=sys.stderr)
                if not r.refusal:
                    print(
                        "--force: a real run replaces them (kept in its safety snapshot)",
                        file=sys.stderr,
                    )
            else:
                print(
                    f"replaced {replaced_kinds(d.get('status') for d in r.drift)} (kept in "
                    f"safety snapshot {r.safety_snapshot}): {names}",
                    file=sys.stderr,
                )
    verb = "would rewind" if r.dry_run else "rewound"
    c.print(Text(f"{verb} to point {r.point.id} ({r.mode}): {r.point.preview!r}", style="bold"))
    if r.mode != "code":
        c.print(f"messages {'to drop' if r.dry_run else 'dropped'}: {r.messages_dropped}")
        if r.dry_run:
            for d in r.dropped:
                c.print(Text(f"  - [{d['index']}] {d['role']}: {d['preview']}"))
    skipped = [f for f in r.files if f["action"] == "skipped"]
    if r.mode != "conversation":
        if r.file_restore_skipped and not r.files:
            c.print("files: skipped (no snapshot for this point)")
        else:
            c.print(f"files {'to restore' if r.dry_run else 'restored'}: {r.files_restored}")
        for f in r.files:
            if f["action"] not in ("unchanged", "skipped"):
                c.print(Text(f"  {f['action']:9} {f['path']}"))
        for d in r.diffs:
            print_diff(c, d)
    said = {f"{f['path']}: skipped ({f['reason']})" for f in skipped}
    for f in skipped:  # once each, on stderr, as undo/restore say it
        print(f"skipped   {f['path']}: {f['reason']}", file=sys.stderr)
    for w in r.warnings:
        if w not in said:
            err.print(Text(f"warning: {followups_in(w, args)}", style="yellow"))
    if r.dry_run and getattr(r, "refusal", None):
        print(f"sidtui: dry run: {refused_line(followups_in(r.refusal, args))}", file=sys.stderr)
    sid = r.fork.session_id if r.fork is not None else None
    if r.fork is not None and r.dry_run:  # its id is picked when it is written
        c.print(Text(f"new session: a new id, picked when it is written (in {r.fork.path.parent})"))
    elif r.fork is not None:
        c.print(Text(f"new session: {r.fork.session_id}  ({r.fork.path})"))
    if not r.dry_run:
        if r.marker_uuid:
            back = followup(
                args,
                "branch",
                session_word(args, getattr(args, "session_id", r.session_id)),
                "--tip",
                (r.abandoned_tip or "")[:8],
            )
            c.print(
                Text(
                    f"marker {r.marker_uuid[:8]} appended; the old branch stays in the file "
                    f"(`{back}` makes it live again)"
                ),
                soft_wrap=True,  # a command is never broken across lines
            )
        if r.safety_snapshot:
            in_fork = sid is not None and safety_session is None
            owner = sid if in_fork else safety_session or getattr(args, "session_id", r.session_id)
            where = f" in the new session {sid}'s checkpoints" if in_fork else ""
            c.print(
                Text(
                    f"safety snapshot {r.safety_snapshot}{where} holds the files as they were "
                    f"(`{followup(args, 'redo', owner if in_fork else session_word(args, owner))}`"
                    " takes the file step back)"
                ),
                soft_wrap=True,
            )

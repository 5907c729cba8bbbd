"""`sidtui rewind SESSION --to N --mode conversation|code|both`: rewind conversation, code or both.

Without ``--to`` the session's rewind points are listed. ``--dry-run`` prints the messages
that would drop and unified diffs of the files that would change, and writes nothing.
"""

from __future__ import annotations

import argparse

from sidtui.cli.common import print_json, session_home, stdout_console


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
        default="both",
        help="what to rewind (default: both)",
    )
    p.add_argument("--fork", action="store_true", help="write the result as a new session")
    p.add_argument("--dry-run", action="store_true", help="show what would change; write nothing")
    p.add_argument(
        "--force", action="store_true", help="rewind a live session; restore uncertain files"
    )
    p.add_argument(
        "--allow-outside-root",
        action="store_true",
        help="let the file step write outside the session's project root",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def open_view(args: argparse.Namespace):
    """Resolve ``args.session`` under the home and open it (flushing our own queue first)."""
    from sidtui.core.base.home import resolve_session
    from sidtui.core.transcript.writer import flush_pending_writes
    from sidtui.core.views.session import open_session

    home = session_home(args)
    sf = resolve_session(home, args.session)
    flush_pending_writes(sf.path)
    return open_session(home, sf, with_sidechains=False)


def run(args: argparse.Namespace) -> int:
    from sidtui.cli.claude_dispatch import claude_target

    target = claude_target(args)
    if target is not None:
        from sidtui.cli import claude_verbs

        return claude_verbs.rewind(args, target)
    from sidtui.core.edits.rewind import rewind, rewind_points

    view = open_view(args)
    if args.to is None:
        points = rewind_points(view)
        if args.json:
            print_json({"session_id": view.session_id, "points": [p.to_json() for p in points]})
            return 0
        render_points(view, points)
        return 0
    result = rewind(
        view,
        args.to,
        args.mode,
        as_fork=args.fork,
        force=args.force,
        dry_run=args.dry_run,
        allow_outside_root=args.allow_outside_root,
    )
    if args.json:
        print_json(result.to_json())
        return 0
    render_result(result)
    return 0


def render_points(view, points) -> None:
    from rich.table import Table
    from rich.text import Text

    c = stdout_console()
    if not points:
        c.print(Text(f"{view.session_id}: no rewind points (no human prompts on the live chain)"))
        return
    from sidtui.fmt import local_time

    t = Table(title=Text(f"rewind points of {view.session_id}"), title_justify="left")
    for col, kw in (
        ("#", {"justify": "right"}),
        ("time (local)", {"no_wrap": True}),
        ("message", {"justify": "right"}),
        ("code restores from", {"no_wrap": True}),
        ("prompt", {"overflow": "ellipsis", "no_wrap": True}),
    ):
        t.add_column(col, **kw)
    for p in points:
        files = p.restore_from or "— (no snapshot after it)"
        t.add_row(
            str(p.id),
            local_time(p.timestamp, seconds=True) or "—",
            str(p.message_index),
            Text(files),
            Text(p.preview or ""),
        )
    c.print(t)
    c.print(
        "[dim]message: messages before the prompt that a conversation rewind keeps; "
        "code restores from: the snapshot whose pre-images a code rewind writes back[/]"
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


def render_result(r) -> None:
    from rich.text import Text

    c = stdout_console()
    verb = "would rewind" if r.dry_run else "rewound"
    c.print(Text(f"{verb} to point {r.point.id} ({r.mode}): {r.point.preview!r}", style="bold"))
    if r.mode != "code":
        c.print(f"messages {'to drop' if r.dry_run else 'dropped'}: {r.messages_dropped}")
        if r.dry_run:
            for d in r.dropped:
                c.print(Text(f"  - [{d['index']}] {d['role']}: {d['preview']}"))
    if r.mode != "conversation":
        if r.file_restore_skipped and not r.files:
            c.print("files: skipped (no snapshot for this point)")
        else:
            c.print(f"files {'to restore' if r.dry_run else 'restored'}: {r.files_restored}")
        for f in r.files:
            if f["action"] != "unchanged":
                reason = f" ({f['reason']})" if f.get("reason") else ""
                c.print(Text(f"  {f['action']:9} {f['path']}{reason}"))
        for d in r.diffs:
            print_diff(c, d)
    for w in r.warnings:
        c.print(Text(f"warning: {w}", style="yellow"))
    if r.fork is not None:
        c.print(Text(f"new session: {r.fork.session_id}  ({r.fork.path})"))
    if not r.dry_run:
        if r.marker_uuid:
            c.print(
                Text(
                    f"marker {r.marker_uuid[:8]} appended; the old branch stays in the file "
                    f"(`sidtui branch {r.session_id} --tip {(r.abandoned_tip or '')[:8]}` makes it "
                    "live again)"
                )
            )
        if r.safety_snapshot:
            c.print(
                f"safety snapshot {r.safety_snapshot} holds the files as they were "
                "(`sidtui restore`/redo takes the file step back)"
            )

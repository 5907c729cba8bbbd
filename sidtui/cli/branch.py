"""`sidtui branch SESSION --tip UUID_PREFIX`: make another tip of the record tree live again."""

from __future__ import annotations

import argparse

from sidtui.cli.common import finish_verb, print_json, stdout_console


def register(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "branch",
        parents=parents,
        help="make another branch of a session the live one (undo an in-place rewind)",
        description="Append a marker whose parent is the record UUID_PREFIX names, so the "
        "agent's loader continues from there: takes back an in-place rewind or recovers "
        "a branch lost to a concurrent writer. Nothing is deleted. Without --tip, the "
        "tips of the record tree are listed.",
    )
    p.add_argument("session", metavar="SESSION")
    p.add_argument("--tip", metavar="UUID_PREFIX", help="uuid (or unique prefix) of the record")
    finish_verb(
        p,
        run,
        dry_run="show what would change; write nothing",
        force="switch a live session / unloadable branch",
    )


def run(args: argparse.Namespace) -> int:
    from sidtui.cli.target import opened
    from sidtui.core.sources.writes import NEW_SESSION, WriteOptions

    src, view = opened(args)
    new_session = src.conversation_rewind == NEW_SESSION
    if args.tip is None:
        tips = src.branch_tips(view)
        if args.json:
            print_json({**src.json_head(), "session_id": view.session_id, "tips": tips})
        elif new_session:
            _render_kinds(args, view, tips)
        else:
            _render_tips(view, tips)
        return 0
    opts = WriteOptions(force=args.force, dry_run=args.dry_run)
    res = src.switch_branch(view, args.tip, opts)
    if new_session:  # a branch is switched to by forking it into a session of its own
        from sidtui.cli.fork import render

        if args.json:
            print_json(res.to_json())
            return 0
        copied, resume = src.fork_copied(res), src.resume_command(res.session_id)
        render(res, "forked the branch into", copied=copied, resume=resume)
        return 0
    return _report_switch(args, view, res)


def _render_tips(view, tips: list[dict]) -> None:
    """The tips of one file: which the agent loads (the last line's), each one's length."""
    from rich.text import Text

    c = stdout_console()
    loads = view.loaded.loadable
    for t in tips:
        n = t["messages"]
        if t["last_line"]:
            # the last line's tip: what the agent loads — nothing, if it cannot load
            live = "  (live)" if loads else "  (last line: the agent loads nothing)"
        else:
            live = ""
        c.print(
            Text(f"{t['uuid']}  line {t['line']}  {t['type']}  {n} message{'s' * (n != 1)}{live}")
        )


def _render_kinds(args: argparse.Namespace, view, tips: list[dict]) -> None:
    """The leaves of a record tree with each one's kind (the one resume picks, a branch,
    a rewind); a branch resume will not pick can be forked into a session of its own."""
    from rich.text import Text

    from sidtui.cli.common import followup

    c = stdout_console()
    for t in tips:
        note = "  (resume picks this)" if t["live"] else f"  ({t['kind']})"
        if t["rewind"]:
            note += " rewind"
        c.print(Text(f"{t['uuid']}  line {t['line']}  {t['type']}  {t['messages']} messages{note}"))
    if any(t["kind"] == "branch" for t in tips):
        c.print(
            Text(
                "a branch resume will not pick can be forked into a session of its own: "
                + followup(args, "branch", view.session_id, "--tip", "UUID_PREFIX"),
                style="dim",
            )
        )


def _report_switch(args: argparse.Namespace, view, res) -> int:
    """A marker switch: what leaves and joins the conversation, and how to switch back."""
    from rich.text import Text

    # finishing an interrupted run that skips a file is exit 1, as for undo (dry run too)
    code = 1 if res.resumed is not None and res.resumed.skipped else 0
    if args.json:
        print_json(res.to_json())
        return code
    if res.resumed is not None:
        import sys

        dry = "dry run: " if res.dry_run else ""
        print(f"sidtui: {dry}{res.resumed.describe()}", file=sys.stderr)
        for f in res.resumed.skipped:
            print(f"skipped   {f.path}: {f.reason}", file=sys.stderr)
        return code
    c = stdout_console()
    verb = "would switch" if res.dry_run else "switched"
    c.print(
        Text(
            f"{verb} to {res.tip_uuid}: {res.messages_before} → {res.messages_after} messages",
            style="bold",
        )
    )
    for m in res.leaving:
        c.print(Text(f"  - {m['role']}: {m['preview']}", style="red"))
    for m in res.joining:
        c.print(Text(f"  + {m['role']}: {m['preview']}", style="green"))
    if res.marker_uuid:
        from sidtui.cli.common import followup, session_word

        back = followup(
            args,
            "branch",
            session_word(args, view.file.session_id),
            "--tip",
            (res.previous_tip_uuid or "")[:8],
        )
        c.print(
            Text(f"marker {res.marker_uuid[:8]} appended (switch back: `{back}`)"), soft_wrap=True
        )
    return 0

"""`sidtui branch SESSION --tip UUID_PREFIX`: make another tip of the record tree live again."""

from __future__ import annotations

import argparse

from sidtui.cli.common import print_json, stdout_console


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
    p.add_argument("--dry-run", action="store_true", help="show what would change; write nothing")
    p.add_argument("--force", action="store_true", help="switch a live session / unloadable branch")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from sidtui.cli.claude_dispatch import claude_target

    target = claude_target(args)
    if target is not None:
        from sidtui.cli import claude_verbs

        return claude_verbs.branch(args, target)
    from rich.text import Text

    from sidtui.cli.rewind import open_view
    from sidtui.core.edits.rewind import switch_branch

    view = open_view(args)
    if args.tip is None:
        tips = list_tips(view)
        if args.json:
            print_json({"session_id": view.session_id, "tips": tips})
        else:
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
                    Text(
                        f"{t['uuid']}  line {t['line']}  {t['type']}  "
                        f"{n} message{'s' * (n != 1)}{live}"
                    )
                )
        return 0
    res = switch_branch(view, args.tip, force=args.force, dry_run=args.dry_run)
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


def list_tips(view) -> list[dict]:
    """Every tip of the record tree with the length of its conversation."""
    from sidtui.core.transcript.chain import ancestors

    rf = view.rf
    if rf is None or view.chain.linear:
        return []
    out = []
    for tip in view.tree.tips:
        rec = rf.records[tip]
        chain = ancestors(rf, tip)
        out.append(
            {
                "uuid": rec.uuid,
                "line": rec.line,
                "type": rec.type,
                "live": tip == view.chain.tail and view.loaded.loadable,
                "last_line": tip == view.chain.tail,
                "messages": sum(
                    1
                    for i in chain
                    if rf.records[i].type in ("user_message", "assistant_message", "tool_result")
                ),
            }
        )
    return out

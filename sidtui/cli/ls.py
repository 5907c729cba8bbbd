"""`sidtui ls`: every session per project and how each ended."""

from __future__ import annotations

import argparse
import sys

from sidtui.cli.common import home_from_args, print_json, require_project, stdout_console

BADGES = {
    "none": ("clean", "green"),
    "interrupted_prompt": ("interrupted prompt", "yellow"),
    "interrupted_turn": ("interrupted turn", "red"),
}


def register(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "ls",
        parents=parents,
        help="list sessions per project with their interruption state",
        description="List every session per project: started, model, records, size, "
        "interruption state, ended, live.",
    )
    p.add_argument("--project", metavar="KEY", help="only this project folder under sessions/")
    p.add_argument("--sidechains", action="store_true", help="also list sub-agent transcripts")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="read every file now instead of answering from the catalog cache",
    )
    p.set_defaults(func=run)


def state_badge(s) -> tuple[str, str]:
    """(label, colour) for a summary's state: live / stale / unloadable / interruption."""
    if s.live:
        return "live", "bold magenta"
    if not s.loadable and s.kind == "main":
        return "unloadable", "bold red"
    label, colour = BADGES.get(s.interruption or "", (s.interruption or "—", "dim"))
    if s.stale:
        label += " (stale)"
    return label, colour


def human_size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def run(args: argparse.Namespace) -> int:
    home = home_from_args(args).require()
    require_project(home, args.project)
    summaries, errors = _summaries(home, args)
    for e in errors:
        print(f"sidtui: warning: {e}", file=sys.stderr)
    if args.json:
        print_json([s.to_json() for s in summaries])
        return 0
    from rich.table import Table

    console = stdout_console()
    if not summaries:
        console.print(f"no sessions under {home.sessions_dir}")
        return 0
    by_project: dict[str, list] = {}
    for s in summaries:
        by_project.setdefault(s.project or "(flat)", []).append(s)
    for project in sorted(by_project):
        rows = by_project[project]
        t = Table(title=f"{project}  ({len(rows)} sessions)", title_justify="left", expand=False)
        for col in ("id", "started", "last activity", "model", "records", "size", "cost", "state", "ended", "first prompt"):
            t.add_column(col, no_wrap=col != "first prompt", overflow="ellipsis")
        for s in rows:
            label, colour = state_badge(s)
            t.add_row(
                s.session_id,
                (s.started or "")[:19].replace("T", " "),
                (s.last_activity or "")[:19].replace("T", " "),
                s.model or "",
                str(s.records),
                human_size(s.bytes),
                f"${s.cost_usd:.4f}" if s.cost_usd is not None else "",
                f"[{colour}]{label}[/]",
                "yes" if s.ended else "no",
                (s.title or s.first_prompt or "")[:60],
            )
        console.print(t)
    return 0


def _summaries(home, args):
    """Rows from the catalog (warm: only changed files are re-read), else a direct scan."""
    from sidtui.core.listing import list_sessions

    if not args.no_cache:
        try:
            from sidtui.core.live.catalog import Catalog

            cat = Catalog(home)
            try:
                res = cat.refresh()
                return cat.rows(args.project, include_sidechains=args.sidechains), res.errors
            finally:
                cat.close()
        except Exception as exc:  # an unusable cache never blocks a listing
            print(f"sidtui: warning: catalog cache unusable ({exc}); reading files", file=sys.stderr)
    return list_sessions(home, args.project, include_sidechains=args.sidechains)

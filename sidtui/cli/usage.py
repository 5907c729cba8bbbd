"""`sidtui usage`: tokens and cost per day, week, month, session, model or project."""

from __future__ import annotations

import argparse
import sys

from sidtui.cli.common import has_project_folder, no_project_in_any, print_json, stdout_console

_KEY_HEADER = {
    "day": "Date",
    "week": "Week",
    "month": "Month",
    "session": "Session",
    "model": "Model",
    "project": "Project",
}


def register(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "usage",
        parents=parents,
        help="tokens and cost per day, week, month, session, model or project",
        description="Input, output, cache-write and cache-read tokens and their cost in USD, "
        "counted as the API billed them: a response written over several lines, replayed "
        "into a fork or a sub-agent's transcript is counted once. Days are local dates "
        "($TZ). Prices: the table shipped with sidtui (offline only).",
    )
    p.add_argument(
        "--by",
        choices=["day", "week", "month", "session", "model", "project"],
        default="day",
        help="one row per … (default: day; weeks are ISO weeks, YYYY-Www)",
    )
    p.add_argument(
        "--since",
        metavar="DATE",
        help="from this local date (YYYY-MM-DD, today, yesterday, 7d), inclusive",
    )
    p.add_argument(
        "--until",
        metavar="DATE",
        help="to this local date (YYYY-MM-DD, today, yesterday, 7d), inclusive",
    )
    p.add_argument("--project", metavar="KEY", help="only this project folder")
    p.add_argument(
        "--source",
        choices=["sid-code", "claude-code", "codex"],
        default=None,
        help="only this agent's sessions (default: every home that is there)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument(
        "--no-cache", action="store_true", help="read every transcript now (touch no cache)"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from sidtui.cli.common import sources_from_args
    from sidtui.core.base.errors import UsageError
    from sidtui.core.sources.usage import usage_report
    from sidtui.core.views.dates import parse_date_word

    # the same words as ls --since and the browser's since: (today, yesterday, 7d)
    since = parse_date_word(args.since, "--since") if args.since is not None else None
    until = parse_date_word(args.until, "--until") if args.until is not None else None
    if since is not None and until is not None and since > until:
        raise UsageError(f"--since {args.since} is after --until {args.until}")
    sources, _ = sources_from_args(args)
    if args.source is not None:
        sources = [s for s in sources if s.name == args.source]
        if not sources:
            raise UsageError(f"no {args.source} home to read")
    sources = [s.require() for s in sources]
    if args.project is not None:
        if not any(has_project_folder(s, args.project) for s in sources):
            no_project_in_any(sources, args.project)
    errors: list[str] = []
    report = usage_report(
        sources,
        args.by,
        since=since,
        until=until,
        project=args.project,
        errors=errors,
        use_cache=not args.no_cache,
    )
    for e in errors:
        print(f"sidtui: warning: {e}", file=sys.stderr)
    if args.json:
        print_json(report.to_json())
        return 0
    _print_table(report)
    return 0


def _cost(usd: float | None) -> str:
    return "unknown" if usd is None else f"${usd:,.2f}"


def _print_table(report) -> None:
    from rich.table import Table

    console = stdout_console()
    if not report.rows:
        print("sidtui: no usage recorded in the sessions read", file=sys.stderr)
        for note in report.notes:
            print(f"sidtui: note: {note}", file=sys.stderr)
        return
    t = Table(show_footer=True, header_style="bold", footer_style="bold")
    tot = report.totals
    t.add_column(_KEY_HEADER[report.by], footer="Total", overflow="fold")
    for title, attr in (
        ("Input", "input_tokens"),
        ("Output", "output_tokens"),
        ("Cache write", "cache_creation_tokens"),
        ("Cache read", "cache_read_tokens"),
    ):
        t.add_column(title, justify="right", footer=f"{getattr(tot, attr):,}")
    t.add_column("Cost (USD)", justify="right", footer=_cost(tot.cost))
    t.add_column("Models", overflow="fold")
    for r in report.rows:
        t.add_row(
            r.key,
            f"{r.input_tokens:,}",
            f"{r.output_tokens:,}",
            f"{r.cache_creation_tokens:,}",
            f"{r.cache_read_tokens:,}",
            _cost(r.cost),
            ", ".join(sorted(r.models)),
        )
    console.print(t)
    if tot.unpriced:
        console.print(
            f"cost unknown: no price for {', '.join(sorted(tot.unpriced))} "
            f"(prices of {report.prices_date})",
            style="yellow",
        )
    for note in report.notes:
        console.print(note, style="dim")

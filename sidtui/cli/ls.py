"""`sidtui ls`: every session per project and how each ended."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from sidtui.cli.common import (
    has_project_folder,
    no_project_in_any,
    print_json,
    stdout_console,
)
from sidtui.fmt import human_size, local_time

if TYPE_CHECKING:
    from rich.text import Text


def register(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "ls",
        parents=parents,
        help="list sessions per project with their interruption state",
        description="List every session per project: started, model, records, size, "
        "interruption state, ended, live.",
    )
    p.add_argument(
        "--project",
        metavar="KEY",
        help="only this project folder (under sessions/, or under projects/ of a Claude Code "
        "home, whose names start with '-': --project -home-me-proj)",
    )
    p.add_argument(
        "--source",
        choices=["sid-code", "claude-code", "codex"],
        default=None,
        help="only the sessions of this agent (default: every home that is there)",
    )
    p.add_argument("--sidechains", action="store_true", help="also list sub-agent transcripts")
    p.add_argument(
        "--since",
        metavar="DATE",
        help="only sessions last active on or after this local day: YYYY-MM-DD, today, "
        "yesterday or Nd (the last N days, today included)",
    )
    p.add_argument(
        "--until",
        metavar="DATE",
        help="only sessions last active on or before this local day (same forms)",
    )
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="read every file now instead of answering from the catalog cache",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from sidtui.cli.common import sources_from_args
    from sidtui.core.views.dates import DayRange

    days = DayRange.parse(args.since, args.until)  # a bad date: exit 2 before any read
    sources, named = sources_from_args(args)
    if args.source is not None:
        sources = [s for s in sources if s.name == args.source]
        if not sources:
            from sidtui.core.base.errors import UsageError
            from sidtui.core.sources import by_name

            flag = by_name(args.source).home_flag
            raise UsageError(f"no {args.source} home to list (pass {flag} DIR)")
    summaries: list = []
    errors: list[str] = []
    wheres: list[str] = []
    listed: list = []
    for src in sources:
        src.require()
        if (
            len(sources) > 1
            and args.project is not None
            and not has_project_folder(src, args.project)
        ):
            continue  # --project names a folder of another home
        src.require_project(args.project)
        # folders the listing cannot read: checked first, so nothing else is read when
        # every folder asked for is unreadable
        folder_errors = _folder_errors(src, args.project)
        _registrations_warned(src)  # one warning per registration that cannot be read
        rows, errs = _summaries(src, args)
        errors += [*folder_errors, *(e for e in errs if e not in folder_errors)]
        wheres.append(str(src.projects_dir))
        summaries += rows
        listed.append(src)
    if args.project is not None and not wheres:
        no_project_in_any(sources, args.project)
    listed_count = len(summaries)
    summaries = days.filter(summaries)
    if len(wheres) > 1:
        summaries.sort(key=lambda s: (s.last_activity or "", s.session_id), reverse=True)
    for e in errors:
        print(f"sidtui: warning: {e}", file=sys.stderr)
    pending = _pending(listed, summaries, args.project)
    if args.json:
        if pending:  # the rows of those sessions gain "pending_journal"
            summaries = [_with_pending(s, pending.get((s.source, s.session_id))) for s in summaries]
        print_json(summaries)  # orjson writes the dataclasses as to_json() would, faster
        return 0
    multi = len({s.source for s in summaries}) > 1
    empty = _empty_lines(sources, args) if not listed_count else []
    if listed_count and not summaries:  # every session is outside the dates
        empty = [f"none of {listed_count} sessions was last active {_range_words(args)}"]
    return _print_tables(summaries, empty, multi, pending)


def _range_words(args: argparse.Namespace) -> str:
    """``--since``/``--until`` in words (``since 2026-01-02 and until today``)."""
    parts = [f"{w} {v}" for w, v in (("since", args.since), ("until", args.until)) if v]
    return " and ".join(parts) + " (local days)"


def _pending(sources: list, summaries: list, project: str | None) -> dict:
    """The journals killed sidtui writes left in the listed homes, each said on stderr
    (with ``--project``: only those of its sessions); by ``(source, session)``."""
    shown = {(s.source, s.session_id) for s in summaries} if project is not None else None
    found: dict = {}
    for src in sources:
        for p in src.pending_journals():  # one access() per checkpoint folder, no read
            key = (src.name, p.session)
            if shown is not None and key not in shown:
                continue
            print(f"sidtui: warning: {p.describe()}", file=sys.stderr)
            found.setdefault(key, p)
    return found


def _with_pending(s, p):
    """A row as a dict with ``pending_journal`` (the row itself when none)."""
    return s if p is None else {**s.to_json(), "pending_journal": p.to_json()}


def _registrations_warned(src) -> None:
    """Say each registration of ``src`` that cannot be read, one warning line each."""
    warnings: list[str] = []
    src.registrations(warnings)
    for line in warnings:
        print(f"sidtui: warning: {line}", file=sys.stderr)


def _empty_lines(sources: list, args: argparse.Namespace) -> list[str]:
    """What an empty listing says on stderr: per home, what was looked for and where."""
    lines: list[str] = []
    for src in sources:
        lines += src.empty_listing(args.project).splitlines()
    return lines


def _print_tables(
    summaries: list, empty_lines: list[str], multi: bool, pending: dict | None = None
) -> int:
    from rich.table import Table
    from rich.text import Text

    from sidtui.core.sources import DEFAULT, by_name
    from sidtui.fmt import state_badge

    console = stdout_console()
    if not summaries:
        for line in empty_lines:
            print(f"sidtui: {line}", file=sys.stderr)
        return 0
    pending = pending or {}

    def badge(s) -> tuple[str, str]:
        label, colour = state_badge(s)
        lost = getattr(s, "resume_lost", None)
        if lost:
            label, colour = f"{label} ({LOSES} {lost})", "bold red"
        p = pending.get((s.source, s.session_id))
        if p is not None and (p.files or p.invalid or p.fork_of is None):
            label += f" ({PENDING})"  # its project's files may be half restored
        return label, colour

    by_project: dict[tuple[str, str], list] = {}
    for s in summaries:
        by_project.setdefault((s.source, s.project or "(flat)"), []).append(s)
    seen_states: set[str] = set()
    for key in sorted(by_project, key=lambda k: (k[0] != DEFAULT.name, k)):
        source, project = key
        rows = by_project[key]
        noun = "session" if len(rows) == 1 else "sessions"
        id_w = max(len(s.session_id) for s in rows)
        state_w = max(len(badge(s)[0]) for s in rows)
        cols, show_prompt, spare = _columns(rows, console.width, multi, id_w, state_w)
        names = [c[0] for c in cols]
        cells: list[list[Text]] = []
        for s in rows:
            label, colour = badge(s)
            seen_states.add(label.split(" (")[0])
            if s.stale:
                seen_states.add("stale")
            if label.endswith(f"({PENDING})"):
                seen_states.add(PENDING)
            if f"({LOSES} " in label:
                seen_states.add(LOSES)
            # user text is never read as Rich markup (a prompt may hold "[/]")
            note = Text((s.first_prompt or s.title or "").replace("\n", " "))
            if not s.loadable and s.kind == "main":
                # an empty session: a normal one of an agent that writes them, else a failure
                style = "dim" if by_name(s.source).quiet_empty else "red"
                note = Text(s.load_failure or "the agent loads nothing", style=style)
            values = {
                "source": Text(by_name(s.source).label),
                "id": Text(s.session_id),
                "state": Text(label, style=colour),
                "started": Text(local_time(s.started)),
                "last activity": Text(local_time(s.last_activity)),
                "model": Text(s.model or ""),
                "records": Text(str(s.records)),
                "size": Text(human_size(s.bytes)),
                "cost": Text(f"${s.cost_usd:.4f}" if s.cost_usd is not None else ""),
                "ended": Text(
                    ("yes" if s.ended else "no") if "ended" in by_name(s.source).row_fields else ""
                ),
            }
            cells.append([*(values[n] for n in names), *([note] if show_prompt else [])])
        title = f"{project}  ({len(rows)} {noun})"
        if multi:
            title += f"  [{by_name(source).label}]"
        plain = len(rows) > TABLE_MAX_ROWS
        heading: str | None = title  # in the table (a terminal: wrapped to its width)
        if getattr(console, "piped", False):  # piped: a long project key is one line, whole
            console.print(Text(title, style="italic" if plain else "table.title"))
            heading = None
        if not plain:
            t = Table(title=heading and Text(heading), title_justify="left", expand=False)
            for name, w, just in cols:
                wraps = name == "state" and w < state_w  # narrowed: wrapped, never cut
                t.add_column(
                    name,
                    no_wrap=not wraps,
                    min_width=w,
                    max_width=w if name == "model" or wraps else None,
                    justify=just,
                    overflow="fold" if wraps else "ellipsis",
                )
            if show_prompt:
                t.add_column(
                    "first prompt / why", no_wrap=True, overflow="ellipsis", max_width=spare
                )
            for row in cells:
                t.add_row(*row)
            console.print(t)
        else:
            console.print(
                _plain_table(heading, cols, spare if show_prompt else None, cells),
                no_wrap=True,
                crop=True,
            )
    console.print(f"[dim]times are local ({_tz_name()})[/]")
    for state, meaning in LEGEND.items():
        if state in seen_states:
            console.print(f"[dim]{state}: {meaning}[/]")
    return 0


def _columns(
    rows: list, width: int, multi: bool, id_w: int, state_w: int
) -> tuple[list[tuple[str, int, str]], bool, int]:
    """``(columns, show the prompt, its width)`` of one project's table at ``width``:
    ``(name, width, justify)`` in display order."""
    from sidtui.core.sources import by_name
    from sidtui.fmt import state_badge

    # Columns by terminal width. The id and the state always show (the id whole: it
    # is what `show` takes); optional columns join in priority order while the prompt
    # keeps at least 24 characters.
    base = [("id", id_w, "left"), ("state", state_w, "left"), ("last activity", 16, "left")]
    if multi:
        base.insert(0, ("source", 11, "left"))
    optional = [
        ("records", 7, "right"),
        ("ended", 5, "left"),
        ("cost", 9, "right"),
        ("model", 14, "left"),
        ("started", 16, "left"),
        ("size", 8, "right"),
    ]
    order = [
        "source",
        "id",
        "state",
        "started",
        "last activity",
        "model",
        "records",
        "size",
        "cost",
        "ended",
    ]

    def spare_for(cs) -> int:
        return width - sum(w for _, w, _ in cs) - 3 * (len(cs) + 1) - 1

    cols = list(base)
    written = set().union(*(by_name(s.source).row_fields for s in rows))
    optional = [c for c in optional if c[0] not in ("cost", "ended") or c[0] in written]
    for col in optional:
        if spare_for([*cols, col]) >= 24:
            cols.append(col)
    cols.sort(key=lambda c: order.index(c[0]))
    # Too narrow even for the base columns: the prompt goes first, then the state
    # wraps ("interrupted prompt" / "(stale)"), then the time goes; never the id.
    show_prompt = spare_for(cols) >= 10
    spare = max(10, spare_for(cols))

    def fits(cs) -> bool:
        return sum(w for _, w, _ in cs) + 3 * len(cs) + 1 <= width

    if not show_prompt and not fits(cols):
        word = max((len(w) for s in rows for w in state_badge(s)[0].split()), default=5)
        room = width - sum(w for n, w, _ in cols if n != "state") - 3 * len(cols) - 1
        cols = [(n, max(word, room), j) if n == "state" else (n, w, j) for n, w, j in cols]
        if not fits(cols):
            cols = [c for c in cols if c[0] != "last activity"]
            room = width - sum(w for n, w, _ in cols if n != "state")
            room -= 3 * len(cols) + 1
            cols = [(n, max(word, room), j) if n == "state" else (n, w, j) for n, w, j in cols]
    return cols, show_prompt, spare


#: Projects with more sessions than this are printed as aligned lines, not a boxed table
#: (Rich measures every cell of a table: ~1 ms per row against ~50 µs per line).
TABLE_MAX_ROWS = 200


def _plain_table(
    title: str | None, cols: list, last_width: int | None, cells: list[list[Text]]
) -> Text:
    """The table as aligned lines (title unless None, header, rule, one line per
    session); ``last_width`` None: no prompt column (a narrow terminal)."""
    from rich.text import Text

    last = [] if last_width is None else [last_width]
    widths = [w for _, w, _ in cols] + last
    justs = [j for _, _, j in cols] + ["left"] * len(last)

    def line(parts: list[Text]) -> Text:
        out = Text()
        for i, (part, w, just) in enumerate(zip(parts, widths, justs, strict=True)):
            cell = part.copy()
            cell.truncate(w, overflow="ellipsis")
            pad = " " * (w - cell.cell_len) if i < len(parts) - 1 or just == "right" else ""
            if just == "right":
                out.append(pad)
                out.append_text(cell)
            else:
                out.append_text(cell)
                out.append(pad)
            if i < len(parts) - 1:
                out.append("  ")
        return out

    header = line(
        [Text(name, style="bold") for name, _, _ in cols]
        + [Text("first prompt / why", style="bold")] * len(last)
    )
    lines = [*([Text(title, style="italic")] if title is not None else [])]
    lines += [header, Text("─" * header.cell_len, style="dim")]
    lines += [line(row) for row in cells]
    return Text("\n").join(lines)


#: The state suffix of a session a killed sidtui undo/redo/restore/rewind left pending.
PENDING = "restore pending"
LOSES = "resume loses"

LEGEND = {
    "clean": "the last message is the agent's; a resume just continues",
    "interrupted prompt": "the last prompt got no answer; the agent re-sends it on resume",
    "interrupted turn": "tools ran but the agent never answered their results",
    "unloadable": "the agent's loader returns nothing for this file (`sidtui show` says why; "
    "`sidtui salvage` can rescue it)",
    "empty": "a Claude Code transcript with no message (a session started and left)",
    "live": "a running agent process is writing this session now",
    "stale": "a crashed process left its registration behind (its PID is dead or reused)",
    LOSES: "Claude Code's --resume will not load that many messages on disk (a broken "
    "chain or damaged lines: `sidtui show` says where)",
    PENDING: "a killed sidtui undo, restore or rewind left its files half restored (see "
    "the warning); the next undo, redo, restore or rewind of it finishes that first",
}


def _tz_name() -> str:
    from datetime import datetime

    now = datetime.now().astimezone()
    return f"{now.tzname()}, UTC{now.strftime('%z')[:3]}:{now.strftime('%z')[3:]}"


def _folder_errors(src, project: str | None) -> list[str]:
    """One line per folder of the listing that cannot be read (the wording of
    :func:`sidtui.core.base.discover.candidate_files`), without listing any file.

    Raises:
        UnreadableInput: no folder asked for can be read (``sessions/`` itself, the
            ``--project`` folder, or every project folder): exit 1 with the reason.
            Some readable and some not is a partial listing (warnings, exit 0).
    """
    from sidtui.core.base.errors import UnreadableInput

    bad = src.unreadable_folders(project)
    lines = [f"cannot read folder {folder}: {why}" for folder, why in bad]
    if not bad:
        return lines
    base = src.projects_dir
    if project is None:
        bad_paths = {folder for folder, _ in bad}
        folders = [base / name for name in src.project_folders()]
        fatal = base in bad_paths or (
            all(f in bad_paths for f in folders) and not _has_flat_files(base)
        )
    else:
        fatal = True  # the one folder asked for
    if not fatal:
        return lines
    if len(lines) == 1:
        raise UnreadableInput(lines[0])
    for line in lines:
        print(f"sidtui: warning: {line}", file=sys.stderr)
    raise UnreadableInput(f"no session folder under {base} could be read")


def _has_flat_files(base) -> bool:
    """Whether ``sessions/`` holds a transcript file of its own (the old flat layout)."""
    from sidtui.core.base.discover import entry_is_file

    try:
        with os.scandir(base) as it:
            return any(e.name.endswith((".jsonl", ".json")) and entry_is_file(e) for e in it)
    except OSError:
        return False


def _summaries(src, args):
    """Rows from the source's catalog (warm: only changed files are re-read), else a
    direct scan."""
    if not args.no_cache:
        try:
            from sidtui.core.index.catalog import Catalog

            cat = Catalog(src.home)
            try:
                res = cat.refresh()
                errors = res.errors
                if args.project is not None:  # the refresh saw every folder: keep this one's
                    folder = f"{src.projects_dir / args.project}{os.sep}"
                    errors = [e for e in errors if folder in e]
                return cat.rows(args.project, include_sidechains=args.sidechains), errors
            finally:
                cat.close()
        except Exception as exc:  # noqa: BLE001 - an unusable cache never blocks a listing
            print(
                f"sidtui: warning: catalog cache unusable ({exc}); reading files", file=sys.stderr
            )
    return src.list_sessions(args.project, include_sidechains=args.sidechains)

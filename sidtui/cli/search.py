"""`sidtui search QUERY`: full-text search over every session (FTS5 index in the catalog)."""

from __future__ import annotations

import argparse
import sys


def register(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "search",
        parents=parents,
        help="full-text search over prompts, replies, tool calls and file paths",
        description="Search every session: prompts, assistant text, tool names and inputs, "
        "file paths. All words must match, each as a word prefix (`slug` finds "
        "`slugify`; a trailing * changes nothing); an emoji matches itself. The index lives "
        "in the catalog cache and is brought up to date first (only new bytes are read).",
    )
    p.add_argument("query", nargs="+", help="words to find (each a word prefix)")
    p.add_argument(
        "--project",
        metavar="KEY",
        help="only this project folder (under sessions/, or projects/ of a Claude Code home)",
    )
    p.add_argument("--limit", type=int, default=50, metavar="N", help="at most N hits (50)")
    p.add_argument("--json", action="store_true", help="print a JSON list of hits")
    p.set_defaults(func=run)


def _progress(label: str):
    if not sys.stderr.isatty():
        return None

    def cb(p) -> None:
        end = "\n" if p.done >= p.total else ""
        print(f"\r{label} {p.done}/{p.total}", end=end, file=sys.stderr, flush=True)

    return cb


def run(args: argparse.Namespace) -> int:
    from sidtui.cli.common import (
        has_project_folder,
        no_project_in_any,
        print_json,
        sources_from_args,
        stdout_console,
    )
    from sidtui.core.base.errors import UsageError
    from sidtui.core.index.catalog import Catalog
    from sidtui.core.index.search import MARK_CLOSE, MARK_OPEN, SearchIndex

    if args.limit < 1:
        raise UsageError("--limit must be at least 1")
    sources, _named = sources_from_args(args)
    if len(sources) > 1 and args.project is not None:
        # as ls: --project names a folder of one home; a key of neither is refused
        sources = [s for s in sources if has_project_folder(s.require(), args.project)]
        if not sources:
            no_project_in_any(sources_from_args(args)[0], args.project)
    query = " ".join(args.query)
    found: list[tuple[str, object]] = []  # (source, hit)
    for src in sources:
        home = src.require().home
        src.require_project(args.project)  # never raises OSError (a folder unsearchable)
        cat = Catalog(home)
        for note in (cat.warning, cat.rebuilt and f"catalog cache rebuilt: {cat.rebuilt}"):
            if note:
                print(f"sidtui: warning: {note}", file=sys.stderr)
        res = cat.refresh(progress=_progress("catalog"))
        for e in res.errors:
            print(f"sidtui: warning: {e}", file=sys.stderr)
        idx = SearchIndex(cat)
        idx.fill(progress=_progress("index"))
        found += [(src.name, h) for h in idx.search(query, project=args.project, limit=args.limit)]
    if len(sources) > 1:  # one ranking over every home
        found.sort(key=lambda sh: -sh[1].score)  # type: ignore[attr-defined]
        found = found[: args.limit]
    hits = [h for _, h in found]
    if args.json:
        print_json([{**h.to_json(), "source": name} for name, h in found])  # type: ignore[attr-defined]
        return 0
    from rich.text import Text

    console = stdout_console()
    if not hits:
        console.print(Text(f"no matches for {query!r}"))
        return 0
    for h in hits:
        t = Text()
        t.append(h.session_id, style="cyan")
        t.append(f"  {h.project or '(flat)'}  line {h.line}  ", style="dim")
        t.append(h.kind, style="magenta")
        if getattr(console, "piped", False):  # piped: a long project key is whole
            console.print(t)
        else:
            console.print(t, overflow="ellipsis", no_wrap=True)
        # the snippet on its own line, cut around its first hit to the terminal's width
        snippet = _around_hit(" ".join(h.snippet.split()), console.width - 4)
        s = Text("    ")
        parts = snippet.split(MARK_OPEN)
        s.append(parts[0])
        for part in parts[1:]:
            hit, _, rest = part.partition(MARK_CLOSE)
            s.append(hit, style="bold yellow")
            s.append(rest)
        console.print(s, overflow="ellipsis", no_wrap=True)
    return 0


def _around_hit(snippet: str, width: int) -> str:
    """``snippet`` cut to about ``width`` cells with its first marked hit in view."""
    from rich.cells import cell_len

    from sidtui.core.index.search import MARK_CLOSE, MARK_OPEN

    if cell_len(snippet) <= width or width < 8:
        return snippet
    at = snippet.find(MARK_OPEN)
    start = max(0, at - width // 3) if at > 0 else 0
    cut = snippet[start:]
    if start:
        cut = "…" + cut.lstrip("…")
    if cell_len(cut) > width:  # keep whole marks: never a dangling « or »
        end = width - 1
        while end > 0 and cell_len(cut[:end]) > width - 1:
            end -= 1
        head = cut[:end]
        if head.count(MARK_OPEN) > head.count(MARK_CLOSE):
            head += MARK_CLOSE
        cut = head + "…"
    return cut

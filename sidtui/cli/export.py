"""`sidtui export`: a session (or a project's, or every session) as HTML, Markdown or JSON."""

from __future__ import annotations

import argparse
import sys


def register(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "export",
        parents=parents,
        help="a session as a self-contained HTML page, Markdown or JSON",
        description="Write a session as the agent will resume it — what it will not load "
        "set apart, tool calls and results, edits as diffs, sub-agents under the call that "
        "spawned them, its tokens and cost — as one self-contained HTML page (no network), "
        "Markdown or JSON (docs/EXPORT.md). SESSION is a full id, a unique id prefix, a "
        "path, or `latest`. Markdown and JSON go to stdout unless -o names a file; HTML goes "
        "to SESSION_ID.html in the current folder unless -o names one (-o - : stdout); "
        "without --format, the suffix of -o FILE (.md, .json, .jsonl, .html) says the format. "
        "--project KEY / --all write one file per session and an index into the folder -o.",
    )
    p.add_argument("session", metavar="SESSION", nargs="?")
    p.add_argument("--format", choices=["html", "md", "json"], default=None, help="default html")
    p.add_argument(
        "--jsonl", action="store_true", help="JSON Lines: one object per message (implies json)"
    )
    p.add_argument(
        "-o", "--output", metavar="PATH", help="the file (a folder with --project/--all)"
    )
    p.add_argument("--project", metavar="KEY", help="every session of this project folder")
    p.add_argument("--all", action="store_true", help="every session of every home read")
    p.set_defaults(func=run)


_BY_SUFFIX = {"md": "md", "markdown": "md", "json": "json", "jsonl": "json", "html": "html"}


def _format(args: argparse.Namespace) -> str:
    from sidtui.core.base.errors import UsageError

    if args.jsonl:
        if args.format not in (None, "json"):
            raise UsageError(
                f"--jsonl writes JSON Lines; it does not go with --format {args.format}"
            )
        return "json"
    if args.format is None and args.output not in (None, "-") and args.session is not None:
        # the file's suffix says the format when --format does not
        suffix = args.output.rsplit(".", 1)[-1].lower() if "." in args.output else ""
        if suffix == "jsonl":
            args.jsonl = True
        return _BY_SUFFIX.get(suffix, "html")
    return args.format or "html"


def run(args: argparse.Namespace) -> int:
    from sidtui.core.base.errors import UsageError

    fmt = _format(args)
    chosen = [x for x in (args.session is not None, args.project is not None, args.all) if x]
    if len(chosen) != 1:
        raise UsageError("give one of SESSION, --project KEY or --all")
    if args.session is not None:
        return _one(args, fmt)
    return _many(args, fmt)


def _one(args: argparse.Namespace, fmt: str) -> int:
    from pathlib import Path

    from sidtui.cli.common import read_session
    from sidtui.core.export import SUFFIX, Document, write
    from sidtui.core.export.document import usage_later
    from sidtui.core.export.files import export_file, file_stem

    source, ref = read_session(args)
    errors: list[str] = []
    # a sub-agent's usage is counted in its parent's session
    usage = usage_later(source, ref.project or None, ref.session_id) if ref.kind == "main" else None
    model = source.open(ref)
    doc = Document(source, model, usage() if usage is not None else None)
    args.keep = doc  # read-only: the process exit frees it (sidtui.cli.entry)
    out = args.output
    if out is None and fmt == "html":
        out = file_stem(ref.session_id) + SUFFIX["html"]
    if out is None or out == "-":
        write(doc, fmt, sys.stdout.buffer, jsonl=args.jsonl)
    else:
        path = Path(out).expanduser()
        if path.is_dir():
            path = path / (file_stem(ref.session_id) + SUFFIX["jsonl" if args.jsonl else fmt])
        try:
            tally = export_file(doc, fmt, path, jsonl=args.jsonl)
        except OSError as exc:
            print(f"sidtui: error: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
            return 1
        print(
            f"wrote {path} ({tally.messages:,} messages, {tally.lost:,} not loaded on resume)",
            file=sys.stderr,
        )
    for e in errors + doc.errors:
        print(f"sidtui: warning: {e}", file=sys.stderr)
    return 0


def _many(args: argparse.Namespace, fmt: str) -> int:
    from pathlib import Path

    from sidtui.cli.common import has_project_folder, no_project_in_any, sources_from_args
    from sidtui.core.base.errors import UsageError
    from sidtui.core.export.files import export_folder

    if args.output is None or args.output == "-":
        raise UsageError("--project and --all write a folder: name it with -o DIR")
    folder = Path(args.output).expanduser()
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"-o {args.output}: not a folder")
    sources, _ = sources_from_args(args)
    sources = [s.require() for s in sources]
    if args.project is not None and not any(has_project_folder(s, args.project) for s in sources):
        no_project_in_any(sources, args.project)
    errors: list[str] = []
    try:
        entries = export_folder(sources, args.project, fmt, folder, jsonl=args.jsonl, errors=errors)
    except OSError as exc:
        print(f"sidtui: error: cannot write into {folder}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    for e in errors:
        print(f"sidtui: warning: {e}", file=sys.stderr)
    print(f"wrote {len(entries):,} sessions and an index into {folder}", file=sys.stderr)
    return 0

"""Find in a big Claude Code session, by hand: every entry decoded vs the byte prefilter.

What the find bar's worker runs (:func:`sidtui.tui.find.find_entries`) on the ~100 MB
session of :func:`bench.gen_claude.huge_claude_home`, for a few queries: with every tool
block decoded (what the app did for Claude Code sessions before the prefilter took their
merged responses' lines), and with the file's bytes read and searched first (the read
counted). A fresh model each run, so no decoded block is cached from the run before.
Informational: run it directly, ``.venv/bin/python bench/find_claude.py [--quick]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

#: An absent word, a tool-use id (two lines), a word in a third of the entries, two words.
QUERIES = ("zebra", "toolu_cd447e35b8b6d8fe442e3d43", "password", "validate snapshot")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a 5 MB session")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("queries", nargs="*", default=list(QUERIES))
    args = ap.parse_args(argv)

    from bench.gen_claude import huge_claude_home
    from bench.harness import data_dir
    from sidtui.core.base.gcpause import gc_paused
    from sidtui.core.claude.layout import ClaudeHome, file_for_path
    from sidtui.core.sources import ClaudeSource
    from sidtui.tui.conversation_model import ConversationModel
    from sidtui.tui.find import Finder, find_entries, loaded_bytes

    target = 5_000_000 if args.quick else 100_000_000
    kind = "quick" if args.quick else "full"
    path = huge_claude_home(data_dir("claude", kind, "huge-home"), target)
    with gc_paused(freeze=True):
        view = ClaudeSource(ClaudeHome(path.parents[2])).open(file_for_path(path))
    entries = len(ConversationModel.from_view(view).entries)
    print(
        f"{path.stat().st_size / 1e6:.0f} MB, {len(view.conversation)} messages, {entries} entries"
    )
    print("| query | hits | every entry decoded | byte prefilter (read included) |")
    print("|---|---|---|---|")
    for q in args.queries:
        times: dict[bool, list[float]] = {False: [], True: []}
        hits = set()
        for _ in range(args.repeat):
            for prefilter in (False, True):
                with gc_paused(freeze=True):
                    model = ConversationModel.from_view(view)
                t0 = time.perf_counter()
                raw = loaded_bytes(model) if prefilter else None
                found = find_entries(model, Finder.of(q), None, raw)
                times[prefilter].append(time.perf_counter() - t0)
                hits.add(len(found))
        assert len(hits) == 1, f"{q!r}: the two ways disagree ({hits})"
        cells = [
            f"{statistics.median(times[p]):.2f} s ({min(times[p]):.2f}–{max(times[p]):.2f})"
            for p in (False, True)
        ]
        print(f"| `{q}` | {hits.pop()} | {cells[0]} | {cells[1]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

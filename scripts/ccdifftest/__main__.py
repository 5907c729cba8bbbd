"""``python -m scripts.ccdifftest``: sidtui's resume prediction against the real Claude Code.

    mutate  damage mutations of transcripts (the vendored real ones by default) into a folder
    play    generate scenarios from a seed and play them with ``lab run``
    check   resume given transcripts with the lab and compare (exact); a report by class
    recheck compare the answers `check --save` kept with sidtui as it is now (no lab)
    rename  sidtui's rename: does Claude Code find the session by the title and resume the
            same conversation (``scripts/ccdifftest/rename.py``)

The lab command comes from ``--lab CMD`` or ``SIDTUI_CLAUDE_LAB`` (never needed by the suite).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from scripts.ccdifftest.compare import first_difference, sidtui_resume
from scripts.ccdifftest.gen import make_scenario
from scripts.ccdifftest.lab import lab_command, lab_resume, lab_run
from scripts.ccdifftest.mutate import mutate
from scripts.ccdifftest.vendor import REPO

REAL = REPO / "tests" / "fixtures" / "claude-code" / "projects"


def _real_mains() -> list[Path]:
    return sorted(
        p
        for p in REAL.glob("*/*.jsonl")
        if not p.name.startswith("agent-") and p.stat().st_size > 0
    )


def _mutate(a: argparse.Namespace) -> int:
    files = [Path(f) for f in a.files] or _real_mains()
    out = Path(a.out)
    index: dict[str, str] = {}
    seed = a.seed
    for f in files:
        data = f.read_bytes()
        for j in range(a.per_file):
            seed += 1
            r = mutate(data, seed, k=1 + (j % 3 == 2))
            if r is None:
                continue
            p = out / f"m{seed:05d}" / f.name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(r[1])
            index[str(p)] = r[0]
    (out / "index.json").write_text(json.dumps(index, indent=0))
    print(f"{len(index)} cases in {out}")
    return 0


def _play(a: argparse.Namespace) -> int:
    cmd = lab_command(a.lab)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for s in range(a.seed, a.seed + a.count):
        sc, tags = make_scenario(s)
        path = out / f"s{s:05d}.json"
        path.write_text(json.dumps(sc))
        res = lab_run(cmd, path, out / f"s{s:05d}")
        print(f"s{s:05d} {','.join(tags)}: {len(res.get('transcripts', []))} transcripts")
    return 0


def _check(a: argparse.Namespace) -> int:
    cmd = lab_command(a.lab)
    files = [Path(f) for f in a.files]
    tags = json.loads(Path(a.index).read_text()) if a.index else {}
    classes: Counter[str] = Counter()
    agree = 0
    save = open(a.save, "a", encoding="utf-8") if a.save else None
    for k in range(0, len(files), a.batch):
        part = files[k : k + a.batch]
        for f, lab in zip(part, lab_resume(cmd, part), strict=True):
            if save is not None:
                save.write(json.dumps({"file": str(f), **lab}, ensure_ascii=False) + "\n")
                save.flush()
            diff = first_difference(lab, sidtui_resume(f))
            agree += diff is None
            if diff is not None:
                classes[tags.get(str(f), "?")] += 1
                print(f"{f}: {tags.get(str(f), '')}: {diff}")
    print(f"{agree}/{len(files)} agree", file=sys.stderr)
    for c, n in classes.most_common():
        print(f"  {n:4d}  {c}", file=sys.stderr)
    return 0


def _recheck(a: argparse.Namespace) -> int:
    """Compare saved lab answers (``check --save``) with sidtui as it is now: no lab."""
    tags = json.loads(Path(a.index).read_text()) if a.index else {}
    classes: Counter[str] = Counter()
    n = agree = 0
    for line in Path(a.saved).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        lab = json.loads(line)
        n += 1
        diff = first_difference(lab, sidtui_resume(Path(lab["file"])))
        agree += diff is None
        if diff is not None:
            classes[tags.get(lab["file"], "?")] += 1
            print(f"{lab['file']}: {tags.get(lab['file'], '')}: {diff}")
    print(f"{agree}/{n} agree", file=sys.stderr)
    for c, k in classes.most_common():
        print(f"  {k:4d}  {c}", file=sys.stderr)
    return 0


def _rename(a: argparse.Namespace) -> int:
    from scripts.ccdifftest.rename import check_rename

    titles = a.title or ["Lab rename: first title", 'Zweiter Titel — "quoted" \\ 📝']
    res = check_rename(lab_command(a.lab), [Path(f) for f in a.files], titles)
    for r in res:
        print(
            ("agree " if r["agree"] else "DIFF  ")
            + r["file"]
            + ("" if r["agree"] else f"  {r['why']}")
        )
    print(f"{sum(r['agree'] for r in res)}/{len(res)} agree")
    if a.save:
        Path(a.save).write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n")
    return 0 if all(r["agree"] for r in res) else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m scripts.ccdifftest")
    ap.add_argument("--lab", help="the lab command (else $SIDTUI_CLAUDE_LAB)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("mutate")
    m.add_argument("files", nargs="*")
    m.add_argument("--out", required=True)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--per-file", type=int, default=5)
    m.set_defaults(fn=_mutate)
    p = sub.add_parser("play")
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=10)
    p.set_defaults(fn=_play)
    c = sub.add_parser("check")
    c.add_argument("files", nargs="+")
    c.add_argument("--index", help="index.json of `mutate` (case → mutation names)")
    c.add_argument("--batch", type=int, default=20)
    c.add_argument("--save", help="append each lab answer (normalised) to this JSONL file")
    c.set_defaults(fn=_check)
    r = sub.add_parser("recheck")
    r.add_argument("saved", help="a JSONL file `check --save` wrote")
    r.add_argument("--index")
    r.set_defaults(fn=_recheck)
    n = sub.add_parser("rename")
    n.add_argument("files", nargs="+")
    n.add_argument("--title", action="append", help="titles given in turn (default: two)")
    n.add_argument("--save", help="write the results (JSON) here")
    n.set_defaults(fn=_rename)
    a = ap.parse_args(argv)
    return a.fn(a)


if __name__ == "__main__":
    sys.exit(main())

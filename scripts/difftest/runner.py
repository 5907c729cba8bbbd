"""The differential loop: generate cases, run the oracle and sidtui, group disagreements.

Cases are written in batches to a scratch folder; while the oracle reads a batch (its own
process), sidtui reads the same files here. Every disagreement is keyed by its
:attr:`~scripts.difftest.compare.Disagreement.key` (a class); each class keeps its
smallest example, which :func:`minimize` can shrink line by line with the oracle.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scripts.difftest.compare import FIELDS, Disagreement, compare, sidtui_view
from scripts.difftest.gen import Case, make_case
from scripts.difftest.oracle import finish, run_batch, start_batch

#: Examples kept in memory up to this size (bigger ones are regenerated from their seed).
KEEP_BYTES = 256 << 10


@dataclass
class Example:
    """A case that shows a class: how to make it again and what each side said."""

    name: str
    seed: int
    index: int
    filename: str
    size: int
    tags: list[str]
    detail: str
    data: bytes | None = None

    def rank(self) -> tuple[int, int]:
        return (len(self.tags), self.size)


@dataclass
class ClassStats:
    """One disagreement class: how often, with which damages, its smallest example."""

    key: str
    disagreement: str = ""
    count: int = 0
    tags: Counter = field(default_factory=Counter)
    example: Example | None = None


@dataclass
class Report:
    seed: int
    damages: str = "mixed"  # gen.DAMAGE_COUNTS key: how many damages each case got
    cases: int = 0
    agree: Counter = field(default_factory=Counter)  # field -> cases agreeing
    all_agree: int = 0
    classes: dict[str, ClassStats] = field(default_factory=dict)
    #: cause → the cases it explains (a case counts once per cause)
    causes: dict[str, set[str]] = field(default_factory=dict)
    seconds: float = 0.0
    big_cases: int = 0

    def add(
        self, case: Case, diffs: Sequence[Disagreement], causes: dict[str, str] | None = None
    ) -> None:
        self.cases += 1
        if case.pad is not None:
            self.big_cases += 1
        bad = {d.field for d in diffs}
        for f in FIELDS:
            if f not in bad:
                self.agree[f] += 1
        if not diffs:
            self.all_agree += 1
        for d in diffs:
            cause = (causes or {}).get(d.key, "?")
            self.causes.setdefault(cause, set()).add(case.name)
            key = f"{d.key} ← {cause}" + (" [kept on purpose]" if d.known else "")
            st = self.classes.setdefault(key, ClassStats(key, d.key))
            st.count += 1
            for t in case.tags:
                st.tags[_tag_kind(t)] += 1
            ex = Example(
                case.name,
                case.seed,
                case.index,
                case.filename,
                len(case.data),
                list(case.tags),
                d.detail,
                case.data if len(case.data) <= KEEP_BYTES else None,
            )
            if st.example is None or ex.rank() < st.example.rank():
                st.example = ex

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "cases": self.cases,
            "big_cases": self.big_cases,
            "all_fields_agree": self.all_agree,
            "seconds": round(self.seconds, 1),
            "fields": {
                f: {
                    "agree": self.agree[f],
                    "percent": round(100 * self.agree[f] / self.cases, 3) if self.cases else None,
                }
                for f in FIELDS
            },
            "causes": {
                c: len(n) for c, n in sorted(self.causes.items(), key=lambda kv: -len(kv[1]))
            },
            "classes": [
                {
                    "key": st.key,
                    "count": st.count,
                    "tags": dict(st.tags.most_common(8)),
                    "example": None
                    if st.example is None
                    else {
                        "name": st.example.name,
                        "regenerate": f"--seed {st.example.seed} --index {st.example.index}",
                        "filename": st.example.filename,
                        "size": st.example.size,
                        "tags": st.example.tags,
                        "detail": st.example.detail,
                    },
                }
                for st in sorted(self.classes.values(), key=lambda s: -s.count)
            ],
        }

    def markdown(self) -> str:
        j = self.to_json()
        out = [
            f"# Differential run: seed {self.seed}, {self.cases} cases "
            f"({self.big_cases} grown to about 4 MiB or more), {j['seconds']} s",
            "",
            f"All fields agree: {self.all_agree} ({_pct(self.all_agree, self.cases)})",
            "",
            "| field | agree | % |",
            "|---|---|---|",
        ]
        for f, v in j["fields"].items():
            out.append(f"| {f} | {v['agree']} | {v['percent']} |")
        out += ["", "## Causes (cases each explains)", "", "| cause | cases |", "|---|---|"]
        for c, n in j["causes"].items():
            out.append(f"| {c} | {n} |")
        out += ["", "## Classes (field: signature ← cause)", ""]
        for c in j["classes"]:
            ex = c["example"]
            out.append(f"### {c['key']} — {c['count']} cases")
            out.append(f"- damages seen: {c['tags']}")
            if ex:
                out.append(
                    f"- smallest example `{ex['name']}` ({ex['regenerate']}, {ex['size']} bytes, "
                    f"{ex['filename']}): {ex['tags']}"
                )
                out.append(f"- {ex['detail'][:600]}")
            out.append("")
        return "\n".join(out)


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.2f} %" if b else "n/a"


def _tag_kind(tag: str) -> str:
    """A tag without its numbers (``cut_tail(-12)`` → ``cut_tail``), keeping the
    variant names that tell causes apart (``odd_message(ws_text)``)."""
    base, _, arg = tag.partition("(")
    if base in ("odd_message", "nonobj_line", "uuid_edit", "raw_separator"):
        return f"{base}({arg.split(',')[0].rstrip(')')})"
    if base == "big":
        return "big(above)" if "above" in arg else "big(at_or_below)"
    return base


def judge(path: Path, oracle: dict[str, Any]) -> list[Disagreement]:
    """:func:`compare` for one file, with a sidtui crash as a disagreement of its own."""
    try:
        out = sidtui_view(path)
    except Exception as exc:  # noqa: BLE001 - a crash on any input is a finding, not an abort
        where = traceback.extract_tb(exc.__traceback__)[-1]
        return [
            Disagreement(
                "loadable",
                f"sidtui raises {type(exc).__name__}",
                f"{exc} at {Path(where.filename).name}:{where.lineno}",
            )
        ]
    return compare(oracle, out, path)


def attribute(
    cmd: Sequence[str],
    judged: Sequence[tuple[Case, Sequence[Disagreement]]],
    folder: Path,
    big_share: float,
    damages: str = "mixed",
) -> dict[int, dict[str, str]]:
    """Which damages each disagreement needs: the case is made again without each damage
    in turn; a damage whose removal makes the disagreement go is one of its causes.

    Returns:
        case index → disagreement key → cause (damage kinds joined by ``+``; the base's
        kind when the case has no damage; ``any of(…)`` when no single damage is needed).
    """
    variants: list[tuple[Case, int, Case]] = []
    for c, _ in judged:
        for j, _label in c.damages:
            variants.append((c, j, make_case(c.seed, c.index, big_share, frozenset({j}), damages)))
    paths = []
    for k, (_, _, v) in enumerate(variants):
        d = folder / str(k)
        d.mkdir(parents=True)
        p = d / v.filename
        p.write_bytes(v.data)
        paths.append(p)
    gone: dict[tuple[int, int], set[str]] = {}
    if paths:
        for (c, j, _), p, o in zip(variants, paths, run_batch(cmd, paths), strict=True):
            gone[(c.index, j)] = {d.key for d in judge(p, o)}
    out: dict[int, dict[str, str]] = {}
    for c, diffs in judged:
        per: dict[str, str] = {}
        for d in diffs:
            if not c.damages:
                per[d.key] = "base:" + c.tags[0].partition("(")[0]
                continue
            need = sorted(
                {_tag_kind(label) for j, label in c.damages if d.key not in gone[(c.index, j)]}
            )
            per[d.key] = (
                "+".join(need)
                if need
                else "any of(" + "/".join(sorted({_tag_kind(t) for _, t in c.damages})) + ")"
            )
        out[c.index] = per
    shutil.rmtree(folder, ignore_errors=True)
    return out


def _write(case: Case, folder: Path) -> Path:
    d = folder / case.name
    d.mkdir(parents=True)
    p = d / case.filename
    p.write_bytes(case.data)
    return p


def run(
    cmd: Sequence[str],
    seed: int,
    count: int,
    *,
    start: int = 0,
    batch: int = 100,
    big_share: float = 0.12,
    damages: str = "mixed",
    log: Callable[[str], None] = lambda s: print(s, file=sys.stderr),
) -> Report:
    """Generate cases ``start .. start + count - 1`` of ``seed`` (``damages``: how many
    each gets, a ``gen.DAMAGE_COUNTS`` key) and judge each."""
    rep = Report(seed, damages)
    t0 = time.perf_counter()
    scratch = Path(tempfile.mkdtemp(prefix="sidtui-difftest-"))
    try:
        for lo in range(start, start + count, batch):
            hi = min(start + count, lo + batch)
            folder = scratch / f"b{lo}"
            cases = [make_case(seed, i, big_share, damages=damages) for i in range(lo, hi)]
            paths = [_write(c, folder) for c in cases]
            proc = start_batch(cmd, paths)
            outs = []
            for p in paths:
                try:
                    outs.append(sidtui_view(p))
                except Exception as exc:  # noqa: BLE001 - recorded as a finding below
                    outs.append(exc)
            oracles = finish(proc, len(paths))
            judged = []
            for c, p, o, s in zip(cases, paths, oracles, outs, strict=True):
                diffs = judge(p, o) if isinstance(s, Exception) else compare(o, s, p)
                judged.append((c, diffs))
            causes = attribute(
                cmd, [(c, d) for c, d in judged if d], folder / "variants", big_share, damages
            )
            for c, diffs in judged:
                rep.add(c, diffs, causes.get(c.index, {}))
            shutil.rmtree(folder, ignore_errors=True)
            log(
                f"{hi - start}/{count} cases, all fields agree {_pct(rep.all_agree, rep.cases)}, "
                f"{len(rep.classes)} classes, {time.perf_counter() - t0:.0f} s"
            )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    rep.seconds = time.perf_counter() - t0
    return rep


# --------------------------------------------------------------------------- shrinking


def _keys(path: Path, oracle: dict[str, Any]) -> set[str]:
    return {d.key for d in judge(path, oracle)}


def minimize(cmd: Sequence[str], data: bytes, filename: str, key: str, rounds: int = 40) -> bytes:
    """``data`` with as many lines removed as keep the disagreement ``key`` (ddmin by
    chunks of lines; one oracle batch per round)."""
    scratch = Path(tempfile.mkdtemp(prefix="sidtui-difftest-min-"))
    try:
        keep_nl = data.endswith(b"\n")
        lines = data.split(b"\n")
        if keep_nl:
            lines.pop()
        chunk = max(1, len(lines) // 2)
        for _ in range(rounds):
            if len(lines) <= 1:
                break
            cands = []
            for i in range(0, len(lines), chunk):
                rest = lines[:i] + lines[i + chunk :]
                if rest:
                    cands.append(rest)
            paths = []
            for k, cand in enumerate(cands):
                d = scratch / f"r{len(lines)}-{chunk}-{k}"
                d.mkdir(parents=True, exist_ok=True)
                p = d / filename
                p.write_bytes(b"\n".join(cand) + (b"\n" if keep_nl else b""))
                paths.append(p)
            oracles = run_batch(cmd, paths)
            for cand, p, o in zip(cands, paths, oracles, strict=True):
                if key in _keys(p, o):
                    lines = cand
                    break
            else:
                if chunk == 1:
                    break
                chunk = max(1, chunk // 2)
                continue
            chunk = min(chunk, max(1, len(lines) // 2))
        return b"\n".join(lines) + (b"\n" if keep_nl else b"")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def slug(key: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", key.lower()).strip("-")[:60]


def write_examples(cmd: Sequence[str], rep: Report, out: Path, shrink: bool) -> None:
    """Each class's example (shrunk when asked) with both sides' output, under ``out``."""
    for st in rep.classes.values():
        ex = st.example
        if ex is None:
            continue
        data = ex.data
        case = None
        if data is None:
            case = make_case(ex.seed, ex.index, damages=rep.damages)
            data = case.data
        if shrink and len(data) <= KEEP_BYTES:
            data = minimize(cmd, data, ex.filename, st.disagreement)
        d = out / "examples" / slug(st.key)
        d.mkdir(parents=True, exist_ok=True)
        p = d / ex.filename
        p.write_bytes(data)
        o = run_batch(cmd, [p])[0]
        (d / f"{ex.filename}.oracle.json").write_text(json.dumps(o, indent=1))
        try:
            s: Any = sidtui_view(p)
        except Exception as exc:  # noqa: BLE001 - shown in the example, not raised
            s = {"error": repr(exc)}
        (d / f"{ex.filename}.sidtui.json").write_text(json.dumps(s, indent=1, default=str))
        (d / "README.txt").write_text(
            f"{st.key}\n{st.count} cases\nexample {ex.name} (--seed {ex.seed} --index {ex.index})\n"
            f"tags {ex.tags}\n{ex.detail}\n"
        )

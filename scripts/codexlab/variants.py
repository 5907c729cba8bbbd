"""Damaged variants of lab rollouts, each resumed by the real Codex; vendors the cases.

    python3 scripts/codexlab/variants.py LABOUT FIXTURES

LABOUT is what ``lab.py run`` wrote. For every scenario step, the rollout after it and
the request Codex sent on the next ``codex exec resume`` are one case; for a few
rollouts, damaged copies (torn tail, a garbage line, an unknown record type, a call
whose output is cut off, an output whose call is gone, blank lines) are resumed here
and become cases too. Each case in FIXTURES/NAME/ is ``rollout.jsonl`` and
``request.json``: the request's ``input`` without its first item (the base instructions
Codex writes afresh) and the resume prompt it appended.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lab


def vendor(
    dest: Path,
    rollout_text: str,
    request: Path,
    prompt: str,
    bases: Sequence[Path] = (),
) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "rollout.jsonl").write_text(rollout_text)
    for b in bases:
        (dest / "bases").mkdir(exist_ok=True)
        shutil.copy(b, dest / "bases" / b.name)
    body = json.loads(request.read_text())
    inp = body["input"]
    (dest / "request.json").write_text(
        json.dumps({"prompt": prompt, "input": inp[1:]}, indent=1, sort_keys=True) + "\n"
    )


def lines(p: Path) -> list[str]:
    return p.read_text().splitlines(keepends=True)


def damage(src: Path) -> dict[str, str]:
    ls = lines(src)
    out: dict[str, str] = {}
    out["torn-tail"] = "".join(ls[:-1]) + ls[-1][: len(ls[-1]) // 2]
    mid = len(ls) // 2
    out["garbage-line"] = "".join(ls[:mid]) + "{not json at all\n" + "".join(ls[mid:])
    out["unknown-type"] = (
        "".join(ls[:mid])
        + json.dumps(
            {"timestamp": "2026-12-02T00:00:00.000Z", "type": "future_record", "payload": {"x": 1}}
        )
        + "\n"
        + "".join(ls[mid:])
    )
    out["blank-lines"] = "\n".join(ln.rstrip("\n") for ln in ls) + "\n\n\n"
    calls = [
        i
        for i, ln in enumerate(ls)
        if '"type": "function_call"' in ln or '"type":"function_call"' in ln
    ]
    outs = [i for i, ln in enumerate(ls) if '"function_call_output"' in ln]
    if calls:
        out["cut-after-call"] = "".join(ls[: calls[0] + 1])
    if len(outs) > 1:
        out["first-output-gone"] = "".join(ln for i, ln in enumerate(ls) if i != outs[0])
    customs = [i for i, ln in enumerate(ls) if '"custom_tool_call"' in ln]
    if customs:
        out["cut-after-custom"] = "".join(ls[: customs[0] + 1])
    if outs:
        first_call = calls[0]
        out["output-without-call"] = "".join(ln for i, ln in enumerate(ls) if i != first_call)
    return out


def main(argv: list[str]) -> int:
    labout, fixtures = Path(argv[0]), Path(argv[1])
    fixtures.mkdir(parents=True, exist_ok=True)
    n = 0
    for sc in (
        []
        if argv[2:]
        else sorted(p for p in labout.iterdir() if p.is_dir() and (p / "session_id").exists())
    ):
        if sc.name.startswith("_"):
            continue
        ids = json.loads((sc / "ids.json").read_text())
        for req in sorted((sc / "requests").glob("step*-request-001.json")):
            k = int(req.name[4:].split("-")[0])
            step = lab.SCENARIOS[sc.name][k - 1] if k <= len(lab.SCENARIOS[sc.name]) else None
            if k == 1 or step is None or step["do"] == "fork":
                continue
            sid = ids[step.get("target", "main")]
            snap = sc / f"after-step{k - 1}"
            others = sorted(p for p in snap.iterdir() if p.name != f"{sid}.jsonl")
            text = (snap / f"{sid}.jsonl").read_text()
            vendor(fixtures / f"{sc.name}-{k}", text, req, step["prompt"], others)
            n += 1
    work = labout / "_variants"
    only = argv[2:] or ["shell", "parallel", "compact", "kill-text", "patch", "multi"]
    for base in only:
        src = labout / base / ("after-step2.jsonl" if base == "multi" else "after-step1.jsonl")
        for name, text in damage(src).items():
            root = work / f"{base}-{name}"
            if root.exists():
                shutil.rmtree(root)
            root.mkdir(parents=True)
            f = root / src.name.replace("after-step1", "x")
            rollout = root / (lab.rollout_name(src))
            rollout.write_text(text)
            req = lab.resume_file(root / "lab", rollout, "lab resume")
            if req.suffix != ".json":
                print("no request for", root.name, (req / "stderr").read_text()[-300:])
                continue
            vendor(fixtures / f"{base}-{name}", text, req, "lab resume")
            n += 1
            del f
    print(n, "cases")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

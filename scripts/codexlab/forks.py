"""sidtui's Codex forks resumed by the real Codex: does ``codex exec resume NEW_ID`` send
exactly the history before the prompt the fork was cut at?

    .venv/bin/python scripts/codexlab/forks.py LABOUT FIXTURES [SCENARIO...]

For each scenario home that ``lab.py run`` left in LABOUT, and for each typed prompt of
its main session (and the whole session), sidtui writes a fork into that home
(:func:`sidtui.core.codex.fork.write_fork`), Codex resumes it, and the request it sent is
compared with (a) sidtui's prediction of the fork and (b) the parent's history cut before
that prompt. Each fork becomes a case FIXTURES/sidtui-fork-SCENARIO-K/ (``rollout.jsonl``,
``bases/``, ``request.json``), as variants.py vends them.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lab
import variants

from sidtui.core.base.errors import UsageError
from sidtui.core.codex.fork import write_fork
from sidtui.core.codex.layout import CodexHome, find_rollout, resolve_session
from sidtui.core.codex.session import open_codex_session


def strip_added(items: list[dict], sent: list[dict], flags: list[bool]) -> list[dict]:
    out = []
    for x, added in zip(sent, flags, strict=False):
        x = dict(x)
        if added:
            x.pop("id", None)
        out.append(x)
    return out


def main(argv: list[str]) -> int:
    labout, fixtures = Path(argv[0]), Path(argv[1])
    names = argv[2:] or ["multi", "shell", "fork", "compact"]
    agree = total = 0
    for name in names:
        root = labout / name
        home = CodexHome(root / "home")
        sid = json.loads((root / "ids.json").read_text())["main"]
        parent = open_codex_session(resolve_session(home, sid), home=home)
        cuts: list[int | None] = [*range(1, len(parent.prompts) + 1), None]
        L = lab.Lab(root)
        L.step = 100
        for k in cuts:
            parent = open_codex_session(resolve_session(home, sid), home=home)
            try:
                new_id, path = write_fork(home, parent, k)
            except UsageError as exc:
                print(name, k, "refused:", exc)
                continue
            fork = open_codex_session(resolve_session(home, new_id), home=home)
            pred = fork.resume
            snap = Path(tempfile.mkdtemp())
            shutil.copy(path, snap / "rollout.jsonl")
            others = []
            for b in pred.bases:
                p = find_rollout(home, b["session_id"])
                if p is not None:
                    shutil.copy(p, snap / f"{b['session_id']}.jsonl")
                    others.append(snap / f"{b['session_id']}.jsonl")
            log = L.run(["resume", new_id, "lab resume"], [{"output": [{"text": "ok"}]}])
            reqs = sorted(log.glob("request-*.json"))
            total += 1
            if not reqs:
                print(name, k, "no request:", (log / "stderr").read_text()[-300:])
                continue
            sent = json.loads(reqs[0].read_text())["input"][1:]
            want = pred.payloads()
            got = strip_added(want, sent[: len(want)], [i.added for i in pred.items])
            expect = parent.resume.payloads()
            cut_items = len(expect) if k is None else parent.prompts[k - 1].items[0]
            ok = got == want and want == [
                {kk: vv for kk, vv in p.items() if not (kk == "id" and a)}
                for p, a in zip(
                    expect[:cut_items], [i.added for i in parent.resume.items], strict=False
                )
            ]
            agree += ok
            print(name, k, "agrees" if ok else "DIFFERS", len(want), "items")
            variants.vendor(
                fixtures / f"sidtui-fork-{name}-{'all' if k is None else k}",
                (snap / "rollout.jsonl").read_text(),
                reqs[0],
                "lab resume",
                others,
            )
    print(f"{agree}/{total} forks resumed exactly")
    return 0 if agree == total else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

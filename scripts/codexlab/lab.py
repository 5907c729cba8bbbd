"""The Codex lab: the real Codex CLI run offline against a scripted stand-in for the
Responses API (fakeresponses.py), to learn what its rollouts hold and what ``codex exec
resume`` sends. A development tool: the test suite never runs it (docs/CODEX.md).

    python3 scripts/codexlab/lab.py install            # npm install @openai/codex@0.169.0 into /tmp/codex
    python3 scripts/codexlab/lab.py run OUT [NAME...]  # run scenarios; OUT/NAME/ holds home/, requests/
    python3 scripts/codexlab/lab.py resume OUT/NAME ROLLOUT  # resume a rollout, capture the request

A scenario is a list of steps: ``exec`` (a prompt and the model turns the stand-in answers
it with), ``resume`` (``codex exec resume <id>``), ``kill`` (the stand-in stalls mid-turn
and the lab kills Codex with a signal once it is waiting).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PREFIX = Path(os.environ.get("CODEXLAB_PREFIX", "/tmp/codex"))
VERSION = "0.169.0"
CODEX = PREFIX / "node_modules" / ".bin" / "codex"

SH = "exec_command"


def sh(cmd: str) -> dict:
    return {"call": SH, "args": {"cmd": cmd}}


PATCH = "*** Begin Patch\n*** Add File: notes.txt\n+first line\n+second line\n*** End Patch\n"

# name -> list of steps; each exec/resume step: (kind, prompt, turns)
SCENARIOS: dict[str, list[dict]] = {
    "hello": [
        {
            "do": "exec",
            "prompt": "say hello",
            "turns": [
                {"output": [{"reasoning": "greeting"}, {"text": "Hello from the stand-in."}]}
            ],
        },
        {"do": "resume", "prompt": "and again", "turns": [{"output": [{"text": "Hello again."}]}]},
    ],
    "shell": [
        {
            "do": "exec",
            "prompt": "list the files and count them",
            "turns": [
                {"output": [{"reasoning": "I should look"}, sh("ls -1")]},
                {"output": [sh("ls -1 | wc -l")]},
                {"output": [{"text": "There are two files."}]},
            ],
        },
        {
            "do": "resume",
            "prompt": "what was the count?",
            "turns": [{"output": [{"text": "Two."}]}],
        },
    ],
    "parallel": [
        {
            "do": "exec",
            "prompt": "read both files",
            "turns": [
                {"output": [sh("cat a.txt"), sh("cat b.txt")]},
                {"output": [{"text": "a and b read."}]},
            ],
        },
        {"do": "resume", "prompt": "thanks", "turns": [{"output": [{"text": "ok"}]}]},
    ],
    "patch": [
        {
            "do": "exec",
            "prompt": "write notes",
            "turns": [
                {"output": [{"custom": "apply_patch", "input": PATCH}]},
                {"output": [sh("cat notes.txt")]},
                {"output": [{"text": "Wrote notes.txt."}]},
            ],
        },
        {"do": "resume", "prompt": "done?", "turns": [{"output": [{"text": "Yes."}]}]},
    ],
    "multi": [
        {"do": "exec", "prompt": "first task", "turns": [{"output": [{"text": "first done"}]}]},
        {
            "do": "resume",
            "prompt": "second task",
            "turns": [{"output": [sh("echo two")]}, {"output": [{"text": "second done"}]}],
        },
        {"do": "resume", "prompt": "third task", "turns": [{"output": [{"text": "third done"}]}]},
        {"do": "resume", "prompt": "fourth", "turns": [{"output": [{"text": "fourth done"}]}]},
    ],
    "kill-text": [
        {"do": "exec", "prompt": "start", "turns": [{"output": [{"text": "started"}]}]},
        {
            "do": "kill",
            "prompt": "write a long answer",
            "signal": "INT",
            "turns": [{"output": [{"text": "This answer never finishes because"}], "hang": True}],
        },
        {"do": "resume", "prompt": "go on", "turns": [{"output": [{"text": "resumed"}]}]},
    ],
    "kill-tool": [
        {
            "do": "exec",
            "prompt": "run things",
            "turns": [
                {"output": [sh("echo one")]},
                {"output": [{"reasoning": "next"}, {"text": "part"}], "hang": True},
            ],
            "kill": "KILL",
        },
        {"do": "resume", "prompt": "continue", "turns": [{"output": [{"text": "continued"}]}]},
    ],
    "compact": [
        {
            "do": "exec",
            "prompt": "big task",
            "turns": [
                {"output": [sh("echo big")], "usage": {"input": 9000, "cached": 0, "output": 900}},
                {
                    "output": [{"text": "big done"}],
                    "usage": {"input": 9500, "cached": 0, "output": 900},
                },
                {"output": [{"text": "SUMMARY: the user asked for a big task; it ran echo big."}]},
                {"output": [{"text": "after compaction"}]},
            ],
        },
        {
            "do": "resume",
            "prompt": "next after compaction",
            "turns": [{"output": [{"text": "SUMMARY again"}]}, {"output": [{"text": "ok"}]}],
        },
    ],
    "fork": [
        {
            "do": "exec",
            "prompt": "first",
            "turns": [{"output": [sh("echo one")]}, {"output": [{"text": "one done"}]}],
        },
        {"do": "resume", "prompt": "second", "turns": [{"output": [{"text": "two done"}]}]},
        {"do": "fork", "prompt": "forked", "turns": [{"output": [{"text": "fork done"}]}]},
        {"do": "resume", "prompt": "parent grows", "turns": [{"output": [{"text": "grown"}]}]},
        {
            "do": "resume",
            "target": "fork",
            "prompt": "fork again",
            "turns": [{"output": [{"text": "fork again done"}]}],
        },
    ],
    "kill-term": [
        {
            "do": "exec",
            "prompt": "slow",
            "turns": [{"output": [{"text": "slow answer"}], "hang": True}],
            "kill": "TERM",
        },
        {"do": "resume", "prompt": "again", "turns": [{"output": [{"text": "fine"}]}]},
    ],
}


def install() -> None:
    subprocess.run(
        ["npm", "install", "--prefix", str(PREFIX), f"@openai/codex@{VERSION}"], check=True
    )


class Lab:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.work = root / "work"
        self.req = root / "requests"
        for d in (self.home, self.work, self.req):
            d.mkdir(parents=True, exist_ok=True)
        self.step = 0
        self.compact_limit = 5000 if root.name == "compact" else 10_000_000

    def _server(self, turns: list[dict], tag: str) -> tuple[subprocess.Popen, Path, int]:
        log = self.root / "server" / tag
        if log.exists():
            shutil.rmtree(log)
        log.mkdir(parents=True)
        script = log / "script.json"
        script.write_text(json.dumps(turns))
        p = subprocess.Popen(
            [
                sys.executable,
                str(HERE / "fakeresponses.py"),
                "--script",
                str(script),
                "--log",
                str(log),
            ]
        )
        for _ in range(100):
            if (log / "port").exists():
                break
            time.sleep(0.05)
        port = int((log / "port").read_text())
        (self.home / "config.toml").write_text(
            'model = "gpt-lab"\nmodel_provider = "lab"\n'
            "[model_providers.lab]\n"
            f'name = "lab"\nbase_url = "http://127.0.0.1:{port}/v1"\n'
            'wire_api = "responses"\nenv_key = "LAB_API_KEY"\n'
        )
        return p, log, port

    def run(self, args: list[str], turns: list[dict], kill: str | None = None) -> Path:
        self.step += 1
        tag = f"step{self.step}"
        srv, log, _ = self._server(turns, tag)
        env = {**os.environ, "CODEX_HOME": str(self.home), "LAB_API_KEY": "lab"}
        cmd = [
            str(CODEX),
            "exec",
            "--skip-git-repo-check",
            "-s",
            "danger-full-access",
            "-c",
            f"model_auto_compact_token_limit={self.compact_limit}",
            *args,
        ]
        try:
            p = subprocess.Popen(
                cmd,
                cwd=self.work,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
            if kill:
                for _ in range(600):
                    if list(log.glob("hang-*")) or p.poll() is not None:
                        break
                    time.sleep(0.05)
                time.sleep(0.3)
                os.killpg(p.pid, getattr(signal, f"SIG{kill}"))
            out, err = p.communicate(timeout=120)
            (log / "stdout").write_bytes(out)
            (log / "stderr").write_bytes(err)
            (log / "rc").write_text(str(p.returncode))
        finally:
            srv.terminate()
            srv.wait()
        for r in sorted(log.glob("request-*.json")):
            shutil.copy(r, self.req / f"{tag}-{r.name}")
        return log

    def rollouts(self) -> list[Path]:
        return sorted((self.home / "sessions").rglob("rollout-*.jsonl"))


def session_id_of(rollout: Path) -> str:
    first = json.loads(rollout.open().readline())
    return first["payload"]["id"]


def run_scenario(out: Path, name: str) -> None:
    root = out / name
    if root.exists():
        shutil.rmtree(root)
    lab = Lab(root)
    for f, text in (("a.txt", "alpha\n"), ("b.txt", "beta\n")):
        (lab.work / f).write_text(text)
    ids: dict[str, str] = {}
    for step in SCENARIOS[name]:
        kill = step.get("kill")
        if step["do"] == "kill":
            kill = step.get("signal", "INT")
        before = set(lab.rollouts())
        target = ids.get(step.get("target", "main"))
        if not ids:
            lab.run([step["prompt"]], step["turns"], kill)
            ids["main"] = session_id_of(lab.rollouts()[0])
        elif step["do"] == "fork":
            lab.run(["fork", ids["main"], step["prompt"]], step["turns"], kill)
            new = [r for r in lab.rollouts() if r not in before]
            ids["fork"] = session_id_of(new[0])
        else:
            lab.run(["resume", target or ids["main"], step["prompt"]], step["turns"], kill)
        # the rollouts after each step: the input of the next resume
        snap = root / f"after-step{lab.step}"
        snap.mkdir()
        for r in lab.rollouts():
            shutil.copy(r, snap / f"{session_id_of(r)}.jsonl")
        shutil.copy(snap / f"{ids['main']}.jsonl", root / f"after-step{lab.step}.jsonl")
    (root / "session_id").write_text(ids["main"])
    (root / "ids.json").write_text(json.dumps(ids))
    print(name, ids, len(list(lab.req.iterdir())), "requests")


def rollout_name(rollout: Path) -> str:
    """The rollout's file name in the home (the lab's copies are named after their step)."""
    sid = session_id_of(rollout)
    return f"rollout-2026-01-01T00-00-00-{sid}.jsonl"


def resume_file(root: Path, rollout: Path, prompt: str = "lab resume") -> Path:
    """Resume ``rollout`` (copied into a fresh lab home) once and return the captured request."""
    lab = Lab(root)
    sid = session_id_of(rollout)
    dest = lab.home / "sessions" / "2026" / "01" / "01" / rollout_name(rollout)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(rollout, dest)
    log = lab.run(["resume", sid, prompt], [{"output": [{"text": "ok"}]}])
    reqs = sorted(log.glob("request-*.json"))
    return reqs[0] if reqs else log


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    if argv[0] == "install":
        install()
        return 0
    if argv[0] == "run":
        out = Path(argv[1])
        for name in argv[2:] or list(SCENARIOS):
            run_scenario(out, name)
        return 0
    if argv[0] == "resume":
        print(resume_file(Path(argv[1]), Path(argv[2])))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

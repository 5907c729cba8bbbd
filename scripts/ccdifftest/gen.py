"""Random scenarios for ``lab run``: what real sessions do — reads and edits (Write, Edit,
Bash), parallel tool calls, subagents (``Task``), thinking, interrupts (SIGINT, SIGKILL
mid-stream), ``/compact``, resumes and ``--fork-session``. Deterministic from a seed."""

from __future__ import annotations

import random
from typing import Any

FILES = ("src/app.py", "src/util.py", "notes.md", "lib/core.py")


def _read(path: str) -> dict[str, Any]:
    return {"tool_use": {"name": "Read", "input": {"file_path": "{proj}/" + path}}}


def _edit_turn(rng: random.Random, state: dict[str, str], k: int) -> list[list[dict[str, Any]]]:
    """One prompt's replies: read, edit (maybe in parallel), answer."""
    path = rng.choice(sorted(state))
    replies: list[list[dict[str, Any]]] = []
    first: list[dict[str, Any]] = []
    if rng.random() < 0.4:
        first.append({"thinking": f"planning step {k}"})
    if rng.random() < 0.6:
        first.append({"text": f"Reading {path}."})
    first.append(_read(path))
    if rng.random() < 0.3:  # a second read in parallel
        first.append(_read(rng.choice(sorted(state))))
    replies.append(first)
    edits: list[dict[str, Any]] = []
    old = state[path].splitlines()[0]
    new = f"{old}  # edit {k}"
    edits.append(
        {
            "tool_use": {
                "name": "Edit",
                "input": {"file_path": "{proj}/" + path, "old_string": old, "new_string": new},
            }
        }
    )
    state[path] = state[path].replace(old, new, 1)
    if rng.random() < 0.5:
        name = f"gen/f{k}.txt"
        edits.append(
            {
                "tool_use": {
                    "name": "Write",
                    "input": {"file_path": "{proj}/" + name, "content": f"file {k}\n"},
                }
            }
        )
    if rng.random() < 0.3:
        edits.append(
            {
                "tool_use": {
                    "name": "Bash",
                    "input": {
                        "command": f"echo step {k} >> {{proj}}/log.txt",
                        "description": "log",
                    },
                }
            }
        )
    rng.shuffle(edits)
    replies.append(edits)
    replies.append([{"text": f"Done with step {k}."}])
    return replies


def _agent_turn(rng: random.Random, state: dict[str, str], k: int) -> list[list[dict[str, Any]]]:
    path = rng.choice(sorted(state))
    spawn = {
        "tool_use": {
            "name": "Task",
            "input": {
                "description": f"look {k}",
                "prompt": f"Read {{proj}}/{path} and report.",
                "subagent_type": "general-purpose",
            },
        }
    }
    return [
        [{"text": "I'll ask a subagent."}, spawn],
        [_read(path)],
        [{"text": f"{path} read."}],
        [{"text": f"The helper read {path}."}],
    ]


def make_scenario(seed: int) -> tuple[dict[str, Any], list[str]]:
    """A scenario and its tags (what it exercises)."""
    rng = random.Random(seed)
    state = {
        p: f"line one of {p}\nline two\n"
        for p in rng.sample(FILES, rng.randrange(1, len(FILES) + 1))
    }
    files = dict(state)
    steps: list[dict[str, Any]] = []
    tags: list[str] = []
    n = rng.randrange(2, 6)
    for k in range(n):
        r = rng.random()
        if k > 0 and r < 0.12:
            steps.append(
                {
                    "prompt": "/compact",
                    "replies": [
                        [{"for": "any"}, {"text": f"<summary>Steps so far: {k}.</summary>"}]
                    ],
                }
            )
            tags.append("compact")
            continue
        if r < 0.3:
            replies = _agent_turn(rng, state, k)
            tags.append("subagent")
        else:
            replies = _edit_turn(rng, state, k)
            tags.append("edit")
        step: dict[str, Any] = {"prompt": f"step {k}: change things", "replies": replies}
        if k > 0 and rng.random() < 0.15:
            step["fork_session"] = True
            tags.append("fork")
        if rng.random() < 0.25:  # interrupted: stall mid-stream, then a signal
            cut = rng.randrange(1, len(replies) + 1)
            replies[cut - 1] = [*replies[cut - 1][:1], {"stall": True}]
            del replies[cut:]
            step["kill_after_s"] = 5
            step["kill_signal"] = rng.choice(["INT", "KILL"])
            tags.append("kill-" + step["kill_signal"].lower())
        steps.append(step)
    return {"files": files, "steps": steps}, tags

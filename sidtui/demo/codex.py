"""The demo's Codex CLI home: ``<demo dir>/codex`` beside the sid-code ``home/``.

:func:`build_codex_demo` writes ``codex/sessions/YYYY/MM/DD/rollout-*.jsonl`` with a
simulated Codex CLI (:class:`_Rollout`) in the record shapes and key order Codex 0.169.0
writes (docs/CODEX.md §2), and a writer lock a killed process left. Cases
(``CodexDemo.cases``): ``shell`` (reasoning, two shell calls, resumed once), ``patch``
(apply_patch), ``interrupted`` (Ctrl-C: ``<turn_aborted>``), ``killed`` (a call the process
died before answering: a resume sends it "aborted"; its writer lock left behind),
``compaction``, ``fork`` (sidtui's fork of ``shell`` before its second prompt) and ``torn``
(a half-written last line). Same seed, same bytes.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sidtui.core.codex.fork import fork_meta, plan_fork, uuid7
from sidtui.core.codex.layout import CodexHome, file_for_path
from sidtui.core.codex.liveness import LOCKS_DIR
from sidtui.core.codex.session import open_codex_session
from sidtui.demo.clock import DEMO_EPOCH_MS, iso_ms

#: The Codex home's timeline starts two days after the sid-code one.
CODEX_EPOCH_MS = DEMO_EPOCH_MS + 2 * 24 * 3600 * 1000
MODEL = "gpt-5.5-codex"
VERSION = "0.169.0"
BASE_INSTRUCTIONS = (
    "You are a coding agent running in the Codex CLI (the demo's stand-in for its base "
    "instructions)."
)


@dataclass
class CodexDemo:
    """A built Codex demo home: ``home`` (pass as ``--codex-home``) and case → session id."""

    home: Path
    cases: dict[str, str] = field(default_factory=dict)


def _dump(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class _Rollout:
    """One simulated session's rollout, written line by line as Codex appends them."""

    def __init__(self, home: CodexHome, rng: random.Random, ms: int, cwd: str) -> None:
        self.rng, self.ms, self.cwd = rng, ms, cwd
        self.sid = self.uuid()
        self.ordinal = 0
        self.turn = ""
        self.calls = 0
        self.total = [0, 0, 0, 0]  # input, cached, output, reasoning
        stamp = datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H-%M-%S")
        folder = home.sessions_dir / stamp[:10].replace("-", "/")
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"rollout-{stamp}-{self.sid}.jsonl"
        self.lines: list[str] = []
        self.record(
            "session_meta",
            {
                "account_scoped": True,
                "session_id": self.sid,
                "id": self.sid,
                "timestamp": iso_ms(ms),
                "cwd": cwd,
                "originator": "codex_exec",
                "cli_version": VERSION,
                "source": "exec",
                "model_provider": "openai",
                "base_instructions": {"text": BASE_INSTRUCTIONS},
                "history_mode": "paginated",
            },
        )

    def uuid(self) -> str:
        return uuid7(self.ms, self.rng.getrandbits(80))

    def record(self, kind: str, payload: dict[str, Any]) -> None:
        self.ms += self.rng.randint(20, 900)
        line = {"timestamp": iso_ms(self.ms), "ordinal": self.ordinal, "type": kind}
        self.lines.append(_dump({**line, "payload": payload}))
        self.ordinal += 1

    def item(self, payload: dict[str, Any]) -> None:
        self.record(
            "response_item",
            {**payload, "internal_chat_message_metadata_passthrough": {"turn_id": self.turn}},
        )

    def event(self, kind: str, **fields: Any) -> None:
        self.record("event_msg", {"type": kind, **fields})

    def start_turn(self, prompt: str, first: bool = False) -> None:
        self.turn = self.uuid()
        self.event("task_started", turn_id=self.turn, model_context_window=272000)
        if first:
            self.item(_msg("developer", "<permissions instructions>\nsandbox: workspace-write"))
            self.item(
                _msg(
                    "user",
                    f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n</environment_context>",
                )
            )
        self.record("turn_context", {"turn_id": self.turn, "cwd": self.cwd, "model": MODEL})
        user = _msg("user", prompt)
        user["internal_chat_message_metadata_passthrough"] = {
            "turn_id": self.turn,
            "content_item_kinds": ["user.text"],
        }
        self.record("response_item", user)

    def response(self, *items: dict[str, Any]) -> None:
        """The model's answer: its items, then the token count Codex records for it."""
        for it in items:
            self.item(it)
        inp = self.rng.randint(4000, 30000)
        cached = inp * self.rng.randint(40, 90) // 100
        out, rsn = self.rng.randint(40, 900), self.rng.randint(0, 300)
        last = [inp, cached, out, rsn]
        self.total = [a + b for a, b in zip(self.total, last, strict=True)]
        self.event(
            "token_count",
            info={"total_token_usage": _usage(self.total), "last_token_usage": _usage(last)},
        )

    def call(self, cmd: str) -> tuple[dict[str, Any], str]:
        self.calls += 1
        cid = f"call_{self.rng.getrandbits(64):016x}"
        return {
            "type": "function_call",
            "name": "exec_command",
            "arguments": _dump({"cmd": cmd}),
            "call_id": cid,
        }, cid

    def output(self, cid: str, text: str) -> None:
        self.item({"type": "function_call_output", "call_id": cid, "output": text})

    def end_turn(self, last: str) -> None:
        self.event("task_complete", turn_id=self.turn, last_agent_message=last)

    def write(self, torn: bool = False) -> None:
        text = "\n".join(self.lines) + "\n"
        if torn:
            text = text[: len(text) - len(self.lines[-1]) // 2 - 1]
        self.path.write_text(text, encoding="utf-8")


def _msg(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def _usage(u: list[int]) -> dict[str, int]:
    return {
        "input_tokens": u[0],
        "cached_input_tokens": u[1],
        "output_tokens": u[2],
        "reasoning_output_tokens": u[3],
        "total_tokens": u[0] + u[2],
    }


def _thinking(text: str) -> dict[str, Any]:
    return {
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": text}],
        "content": None,
    }


def _shell(r: _Rollout) -> None:
    r.start_turn("Why does `make test` fail on a clean checkout?", first=True)
    c1, id1 = r.call("make test 2>&1 | tail -5")
    r.response(_thinking("Run the tests first and read the failure."), c1)
    r.output(id1, "FAILED tests/test_config.py::test_defaults - KeyError: 'HOME'")
    c2, id2 = r.call("sed -n 1,20p src/config.py")
    r.response(c2)
    r.output(id2, "import os\n\nHOME = os.environ['HOME']\n")
    answer = (
        "`src/config.py` reads `$HOME` at import time; the test runs with an empty environment."
    )
    r.response(_msg("assistant", answer))
    r.end_turn(answer)
    r.start_turn("Make it fall back to the user's home folder.")
    r.response(_msg("assistant", "Use `os.path.expanduser('~')` when `HOME` is unset."))
    r.end_turn("Use `os.path.expanduser('~')` when `HOME` is unset.")


def _patch(r: _Rollout) -> None:
    r.start_turn("Add a CHANGELOG entry for the config fix.", first=True)
    patch = "*** Begin Patch\n*** Update File: CHANGELOG.md\n@@\n+- config: HOME may be unset\n*** End Patch\n"
    cid = f"call_{r.rng.getrandbits(64):016x}"
    r.response({"type": "custom_tool_call", "name": "apply_patch", "input": patch, "call_id": cid})
    r.item(
        {
            "type": "custom_tool_call_output",
            "call_id": cid,
            "output": "Success. Updated: CHANGELOG.md",
        }
    )
    r.response(_msg("assistant", "Added the entry under Unreleased."))
    r.end_turn("Added the entry under Unreleased.")


def _interrupted(r: _Rollout) -> None:
    r.start_turn("Rename every `cfg` variable to `config`.", first=True)
    r.item(
        _msg(
            "user",
            "<turn_aborted>\nThe user interrupted the previous turn on purpose.\n</turn_aborted>",
        )
    )
    r.event("turn_aborted", turn_id=r.turn, reason="interrupted")


def _killed(r: _Rollout) -> None:
    r.start_turn("Run the slow integration suite.", first=True)
    call, _cid = r.call("pytest -m integration")
    r.response(call)


def _compaction(r: _Rollout) -> None:
    r.start_turn("Profile the import time of the package.", first=True)
    call, cid = r.call("python -X importtime -c 'import app' 2>&1 | sort -t'|' -k2 -n | tail")
    r.response(call)
    r.output(cid, "import time: 412803 | app.plugins")
    r.response(_msg("assistant", "`app.plugins` takes 0.41 s: it imports every plugin eagerly."))
    summary = "The user profiled imports; app.plugins (0.41 s) loads every plugin eagerly."
    kept = [_msg("user", "Profile the import time of the package."), _msg("user", summary)]
    r.record("compacted", {"message": summary, "replacement_history": kept})
    r.response(_msg("assistant", "Next: load plugins on first use."))
    r.end_turn("Next: load plugins on first use.")


def build_codex_demo(root: Path, seed: int = 0) -> CodexDemo:
    """Write the Codex demo home in ``root/codex`` (see the module docstring)."""
    rng = random.Random(f"codex-{seed}")
    home = CodexHome(root / "codex")
    demo = CodexDemo(home.root)
    ms = CODEX_EPOCH_MS
    cwd = str(root / "projects" / "webshop")
    shell = None
    for case, fill in (
        ("shell", _shell),
        ("patch", _patch),
        ("interrupted", _interrupted),
        ("killed", _killed),
        ("compaction", _compaction),
        ("torn", _shell),
    ):
        ms += 3_600_000
        r = _Rollout(home, rng, ms, cwd)
        fill(r)
        r.write(torn=case == "torn")
        demo.cases[case] = r.sid
        shell = shell or r
        if case == "killed":
            locks = home.root / LOCKS_DIR
            locks.mkdir(parents=True, exist_ok=True)
            (locks / f"{r.sid}.lock").write_bytes(b"")
    assert shell is not None
    view = open_codex_session(file_for_path(shell.path), [], home)
    plan = plan_fork(view, 2)
    when = datetime.fromtimestamp((ms + 3_600_000) / 1000, UTC)
    new_id = uuid7(int(when.timestamp() * 1000), rng.getrandbits(80))
    meta = fork_meta(
        view, plan, new_id, when, uuid7(int(when.timestamp() * 1000), rng.getrandbits(80))
    )
    stamp = when.strftime("%Y-%m-%dT%H-%M-%S")
    folder = home.sessions_dir / stamp[:10].replace("-", "/")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"rollout-{stamp}-{new_id}.jsonl").write_text(_dump(meta) + "\n", encoding="utf-8")
    demo.cases["fork"] = new_id
    return demo

"""The seeded demo home: every case the app must show, in a few realistic projects.

:func:`build_demo_home` creates ``<dir>/home`` (an agent home) and ``<dir>/projects`` (the
scratch projects the simulated agent edited) and returns a :class:`DemoHome` whose
``cases`` maps each planned case to the session id that shows it (the list is in the
package docstring, :mod:`sidtui.demo`). Same ``seed`` ⇒ same bytes, apart from PIDs (and
absolute paths when built in another folder).
"""

from __future__ import annotations

import os
import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from sidtui.core.base.home import Home
from sidtui.core.base.project import check_key_fits, project_key
from sidtui.core.transcript.writer import SessionStore, flush_pending_writes
from sidtui.demo import content as C
from sidtui.demo import crafted
from sidtui.demo.agent import (
    SimAgent,
    SubAgentPlan,
    bash,
    edit,
    glob,
    grep,
    read,
    sub_agent,
    todo_write,
    write,
)
from sidtui.demo.clock import DEMO_EPOCH_MS, SeededIds, SimClock, find_dead_pid, iso_ms
from sidtui.demo.projects import Project, create_project
from sidtui.demo.registry import write_summary

HOUR = 3_600_000


@dataclass
class DemoHome:
    """A built demo home.

    Attributes:
        root: the demo folder (``home/`` and ``projects/`` inside).
        home: the agent home (pass as ``--home``).
        projects: project name → :class:`Project`.
        cases: planned case → session id (see :mod:`sidtui.demo`).
        dead_pid: the PID left in the stale registration (dead when built).
        seed: the seed.
        claude_home: the Claude Code home beside it (``root/claude``; pass as
            ``--claude-home``), None when not built.
        claude_cases: its case → session id (:mod:`sidtui.demo.claude`).
        codex_home, codex_cases: the Codex CLI home (``root/codex``; pass as
            ``--codex-home``) and its cases (:mod:`sidtui.demo.codex`).
    """

    root: Path
    home: Path
    projects: dict[str, Project] = field(default_factory=dict)
    cases: dict[str, str] = field(default_factory=dict)
    dead_pid: int = 0
    seed: int = 0
    claude_home: Path | None = None
    claude_cases: dict[str, str] = field(default_factory=dict)
    codex_home: Path | None = None
    codex_cases: dict[str, str] = field(default_factory=dict)


class _Builder:
    def __init__(self, root: Path, seed: int) -> None:
        self.root = root
        self.seed = seed
        self.home = Home(root / "home")
        self.clock = SimClock(DEMO_EPOCH_MS, rng=random.Random(f"{seed}:clock"))
        self.ids = SeededIds(random.Random(f"{seed}:ids"))
        self.projects: dict[str, Project] = {}
        self.cases: dict[str, str] = {}
        self.dead_pid = find_dead_pid(random.Random(f"{seed}:pid"))
        self.use_git = True

    def rng(self, name: str) -> random.Random:
        return random.Random(f"{self.seed}:{name}")

    def at(self, hours: float) -> None:
        self.clock.set(DEMO_EPOCH_MS + int(hours * HOUR))

    def agent(self, project: str, **kw) -> SimAgent:
        kw.setdefault("pid", self.dead_pid)  # a clean exit removes it; a kill leaves it stale
        return SimAgent(
            self.home,
            self.projects[project],
            clock=self.clock,
            ids=self.ids,
            rng=self.rng(f"a{len(self.cases)}:{project}:{self.clock.ms()}"),
            **kw,
        )

    # ---------------------------------------------------------------- projects

    def make_projects(self) -> None:
        r = self.rng("content")
        t = self.clock.ms() - 24 * HOUR
        pd = self.root / "projects"
        self.projects["webshop"] = create_project(
            pd,
            "webshop",
            {
                "README.md": C.WEBSHOP_README,
                "package.json": C.PACKAGE_JSON,
                "src/cart.ts": C.CART_TS,
                "src/checkout.ts": C.CHECKOUT_TS,
                "src/format.ts": C.FORMAT_TS,
                "src/styles.css": C.STYLES_CSS,
            },
            when_ms=t,
            use_git=self.use_git,
        )
        self.projects["pytool"] = create_project(
            pd,
            "pytool",
            {
                "pytool/__init__.py": "",
                "pytool/cli.py": C.PYTOOL_CLI,
                "pytool/util.py": C.pytool_util(r),
                "tests/test_util.py": C.PYTOOL_TEST,
                "config.ini": C.PYTOOL_CONFIG,
                "notes/todo.md": C.PYTOOL_TODO,
            },
            when_ms=t,
            use_git=self.use_git,
        )
        self.projects["notes"] = create_project(
            pd,
            "笔记 notes",
            {"周报.md": C.NOTES_WEEKLY, "会议.md": C.NOTES_MEETINGS},
            when_ms=t,
            use_git=False,
        )
        self.projects["datalab"] = create_project(
            pd,
            "datalab",
            {
                "data/readings.csv": C.datalab_csv(r),
                "config.yaml": C.DATALAB_CONFIG,
                "notes.txt": C.DATALAB_NOTES,
                "analyze.py": C.DATALAB_ANALYZE,
            },
            when_ms=t,
            use_git=self.use_git,
        )
        self.projects["oldproj"] = create_project(
            pd, "oldproj", {"main.go": C.OLDPROJ_MAIN}, when_ms=t, use_git=False
        )

    # ---------------------------------------------------------------- cases

    def clean(self) -> SimAgent:
        """Three turns, parallel reads and edits, todos, goal, effort; ends cleanly."""
        self.at(0)
        p = self.projects["webshop"]
        a = self.agent("webshop")
        sid = a.start()
        goal = {
            "id": self.ids.uuid(),
            "objective": "Checkout validates payment details and is documented",
            "status": "active",
            "tokensUsed": 0,
            "turnsUsed": 0,
            "maxTurns": 20,
            "createdAt": self.clock.ms(),
            "updatedAt": self.clock.ms(),
            "evidenceLog": [],
        }
        self._clean_first_turn(a, p, goal)
        self._clean_second_turn(a, p, goal)
        a.turn(
            "Make the error messages friendlier.",
            [
                (
                    None,
                    [
                        edit(
                            p,
                            "src/checkout.ts",
                            '"card number must be 16 digits"',
                            '"Please enter the 16-digit number on the front of your card."',
                        )
                    ],
                )
            ],
            "Updated the card number message.",
        )
        a.end()
        self.cases["clean"] = sid
        self.cases["goal_state"] = sid
        return a

    def _clean_first_turn(self, a: SimAgent, p: Project, goal: dict) -> None:
        """Reads, then edits in parallel, todos and a check; the goal set."""
        a.turn(
            "Checkout accepts any card. Validate the card number and expiry in src/checkout.ts and document the rule in the README.",
            [
                (
                    "I'll read the checkout code, the cart and the README first.",
                    [read(p, "src/checkout.ts"), read(p, "src/cart.ts"), read(p, "README.md")],
                ),
                (
                    "Adding the validation and a README section.",
                    [
                        edit(
                            p,
                            "src/checkout.ts",
                            "  // TODO: validate payment\n",
                            '  if (!/^\\d{16}$/.test(payment.card)) return { ok: false, error: "card number must be 16 digits" };\n'
                            '  if (!/^\\d{2}\\/\\d{2}$/.test(payment.expiry)) return { ok: false, error: "expiry must be MM/YY" };\n',
                        ),
                        edit(
                            p,
                            "README.md",
                            "## Releasing\n",
                            "## Payment validation\n\nCard numbers must be 16 digits and the expiry `MM/YY`.\n\n## Releasing\n",
                        ),
                    ],
                ),
                (
                    "Tracking what is left.",
                    [
                        todo_write(
                            [
                                (
                                    "Validate card and expiry",
                                    "Validating card and expiry",
                                    "completed",
                                ),
                                ("Document the rule", "Documenting the rule", "completed"),
                                ("Add unit tests", "Adding unit tests", "pending"),
                            ]
                        )
                    ],
                ),
                (
                    "Quick sanity check.",
                    [
                        bash(
                            "grep -c 'ok: false' src/checkout.ts",
                            output="3",
                            description="count checks",
                        )
                    ],
                ),
            ],
            "Done: `checkout` now rejects malformed card numbers and expiry dates, and the README documents the rule.",
            thinking="The user wants payment validation. Read checkout.ts, cart.ts and the README to see the shape first.",
            agent_setting={"model": a.model, "effortLevel": "high", "thinking": True},
            goal=goal,
        )

    def _clean_second_turn(self, a: SimAgent, p: Project, goal: dict) -> None:
        """A new test file and an edit in one batch; the goal complete, the session named."""
        a.turn(
            "Add a unit test file for checkout and make formatCents handle negative amounts.",
            [
                (
                    None,
                    [
                        write(
                            p,
                            "src/checkout.test.ts",
                            'import { test } from "node:test";\nimport assert from "node:assert";\nimport { Cart } from "./cart";\nimport { checkout } from "./checkout";\n\n'
                            'test("rejects short card", () => {\n  const r = checkout(new Cart(), { card: "123", expiry: "01/30" });\n  assert.equal(r.ok, false);\n});\n',
                        ),
                        edit(
                            p,
                            "src/format.ts",
                            '  return "$" + (cents / 100).toFixed(2);',
                            '  const sign = cents < 0 ? "-" : "";\n  return sign + "$" + (Math.abs(cents) / 100).toFixed(2);',
                        ),
                    ],
                ),
                (
                    None,
                    [
                        todo_write(
                            [
                                (
                                    "Validate card and expiry",
                                    "Validating card and expiry",
                                    "completed",
                                ),
                                ("Document the rule", "Documenting the rule", "completed"),
                                ("Add unit tests", "Adding unit tests", "completed"),
                            ]
                        )
                    ],
                ),
            ],
            "Added `src/checkout.test.ts` and negative amounts now format as `-$1.00`.",
            thinking="Two independent changes: one new file, one edit. One batch.",
            goal={
                **goal,
                "status": "complete",
                "tokensUsed": 18234,
                "turnsUsed": 2,
                "updatedAt": self.clock.ms() + 1,
                "evidenceLog": [
                    {
                        "turn": 2,
                        "timestamp": self.clock.ms(),
                        "type": "file_change",
                        "summary": "checkout.test.ts created",
                    }
                ],
                "lastEvalReason": "tests and docs present",
            },
            name="Checkout payment validation",
            summary="Validated card number and expiry in checkout, documented the rule, added tests.",
        )

    def interrupted_prompt(self) -> None:
        """A prompt with no reply (Ctrl+C), then ``session_end``; permission mode changed."""
        self.at(3)
        p = self.projects["webshop"]
        a = self.agent("webshop", cwd=str(p.root / "src"))
        sid = a.start()
        a.turn(
            "What does Cart.summary print for an empty cart?",
            [(None, [read(p, "src/cart.ts")])],
            "It prints `0 items, $0.00`.",
        )
        a.permission_mode = "acceptEdits"
        a.prompt("Change it to say 'Your cart is empty' instead.")
        a.end()
        self.cases["interrupted_prompt"] = sid

    def interrupted_turn(self) -> None:
        """Headless, deepseek: two parallel bash results written, then exit(3)."""
        self.at(4)
        a = self.agent("pytool", model="deepseek-chat", kind="headless")
        sid = a.start()
        a.prompt("Run the tests and show me the config.")
        calls = [
            bash("python -m pytest -q", output="..\n2 passed in 0.02s"),
            bash("head -3 config.ini", output="[server]\r\nhost = localhost\r\nport = 8080"),
        ]
        a.say("Running both.", calls)
        a.execute(calls)
        a.exit()
        self.cases["interrupted_turn"] = sid

    def killed(self) -> None:
        """SIGKILL mid-turn: the edit landed, file_changes and the result did not."""
        self.at(5)
        p = self.projects["webshop"]
        a = self.agent("webshop", model="claude-opus-4-7", pid=self.dead_pid)
        sid = a.start()
        a.turn(
            "Make the cart border a bit darker.",
            [
                (
                    None,
                    [
                        edit(
                            p,
                            "src/styles.css",
                            "border: 1px solid #ddd;",
                            "border: 1px solid #bbb;",
                        )
                    ],
                )
            ],
            "Done, the border is now #bbb.",
        )
        a.prompt("And make the button green.")
        a.intents.declare(p.path("README.md"), "read", self.clock.ms())
        calls = [edit(p, "src/styles.css", "background: #0a66c2;", "background: #2e7d32;")]
        a.say(None, calls, thinking="Change the .button background to a green.")
        a.execute(calls, lose_results=True)
        a.killed()
        self.cases["killed"] = sid
        self.cases["stale_registration"] = sid
        self.cases["expired_intent"] = sid

    def resumed(self) -> None:
        """Three processes in one file: each resume writes trace_session_id and session_end."""
        self.at(6)
        p = self.projects["pytool"]
        a = self.agent("pytool")
        sid = a.start()
        a.turn(
            "Add a --version flag to the CLI.",
            [
                (
                    None,
                    [
                        edit(
                            p,
                            "pytool/cli.py",
                            '    parser.add_argument("command"',
                            '    parser.add_argument("--version", action="version", version="0.1")\n    parser.add_argument("command"',
                        )
                    ],
                )
            ],
            "Added `--version`.",
        )
        a.end()
        self.clock.advance(2 * HOUR)
        b = self.agent("pytool")
        b.adopt(a)
        b.resume(sid)
        b.turn(
            "Tick off the json flag in the todo notes.",
            [
                (
                    None,
                    [
                        edit(
                            p, "notes/todo.md", "- [ ] add a --json flag", "- [x] add a --json flag"
                        )
                    ],
                )
            ],
            "Ticked.",
        )
        b.end()
        self.clock.advance(HOUR)
        c = self.agent("pytool")
        c.adopt(b)
        c.resume(sid)
        c.turn(
            "What is left in the todo list?",
            [(None, [read(p, "notes/todo.md")])],
            "Only `release 0.2` is left.",
        )
        c.end()
        self.cases["resumed"] = sid

    def fork(self, src: SimAgent) -> None:
        """A fork of the clean session: inherited checkpoints, then one more edit."""
        self.at(9)
        p = self.projects["webshop"]
        a = self.agent("webshop")
        tail = src.store.last_uuid
        sid = a.fork_from(src, tail)
        a.turn(
            "In this copy, try a 19-digit card limit instead.",
            [(None, [edit(p, "src/checkout.ts", "^\\d{16}$", "^\\d{16,19}$")])],
            "Cards with 16 to 19 digits are now accepted.",
        )
        a.end()
        self.cases["fork"] = sid

    def concurrent(self) -> None:
        """Two processes resume the same session at once: two tips, the last writer wins."""
        self.at(10)
        p = self.projects["pytool"]
        a0 = self.agent("pytool")
        sid = a0.start()
        a0.turn(
            "Explain word_count.",
            [(None, [grep("def word_count", "pytool")])],
            "It splits on whitespace and counts the parts.",
        )
        a0.end()
        self.clock.advance(HOUR)
        procs = [self.agent("pytool"), self.agent("pytool")]
        for proc in procs:
            proc.adopt(a0)
            proc.resume(sid)
        asks = [
            (
                "[A] Add a docstring to slugify.",
                "Docstring added.",
                (
                    "pytool/util.py",
                    "def slugify(text):\n",
                    'def slugify(text):\n    """Lowercase, dashes between words."""\n',
                ),
            ),
            (
                "[B] Set the log level to debug.",
                "Log level is now debug.",
                ("config.ini", "level = info", "level = debug"),
            ),
            (
                "[A] Now count words in the README too.",
                "There is no README in pytool; nothing to count.",
                None,
            ),
            (
                "[B] Bump the port to 9090.",
                "Port is now 9090.",
                ("config.ini", "port = 8080", "port = 9090"),
            ),
        ]
        for n, (ask, answer, change) in enumerate(asks):
            proc = procs[n % 2]
            steps = [(None, [edit(p, *change)])] if change else []
            proc.turn(ask, steps, answer)
        for proc in procs:
            proc.end()
        self.cases["concurrent"] = sid

    def rewind(self) -> None:
        """Three prompts, then a conversation rewind to prompt 2 (an append-only marker)."""
        self.at(12)
        p = self.projects["webshop"]
        a = self.agent("webshop")
        sid = a.start()
        a.turn(
            "Rename formatDate to formatDay.",
            [(None, [edit(p, "src/format.ts", "formatDate", "formatDay")])],
            "Renamed.",
        )
        a.turn(
            "Add a formatPercent helper.",
            [
                (
                    None,
                    [
                        edit(
                            p,
                            "src/format.ts",
                            "export function formatDay",
                            'export function formatPercent(x: number): string {\n  return (x * 100).toFixed(1) + "%";\n}\n\nexport function formatDay',
                        )
                    ],
                )
            ],
            "Added `formatPercent`.",
        )
        a.turn(
            "Actually use Intl.NumberFormat for it.",
            [],
            "Switched to `Intl.NumberFormat` (no file change needed yet).",
        )
        a.end()
        # The marker hangs off the record before prompt 2 (FORMAT.md §11.4); written through the store.
        prompt_uuid, before, index = a.prompt_points[1]
        self.clock.advance(20 * 60_000)
        store = SessionStore(a.session_dir, clock=self.clock.iso, uuid_factory=self.ids.uuid)
        store.resume(a.path)
        abandoned = store.last_uuid
        store.last_uuid = before
        store.append_metadata(
            "rewind",
            {
                "toPoint": 2,
                "mode": "conversation",
                "promptUuid": prompt_uuid,
                "abandonedTip": abandoned,
                "messagesDropped": len(a.transcript) - index,
                "by": "sidtui",
            },
        )
        store.flush()
        self.cases["rewind"] = sid

    def sidechains(self) -> None:
        """Two parallel sub-agents (completed, failed); a third killed with the parent."""
        self.at(14)
        p = self.projects["webshop"]
        a = self.agent("webshop", pid=self.dead_pid)
        sid = a.start()
        ok = SubAgentPlan(
            "Explore",
            "Security review of checkout.ts",
            "Review src/checkout.ts for security issues. Report findings only.",
            steps=[
                (
                    "Reading checkout.ts.",
                    "read",
                    {"file_path": p.path("src/checkout.ts")},
                    '1\timport { Cart } from "./cart";',
                )
            ],
            final="No secrets or injection risks; card numbers are never logged.",
        )
        bad = SubAgentPlan(
            "general-purpose",
            "Check README for stale docs",
            "Compare README.md with src/ and list stale sections.",
            steps=[("Listing src.", "bash", {"command": "ls src"}, "bash: permission denied")],
            final="tool permission denied",
            status="failed",
        )
        a.turn(
            "Audit the repo: one agent reviews checkout security, another checks the README for stale docs.",
            [("Dispatching two sub-agents in parallel.", [sub_agent(ok), sub_agent(bad)])],
            "Security review is clean; the docs agent failed (permission denied). I'll retry it next.",
        )
        a.prompt("Retry the README check.")
        killed = SubAgentPlan(
            "Explore",
            "README staleness check (retry)",
            "Compare README.md with src/; list stale sections.",
            steps=[
                (
                    "Listing src.",
                    "glob",
                    {"pattern": "src/*.ts"},
                    "\n".join(p.path(f"src/{n}") for n in ("cart.ts", "checkout.ts", "format.ts")),
                )
            ],
            status=None,
        )
        calls = [sub_agent(killed)]
        a.say("Retrying with a read-only agent.", calls)
        a.execute(calls, lose_results=True)
        a.killed()
        # A later process resumes it.
        self.clock.advance(HOUR)
        b = self.agent("webshop")
        b.adopt(a)
        b.resume(sid)
        b.turn(
            "The last run was killed. What did the README check find before it died?",
            [],
            "It had listed src/ and found three modules; it was killed before comparing them with the README.",
        )
        b.end()
        # The killed process's registration stays; drop it (the stale case is `killed`).
        from sidtui.demo.registry import unregister

        unregister(self.home, sid)
        if a.intents is not None:
            a.intents.remove()
        self.cases["sidechains"] = sid

    def compact(self) -> None:
        """Chinese notes (non-ASCII project path): redacted thinking, context_compact,
        a thinking-only assistant message, a summaries/ file."""
        self.at(16)
        p = self.projects["notes"]
        a = self.agent("notes", model="claude-opus-4-7")
        sid = a.start()
        a.turn(
            "把周报按项目整理一下，每个项目下按完成/计划分组。",
            [(None, [read(p, "周报.md")])],
            "周报已经按项目分组了，我只需要把计划项单独列出来。",
        )
        a.prompt("好的，直接改吧。")
        calls = [
            write(
                p,
                "周报.md",
                C.NOTES_WEEKLY.replace(
                    "- 下周计划：灰度发布 10%\n", "\n### 计划\n- 灰度发布 10%\n"
                ),
            )
        ]
        a.say("改好了结构。", calls, redacted=True)
        a.execute(calls)
        a.say("已把计划项单独列为「计划」小节。")
        a.end_turn()
        for q, ans in (
            ("本周每天有什么会？", "只有周一的例会和周三的技术评审。"),
            ("周三的评审结论是什么？", "先用本地缓存，之后再评估 Redis。"),
        ):
            a.turn(q, [(None, [read(p, "会议.md")])], ans)
        a.clock.step()
        a.store.append_compact(
            "用户在整理周报（已按项目分组）并询问了本周的会议安排；会议记录只有周一和周三。", 10
        )
        a.say(None, thinking="上下文已压缩，继续回答。", redacted=True)
        a.turn(
            "统计一下周报里一共有几条。",
            [],
            "一共 6 条：项目 A 2 条，项目 B 2 条，杂项 2 条。",
            name="整理周报",
        )
        a.end()
        write_summary(
            a.session_dir,
            sid,
            "整理周报并按项目分组；询问会议安排；统计周报条目。",
            a.model,
            a.provider,
            iso_ms(self.clock.ms()),
            a.messages,
            5120,
        )
        self.cases["context_compact"] = sid
        self.cases["non_ascii_project"] = sid

    def checkpoints(self) -> str:
        """Many edits with max 4 entries per file: gzip fulls, diffs, re-anchoring, a
        delete and re-create (``existedBefore: false``)."""
        self.at(18)
        p = self.projects["datalab"]
        r = self.rng("datalab")
        a = self.agent("datalab", max_per_file=4)
        sid = a.start()
        a.turn(
            "Read the config and the data.",
            [(None, [read(p, "config.yaml"), read(p, "data/readings.csv"), glob("**/*.py")])],
            "The threshold is 30 °C and there are 80 readings.",
        )
        for i in range(1, 7):
            row = f"{80 + i},Oslo,{r.randint(-5, 35)},{r.randint(20, 95)}\n"
            calls = [
                bash(
                    f"echo '{row.strip()}' >> data/readings.csv",
                    affects=["data/readings.csv"],
                    effect=("append", "data/readings.csv", row),
                )
            ]
            if i % 2 == 0:
                # 30 → 32 → 34 → 36
                calls.append(edit(p, "config.yaml", f"threshold: {28 + i}", f"threshold: {30 + i}"))
            a.turn(
                f"Add reading #{80 + i} and adjust the threshold if needed.",
                [(None, calls)],
                f"Reading {80 + i} added.",
            )
        a.turn(
            "Replace notes.txt with a fresh log, and remove analyze.py for now.",
            [
                (
                    None,
                    [
                        write(p, "notes.txt", "Run log\n=======\n\nRun 2: six new readings.\n"),
                        bash("rm analyze.py", affects=["analyze.py"], effect=("rm", "analyze.py")),
                    ],
                )
            ],
            "Done.",
        )
        a.turn(
            "Bring analyze.py back.",
            [(None, [write(p, "analyze.py", C.DATALAB_ANALYZE)])],
            "Restored analyze.py.",
        )
        a.end()
        self.cases["checkpoints"] = sid
        self.cases["reanchored"] = sid
        return sid

    def evicted_base(self) -> None:
        """An index whose full base was dropped without re-anchoring: unrecoverable diff."""
        self.at(20)
        p = self.projects["datalab"]
        a = self.agent("datalab")
        sid = a.start()
        for n in (1, 2, 3):
            a.turn(
                f"Append run {n + 2} to notes.txt.",
                [
                    (
                        None,
                        [
                            edit(
                                p,
                                "notes.txt",
                                "six new readings.\n" if n == 1 else f"Run {n + 1}.\n",
                                ("six new readings.\n" if n == 1 else f"Run {n + 1}.\n")
                                + f"Run {n + 2}.\n",
                            )
                        ],
                    )
                ],
                "Appended.",
            )
        a.end()
        crafted.evict_base_without_reanchor(self.home.checkpoint_index(sid), p.path("notes.txt"))
        self.cases["evicted_base"] = sid

    def lone_surrogate(self) -> None:
        """A tool output cut inside an emoji: a lone ``\\ud83d`` escape (valid for JSON.parse)."""
        self.at(21)
        a = self.agent("notes")
        sid = a.start()
        cut = "🎉 发布完成 🎉 用户反馈：“很好用 👍”"  # cut after the first UTF-16 unit of 👍
        out = cut[:-2] + "\ud83d"
        calls = [bash("tail -c 60 release.log", output=out)]
        a.turn(
            "看一下发布日志的最后几行。",
            [(None, calls)],
            "发布已完成，日志末尾的表情被截断了一半。",
        )
        a.exit()
        self.cases["lone_surrogate"] = sid

    def half_line(self) -> None:
        """A killed session whose last record was half written (no final newline)."""
        self.at(22)
        p = self.projects["pytool"]
        a = self.agent("pytool")
        sid = a.start()
        a.turn(
            "Add a test for slugify with accents.",
            [
                (
                    None,
                    [
                        edit(
                            p,
                            "tests/test_util.py",
                            "def test_word_count",
                            'def test_slugify_accents():\n    assert slugify("Crème brûlée") == "cr-me-br-l-e"\n\n\ndef test_word_count',
                        )
                    ],
                )
            ],
            "Added the test; accents are dropped by the current regex.",
        )
        a.killed()
        a.exit()
        crafted.truncate_last_line(a.path)
        self.cases["half_line"] = sid

    def cycle(self) -> None:
        self.at(23)
        p = self.projects["datalab"]
        sid = self.ids.session_id(self.clock)
        path = self.home.sessions_dir / p.key / f"{sid}.jsonl"
        crafted.write_cycle_session(
            path,
            session_id=sid,
            clock=self.clock,
            ids=self.ids,
            cwd=str(p.root),
            model="claude-sonnet-4-6",
        )
        self.cases["cycle"] = sid

    def torn_glued(self) -> None:
        """S16: torn session_end, then a resume glued onto it: the agent loads nothing."""
        self.at(24)
        p = self.projects["oldproj"]
        a = self.agent("oldproj")
        sid = a.start()
        a.turn("What does main.go print?", [(None, [read(p, "main.go")])], "It prints `hi`.")
        a.turn(
            "Make it print the time too.",
            [(None, [edit(p, "main.go", 'fmt.Println("hi")', 'fmt.Println("hi", time.Now())')])],
            "Done (remember to import time).",
        )
        a.end()
        crafted.truncate_last_line(a.path, 0.7)
        crafted.glue_resume(
            a.path,
            clock=self.clock,
            ids=self.ids,
            process_id=self.ids.session_id(self.clock),
            cwd=str(p.root),
            model=a.model,
            prompt="Continue after the crash.",
            answer="Picking up: main.go still needs the time import.",
        )
        self.cases["torn_glued"] = sid

    def reused_id(self) -> None:
        """``--session-id`` reused: a second ``session_start`` with a null parent."""
        self.at(25)
        p = self.projects["oldproj"]
        a = self.agent("oldproj")
        sid = a.start()
        a.turn("Say hello.", [], "Hello!")
        a.end()
        self.clock.advance(HOUR)
        b = self.agent("oldproj")
        b.start(session_id=sid)
        b.turn(
            "Add a newline at the end of main.go output.",
            [(None, [edit(p, "main.go", 'fmt.Println("hi"', 'fmt.Print("hi\\n"')])],
            "Done.",
        )
        b.end()
        self.cases["reused_id"] = sid

    def legacy(self) -> None:
        """v1 whole-JSON sessions, a v2 JSONL, a flat no-cwd v2 in ``_legacy``, a legacy
        checkpoint index."""
        p = self.projects["oldproj"]
        folder = self.home.sessions_dir / p.key
        v1_id = "20260301-101010-1111aaaa"
        main_go = p.path("main.go")
        self._legacy_v1(p, folder, v1_id, main_go)
        v2_id = self._legacy_v2(p, folder)
        self.cases["legacy_v1"] = v1_id
        self.cases["legacy_v1_no_version"] = "8f3c2a1b"
        self.cases["legacy_checkpoints"] = v1_id
        self.cases["legacy_v2"] = v2_id
        self.cases["legacy_flat"] = "5d2e9f01"

    def _legacy_v1(self, p: Project, folder: Path, v1_id: str, main_go: str) -> None:
        """Two v1 whole-JSON sessions (one without a version) and a legacy checkpoint index."""
        crafted.write_v1_session(
            folder / f"{v1_id}.json",
            {
                "version": "1.0",
                "id": v1_id,
                "model": "claude-sonnet-4-20250514",
                "provider": "anthropic",
                "messages": [
                    {
                        "role": "user",
                        "content": [{"type": "text", "text": "Add a comment to main.go"}],
                    },
                    {
                        "role": "assistant",
                        "content": [
                            {
                                "type": "tool_use",
                                "id": "toolu_01V1bbbbbbbbbbbbbbbbbbbb",
                                "name": "edit",
                                "input": {
                                    "file_path": main_go,
                                    "old_string": "func main() {",
                                    "new_string": "// entry point\nfunc main() {",
                                },
                            }
                        ],
                    },
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": "toolu_01V1bbbbbbbbbbbbbbbbbbbb",
                                "content": f"文件已编辑: {main_go}（替换了 1 处）",
                            }
                        ],
                    },
                    {"role": "assistant", "content": [{"type": "text", "text": "Comment added."}]},
                ],
                "createdAt": "2026-03-01T02:10:10.000Z",
                "updatedAt": "2026-03-01T02:11:40.000Z",
                "directories": [str(p.root)],
            },
        )
        crafted.write_legacy_checkpoints(
            self.home.checkpoint_index(v1_id),
            v1_id,
            1772331010000,
            {
                main_go: [
                    {
                        "filePath": main_go,
                        "timestamp": 1772331030000,
                        "type": "full",
                        "content": C.OLDPROJ_MAIN,
                    }
                ]
            },
        )
        crafted.write_v1_session(
            folder / "8f3c2a1b.json",
            {
                "id": "8f3c2a1b",
                "model": "deepseek-chat",
                "provider": "deepseek",
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "hello"}]},
                    {
                        "role": "assistant",
                        "content": [{"type": "text", "text": "Hi! How can I help?"}],
                    },
                ],
                "createdAt": "2026-02-11T09:00:00.000Z",
                "updatedAt": "2026-02-11T09:00:30.000Z",
            },
        )

    def _legacy_v2(self, p: Project, folder: Path) -> str:
        """A v2 JSONL session and a flat one without a cwd in ``_legacy``; the v2 id."""
        v2_id = "20260302-161500-0a1b2c3d"
        tool = "toolu_01V2aaaaaaaaaaaaaaaaaaaa"
        crafted.write_v2_session(
            folder / f"{v2_id}.jsonl",
            [
                {
                    "type": "session_start",
                    "sessionId": v2_id,
                    "model": "claude-sonnet-4-5-20250514",
                    "provider": "anthropic",
                    "cwd": str(p.root),
                    "timestamp": "2026-03-02T08:15:00.000Z",
                },
                {
                    "type": "user_message",
                    "message": {
                        "role": "user",
                        "content": [{"type": "text", "text": "Is main.go runnable?"}],
                    },
                    "timestamp": "2026-03-02T08:15:05.000Z",
                },
                {
                    "type": "assistant_message",
                    "message": {
                        "role": "assistant",
                        "content": [
                            {"type": "text", "text": "Checking."},
                            {
                                "type": "tool_use",
                                "id": tool,
                                "name": "bash",
                                "input": {"command": "go run ."},
                            },
                        ],
                    },
                    "timestamp": "2026-03-02T08:15:09.000Z",
                },
                {
                    "type": "user_message",
                    "message": {
                        "role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": tool, "content": "hi"}],
                    },
                    "timestamp": "2026-03-02T08:15:12.000Z",
                },
                {
                    "type": "assistant_message",
                    "message": {
                        "role": "assistant",
                        "content": [{"type": "text", "text": "Yes, it runs and prints `hi`."}],
                    },
                    "timestamp": "2026-03-02T08:15:15.000Z",
                },
                {
                    "type": "metadata",
                    "key": "session_name",
                    "value": "v2 runnable check",
                    "timestamp": "2026-03-02T08:15:16.000Z",
                },
                {
                    "type": "session_end",
                    "totalCostUSD": 0.0123,
                    "totalMessages": 4,
                    "timestamp": "2026-03-02T08:15:20.000Z",
                },
            ],
            torn_tail='{"type":"user_message","message":{"role":"user","content":[{"type":"te',
        )
        legacy = self.home.sessions_dir / "_legacy"
        crafted.write_v2_session(
            legacy / "5d2e9f01.jsonl",
            [
                {
                    "type": "session_start",
                    "sessionId": "5d2e9f01",
                    "model": "deepseek-chat",
                    "provider": "deepseek",
                    "timestamp": "2026-02-15T01:30:00.000Z",
                },
                {
                    "type": "user_message",
                    "message": {"role": "user", "content": [{"type": "text", "text": "ping"}]},
                    "timestamp": "2026-02-15T01:30:03.000Z",
                },
                {
                    "type": "assistant_message",
                    "message": {"role": "assistant", "content": [{"type": "text", "text": "pong"}]},
                    "timestamp": "2026-02-15T01:30:04.000Z",
                },
                {
                    "type": "session_end",
                    "totalCostUSD": 0,
                    "totalMessages": 2,
                    "timestamp": "2026-02-15T01:30:06.000Z",
                },
            ],
        )
        return v2_id

    def long_session(self) -> None:
        """A working session shaped like a typical real one: few prompts, many tool
        batches (most user records are tool results), one batch of 8 parallel reads."""
        self.at(25.5)
        p = self.projects["pytool"]
        r = self.rng("long")
        a = self.agent("pytool")
        sid = a.start()
        a.prompt(
            "Use casefold() instead of lower() in every helper in util.py, run the tests after each few, and keep a todo list."
        )
        eight = [
            read(p, f)
            for f in (
                "pytool/util.py",
                "pytool/cli.py",
                "pytool/__init__.py",
                "tests/test_util.py",
                "config.ini",
                "notes/todo.md",
            )
        ]
        eight += [grep("lower()", "pytool"), glob("**/*.py")]
        a.say(
            "Surveying the package first.",
            eight,
            thinking="Read everything relevant at once, then edit helper by helper.",
        )
        a.execute(eight)
        todos = [
            (f"Convert helper_{i}", f"Converting helper_{i}", "pending") for i in range(0, 12, 3)
        ]
        a.turn(None, [(None, [todo_write(todos)])], None)
        for block in range(4):
            for i in range(block * 3, block * 3 + 3):
                old = f'({i})."""\n    return str(value).strip().lower()'
                calls = [edit(p, "pytool/util.py", old, old.replace("lower()", "casefold()"))]
                if r.random() < 0.5:
                    calls.append(read(p, "tests/test_util.py"))
                a.say(f"helper_{i}.", calls)
                a.execute(calls)
            test = [
                bash(
                    "python -m pytest -q",
                    output=f"{'.' * (2 + block)}\n{2 + block} passed in 0.0{block + 2}s",
                )
            ]
            a.say("Running the tests.", test)
            a.execute(test)
            todos[block] = (todos[block][0], todos[block][1], "completed")
            a.turn(None, [(None, [todo_write(todos)])], None)
        a.say("All twelve helpers now use `casefold()`; tests pass after every group of three.")
        a.end_turn(name="casefold helpers")
        a.turn(
            "Any other lower() left?",
            [(None, [grep("lower()", ".")])],
            "Only `slugify` still uses `lower()`, which is intended for ASCII slugs.",
        )
        a.exit()
        self.cases["long_session"] = sid

    def filler(self) -> None:
        """Everyday sessions so the browser looks lived in (a third end cleanly, FORMAT.md §3.8)."""
        r = self.rng("filler")
        asks = [
            (
                "pytool",
                "Why does slugify keep leading dashes?",
                [("pytool/util.py",)],
                'It strips them: `.strip("-")` runs last.',
            ),
            (
                "webshop",
                "Is there any floating point money math left?",
                [],
                "No: every amount is in integer cents.",
            ),
            (
                "datalab",
                "Which city is hottest on average?",
                [("data/readings.csv",)],
                "Quito, by a small margin.",
            ),
            (
                "pytool",
                "Add a py.typed marker.",
                "write:pytool/py.typed",
                "Added `pytool/py.typed`.",
            ),
            ("webshop", "Tighten the button padding.", "edit:src/styles.css", "Padding reduced."),
            (
                "notes",
                "会议记录里周三讨论了什么？",
                [("会议.md",)],
                "缓存方案：先本地缓存，再评估 Redis。",
            ),
        ]
        for n, (proj, ask, work, answer) in enumerate(asks):
            self.at(26 + n * 1.5)
            p = self.projects[proj]
            a = self.agent(
                proj, model=r.choice(["claude-sonnet-4-6", "claude-sonnet-4-6", "claude-haiku-4-5"])
            )
            sid = a.start()
            steps = []
            if isinstance(work, list) and work:
                steps = [(None, [read(p, w[0]) for w in work])]
            elif isinstance(work, str) and work.startswith("write:"):
                steps = [(None, [write(p, work[6:], "")])]
            elif isinstance(work, str) and work.startswith("edit:"):
                steps = [
                    (
                        None,
                        [
                            edit(
                                p,
                                work[5:],
                                "  color: white;\n",
                                "  color: white;\n  padding: 0.25rem 0.5rem;\n",
                            )
                        ],
                    )
                ]
            a.turn(ask, steps, answer)
            if isinstance(work, str) and work.startswith("edit:"):
                a.turn(
                    "And round the card corners.",
                    [
                        (
                            None,
                            [
                                edit(
                                    p,
                                    "src/styles.css",
                                    "  border-radius: 0.5rem;\n",
                                    "  border-radius: 0.75rem;\n",
                                )
                            ],
                        )
                    ],
                    "Corners are rounder now.",
                )
                a.turn(
                    "Make the footer text a little lighter.",
                    [(None, [edit(p, "src/styles.css", "  color: #666;\n", "  color: #888;\n")])],
                    "Footer text is now #888.",
                )
            if isinstance(work, str) and work.startswith("write:"):
                a.turn(
                    "Also note the marker in the todo file.",
                    [
                        (
                            None,
                            [
                                edit(
                                    p,
                                    "notes/todo.md",
                                    "- [ ] release 0.2",
                                    "- [ ] release 0.2\n- [x] ship py.typed",
                                )
                            ],
                        )
                    ],
                    "Noted.",
                )
                a.turn(
                    "And tick the release item.",
                    [(None, [edit(p, "notes/todo.md", "- [ ] release 0.2", "- [x] release 0.2")])],
                    "Ticked.",
                )
            if n % 3 == 0:
                a.end()
            else:
                a.exit()
            self.cases.setdefault("filler", sid)


def _set_mtimes(home: Home) -> None:
    """Give session files and checkpoint indexes the mtime of their last write on the fake
    clock, so "most recent" (the agent's ``-c``) and age-based views see the simulated
    timeline rather than the build time, and so do repeated builds."""
    from datetime import datetime

    from sidtui.core.transcript.scan import scan_records

    def stamp(text: object) -> float | None:
        if not isinstance(text, str):
            return None
        try:
            return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None

    for p in home.sessions_dir.rglob("*"):
        if not p.is_file() or p.parent.name == "summaries":
            continue
        data = p.read_bytes()
        when = None
        if p.suffix == ".jsonl":
            rf = scan_records(data)
            for rec in reversed(rf.records):
                obj = rf.decode(rec)
                when = stamp(obj.get("timestamp")) if isinstance(obj, dict) else None
                if when is not None:
                    break
        else:
            import orjson

            try:
                when = stamp(orjson.loads(data).get("updatedAt"))
            except (orjson.JSONDecodeError, AttributeError):
                when = None
        if when is not None:
            os.utime(p, (when, when))
    for p in home.checkpoints_dir.glob("*/index.json"):
        import orjson

        d = orjson.loads(p.read_bytes())
        times = [
            s.get("timestamp")
            for s in d.get("snapshots", [])
            if isinstance(s.get("timestamp"), int)
        ]
        when = (max(times) if times else d.get("createdAt")) or None
        if isinstance(when, int):
            os.utime(p, (when / 1000, when / 1000))


#: The folders under ``projects/`` the demo makes (``live-app`` only with ``--live``).
DEMO_PROJECTS = ("webshop", "pytool", "笔记 notes", "datalab", "oldproj", "live-app")


def check_demo_root(root: str | os.PathLike[str]) -> None:
    """Refuse a demo folder so deep that a project's key is longer than a folder name.

    The agent names a project's session folder after the project's whole path and cannot
    make it past 255 bytes (FORMAT.md §1.3): a demo built there would be one the agent
    could never have written.

    Raises:
        ProjectKeyTooLong: one of :data:`DEMO_PROJECTS` would have such a key.
    """
    projects = Path(root).absolute() / "projects"
    for name in DEMO_PROJECTS:
        check_key_fits(projects / name)


def build_demo_home(
    root: str | os.PathLike[str], seed: int = 0, *, use_git: bool = True, claude: bool = True
) -> DemoHome:
    """Build the demo home and projects under ``root`` (created; must be empty or absent).

    Args:
        root: the demo folder; ``root/home`` is the agent home, ``root/projects`` the
            scratch projects.
        seed: the seed: same seed ⇒ same bytes (apart from PIDs, and absolute paths when
            built elsewhere).
        use_git: make projects git repositories when git is on PATH.
        claude: also write the Claude Code home ``root/claude`` and its projects
            ``root/claude-projects`` (:func:`sidtui.demo.claude.build_claude_demo`); the
            sid-code home is the same bytes either way.

    Returns:
        A :class:`DemoHome` (``cases``: planned case → session id).

    Raises:
        FileExistsError: ``root`` exists and is not empty.
        ProjectKeyTooLong: ``root`` is so deep that a project's key is longer than a folder
            name (:func:`check_demo_root`); nothing is written.
        OSError: a file cannot be written.
    """
    rootp = Path(root).absolute()
    check_demo_root(rootp)
    if rootp.exists() and any(rootp.iterdir()):
        raise FileExistsError(f"{rootp} is not empty")
    rootp.mkdir(parents=True, exist_ok=True)
    b = _Builder(rootp, seed)
    b.use_git = use_git
    b.make_projects()
    for p in b.projects.values():  # the empty summaries/ dirs the store creates
        (b.home.sessions_dir / p.key / "summaries").mkdir(parents=True, exist_ok=True)
    (b.home.sessions_dir / "summaries").mkdir(parents=True, exist_ok=True)
    src = b.clean()
    b.interrupted_prompt()
    b.interrupted_turn()
    b.killed()
    b.resumed()
    b.fork(src)
    b.concurrent()
    b.rewind()
    b.sidechains()
    b.compact()
    b.checkpoints()
    b.evicted_base()
    b.lone_surrogate()
    b.half_line()
    b.cycle()
    b.torn_glued()
    b.reused_id()
    b.long_session()
    b.legacy()
    b.filler()
    flush_pending_writes()
    _set_mtimes(b.home)
    demo = DemoHome(rootp, b.home.root, b.projects, b.cases, b.dead_pid, seed)
    if claude:
        from sidtui.demo.claude import build_claude_demo

        cc = build_claude_demo(rootp, seed, use_git=use_git)
        demo.claude_home, demo.claude_cases = cc.home, cc.cases
        from sidtui.demo.codex import build_codex_demo

        cx = build_codex_demo(rootp, seed)
        demo.codex_home, demo.codex_cases = cx.home, cx.cases
    return demo


def remove_demo(root: Path) -> None:
    """Delete a demo folder (used by tests and ``--dir`` reuse)."""
    shutil.rmtree(root, ignore_errors=True)


__all__ = ["DemoHome", "build_demo_home", "find_dead_pid", "project_key"]

"""The simulated agent: a scripted LLM driving sidtui's own writers.

Design notes: docs/ARCHITECTURE.md, “demo/agent.py”.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sidtui.core.base.home import Home
from sidtui.core.base.jsonout import stringify
from sidtui.core.checkpoints.diff import edit_hunks
from sidtui.core.checkpoints.manager import CheckpointManager
from sidtui.core.transcript.writer import SessionStore, SidechainWriter, flush_pending_writes
from sidtui.demo import registry
from sidtui.demo.clock import SeededIds, SimClock
from sidtui.demo.projects import Project

# USD per million tokens: input, output, cache read, cache write.
PRICES: dict[str, tuple[float, float, float, float]] = {
    "claude-sonnet-4-6": (3.0, 15.0, 0.3, 3.75),
    "claude-opus-4-7": (15.0, 75.0, 1.5, 18.75),
    "claude-haiku-4-5": (1.0, 5.0, 0.1, 1.25),
    "deepseek-chat": (0.27, 1.1, 0.07, 0.0),
}
PROVIDERS = {
    "claude-sonnet-4-6": "anthropic",
    "claude-opus-4-7": "anthropic",
    "claude-haiku-4-5": "anthropic",
    "deepseek-chat": "deepseek",
}
CHANGING_TOOLS = frozenset({"edit", "write", "bash"})
HYPOTHESIS_LEDGER = {"seq": 0, "strategyNagged": False, "staleNagged": False, "items": []}


# --------------------------------------------------------------------------- tool calls


@dataclass
class Call:
    """One tool call of a batch.

    Attributes:
        name: the tool.
        input: its input as written in the ``tool_use`` block.
        affects: for ``bash``: project-relative paths the command changes (snapshotted).
        effect: for ``bash``: ``("rm", rel)``, ``("append", rel, text)``,
            ``("replace", rel, old, new)`` or None.
        output: for ``bash``/``grep``/``glob``: the result text (computed when None).
        sub: for ``sub_agent``: a :class:`SubAgentPlan`.
        error: force an error result with this text.
        id: the ``tool_use`` id, set when :meth:`SimAgent.say` writes the call.
    """

    name: str
    input: dict[str, Any]
    affects: list[str] = field(default_factory=list)
    effect: tuple | None = None
    output: str | None = None
    sub: SubAgentPlan | None = None
    error: str | None = None
    id: str = ""


@dataclass
class SubAgentPlan:
    """A sub-agent run: its sidechain transcript and how it ends.

    Attributes:
        agent_type: ``Explore`` / ``general-purpose`` / …
        description: short description (also in the tool input).
        prompt: the task.
        steps: ``(assistant text, tool name, tool input, tool result)`` per turn.
        final: the final assistant text (the parent's tool result when completed).
        status: ``completed`` / ``failed`` / ``aborted``, or None = killed (no
            ``sidechain_end``: unfinished).
    """

    agent_type: str
    description: str
    prompt: str
    steps: list[tuple[str, str, dict[str, Any], str]] = field(default_factory=list)
    final: str = "Done."
    status: str | None = "completed"


def read(project: Project, rel: str) -> Call:
    return Call("read", {"file_path": project.path(rel)})


def edit(project: Project, rel: str, old: str, new: str) -> Call:
    return Call("edit", {"file_path": project.path(rel), "old_string": old, "new_string": new})


def write(project: Project, rel: str, content: str) -> Call:
    return Call("write", {"file_path": project.path(rel), "content": content})


def grep(pattern: str, path: str = ".") -> Call:
    return Call("grep", {"pattern": pattern, "path": path})


def glob(pattern: str) -> Call:
    return Call("glob", {"pattern": pattern})


def bash(
    command: str,
    *,
    output: str | None = None,
    affects: list[str] | None = None,
    effect: tuple | None = None,
    description: str | None = None,
) -> Call:
    inp: dict[str, Any] = {"command": command}
    if description is not None:
        inp["description"] = description
    return Call("bash", inp, affects=list(affects or []), effect=effect, output=output)


def todo_write(todos: list[tuple[str, str, str]]) -> Call:
    """``todos``: ``(content, active form, status)``."""
    return Call(
        "todo_write",
        {"todos": [{"content": c, "active_form": a, "status": s} for c, a, s in todos]},
    )


def sub_agent(plan: SubAgentPlan) -> Call:
    return Call(
        "sub_agent",
        {"type": plan.agent_type, "description": plan.description, "prompt": plan.prompt},
        sub=plan,
    )


# --------------------------------------------------------------------------- helpers


NO_NEWLINE = "\\ No newline at end of file"


def _lines(text: str) -> list[str]:
    """Lines as jsdiff compares them: split on ``\\n``, each keeping it (a last line
    without one differs from the same text with one)."""
    parts = [ln + "\n" for ln in text.split("\n")]
    parts[-1] = parts[-1][:-1]
    return parts if parts[-1] else parts[:-1]


def structured_patch(old: str, new: str, context: int = 3) -> list[dict[str, Any]]:
    """jsdiff-style ``structuredPatch`` hunks ``{oldStart, oldLines, newStart, newLines, lines}``.

    A line without a final newline is followed by ``\\ No newline at end of file``, as
    the agent's (and Claude Code's) own patches are (docs/FORMAT.md §3.10).
    """
    a, b = _lines(old), _lines(new)
    hunks = []
    for part in edit_hunks(a, b, context):
        n_old = sum(1 for r in part if r[0] != "+")
        n_new = sum(1 for r in part if r[0] != "-")
        lines: list[str] = []
        for tag, _, _, line in part:
            if line.endswith("\n"):
                lines.append(tag + line[:-1])
            else:
                lines += [tag + line, NO_NEWLINE]
        hunks.append(
            {
                "oldStart": part[0][1] + 1 if n_old else part[0][1],
                "oldLines": n_old,
                "newStart": part[0][2] + 1 if n_new else part[0][2],
                "newLines": n_new,
                "lines": lines,
            }
        )
    return hunks


def numbered(text: str) -> str:
    """The ``read`` tool's output: ``N<TAB>line`` for every ``split("\\n")`` element."""
    return "\n".join(f"{n}\t{line}" for n, line in enumerate(text.split("\n"), 1))


def _read_text(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            return fh.read().decode("utf-8", errors="replace")
    except OSError:
        return None


def _write_text(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(text.encode("utf-8"))


@dataclass
class _ModelUsage:
    input: int = 0
    stock: int = 0
    cumulative: int = 0
    output: int = 0
    cache_read: int = 0
    cache_creation: int = 0
    requests: int = 0
    cost: float = 0.0
    savings: float = 0.0


# --------------------------------------------------------------------------- the agent


class SimAgent:
    """One simulated agent process working in one project.

    Args:
        home: the agent home.
        project: the scratch project (its root is the cwd unless ``cwd`` is given).
        clock: the clock (fake for seeded homes, live for ``--live``).
        ids: identifier source.
        rng: randomness for usage numbers and filler.
        model: the model (provider derived from it).
        kind: registration kind (``interactive``/``headless``/…).
        pid: the PID to register (default: this process); None with ``register=False``.
        register: write ``active-sessions``/``file-intents`` entries.
        cwd: the process cwd (a subfolder of the project is allowed).
        permission_mode: written on user records when it changes.
        flush_interval: the store's queue interval (seconds).
    """

    def __init__(
        self,
        home: Home,
        project: Project,
        *,
        clock: SimClock,
        ids: SeededIds,
        rng: random.Random,
        model: str = "claude-sonnet-4-6",
        kind: str = "interactive",
        pid: int | None = None,
        register: bool = True,
        cwd: str | None = None,
        permission_mode: str = "default",
        flush_interval: float = 0.1,
        max_per_file: int | None = None,
    ) -> None:
        self.home = home
        self.project = project
        self.clock = clock
        self.ids = ids
        self.rng = rng
        self.model = model
        self.provider = PROVIDERS.get(model, "anthropic")
        self.kind = kind
        self.pid = os.getpid() if pid is None else pid
        self.do_register = register
        self.cwd = cwd or str(project.root)
        self.permission_mode = permission_mode
        self.session_dir = home.sessions_dir / project.key
        self.store = SessionStore(
            self.session_dir, clock=clock.iso, uuid_factory=ids.uuid, flush_interval=flush_interval
        )
        self.session_id: str = ""  # the transcript's (logical) id
        self.own_id: str = ""  # this process's own id (registration, history, trace)
        self.checkpoints: CheckpointManager | None = None
        self.intents: registry.IntentFile | None = None
        self.usage: dict[str, _ModelUsage] = {}
        self.api_ms = 0
        self.tool_ms = 0
        self.context_tokens = self.rng.randint(2500, 9000)
        self.messages = 0
        self.transcript: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self.files_changed: list[str] = []
        self.snapshot_ids: list[str] = []
        self.todos: list[dict[str, str]] = []
        self.todos_written: list[dict[str, str]] | None = None
        self.last_prompt_uuid: str | None = None
        #: ``(prompt uuid, uuid of the record before it, message index)`` per human prompt.
        self.prompt_points: list[tuple[str, str | None, int]] = []
        self.max_per_file = max_per_file
        self.ended = False

    # -- lifecycle ---------------------------------------------------------------------

    def _register(self, logical: str | None = None) -> None:
        if not self.do_register:
            return
        registry.register(
            self.home,
            self.own_id,
            pid=self.pid,
            kind=self.kind,
            cwd=self.cwd,
            started_at=self.clock.ms(),
            model=self.model,
            logical_session_id=logical,
        )
        self.intents = registry.IntentFile(self.home, self.own_id, self.pid, self.cwd)

    def _manager(self) -> CheckpointManager:
        kwargs: dict[str, Any] = {}
        if self.max_per_file is not None:
            kwargs["max_per_file"] = self.max_per_file
        return CheckpointManager.for_session(
            self.home,
            self.session_id,
            project_root=self.project.root,
            clock=self.clock.ms,
            **kwargs,
        )

    def start(self, *, session_id: str | None = None, forked_from: str | None = None) -> str:
        """Start a new session (nothing is written until the first record, FORMAT.md §8.4)."""
        self.session_id = self.own_id = session_id or self.ids.session_id(self.clock)
        self.store.start_session(
            self.session_id, self.model, self.provider, self.cwd, forked_from_session_id=forked_from
        )
        self.checkpoints = self._manager()
        self._register()
        return self.session_id

    def resume(self, session_id: str, *, own_id: str | None = None) -> str:
        """Resume ``session_id`` as a new process: append to its file, no new start (FORMAT.md §8.6).

        Writes ``trace_session_id`` (this process's own id) first, as the agent does.
        Returns the process's own id.
        """
        self.session_id = session_id
        self.own_id = own_id or self.ids.session_id(self.clock)
        self.store.resume(self.session_dir / f"{session_id}.jsonl")
        self.checkpoints = self._manager()
        self._register(logical=session_id)
        self.store.append_metadata("trace_session_id", self.own_id)
        return self.own_id

    def adopt(self, other: SimAgent) -> None:
        """Carry a previous process's counters over (file_changes/usage hydrate on resume)."""
        self.files_changed = list(other.files_changed)
        self.snapshot_ids = list(other.snapshot_ids)
        self.messages = other.messages
        self.transcript = list(other.transcript)
        self.context_tokens = other.context_tokens

    def fork_from(self, src: SimAgent, tail_uuid: str | None) -> str:
        """Start a fork of ``src`` (the agent's ``--fork-session`` path, FORMAT.md §8.7).

        ``session_start.parentUuid`` = the source id, then ``forked_from``, then the copied
        messages with fresh uuids and their per-message fields in ``message._meta``; the
        source's checkpoints are inherited (FORMAT.md §10.11).
        """
        from sidtui.core.checkpoints.evict import inherit_from

        self.start(forked_from=src.session_id)
        self.store.append_metadata(
            "forked_from",
            {"sessionId": src.session_id, "uuid": tail_uuid, "messageCount": len(src.transcript)},
        )
        for message, meta in src.transcript:
            self.clock.advance(1)
            msg = dict(message)
            if meta:
                msg["_meta"] = meta
            self.store.append_message(msg)
        self.transcript = list(src.transcript)
        self.messages = len(self.transcript)
        self.files_changed = list(src.files_changed)
        self.snapshot_ids = list(src.snapshot_ids)
        inherit_from(self.home, src.session_id, self.session_id, self.clock.ms())
        return self.session_id

    def end(self) -> None:
        """Clean exit: end-of-session ``session_end`` (critical, synchronous), unregister."""
        self.clock.step()
        self.store.end_session(self.total_cost(), self.messages)
        self.exit()
        self.ended = True

    def exit(self) -> None:
        """The exit hook without ``endSession``: flush the queue, unregister, drop intents."""
        self.store.flush()
        if self.do_register:
            registry.unregister(self.home, self.own_id)
            if self.intents is not None:
                self.intents.remove()

    def killed(self) -> None:
        """SIGKILL: what was written stays; registration and intents are left behind.

        (In-process the queue is flushed: records "lost in the buffer" are simply never
        appended by the scenario.)
        """
        self.store.flush()

    # -- records ---------------------------------------------------------------------

    def _user_context(self) -> dict[str, Any]:
        return {
            "cwd": self.cwd,
            "git_branch": self.project.branch,
            "permission_mode": self.permission_mode,
        }

    def prompt(self, text: str, *, think_ms: tuple[int, int] = (8_000, 90_000)) -> str:
        """A human prompt: history line + ``user_message`` with changed per-message context."""
        self.clock.advance(self.rng.randint(*think_ms))
        registry.append_history(
            self.home, text, self.clock.iso(), str(self.project.root), self.own_id
        )
        self.clock.step(2, 8)
        message = {"role": "user", "content": [{"type": "text", "text": text}]}
        before = self.store.last_uuid
        uid = self.store.append_message(message, **self._user_context())
        self.prompt_points.append((uid, before, len(self.transcript)))
        meta = {
            k: v
            for k, v in (
                ("cwd", self.cwd),
                ("gitBranch", self.project.branch),
                ("permissionMode", self.permission_mode),
            )
            if v is not None
        }
        self.transcript.append((message, meta))
        self.messages += 1
        self.last_prompt_uuid = uid
        return uid

    def _usage(self, out_tokens: int) -> dict[str, Any]:
        rng = self.rng
        inp = rng.randint(20, 160)
        creation = rng.choice((411, 633, 0, 287, 512)) if self.provider == "anthropic" else 0
        cache_read = self.context_tokens
        self.context_tokens += inp + creation + out_tokens + rng.randint(50, 900)
        usage: dict[str, Any] = {
            "inputTokens": inp,
            "outputTokens": out_tokens,
            "cacheReadInputTokens": cache_read,
        }
        if self.provider == "anthropic":
            usage["cacheCreationInputTokens"] = creation
        p_in, p_out, p_read, p_write = PRICES.get(self.model, PRICES["claude-sonnet-4-6"])
        mu = self.usage.setdefault(self.model, _ModelUsage())
        mu.input = inp
        mu.stock = inp + cache_read + creation
        mu.cumulative += inp
        mu.output += out_tokens
        mu.cache_read += cache_read
        mu.cache_creation += creation
        mu.requests += 1
        mu.cost += (
            inp * p_in + out_tokens * p_out + cache_read * p_read + creation * p_write
        ) / 1e6
        mu.savings += cache_read * (p_in - p_read) / 1e6
        return usage

    def total_cost(self) -> float:
        return sum(m.cost for m in self.usage.values())

    def say(
        self,
        text: str | None,
        calls: list[Call] | None = None,
        *,
        thinking: str | None = None,
        redacted: bool = False,
    ) -> str:
        """An assistant message (one API call): thinking?, text?, tool_use blocks."""
        api = self.rng.randint(700, 4200)
        self.clock.advance(api)
        self.api_ms += api
        blocks: list[dict[str, Any]] = []
        if thinking:
            blocks.append(
                {
                    "type": "thinking",
                    "thinking": thinking,
                    "signature": self.ids.signature(),
                    "durationMs": self.rng.randint(400, 2500),
                }
            )
        if redacted:
            blocks.append({"type": "redacted_thinking", "data": self.ids.signature(160)})
        if text:
            blocks.append({"type": "text", "text": text})
        for c in calls or []:
            c.input = dict(c.input)
            c.id = self.ids.tool_use_id()
            blocks.append({"type": "tool_use", "id": c.id, "name": c.name, "input": c.input})
        out = max(12, len(text or "") // 3 + 60 * len(calls or []) + self.rng.randint(20, 260))
        usage = self._usage(out)
        stop = "tool_use" if calls else "end_turn"
        msg_id = self.ids.msg_id()
        message = {"role": "assistant", "content": blocks}
        uid = self.store.append_message(
            message, usage=usage, model=self.model, stop_reason=stop, msg_id=msg_id
        )
        self.transcript.append(
            (message, {"usage": usage, "model": self.model, "stopReason": stop, "msgId": msg_id})
        )
        self.messages += 1
        return uid

    # -- tools -----------------------------------------------------------------------

    def _abs(self, p: str) -> str:
        return p if os.path.isabs(p) else str(self.project.root / p)

    def _targets(self, calls: list[Call]) -> list[str]:
        out: list[str] = []
        for c in calls:
            if c.name in ("edit", "write"):
                out.append(c.input["file_path"])
            elif c.name == "bash":
                out.extend(self._abs(p) for p in c.affects)
        return list(dict.fromkeys(out))

    def execute(
        self,
        calls: list[Call],
        *,
        lose_results: bool = False,
        write_file_changes: bool = True,
    ) -> list[dict[str, Any]]:
        """Run a batch: intents, snapshot (pre-images) if it changes files, real effects,
        ``file_changes``, then one ``user_message`` with every result (merged).

        Args:
            calls: the batch (the ``tool_use`` blocks already written by :meth:`say`).
            lose_results: the process dies with ``file_changes`` and the results still
                in the 100 ms queue (FORMAT.md §8.8): effects happen, nothing more is written.
            write_file_changes: write the ``file_changes`` metadata (when anything changed).

        Returns:
            The ``tool_result`` blocks.
        """
        now = self.clock.ms()
        if self.intents is not None:
            for c in calls:
                fp = c.input.get("file_path")
                if isinstance(fp, str):
                    self.intents.declare(
                        fp,
                        {"read": "read", "edit": "edit", "write": "write"}.get(c.name, "read"),
                        now,
                    )
            for c in calls:
                if c.name == "bash":
                    for p in c.affects:
                        self.intents.declare(self._abs(p), "edit", now)
        targets = self._targets(calls)
        names = ", ".join(c.name for c in calls)
        snap_id = None
        if targets and self.checkpoints is not None:
            summary = ", ".join(targets)
            cmd = next((c.input["command"] for c in calls if c.name == "bash" and c.affects), None)
            if cmd is not None:
                summary = f"$ {cmd} → {summary}"
            self.clock.step(1, 6)
            snap_id = self.checkpoints.create_snapshot(targets, names, summary)
        results = [self._run(c) for c in calls]
        if targets:
            new = [t for t in targets if t not in self.files_changed]
            self.files_changed.extend(new)
            if snap_id is not None:
                self.snapshot_ids.append(snap_id)
            if lose_results:
                return results
            if write_file_changes and (new or snap_id is not None):
                self.clock.step(1, 5)
                value: dict[str, Any] = {
                    "files": list(self.files_changed),
                    "lastTool": names,
                    "count": len(self.files_changed),
                }
                if self.snapshot_ids:
                    value["lastSnapshotId"] = self.snapshot_ids[-1]
                    value["snapshotIds"] = list(self.snapshot_ids)
                self.store.append_metadata("file_changes", value)
        if lose_results:
            return results
        self.clock.step(5, 60)
        message = {"role": "user", "content": results}
        self.store.append_message(message)
        self.transcript.append((message, {}))
        self.messages += 1
        return results

    def _result(
        self, c: Call, content: str, *, is_error: bool = False, **extra: Any
    ) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": c.id, "content": content}
        if is_error:
            block["is_error"] = True
        block.update(extra)
        return block

    def _run(self, c: Call) -> dict[str, Any]:
        ms = self.rng.randint(3, 180)
        self.tool_ms += ms
        self.clock.advance(ms)
        if c.error is not None:
            return self._result(c, c.error, is_error=True)
        if c.name == "read":
            text = _read_text(c.input["file_path"])
            if text is None:
                return self._result(c, f"错误: 文件不存在: {c.input['file_path']}", is_error=True)
            return self._result(c, numbered(text))
        if c.name == "edit":
            path = c.input["file_path"]
            old = _read_text(path)
            if old is None or c.input["old_string"] not in old:
                return self._result(c, f"错误: 在文件中未找到 old_string（{path}）", is_error=True)
            new = old.replace(c.input["old_string"], c.input["new_string"], 1)
            _write_text(path, new)
            return self._result(
                c, f"文件已编辑: {path}（替换了 1 处）", structuredPatch=structured_patch(old, new)
            )
        if c.name == "write":
            path = c.input["file_path"]
            old = _read_text(path)
            _write_text(path, c.input["content"])
            verb = "文件已创建" if old is None else "文件已写入"
            return self._result(
                c,
                f"{verb}: {path}",
                structuredPatch=structured_patch(old or "", c.input["content"]),
            )
        if c.name == "bash":
            self._bash_effect(c.effect)
            return self._result(c, c.output if c.output is not None else "(no output)")
        if c.name in ("grep", "glob"):
            return self._result(c, c.output if c.output is not None else self._search(c))
        if c.name == "todo_write":
            return self._result(c, self._todo(c.input["todos"]))
        if c.name == "sub_agent" and c.sub is not None:
            return self._sub_agent(c)
        return self._result(c, c.output or "ok")

    def _bash_effect(self, effect: tuple | None) -> None:
        if not effect:
            return
        op, rel = effect[0], self._abs(effect[1])
        if op == "rm":
            try:
                os.unlink(rel)
            except FileNotFoundError:
                pass
        elif op == "append":
            _write_text(rel, (_read_text(rel) or "") + effect[2])
        elif op == "replace":
            _write_text(rel, (_read_text(rel) or "").replace(effect[2], effect[3]))

    def _search(self, c: Call) -> str:
        root = self.project.root
        if c.name == "glob":
            import fnmatch

            hits = sorted(
                str(p)
                for p in root.rglob("*")
                if p.is_file()
                and ".git" not in p.parts
                and fnmatch.fnmatch(str(p.relative_to(root)), c.input["pattern"])
            )
            return "\n".join(hits) if hits else "No files found"
        pat = c.input["pattern"]
        out = []
        for p in sorted(root.rglob("*")):
            if not p.is_file() or ".git" in p.parts:
                continue
            text = _read_text(str(p)) or ""
            for n, line in enumerate(text.split("\n"), 1):
                if pat in line:
                    out.append(f"{p}:{n}:{line}")
        return "\n".join(out[:40]) if out else "No matches found"

    def _todo(self, todos: list[dict[str, str]]) -> str:
        self.todos = [
            {"content": t["content"], "activeForm": t["active_form"], "status": t["status"]}
            for t in todos
        ]
        mark = {"completed": "✅", "in_progress": "🔄", "pending": "⬜"}
        lines = [
            f"  {mark.get(t['status'], '⬜')} {i}. {t['content']}" for i, t in enumerate(todos, 1)
        ]
        if all(t["status"] == "completed" for t in todos):
            self.todos_written = self.todos
            self.todos = []
            return "所有任务已完成，清单已清空。\n\n旧任务列表:\n" + "\n".join(lines)
        done = sum(t["status"] == "completed" for t in todos)
        return (
            "任务清单已更新:\n\n更新后:\n"
            + "\n".join(lines)
            + f"\n\n进度: {done}/{len(todos)} 已完成"
        )

    def _sub_agent(self, c: Call) -> dict[str, Any]:
        plan = c.sub
        assert plan is not None
        sc = SidechainWriter(
            self.session_dir, self.session_id, self.ids.agent_id(), clock=self.clock.iso
        )
        sc.start(plan.agent_type, plan.description, self.model)
        sc.message("user", [{"type": "text", "text": plan.prompt}], 1)
        turn = 1
        for text, tool, tool_input, result in plan.steps:
            self.clock.advance(self.rng.randint(300, 2500))
            tid = self.ids.tool_use_id()
            sc.message(
                "assistant",
                [
                    {"type": "text", "text": text},
                    {"type": "tool_use", "id": tid, "name": tool, "input": tool_input},
                ],
                turn,
            )
            self.clock.step(5, 90)
            sc.message(
                "user", [{"type": "tool_result", "tool_use_id": tid, "content": result}], turn
            )
            turn += 1
        if plan.status is None:  # killed mid-run: the last turn landed, no sidechain_end
            return self._result(c, "")
        self.clock.advance(self.rng.randint(300, 2000))
        if plan.status == "completed":
            sc.message("assistant", [{"type": "text", "text": plan.final}], turn)
        self.clock.step()
        sc.end(plan.status)
        if plan.status == "completed":
            return self._result(c, plan.final)
        return self._result(c, f"子代理执行失败: {plan.final}", is_error=True)

    # -- turns -----------------------------------------------------------------------

    def end_turn(
        self,
        *,
        agent_setting: dict[str, Any] | None = None,
        goal: dict[str, Any] | None = None,
        name: str | None = None,
        summary: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        """End-of-turn metadata: ``usage_stats``, ``todo_state``, ``hypothesis_ledger``, …"""
        self.clock.step(2, 9)
        model_usage = {
            m: {
                "inputTokens": u.input,
                "stockPromptTokens": u.stock,
                "cumulativePromptTokens": u.cumulative,
                "outputTokens": u.output,
                "cacheReadInputTokens": u.cache_read,
                "cacheCreationInputTokens": u.cache_creation,
                "requests": u.requests,
                "costUSD": u.cost,
                "cacheSavingsUSD": u.savings,
                "provider": PROVIDERS.get(m, self.provider),
            }
            for m, u in self.usage.items()
        }
        self.store.append_metadata(
            "usage_stats",
            {
                "totalCostUSD": self.total_cost(),
                "sideCostUSD": 0,
                "totalAPIDuration": self.api_ms,
                "totalToolDuration": self.tool_ms,
                "modelUsage": model_usage,
            },
        )
        todo_value: dict[str, Any] = {"todos": self.todos}
        if not self.todos and self.todos_written:
            todo_value["lastWritten"] = self.todos_written
        self.store.append_metadata("todo_state", todo_value)
        self.store.append_metadata("hypothesis_ledger", HYPOTHESIS_LEDGER)
        if agent_setting is not None:
            self.store.append_metadata("agent_setting", agent_setting)
        if goal is not None:
            # The agent stores the goal as a JSON *string* (JSON.stringify of the goal).
            self.store.append_metadata("goal_state", stringify(goal).decode("utf-8"))
        if name is not None:
            self.store.append_metadata("session_name", name)
        if summary is not None:
            self.store.append_metadata("summary", summary)
        for k, v in (extra or {}).items():
            self.store.append_metadata(k, v)

    def turn(
        self,
        prompt: str | None,
        steps: list[tuple[str | None, list[Call]]],
        final: str | None,
        *,
        thinking: str | None = None,
        **end_kwargs: Any,
    ) -> None:
        """A whole turn: prompt, tool steps (each one assistant message + one batch), the
        final answer and the end-of-turn metadata. ``final=None`` stops after the steps."""
        if prompt is not None:
            self.prompt(prompt)
        for n, (text, calls) in enumerate(steps):
            self.say(text, calls, thinking=thinking if n == 0 else None)
            self.execute(calls)
        if final is not None:
            self.say(final)
            self.end_turn(**end_kwargs)

    def flush(self) -> None:
        flush_pending_writes(self.store.path)

    @property
    def path(self) -> Path:
        return self.session_dir / f"{self.session_id}.jsonl"

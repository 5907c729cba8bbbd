"""Subagents: each transcript linked to the tool use that spawned it (docs/CLAUDE-CODE.md §7).

A subagent is spawned by a ``Task`` or ``Agent`` tool use. Its transcript is
``<session>/subagents/agent-<id>.jsonl`` (2.1.2 on; nested agents of any depth sit flat in
the same folder, ``meta.json`` names ``parentAgentId``) or, before, ``agent-<id>.jsonl``
beside the sessions. The link, strongest first: ``agent-<id>.meta.json``'s ``toolUseId``;
the spawn's result ``toolUseResult.agentId``; an ``agentId: <id>`` line in the result's
text. ``{"status": "async_launched"}`` is a background agent's *start*, not its result.
A transcript that does not end on a finished reply, whose spawn has no completed result,
is *unfinished* (killed, interrupted, or still running when its session is live).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sidtui.core.base.errors import SidtuiError
from sidtui.core.base.values import json_str as _s
from sidtui.core.claude.kinds import SPAWN_TOOLS
from sidtui.core.claude.layout import ClaudeFile
from sidtui.core.claude.transcript import ClaudeTranscript, load_transcript
from sidtui.core.resume.process import read_json_tolerant

_TRAILER = re.compile(r"agentId: ?([A-Za-z0-9_-]{3,64})")

COMPLETED = "completed"
RUNNING = "running"
UNFINISHED = "unfinished"
ORPHAN = "orphan"
MISSING = "missing"
WARMUP = "warmup"
INTERNAL = "internal"
_SPAWNED_ID = re.compile(r"^[0-9a-f]{7,24}$")


@dataclass
class Spawn:
    """A ``Task``/``Agent`` tool use and what its result says.

    Attributes:
        tool_use_id: the block's id; tool: ``Task`` or ``Agent``.
        owner: the transcript holding it (``session_id`` of the main file or ``agent-<id>``).
        record, line: where the tool use is in that transcript.
        description, subagent_type: from the tool input.
        result: ``completed``, ``async_launched``, ``error`` (an error result) or None (no
            result written); agent_id: the agent the result names.
    """

    tool_use_id: str
    tool: str
    owner: str
    record: int
    line: int
    description: str | None = None
    subagent_type: str | None = None
    result: str | None = None
    agent_id: str | None = None
    named_by: str | None = None
    prompt: str | None = None


@dataclass
class Subagent:
    """One subagent of a session.

    Attributes:
        agent_id: its id (file name, or the spawn's result when there is no file).
        file: its transcript (None: a spawn whose transcript is not on disk).
        spawn: the tool use that started it (None: an orphan transcript).
        agent_type, description: from ``meta.json``, else from the spawn's input.
        parent_agent_id: the agent that spawned it (nested), from ``meta.json`` or the spawn.
        depth: 1 for an agent spawned by the session, 2 for one spawned by that agent…
        status: ``completed``, ``running``, ``unfinished``, ``orphan`` (no spawn found),
            ``warmup`` (a start-up cache warm-up: never spawned), ``internal`` (one of
            Claude Code's own workers, such as ``acompact-…``) or ``missing`` (a spawn
            whose transcript is not on disk).
        messages: its transcript's message count; ended: it ends on a finished reply.
        link: how it was linked: ``meta`` (toolUseId), ``result`` (toolUseResult.agentId),
            ``trailer`` (``agentId:`` in the result text), ``inline`` (a sidechain in the
            main file, pre-2.0: by its prompt, else by order), or None.
        inline: for an inline sidechain, its records in the main file (scan indices).
    """

    agent_id: str | None
    file: ClaudeFile | None
    spawn: Spawn | None
    agent_type: str | None = None
    description: str | None = None
    parent_agent_id: str | None = None
    depth: int = 1
    status: str = ORPHAN
    messages: int = 0
    ended: bool = False
    link: str | None = None
    warmup: bool = False
    warnings: list[str] = field(default_factory=list)
    inline: list[int] | None = None
    inline_line: int | None = None

    @property
    def label(self) -> str:
        """How a listing names it: its id, else where its inline records start."""
        if self.agent_id:
            return self.agent_id
        return f"inline at line {self.inline_line}" if self.inline_line is not None else "?"

    def to_json(self) -> dict[str, Any]:
        sp = self.spawn
        return {
            "agent_id": self.agent_id,
            "path": str(self.file.path) if self.file else None,
            "layout": self.file.layout if self.file else "inline" if self.inline else None,
            "inline_line": self.inline_line,
            "agent_type": self.agent_type,
            "description": self.description,
            "parent_agent_id": self.parent_agent_id,
            "depth": self.depth,
            "status": self.status,
            "messages": self.messages,
            "ended": self.ended,
            "link": self.link,
            "warmup": self.warmup,
            "spawn": None
            if sp is None
            else {
                "tool_use_id": sp.tool_use_id,
                "tool": sp.tool,
                "in": sp.owner,
                "line": sp.line,
                "result": sp.result,
            },
        }


def spawns_in(tr: ClaudeTranscript) -> list[Spawn]:
    """Every ``Task``/``Agent`` tool use in a transcript's records (branches included),
    with what its result record says."""
    objs = tr.scan.objs
    out: dict[str, Spawn] = {}
    for i, o in enumerate(objs):
        if o.type != "assistant" or o.message is None or not isinstance(o.message.content, list):
            continue
        for b in o.message.content:
            if b.type == "tool_use" and b.name in SPAWN_TOOLS and isinstance(b.id, str):
                if b.id not in out:
                    out[b.id] = Spawn(b.id, b.name, tr.file.session_id, i, tr.scan.lines[i])
    if not out:
        return []
    for sp in out.values():
        rec = tr.record(sp.record)
        for blk in _content(rec):
            if blk.get("type") == "tool_use" and blk.get("id") == sp.tool_use_id:
                inp = blk.get("input")
                if isinstance(inp, dict):
                    sp.description = _s(inp.get("description"))
                    sp.subagent_type = _s(inp.get("subagent_type"))
                    sp.prompt = _s(inp.get("prompt"))
    for i, o in enumerate(objs):
        if o.type != "user" or o.message is None or not isinstance(o.message.content, list):
            continue
        hit = [
            b.tool_use_id
            for b in o.message.content
            if b.type == "tool_result" and b.tool_use_id in out
        ]
        if not hit:
            continue
        rec = tr.record(i)
        tur = rec.get("toolUseResult") if isinstance(rec, dict) else None
        for tid in hit:
            sp = out[tid]
            if sp.result is not None:
                continue
            blk = next((b for b in _content(rec) if b.get("tool_use_id") == tid), {})
            status = tur.get("status") if isinstance(tur, dict) else None
            if isinstance(tur, dict) and isinstance(tur.get("agentId"), str):
                sp.agent_id, sp.named_by = tur["agentId"], "result"
            else:
                m = _TRAILER.search(_text_of(blk.get("content")))
                if m:
                    sp.agent_id, sp.named_by = m.group(1), "trailer"
            if status == "async_launched" or (
                isinstance(tur, dict) and tur.get("isAsync") is True and status != COMPLETED
            ):
                sp.result = "async_launched"
            elif blk.get("is_error") is True:
                sp.result = "error"
            else:
                sp.result = COMPLETED
    return list(out.values())


def _content(rec: Any) -> list[dict]:
    if not isinstance(rec, dict):
        return []
    m = rec.get("message")
    c = m.get("content") if isinstance(m, dict) else None
    return [b for b in c if isinstance(b, dict)] if isinstance(c, list) else []


def _text_of(c: Any) -> str:
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "\n".join(
            b.get("text", "") for b in c if isinstance(b, dict) and isinstance(b.get("text"), str)
        )
    return ""


def read_meta(cf: ClaudeFile) -> dict[str, Any]:
    """A subagent's ``meta.json`` (``{}`` when absent or unreadable)."""
    p = cf.meta_path
    if p is None or not p.is_file():
        return {}
    d = read_json_tolerant(p)
    return d if isinstance(d, dict) else {}


def link_subagents(
    main: ClaudeTranscript, files: list[ClaudeFile], live: bool = False
) -> list[Subagent]:
    """Link a session's subagent transcripts to their spawns, at any depth.

    Args:
        main: the session's transcript.
        files: its subagent transcripts (:func:`~.layout.subagent_files`).
        live: the session is being written now (an unfinished agent is ``running``).

    Returns:
        One :class:`Subagent` per file, then one per spawn whose transcript is missing;
        ordered by depth, then spawn line.
    """
    spawns = {s.tool_use_id: s for s in spawns_in(main)}
    by_agent: dict[str, Spawn] = {s.agent_id: s for s in spawns.values() if s.agent_id}
    agents: list[Subagent] = []
    trs: dict[str, ClaudeTranscript] = {}
    for f in files:
        try:
            tr = load_transcript(f)
        except SidtuiError as exc:
            agents.append(Subagent(f.agent_id, f, None, status=UNFINISHED, warnings=[str(exc)]))
            continue
        trs[f"agent-{f.agent_id}"] = tr
        for s in spawns_in(tr):
            spawns.setdefault(s.tool_use_id, s)
            if s.agent_id:
                by_agent.setdefault(s.agent_id, s)
        meta = read_meta(f)
        agents.append(
            Subagent(
                f.agent_id,
                f,
                None,
                agent_type=_s(meta.get("agentType")),
                description=_s(meta.get("description")),
                parent_agent_id=_s(meta.get("parentAgentId")),
                messages=len(tr.messages),
                ended=tr.interruption.kind == "none" and bool(tr.messages),
            )
        )
        agents[-1].warmup = is_warmup(tr)
        _meta_link(agents[-1], meta, spawns)
    linked = set()
    for a in agents:
        if a.spawn is None and a.agent_id is not None:
            sp = by_agent.get(a.agent_id)
            if sp is not None:
                a.spawn, a.link = sp, sp.named_by
        if a.spawn is not None:
            linked.add(a.spawn.tool_use_id)
            a.agent_type = a.agent_type or a.spawn.subagent_type
            a.description = a.description or a.spawn.description
            if a.parent_agent_id is None and a.spawn.owner.startswith("agent-"):
                a.parent_agent_id = a.spawn.owner[len("agent-") :]
    ids = {a.agent_id: a for a in agents if a.agent_id}
    for a in agents:
        a.depth = _depth(a, ids)
        a.status = subagent_status(a, live)
    for a in _inline(main, [sp for sp in spawns.values() if sp.tool_use_id not in linked]):
        linked.add(a.spawn.tool_use_id if a.spawn else "")
        a.status = subagent_status(a, live)
        agents.append(a)
    for sp in spawns.values():
        if sp.tool_use_id not in linked:
            agents.append(
                Subagent(
                    sp.agent_id,
                    None,
                    sp,
                    agent_type=sp.subagent_type,
                    description=sp.description,
                    parent_agent_id=sp.owner[len("agent-") :]
                    if sp.owner.startswith("agent-")
                    else None,
                    status=MISSING,
                )
            )
    for a in agents:
        if a.file is None:
            a.depth = _depth(a, ids)
    agents.sort(key=lambda a: (a.depth, a.spawn.line if a.spawn else 1 << 60, a.agent_id or ""))
    return agents


def inline_sidechains(tr: ClaudeTranscript) -> list[list[int]]:
    """The sidechains written into a main file (the pre-2.0 layout: ``isSidechain: true``
    records beside the conversation): each one's records, root first, in file order."""
    objs, parent = tr.scan.objs, tr.tree.parent
    if tr.file.kind != "main":
        return []
    groups: dict[int, list[int]] = {}
    root_of: dict[int, int] = {}
    for i, o in enumerate(objs):
        if o.isSidechain is not True or parent[i] == -2:
            continue
        p = parent[i]
        r = root_of.get(p, i) if p >= 0 and objs[p].isSidechain is True else i
        root_of[i] = r
        groups.setdefault(r, []).append(i)
    return [g for g in groups.values() if any(objs[i].type in ("user", "assistant") for i in g)]


def _inline(main: ClaudeTranscript, spawns: list[Spawn]) -> list[Subagent]:
    """Inline sidechains linked to the spawns no transcript file claimed: by the spawn's
    prompt (the sidechain's first prompt), then the rest in order."""
    from sidtui.core.claude.kinds import first_text

    groups = inline_sidechains(main)
    if not groups:
        return []
    objs = main.scan.objs
    left = sorted((sp for sp in spawns if sp.owner == main.file.session_id), key=lambda s: s.line)
    out: list[Subagent] = []
    pending: list[list[int]] = []
    for g in groups:
        text = first_text(objs[g[0]]) if objs[g[0]].type == "user" else None
        sp = next((x for x in left if text is not None and x.prompt == text), None)
        if sp is None:
            pending.append(g)
            continue
        left.remove(sp)
        out.append(_inline_agent(main, g, sp))
    for g in pending:
        sp = left.pop(0) if left else None
        out.append(_inline_agent(main, g, sp))
    return out


def _inline_agent(main: ClaudeTranscript, g: list[int], sp: Spawn | None) -> Subagent:
    objs = main.scan.objs
    conv = [i for i in g if objs[i].type in ("user", "assistant")]
    last = objs[conv[-1]]
    ended = last.type == "assistant" and not any(
        b.type == "tool_use"
        for b in (
            last.message.content if last.message and isinstance(last.message.content, list) else []
        )
    )
    return Subagent(
        sp.agent_id if sp else None,
        None,
        sp,
        agent_type=sp.subagent_type if sp else None,
        description=sp.description if sp else None,
        messages=len(conv),
        ended=ended,
        link="inline" if sp else None,
        inline=g,
        inline_line=main.scan.lines[g[0]],
    )


def is_warmup(tr: ClaudeTranscript) -> bool:
    """A cache warm-up Claude Code 2.0.x ran at start-up (no spawn): the prompt
    ``Warmup``, or a lone assistant reply with no prompt."""
    msgs = tr.messages
    if not msgs:
        return False
    first = msgs[0]
    if first.role == "user":
        return first.blocks[:1] != [] and first.blocks[0].text == "Warmup"
    return len(msgs) == 1


def _meta_link(a: Subagent, meta: dict[str, Any], spawns: dict[str, Spawn]) -> None:
    tid = meta.get("toolUseId")
    if isinstance(tid, str) and tid in spawns:
        a.spawn, a.link = spawns[tid], "meta"


def _depth(a: Subagent, ids: dict[str, Subagent]) -> int:
    d = 1
    seen = {a.agent_id}
    p = a.parent_agent_id
    while p is not None and p in ids and p not in seen:
        seen.add(p)
        d += 1
        p = ids[p].parent_agent_id
    return d + 1 if p is not None and p not in seen else d  # a parent without transcript


def subagent_status(a: Subagent, live: bool) -> str:
    if a.file is None and a.inline is None:
        return MISSING
    if a.spawn is None:
        if a.warmup:
            return WARMUP
        # Claude Code's own workers (``acompact-…``: the auto-compact summary) are never
        # spawned by a tool: only an id of the spawned kind without a spawn is an orphan
        return ORPHAN if a.agent_id is None or _SPAWNED_ID.match(a.agent_id) else INTERNAL
    if a.ended or a.spawn.result == COMPLETED:
        return COMPLETED
    return RUNNING if live else UNFINISHED

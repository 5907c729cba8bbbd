"""The uuid DAG of a Claude Code transcript and the conversation resume loads (docs/CLAUDE-CODE.md §5).

Only ``user``/``assistant``/``system``/``attachment``/``progress`` records with a string
``uuid`` are nodes; every other record stays outside (metadata, opaque). Rules, in order:

1. **dedupe**: a uuid seen again (a replayed prefix, a second ``/compact``) keeps its
   earliest record; the later copies are listed, never linked;
2. **parents**: ``parentUuid`` names the node; one that is nowhere in the file is normal
   (a record Claude Code never persisted): the record is *bridged* to the nearest earlier
   node of the same side (main or sidechain) and a warning says so; a parent link that
   closes a cycle is cut;
3. **compaction**: a root with ``logicalParentUuid`` (``compact_boundary``) is linked to
   it for display, unless that record is one of its own descendants (the walk would cycle);
4. **leaves**: user/assistant records with no user/assistant descendant — ``system``,
   ``attachment`` and ``progress`` records are transparent links, never a leaf;
5. **the leaf resume picks**: the leaf written last in the file (not the latest in time:
   Claude Code 2.1.332 resumes an older branch appended after the conversation),
   sidechain leaves excluded in a main file; the **chain** is the parent walk from it;
6. **parallel tool calls**: a side branch made only of more parts of a response already on
   the path (same ``message.id``), tool results for its tool uses and injected (``isMeta``)
   text belongs to the conversation: it is spliced in after the record it hangs off.
   Every other leaf is a **branch** (a rewind, a stale writer), listed with what only it holds.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sidtui.core.claude.kinds import (
    PROMPT,
    TOOL_RESULTS,
    is_compact_boundary,
    message_id,
    tool_result_ids,
    tool_use_ids,
    user_kind,
)
from sidtui.core.claude.scan import DAG_TYPES, CRecord

#: Records walked up from a branch's join to find the turn it belongs to.
TURN_WALK_LIMIT = 2000

RESUME = "resume"
PARALLEL = "parallel"
BRANCH = "branch"
SIDECHAIN = "sidechain"


@dataclass
class Tip:
    """One conversation leaf.

    Attributes:
        index: the leaf record.
        kind: :data:`RESUME` (the leaf ``--resume`` picks), :data:`PARALLEL` (a side branch
            of parallel tool calls, part of the conversation), :data:`BRANCH` (a rewind or a
            stale writer's branch: resume will not show it) or :data:`SIDECHAIN` (an inline
            sidechain's leaf in a main file).
        joins_at: the record this leaf's branch hangs off (on the conversation, or on
            another branch); None when the branch reaches a root of its own.
        records: the records only this branch holds, root-to-leaf (empty for the resume
            leaf).
        rewind: a branch that starts with a typed prompt where the conversation also goes
            on with a typed prompt (what ``/rewind`` leaves behind).
        timestamp: the leaf's ``timestamp`` as written.
    """

    index: int
    kind: str
    joins_at: int | None = None
    records: list[int] = field(default_factory=list)
    rewind: bool = False
    timestamp: str | None = None


@dataclass
class ClaudeTree:
    """The DAG of one file and the conversation resume loads.

    Attributes:
        parent: the display parent of each record (-1: a root, -2: not a node).
        duplicates: records whose uuid an earlier record already holds (not nodes).
        bridges: record → the missing parent uuid it was bridged over (to ``parent``).
        logical: compact boundary → the record its ``logicalParentUuid`` names (linked).
        logical_refused: compact boundary → the uuid it names, refused: one of its own
            descendants (cycle) — the walk stops at the boundary.
        logical_missing: compact boundary → a ``logicalParentUuid`` not in this file.
        cycles: records whose parent link closed a cycle (cut there: now roots).
        roots: node records without a parent, in file order.
        tips: every conversation leaf (file order), with its kind.
        leaf: the leaf resume picks (None: no user/assistant record).
        chain: the parent walk from ``leaf``, oldest first (compaction links followed).
        conversation: ``chain`` with the parallel side branches spliced in: the records
            the resumed conversation shows, in order.
        compactions: compact boundaries on ``chain`` (what follows the last one is what
            the model is sent on resume).
        branch_points: user/assistant records with two or more user/assistant children.
        after_leaf: transparent records hanging below ``leaf`` (system notes, hook
            progress after the last message), file order.
    """

    parent: list[int]
    duplicates: list[int] = field(default_factory=list)
    bridges: dict[int, str] = field(default_factory=dict)
    logical: dict[int, int] = field(default_factory=dict)
    logical_refused: dict[int, str] = field(default_factory=dict)
    logical_missing: dict[int, str] = field(default_factory=dict)
    cycles: list[int] = field(default_factory=list)
    roots: list[int] = field(default_factory=list)
    tips: list[Tip] = field(default_factory=list)
    leaf: int | None = None
    chain: list[int] = field(default_factory=list)
    conversation: list[int] = field(default_factory=list)
    compactions: list[int] = field(default_factory=list)
    branch_points: list[int] = field(default_factory=list)
    after_leaf: list[int] = field(default_factory=list)

    @property
    def branches(self) -> list[Tip]:
        """The leaves resume leaves behind (kind :data:`BRANCH`)."""
        return [t for t in self.tips if t.kind == BRANCH]

    def tip_of(self, index: int) -> Tip | None:
        for t in self.tips:
            if t.index == index:
                return t
        return None

    def walk(self, index: int) -> list[int]:
        """The parent walk from any record, oldest first (the chain a leaf would give)."""
        out = []
        p = self.parent
        i = index
        while i >= 0:
            out.append(i)
            i = p[i]
        out.reverse()
        return out


def time_key(ts: str | None) -> tuple[int, float, str]:
    """A sort key for an ISO timestamp: parsed when possible (mixed precisions and
    offsets compare right), else the text; a missing one sorts first."""
    if not ts:
        return (0, 0.0, "")
    try:
        return (1, datetime.fromisoformat(ts).timestamp(), ts)
    except ValueError:
        return (1, float("-inf"), ts)


def build_tree(objs: list[CRecord]) -> ClaudeTree:
    """Build the DAG of ``objs`` (one :class:`CRecord` per record, file order).

    O(records) plus the branch walks (each record is walked once); never raises. The
    columns are built first (uuid → earliest record, each parent's record) with C-level
    passes; then the usual file (every parent on an earlier line) is linked in one loop
    that also finds each record's nearest user/assistant ancestor. A parent or compaction
    link to a later line sends the file through the general path (:func:`_general`).
    """
    n = len(objs)
    tree = ClaudeTree(parent=[-2] * n)
    parent = tree.parent
    dag = DAG_TYPES
    types = [o.type for o in objs]
    uuids = [o.uuid if t in dag else None for o, t in zip(objs, types, strict=True)]
    # uuid → its earliest node (later pairs overwrite earlier ones: hence reversed)
    pos: dict[str, int] = dict(zip(reversed(uuids), range(n - 1, -1, -1), strict=True))  # type: ignore[arg-type]
    pos.pop(None, None)  # type: ignore[call-overload]
    nodes = [i for i, u in enumerate(uuids) if u is not None]
    if len(nodes) != len(pos):  # a uuid on several lines: the later copies are no nodes
        tree.duplicates = [i for i in nodes if pos[uuids[i]] != i]  # type: ignore[index]
        nodes = [i for i in nodes if pos[uuids[i]] == i]  # type: ignore[index]
    pj = list(map(pos.get, [o.parentUuid for o in objs]))  # type: ignore[arg-type]
    conv = bytearray([t == "user" or t == "assistant" for t in types])
    side = bytearray([o.isSidechain is True for o in objs])  # 1: a sidechain record
    cpar = [-1] * n  # nearest user/assistant ancestor
    kids = bytearray(n)  # user/assistant children of the same side: 0, 1, 2 (= several)
    odd: list[int] = []  # no parent found, or one on this or a later line
    for i in nodes:
        j = pj[i]
        if j is None or j >= i:
            odd.append(i)
            j = _odd_parent(objs, tree, pos, nodes, i, j)
        parent[i] = j
        if j >= 0:
            cp = j if conv[j] else cpar[j]
            cpar[i] = cp
            if cp >= 0 and conv[i] and side[cp] == side[i]:
                kids[cp] = 2 if kids[cp] else 1
    if tree.roots:  # a link to a later line (set by _odd_parent): the general path
        tree.roots = []
        tree.bridges.clear()
        tree.logical_missing.clear()
        cpar, kids = _general(objs, tree, pos, nodes, conv, side)
    tree.roots = [i for i in nodes if parent[i] == -1]
    _conversation(objs, tree, nodes, conv, side, cpar, kids)
    return tree


def _odd_parent(
    objs: list[CRecord],
    tree: ClaudeTree,
    pos: dict[str, int],
    nodes: list[int],
    i: int,
    j: int | None,
) -> int:
    """The parent of a record whose ``parentUuid`` names no earlier node: a root (null,
    or itself: a cycle), a compaction's logical parent on an earlier line, or a bridge
    over a parent that is nowhere. A parent or logical parent on a later line is marked
    (``tree.roots = [i]``) for the general path and gives -1 meanwhile."""
    o = objs[i]
    if j is not None:  # its own uuid (a cycle), or a later line
        if j == i:
            tree.cycles.append(i)
        else:
            tree.roots = [i]
        return -1
    p = o.parentUuid
    if p is not None:
        tree.bridges[i] = p
        return _bridge(objs, nodes, i)
    lp = o.logicalParentUuid
    if lp is None:
        return -1
    k = pos.get(lp)
    if k is None:
        tree.logical_missing[i] = lp
        return -1
    if k > i:
        tree.roots = [i]
        return -1
    tree.logical[i] = k
    return k


def _general(
    objs: list[CRecord],
    tree: ClaudeTree,
    pos: dict[str, int],
    nodes: list[int],
    conv: bytearray,
    side: bytearray,
) -> tuple[list[int], bytearray]:
    """Parents, cycles, compaction links and nearest user/assistant ancestors when some
    link points to a later line (then cycles are possible and file order is no order)."""
    n = len(objs)
    parent = tree.parent
    tree.logical.clear()
    tree.cycles.clear()
    for i in nodes:
        o = objs[i]
        p = o.parentUuid
        if p is None:
            parent[i] = -1
        elif p == o.uuid:
            parent[i] = -1
            tree.cycles.append(i)
        else:
            j = pos.get(p, -1)
            if j >= 0:
                parent[i] = j
            else:
                parent[i] = _bridge(objs, nodes, i)
                tree.bridges[i] = p
    _cut_cycles(tree, nodes)
    _link_compactions(objs, tree, pos, nodes)
    order = _topological(parent, nodes)
    cpar = [-1] * n
    kids = bytearray(n)
    for i in order:
        q = parent[i]
        if q < 0:
            continue
        c = q if conv[q] else cpar[q]
        cpar[i] = c
        if c >= 0 and conv[i] and side[i] == side[c]:
            kids[c] = 2 if kids[c] else 1
    return cpar, kids


def _bridge(objs: list[CRecord], nodes: list[int], i: int) -> int:
    """The nearest node before record ``i`` on the same side (main or sidechain), or -1."""
    side = objs[i].isSidechain is True
    k = bisect_left(nodes, i) - 1
    while k >= 0:
        j = nodes[k]
        if (objs[j].isSidechain is True) == side:
            return j
        k -= 1
    return -1


def _cut_cycles(tree: ClaudeTree, nodes: list[int]) -> None:
    """Cut every cycle of parent links.

    Bridges and ordinary links point to earlier lines, so a cycle needs a link to a later
    line: only walks from those records are needed (each record is walked once).
    """
    parent = tree.parent
    starts = [i for i in nodes if parent[i] > i]
    state: dict[int, int] = {}  # 1: on the current walk, 2: done
    for s in starts:
        path = []
        j = s
        while j >= 0 and j not in state:
            state[j] = 1
            path.append(j)
            j = parent[j]
        if j >= 0 and state.get(j) == 1:  # back on this walk: a cycle through j
            loop = path[path.index(j) :]
            cut = next((k for k in loop if parent[k] > k), loop[0])
            parent[cut] = -1
            tree.cycles.append(cut)
        for k in path:
            state[k] = 2
    tree.cycles.sort()


def _link_compactions(
    objs: list[CRecord], tree: ClaudeTree, pos: dict[str, int], nodes: list[int]
) -> None:
    """Link each root with a ``logicalParentUuid`` to that record, unless it descends from
    the root itself (the walk would cycle): a union-find over the links made so far."""
    parent = tree.parent
    cands = [i for i in nodes if parent[i] == -1 and objs[i].logicalParentUuid is not None]
    if not cands:
        return
    rep = _roots(parent, nodes)
    for i in cands:
        lp = objs[i].logicalParentUuid
        assert lp is not None
        j = pos.get(lp)
        if j is None:
            tree.logical_missing[i] = lp
        elif _find(rep, j) == i:
            tree.logical_refused[i] = lp
        else:
            parent[i] = j
            tree.logical[i] = j
            rep[i] = _find(rep, j)


def _find(rep: dict[int, int], x: int) -> int:
    r = x
    while rep[r] != r:
        r = rep[r]
    while rep[x] != r:  # path compression
        rep[x], x = r, rep[x]
    return r


def _roots(parent: list[int], nodes: list[int]) -> dict[int, int]:
    """Each node's root (the end of its parent walk); roots map to themselves."""
    root: dict[int, int] = {}
    for i in nodes:
        if i in root:
            continue
        path = []
        j = i
        while j not in root and parent[j] >= 0:
            path.append(j)
            j = parent[j]
        r = root.get(j, j)
        root[j] = r
        for k in path:
            root[k] = r
    return root


def _topological(parent: list[int], nodes: list[int]) -> list[int]:
    """``nodes`` ordered so that each parent comes before its children (by depth)."""
    depth: dict[int, int] = {}
    for i in nodes:
        path = []
        j = i
        while j >= 0 and j not in depth:
            path.append(j)
            j = parent[j]
        d = depth[j] if j >= 0 else -1
        for k in reversed(path):
            d += 1
            depth[k] = d
    return sorted(nodes, key=depth.__getitem__)


def _conversation(
    objs: list[CRecord],
    tree: ClaudeTree,
    nodes: list[int],
    conv: bytearray,
    side: bytearray,
    cpar: list[int],
    kids: bytearray,
) -> None:
    parent = tree.parent
    n = len(objs)
    leaves = [i for i in nodes if conv[i] and not kids[i]]
    tree.branch_points = [i for i in nodes if kids[i] == 2]
    if not leaves:
        return
    mixed = any(side[i] for i in leaves) and any(not side[i] for i in nodes if conv[i])
    cands = [i for i in leaves if not side[i]] if mixed else leaves
    stamps = [objs[i].timestamp for i in leaves]
    if all(t is not None and len(t) == 24 and t[-1] == "Z" for t in stamps):
        # Claude Code's own form (ms, UTC): the text orders as the time does
        keys: dict[int, tuple[Any, int]] = {i: (t, i) for i, t in zip(leaves, stamps, strict=True)}
    else:
        keys = {i: (time_key(t), i) for i, t in zip(leaves, stamps, strict=True)}
    # the leaf written last in the file, not the latest in time: the one --resume loads
    # (lab: an older branch appended after the conversation is what Claude Code resumes)
    leaf = max(cands)
    tree.leaf = leaf
    chain = tree.walk(leaf)
    tree.chain = chain
    logical = tree.logical
    # a boundary on the chain is linked to its logical parent, or is the chain's root
    comp = [i for i in chain if i in logical] if logical else []
    if is_compact_boundary(objs[chain[0]]) and chain[0] not in logical:
        comp.insert(0, chain[0])
    tree.compactions = comp
    owner = [-1] * n  # 0: the conversation, k >= 1: branch k
    for i in chain:
        owner[i] = 0
    attach: dict[int, list[list[int]]] = {}
    tips: dict[int, Tip] = {leaf: Tip(leaf, RESUME, timestamp=objs[leaf].timestamp)}
    branch_no = 0
    paths: dict[int, list[int]] = {0: chain}
    where: dict[int, dict[int, int]] = {}  # owner → record → position on its path

    def continuation(join: int) -> int | None:
        """The user/assistant record that carries ``join``'s path on (None: none)."""
        o = owner[join]
        path = paths.get(o)
        if path is None:
            return None
        at = where.get(o)
        if at is None:
            at = where[o] = {x: k for k, x in enumerate(path)}
        k = at.get(join)
        if k is None:
            return None
        return next((x for x in path[k + 1 :] if conv[x]), None)

    # latest first (by time, so the result does not depend on where lines sit): each
    # branch's own path claims its records before an earlier side leaf hangs off it
    for lf in sorted(leaves, key=keys.__getitem__, reverse=True):
        if lf == leaf:
            continue
        seg = []
        j = lf
        while j >= 0 and owner[j] == -1:
            seg.append(j)
            j = parent[j]
        seg.reverse()
        ts = objs[lf].timestamp
        if j >= 0 and _is_parallel(objs, parent, seg, j):
            o = owner[j]
            for k in seg:
                owner[k] = o
            attach.setdefault(j, []).append(seg)
            tips[lf] = Tip(lf, PARALLEL, j, seg, timestamp=ts)
            continue
        branch_no += 1
        kind = SIDECHAIN if mixed and side[lf] else BRANCH
        join = j if j >= 0 else None
        rewind = False
        if kind == BRANCH and join is not None:
            first = next((k for k in seg if conv[k]), None)
            rewind = _typed(objs, first) and _typed(objs, continuation(join))
        for k in seg:
            owner[k] = branch_no
        paths[branch_no] = seg
        tips[lf] = Tip(lf, kind, join, seg, rewind, ts)
    tree.tips = [tips[i] for i in sorted(tips)]
    tree.conversation = _splice(chain, attach) if attach else list(chain)
    tree.after_leaf = [i for i in nodes if cpar[i] == leaf and not conv[i]]


def _group(objs: list[CRecord], parent: list[int], join: int) -> tuple[Any, set]:
    """The response ``join`` belongs to — the ``message.id`` of the nearest assistant
    record at or above it, through tool results and transparent records — and the tool
    uses of that response's parts above ``join``."""
    k = join
    mid = None
    tools: set = set()
    steps = 0
    while k >= 0 and steps < TURN_WALK_LIMIT:
        o = objs[k]
        t = o.type
        if t == "assistant":
            m = message_id(o)
            if mid is None:
                mid = m
            elif m != mid:
                break
            tools.update(tool_use_ids(o))
        elif t == "user" and user_kind(o) != TOOL_RESULTS:
            break
        k = parent[k]
        steps += 1
    return mid, tools


def _is_parallel(objs: list[CRecord], parent: list[int], seg: list[int], join: int) -> bool:
    """``seg`` (hanging off ``join``) holds only more parts of ``join``'s response, results
    of that response's tool uses, injected text and transparent records."""
    if len(seg) == 1:  # the usual one: a result hanging off the part that used the tool
        o, j = objs[seg[0]], objs[join]
        if o.type == "user" and j.type == "assistant" and o.isMeta is not True:
            rids = tool_result_ids(o)
            if rids and user_kind(o) == TOOL_RESULTS and set(rids) <= set(tool_use_ids(j)):
                return True
    mid, tools = _group(objs, parent, join)
    if mid is None:
        return False
    seen_conv = False
    for k in seg:
        o = objs[k]
        if o.type == "assistant":
            if message_id(o) != mid:
                return False
            tools.update(tool_use_ids(o))
            seen_conv = True
    for k in seg:
        o = objs[k]
        if o.type != "user" or o.isMeta is True:
            continue
        rids = tool_result_ids(o)
        if not rids or user_kind(o) != TOOL_RESULTS or not all(r in tools for r in rids):
            return False
        seen_conv = True
    return seen_conv


def _typed(objs: list[CRecord], i: int | None) -> bool:
    """Record ``i`` is a typed prompt."""
    return i is not None and objs[i].type == "user" and user_kind(objs[i]) == PROMPT


def _splice(chain: list[int], attach: dict[int, list[list[int]]]) -> list[int]:
    """``chain`` with the attached segments merged in: each segment record comes after the
    record it hangs off, and otherwise in file order (a heap of the waiting segment
    records; chain records keep their order). Runs of the chain with nothing waiting are
    copied as slices."""
    out: list[int] = []
    heap: list[tuple[int, int, list[int]]] = []  # (record, position in its segment, segment)
    at = {x: k for k, x in enumerate(chain) if x in attach}
    stops = sorted(at.values())

    def attached(x: int) -> None:
        for seg in attach.get(x, ()):
            heapq.heappush(heap, (seg[0], 0, seg))

    def pop() -> None:
        x, k, seg = heapq.heappop(heap)
        out.append(x)
        if k + 1 < len(seg):
            heapq.heappush(heap, (seg[k + 1], k + 1, seg))
        attached(x)

    k = 0
    n = len(chain)
    for stop in [*stops, n]:
        while k < stop:
            if not heap:
                out.extend(chain[k:stop])
                k = stop
                break
            y = chain[k]
            while heap and heap[0][0] < y:
                pop()
            out.append(y)
            k += 1
        if k < n:
            y = chain[k]
            while heap and heap[0][0] < y:
                pop()
            out.append(y)
            attached(y)
            k += 1
    while heap:
        pop()
    return out

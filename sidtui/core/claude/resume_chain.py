"""The records Claude Code 2.1.332 loads on ``--resume``: its parent walk (docs/CLAUDE-CODE.md §11.2).

Claude Code reads every line ``JSON.parse`` accepts (a damaged line and every record on it
are gone), picks the leaf — the user/assistant record nothing follows that is written last
in the file, not the latest in time — and walks ``parentUuid`` back. Where a parent is not loaded (never
written, or on a damaged line) it joins the record to the loaded record written just before
it **in time** — when that one is less than :data:`BRIDGE_SECONDS` older; otherwise the walk
stops there and everything before is not sent. Either way, when the walk breaks before it
reaches the record the last ``last-prompt`` record names (2.1.332 writes one each time it
finishes a prompt: the leaf then), and that record is loaded, the walk starts again from it
instead (lab). A compact boundary (``parentUuid: null``)
ends the walk too; 2.1.332 puts the messages it preserved after the summary
(``compactMetadata.preservedMessages`` / ``preservedSegment``). Parallel tool calls' side
branches (more parts of a response on the walk, their results) are spliced in as the
display tree splices them.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sidtui.core.claude.scan import CRecord
from sidtui.core.claude.tree import ClaudeTree, time_key

#: A record whose parent is not loaded is joined to the record written just before it when
#: that one is less than this many seconds older (lab: joined at 4.9 s, cut at 5.1 s).
BRIDGE_SECONDS = 5.0
_NODE_TYPES = frozenset({"user", "assistant", "system", "attachment", "progress"})


@dataclass
class LoadedChain:
    """What the walk loads.

    Attributes:
        records: the records in conversation order (splices and preserved messages in).
        bridges: record → the record Claude Code joined it to (its parent not loaded).
        cut_at: the record where the walk stopped on a parent not loaded (None: it reached
            a root or a compact boundary); missing_parent: that parent's uuid.
        leaf: the leaf it walked from (None: no conversation).
    """

    records: list[int] = field(default_factory=list)
    bridges: dict[int, int] = field(default_factory=dict)
    cut_at: int | None = None
    missing_parent: str | None = None
    leaf: int | None = None


def loaded_chain(
    objs: list[CRecord],
    gone: set[int],
    tree: ClaudeTree,
    full: Callable[[int], Any] | None,
) -> LoadedChain:
    """The walk of ``objs`` as Claude Code does it (see the module docstring); ``gone``:
    the records Claude Code does not read (on damaged lines). Never raises."""
    out = LoadedChain()
    # the leaf written last in the file, not the latest in time (lab; the display's too)
    leaf = _tree_leaf(objs, gone, tree)
    if leaf is None:
        loaded = _loaded(objs, gone)
        by_uuid: dict[str, int] = {}
        for i in loaded:
            by_uuid.setdefault(objs[i].uuid, i)  # type: ignore[arg-type]
        leaf = _leaf(objs, loaded, by_uuid)
    if leaf is None:
        return out
    out.leaf = leaf
    walk = _walk(objs, gone, tree, leaf, out)
    if out.cut_at is not None or out.bridges:
        # the walk breaks before the record of the last finished prompt: that record is
        # the leaf instead (lab)
        hint = _last_prompt_leaf(objs, gone)
        at = {r: k for k, r in enumerate(walk)}
        brk = max(at[r] for r in [*out.bridges, out.cut_at] if r is not None)
        if (
            hint is not None
            and hint not in walk[brk:]
            # an attachment named there that the walk joins to anyway: the join stands
            and not (objs[hint].type == "attachment" and out.bridges.get(walk[brk]) == hint)
        ):
            out = LoadedChain(leaf=hint)
            walk = _walk(objs, gone, tree, hint, out) + _answers(objs, gone, hint)
    out.records = _spliced(tree, walk, gone, objs)
    if out.bridges:
        out.records = _with_answers(objs, gone, out.records)
    if full is not None:
        out.records = _with_preserved(objs, gone, out.records, full)
    return out


def _with_answers(objs: list[CRecord], gone: set[int], records: list[int]) -> list[int]:
    """``records`` with the tool results just below their assistant records that they lack
    (after a join the display's own splice of parallel tool calls can miss them: the
    result of a call whose sibling was lost hangs off a branch there), each after the
    assistant record it answers (lab)."""
    have = set(records)
    want: dict[str, list[int]] = {}
    for i, o in enumerate(objs):
        if o.type == "user" and i not in have and i not in gone and isinstance(o.parentUuid, str):
            want.setdefault(o.parentUuid, []).append(i)
    if not want:
        return records
    out: list[int] = []
    for r in records:
        out.append(r)
        o = objs[r]
        if o.type == "assistant" and o.uuid in want:
            out.extend(c for c in _answers(objs, gone, r, want[o.uuid]) if c not in have)
    return out


def _answers(
    objs: list[CRecord], gone: set[int], leaf: int, below: list[int] | None = None
) -> list[int]:
    """The loaded user records just below an assistant ``leaf`` (among ``below``, else
    the records after it) that answer its tool uses (Claude Code sends them with it when it
    resumes from that record: lab)."""
    o = objs[leaf]
    if o.type != "assistant" or o.message is None or not isinstance(o.message.content, list):
        return []
    ids = {b.id for b in o.message.content if b.type == "tool_use"}
    if not ids:
        return []
    out = []
    for i in below if below is not None else range(leaf + 1, len(objs)):
        r = objs[i]
        c = r.message.content if r.message is not None else None
        if (
            r.type == "user"
            and r.parentUuid == o.uuid
            and i not in gone
            and isinstance(c, list)
            and any(b.type == "tool_result" and b.tool_use_id in ids for b in c)
        ):
            out.append(i)
    return out


def _last_prompt_leaf(objs: list[CRecord], gone: set[int]) -> int | None:
    """The record the last ``last-prompt`` record names (``leafUuid``: the leaf when Claude
    Code 2.1.332 last finished a prompt, an attachment too), if it is loaded."""
    want = None
    for i in range(len(objs) - 1, -1, -1):
        o = objs[i]
        if o.type == "last-prompt" and i not in gone:
            want = o.leafUuid
            break
    if not isinstance(want, str):
        return None
    for i, o in enumerate(objs):
        if o.uuid == want and o.type in _NODE_TYPES and i not in gone:
            return i
    return None


def _loaded(objs: list[CRecord], gone: set[int]) -> list[int]:
    return [
        i
        for i, o in enumerate(objs)
        if o.type in _NODE_TYPES and isinstance(o.uuid, str) and i not in gone
    ]


def _walk(
    objs: list[CRecord], gone: set[int], tree: ClaudeTree, leaf: int, out: LoadedChain
) -> list[int]:
    """The parent walk from ``leaf``, oldest first, bridging by time (module docstring).

    The display tree's links are the ``parentUuid`` links where it did not bridge (a
    bridged record's parent is not in the file) or link a compact boundary to its logical
    parent (Claude Code's walk ends at the boundary); a parent Claude Code does not read
    (``gone``) is missing to it too.
    """
    parent = tree.parent
    bridged, logical = tree.bridges, tree.logical
    seen: set[int] = set()
    walk: list[int] = []
    times: _Times | None = None
    i = leaf
    while True:
        seen.add(i)
        walk.append(i)
        if i in logical:
            break
        p = parent[i]
        if p >= 0 and i not in bridged and p not in gone:
            if p in seen:  # a cycle: the walk stops
                break
            i = p
            continue
        missing = objs[i].parentUuid
        if (p < 0 and i not in bridged) or not isinstance(missing, str):
            break  # a root (or a cycle cut there, or a boundary not linked)
        if times is None:
            times = _Times(objs, _loaded(objs, gone))
        c = times.just_before(i, seen)
        if c is None:
            out.cut_at, out.missing_parent = i, missing
            break
        out.bridges[i] = c
        i = c
    walk.reverse()
    return walk


class _Times:
    """Loaded records by timestamp, for :func:`_walk`'s bridges (built only when needed)."""

    def __init__(self, objs: list[CRecord], loaded: list[int]) -> None:
        self.objs = objs
        keyed = []
        for i in loaded:
            k = time_key(objs[i].timestamp)
            if k[0] and k[1] != float("-inf"):
                keyed.append((k[1], -i))
        keyed.sort()  # equal times: the earlier line last, so it is the one found (lab)
        self.keys = [t for t, _ in keyed]
        self.recs = [-i for _, i in keyed]

    def just_before(self, i: int, seen: set[int]) -> int | None:
        """The record of the same side written last before record ``i`` (strictly earlier,
        not on the walk), if less than :data:`BRIDGE_SECONDS` older."""
        o = self.objs[i]
        k = time_key(o.timestamp)
        if not k[0] or k[1] == float("-inf"):
            return None
        side = o.isSidechain is True
        at = bisect_left(self.keys, k[1]) - 1
        while at >= 0 and k[1] - self.keys[at] < BRIDGE_SECONDS:
            c = self.recs[at]
            if c not in seen and (self.objs[c].isSidechain is True) == side:
                return c
            at -= 1
        return None


def _spliced(tree: ClaudeTree, walk: list[int], gone: set[int], objs: list[CRecord]) -> list[int]:
    """``walk`` with the display tree's side records (parallel tool calls) whose branch
    hangs off a walk record, in the display conversation's order, and the transparent
    records below the leaf at the end. A part of a response on the display chain that the
    walk passed by (it went up a sibling part's branch) is one of them too."""
    chain = tree.chain
    if walk and len(walk) <= len(chain) and chain[len(chain) - len(walk)] == walk[0]:
        if chain[len(chain) - len(walk) :] == walk:  # the display's own chain, or its end
            conv = tree.conversation
            out = conv[conv.index(walk[0]) :] if walk[0] in conv else list(walk)
            if walk[-1] == tree.leaf:
                out = out + tree.after_leaf
            return [i for i in out if i not in gone] if gone else out
    on_chain = set(chain)
    on_walk = set(walk)
    parent = tree.parent
    pos = {r: k for k, r in enumerate(tree.conversation)}
    keyed: list[tuple[float, int]] = []
    last = -1.0
    for w in walk:  # the walk's order; a record the display chain lacks follows its walk
        last = float(pos[w]) if w in pos and pos[w] > last else last + 1e-6
        keyed.append((last, w))
    for r in tree.conversation:
        if r in on_walk:
            continue
        if r in on_chain:
            if _same_response(objs, r, parent[r]) and parent[r] in on_walk:
                keyed.append((float(pos[r]), r))
            continue
        a = parent[r]
        for _ in range(10_000):
            if a < 0 or a in on_chain:
                break
            a = parent[a]
        if a >= 0 and a in on_walk:
            keyed.append((float(pos[r]), r))
    keyed.sort()
    out = [r for _, r in keyed]
    if walk and walk[-1] == tree.leaf:
        out.extend(tree.after_leaf)
    return [i for i in out if i not in gone]


def _same_response(objs: list[CRecord], r: int, p: int) -> bool:
    """Records ``r`` and ``p`` are assistant parts of one response (one ``message.id``)."""
    if p < 0:
        return False
    a, b = objs[r], objs[p]
    return (
        a.type == "assistant"
        and b.type == "assistant"
        and a.message is not None
        and b.message is not None
        and a.message.id is not None
        and a.message.id == b.message.id
    )


def _with_preserved(
    objs: list[CRecord],
    gone: set[int],
    conv: list[int],
    full: Callable[[int], Any],
) -> list[int]:
    """``conv`` with 2.1.332's compaction: a ``compact_boundary`` whose ``compactMetadata``
    names preserved messages (``preservedMessages.uuids``, or the ``preservedSegment``
    head…tail) is followed by its summary (the anchor) and then those messages — the
    last replies before the boundary, sent again — then what was written after.

    The boundary is in effect when its anchor is in ``conv``, or the preserved tail is and
    records written after the boundary follow it (later writes hang off the tail); a walk
    joined to the boundary itself (§5.2) sends neither summary nor preserved messages.
    """
    bounds = [
        i
        for i, o in enumerate(objs)
        if o.type == "system"
        and o.subtype == "compact_boundary"
        and o.isSidechain is not True
        and i not in gone
    ]
    if not bounds:
        return conv
    pos = {i: k for k, i in enumerate(conv)}
    for b in reversed(bounds):
        seg = _segment(full(b), objs)
        if seg is None:
            continue
        anchor, kept = seg
        kept = [j for j in kept if j not in gone]
        if anchor is not None and anchor in pos:
            cut = pos[anchor]
        elif b in pos:  # reached by a join, not through its summary: as it is (lab)
            return conv
        elif kept and kept[-1] in pos and any(j > b for j in conv[pos[kept[-1]] + 1 :]):
            cut = pos[kept[-1]]
        else:
            continue
        skip = set(kept)
        head = [b] + ([anchor] if anchor is not None and anchor not in gone else [])
        return head + kept + [j for j in conv[cut + 1 :] if j not in skip]
    return conv


def _segment(rec: Any, objs: list[CRecord]) -> tuple[int | None, list[int]] | None:
    """(the anchor record, the preserved records in order) a boundary names; None: it
    names none."""
    cm = rec.get("compactMetadata") if isinstance(rec, dict) else None
    if not isinstance(cm, dict):
        return None
    pm, ps = cm.get("preservedMessages"), cm.get("preservedSegment")
    anchor_uuid: Any = None
    uuids: list[Any] = []
    if isinstance(pm, dict) and isinstance(pm.get("uuids"), list):
        anchor_uuid, uuids = pm.get("anchorUuid"), pm["uuids"]
    elif isinstance(ps, dict):
        anchor_uuid = ps.get("anchorUuid")
        uuids = [ps.get("headUuid"), ps.get("tailUuid")]
    else:
        return None
    want = {u for u in [anchor_uuid, *uuids] if isinstance(u, str)}
    if not want:
        return None
    at: dict[str, int] = {}
    for i, o in enumerate(objs):
        u = o.uuid
        if u in want and u not in at:
            at[u] = i
    if isinstance(pm, dict):
        kept = [at[u] for u in uuids if isinstance(u, str) and u in at]
    else:
        kept = _head_to_tail(objs, at.get(uuids[0]), at.get(uuids[1]))
    return at.get(anchor_uuid) if isinstance(anchor_uuid, str) else None, kept


def _head_to_tail(objs: list[CRecord], head: int | None, tail: int | None) -> list[int]:
    """The records from ``head`` to ``tail`` by parent links (just the two when the walk
    from the tail does not reach the head within the file)."""
    if head is None or tail is None:
        return [j for j in (head, tail) if j is not None]
    by = {o.uuid: i for i, o in enumerate(objs) if o.uuid is not None and i <= tail}
    out = [tail]
    i = tail
    while i != head and len(out) <= len(objs):
        p = objs[i].parentUuid
        j = by.get(p) if isinstance(p, str) else None
        if j is None:
            return [head] if head == tail else [head, tail]
        out.append(j)
        i = j
    out.reverse()
    return out


def _tree_leaf(objs: list[CRecord], gone: set[int], tree: ClaudeTree) -> int | None:
    """The display tree's leaf when it is surely :func:`_leaf`'s too (the usual file): the
    last main user/assistant record written, loaded, and below it at most records nothing
    hangs off (a system note, a hook's record). None: not sure (then :func:`_leaf` finds
    it)."""
    leaf = tree.leaf
    if leaf is None or leaf in gone:
        return None
    for i in range(len(objs) - 1, leaf, -1):
        o = objs[i]
        if o.type in ("user", "assistant") and o.isSidechain is not True:
            return None
    o = objs[leaf]
    u = o.uuid
    if o.isSidechain is True or not isinstance(u, str):
        return None
    below = [r for r in objs if r.parentUuid == u]
    if any(r.type in ("user", "assistant") or not isinstance(r.uuid, str) for r in below):
        return None
    names = {r.uuid for r in below}
    return None if any(type(r.parentUuid) is str and r.parentUuid in names for r in objs) else leaf


def _leaf(objs: list[CRecord], loaded: list[int], by_uuid: dict[str, int]) -> int | None:
    """The main user/assistant record with no user/assistant descendant written last in the
    file — not the latest in time (lab: an older branch appended last is resumed, and so is
    a /compact command written after its summary with an earlier timestamp)."""
    below = set()  # records with a user/assistant record below them
    conv = {i for i in loaded if objs[i].type in ("user", "assistant")}
    for i in reversed(loaded):
        p = objs[i].parentUuid
        if p is None:
            continue
        j = by_uuid.get(p)
        if j is None or j == i:
            continue
        if i in conv or i in below:
            below.add(j)
    for i in reversed(loaded):
        if i in conv and i not in below and objs[i].isSidechain is not True:
            return i
    return None

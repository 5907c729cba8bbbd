"""Chain rebuild exactly as sid-code's loader does it, plus the whole record tree.

:func:`rebuild_chain` walks parents back from the tail as the agent's loader does (cycles
and lost parents end the walk); :func:`build_tree` gives every head, tip, branch point and
skipped branch; :func:`extend_chain` continues a chain in place for the live tail.

Design notes: docs/ARCHITECTURE.md, “core/transcript/chain.py”.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from dataclasses import dataclass, field

from sidtui.core.base.words import plural
from sidtui.core.transcript.records import RecordFile
from sidtui.core.transcript.structs import RecordRef
from sidtui.core.transcript.tolerant import link_text

#: Skipped branches named one by one in warnings (the rest are counted; --json lists all).
MAX_BRANCH_WARNINGS = 50


@dataclass
class ChainResult:
    """The loader's accepted chain.

    Attributes:
        chain: indexes into ``RecordFile.records``, oldest first.
        tail: index of the tail record (physical last good line), None for an empty file.
        linear: True when the tail has no string uuid (legacy linear parse: every record).
        cycle: True when the walk stopped on a repeated uuid.
        cycle_uuid: that uuid.
        lost_parent: the expected parent uuid that never appeared before the file start
            (the chain is cut there), else None.
        reached_head: True when the walk ended at a record with a null parent.
        fork_source: when the chain starts at a ``session_start`` whose parent is not in
            the file, that parent (the source session id of a fork, FORMAT.md §3.2); this
            is how forks look, not a lost parent.
    """

    chain: list[int] = field(default_factory=list)
    tail: int | None = None
    linear: bool = False
    cycle: bool = False
    cycle_uuid: str | None = None
    lost_parent: str | None = None
    reached_head: bool = False
    fork_source: str | None = None
    whole: bool = False

    def warnings(self, rf: RecordFile) -> list[str]:
        """Human-readable warnings about this chain."""
        out: list[str] = []
        if self.cycle:
            out.append(
                f"cycle in the parent chain at uuid {uuid_text(self.cycle_uuid)}: the chain was "
                "truncated there (the agent does the same)"
            )
        if self.lost_parent is not None:
            first = rf.records[self.chain[0]] if self.chain else None
            where = f" (needed by line {first.line})" if first else ""
            out.append(
                f"parent {uuid_text(self.lost_parent)} {self.lost_parent_where(rf)}{where}: the chain "
                "stops there and everything before it is unreachable to the agent"
            )
        return out

    def lost_parent_where(self, rf: RecordFile) -> str:
        """Why :attr:`lost_parent` was not found, as a phrase: it never appears in the file,
        it is the record's own uuid, or it is only on a later line (the agent's walk looks
        at earlier lines only, FORMAT.md §4.3)."""
        lost = self.lost_parent
        uuids = rf.columns()[1]
        try:
            i = uuids.index(lost)
        except ValueError:
            return "never appears in the file"
        line = rf.start_line + i + 1 if rf.is_fast else rf.records[i].line
        if self.chain and i == self.chain[0]:
            return f"is the record's own uuid (line {line})"
        return (
            f"is only on a later line (line {line}), and the agent's walk looks at "
            "earlier lines only"
        )


def uuid_text(u: str | None) -> str:
    """A uuid for a message: as written, or ``""`` when empty (it would vanish)."""
    return u if u else '""'


def rebuild_chain(rf: RecordFile) -> ChainResult:
    """Rebuild the chain the agent's loader accepts (FORMAT.md §4.3).

    Args:
        rf: the scanned file.

    Returns:
        A :class:`ChainResult`. Never raises; always terminates (the walk only moves
        backwards through the file).
    """
    res = ChainResult()
    n = rf.count
    if not n:
        return res
    tail_idx = n - 1
    res.tail = tail_idx
    if rf.whole:
        # one writer, nothing skipped: the walk would take every line
        res.chain, res.reached_head, res.whole = list(range(n)), True, True
        return res
    types, uuids, parents = rf.columns()
    if uuids[tail_idx] is None:
        records = rf.records
        res.linear = True
        res.chain = [r.index for r in records if r.is_object]
        return res
    if rf.odd_links:  # a number or boolean uuid/parentUuid: the agent's walk matches them
        uuids, parents = rf.link_columns()
    if is_one_linear_chain(uuids, parents):
        # one writer, nothing skipped: the walk would take every line (checked in C)
        chain, res.cycle_uuid, res.lost_parent, res.reached_head = (
            list(range(n)),
            None,
            None,
            True,
        )
        res.whole = True
    else:
        chain, res.cycle_uuid, res.lost_parent, res.reached_head = walk_columns(
            uuids, parents, tail_idx
        )
        if rf.odd_links:  # (a link key is no text: say it as the value)
            if res.cycle_uuid is not None and not isinstance(res.cycle_uuid, str):
                res.cycle_uuid = link_text(res.cycle_uuid)
            if res.lost_parent is not None and not isinstance(res.lost_parent, str):
                res.lost_parent = link_text(res.lost_parent)
    res.cycle = res.cycle_uuid is not None
    res.chain = chain
    if res.lost_parent is not None and types[chain[0]] == "session_start":
        res.fork_source, res.lost_parent = res.lost_parent, None
    return res


def is_one_linear_chain(uuids: list[str | None], parents: list[str | None]) -> bool:
    """Every record's parent is the previous record's uuid, the first is a head, and no uuid
    repeats: then the agent's backward walk takes every line, in order."""
    if parents[0] is not None or None in uuids:
        return False
    return parents[1:] == uuids[:-1] and len(set(uuids)) == len(uuids)


def walk_columns(
    uuids: list[str | None], parents: list[str | None], start: int
) -> tuple[list[int], str | None, str | None, bool]:
    """The agent's backward parent walk from ``start`` over the uuid/parent columns.

    Returns:
        (chain oldest first, cycle uuid or None, lost parent uuid or None, reached a head).
    """
    chain = [start]
    u = uuids[start]
    if u is None:
        return chain, None, None, False
    seen = {u}
    expected = parents[start]
    i = start - 1
    cycle = None
    while i >= 0 and expected is not None:
        u = uuids[i]
        i -= 1
        if u != expected:
            continue
        if u in seen:
            cycle = u
            break
        seen.add(u)
        chain.append(i + 1)
        expected = parents[i + 1]
    chain.reverse()
    lost = expected if (cycle is None and expected is not None) else None
    return chain, cycle, lost, cycle is None and expected is None


class _Walker:
    """:func:`_walk` for many starts over one file: each parent is found through an index
    of uuid → line positions (the nearest earlier one, as the backward scan finds it)
    instead of a scan, so walking from every tip of a file with thousands of lost parents
    is linear, not quadratic (a fresh-user trial: 20k tips took 19 s)."""

    __slots__ = ("uuids", "parents", "pos")

    def __init__(self, uuids: list[str | None], parents: list[str | None]) -> None:
        self.uuids, self.parents = uuids, parents
        pos: dict[str, list[int]] = {}
        for i, u in enumerate(uuids):
            if u is not None:
                lst = pos.get(u)
                if lst is None:
                    pos[u] = [i]
                else:
                    lst.append(i)
        self.pos = pos

    def parent_at(self, i: int) -> int:
        """The record ``i``'s walk steps to first (-1: none; a uuid-less record stops)."""
        p = self.parents[i]
        if p is None or self.uuids[i] is None:
            return -1
        lst = self.pos.get(p)
        if lst is None:
            return -1
        k = bisect_left(lst, i) - 1
        return lst[k] if k >= 0 else -1

    def walk(self, start: int) -> list[int]:
        """``walk_columns(uuids, parents, start)[0]``."""
        uuids, parents, pos = self.uuids, self.parents, self.pos
        chain = [start]
        u = uuids[start]
        if u is None:
            return chain
        seen = {u}
        expected = parents[start]
        at = start
        while expected is not None:
            lst = pos.get(expected)
            if lst is None:
                break
            k = bisect_left(lst, at) - 1
            if k < 0:
                break
            at = lst[k]
            if expected in seen:
                break
            seen.add(expected)
            chain.append(at)
            expected = parents[at]
        chain.reverse()
        return chain


@dataclass
class Branch:
    """A tip and the records only it reaches (not on the live chain).

    Attributes:
        tip: index of the tip record.
        records: indexes of the records on this branch that are not on the live chain,
            oldest first.
        joins_at: index of the live-chain record this branch hangs off, or None when the
            branch reaches a head without meeting the live chain (a separate history, e.g. a
            resume that restarted the chain, or a lost parent).
        head: index of the head record this branch ends at when ``joins_at`` is None.
    """

    tip: int
    records: list[int]
    joins_at: int | None
    head: int | None = None

    @property
    def skipped(self) -> int:
        """Number of records on this branch the loader skips."""
        return len(self.records)


@dataclass
class RecordTree:
    """The whole uuid/parentUuid tree of a file ([sidtui], FORMAT.md §4.6).

    Attributes:
        heads: indexes of records whose parent is null/absent.
        forked_heads: heads whose parent is a string that is no uuid in the file and that
            are ``session_start`` records (a fork: parent = source session id).
        lost_parents: records (not forked heads) whose parent uuid never appears in the file.
        tips: indexes of records no other record names as parent.
        branch_points: indexes of records with two or more children.
        live_tip: the tail the loader starts from (None for linear/empty files).
        branches: the non-live tips with their skipped records.
        skipped_records: uuid-carrying records not on the live chain.
        no_uuid_records: object records without a string uuid in a chained file.
        duplicate_uuids: uuids that appear on more than one line.
        whole: the tree is one path through every record (see ``ChainResult.whole``).
    """

    heads: list[int] = field(default_factory=list)
    forked_heads: list[int] = field(default_factory=list)
    lost_parents: list[int] = field(default_factory=list)
    tips: list[int] = field(default_factory=list)
    branch_points: list[int] = field(default_factory=list)
    live_tip: int | None = None
    branches: list[Branch] = field(default_factory=list)
    skipped_records: int = 0
    no_uuid_records: int = 0
    duplicate_uuids: list[str] = field(default_factory=list)
    whole: bool = False

    def warnings(self, rf: RecordFile) -> list[str]:
        """Human-readable warnings about the tree (several heads, skipped branches...)."""
        out: list[str] = []
        if (
            len(self.heads) + len(self.forked_heads) <= 1
            and not self.branches
            and not self.duplicate_uuids
        ):
            return out  # nothing to say: never build the records for it
        recs = rf.records
        real_heads = [h for h in self.heads]
        if len(real_heads) + len(self.forked_heads) > 1:
            lines = ", ".join(str(recs[h].line) for h in real_heads + self.forked_heads)
            out.append(
                f"the file has {len(real_heads) + len(self.forked_heads)} heads (lines "
                f"{lines}): a resume or a reused session id restarted the chain; the agent "
                "sees only the history reachable from the last line"
            )
        shown = [b for b in self.branches if own_marker_time(rf, b) is None]
        more = len(shown) - MAX_BRANCH_WARNINGS
        shown = shown[:MAX_BRANCH_WARNINGS]
        for b in shown:
            where = (
                f"hangs off line {recs[b.joins_at].line}"
                if b.joins_at is not None
                else "never meets the live chain"
            )
            out.append(
                f"branch ending at line {recs[b.tip].line} ({plural(b.skipped, 'record')}) {where}; "
                "the agent skips it"
            )
        if more > 0:
            out.append(f"… and {more} more skipped branches (all listed in --json branches)")
        if self.duplicate_uuids:
            out.append(
                f"{len(self.duplicate_uuids)} uuid(s) appear on more than one line "
                f"(first: {self.duplicate_uuids[0]})"
            )
        return out

    def notes(self, rf: RecordFile) -> list[str]:
        """What is off the chain by sidtui's own doing, and no warning: each skipped branch
        that is only sidtui's rewind or branch-switch markers (a rewind taken back with
        ``branch``), as ``rewind taken back at <time> …``."""
        out = []
        for b in self.branches:
            when = own_marker_time(rf, b)
            if when is not None:
                out.append(
                    f"rewind taken back at {when or 'an unknown time'}: sidtui's own marker "
                    f"(line {rf.records[b.tip].line}) is off the chain the agent resumes"
                )
        return out


#: Keys of the markers sidtui appends (``rewind``, ``branch`` / the app's ``b``).
OWN_MARKER_KEYS = ("rewind", "branch_switch")


def own_marker_time(rf: RecordFile, b: Branch) -> str | None:
    """The timestamp of ``b``'s tip when every record on ``b`` is a marker sidtui appended
    (``metadata``, key in :data:`OWN_MARKER_KEYS`, ``value.by == "sidtui"``; "" without a
    timestamp), else None. Branches of more than 4 records are never only markers."""
    if not b.records or len(b.records) > 4:
        return None
    for i in b.records:
        d = rf.decode_at(i)
        v = d.get("value") if isinstance(d, dict) else None
        if not (
            isinstance(d, dict)
            and d.get("type") == "metadata"
            and d.get("key") in OWN_MARKER_KEYS
            and isinstance(v, dict)
            and v.get("by") == "sidtui"
        ):
            return None
    tip = rf.decode_at(b.tip)
    ts = tip.get("timestamp") if isinstance(tip, dict) else None
    return ts if isinstance(ts, str) else ""


def build_tree(rf: RecordFile, chain: ChainResult) -> RecordTree:
    """Build the record tree and attribute every skipped record to a branch.

    Args:
        rf: the scanned file.
        chain: the loader's chain for the same file.

    Returns:
        A :class:`RecordTree`. Linear files get an empty tree (no uuids to link).
        O(records); never raises.
    """
    tree = RecordTree()
    if chain.whole:  # one path: its first record is the head, its last the only tip
        n = rf.count
        tree.heads, tree.tips, tree.live_tip, tree.whole = [0], [n - 1], chain.tail, True
        return tree
    recs = rf.records
    if chain.linear or not recs:
        tree.no_uuid_records = sum(1 for r in recs if r.is_object and r.uuid is None)
        return tree
    tree.live_tip = chain.tail
    # The agent's walk links a child to the closest *preceding* line with the parent uuid;
    # for the tree we use the same rule so branches agree with what the loader would do.
    last_seen: dict[str, int] = {}
    first_count: dict[str, int] = defaultdict(int)
    parent_of: dict[int, int | None] = {}
    children: dict[int, int] = defaultdict(int)
    for r in recs:
        if r.uuid is None:
            if r.is_object:
                tree.no_uuid_records += 1
            continue
        first_count[r.uuid] += 1
        p = r.parent
        if p is None:
            tree.heads.append(r.index)
            parent_of[r.index] = None
        elif p in last_seen:
            pi = last_seen[p]
            parent_of[r.index] = pi
            children[pi] += 1
        else:
            parent_of[r.index] = None
            if r.type == "session_start":
                tree.forked_heads.append(r.index)
            else:
                tree.lost_parents.append(r.index)
        last_seen[r.uuid] = r.index
    tree.duplicate_uuids = [u for u, c in first_count.items() if c > 1]
    tree.branch_points = sorted(i for i, c in children.items() if c >= 2)
    tree.tips = [i for i in parent_of if children.get(i, 0) == 0]
    on_chain = set(chain.chain)
    assigned: set[int] = set(on_chain)
    for tip in reversed(tree.tips):
        if tip == chain.tail or tip in on_chain:
            continue
        branch_recs: list[int] = []
        cur: int | None = tip
        joins_at = None
        head = None
        guard = len(recs) + 1
        while cur is not None and guard > 0:
            guard -= 1
            if cur in on_chain:
                joins_at = cur
                break
            if cur in assigned:
                break  # shares records with a branch already counted
            assigned.add(cur)
            branch_recs.append(cur)
            nxt = parent_of.get(cur)
            if nxt is None:
                head = cur
            cur = nxt
        branch_recs.reverse()
        tree.branches.append(Branch(tip, branch_recs, joins_at, head))
    tree.branches.sort(key=lambda b: b.tip)
    tree.skipped_records = sum(1 for r in recs if r.uuid is not None and r.index not in on_chain)
    return tree


def ancestors(rf: RecordFile, index: int) -> list[int]:
    """The agent-style parent walk from any record (oldest first).

    The same rules as :func:`rebuild_chain` but starting at ``index``: the conversation a
    non-live tip would give (branch switch, salvage). Cycle-safe, always terminates.
    """
    _, uuids, parents = rf.columns()
    return walk_columns(uuids, parents, index)[0]


def record_label(rec: RecordRef) -> str:
    """Short label for a record: ``line N type``."""
    return f"line {rec.line} {rec.type or '(no type)'}"


def longest_readable_chain(rf: RecordFile, tree: RecordTree) -> list[int]:
    """The longest parent chain in the file, preferring chains that hold a session_start.

    For a file the agent cannot load (a torn line glued to the next record, a lost
    parent, a cycle) this is what can still be saved (FORMAT.md §4.4: a bad line only cuts
    the chain). Returns record indexes oldest first; the live chain for linear files.
    """
    if tree.whole:  # one path through every record
        return list(range(rf.count))
    recs = rf.records
    if not recs:
        return []
    if tree.live_tip is None:
        return [r.index for r in recs if r.is_object]
    types, uuids, parents = rf.columns()
    walker = _Walker(uuids, parents)
    if all(len(v) == 1 for v in walker.pos.values()):
        # unique uuids: no walk can meet a uuid twice, so each record's chain is its
        # parent's plus itself; one pass gives every tip's length and start (linear)
        depth = [0] * len(uuids)
        has_start = [False] * len(uuids)
        for i in range(len(uuids)):
            j = walker.parent_at(i)
            depth[i] = depth[j] + 1 if j >= 0 else 1
            has_start[i] = types[i] == "session_start" or (j >= 0 and has_start[j])
        best_tip, best_key = None, (False, 0)
        for tip in tree.tips:
            key = (has_start[tip], depth[tip])
            if key > best_key:
                best_tip, best_key = tip, key
        return walker.walk(best_tip) if best_tip is not None else []
    # repeated uuids (a line appended again and again): tips with the same uuid whose walk
    # steps to the same record share the rest of the walk, so each rest is walked once
    best: list[int] = []
    best_key = (False, 0)
    rests: dict[tuple[str, int], tuple[list[int], bool]] = {}
    for tip in tree.tips:
        u, at = uuids[tip], walker.parent_at(tip)
        hit = rests.get((u, at)) if u is not None else None
        if hit is None:
            rest = walker.walk(tip)[:-1]
            hit = (rest, any(types[i] == "session_start" for i in rest))
            if u is not None:
                rests[(u, at)] = hit
        rest, has_start = hit
        key = (has_start or types[tip] == "session_start", len(rest) + 1)
        if key > best_key:
            best, best_key = [*rest, tip], key
    return best


def extend_chain(rf: RecordFile, res: ChainResult, first_new: int, known_uuids: set[str]) -> bool:
    """Extend ``res`` in place with records appended at ``rf.records[first_new:]``.

    For incremental tails (:mod:`sidtui.core.live.tail`): when the appended records continue the live tip one by
    one (each one's parent is the previous record's uuid, the first one's parent is the old
    tail's uuid, no uuid seen before), the loader's walk from the new tail is the old chain
    plus these records, so no walk is needed. Linear (uuid-less) files stay linear while
    the new records carry no uuid.

    Args:
        rf: the scanned file, already holding the appended records.
        res: the chain of ``rf.records[:first_new]`` (as :func:`rebuild_chain` returned it).
        first_new: index of the first appended record.
        known_uuids: every uuid in ``rf.records[:first_new]`` (any branch); a repeated uuid
            could make the walk stop on a cycle, so it forces a full rebuild.

    Returns:
        True when ``res`` now equals ``rebuild_chain(rf)``; False when the caller must
        rebuild in full (``res`` is then left unchanged).
    """
    records = rf.records
    new = records[first_new:]
    if not new:
        return True
    if res.tail is None or first_new == 0:
        return False
    if res.linear:
        if any(r.uuid is not None for r in new):
            return False
        res.chain.extend(r.index for r in new if r.is_object)
        res.tail = new[-1].index
        return True
    prev = records[res.tail].uuid
    if prev is None or res.cycle:
        return False
    seen: set[str] = set()
    for r in new:
        if r.uuid is None or r.parent != prev or r.uuid in known_uuids or r.uuid in seen:
            return False
        seen.add(r.uuid)
        prev = r.uuid
    res.chain.extend(r.index for r in new)
    res.tail = new[-1].index
    return True

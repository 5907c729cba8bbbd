"""Many tips stay linear: the indexed walk equals the agent's backward walk.

A fresh-user trial made files of 20k records whose parents are all missing (20k tips):
``show`` took 19 s because every tip's walk scanned the file backwards. The indexed walk
(:class:`sidtui.core.transcript.chain._Walker`) and the one-pass longest chain must give exactly what
the scan gives.
"""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from sidtui.core.transcript.chain import (
    _Walker,
    ancestors,
    build_tree,
    longest_readable_chain,
    rebuild_chain,
    walk_columns,
)
from sidtui.core.transcript.scan import scan_records

_ids = st.sampled_from(["a", "b", "c", "d", "e", None])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(_ids, _ids), min_size=1, max_size=30))
def test_indexed_walk_equals_the_backward_scan(cols):
    uuids = [u for u, _ in cols]
    parents = [p for _, p in cols]
    w = _Walker(uuids, parents)
    for i in range(len(cols)):
        assert w.walk(i) == walk_columns(uuids, parents, i)[0]


def _reference_longest(rf, tree):
    recs = rf.records
    best, best_key = [], (False, 0)
    for tip in tree.tips:
        chain = ancestors(rf, tip)
        key = (any(recs[i].type == "session_start" for i in chain), len(chain))
        if key > best_key:
            best, best_key = chain, key
    return best


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["session_start", "user_message", "metadata"]),
            st.sampled_from(["a", "b", "c", "d", "e", "f", "g"]),
            st.sampled_from(["a", "b", "c", "d", "x", None]),
        ),
        min_size=1,
        max_size=25,
    ),
    st.booleans(),
)
def test_longest_readable_chain_equals_per_tip_walks(recs, unique):
    lines = []
    for i, (t, u, p) in enumerate(recs):
        lines.append(
            orjson.dumps(
                {
                    "type": t,
                    "uuid": f"{u}{i}" if unique else u,
                    "parentUuid": p if not unique or p is None else f"{p}{i - 1}",
                }
            )
        )
    rf = scan_records(b"\n".join(lines) + b"\n")
    tree = build_tree(rf, rebuild_chain(rf))
    assert longest_readable_chain(rf, tree) == _reference_longest(rf, tree)


def test_twenty_thousand_lost_parents_are_one_pass():
    """The trial's file: every record's parent is missing (each record is a tip)."""
    lines = [orjson.dumps({"type": "session_start", "uuid": "s", "parentUuid": None})]
    lines += [
        orjson.dumps({"type": "user_message", "uuid": f"u{i}", "parentUuid": f"missing{i}"})
        for i in range(20_000)
    ]
    rf = scan_records(b"\n".join(lines) + b"\n")
    tree = build_tree(rf, rebuild_chain(rf))
    assert len(tree.tips) == 20_001
    assert longest_readable_chain(rf, tree) == [0]  # the one chain holding session_start


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_ids, _ids), min_size=1, max_size=30))
def test_parent_at_is_the_walks_first_step(cols):
    uuids = [u for u, _ in cols]
    parents = [p for _, p in cols]
    w = _Walker(uuids, parents)
    for i in range(len(cols)):
        chain = walk_columns(uuids, parents, i)[0]
        first = chain[-2] if len(chain) > 1 else -1
        assert w.parent_at(i) == first or (
            len(chain) == 1 and w.parent_at(i) >= 0 and uuids[w.parent_at(i)] in {uuids[i]}
        )


def test_branch_warnings_are_capped():
    """Thousands of skipped branches are named up to MAX_BRANCH_WARNINGS, then counted (a
    text `show` printed 20k warning lines)."""
    from sidtui.core.transcript.chain import MAX_BRANCH_WARNINGS

    lines = [orjson.dumps({"type": "session_start", "uuid": "s", "parentUuid": None})]
    lines += [
        orjson.dumps({"type": "user_message", "uuid": f"u{i}", "parentUuid": "s"})
        for i in range(300)
    ]
    rf = scan_records(b"\n".join(lines) + b"\n")
    tree = build_tree(rf, rebuild_chain(rf))
    assert len(tree.branches) == 299
    ws = [w for w in tree.warnings(rf) if "branch" in w]
    assert len(ws) == MAX_BRANCH_WARNINGS + 1
    assert ws[-1].startswith("… and 249 more skipped branches")

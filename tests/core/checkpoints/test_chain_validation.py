"""A corrupt stored diff deep in a long chain is caught by every rebuild, though each loaded
index judges a diff's ops only once (docs/DECISIONS.md, "Reading a hostile disk"): the
verdict is the same whatever order the entries are rebuilt in, and an index judges again
after :meth:`CheckpointIndex.invalidate`, a copy or a reload."""

from __future__ import annotations

import random

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidtui.core.checkpoints.diff import compute_diff
from sidtui.core.checkpoints.index import CheckpointIndex, encode_full
from sidtui.core.checkpoints.rebuild import chain_health, rebuild

PATH = "/proj/file.txt"
DIFFS = 49


def _chain() -> tuple[dict, list[str]]:
    """(index JSON of 1 full·gz + 49 diffs of one 300-line file, the text at each entry)."""
    rng = random.Random(7)
    cur = [f"line {i}: " + "lorem " * rng.randint(1, 4) for i in range(300)]
    texts = ["\n".join(cur)]
    snaps = []
    for k in range(DIFFS + 1):
        if k == 0:
            entry = {"type": "full", **encode_full(texts[0])}
        else:
            new = list(cur)
            for i in rng.sample(range(len(new)), 3):
                new[i] = f"edit {k} at {i}"
            entry = {"type": "diff", "diff": compute_diff("\n".join(cur), "\n".join(new))}
            cur = new
            texts.append("\n".join(cur))
        snaps.append(
            {
                "id": f"s{k + 1}",
                "timestamp": k + 1,
                "toolName": "edit",
                "toolSummary": PATH,
                "files": [{"filePath": PATH, "existedBefore": True, **entry}],
            }
        )
    data = {"sessionId": "x", "createdAt": 0, "nextId": DIFFS + 2, "snapshots": snaps}
    return data, texts


CHAIN, TEXTS = _chain()


def _keep_op(ops: list) -> dict:
    return max((op for op in ops if op["type"] == "keep"), key=lambda op: len(op["lines"]))


def _corrupt(ops: list, kind: str) -> str:
    """Spoil ``ops`` in place; the message invalid_ops gives for it."""
    keep = _keep_op(ops)
    n = ops.index(keep) + 1
    if kind == "non-string keep line":
        keep["lines"][-1] = 7
        return f"op {n} (keep) line {len(keep['lines'])} is int, not a string"
    if kind == "unknown type":
        keep["type"] = "bogus"
        return f"op {n} has an unknown type 'bogus'"
    if kind == "lines not a list":
        keep["lines"] = len(keep["lines"])
        return f"op {n} (keep) has lines of type int, not a list"
    ops[n - 1] = 5
    return f"op {n} is int, not an object"


KINDS = ["non-string keep line", "unknown type", "lines not a list", "op not an object"]


def _loaded(bad_at: int | None = None, kind: str = KINDS[0]) -> tuple[CheckpointIndex, str]:
    """The chain as read from disk, its diff at snapshot position ``bad_at`` spoilt; the
    reason every rebuild at or after it must give."""
    data = orjson.loads(orjson.dumps(CHAIN))
    reason = ""
    if bad_at is not None:
        bad = _corrupt(data["snapshots"][bad_at]["files"][0]["diff"]["ops"], kind)
        reason = f"s{bad_at + 1}: stored diff is corrupt ({bad})"
    return CheckpointIndex.parse(orjson.dumps(data, option=orjson.OPT_INDENT_2)), reason


def _check(index: CheckpointIndex, position: int, bad_at: int | None, reason: str) -> None:
    r = rebuild(index, PATH, position)
    if bad_at is not None and position >= bad_at:
        assert (r.content, r.reason) == (None, reason), position
    else:
        assert (r.content, r.reason) == (TEXTS[position], None), position


@pytest.mark.parametrize("kind", KINDS)
def test_a_corrupt_op_deep_in_the_chain_fails_every_rebuild_after_it(kind):
    index, reason = _loaded(40, kind)
    for _ in range(3):  # the verdict judged once is given again, not forgotten
        _check(index, DIFFS, 40, reason)
    for position in range(DIFFS + 1):
        _check(index, position, 40, reason)
    links = chain_health(index, PATH).links
    assert [link.rebuilds for link in links] == [i < 40 for i in range(DIFFS + 1)]
    assert {link.reason for link in links[40:]} == {reason}
    _check(index, DIFFS, 40, reason)


@settings(max_examples=40, deadline=None)
@given(
    bad_at=st.one_of(st.none(), st.integers(1, DIFFS)),
    kind=st.sampled_from(KINDS),
    order=st.lists(st.integers(0, DIFFS), min_size=1, max_size=12),
)
def test_rebuilds_in_any_order_on_one_index_agree_with_a_fresh_one(bad_at, kind, order):
    index, reason = _loaded(bad_at, kind)
    for position in order:
        _check(index, position, bad_at, reason)


def test_ops_changed_in_place_are_judged_again_after_invalidate():
    index, _ = _loaded()
    _check(index, DIFFS, None, "")
    ops = index.snapshots[30]["files"][0]["diff"]["ops"]
    reason = f"s31: stored diff is corrupt ({_corrupt(ops, KINDS[0])})"
    index.invalidate()
    _check(index, DIFFS, 30, reason)
    assert rebuild(index.copy(), PATH, DIFFS).reason == reason  # a copy judges its own ops
    _keep_op(ops)["lines"][-1] = "restored"  # any string: keep lines are only counted
    index.invalidate()
    assert rebuild(index, PATH, DIFFS).recoverable

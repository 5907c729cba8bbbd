"""The agent-format diff: exact round trip for every input, never empty for a change."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from sidtui.core.checkpoints.diff import (
    apply_diff,
    apply_ops,
    compute_diff,
    compute_ops,
    has_keep,
    keeps_match,
    ops_are_empty,
    split_lines,
)

text = st.text(alphabet=st.sampled_from(["a", "b", "\n", "\r", "é", "中", "😀", " ", "\x00"]))
lines_text = st.lists(st.sampled_from(["x", "y", "", "z\r", "重复"]), max_size=40).map("\n".join)


def _roundtrip(old: str, new: str) -> None:
    d = compute_diff(old, new)
    if old == new:
        assert d == {"ops": []}
        return
    assert d["ops"], "never an empty ops list for a real change"
    assert apply_diff(old, d) == new
    assert keeps_match(split_lines(old), d["ops"])
    kinds = [op["type"] for op in d["ops"]]
    assert all(op["lines"] for op in d["ops"])
    assert all(a != b for a, b in zip(kinds, kinds[1:], strict=False) if "keep" in (a, b))


@settings(max_examples=400, deadline=None)
@given(old=text, new=text)
def test_roundtrip_random_text(old, new):
    _roundtrip(old, new)


@settings(max_examples=400, deadline=None)
@given(old=lines_text, new=lines_text)
def test_roundtrip_line_heavy(old, new):
    _roundtrip(old, new)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    edits=st.lists(st.tuples(st.integers(0, 899), st.sampled_from(["a", "q", None])), max_size=30),
)
def test_roundtrip_large_middle_uses_myers(seed, edits):
    """Past the small-matrix cutoff the Myers path runs; it must stay exact and minimal."""
    rng = random.Random(seed)
    base = [rng.choice(["a", "b", "c", ""]) for _ in range(rng.randint(600, 900))]
    new = list(base)
    for i, v in edits:
        if i < len(new):
            if v is None:
                del new[i]
            else:
                new.insert(i, v)
    _roundtrip("\n".join(base), "\n".join(new))
    ops = compute_ops(base, new)
    from rapidfuzz.distance import Indel

    kept = sum(len(op["lines"]) for op in ops if op["type"] == "keep")
    assert kept == (len(base) + len(new) - Indel.distance(base, new)) // 2  # an LCS


def test_edge_cases():
    cases = [
        ("", "a"),
        ("a", ""),
        ("a\n", "a"),
        ("a", "a\n"),
        ("a\r\nb\r\n", "a\r\nc\r\n"),
        ("\n\n", "\n"),
        ("x" * 200_000, "x" * 199_999 + "y"),  # one huge line
        ("π\n中文\n😀", "π\n中文!\n😀"),
    ]
    for old, new in cases:
        _roundtrip(old, new)


def test_agent_apply_semantics_and_empty_ops_marker():
    assert apply_diff("a\nb\nc", {"ops": [{"type": "keep", "lines": ["a"]}]}) == "a"
    ops = [
        {"type": "keep", "lines": ["IGNORED"]},
        {"type": "remove", "lines": ["b"]},
        {"type": "add", "lines": ["B"]},
    ]
    # keep copies base lines (not its own), remove skips, add emits
    assert apply_ops(["a", "b", "c"], ops) == ["a", "B"]
    assert ops_are_empty({"ops": []}) and ops_are_empty(None)
    assert apply_diff("anything", {"ops": []}) == ""  # the agent's bug: reads as ""
    assert not has_keep([{"type": "remove", "lines": [""]}, {"type": "add", "lines": ["x"]}])


def test_ten_thousand_lines_get_a_real_diff():
    """⚠ The agent stores {ops: []} at ≥ 10,000 lines; we always store a real script."""
    rng = random.Random(7)
    a = [f"line {i}" for i in range(12_000)]
    b = list(a)
    for i in rng.sample(range(12_000), 10):
        b[i] = "changed"
    d = compute_diff("\n".join(a), "\n".join(b))
    assert len(d["ops"]) > 10
    assert apply_diff("\n".join(a), d) == "\n".join(b)


def test_repeated_lines_stay_exact():
    a = ["same"] * 5000
    b = list(a)
    b[100] = "x"
    b.insert(4000, "y")
    del b[2500]
    _roundtrip("\n".join(a), "\n".join(b))


def test_many_edits_in_a_large_file_stay_fast_and_exact():
    """Past Myers' edit cap the middle is cut at unique lines, not diffed quadratically."""
    import time

    rng = random.Random(3)
    a = [f"def f{i}(x): return x + {i}" for i in range(40_000)]
    b = list(a)
    for i in rng.sample(range(40_000), 3_000):
        b[i] = f"changed {i}"
    t = time.perf_counter()
    d = compute_diff("\n".join(a), "\n".join(b))
    elapsed = time.perf_counter() - t
    assert apply_diff("\n".join(a), d) == "\n".join(b)
    assert elapsed < 20  # not a timing test: a quadratic matcher would take minutes here


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), edits=st.integers(300, 700))
def test_roundtrip_past_the_myers_cap(seed, edits):
    rng = random.Random(seed)
    a = [rng.choice(["x", "y", f"u{rng.randint(0, 5000)}"]) for _ in range(rng.randint(800, 1500))]
    b = list(a)
    for _ in range(edits):
        i = rng.randrange(len(b))
        op = rng.random()
        if op < 0.3:
            del b[i]
        elif op < 0.6:
            b.insert(i, rng.choice(["x", "z", f"n{i}"]))
        else:
            b[i] = f"c{i}"
    _roundtrip("\n".join(a), "\n".join(b))


def test_every_op_line_must_be_a_string():
    """A line that is no string, in any op, makes the ops invalid (found by the C-level
    join first, then named by the loop)."""
    from sidtui.core.checkpoints.diff import invalid_ops

    assert (
        invalid_ops([{"type": "keep", "lines": ["a", "b"]}, {"type": "add", "lines": ["x"]}])
        is None
    )
    assert (
        invalid_ops([{"type": "keep", "lines": ["a", None]}])
        == "op 1 (keep) line 2 is NoneType, not a string"
    )
    assert (
        invalid_ops([{"type": "add", "lines": ["x", 7]}])
        == "op 1 (add) line 2 is int, not a string"
    )

"""The fast integrity check equals the plain block-by-block reference.

The reference below is ``check_integrity`` as first written (FORMAT.md §6.11): one walk over the
blocks, a tool_result pairs with an earlier tool_use, a tool_use with a later tool_result,
empty or unhashable ids ignored. ``check_integrity``, ``RecoveryResult.integrity_before``
(from the pre-pass's ids) and ``integrity_after`` (the loaded ids reused up to the first
message cleaning touched) must give the same tuples in the same order — compared through
``repr`` so ``1``/``True``/``1.0`` ids count as different.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sidtui.core.resume.integrity import Integrity, check_integrity
from sidtui.core.resume.recovery import recover
from sidtui.core.transcript.messages import Message
from sidtui.core.transcript.structs import make_block


def _hashable(v: object) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def _ref_check_integrity(messages) -> Integrity:
    integ = Integrity()
    uses: dict = {}
    answered: set = set()
    for pos, m in enumerate(messages):
        for b in m.blocks:
            t = b.type
            if (t == "tool_use" and m.role != "assistant") or (
                t == "tool_result" and m.role != "user"
            ):
                continue  # the agent counts tool_uses of assistants, results of users
            if t == "tool_use":  # empty and missing ids count, as the agent counts them
                if _hashable(b.id):
                    uses.setdefault(b.id, (b.name, pos, m.uuid))
            elif t == "tool_result" and _hashable(b.tool_use_id):
                if b.tool_use_id in uses:
                    answered.add(b.tool_use_id)
                else:
                    integ.dangling.append((b.tool_use_id, pos, m.uuid))
    integ.orphans = [(i, *v) for i, v in uses.items() if i not in answered]
    return integ


def _same(a: Integrity, b: Integrity) -> bool:
    return repr(a) == repr(b)


# --- random messages -----------------------------------------------------------------

_plain_ids = st.sampled_from(["t1", "t2", "t3", "t4", "t5"])
_odd_ids = st.sampled_from([None, "", 0, False, 1, True, 1.0, 2, [], ["t1"], {"a": 1}])
_ids = st.one_of(_plain_ids, _plain_ids, _plain_ids, _odd_ids)
_block = st.one_of(
    st.builds(lambda: make_block("text", text="hi")),
    st.builds(lambda: make_block("thinking", thinking="hm")),
    st.builds(
        lambda i, n: make_block("tool_use", id=i, name=n), _ids, st.sampled_from(["Read", "", None])
    ),
    st.builds(lambda i: make_block("tool_result", tool_use_id=i), _ids),
    st.builds(make_block, st.sampled_from(["image", None])),
)


@st.composite
def _messages(draw):
    specs = draw(
        st.lists(
            st.tuples(st.sampled_from(["user", "assistant"]), st.lists(_block, max_size=4)),
            max_size=12,
        )
    )
    base = draw(st.integers(0, 3))
    return [
        Message(base + i, None, f"u{i}", i + 1, None, role, blocks)
        for i, (role, blocks) in enumerate(specs)
    ]


@st.composite
def _histories(draw):
    """Agent-shaped: assistant tool_uses answered by the next user message, with a few
    answers missing, repeated or early — the fast pairing's common and edge cases."""
    n = draw(st.integers(0, 8))
    out = []
    k = 0
    for _ in range(n):
        ids = [f"t{k + j}" for j in range(draw(st.integers(0, 3)))]
        k += len(ids)
        out.append(
            (
                "assistant",
                [make_block("text", text="ok")]
                + [make_block("tool_use", id=i, name="Read") for i in ids],
            )
        )
        answers = draw(st.lists(st.sampled_from(ids + ["t0", "zz", ""]), max_size=4)) if ids else []
        if draw(st.booleans()):
            answers = ids
        out.append(
            (
                "user",
                [make_block("tool_result", tool_use_id=i) for i in answers]
                or [make_block("text", text="go on")],
            )
        )
    if draw(st.booleans()):
        out.append(("user", [make_block("text", text="next")]))
    return [
        Message(i, None, f"u{i}", i + 1, None, role, blocks) for i, (role, blocks) in enumerate(out)
    ]


_any_messages = st.one_of(_messages(), _histories())


@settings(max_examples=500, deadline=None)
@given(_any_messages)
def test_check_integrity_equals_reference(msgs):
    assert _same(check_integrity(msgs), _ref_check_integrity(msgs))
    assert _same(check_integrity(iter(msgs)), _ref_check_integrity(msgs))


@settings(max_examples=500, deadline=None)
@given(_any_messages)
def test_recovery_integrity_equals_reference(msgs):
    r = recover(msgs)
    assert _same(r.integrity_before, _ref_check_integrity(msgs))
    assert _same(r.integrity_after, _ref_check_integrity([cm.message for cm in r.messages]))
    # asked in the other order (after first) too
    r = recover(msgs)
    assert _same(r.integrity_after, _ref_check_integrity([cm.message for cm in r.messages]))
    assert _same(r.integrity_before, _ref_check_integrity(msgs))


def test_usual_history_is_intact():
    a = Message(0, None, "a", 1, None, "assistant", [make_block("tool_use", id="t", name="Read")])
    u = Message(1, None, "b", 2, None, "user", [make_block("tool_result", tool_use_id="t")])
    r = recover([a, u])
    assert r.integrity_before.intact and r.integrity_after.intact


def test_one_message_holding_both_halves_counts_by_its_role():
    """The agent counts tool_uses of assistant messages and tool_results of user messages
    only, so a message holding both halves counts one of them."""
    blocks = [
        make_block("tool_result", tool_use_id="t"),
        make_block("tool_use", id="t", name="Read"),
        make_block("tool_use", id="s", name="Bash"),
        make_block("tool_result", tool_use_id="s"),
    ]
    user = Message(0, None, "a", 1, None, "user", blocks)
    got = check_integrity([user])
    assert got.dangling == [("t", 0, "a"), ("s", 0, "a")] and got.orphans == []
    assistant = Message(0, None, "a", 1, None, "assistant", blocks)
    got = check_integrity([assistant])
    assert got.dangling == [] and got.orphans == [("t", "Read", 0, "a"), ("s", "Bash", 0, "a")]


def test_orphan_and_dangling_tuples():
    a = Message(
        0,
        None,
        "a",
        1,
        None,
        "assistant",
        [
            make_block("tool_use", id="x", name="Read"),
            make_block("tool_use", id="x", name="Other"),
            make_block("tool_use", id="y", name="Bash"),
        ],
    )
    u = Message(
        1,
        None,
        "b",
        2,
        None,
        "user",
        [
            make_block("tool_result", tool_use_id="y"),
            make_block("tool_result", tool_use_id="q"),
        ],
    )
    got = check_integrity([a, u])
    assert got.orphans == [("x", "Read", 0, "a")] and got.dangling == [("q", 1, "b")]

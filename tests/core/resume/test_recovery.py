"""Recovery layers, integrity, safe_slice_tail and interruption states (FORMAT.md §6)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sidtui.core.resume.integrity import check_integrity, safe_slice_tail
from sidtui.core.resume.recovery import recover
from sidtui.core.transcript.chain import rebuild_chain
from sidtui.core.transcript.loader import load_jsonl
from sidtui.core.transcript.messages import Message
from sidtui.core.transcript.scan import scan_records
from sidtui.core.transcript.structs import make_block
from tests.helpers import assistant, jsonl, start, tool_results, user


def load(*records):
    rf = scan_records(jsonl(*records))
    return load_jsonl(rf, rebuild_chain(rf)).messages


def test_trailing_user_prompt_is_interrupted_prompt_and_requeued():
    msgs = load(start(), user("U1", "S"), assistant("A1", "U1"), user("U2", "A1", "next?"))
    r = recover(msgs)
    assert r.interruption.kind == "interrupted_prompt"
    assert r.interruption.message.message.uuid == "U2"
    assert [c.message.uuid for c in r.messages] == ["U1", "A1"]
    assert r.resume_note is None


def test_trailing_tool_result_is_interrupted_turn_with_names():
    msgs = load(
        start(),
        user("U1", "S"),
        assistant("A1", "U1", tools=[("t1", "bash"), ("t2", "read")]),
        tool_results("R1", "A1", "t1", "t2"),
    )
    r = recover(msgs)
    assert r.interruption.kind == "interrupted_turn"
    assert r.interruption.tool_names == ["bash", "read"]
    assert "bash, read" in r.resume_note


def test_trailing_terminal_tool_result_is_none():
    msgs = load(
        start(),
        user("U1", "S"),
        assistant("A1", "U1", tools=[("t1", "exit_plan")]),
        tool_results("R1", "A1", "t1"),
    )
    r = recover(msgs, terminal_tool_names={"exit_plan"})
    assert r.interruption.kind == "none"
    assert recover(msgs).interruption.kind == "interrupted_turn"  # default: empty set


def test_trailing_assistant_is_none():
    msgs = load(start(), user("U1", "S"), assistant("A1", "U1"))
    r = recover(msgs)
    assert r.interruption.kind == "none" and r.resume_note


def test_thinking_only_assistant_at_end_dropped_by_its_layer_first():
    msgs = load(
        start(),
        user("U1", "S"),
        assistant("A1", "U1"),
        user("U2", "A1"),
        assistant("A2", "U2", text=None, thinking="hmm"),
    )
    r = recover(msgs)
    assert [(d.layer, d.index) for d in r.dropped] == [
        ("filter_orphaned_thinking_only_messages", 3)
    ]
    # with the remnant gone the history ends on the prompt
    assert r.interruption.kind == "interrupted_prompt"


def test_orphan_tool_use_stripped_then_thinking_remnant_dropped():
    """The fixture S07 shape: thinking + tool_use whose result was lost in a SIGKILL."""
    msgs = load(
        start(),
        user("U1", "S"),
        assistant("A1", "U1", text=None, thinking="t", tools=[("t9", "edit")]),
    )
    r = recover(msgs)
    assert [(d.layer, d.block) for d in r.dropped] == [
        ("filter_unresolved_tool_uses", 1),
        ("filter_orphaned_thinking_only_messages", None),
    ]
    assert r.integrity_before.orphans[0][0] == "t9" and r.integrity_after.intact


def test_whitespace_only_assistant_kept_empty_dropped_and_incomplete_blocks():
    """The agent's layer 5 drops only an empty content list (whitespace-only text stays);
    layer 6 drops the whole message holding a tool_result without tool_use_id."""
    m_ws = Message(0, None, None, None, None, "assistant", [make_block("text", text="  \n")])
    m_empty = Message(1, None, None, None, None, "assistant", [])
    m_user = Message(
        2, None, None, None, None, "user", [make_block("tool_result"), make_block("text", text="x")]
    )  # no tool_use_id
    m_ok = Message(3, None, None, None, None, "user", [make_block("text", text="hi")])
    r = recover([m_ws, m_empty, m_user, m_ok])
    assert [(d.layer, d.index, d.block) for d in r.dropped] == [
        ("filter_whitespace_only_assistant_messages", 1, None),
        ("validate_content_block_integrity", 2, None),
    ]
    assert [c.src_index for c in r.messages] == [0]  # m_ok re-queued as interrupted prompt
    assert r.interruption.message.src_index == 3


def test_invalid_permission_mode_is_stripped():
    m = Message(
        0,
        None,
        "u",
        1,
        "user_message",
        "user",
        [make_block("text", text="x")],
        {"permissionMode": "yolo"},
    )
    a = Message(1, None, "a", 2, "assistant_message", "assistant", [make_block("text", text="y")])
    r = recover([m, a])
    assert r.messages[0].changed and "permissionMode" not in r.messages[0].message.meta
    assert r.dropped[0].layer == "strip_invalid_permission_modes"


def _m(i, role, *blocks):
    return Message(i, None, None, None, None, role, list(blocks))


def test_safe_slice_tail_expands_then_shrinks():
    use = _m(0, "assistant", make_block("tool_use", id="t", name="read"))
    res = _m(1, "user", make_block("tool_result", tool_use_id="t"))
    fin = _m(2, "assistant", make_block("text", text="done"))
    assert safe_slice_tail([use, res, fin], 2) == [use, res, fin]  # expanded by one
    filler = [_m(10 + i, "user", make_block("text", text="x")) for i in range(6)]
    msgs = [use, *filler, res, fin]
    out = safe_slice_tail(msgs, 2, max_expand=5)
    assert out == [fin]  # could not reach the tool_use within 5: shrink past the result


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["use", "res", "text"]), st.integers(0, 4)), max_size=25),
    st.integers(0, 30),
)
def test_safe_slice_tail_never_dangling(spec, n):
    msgs = []
    for i, (kind, k) in enumerate(spec):
        if kind == "use":
            msgs.append(_m(i, "assistant", make_block("tool_use", id=f"t{k}", name="x")))
        elif kind == "res":
            msgs.append(_m(i, "user", make_block("tool_result", tool_use_id=f"t{k}")))
        else:
            msgs.append(_m(i, "user", make_block("text", text="t")))
    out = safe_slice_tail(msgs, n)
    assert (
        not check_integrity(out).dangling
        or len(out) == len(msgs)
        and check_integrity(msgs).dangling
    )
    assert out == msgs[len(msgs) - len(out) :] if out else True

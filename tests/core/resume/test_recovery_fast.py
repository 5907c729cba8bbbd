"""The recovery fast path (pre-pass + candidates) equals a plain reference.

The reference below is the straightforward pipeline: every layer on every message, one
message at a time, exactly as FORMAT.md §6 describes it. ``recover`` must give the same drops
(layer, index, uuid, reason, block) in the same order, the same resumed messages with the
same ``changed``/``kept``, and the same interruption.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sidtui.core.resume.cleaning import LAYERS, VALID_PERMISSION_MODES, CleanMessages
from sidtui.core.resume.recovery import recover
from sidtui.core.transcript.messages import THINKING_TYPES, Message
from sidtui.core.transcript.structs import make_block

# --- the reference -------------------------------------------------------------------


def _ref_recover(messages, terminal=frozenset()):
    drops = []
    # each entry: [message index, uuid, role, blocks (list of (orig pos, block)), meta, changed]
    msgs = [
        [m.index, m.uuid, m.role, list(enumerate(m.blocks)), dict(m.meta), False] for m in messages
    ]
    for e in msgs:  # layer 2
        mode = e[4].get("permissionMode")
        if mode and not (isinstance(mode, str) and mode in VALID_PERMISSION_MODES):
            del e[4]["permissionMode"]
            e[5] = True
            drops.append(
                (
                    LAYERS[1],
                    e[0],
                    e[1],
                    f"permissionMode {mode!r} is not a valid mode any more",
                    None,
                )
            )
    answered = {b.tool_use_id for e in msgs for _, b in e[3] if b.type == "tool_result"}
    for e in msgs:  # layer 3
        if e[2] != "assistant":
            continue
        keep = []
        for pos, b in e[3]:
            if b.type == "tool_use" and b.id not in answered:
                drops.append(
                    (LAYERS[2], e[0], e[1], f"tool_use {b.id} ({b.name}) has no tool_result", pos)
                )
                e[5] = True
            else:
                keep.append((pos, b))
        e[3] = keep
    out = []
    for e in msgs:  # layer 4
        if e[2] == "assistant" and e[3] and all(b.type in THINKING_TYPES for _, b in e[3]):
            drops.append(
                (
                    LAYERS[3],
                    e[0],
                    e[1],
                    "assistant message holds only thinking (stream interrupted before text)",
                    None,
                )
            )
        else:
            out.append(e)
    msgs, out = out, []
    for e in msgs:  # layer 5: only an empty content list
        if e[2] == "assistant" and not e[3]:
            drops.append((LAYERS[4], e[0], e[1], "assistant message has no content blocks", None))
        else:
            out.append(e)
    msgs, out = out, []
    for e in msgs:  # layer 6: the whole message
        reasons = []
        for _, b in e[3]:
            if b.type == "tool_use" and not b.id:
                reasons.append("tool_use block without id")
            elif b.type == "tool_use" and not b.name:
                reasons.append("tool_use block without name")
            elif b.type == "tool_result" and not b.tool_use_id:
                reasons.append("tool_result block without tool_use_id")
        if reasons:
            reason = "message dropped: " + ", ".join(dict.fromkeys(reasons))
            drops.append((LAYERS[5], e[0], e[1], reason, None))
            continue
        out.append(e)
    msgs = out
    kind, names, requeued = "none", [], None
    if msgs and msgs[-1][2] == "user":
        last = msgs[-1]
        if not any(b.type == "tool_result" for _, b in last[3]):
            kind, requeued, msgs = "interrupted_prompt", last[0], msgs[:-1]
        else:
            by_id = {}  # the message just before only (the agent's rule)
            for _, b in msgs[-2][3] if len(msgs) > 1 and msgs[-2][2] == "assistant" else ():
                if b.type == "tool_use":
                    by_id[b.id] = b.name or ""
            names = [
                by_id[b.tool_use_id]
                for _, b in last[3]
                if b.type == "tool_result" and b.tool_use_id in by_id
            ]
            kind = "none" if names and all(n in terminal for n in names) else "interrupted_turn"
    resumed = [(e[0], e[1], [p for p, _ in e[3]], [b for _, b in e[3]], e[4], e[5]) for e in msgs]
    return drops, resumed, kind, names, requeued


def _ours(messages, terminal=frozenset()):
    r = recover(messages, terminal_tool_names=terminal)
    drops = [(d.layer, d.index, d.uuid, d.reason, d.block) for d in r.dropped]
    resumed = [
        (
            c.src_index,
            c.message.uuid,
            c.kept_blocks,
            list(c.message.blocks),
            c.message.meta,
            c.changed,
        )
        for c in r.messages
    ]
    assert isinstance(r.messages, CleanMessages)
    assert len(r.messages) == len(resumed)
    im = r.interruption.message
    return (
        drops,
        resumed,
        r.interruption.kind,
        r.interruption.tool_names,
        im.src_index if im else None,
    )


# --- random messages -----------------------------------------------------------------

_ids = st.sampled_from(["t1", "t2", "t3", "t4", None, ""])
_texts = st.sampled_from(["hi", "  ", "", "\n\t", None, " x "])
_block = st.one_of(
    st.builds(lambda t: make_block("text", text=t), _texts),
    st.builds(lambda t: make_block("thinking", thinking=t), _texts),
    st.just(make_block("redacted_thinking")),
    st.builds(
        lambda i, n: make_block("tool_use", id=i, name=n), _ids, st.sampled_from(["Read", "", None])
    ),
    st.builds(lambda i: make_block("tool_result", tool_use_id=i), _ids),
    st.builds(make_block, st.sampled_from(["image", None, "weird"])),
)
_meta = st.one_of(
    st.none(),
    st.just({}),
    st.fixed_dictionaries(
        {"permissionMode": st.sampled_from(["default", "plan", "yolo", 3, None])}
    ),
)


@st.composite
def _messages(draw):
    specs = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["user", "assistant", None]), st.lists(_block, max_size=4), _meta
            ),
            max_size=12,
        )
    )
    base = draw(st.integers(0, 3))  # loader indexes need not start at 0 (listing's tail)
    return [
        Message(base + i, None, f"u{i}", i + 1, None, role, blocks, meta)
        for i, (role, blocks, meta) in enumerate(specs)
    ]


@settings(max_examples=400, deadline=None)
@given(_messages(), st.sampled_from([frozenset(), frozenset({"Read"})]))
def test_fast_path_equals_reference(msgs, terminal):
    assert _ours(msgs, terminal) == _ref_recover(msgs, terminal)


def test_typical_history_touches_no_wrapper():
    """A clean history: nothing dropped, nothing changed, every message passed through."""
    u = Message(0, None, "a", 1, None, "user", [make_block("text", text="do it")])
    a = Message(
        1,
        None,
        "b",
        2,
        None,
        "assistant",
        [make_block("text", text="ok"), make_block("tool_use", id="t", name="Read")],
    )
    r_ = Message(2, None, "c", 3, None, "user", [make_block("tool_result", tool_use_id="t")])
    r = recover([u, a, r_])
    assert not r.dropped and r.interruption.kind == "interrupted_turn"
    assert r.interruption.tool_names == ["Read"]
    assert [c.src_index for c in r.messages] == [0, 1, 2] and not any(c.changed for c in r.messages)
    assert r.messages[1:] == [r.messages[1], r.messages[2]]

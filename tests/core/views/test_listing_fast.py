"""``ls``'s per-file shortcuts give what the general paths give.

* :func:`sidtui.core.views.fast_summary._is_visible_reply`: a last message it accepts leaves the
  recovery pipeline's state at ``none`` (checked against :func:`recover` itself);
* :func:`sidtui.core.views.fast_summary._is_linear` is the chain's own linear test;
* the linear-file summary equals the general tail-walk summary, and both equal the full
  reader, on generated files.
"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import sidtui.core.views.fast_summary as fast_summary
from sidtui.core.base.home import Home, SessionFile
from sidtui.core.resume.recovery import recover
from sidtui.core.transcript.chain import is_one_linear_chain
from sidtui.core.transcript.messages import Message
from sidtui.core.transcript.structs import make_block
from sidtui.core.views.fast_summary import _is_linear, _is_visible_reply, _LsHeadT
from sidtui.core.views.listing import _full_summary, summarize
from tests.helpers import assistant, jsonl, rec, start, tool_results, user

_ids = st.sampled_from(["t1", "t2", None, ""])
_texts = st.sampled_from(["hi", "  ", "", "\n\t", None, " x ", 5])
_block = st.one_of(
    st.builds(lambda t: make_block("text", text=t), _texts),
    st.builds(lambda t: make_block("thinking", thinking=t), _texts),
    st.just(make_block("redacted_thinking")),
    st.builds(
        lambda i, n: make_block("tool_use", id=i, name=n), _ids, st.sampled_from(["Read", ""])
    ),
    st.builds(lambda i: make_block("tool_result", tool_use_id=i), _ids),
    st.builds(make_block, st.sampled_from(["image", None, "weird"])),
)
_meta = st.one_of(
    st.none(), st.fixed_dictionaries({"permissionMode": st.sampled_from(["default", "yolo", 3])})
)
_spec = st.tuples(st.sampled_from(["user", "assistant", None]), st.lists(_block, max_size=3), _meta)
_reply = st.tuples(
    st.sampled_from(["assistant", "user", None]),
    st.lists(st.builds(lambda t: make_block("text", text=t), _texts), min_size=0, max_size=3),
    _meta,
)


def _msg(i, spec):
    role, blocks, meta = spec
    return Message(i, None, f"u{i}", i + 1, None, role, blocks, meta)


@settings(max_examples=400, deadline=None)
@given(st.lists(_spec, max_size=11), st.one_of(_spec, _reply))
def test_a_visible_reply_last_means_no_interruption(history, last):
    msgs = [_msg(i, s) for i, s in enumerate([*history, last])]
    if _is_visible_reply(msgs[-1]):
        r = recover(msgs, terminal_tool_names=fast_summary.TERMINAL_TOOL_NAMES)
        assert r.interruption.kind == "none"
        assert r.messages  # the summary's fallback rule never applies


def test_visible_reply_shapes():
    def m(role, *blocks):
        return Message(0, None, "u", 1, None, role, list(blocks))

    text = make_block("text", text="done")
    blank = make_block("text", text="  ")
    assert _is_visible_reply(m("assistant", text))
    assert _is_visible_reply(m("assistant", blank, text))
    assert not _is_visible_reply(m("assistant", blank))
    assert not _is_visible_reply(m("assistant"))
    assert not _is_visible_reply(m("user", text))
    assert not _is_visible_reply(m("assistant", text, make_block("tool_use", id="t", name="R")))
    assert not _is_visible_reply(m("assistant", text, make_block("thinking", thinking="x")))
    assert not _is_visible_reply(None)


_uuid = st.sampled_from(["a", "b", "c", "d", None])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_uuid, _uuid), min_size=1, max_size=6), st.booleans())
def test_linear_test_is_the_chains(pairs, chained):
    if chained:  # mostly consecutive parents, so the other conditions get tested too
        pairs = [(u, pairs[i - 1][0] if i else p) for i, (u, p) in enumerate(pairs)]
    heads = [_LsHeadT("user_message", u, p) for u, p in pairs]
    want = is_one_linear_chain([u for u, _ in pairs], [p for _, p in pairs])
    assert _is_linear(heads) == want


# --- generated files: linear summary = general summary = full reader --------------------

KINDS = st.sampled_from(
    [
        "prompt",
        "answer",
        "blank_answer",
        "tools",
        "results",
        "meta",
        "end",
        "restart",
        "name",
        "trace",
        "odd_type",
        "odd_key",
        "thinking",
        "str_content",
    ]
)


def _file(kinds, branch_at):
    recs: list = [start("S")]
    last = "S"
    pending: list[str] = []
    for n, k in enumerate(kinds, 1):
        u = f"u{n}"
        if k == "prompt":
            recs.append(user(u, last, f"prompt {n}"))
        elif k == "answer":
            recs.append(assistant(u, last, f"answer {n}"))
        elif k == "blank_answer":
            recs.append(assistant(u, last, "  "))
        elif k == "thinking":
            recs.append(assistant(u, last, None, thinking="hmm"))
        elif k == "str_content":
            recs.append(
                rec(
                    "assistant_message",
                    u,
                    last,
                    message={"role": "assistant", "content": f"plain {n}"},
                )
            )
        elif k == "tools":
            pending = [f"t{n}a", f"t{n}b"]
            recs.append(
                assistant(u, last, None, tools=[(pending[0], "bash"), (pending[1], "read")])
            )
        elif k == "results":
            recs.append(tool_results(u, last, *(pending or ["zz"])))
        elif k == "meta":
            recs.append(rec("metadata", u, last, key="usage_stats", value={"totalCostUSD": n / 10}))
        elif k == "name":
            recs.append(rec("metadata", u, last, key="session_name", value=f"name {n}"))
        elif k == "trace":
            recs.append(rec("metadata", u, last, key="trace_session_id", value=f"T{n % 3}"))
        elif k == "odd_type":  # a chain field of another JSON type: the untyped heads
            recs.append(rec("metadata", u, last, key=7, value=1, timestamp=5, gitBranch=[1]))
            recs[-1]["type"] = 3 if n % 2 else "metadata"
        elif k == "odd_key":  # an unhashable metadata key
            recs.append(rec("metadata", u, last, key=["session_name"], value="not a title"))
        elif k == "end":
            recs.append(
                rec(
                    "session_end",
                    u,
                    last,
                    totalCostUSD=1.5,
                    totalMessages=n,
                    timestamp=f"2026-01-01T00:00:{n:02d}.000Z",
                )
            )
        elif k == "restart":
            recs.append(start(u, None))
        last = u
    if branch_at and len(recs) > branch_at:
        recs.insert(branch_at + 1, user("X1", recs[branch_at]["uuid"], "other writer"))
    return jsonl(*recs)


def _row(home, sf, data):
    s = summarize(home, sf, registrations=[], data=data)
    d = s.to_json()
    d.pop("mtime_ns"), d.pop("inode")
    return d


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(KINDS, max_size=16), st.integers(0, 3))
# a list key ("session_name" as String(key)) in a file whose heads do not all decode
@example(kinds=["str_content", "restart", "odd_key"], branch_at=0)
def test_linear_summary_equals_general_and_full(tmp_path, monkeypatch, kinds, branch_at):
    data = _file(kinds, branch_at)
    p = tmp_path / "sessions" / "p" / "20260101-000000-aaaaaaaa.jsonl"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    home = Home(tmp_path)
    sf = SessionFile(p, p.stem, "p")
    fast = _row(home, sf, data)
    with monkeypatch.context() as mp:  # the general path: untyped heads, recover() always
        mp.setattr(fast_summary, "_LS_HEAD_T", fast_summary._LS_HEAD)
        mp.setattr(fast_summary, "_is_visible_reply", lambda m: False)
        assert _row(home, sf, data) == fast
    full = _full_summary(home, sf, data, [])
    for k in (
        "format_version",
        "started",
        "model",
        "cwd",
        "interruption",
        "tool_names",
        "loadable",
        "ended",
        "cost_usd",
        "first_prompt",
        "title",
    ):
        assert fast[k] == getattr(full, k), k
    if full.last_activity is not None:
        assert fast["last_activity"] == full.last_activity

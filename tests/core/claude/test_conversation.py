"""Claude Code messages: merged responses, what is a typed prompt, how a session ended."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidtui.core.claude.conversation import build_messages, detect_interruption
from sidtui.core.claude.kinds import COMMAND, INTERRUPT, META, PROMPT, TOOL_RESULTS
from sidtui.core.claude.layout import ClaudeFile
from sidtui.core.claude.scan import scan
from sidtui.core.claude.transcript import load_transcript
from sidtui.core.claude.tree import build_tree
from tests.helpers import (
    cc_assistant,
    cc_boundary,
    cc_lines,
    cc_path,
    cc_results,
    cc_system,
    cc_user,
)


def _msgs(*records):
    sc = scan(cc_lines(*records))
    tree = build_tree(sc.objs)
    return build_messages(sc.objs, sc.lines, tree)


def _real(rel):
    p = cc_path(rel)
    return load_transcript(ClaudeFile(p, p.stem, p.parent.name))


def _end(*records):
    i = detect_interruption(_msgs(*records))
    return i.kind, i.tool_names


P = cc_user("p", None, "do it", ts=0)


def test_one_response_over_several_lines_is_one_message():
    msgs = _msgs(
        P,
        cc_assistant("a1", "p", "thinking aloud", ts=1, msg_id="m1"),
        cc_assistant("a2", "a1", None, ts=2, msg_id="m1", tools=[("t1", "Read")]),
        cc_assistant("a3", "a2", None, ts=3, msg_id="m1", tools=[("t2", "Grep")]),
        cc_results("r1", "a3", "t1", "t2", ts=4),
    )
    assert [(m.role, m.block_types) for m in msgs] == [
        ("user", ["text"]),
        ("assistant", ["text", "tool_use", "tool_use"]),
        ("user", ["tool_result", "tool_result"]),
    ]
    assert (
        msgs[1].records == [1, 2, 3]
        and msgs[1].uuid == "a1"
        and msgs[1].tool_names == ["Read", "Grep"]
    )


def test_parts_on_parallel_side_branches_merge_into_their_response():
    tr = _real(
        "-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-ab1e6e141221a29ab.jsonl"
    )
    ids = [m.message_id for m in tr.messages if m.role == "assistant"]
    assert len(ids) == len(set(ids)) == 15  # 23 assistant lines, 15 responses
    merged = {
        m.line: [tr.scan.lines[r] for r in m.records] for m in tr.messages if len(m.records) > 1
    }
    assert merged[11] == [11, 12] and merged[7] == [7, 8]
    lines = [m.line for m in tr.messages]
    assert lines == sorted(lines)
    results = [tr.scan.lines[m.record] for m in tr.messages if m.kind == TOOL_RESULTS]
    assert {9, 10, 13, 14} <= set(results)  # both results of each parallel pair


def test_local_commands_and_caveats_are_not_prompts():
    tr = _real(
        "-Users-dain-workspace-danieldemmel-me-next/4379d1bf-ccb1-414e-a856-9791b73f3af2.jsonl"
    )
    kinds = [m.kind for m in tr.messages if m.role == "user"]
    assert kinds[:3] == [META, COMMAND, COMMAND]  # the /clear triple
    assert kinds[-3:] == [META, COMMAND, COMMAND]  # the /model triple at the end
    assert [m.is_human_prompt for m in tr.messages].count(True) == kinds.count(PROMPT) == 1
    assert tr.interruption.kind == "none"  # the trailing command says nothing about the turn


def test_bash_mode_input_is_a_command():
    tr = _real(
        "-Users-dain-workspace-claude-code-log-sample/71c9afe9-d9cc-4583-86b3-e62ba682b83a.jsonl"
    )
    assert [m.kind for m in tr.messages] == [META, COMMAND, COMMAND]


def test_compacted_messages_are_marked():
    tr = _real(
        "-home-USER-projects-spotter-worktrees-spotter-a0y/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"
    )
    flags = [m.compacted for m in tr.messages]
    first_after = flags.index(False)
    assert all(flags[:first_after]) and not any(flags[first_after:])
    assert (
        tr.messages[first_after].line == 1585 and tr.messages[first_after].kind == "compact_summary"
    )


def test_a_quoted_marker_in_a_tool_result_is_no_interruption():
    # the upstream README counts a "[Request interrupted…]" inside a file the agent read
    tr = _real(
        "-Users-dain-workspace-claude-code-log-sample/07f2e15c-a38b-454b-9148-60edc06de401.jsonl"
    )
    assert not [m for m in tr.messages if m.kind == INTERRUPT]
    tr = _real(
        "-Users-dain-workspace-claude-code-log-sample/0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl"
    )
    assert [m.line for m in tr.messages if m.kind == INTERRUPT] == [15, 20, 45]
    assert tr.interruption.kind == "none"  # mid-session markers do not decide the end


# ------------------------------------------------------------------ interruption by shape


def test_a_finished_reply_is_none():
    assert _end(P, cc_assistant("a", "p", "done", ts=1)) == ("none", [])


def test_a_prompt_nothing_answered_is_an_interrupted_prompt():
    assert _end(P, cc_assistant("a", "p", ts=1), cc_user("q", "a", "and now?", ts=2)) == (
        "interrupted_prompt",
        [],
    )


def test_results_the_model_never_saw_are_an_interrupted_turn():
    recs = [
        P,
        cc_assistant("a1", "p", None, ts=1, msg_id="m", tools=[("t1", "Bash")]),
        cc_assistant("a2", "a1", None, ts=2, msg_id="m", tools=[("t2", "Glob")]),
        cc_results("r1", "a1", "t1", ts=3),
        cc_results("r2", "a2", "t2", ts=4),
    ]
    assert _end(*recs) == ("interrupted_turn", ["Bash", "Glob"])


def test_a_tool_use_without_a_result_is_an_interrupted_turn():
    i = detect_interruption(
        _msgs(P, cc_assistant("a", "p", "let me look", ts=1, tools=[("t9", "Read")]))
    )
    assert (i.kind, i.tool_names, i.pending) == ("interrupted_turn", ["Read"], ["t9"])


def test_a_marker_after_tool_results_names_the_tools():
    tr = _real("-home-marco-projects-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl")
    i = tr.interruption
    assert (i.kind, i.tool_names) == ("interrupted_turn", ["Bash", "Glob"])
    assert tr.messages[i.marker].line == 13 and tr.messages[i.marker].kind == INTERRUPT


def test_a_marker_after_a_reply_is_an_interrupted_turn():
    tr = _real("-home-marco-projects-spotter/d6e0bada-1959-4eec-a9d2-0bfade768d8f.jsonl")
    # lines 34 and 37 are one response (Read, WebFetch), its results 36 and 38 never answered
    assert (tr.interruption.kind, tr.interruption.tool_names) == (
        "interrupted_turn",
        ["Read", "WebFetch"],
    )
    cut = _end(
        P,
        cc_assistant("a", "p", "half a rep", ts=1),
        cc_user("x", "a", "[Request interrupted by user]", ts=2),
    )
    assert cut == ("interrupted_turn", [])


def test_a_marker_right_after_the_prompt_is_an_interrupted_prompt():
    i = detect_interruption(_msgs(P, cc_user("x", "p", "[Request interrupted by user]", ts=1)))
    assert i.kind == "interrupted_prompt" and i.marker == 1 and i.message == 0


@pytest.mark.parametrize(
    "tail",
    [
        [cc_user("c1", "a", "<command-name>/exit</command-name>", ts=3)],
        [cc_system("s", "a", "local_command", ts=3, content="<command-name>/model</command-name>")],
        [cc_user("m", "a", "Caveat: …", ts=3, isMeta=True)],
        [cc_assistant("e", "a", "API Error: overloaded", ts=3, isApiErrorMessage=True)],
    ],
    ids=["command", "system", "meta", "api-error"],
)
def test_records_after_the_last_reply_do_not_decide(tail):
    assert _end(P, cc_assistant("a", "p", "done", ts=1), *tail) == ("none", [])


def test_an_api_error_after_a_prompt_leaves_it_unanswered():
    recs = [P, cc_assistant("e", "p", "API Error: 529", ts=1, isApiErrorMessage=True)]
    assert _end(*recs) == ("interrupted_prompt", [])


def test_a_session_ending_on_the_compaction_summary_is_judged_before_it():
    recs = [
        P,
        cc_assistant("a", "p", "done", ts=1),
        cc_boundary("cb", "a", ts=2),
        cc_user("s", "cb", "summary", ts=3, isCompactSummary=True),
    ]
    assert _end(*recs) == ("none", [])


def test_no_messages_is_none():
    assert _end() == ("none", [])


def test_prompt_preview_passes_over_ide_context():
    tr = _real(
        "-Users-dain-workspace-danieldemmel-me-next/5ed31c36-bca8-40fd-8d24-f1a1f0af7901.jsonl"
    )
    first = next(m for m in tr.messages if m.is_human_prompt)
    assert first.blocks[0].text.startswith("<ide_opened_file>")
    assert not first.preview(200).startswith("<ide_opened_file>")


@st.composite
def responses(draw):
    """A response's blocks (text, thinking, tool uses) split over consecutive lines."""
    kinds = draw(
        st.lists(st.sampled_from(["text", "thinking", "tool_use"]), min_size=1, max_size=8)
    )
    blocks = []
    for k, kind in enumerate(kinds):
        if kind == "tool_use":
            blocks.append({"type": "tool_use", "id": f"t{k}", "name": "Bash", "input": {}})
        else:
            blocks.append({"type": kind, kind: f"{kind} {k}"})
    cuts = (
        sorted(draw(st.sets(st.integers(1, len(blocks) - 1), max_size=len(blocks) - 1)))
        if len(blocks) > 1
        else []
    )
    parts = [blocks[a:b] for a, b in zip([0, *cuts], [*cuts, len(blocks)], strict=True)]
    return blocks, parts


@settings(max_examples=100, deadline=None)
@given(responses())
def test_a_response_split_anyhow_is_one_message_with_every_block(resp):
    blocks, parts = resp
    recs = [P]
    parent = "p"
    for k, part in enumerate(parts):
        r = cc_assistant(f"a{k}", parent, None, ts=1 + k, msg_id="same")
        r["message"]["content"] = part
        recs.append(r)
        parent = f"a{k}"
    msgs = _msgs(*recs)
    assert len(msgs) == 2
    merged = msgs[1]
    assert [b.type for b in merged.blocks] == [b["type"] for b in blocks]
    assert merged.records == list(range(1, len(parts) + 1)) and merged.uuid == "a0"


def test_a_reply_preview_shows_the_reply_not_the_thinking():
    think = cc_assistant("a1", "p", None, ts=1, msg_id="m1")
    think["message"]["content"] = [
        {"type": "thinking", "thinking": "let me think", "signature": ""}
    ]
    (m_user, reply, alone) = _msgs(
        cc_user("p", None, "go", ts=0),
        think,
        cc_assistant("a2", "a1", "the answer", ts=2, msg_id="m1"),
        cc_assistant("a3", "a2", None, ts=3, msg_id="m2")
        | {"message": {**think["message"], "id": "m2"}},
    )
    assert reply.block_types == ["thinking", "text"] and reply.preview() == "the answer"
    assert alone.preview() == "let me think"  # no text at all: the thinking still says something


def test_a_users_own_command_is_a_prompt_a_built_in_one_is_not():
    # what Claude Code 2.1.332 wrote for `/orchestrator write b.txt` (a .claude/commands file)
    # and `/model` (lab run): it sends both as user turns, but only the first prompts the
    # model — and it keeps a file-history checkpoint for it, as for any prompt
    custom = (
        "<command-message>orchestrator</command-message>\n<command-name>/orchestrator"
        "</command-name>\n<command-args>write b.txt</command-args>"
    )
    builtin = (
        "<command-name>/model</command-name>\n            <command-message>model"
        "</command-message>\n            <command-args></command-args>"
    )
    older = "<command-name>/orchestrator</command-name>\n<command-args>go</command-args>"
    msgs = _msgs(
        cc_user("c", None, custom, ts=0),
        cc_user("x", "c", "You are the orchestrator. Do: write b.txt", ts=1, isMeta=True),
        cc_assistant("a", "x", "orchestrated", ts=2),
        cc_user("m", "a", builtin, ts=3),
        cc_user("o", "m", "<local-command-stdout>Set model</local-command-stdout>", ts=4),
        cc_user("c2", "o", older, ts=5),  # command-name first, then its expanded prompt
        cc_user("x2", "c2", "Plan the work: go", ts=6, isMeta=True),
        cc_assistant("a2", "x2", "planned", ts=7),
    )
    assert [m.kind for m in msgs] == [
        PROMPT,
        META,
        "reply",
        COMMAND,
        COMMAND,
        PROMPT,
        META,
        "reply",
    ]
    assert (
        msgs[0].preview() == "/orchestrator write b.txt" and msgs[5].preview() == "/orchestrator go"
    )

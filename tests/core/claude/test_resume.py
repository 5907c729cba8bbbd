"""The resume prediction's rules, one small transcript each (docs/CLAUDE-CODE.md §11).

Each rule was seen in the real Claude Code 2.1.332 (the lab); the vendored lab cases
(test_resume_lab.py) check them on real and damaged transcripts.
"""

from __future__ import annotations

import orjson

from sidtui.core.claude.layout import file_for_path
from sidtui.core.claude.resume import (
    BRANCH,
    COMPACTED,
    DAMAGED_LINE,
    NO_CONTENT,
    NO_RESPONSE,
    ORPHAN_RESULT,
    PARENT_MISSING,
    lost_notice,
    predict_for,
)
from sidtui.core.claude.transcript import load_transcript
from tests.helpers import (
    CC_SESSION,
    cc_assistant,
    cc_boundary,
    cc_lines,
    cc_rec,
    cc_results,
    cc_system,
    cc_user,
)


def _predict(tmp_path, *records, raw: bytes | None = None):
    p = tmp_path / f"{CC_SESSION}.jsonl"
    p.write_bytes(raw if raw is not None else cc_lines(*records))
    return predict_for(load_transcript(file_for_path(p)))


def _text(t: str) -> dict:
    return {"type": "text", "text": t}


def _shape(pred) -> list[tuple[str, list]]:
    return [
        (
            m["role"],
            [
                b.get("text") or b.get("id") or b.get("tool_use_id") or b["type"]
                for b in m["blocks"]
            ],
        )
        for m in pred.messages
    ]


def test_a_finished_conversation_is_sent_as_it_is(tmp_path) -> None:
    pred = _predict(
        tmp_path,
        cc_user("u1", None, "fix it", ts=1),
        cc_assistant("a1", "u1", "reading", ts=2, tools=(("t1", "Read"),)),
        cc_results("r1", "a1", "t1", ts=3),
        cc_assistant("a2", "r1", "done", ts=4),
    )
    assert _shape(pred) == [
        ("user", ["fix it"]),
        ("assistant", ["reading", "t1"]),
        ("user", ["t1"]),
        ("assistant", ["done"]),
    ]
    assert pred.lost == [] and pred.added == [] and pred.error is None
    assert pred.to_json()["agent_version"] == "2.1.332"


def test_ending_on_a_user_turn_gets_no_response_requested(tmp_path) -> None:
    pred = _predict(
        tmp_path,
        cc_user("u1", None, "hi", ts=1),
        cc_assistant("a1", "u1", "hello", ts=2),
        cc_user("u2", "a1", "[Request interrupted by user]", ts=3),
    )
    assert _shape(pred)[-2:] == [
        ("user", ["[Request interrupted by user]"]),
        ("assistant", [NO_RESPONSE]),
    ]
    assert pred.added == [
        {
            "index": 3,
            "why": "ends_on_user_turn",
            "role": "assistant",
            "blocks": [_text(NO_RESPONSE)],
        }
    ]


def test_local_commands_after_the_last_message_are_user_turns_after_claude_codes_own(
    tmp_path,
) -> None:
    """2.1.332 writes /model as system local_command records; it sends them as user text
    after the turn it adds (seen on a real 2.1.38 session)."""
    pred = _predict(
        tmp_path,
        cc_user("u1", None, "hi", ts=1),
        cc_assistant("a1", "u1", "hello", ts=2),
        cc_user("u2", "a1", "[Request interrupted by user]", ts=3),
        cc_system("s1", "u2", "local_command", ts=4, content="<command-name>/model</command-name>"),
        cc_system(
            "s2",
            "s1",
            "local_command",
            ts=5,
            content="<local-command-stdout>Kept</local-command-stdout>",
        ),
    )
    assert _shape(pred)[-3:] == [
        ("user", ["[Request interrupted by user]"]),
        ("assistant", [NO_RESPONSE]),
        (
            "user",
            [
                "<command-name>/model</command-name>\n",
                "<local-command-stdout>Kept</local-command-stdout>",
            ],
        ),
    ]


def test_user_records_in_a_row_are_one_turn_texts_joined_by_a_newline(tmp_path) -> None:
    pred = _predict(
        tmp_path,
        cc_user("u0", None, "Caveat: local commands", ts=0, isMeta=True),
        cc_user("u1", "u0", "<command-name>/clear</command-name>", ts=1),
        cc_user("u2", "u1", "now the real prompt", ts=2),
        cc_assistant("a1", "u2", "ok", ts=3),
    )
    assert _shape(pred)[0] == (
        "user",
        [
            "Caveat: local commands\n",
            "<command-name>/clear</command-name>\n",
            "now the real prompt",
        ],
    )


def test_api_errors_and_whitespace_only_text_are_not_sent(tmp_path) -> None:
    """An error Claude Code wrote itself (isApiErrorMessage, model <synthetic>) is left out;
    the flag on a real model's reply is not enough (the lab sends it)."""
    err = cc_assistant("e1", "u1", "API Error: 500", ts=2, isApiErrorMessage=True)
    err["message"]["model"] = "<synthetic>"
    pred = _predict(
        tmp_path,
        cc_user("u1", None, "hi", ts=1),
        err,
        cc_assistant("w1", "e1", "\n\n", ts=3, msg_id="m1"),
        cc_assistant("a1", "w1", "hello", ts=4, msg_id="m1"),
        cc_user("u2", "a1", "again", ts=5),
        cc_assistant("f1", "u2", "flagged", ts=6, isApiErrorMessage=True),
    )
    assert _shape(pred) == [
        ("user", ["hi"]),
        ("assistant", ["hello"]),
        ("user", ["again"]),
        ("assistant", ["flagged"]),
    ]


def test_parts_of_one_response_are_one_turn_their_results_one_turn(tmp_path) -> None:
    """Parallel tool calls: parts sharing message.id with results between them."""
    pred = _predict(
        tmp_path,
        cc_user("u1", None, "go", ts=1),
        cc_assistant("a1", "u1", None, ts=2, msg_id="m1", tools=(("t1", "Read"),)),
        cc_results("r1", "a1", "t1", ts=3),
        cc_assistant("a2", "r1", None, ts=4, msg_id="m1", tools=(("t2", "Task"),)),
        cc_results("r2", "a2", "t2", ts=5),
        cc_assistant("a3", "r2", "done", ts=6),
    )
    assert _shape(pred) == [
        ("user", ["go"]),
        ("assistant", ["t1", "t2"]),
        ("user", ["t1", "t2"]),
        ("assistant", ["done"]),
    ]
    assert pred.messages[1]["blocks"][1]["name"] == "Agent"  # Task is sent as Agent


def test_an_unanswered_tool_use_mid_conversation_is_dropped(tmp_path) -> None:
    pred = _predict(
        tmp_path,
        cc_user("u1", None, "go", ts=1),
        cc_assistant("a1", "u1", "trying", ts=2, tools=(("t1", "Bash"),)),
        cc_user("u2", "a1", "never mind", ts=3),
        cc_assistant("a2", "u2", "ok", ts=4),
    )
    assert _shape(pred)[1] == ("assistant", ["trying"])


def test_a_pending_tool_use_at_the_end_gets_an_error_result_of_claude_codes_own(tmp_path) -> None:
    pred = _predict(
        tmp_path,
        cc_user("u1", None, "go", ts=1),
        cc_assistant("a1", "u1", None, ts=2, msg_id="m1", tools=(("t1", "Read"),)),
        cc_results("r1", "a1", "t1", ts=3),
        cc_assistant("a2", "r1", None, ts=4, msg_id="m1", tools=(("t2", "Bash"),)),
    )
    assert pred.messages[-2] == {
        "role": "user",
        "blocks": [
            {"type": "tool_result", "tool_use_id": "t1", "is_error": False},
            {"type": "tool_result", "tool_use_id": "t2", "is_error": True},
        ],
    }
    assert [a["why"] for a in pred.added] == ["pending_tool_use", "ends_on_user_turn"]


def test_a_parent_never_written_cuts_the_history_after_a_pause(tmp_path) -> None:
    """The record before it in time is 5 s or more older: the walk stops (lab: 5.1 s)."""
    pred = _predict(
        tmp_path,
        cc_user("u1", None, "first", ts=1),
        cc_assistant("a1", "u1", "one", ts=2),
        cc_user("u2", "a1", "second", ts=3),
        cc_assistant("a2", "gone", "two", ts=8.1),
        cc_user("u3", "a2", "third", ts=9),
        cc_assistant("a3", "u3", "three", ts=10),
    )
    assert _shape(pred) == [("assistant", ["two"]), ("user", ["third"]), ("assistant", ["three"])]
    (g,) = pred.lost
    assert (g.reason, g.first_line, g.last_line, g.at_line, g.missing_parent) == (
        PARENT_MISSING,
        1,
        3,
        4,
        "gone",
    )
    assert "will not load the 3 messages above" in lost_notice(g)
    assert "line 4, whose parent was never written" in lost_notice(g)
    assert set(pred.sent) == {3, 4, 5}


def test_a_parent_never_written_is_bridged_to_the_record_just_before_in_time(tmp_path) -> None:
    """Less than 5 s: joined to the record written just before it in time (not in the
    file), lab 4.9 s; what that skips is not sent."""
    pred = _predict(
        tmp_path,
        cc_user("u1", None, "first", ts=1),
        cc_assistant("a1", "u1", "late reply", ts=100),
        cc_assistant("a2", "gone", "two", ts=5.9),
        cc_user("u3", "a2", "third", ts=200),
        cc_assistant("a3", "u3", "three", ts=201),
    )
    assert _shape(pred) == [
        ("user", ["first"]),
        ("assistant", ["two"]),
        ("user", ["third"]),
        ("assistant", ["three"]),
    ]
    assert pred.bridges == {2: 0}
    assert [(g.reason, g.first_line) for g in pred.lost] == [(BRANCH, 2)]


def test_an_orphan_tool_result_is_replaced_at_the_start_and_emptied_further_on(tmp_path) -> None:
    pred = _predict(
        tmp_path,
        cc_user("u1", None, "go", ts=1),
        cc_results("r1", "gone", "t1", ts=10),
        cc_assistant("a2", "r1", "done", ts=11),
        cc_user("u2", "a2", "more", ts=12),
        cc_assistant("a3", "u2", "trying", ts=13),
        cc_results("r2", "a3", "t9", ts=14),
        cc_assistant("a4", "r2", "ok", ts=15),
    )
    assert _shape(pred) == [
        ("user", [ORPHAN_RESULT]),
        ("assistant", ["done"]),
        ("user", ["more"]),
        ("assistant", ["trying"]),
        ("user", [NO_CONTENT]),
        ("assistant", ["ok"]),
    ]


def test_a_damaged_line_cuts_at_its_child_after_a_pause(tmp_path) -> None:
    recs = [
        cc_user("u1", None, "first", ts=1),
        cc_assistant("a1", "u1", "one", ts=2),
        cc_user("u2", "a1", "second", ts=9),
        cc_assistant("a2", "u2", "two", ts=10),
    ]
    lines = [orjson.dumps(r) for r in recs]
    lines[1] = lines[1][:30]  # torn
    pred = _predict(tmp_path, raw=b"\n".join(lines) + b"\n")
    assert _shape(pred) == [("user", ["second"]), ("assistant", ["two"])]
    (g,) = pred.lost
    assert (g.reason, g.at_line, g.damaged_line, g.first_line) == (DAMAGED_LINE, 3, 2, 1)
    assert "whose parent is on damaged line 2" in lost_notice(g)


def test_a_glued_line_keeps_its_first_record_and_loses_the_rest(tmp_path) -> None:
    """JSON.parse stops after the first value of ``{…}{…}``: Claude Code keeps that record;
    the one glued after it is lost, and its child is joined to the record before in time."""
    recs = [
        cc_user("u1", None, "first", ts=1),
        cc_assistant("a1", "u1", "one", ts=2),
        cc_user("u2", "a1", "second", ts=3),
        cc_assistant("a2", "u2", "two", ts=4),
    ]
    lines = [orjson.dumps(r) for r in recs]
    glued = [lines[0], lines[1] + lines[2], lines[3]]  # a newline lost
    pred = _predict(tmp_path, raw=b"\n".join(glued) + b"\n")
    assert _shape(pred) == [("user", ["first"]), ("assistant", ["one"]), ("assistant", ["two"])]
    (g,) = pred.lost
    assert (g.reason, g.first_line, g.messages) == (DAMAGED_LINE, 2, 1)


def test_records_behind_nul_bytes_are_lost(tmp_path) -> None:
    recs = [
        cc_user("u1", None, "first", ts=1),
        cc_assistant("a1", "u1", "one", ts=2),
        cc_user("u2", "a1", "second", ts=3),
    ]
    lines = [orjson.dumps(r) for r in recs]
    lines[1] = b"\x00" * 40 + lines[1]
    pred = _predict(tmp_path, raw=b"\n".join(lines) + b"\n")
    assert _shape(pred) == [("user", ["first\n", "second"]), ("assistant", [NO_RESPONSE])]


def test_thinking_of_older_models_is_not_sent(tmp_path) -> None:
    """2.1.332 sends thinking again only for the models it lists (KEEPS_THINKING)."""

    def reply(uuid, parent, model, ts):
        r = cc_assistant(uuid, parent, "answer", ts=ts)
        r["message"]["model"] = model
        r["message"]["content"].insert(0, {"type": "thinking", "thinking": "hm", "signature": "s"})
        return r

    pred = _predict(
        tmp_path,
        cc_user("u1", None, "q", ts=1),
        reply("a1", "u1", "claude-sonnet-4-5-20250929", 2),
        cc_user("u2", "a1", "q2", ts=3),
        reply("a2", "u2", "claude-opus-4-6", 4),
    )
    assert _shape(pred)[1] == ("assistant", ["answer"])
    assert _shape(pred)[3] == ("assistant", ["thinking", "answer"])


def test_compaction_sends_from_the_boundary(tmp_path) -> None:
    pred = _predict(
        tmp_path,
        cc_user("u1", None, "old", ts=1),
        cc_assistant("a1", "u1", "old reply", ts=2),
        cc_boundary("b1", "a1", ts=3),
        cc_user("s1", "b1", "summary of it", ts=4, isCompactSummary=True),
        cc_user("u2", "s1", "new", ts=5),
        cc_assistant("a2", "u2", "new reply", ts=6),
    )
    assert _shape(pred) == [("user", ["summary of it\n", "new"]), ("assistant", ["new reply"])]
    assert [g.reason for g in pred.lost] == [COMPACTED]
    assert "the compaction at line 3 instead of the 2 messages above" in lost_notice(pred.lost[0])


def test_no_conversation_is_claude_codes_own_error(tmp_path) -> None:
    p = tmp_path / f"{CC_SESSION}.jsonl"
    p.write_bytes(b'{"type":"summary","summary":"x","leafUuid":"nowhere"}\n')
    pred = predict_for(load_transcript(file_for_path(p)))
    assert pred.error == f"No conversation found with session ID: {CC_SESSION}"
    assert pred.messages == []


def test_messages_a_compaction_preserved_are_sent_again_after_its_summary(tmp_path) -> None:
    """2.1.332: compactMetadata.preservedMessages are sent after the summary, and the
    records written after /compact hang off the preserved tail (lab)."""
    b = cc_boundary("b1", "a1", ts=3)
    b["compactMetadata"] = {
        "trigger": "manual",
        "preservedSegment": {"headUuid": "a1", "anchorUuid": "s1", "tailUuid": "a1"},
        "preservedMessages": {"anchorUuid": "s1", "uuids": ["a1"], "allUuids": ["a1"]},
    }
    pred = _predict(
        tmp_path,
        cc_user("u1", None, "old", ts=1),
        cc_assistant("a1", "u1", "last reply before", ts=2),
        b,
        cc_user("s1", "b1", "summary of it", ts=4, isCompactSummary=True),
        cc_user("c1", "a1", "<command-name>/compact</command-name>", ts=5),
        cc_rec("attachment", "f1", "c1", ts=6, attachment={"type": "file"}),
    )
    assert _shape(pred) == [
        ("user", ["summary of it"]),
        ("assistant", ["last reply before"]),
        ("user", ["<command-name>/compact</command-name>"]),
        ("assistant", ["No response requested."]),  # a file re-read does not count (lab)
    ]
    assert [a["why"] for a in pred.added] == ["ends_on_user_turn"]


def test_a_response_of_thinking_alone_is_dropped_and_the_user_turns_around_it_join(
    tmp_path,
) -> None:
    """2.1.332 drops a response holding only thinking before it joins turns: the prompt
    and the interruption marker around it become one user turn (lab)."""
    think = cc_assistant("a1", "u1", None, ts=2, msg_id="m1")
    think["message"]["content"] = [{"type": "thinking", "thinking": "hm", "signature": "s"}]
    think["message"]["model"] = "claude-opus-4-6"  # a model whose thinking is sent again
    pred = _predict(
        tmp_path,
        cc_user("u1", None, "do it", ts=1),
        think,
        cc_user("u2", "a1", "[Request interrupted by user]", ts=3),
    )
    assert _shape(pred)[0] == ("user", ["do it\n", "[Request interrupted by user]"])


_CAVEAT = "<local-command-caveat>Caveat: the command below was run locally.</local-command-caveat>"


def _after_reply(tmp_path, *tail):
    return _predict(
        tmp_path,
        cc_user("u1", None, "hello", ts=1),
        cc_assistant("a1", "u1", "hi", ts=2),
        *tail,
    )


def test_no_turn_is_added_after_a_local_command_led_by_its_caveat(tmp_path) -> None:
    """2.1.332 adds no ``No response requested.`` when the conversation ends on a command
    run in Claude Code itself: its caveat (meta, no promptSource), then the command and
    its output (lab: experiments/x12-*)."""
    cav = cc_user("c0", "a1", _CAVEAT, ts=3, isMeta=True)
    cmd = cc_user("c1", "c0", "<command-name>/model</command-name>", ts=4)
    out = cc_user("c2", "c1", "<local-command-stdout>Set model</local-command-stdout>", ts=5)
    assert _after_reply(tmp_path, cav, cmd, out).added == []
    assert _after_reply(tmp_path, cav).added == []


def test_a_turn_is_added_after_a_command_without_its_caveat_or_after_a_prompt(tmp_path) -> None:
    cmd = cc_user("c1", "a1", "<command-name>/model</command-name>", ts=4)
    assert _shape(_after_reply(tmp_path, cmd))[-1] == ("assistant", [NO_RESPONSE])
    cav = cc_user("c0", "a1", _CAVEAT, ts=3, isMeta=True)
    prompt = cc_user("p1", "c0", "and now?", ts=4)
    assert _shape(_after_reply(tmp_path, cav, prompt))[-1] == ("assistant", [NO_RESPONSE])
    typed = cc_user("c0", "a1", _CAVEAT, ts=3, isMeta=True, promptSource="sdk")
    assert _shape(_after_reply(tmp_path, typed))[-1] == ("assistant", [NO_RESPONSE])


def test_a_walk_broken_before_the_last_prompt_leaf_resumes_from_that_leaf(tmp_path) -> None:
    """2.1.332 writes ``last-prompt`` (leafUuid) each time it finishes a prompt; when the
    walk from the latest leaf breaks before reaching that record, it resumes from it, even
    where a join by time was possible (lab: experiments/x13-*)."""
    recs = [
        cc_user("u1", None, "step 0", ts=1),
        cc_assistant("a1", "u1", "done 0", ts=2),
        {"type": "last-prompt", "lastPrompt": "step 0", "leafUuid": "a1", "sessionId": CC_SESSION},
        cc_user("u2", "a1", "step 1", ts=3),
        cc_assistant("a2", "u2", "working", ts=3.1),
        cc_user("u3", "never-written", "[Request interrupted by user]", ts=3.2),
    ]
    assert _shape(_predict(tmp_path, *recs)) == [
        ("user", ["step 0"]),
        ("assistant", ["done 0"]),
    ]
    del recs[2]  # no last-prompt: the join by time (0.1 s) keeps step 1
    assert _shape(_predict(tmp_path, *recs))[2] == ("user", ["step 1"])


def test_a_record_kept_for_the_transcript_only_is_not_the_last_message(tmp_path) -> None:
    """A task notification stored ``rowSource: "recorded"`` is not sent, and a conversation
    that ends on it does not end on a user turn: no ``No response requested.`` (lab:
    lab-written/m70326)."""
    pred = _after_reply(
        tmp_path,
        cc_user(
            "n1", "a1", "<task-notification>stopped</task-notification>", ts=3, rowSource="recorded"
        ),
    )
    assert _shape(pred) == [("user", ["hello"]), ("assistant", ["hi"])]
    assert pred.added == []

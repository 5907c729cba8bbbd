"""Subagents linked to the tool use that spawned them: both layouts, nesting, background agents."""

from __future__ import annotations

import orjson

from sidtui.core.claude.layout import ClaudeHome, resolve_session, subagent_files
from sidtui.core.claude.session import open_claude_session
from sidtui.core.claude.subagents import link_subagents
from sidtui.core.claude.transcript import load_transcript
from tests.helpers import (
    CC_SESSION,
    CLAUDE_HOME,
    cc_assistant,
    cc_home,
    cc_lines,
    cc_rec,
    cc_results,
    cc_user,
)

HOME = ClaudeHome(CLAUDE_HOME)


def _by_id(agents):
    return {a.agent_id: a for a in agents}


def test_real_new_layout_subagents():
    v = open_claude_session(HOME, resolve_session(HOME, "fa812bfe"))
    a = _by_id(v.subagents)
    assert (a["aa84377"].status, a["aa84377"].link, a["aa84377"].spawn.tool) == (
        "completed",
        "result",
        "Task",
    )
    assert a["aa84377"].spawn.result == "completed" and a["aa84377"].messages > 0
    assert (
        a["a93ccab"].status == "missing" and a["a93ccab"].file is None
    )  # spawned, no transcript here
    assert a["acompact-70d8e7"].status == "internal" and a["acompact-70d8e7"].spawn is None
    assert not [w for w in v.warnings if "subagent" in w and "unfinished" in w]


def test_real_old_layout_warmups_belong_to_their_sessions():
    v = open_claude_session(HOME, resolve_session(HOME, "7acd37a8"))
    assert sorted((a.agent_id, a.status) for a in v.subagents) == [
        ("388fb764", "warmup"),
        ("88061e52", "warmup"),
        ("8d27fe83", "warmup"),
    ]
    assert all(a.file.layout == "flat" for a in v.subagents)


def test_a_subagent_file_shows_how_it_is_linked():
    v = open_claude_session(HOME, resolve_session(HOME, "agent-aa84377"))
    assert v.subagent is not None and v.subagent.status == "completed"
    assert v.to_json()["subagent"]["link"]["spawn"]["tool"] == "Task"
    orphan = open_claude_session(HOME, resolve_session(HOME, "agent-a36efb2a1231c41e2"))
    assert (
        orphan.subagent is not None and orphan.subagent.status == "orphan"
    )  # its session is not here


def _agent_file(agent: str, *records) -> bytes:
    return cc_lines(*[dict(r, isSidechain=True, agentId=agent) for r in records])


def _meta(**kw) -> bytes:
    return orjson.dumps({"agentType": "general-purpose", **kw})


def _result(uuid, parent, tid, ts, tur=None, text="done"):
    r = cc_results(uuid, parent, tid, ts=ts)
    r["message"]["content"][0]["content"] = [{"type": "text", "text": text}]
    if tur is not None:
        r["toolUseResult"] = tur
    return r


def _built_home(tmp_path):
    main = cc_lines(
        cc_user("p", None, "split the work", ts=0),
        cc_assistant("a1", "p", None, ts=1, msg_id="m1", tools=[("tu1", "Agent")]),
        _result("r1", "a1", "tu1", 2, {"status": "completed", "agentId": "aaa1111", "content": []}),
        cc_assistant(
            "a2", "r1", None, ts=3, msg_id="m2", tools=[("tu4", "Agent"), ("tu5", "Agent")]
        ),
        _result(
            "r4",
            "a2",
            "tu4",
            4,
            {"isAsync": True, "status": "async_launched", "agentId": "ddd4444"},
        ),
        _result(
            "r5",
            "r4",
            "tu5",
            5,
            {"isAsync": True, "status": "async_launched", "agentId": "eee5555"},
        ),
        cc_assistant("a3", "r5", None, ts=6, msg_id="m3", tools=[("tu6", "Task")]),
        _result("r6", "a3", "tu6", 7, text="All done.\nagentId: fff6666 (for resuming)"),
        cc_assistant("a4", "r6", "finished", ts=8, msg_id="m4"),
    )
    sub = f"{CC_SESSION}/subagents"
    files = {
        f"{CC_SESSION}.jsonl": main,
        f"{sub}/agent-aaa1111.jsonl": _agent_file(
            "aaa1111",
            cc_user("x1", None, "part one", ts=1),
            cc_assistant("x2", "x1", None, ts=1.5, msg_id="n1", tools=[("tu2", "Task")]),
            _result("x3", "x2", "tu2", 1.7, {"status": "completed", "agentId": "bbb2222"}),
            cc_assistant("x4", "x3", "part one done", ts=1.8, msg_id="n2"),
        ),
        f"{sub}/agent-aaa1111.meta.json": _meta(toolUseId="tu1", description="part one"),
        f"{sub}/agent-bbb2222.jsonl": _agent_file(
            "bbb2222",
            cc_user("y1", None, "deeper", ts=1.5),
            cc_assistant("y2", "y1", None, ts=1.6, msg_id="o1", tools=[("tu3", "Agent")]),
        ),
        f"{sub}/agent-bbb2222.meta.json": _meta(parentAgentId="aaa1111", spawnDepth=2),
        # the deepest one: linked by its meta only; it stopped with a tool use pending
        f"{sub}/agent-ccc3333.jsonl": _agent_file(
            "ccc3333",
            cc_user("z1", None, "deepest", ts=1.6),
            cc_assistant("z2", "z1", None, ts=1.65, msg_id="q1", tools=[("tz", "Bash")]),
        ),
        f"{sub}/agent-ccc3333.meta.json": _meta(
            toolUseId="tu3", parentAgentId="bbb2222", spawnDepth=3
        ),
        f"{sub}/agent-ddd4444.jsonl": _agent_file(
            "ddd4444",
            cc_user("d1", None, "in the background", ts=4),
            cc_assistant("d2", "d1", "bg done", ts=9),
        ),
        f"{sub}/agent-eee5555.jsonl": _agent_file(
            "eee5555",
            cc_user("e1", None, "also in the background", ts=5),
            cc_assistant("e2", "e1", None, ts=6, tools=[("te", "Read")]),
        ),
        f"{sub}/agent-fff6666.jsonl": _agent_file(
            "fff6666",
            cc_user("f1", None, "old style", ts=7),
            cc_assistant("f2", "f1", "ok", ts=7.5),
        ),
    }
    return ClaudeHome(cc_home(tmp_path, {"-tmp-cc": files}))


def test_links_depths_and_states(tmp_path):
    home = _built_home(tmp_path)
    v = open_claude_session(home, resolve_session(home, CC_SESSION))
    a = _by_id(v.subagents)
    assert (a["aaa1111"].link, a["aaa1111"].depth, a["aaa1111"].status) == ("meta", 1, "completed")
    assert (a["bbb2222"].link, a["bbb2222"].depth, a["bbb2222"].spawn.owner) == (
        "result",
        2,
        "agent-aaa1111",
    )
    assert (a["ccc3333"].link, a["ccc3333"].depth, a["ccc3333"].parent_agent_id) == (
        "meta",
        3,
        "bbb2222",
    )
    # a background agent's async_launched result is its start: its own transcript decides
    assert a["ddd4444"].spawn.result == "async_launched" and a["ddd4444"].status == "completed"
    assert a["eee5555"].spawn.result == "async_launched" and a["eee5555"].status == "unfinished"
    assert a["ccc3333"].status == "unfinished"  # no result, ends on a pending tool use
    assert (a["fff6666"].link, a["fff6666"].status) == ("trailer", "completed")
    assert [x.depth for x in v.subagents] == sorted(x.depth for x in v.subagents)
    warned = sorted(w for w in v.warnings if "subagent" in w)
    assert warned == [
        "subagent ccc3333 (general-purpose) is unfinished",
        "subagent eee5555 (agent) is unfinished",
    ]


def test_an_unfinished_agent_of_a_live_session_is_running(tmp_path):
    home = _built_home(tmp_path)
    main = resolve_session(home, CC_SESSION)
    tr = load_transcript(main)
    agents = _by_id(link_subagents(tr, subagent_files(home, main), live=True))
    assert agents["eee5555"].status == "running" and agents["ddd4444"].status == "completed"


def test_a_spawn_without_its_transcript_is_missing(tmp_path):
    home = cc_home(
        tmp_path,
        {
            "-p": {
                f"{CC_SESSION}.jsonl": cc_lines(
                    cc_user("p", None, ts=0),
                    cc_assistant("a", "p", None, ts=1, tools=[("tu", "Task")]),
                    cc_rec(
                        "user",
                        "r",
                        "a",
                        2,
                        message={
                            "role": "user",
                            "content": [
                                {"type": "tool_result", "tool_use_id": "tu", "content": "x"}
                            ],
                        },
                    ),
                )
            }
        },
    )
    v = open_claude_session(ClaudeHome(home), resolve_session(ClaudeHome(home), CC_SESSION))
    (a,) = v.subagents
    assert a.status == "missing" and a.spawn.result == "completed" and a.agent_id is None


def _inline_session(tmp_path, first_prompt: str):
    """A pre-2.0 layout main file: a Task whose sub-agent wrote its records inline
    (``isSidechain: true``, the root's parent null) between the spawn and its result."""
    spawn = cc_assistant("a1", "u1", None, 2, tools=(("t1", "Task"),))
    spawn["message"]["content"][0]["input"] = {"description": "look", "prompt": "agent prompt"}
    other = cc_assistant("a2", "r1", None, 7, tools=(("t2", "Task"),))
    other["message"]["content"][0]["input"] = {"description": "again", "prompt": "second agent"}
    recs = [
        cc_user("u1", None, first_prompt, 1),
        spawn,
        cc_user("s1", None, "agent prompt", 3, isSidechain=True),
        cc_assistant("s2", "s1", "agent reply", 4, isSidechain=True),
        cc_results("r1", "a1", "t1", ts=5),
        other,
        cc_user("s3", None, "second agent", 8, isSidechain=True),
        cc_assistant("s4", "s3", None, 9, isSidechain=True, tools=(("t9", "Read"),)),
        cc_results("r2", "a2", "t2", ts=10),
        cc_assistant("a3", "r2", "done", 11),
    ]
    h = ClaudeHome(cc_home(tmp_path, {"-p": {f"{CC_SESSION}.jsonl": cc_lines(*recs)}}))
    return open_claude_session(h, resolve_session(h, CC_SESSION))


def test_inline_sidechains_are_linked_as_subagents(tmp_path):
    view = _inline_session(tmp_path, "main prompt")
    assert [(a.status, a.link, a.messages, a.spawn.tool_use_id) for a in view.subagents] == [
        ("completed", "inline", 2, "t1"),
        ("completed", "inline", 2, "t2"),  # its result is written: completed, as for a file
    ]
    assert view.subagents[0].to_json()["layout"] == "inline"
    assert view.subagents[0].label == "inline at line 3"
    assert not any("no transcript on disk" in w for w in view.warnings)


def test_a_title_never_comes_from_a_sidechain(tmp_path):
    view = _inline_session(tmp_path, "<command-name>/model</command-name>")
    assert view.title != "agent prompt" and view.title_source != "first-prompt-in-file"

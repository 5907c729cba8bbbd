"""The Claude Code DAG: dedupe, bridges, compaction links, leaves, the leaf resume picks,
parallel-tool side branches (real transcripts and built ones, plus properties)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sidtui.core.claude.resume_chain import _leaf, _loaded, _tree_leaf, loaded_chain
from sidtui.core.claude.scan import scan
from sidtui.core.claude.tree import BRANCH, PARALLEL, RESUME, SIDECHAIN, build_tree
from tests.helpers import (
    cc_assistant,
    cc_boundary,
    cc_lines,
    cc_path,
    cc_progress,
    cc_results,
    cc_system,
    cc_user,
)


def _tree(*records):
    sc = scan(cc_lines(*records))
    return sc, build_tree(sc.objs)


def _real(rel):
    sc = scan(cc_path(rel).read_bytes())
    return sc, build_tree(sc.objs)


def _uuids(sc, idx):
    return [sc.objs[i].uuid for i in idx]


def _kinds(sc, tree):
    return {sc.objs[t.index].uuid: t.kind for t in tree.tips}


# ------------------------------------------------------------------ the leaf resume picks


def test_a_linear_session_resumes_at_its_last_message():
    sc, t = _tree(cc_user("a", None, ts=0), cc_assistant("b", "a", ts=1), cc_user("c", "b", ts=2))
    assert _uuids(sc, t.chain) == ["a", "b", "c"] and t.leaf == 2
    assert [x.kind for x in t.tips] == [RESUME] and not t.branch_points


def test_resume_picks_the_leaf_written_last_not_the_latest():
    # a second writer appended an old branch after the newest one: Claude Code 2.1.332
    # resumes it (lab: tests/fixtures/claude-code-lab/ cases with an appended branch), so
    # the tree's conversation is that branch and the newer turns are the branch
    sc, t = _tree(
        cc_user("a", None, ts=0),
        cc_assistant("b", "a", ts=1),
        cc_user("new", "b", "newest prompt", ts=50),
        cc_assistant("new-r", "new", ts=51),
        cc_user("old", "b", "older prompt", ts=10),
    )
    assert sc.objs[t.leaf].uuid == "old"
    assert _uuids(sc, t.chain) == ["a", "b", "old"]
    assert _kinds(sc, t) == {"old": RESUME, "new-r": BRANCH}
    (br,) = t.branches
    assert _uuids(sc, br.records) == ["new", "new-r"] and sc.objs[br.joins_at].uuid == "b"
    assert br.rewind  # a typed prompt where the conversation goes on with one too


def test_equal_timestamps_resume_the_later_line():
    sc, t = _tree(
        cc_user("a", None, ts=0), cc_user("x", "a", "one", ts=5), cc_user("y", "a", "two", ts=5)
    )
    assert sc.objs[t.leaf].uuid == "y"


def test_a_rewind_leaves_the_old_tail_as_a_branch():
    # /rewind writes no marker: the next prompt re-parents onto the rewind target
    sc, t = _tree(
        cc_user("p1", None, "first", ts=0),
        cc_assistant("r1", "p1", ts=1),
        cc_user("p2", "r1", "second", ts=2),
        cc_assistant("r2", "p2", ts=3),
        cc_user("p2b", "r1", "second, again", ts=10),
        cc_assistant("r2b", "p2b", ts=11),
    )
    assert _uuids(sc, t.chain) == ["p1", "r1", "p2b", "r2b"]
    (br,) = t.branches
    assert _uuids(sc, br.records) == ["p2", "r2"] and br.rewind
    assert _uuids(sc, t.branch_points) == ["r1"]


def test_transparent_records_are_never_the_leaf():
    sc, t = _tree(
        cc_user("a", None, ts=0),
        cc_assistant("b", "a", ts=1),
        cc_progress("p", "b", ts=2),
        cc_system("s", "p", "stop_hook_summary", ts=3),
        cc_system("s2", "b", "turn_duration", ts=4),
    )
    assert sc.objs[t.leaf].uuid == "b"
    assert _uuids(sc, t.after_leaf) == ["p", "s", "s2"]
    assert [x.kind for x in t.tips] == [RESUME]


def test_a_prompt_under_progress_records_continues_through_them():
    # `claude -p`: the root is a SessionStart hook's progress record, the prompt its child
    sc, t = _real("-src-experiments-claude_p/94604a7b-062f-4369-bdf0-da948381c3e5.jsonl")
    assert [sc.objs[i].type for i in t.chain] == ["progress", "user", "assistant"]
    assert sc.objs[t.roots[0]].type == "progress"


def test_inline_sidechain_leaves_are_not_resume_candidates():
    sc, t = _tree(
        cc_user("a", None, ts=0),
        cc_assistant("b", "a", ts=1),
        cc_user("side", "b", "agent prompt", ts=9, isSidechain=True),
    )
    assert sc.objs[t.leaf].uuid == "b"
    assert _kinds(sc, t)["side"] == SIDECHAIN


def test_real_fork_at_a_caveat_shows_every_leaf():
    # /doctor, /status and /mcp hang off one isMeta caveat: three leaves, the latest resumes
    sc, t = _real(
        "-Users-dain-workspace-claude-code-log-sample/0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl"
    )
    assert [(sc.lines[x.index], x.kind, x.rewind) for x in t.tips] == [
        (64, BRANCH, False),
        (66, BRANCH, False),
        (68, RESUME, False),
    ]
    assert {sc.lines[x.joins_at] for x in t.branches} == {62}


def test_real_bash_mode_branch_resumes_over_the_cleared_conversation():
    # the /clear branch (12 records) is older than the bash-mode branch at the root
    sc, t = _real(
        "-Users-dain-workspace-claude-code-log-sample/71c9afe9-d9cc-4583-86b3-e62ba682b83a.jsonl"
    )
    assert sc.lines[t.leaf] == 15 and [sc.lines[i] for i in t.chain] == [1, 14, 15]
    (br,) = t.branches
    assert len(br.records) == 12 and sc.lines[br.joins_at] == 1


# ------------------------------------------------------------------ parallel tool calls


def test_parallel_tool_side_branches_belong_to_the_conversation():
    # two tool uses of one response on two lines; each result hangs off its own part
    sc, t = _tree(
        cc_user("p", None, "go", ts=0),
        cc_assistant("a1", "p", None, ts=1, msg_id="m1", tools=[("t1", "Read")]),
        cc_assistant("a2", "a1", None, ts=2, msg_id="m1", tools=[("t2", "Grep")]),
        cc_results("r1", "a1", "t1", ts=3),
        cc_results("r2", "a2", "t2", ts=4),
        cc_assistant("a3", "r2", "done", ts=5, msg_id="m2"),
    )
    assert _uuids(sc, t.chain) == ["p", "a1", "a2", "r2", "a3"]
    assert _uuids(sc, t.conversation) == ["p", "a1", "a2", "r1", "r2", "a3"]  # file order
    assert _kinds(sc, t) == {"r1": PARALLEL, "a3": RESUME}
    assert not t.branches


def test_a_side_branch_with_more_parts_of_the_response_is_parallel():
    # the real shape (2.1.114): part 2 and its result on the side, part 1's result on the chain
    sc, t = _real(
        "-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-ab1e6e141221a29ab.jsonl"
    )
    assert len(t.chain) == 36 and len(t.conversation) == 41 == len(sc)
    assert sorted(x.kind for x in t.tips) == [PARALLEL] * 3 + [RESUME]
    assert [sc.lines[i] for i in t.conversation] == list(range(1, 42))


def test_a_side_branch_with_a_new_response_is_not_parallel():
    sc, t = _tree(
        cc_user("p", None, "go", ts=0),
        cc_assistant("a1", "p", None, ts=1, msg_id="m1", tools=[("t1", "Read")]),
        cc_results("r1", "a1", "t1", ts=2),
        cc_assistant("x", "a1", "another reply", ts=3, msg_id="other"),
        cc_assistant("a2", "r1", "done", ts=9, msg_id="m2"),
    )
    assert _kinds(sc, t) == {"x": BRANCH, "a2": RESUME}


def test_a_side_result_for_a_tool_nobody_used_is_not_parallel():
    sc, t = _tree(
        cc_user("p", None, "go", ts=0),
        cc_assistant("a1", "p", None, ts=1, msg_id="m1", tools=[("t1", "Read")]),
        cc_results("r1", "a1", "t1", ts=2),
        cc_results("rx", "a1", "unknown", ts=3),
        cc_assistant("a2", "r1", "done", ts=9, msg_id="m2"),
    )
    assert _kinds(sc, t)["rx"] == BRANCH


def test_real_large_sessions_have_no_abandoned_branch():
    for rel, par in (
        (
            "-home-USER-projects-spotter-worktrees-spotter-a0y/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl",
            24,
        ),
        (
            "-home-USER-projects-spotter-worktrees-spotter-fum/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
            19,
        ),
        ("-home-marco-projects-spotter/491e126e-1e71-469c-ade2-fcc8af567c74.jsonl", 4),
    ):
        sc, t = _real(rel)
        kinds = [x.kind for x in t.tips]
        assert kinds.count(PARALLEL) == par and kinds.count(RESUME) == 1 and BRANCH not in kinds


# ------------------------------------------------------------------ compaction


def test_a_compact_boundary_continues_the_walk_for_display():
    sc, t = _real(
        "-home-USER-projects-spotter-worktrees-spotter-a0y/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"
    )
    (c,) = t.compactions
    assert sc.lines[c] == 1584 and sc.objs[c].parentUuid is None
    assert sc.lines[t.chain[0]] == 3  # the walk went on past the boundary to the first root
    assert t.logical[c] == t.chain[t.chain.index(c) - 1]
    assert 1584 not in [sc.lines[r] for r in t.roots]


def test_a_boundary_pointing_into_its_own_descendants_does_not_cycle():
    sc, t = _tree(
        cc_user("a", None, ts=0),
        cc_assistant("b", "a", ts=1),
        cc_boundary("cb", "later", ts=2),
        cc_user("summary", "cb", "summary", ts=3, isCompactSummary=True),
        cc_assistant("later", "summary", ts=4),
    )
    assert _uuids(sc, t.chain) == ["cb", "summary", "later"]  # terminates at the boundary
    assert t.logical_refused == {2: "later"} and t.compactions == [2]
    assert sc.objs[t.leaf].uuid == "later"
    assert _kinds(sc, t) == {"b": BRANCH, "later": RESUME}


def test_a_boundary_whose_history_is_elsewhere_starts_the_chain():
    sc, t = _tree(
        cc_boundary("cb", "gone", ts=0),
        cc_user("s", "cb", ts=1, isCompactSummary=True),
        cc_assistant("r", "s", ts=2),
    )
    assert _uuids(sc, t.chain) == ["cb", "s", "r"] and t.logical_missing == {0: "gone"}


def test_two_compactions_chain_back_to_the_start():
    sc, t = _tree(
        cc_user("a", None, ts=0),
        cc_assistant("b", "a", ts=1),
        cc_boundary("c1", "b", ts=2),
        cc_user("s1", "c1", ts=3, isCompactSummary=True),
        cc_assistant("d", "s1", ts=4),
        cc_boundary("c2", "d", ts=5),
        cc_user("s2", "c2", ts=6, isCompactSummary=True),
        cc_assistant("e", "s2", ts=7),
    )
    assert _uuids(sc, t.chain) == ["a", "b", "c1", "s1", "d", "c2", "s2", "e"]
    assert _uuids(sc, t.compactions) == ["c1", "c2"] and _uuids(sc, t.roots) == ["a"]


# ------------------------------------------------------------------ dedupe, dangling, cycles


def test_a_replayed_prefix_keeps_the_earliest_copy():
    recs = [cc_user("a", None, ts=0), cc_assistant("b", "a", ts=1), cc_user("c", "b", ts=2)]
    replay = [dict(r, timestamp="2027-01-01T00:00:00.000Z") for r in recs[:2]]
    sc, t = _tree(*recs, *replay, cc_assistant("d", "c", ts=3))
    assert t.duplicates == [3, 4]
    assert _uuids(sc, t.chain) == ["a", "b", "c", "d"] and t.chain == [0, 1, 2, 5]


def test_a_dangling_parent_is_bridged_to_the_nearest_earlier_record():
    sc, t = _tree(
        cc_user("a", None, ts=0),
        cc_assistant("b", "a", ts=1),
        cc_assistant("side", "b", ts=2, isSidechain=True),
        cc_user("c", "never-written", ts=3),
        cc_assistant("d", "c", ts=4),
    )
    assert t.bridges == {3: "never-written"}
    assert t.parent[3] == 1  # the nearest earlier record of the main side, not the sidechain's
    assert _uuids(sc, t.chain) == ["a", "b", "c", "d"]


def test_real_compact_worker_bridges_every_dangling_parent():
    sc, t = _real(
        "-home-USER-projects-spotter-worktrees-spotter-a0y/fa812bfe-b295-4cca-9c2f-fdf01028cb46/subagents/agent-acompact-70d8e7.jsonl"
    )
    assert len(t.bridges) == 14 and t.chain == list(range(15))


def test_a_parent_cycle_is_cut():
    sc, t = _tree(
        cc_user("a", "c", ts=0),
        cc_assistant("b", "a", ts=1),
        cc_user("c", "b", ts=2),
    )
    assert t.cycles == [0] and _uuids(sc, t.chain) == ["a", "b", "c"]


def test_a_self_parent_is_a_root():
    sc, t = _tree(cc_user("a", "a", ts=0), cc_assistant("b", "a", ts=1))
    assert t.cycles == [0] and t.roots == [0] and _uuids(sc, t.chain) == ["a", "b"]


def test_metadata_records_stay_outside_the_dag():
    sc, t = _tree(
        {"type": "summary", "summary": "s", "leafUuid": "b"},
        cc_user("a", None, ts=0),
        {
            "type": "file-history-snapshot",
            "messageId": "a",
            "snapshot": {},
            "isSnapshotUpdate": False,
        },
        cc_assistant("b", "a", ts=1),
        {"type": "custom-title", "customTitle": "t", "sessionId": "s", "uuid": "looks-like-a-node"},
    )
    assert t.parent[0] == t.parent[2] == t.parent[4] == -2
    assert _uuids(sc, t.chain) == ["a", "b"]


# ------------------------------------------------------------------ properties


@st.composite
def dags(draw):
    """A random transcript DAG in a parent-first order, with distinct timestamps."""
    n = draw(st.integers(2, 22))
    times = draw(st.permutations(range(n)))
    recs = []
    tools: list[str] = []
    for k in range(n):
        parent = None if k == 0 else f"u{draw(st.integers(0, k - 1))}"
        kind = draw(st.sampled_from(["prompt", "reply", "tool", "result", "progress", "system"]))
        u, ts = f"u{k}", times[k]
        if kind == "prompt":
            recs.append(cc_user(u, parent, f"p{k}", ts=ts))
        elif kind == "reply":
            recs.append(cc_assistant(u, parent, "r", ts=ts, msg_id=f"m{draw(st.integers(0, 3))}"))
        elif kind == "tool":
            tools.append(f"t{k}")
            recs.append(
                cc_assistant(
                    u,
                    parent,
                    None,
                    ts=ts,
                    msg_id=f"m{draw(st.integers(0, 3))}",
                    tools=[(f"t{k}", "Bash")],
                )
            )
        elif kind == "result" and tools:
            recs.append(cc_results(u, parent, draw(st.sampled_from(tools)), ts=ts))
        elif kind == "progress":
            recs.append(cc_progress(u, parent, ts=ts))
        else:
            recs.append(cc_system(u, parent, ts=ts))
    return recs


def _shape(sc, t):
    u = lambda i: None if i is None or i < 0 else sc.objs[i].uuid  # noqa: E731
    seen = set()
    for i in t.conversation:  # the display order may follow the lines, never before a parent
        assert t.parent[i] < 0 or t.parent[i] in seen or i in t.logical
        seen.add(i)
    return (
        u(t.leaf),
        _uuids(sc, t.chain),
        sorted(_uuids(sc, t.conversation)),
        sorted(
            (u(x.index), x.kind, u(x.joins_at), x.rewind, tuple(_uuids(sc, x.records)))
            for x in t.tips
        ),
        sorted(_uuids(sc, t.roots)),
        sorted(_uuids(sc, t.branch_points)),
        sorted(_uuids(sc, t.after_leaf)),
        sorted((u(i), u(t.parent[i])) for i in range(len(sc)) if t.parent[i] != -2),
    )


@settings(max_examples=150, deadline=None)
@given(dags(), st.randoms(use_true_random=False))
def test_the_order_of_lines_changes_the_tree_only_through_the_leaf_written_last(recs, rnd):
    sc, t = _tree(*recs)
    shuffled = list(recs)
    rnd.shuffle(shuffled)
    if t.leaf is not None:  # the same leaf written last: the same tree
        last = next(r for r in shuffled if r["uuid"] == sc.objs[t.leaf].uuid)
        shuffled = [r for r in shuffled if r is not last] + [last]
    assert _shape(sc, t) == _shape(*_tree(*shuffled))


@settings(max_examples=300, deadline=None)
@given(dags())
def test_the_tree_leaf_is_the_leaf_claude_code_resumes(recs):
    # one rule for the display and the resume prediction (parents written first, as Claude
    # Code writes them; the timestamps in any order, so the latest leaf is often not the
    # one written last)
    sc, t = _tree(*recs)
    loaded = _loaded(sc.objs, set())
    by_uuid: dict = {}
    for i in loaded:
        by_uuid.setdefault(sc.objs[i].uuid, i)
    walked = _leaf(sc.objs, loaded, by_uuid)  # the resume's own search, every record
    assert walked == t.leaf == loaded_chain(sc.objs, set(), t, None).leaf
    assert _tree_leaf(sc.objs, set(), t) in (None, walked)  # its shortcut, when sure


@settings(max_examples=150, deadline=None)
@given(dags(), st.data())
def test_replays_and_dedupe_are_idempotent(recs, data):
    k = data.draw(st.integers(1, len(recs)))
    replay = [dict(r, timestamp="2030-01-01T00:00:00.000Z", parentUuid=None) for r in recs[:k]]
    once = _tree(*recs, *replay)
    twice = _tree(*recs, *replay, *replay)
    assert _shape(*once) == _shape(*twice) == _shape(*_tree(*recs))
    assert len(once[1].duplicates) == k and len(twice[1].duplicates) == 2 * k


@settings(max_examples=150, deadline=None)
@given(dags())
def test_tree_invariants(recs):
    sc, t = _tree(*recs)
    objs = sc.objs
    conv = {i for i, o in enumerate(objs) if o.type in ("user", "assistant")}
    if not conv:
        assert t.leaf is None and not t.chain
        return
    assert t.leaf in conv and t.chain[-1] == t.leaf
    assert all(t.parent[b] == a for a, b in zip(t.chain, t.chain[1:], strict=False))
    assert t.parent[t.chain[0]] == -1
    assert set(t.chain) <= set(t.conversation) and len(set(t.conversation)) == len(t.conversation)
    tips = {x.index for x in t.tips}
    has_conv_child = set()
    for i in conv:
        p = t.parent[i]
        while p >= 0 and p not in conv:
            p = t.parent[p]
        if p >= 0:
            has_conv_child.add(p)
    assert tips == conv - has_conv_child
    held = [r for x in t.tips for r in x.records]
    assert len(held) == len(set(held)) and not set(held) & set(t.chain)

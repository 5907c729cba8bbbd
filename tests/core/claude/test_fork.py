"""Forks of Claude Code sessions: the uuid remap, the copy set, verification, the atomic write,
on the vendored transcripts and built ones."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidtui.core.claude import fork as fork_mod
from sidtui.core.claude.file_history import read_file_history
from sidtui.core.claude.fork import ForkError, fork_session, prepare_fork, remap_records
from sidtui.core.claude.layout import ClaudeHome, discover, file_for_path, resolve_session
from sidtui.core.claude.session import open_claude_session
from tests.helpers import (
    CC_SESSION,
    CLAUDE_HOME,
    cc_assistant,
    cc_boundary,
    cc_edit_session,
    cc_home,
    cc_lines,
    cc_results,
    cc_user,
)

LINK_KEYS = ("uuid", "parentUuid", "logicalParentUuid", "leafUuid", "messageId")


def _links(d: dict) -> list:
    out = [d.get(k) for k in LINK_KEYS]
    snap = d.get("snapshot")
    if isinstance(snap, dict):
        out.append(snap.get("messageId"))
    out.append(d.get("snapshotMessageId"))
    return [x for x in out if isinstance(x, str)]


# --------------------------------------------------------------------------- the remap


@st.composite
def record_lists(draw):
    n = draw(st.integers(1, 25))
    recs: list[dict] = []
    for i in range(n):
        t = draw(st.sampled_from(["user", "assistant", "system", "progress", "attachment"]))
        choice = draw(st.integers(0, 3)) if i else 0
        if choice == 0:
            parent = None
        elif choice == 1:
            parent = f"missing-{i}"  # names nothing in the file
        else:
            parent = f"u{draw(st.integers(0, i - 1))}"
        r = {"type": t, "uuid": f"u{i}", "parentUuid": parent, "sessionId": "old"}
        if t == "system" and parent is None and i and draw(st.booleans()):
            r["subtype"] = "compact_boundary"
            r["logicalParentUuid"] = f"u{draw(st.integers(0, i - 1))}"
        if t == "user" and draw(st.booleans()):
            r["sourceToolAssistantUUID"] = f"u{draw(st.integers(0, i))}"
        recs.append(r)
        if draw(st.integers(0, 4)) == 0:
            m = f"u{draw(st.integers(0, i))}"
            recs.append(
                {
                    "type": "file-history-snapshot",
                    "messageId": m,
                    "snapshot": {"messageId": m, "trackedFileBackups": {}},
                    "isSnapshotUpdate": False,
                }
            )
        if draw(st.integers(0, 6)) == 0:
            recs.append(
                {"type": "summary", "summary": "s", "leafUuid": f"u{draw(st.integers(0, i))}"}
            )
    return recs


@settings(max_examples=150, deadline=None)
@given(record_lists())
def test_remap_keeps_the_shape_and_leaves_no_original_uuid(recs):
    counter = iter(range(10**6))
    copies, mapping = remap_records(recs, "new-session", "old", lambda: f"n{next(counter)}")
    originals = {r["uuid"] for r in recs if "uuid" in r}
    assert len(copies) == len(recs) and len(set(mapping.values())) == len(mapping) == len(originals)
    new_uuids = {c["uuid"] for c in copies if "uuid" in c}
    for r, c in zip(recs, copies, strict=True):
        assert not (set(_links(c)) & originals)  # no uuid of the original survives
        assert list(c)[: len(r)] == [k for k in r if k != "forkedFrom"]  # key order kept
        if "uuid" in r:
            assert c["uuid"] == mapping[r["uuid"]]
            assert c["forkedFrom"] == {"sessionId": "old", "messageUuid": r["uuid"]}
            # the same tree: a parent in the list maps to its copy; one that is not → a root
            p = r["parentUuid"]
            assert c["parentUuid"] == (mapping[p] if p in mapping else None)
            assert c["parentUuid"] is None or c["parentUuid"] in new_uuids  # parents resolve
            if "logicalParentUuid" in r:
                assert c["logicalParentUuid"] == mapping[r["logicalParentUuid"]]
            assert c["sessionId"] == "new-session"
        else:
            for k in ("leafUuid", "messageId"):
                if k in r:
                    assert c[k] == mapping[r[k]]
    assert recs == [dict(r) for r in recs]  # the input is not changed


def test_remap_leaves_payloads_alone():
    recs = [
        {
            "type": "user",
            "uuid": "u0",
            "parentUuid": None,
            "message": {"role": "user", "content": "talk about u0"},
            "toolUseResult": {"agentId": "u0"},
        }
    ]
    (c,), _ = remap_records(recs, "n", "o", lambda: "x")
    assert c["message"] == recs[0]["message"] and c["toolUseResult"] == {"agentId": "u0"}


def test_remap_follows_the_preserved_messages_of_2_1_332():
    # Claude Code 2.1.332 writes preservedMessages as an object; left unmapped, the copy's
    # boundary named records it does not hold and Claude Code resumed without the reply it
    # keeps from before /compact (lab: the whole fork sent one turn fewer than the source)
    meta = {
        "preservedSegment": {"headUuid": "a", "anchorUuid": "s", "tailUuid": "a"},
        "preservedMessages": {"anchorUuid": "s", "uuids": ["a"], "allUuids": ["a"]},
    }
    recs = [
        {"type": "assistant", "uuid": "a", "parentUuid": None},
        {
            "type": "system",
            "subtype": "compact_boundary",
            "uuid": "b",
            "parentUuid": None,
            "logicalParentUuid": "a",
            "compactMetadata": meta,
        },
        {"type": "user", "uuid": "s", "parentUuid": "b", "isCompactSummary": True},
    ]
    n = iter(["A", "B", "S"])
    copies, _ = remap_records(recs, "n", "o", lambda: next(n))
    got = copies[1]["compactMetadata"]
    assert got["preservedSegment"] == {"headUuid": "A", "anchorUuid": "S", "tailUuid": "A"}
    assert got["preservedMessages"] == {"anchorUuid": "S", "uuids": ["A"], "allUuids": ["A"]}


# --------------------------------------------------------------------------- real transcripts


@pytest.fixture
def fixture_home(tmp_path):
    dst = tmp_path / "claude"
    shutil.copytree(CLAUDE_HOME, dst)
    return ClaudeHome(dst)


def _check_fork(h: ClaudeHome, view, res, expect_msgs) -> None:
    src_uuids = {o.uuid for o in view.scan.objs if o.uuid}
    assert res.path == res.path.parent / f"{res.session_id}.jsonl"
    assert res.path.parent == view.file.path.parent  # the same project folder
    back = open_claude_session(h, file_for_path(res.path))
    recs = [orjson.loads(x) for x in res.path.read_bytes().splitlines()]
    assert not back.scan.bad_lines and back.file.session_id == res.session_id
    assert back.scan.objs[back.tree.leaf].uuid == res.leaf_uuid
    for d in recs:
        assert not (set(_links(d)) & src_uuids)
        if "sessionId" in d:
            assert d["sessionId"] == res.session_id
        if d.get("uuid"):
            assert d["forkedFrom"]["sessionId"] == view.session_id
    assert [(m.role, m.kind, m.block_types) for m in back.messages] == [
        (m.role, m.kind, m.block_types) for m in expect_msgs
    ]
    assert not back.tree.bridges  # every parent of the copy resolves


def test_fork_every_prompt_of_every_real_session(fixture_home):
    before = {p: p.read_bytes() for p in fixture_home.projects_dir.rglob("*.jsonl")}
    made = 0
    for f in discover(fixture_home, include_sidechains=False):
        view = open_claude_session(fixture_home, f)
        if view.tree.leaf is None:
            continue
        res = fork_session(view)
        _check_fork(fixture_home, view, res, view.messages)
        made += 1
        for p in view.prompts[1:4]:
            res = fork_session(view, before=p.index)
            _check_fork(fixture_home, view, res, view.messages[: p.index])
            made += 1
    assert made > 30
    for p, data in before.items():  # never an in-place edit or an appended marker
        assert p.read_bytes() == data


def test_fork_a_stranded_branch_of_a_real_session(fixture_home):
    view = open_claude_session(fixture_home, resolve_session(fixture_home, "0d3a8e6f"))
    branches = view.tree.branches
    assert branches
    t = branches[0]
    res = fork_session(view, tip=t.index)
    back = open_claude_session(fixture_home, file_for_path(res.path))
    assert back.scan.objs[back.tree.leaf].uuid == res.leaf_uuid
    assert res.source_leaf_uuid == view.scan.objs[t.index].uuid
    # the copy resumes the branch: its conversation ends with the branch's leaf
    assert back.messages[-1].uuid == res.leaf_uuid
    assert len(back.tree.tips) < len(view.tree.tips)


def test_fork_keeps_the_compaction(tmp_path):
    recs = [
        cc_user("u1", None, "one", 1),
        cc_assistant("a1", "u1", "ok", 2),
        cc_boundary("cb", "a1", 3),
        cc_user("cs", "cb", "summary", 4, isCompactSummary=True),
        cc_user("u2", "cs", "two", 5),
        cc_assistant("a2", "u2", "ok", 6),
    ]
    h = ClaudeHome(cc_home(tmp_path, {"-p": {f"{CC_SESSION}.jsonl": cc_lines(*recs)}}))
    view = open_claude_session(h, resolve_session(h, CC_SESSION))
    res = fork_session(view)
    copy = [orjson.loads(x) for x in res.path.read_bytes().splitlines()]
    by_type = {d["forkedFrom"]["messageUuid"]: d for d in copy}
    assert by_type["cb"]["parentUuid"] is None
    assert by_type["cb"]["logicalParentUuid"] == by_type["a1"]["uuid"]
    back = open_claude_session(h, file_for_path(res.path))
    assert len(back.tree.compactions) == 1 and [m.compacted for m in back.messages] == [
        m.compacted for m in view.messages
    ]


def test_a_missing_parent_is_joined_in_the_copy(tmp_path):
    recs = [
        cc_user("u1", None, "one", 1),
        cc_assistant("a1", "u1", "ok", 2),
        cc_user("u2", "never-written", "two", 3),
        cc_assistant("a2", "u2", "ok", 4),
    ]
    h = ClaudeHome(cc_home(tmp_path, {"-p": {f"{CC_SESSION}.jsonl": cc_lines(*recs)}}))
    view = open_claude_session(h, resolve_session(h, CC_SESSION))
    assert view.tree.bridges
    res = fork_session(view)
    copy = {
        d["forkedFrom"]["messageUuid"]: d
        for d in map(orjson.loads, res.path.read_bytes().splitlines())
    }
    assert copy["u2"]["parentUuid"] == copy["a1"]["uuid"]
    assert not open_claude_session(h, file_for_path(res.path)).tree.bridges


def test_fork_of_a_rewound_session_resumes_the_abandoned_branch(tmp_path):
    recs = [
        cc_user("u1", None, "one", 1),
        cc_assistant("a1", "u1", "ok", 2),
        cc_user("old", "a1", "first try", 3),
        cc_assistant("oa", "old", "first answer", 4),
        cc_user("new", "a1", "second try", 5),  # /rewind: the next prompt re-parents
        cc_assistant("na", "new", "second answer", 6),
    ]
    h = ClaudeHome(cc_home(tmp_path, {"-p": {f"{CC_SESSION}.jsonl": cc_lines(*recs)}}))
    view = open_claude_session(h, resolve_session(h, CC_SESSION))
    (t,) = view.tree.branches
    assert t.rewind and view.scan.objs[t.index].uuid == "oa"
    res = fork_session(view, tip=t.index)
    back = open_claude_session(h, file_for_path(res.path))
    assert [m.preview() for m in back.messages] == ["one", "ok", "first try", "first answer"]
    assert not back.tree.branches and res.kind == "branch"


def test_fork_carries_checkpoints_and_their_blobs(tmp_path):
    home = tmp_path / "claude"
    s = cc_edit_session(home, tmp_path / "app")
    h = ClaudeHome(home)
    view = open_claude_session(h, resolve_session(h, CC_SESSION))
    res = fork_session(view, before=view.prompts[2].index)
    assert res.blobs_copied == 3 and res.blobs_missing == 0  # a@v1, a@v2, b@v1 (new.txt: null)
    fork_view = open_claude_session(h, file_for_path(res.path))
    fh = read_file_history(fork_view)
    assert [c.id for c in fh.checkpoints] == ["c1", "c2"]
    assert fh.unrecoverable() == [] and all(c.prompt is not None for c in fh.checkpoints)
    state = {
        Path(p).name: b.read() if b.existed else None for p, (b, _) in fh.state_before(1).items()
    }
    assert state == {"a.txt": b"A1\n", "new.txt": None, "b.txt": b"B0\n"}
    assert s["a"].read_bytes() == b"A3\n"  # a fork writes no project file


def test_dry_run_writes_nothing(tmp_path):
    home = tmp_path / "claude"
    cc_edit_session(home, tmp_path / "app")
    h = ClaudeHome(home)
    view = open_claude_session(h, resolve_session(h, CC_SESSION))
    before = sorted(p for p in home.rglob("*"))
    res = fork_session(view, dry_run=True)
    assert res.dry_run and res.message_count == len(view.messages)
    assert sorted(p for p in home.rglob("*")) == before


def test_a_failed_write_leaves_no_fork(tmp_path, monkeypatch):
    home = tmp_path / "claude"
    cc_edit_session(home, tmp_path / "app")
    h = ClaudeHome(home)
    view = open_claude_session(h, resolve_session(h, CC_SESSION))
    before = sorted(p for p in home.rglob("*"))
    real_link = os.link

    def link(src, dst, *a, **kw):
        if str(dst).endswith(".jsonl"):
            raise OSError(28, "No space left on device")
        return real_link(src, dst, *a, **kw)

    monkeypatch.setattr(os, "link", link)
    with pytest.raises(ForkError, match="nothing was written"):
        fork_session(view)
    assert sorted(p for p in home.rglob("*")) == before  # blobs taken back, no temp left


def test_a_copy_that_would_resume_elsewhere_is_refused(tmp_path):
    # a parallel tool result stamped after the turn's reply: resume would pick it
    recs = [
        cc_user("u1", None, "go", 1),
        cc_assistant("A", "u1", None, 2, msg_id="m1", tools=(("X", "Read"),)),
        cc_assistant("A2", "A", None, 3, msg_id="m1", tools=(("Y", "Read"),)),
        cc_results("RY", "A2", "Y", ts=4),
        cc_assistant("F", "RY", "done", 5),
        cc_results("RX", "A", "X", ts=9),
        cc_user("u2", "F", "next", 10),
        cc_assistant("F2", "u2", "ok", 11),
    ]
    h = ClaudeHome(cc_home(tmp_path, {"-p": {f"{CC_SESSION}.jsonl": cc_lines(*recs)}}))
    view = open_claude_session(h, resolve_session(h, CC_SESSION))
    with pytest.raises(ForkError, match="another record"):
        prepare_fork(view, before=view.prompts[1].index)
    assert list((tmp_path / "projects" / "-p").iterdir()) == [view.file.path]


def test_subagent_files_and_empty_points_are_refused(fixture_home):
    from sidtui.core.base.errors import UsageError

    sub = next(f for f in discover(fixture_home) if f.kind == "sidechain")
    with pytest.raises(UsageError, match="subagent"):
        fork_session(open_claude_session(fixture_home, sub))
    view = open_claude_session(fixture_home, resolve_session(fixture_home, "94604a7b"))
    with pytest.raises(UsageError, match="nothing to fork"):
        fork_session(view, before=view.prompts[0].index)


def test_settings_before_the_cut_are_copied_titles_are_not(tmp_path):
    recs = [
        {"type": "permission-mode", "permissionMode": "acceptEdits", "sessionId": CC_SESSION},
        {"type": "custom-title", "customTitle": "mine", "sessionId": CC_SESSION},
        cc_user("u1", None, "one", 1),
        cc_assistant("a1", "u1", "ok", 2),
        {"type": "permission-mode", "permissionMode": "plan", "sessionId": CC_SESSION},
        cc_user("u2", "a1", "two", 3),
        cc_assistant("a2", "u2", "ok", 4),
    ]
    h = ClaudeHome(cc_home(tmp_path, {"-p": {f"{CC_SESSION}.jsonl": cc_lines(*recs)}}))
    view = open_claude_session(h, resolve_session(h, CC_SESSION))
    res = fork_session(view, before=view.prompts[1].index)
    copy = [orjson.loads(x) for x in res.path.read_bytes().splitlines()]
    modes = [d for d in copy if d["type"] == "permission-mode"]
    assert [(d["permissionMode"], d["sessionId"]) for d in modes] == [
        ("acceptEdits", res.session_id),
        ("plan", res.session_id),
    ]
    assert not any(d["type"] == "custom-title" for d in copy)
    assert res.left_out == {"assistant": 1, "custom-title": 1, "user": 1}
    assert fork_mod.SETTING_TYPES == {"permission-mode", "mode", "agent-setting"}


def test_conversation_depths_match_the_walks():
    from types import SimpleNamespace

    from sidtui.core.claude.fork import conversation_depths

    # 0 ← 1 ← 2 ← 3, 1 ← 4 (a branch), 5 is a root; 2 is a progress record (transparent)
    types = ["user", "assistant", "progress", "user", "user", "assistant"]
    parent = [-1, 0, 1, 2, 1, -1]
    objs = [SimpleNamespace(type=t) for t in types]
    got = conversation_depths(parent, objs, [3, 4, 5])
    assert (got[3], got[4], got[5]) == (3, 3, 1)
    assert got[2] == 2 and got[0] == 1


def test_pending_forks_name_their_source_and_whether_the_copy_landed(tmp_path):
    """A killed fork's journal is said as a pending fork of its source session: its copy
    incomplete, or written complete (only the journal left); filtered by session."""
    import orjson

    from sidtui.core.checkpoints.journal import write_journal
    from sidtui.core.claude.fork_journal import pending_forks
    from tests.helpers import dead_pid

    forks = tmp_path / "sidtui" / "forks"
    assert pending_forks(forks) == []  # no folder: nothing, no error
    landed = tmp_path / "landed.jsonl"
    landed.write_text("{}\n")
    for new, src, transcript in (("n1", "s1", tmp_path / "gone.jsonl"), ("n2", "s2", landed)):
        write_journal(
            forks / new,
            {"op": "branch", "claudeFork": {"source": src, "transcript": str(transcript)}},
        )
        j = forks / new / "sidtui-journal.json"
        j.write_bytes(orjson.dumps({**orjson.loads(j.read_bytes()), "pid": dead_pid()}))
    (forks / "n3").mkdir()  # a dead writer's folder without a journal: nothing pending
    n1, n2 = pending_forks(forks)
    assert (n1.session_id, n1.session, n1.op, n1.running, n1.complete) == (
        "n1",
        "s1",
        "branch",
        False,
        False,
    )
    assert "an interrupted sidtui branch of s1 is pending (process" in n1.describe()
    assert "its copy n1 is incomplete; the next sidtui fork" in n1.describe()
    assert (n2.session, n2.complete) == ("s2", True)
    assert "its copy n2 was written complete" in n2.describe()
    assert [p.session_id for p in pending_forks(forks, ["s2"])] == ["n2"]
    assert [p.session_id for p in pending_forks(forks, ["n1", "other"])] == ["n1"]

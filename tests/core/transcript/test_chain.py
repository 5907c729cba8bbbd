"""Chain rebuild (FORMAT.md §4), the record tree and hostile files."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from sidtui.core.base.home import Home, SessionFile
from sidtui.core.transcript.chain import build_tree, rebuild_chain
from sidtui.core.transcript.scan import scan_records
from sidtui.core.views.session import open_session
from tests.helpers import assistant, jsonl, rec, start, user


def lines_of(data: bytes, chain) -> list[str]:
    rf = scan_records(data)
    return [rf.records[i].uuid for i in chain.chain]


def view(tmp_path, data: bytes, name="20260101-000000-aaaaaaaa.jsonl"):
    p = tmp_path / "sessions" / "proj" / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    home = Home(tmp_path)
    return open_session(home, SessionFile(p, p.stem, "proj"), registrations=[])


def test_interleaving_rebuilds_second_process_chain():
    """FORMAT.md §4.5: A and B both hang off A1; the last line is B3 ⇒ A1, B1, B2, B3."""
    data = jsonl(
        start("A1"),
        user("A2", "A1", "change auth"),
        user("B1", "A1", "write docs"),
        assistant("A3", "A2", "look at auth"),
        assistant("B2", "B1", "draft"),
        rec(
            "user_message",
            "A4",
            "A3",
            message={"role": "user", "content": [{"type": "text", "text": "auth code"}]},
        ),
        rec(
            "user_message",
            "B3",
            "B2",
            message={"role": "user", "content": [{"type": "text", "text": "doc body"}]},
        ),
    )
    rf = scan_records(data)
    chain = rebuild_chain(rf)
    assert lines_of(data, chain) == ["A1", "B1", "B2", "B3"]
    tree = build_tree(rf, chain)
    assert len(tree.tips) == 2
    assert tree.skipped_records == 3
    (branch,) = tree.branches
    assert [rf.records[i].uuid for i in branch.records] == ["A2", "A3", "A4"]
    assert rf.records[branch.joins_at].uuid == "A1"
    assert tree.branch_points == [0]


def test_resume_with_null_parent_rebuilds_new_part_and_warns(tmp_path):
    """FORMAT.md §4.5: a resume that restarts with parentUuid=null hides the old history."""
    data = jsonl(
        start("A1"),
        user("A2", "A1"),
        assistant("A3", "A2"),
        start("B0"),
        user("B1", "B0", "again"),
        assistant("B2", "B1"),
    )
    v = view(tmp_path, data)
    assert [m.uuid for m in v.loaded.messages] == ["B1", "B2"]
    assert len(v.tree.heads) == 2
    assert any("2 heads" in w for w in v.warnings)


def test_cycle_truncates_with_warning(tmp_path):
    data = jsonl(start("X"), user("Y", "X"), assistant("X", "Y"))
    v = view(tmp_path, data)
    assert v.chain.cycle and v.chain.cycle_uuid == "X"
    assert any("cycle" in w for w in v.warnings)
    assert not v.loaded.loadable  # the walk stops before reaching the session_start


def test_half_object_at_end_is_skipped_and_reported(tmp_path):
    data = jsonl(start("S"), user("U", "S"), assistant("A", "U")) + b'{"type":"user_mes'
    v = view(tmp_path, data)
    assert [m.uuid for m in v.loaded.messages] == ["U", "A"]
    (bad,) = v.rf.bad_lines
    assert (
        bad.line == 4 and not bad.terminated and bad.offset == len(data) - len(b'{"type":"user_mes')
    )
    assert any("line 4" in w for w in v.warnings)


def test_garbage_in_middle_cuts_chain_but_never_raises(tmp_path):
    data = jsonl(start("S"), user("U", "S"), b"\x00garbage{{{", assistant("A", "U"))
    v = view(tmp_path, data)
    assert v.loaded.loadable and [m.uuid for m in v.loaded.messages] == ["U", "A"]
    assert v.rf.bad_lines[0].line == 3


def test_duplicate_uuids_and_missing_parent(tmp_path):
    data = jsonl(start("S"), user("U", "S"), user("U", "S", "dup"), assistant("A", "NOPE"))
    v = view(tmp_path, data)
    assert not v.loaded.loadable
    assert "NOPE" in v.loaded.load_failure
    assert v.tree.duplicate_uuids == ["U"]


def test_empty_and_blank_files(tmp_path):
    for data in (b"", b"\n\n  \n\t\n"):
        v = view(tmp_path, data)
        assert not v.loaded.loadable
        assert v.rf.bad_lines == []
        assert any("no records" in w for w in v.warnings)


def test_tool_result_record_type_is_read_but_never_relied_on():
    """FORMAT.md §3.5: `tool_result` as a record type is dead code upstream (0 on disk)."""
    data = jsonl(
        start("S"),
        user("U", "S"),
        assistant("A", "U", tools=[("t1", "read")]),
        rec(
            "tool_result",
            "R",
            "A",
            message={
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}],
            },
        ),
    )
    rf = scan_records(data)
    from sidtui.core.transcript.loader import load_jsonl

    ls = load_jsonl(rf, rebuild_chain(rf))
    assert [m.record_type for m in ls.messages] == [
        "user_message",
        "assistant_message",
        "tool_result",
    ]


# --- property tests -------------------------------------------------------------------


@st.composite
def interleaved_files(draw):
    """Random record trees written in random interleavings with random bad lines."""
    n = draw(st.integers(1, 40))
    uuids = [f"u{i}" for i in range(n)]
    parents: list[str | None] = []
    for i in range(n):
        if i == 0 or draw(st.integers(0, 9)) == 0:
            parents.append(None)
        else:
            parents.append(uuids[draw(st.integers(0, i - 1))])
    # a parent always precedes its child physically when written by one process; random
    # interleavings keep that order per writer, so a topological shuffle models them
    order = list(range(n))
    seed = draw(st.integers(0, 2**32 - 1))
    rnd = random.Random(seed)
    placed: list[int] = []
    remaining = set(order)
    while remaining:
        ready = [
            i for i in remaining if parents[i] is None or parents[i] in {uuids[p] for p in placed}
        ]
        pick = rnd.choice(sorted(ready))
        placed.append(pick)
        remaining.remove(pick)
    lines: list[bytes] = []
    for i in placed:
        lines.append(jsonl(rec("metadata", uuids[i], parents[i], key="k", value=i)).rstrip(b"\n"))
        if draw(st.integers(0, 7)) == 0:
            lines.append(draw(st.sampled_from([b"{broken", b"", b"   ", b"nul", b'{"a":NaN}'])))
    if draw(st.booleans()):
        lines.append(b'{"type":"metadata","uu')  # torn tail
    return b"\n".join(lines), uuids, parents


@settings(max_examples=150, deadline=None)
@given(interleaved_files())
def test_rebuilt_chain_is_ancestor_path_of_last_good_record(case):
    data, uuids, parents = case
    rf = scan_records(data)
    chain = rebuild_chain(rf)
    got = [rf.records[i].uuid for i in chain.chain]
    assert len(got) == len(set(got))  # never a record twice
    tail = rf.records[-1].uuid
    parent_of = dict(zip(uuids, parents, strict=True))
    expected = []
    cur = tail
    while cur is not None:
        expected.append(cur)
        cur = parent_of[cur]
    assert got == list(reversed(expected))
    tree = build_tree(rf, chain)
    assert tree.skipped_records == len(rf.records) - len(chain.chain)


def test_chain_only_scan_gives_the_same_records_and_load():
    import glob

    from sidtui.core.transcript.loader import load_jsonl
    from tests.helpers import REAL_HOME

    for f in sorted(glob.glob(str(REAL_HOME / "sessions" / "*" / "*.jsonl"))):
        data = open(f, "rb").read()
        full, lean = scan_records(data), scan_records(data, chain_only=True)
        key = lambda rf: [(r.line, r.offset, r.end, r.type, r.uuid, r.parent) for r in rf.records]  # noqa: E731
        assert key(full) == key(lean), f
        a, b = load_jsonl(full, rebuild_chain(full)), load_jsonl(lean, rebuild_chain(lean))
        assert [(m.uuid, m.block_types, m.meta) for m in a.messages] == [
            (m.uuid, m.block_types, m.meta) for m in b.messages
        ]
        assert a.metadata == b.metadata


def test_chunk_scan_decodes_with_file_offsets():
    data = jsonl(start("S"), user("U", "S", "first"), assistant("A", "U", "second"))
    cut = data.index(b"\n") + 1
    rf = scan_records(data[cut:], start_line=1, base_offset=cut)
    assert [r.line for r in rf.records] == [2, 3]
    assert rf.records[0].offset == cut
    assert rf.decode(rf.records[1])["uuid"] == "A"
    assert rf.raw(rf.records[0]) == data[cut : data.index(b"\n", cut)]

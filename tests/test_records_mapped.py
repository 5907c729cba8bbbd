"""Big transcripts are memory-mapped and scanned chunk by chunk (issue 2, peak memory).

The mapped scan must give exactly what the in-memory scan gives: same records, bad lines,
blank lines, decoded fields and the same ``show --json``, whatever the chunk size (lines
cut across chunk boundaries, lines longer than a chunk, a final line without newline).
"""

from __future__ import annotations

import io
import mmap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sidtui.core.records as records
from sidtui.core.chain import _is_one_linear_chain
from sidtui.core.home import Home, discover
from sidtui.core.records import map_file, scan_records
from sidtui.core.session import open_session, session_to_json, write_json_stream
from tests.conftest import REAL_HOME

SESSION_FILES = sorted(
    p for p in (REAL_HOME / "sessions").rglob("*.jsonl") if "summaries" not in p.parts
)


def _shape(rf: records.RecordFile) -> tuple:
    recs = [(r.index, r.line, r.offset, r.end, r.type, r.uuid, r.parent, r.is_object, r.obj)
            for r in rf.records]
    bad = [(b.line, b.offset, b.length, b.reason, b.terminated) for b in rf.bad_lines]
    return recs, bad, rf.blank_lines, rf.line_count, rf.ends_with_newline, rf.size, rf.whole


def _mapped(path: Path) -> mmap.mmap:
    with open(path, "rb") as f:
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


@pytest.fixture
def tiny_chunks(monkeypatch):
    """Map every file and decode 512-byte chunks, so every fixture crosses many boundaries."""
    monkeypatch.setattr(records, "MMAP_MIN_BYTES", 1)
    monkeypatch.setattr(records, "MAP_CHUNK_BYTES", 512)


@pytest.mark.parametrize("path", SESSION_FILES, ids=lambda p: p.name)
def test_mapped_scan_equals_in_memory_scan(path, tiny_chunks):
    if path.stat().st_size == 0:
        pytest.skip("an empty file cannot be mapped (map_file reads it)")
    mm = map_file(path)
    assert isinstance(mm, mmap.mmap)
    for chain_only in (False, True):
        assert _shape(scan_records(mm, chain_only=chain_only)) == _shape(
            scan_records(path.read_bytes(), chain_only=chain_only)
        )


def _show_json(home: Home, sf) -> bytes:
    out = io.BytesIO()
    write_json_stream(session_to_json(open_session(home, sf), lazy=True), out)
    return out.getvalue()


def test_show_json_identical_mapped_or_read(monkeypatch):
    home = Home(REAL_HOME)
    files = [sf for sf in discover(home) if sf.container == "jsonl"]
    assert files
    plain = {str(sf.path): _show_json(home, sf) for sf in files}
    monkeypatch.setattr(records, "MMAP_MIN_BYTES", 1)
    monkeypatch.setattr(records, "MAP_CHUNK_BYTES", 700)
    for sf in files:
        if sf.path.stat().st_size:
            assert _show_json(home, sf) == plain[str(sf.path)], sf.path


def test_small_files_are_read_and_big_ones_mapped(tmp_path, monkeypatch):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"type":"session_start","uuid":"a","parentUuid":null}\n')
    assert isinstance(map_file(p), bytes)
    monkeypatch.setattr(records, "MMAP_MIN_BYTES", 10)
    assert isinstance(map_file(p), mmap.mmap)
    empty = tmp_path / "e.jsonl"
    empty.write_bytes(b"")
    assert map_file(empty) == b""


def _record(i: int, t: str) -> bytes:
    parent = f'"u{i - 1}"' if i else "null"
    text = "x" * (i % 7)
    return (
        f'{{"type":"{t}","uuid":"u{i}","parentUuid":{parent},"message":{{"role":"user",'
        f'"content":[{{"type":"text","text":"{text}"}}]}}}}'
    ).encode()


_LINE = st.one_of(
    st.builds(
        lambda i, t: _record(i, t),
        st.integers(0, 50),
        st.sampled_from(["user_message", "assistant_message", "metadata", "opaque_kind"]),
    ),
    st.sampled_from([b"", b"   ", b'{"type":', b"[1,2]", b'"\\ud800"', b'{"text":"\xff"}']),
)


@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(_LINE, max_size=25),
    chunk=st.integers(1, 300),
    final_newline=st.booleans(),
)
def test_mapped_scan_property(tmp_path_factory, lines, chunk, final_newline):
    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    if not data:
        return
    p = tmp_path_factory.mktemp("m") / "s.jsonl"
    p.write_bytes(data)
    old = records.MAP_CHUNK_BYTES
    records.MAP_CHUNK_BYTES = chunk
    try:
        for chain_only in (False, True):
            rf = scan_records(data, chain_only=chain_only)
            assert _shape(scan_records(_mapped(p), chain_only=chain_only)) == _shape(rf)
            if rf.is_fast:  # the scan's one-pass test agrees with the column test
                _, uuids, parents = rf.columns()
                assert rf.whole == (
                    None not in uuids and _is_one_linear_chain(uuids, parents)
                )
                if rf.whole:  # each parent is its parent record's very uuid string
                    assert all(p is u for p, u in zip(parents[1:], uuids, strict=False))
    finally:
        records.MAP_CHUNK_BYTES = old


@settings(max_examples=100, deadline=None)
@given(
    n=st.integers(1, 40),
    cut=st.one_of(st.none(), st.integers(0, 39)),
    how=st.sampled_from(["drop", "repeat", "null_parent", "no_uuid"]),
    chunk=st.integers(1, 400),
)
def test_whole_chain_test_on_near_linear_files(tmp_path_factory, n, cut, how, chunk):
    """Linear files, and linear files with one record dropped, repeated or re-headed."""
    lines = [_record(i, "user_message") for i in range(n)]
    if cut is not None and cut < n:
        if how == "drop":
            del lines[cut]
        elif how == "repeat":
            lines.insert(cut, lines[cut])
        elif how == "null_parent":
            lines[cut] = lines[cut].replace(b'"parentUuid":"', b'"parentUuid":null,"x":"')
        else:
            lines[cut] = lines[cut].replace(b'"uuid":', b'"id":')
    if not lines:
        return
    data = b"\n".join(lines) + b"\n"
    p = tmp_path_factory.mktemp("w") / "s.jsonl"
    p.write_bytes(data)
    old = records.MAP_CHUNK_BYTES
    records.MAP_CHUNK_BYTES = chunk
    try:
        for rf in (scan_records(data), scan_records(_mapped(p))):
            _, uuids, parents = rf.columns()
            expect = None not in uuids and _is_one_linear_chain(uuids, parents)
            assert rf.whole == expect
            intact = cut is None or cut >= n
            assert expect == (intact or (how == "null_parent" and cut == 0)
                              or (how == "drop" and cut == n - 1))
    finally:
        records.MAP_CHUNK_BYTES = old

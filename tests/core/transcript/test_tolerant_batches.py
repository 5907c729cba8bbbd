"""The per-line scan reads each piece's whole lines in one typed decode when every line is
exactly one record (``tolerant._whole_lines``), and the loader walks a per-line scan whose
chain records were all typed-decoded with the fast walk (``loader._load_decoded``). Both
must give exactly what the one-line-at-a-time paths give, on files with odd lines placed
anywhere, in pieces of any size."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sidtui.core.transcript import loader as transcript_loader
from sidtui.core.transcript import source as transcript_source
from sidtui.core.transcript import tolerant
from sidtui.core.transcript.chain import rebuild_chain
from sidtui.core.transcript.loader import load_jsonl
from sidtui.core.transcript.messages import MessageScan
from sidtui.core.transcript.scan import scan_records
from sidtui.core.transcript.source import FileSource
from sidtui.core.transcript.tolerant import scan_tolerant, scan_tolerant_source
from tests.helpers import SCAN_SLOTS, reading_paths, record_specs, spec_transcript

_ODD = st.sampled_from(
    [
        b"",  # blank
        b"   ",  # whitespace only
        b'{"type": "user_message", "uuid": ',  # torn
        b"\xef\xbb\xbf" + b'{"type":"metadata","key":"k","value":1,"uuid":"m1"}',  # BOM glued
        b'{"type":"metadata","uuid":7,"parentUuid":null}',  # a uuid that is no string
        b'{"a":1}{"b":2}',  # two values on a line
        b"null",
        b"[1,2]",
        b'{"type":"user_message","uuid":"x\\u2028y"}',
        b'{"type":"user_message","message":{"role":"user","content":"a string"}}',
    ]
)


_BOM_METADATA = b"\xef\xbb\xbf" + b'{"type":"metadata","key":"k","value":1,"uuid":"m1"}'
_ONE_USER = {"type": "user_message", "role": "user", "content": [], "meta": None, "mode": None}


def _odd_file(specs, odd, crlf: bool) -> bytes:
    lines = spec_transcript(specs).split(b"\n")[:-1]
    for at, what in odd:
        lines.insert(at % (len(lines) + 1), what)
    end = b"\r\n" if crlf else b"\n"
    return end.join(lines) + end


def _source(tmp, data: bytes) -> FileSource:
    p = tmp / "s.jsonl"
    p.write_bytes(data)
    return FileSource(p, open(p, "rb", buffering=0), len(data))


def _scan_shape(rf) -> tuple:
    recs = [
        (r.index, r.line, r.offset, r.end, r.type, r.uuid, r.parent, r.is_object, r.obj)
        for r in rf.records
    ]
    bad = [(b.line, b.offset, b.length, b.reason, b.terminated) for b in rf.bad_lines]
    odd_links = {k: tuple(map(str, v)) for k, v in rf.odd_links.items()}
    return recs, bad, rf.blank_lines, rf.line_count, rf.ends_with_newline, odd_links


def _load_shape(ls) -> tuple:
    msgs = [
        (m.index, m.record, m.uuid, m.line, m.record_type, m.role, m.timestamp, m.shape)
        for m in ls.messages
    ]
    sc = ls.scan or MessageScan.of(ls.messages)
    # (not ok: recovery runs every layer on every message, the lists are not read)
    scan = (sc.ok, tuple(getattr(sc, k) for k in SCAN_SLOTS) if sc.ok else None)
    entries = [(e.record, e.line, e.key) for e in ls.metadata_entries]
    return (
        msgs,
        entries,
        ls.metadata,
        ls.loadable,
        ls.load_failure,
        ls.session_id,
        ls.updated_at,
        scan,
    )


@settings(max_examples=150, deadline=None)
@given(
    specs=st.lists(record_specs, min_size=1, max_size=12),
    odd=st.lists(st.tuples(st.integers(0, 40), _ODD), max_size=3),
    crlf=st.booleans(),
    piece=st.sampled_from([64, 300, 1500, 1 << 20]),
    streaming=st.booleans(),
)
def test_whole_lines_read_at_once_are_what_each_line_gives(
    tmp_path_factory, specs, odd, crlf, piece, streaming
):
    data = _odd_file(specs, odd, crlf)
    tmp = tmp_path_factory.mktemp("b")
    with pytest.MonkeyPatch.context() as m:
        m.setattr(transcript_source, "PIECE_BYTES", piece)
        batched = scan_tolerant_source(_source(tmp, data), 0, streaming)
        in_memory = scan_tolerant(data, 0, 0, streaming)
        at_base = scan_tolerant(data, 5, 1000, streaming)  # a tail read from line 6 on
        m.setattr(tolerant, "_whole_lines", lambda *a: None)
        per_line = scan_tolerant_source(_source(tmp, data), 0, streaming)
        per_line_in_memory = scan_tolerant(data, 0, 0, streaming)
        per_line_at_base = scan_tolerant(data, 5, 1000, streaming)
    assert _scan_shape(batched) == _scan_shape(per_line)
    assert _scan_shape(in_memory) == _scan_shape(per_line_in_memory)
    assert _scan_shape(at_base) == _scan_shape(per_line_at_base)


@settings(max_examples=150, deadline=None)
@given(
    specs=st.lists(record_specs, min_size=1, max_size=12),
    odd=st.lists(st.tuples(st.integers(0, 40), _ODD), max_size=3),
    crlf=st.booleans(),
)
def test_the_fast_walk_over_a_per_line_scan_loads_alike(tmp_path_factory, specs, odd, crlf):
    data = _odd_file(specs, odd, crlf)
    rf = scan_tolerant_source(_source(tmp_path_factory.mktemp("l"), data), 0, False)
    chain = rebuild_chain(rf)
    fast = load_jsonl(rf, chain)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(transcript_loader, "_load_decoded", lambda *a: None)
        general = load_jsonl(rf, chain)
    assert _load_shape(fast) == _load_shape(general)


def test_a_bad_line_mid_file_keeps_the_other_pieces_batched(tmp_path, monkeypatch):
    """One torn line in the middle of a big file: only its piece is read line by line."""
    monkeypatch.setattr(transcript_source, "PIECE_BYTES", 2048)
    lines = spec_transcript(
        [{"type": "user_message", "role": "user", "content": "x" * 40, "meta": None, "mode": None}]
        * 60
    )
    lines = lines.split(b"\n")[:-1]
    lines.insert(len(lines) // 2, lines[3][:20])
    data = b"\n".join(lines) + b"\n"
    calls: list[bool] = []
    real = tolerant._whole_lines

    def spy(*a):
        got = real(*a)
        calls.append(got is not None)
        return got

    monkeypatch.setattr(tolerant, "_whole_lines", spy)
    rf = scan_tolerant_source(_source(tmp_path, data), 0, False)
    assert len(rf.bad_lines) == 1 and rf.count == len(lines) - 1
    assert calls.count(False) == 1 and calls.count(True) >= 3
    assert orjson.loads(rf.raw(rf.records[-1]))["uuid"] == orjson.loads(lines[-1])["uuid"]


@settings(max_examples=150, deadline=None)
@given(
    specs=st.lists(record_specs, min_size=1, max_size=12),
    odd=st.lists(st.tuples(st.integers(0, 40), _ODD), max_size=3),
    crlf=st.booleans(),
    piece=st.sampled_from([64, 300, 1500]),
    streamed=st.booleans(),
)
# a BOM glued to line 1 and a blank line: the per-line scan kept the BOM (issue 32)
@example(
    specs=[_ONE_USER], odd=[(0, _BOM_METADATA), (2, b"")], crlf=False, piece=64, streamed=False
)
@example(
    specs=[_ONE_USER], odd=[(0, _BOM_METADATA), (1, b"")], crlf=True, piece=300, streamed=False
)
def test_the_pieces_decoded_before_an_odd_line_are_kept(
    tmp_path_factory, specs, odd, crlf, piece, streamed
):
    """The fast scan of a file read in pieces meets a line that needs the per-line rules:
    the pieces it decoded before are taken as they are — the same records as reading the
    whole file one line at a time."""
    data = _odd_file(specs, odd, crlf)
    tmp = tmp_path_factory.mktemp("p")
    with pytest.MonkeyPatch.context() as m:
        m.setattr(transcript_source, "PIECE_MIN_BYTES", 1)
        m.setattr(transcript_source, "PIECE_BYTES", piece)
        got = scan_records(_source(tmp, data), streamed=streamed)
        m.setattr(tolerant, "_whole_lines", lambda *a: None)
        per_line = scan_tolerant_source(_source(tmp, data), 0, streamed)
    if not got.is_fast:
        assert _scan_shape(got) == _scan_shape(per_line)


@pytest.mark.parametrize("blank_at", [1, 2])
@pytest.mark.parametrize("piece", [64, 4096])
def test_a_bom_on_line_1_stays_trimmed_past_a_blank_line(tmp_path, monkeypatch, blank_at, piece):
    """The agent trims a byte-order mark glued to line 1 of a file it reads whole; a blank
    line sends the scan of a file read in pieces to the per-line path, which kept the BOM
    (line 1 a bad line) when the blank line came in the first piece. Both read line 1 as
    the whole-buffer scan does (oracle case whitespace-around-file/bom-then-blank-line)."""
    data = _odd_file([_ONE_USER], [(0, _BOM_METADATA), (blank_at, b"")], False)
    whole = scan_records(data)
    monkeypatch.setattr(transcript_source, "PIECE_MIN_BYTES", 1)
    monkeypatch.setattr(transcript_source, "PIECE_BYTES", piece)
    pieces = scan_records(_source(tmp_path, data), streamed=False)
    per_line = scan_tolerant_source(_source(tmp_path, data), 0, False)
    assert whole.records[0].line == 1 and whole.records[0].offset == 3
    for rf in (pieces, per_line):
        assert [(r.line, r.offset, r.end) for r in rf.records] == [
            (r.line, r.offset, r.end) for r in whole.records
        ]
        assert rf.bad_lines == [] and rf.trimmed == whole.trimmed


@pytest.mark.parametrize(
    "cut",
    [
        b'{"type":"as\nsistant_message"',  # inside a string: "as,sistant_message" was read
        b'{"type":"assistant_message","n":[12\n34]',  # inside a number in an array
    ],
)
@pytest.mark.parametrize("in_pieces", [False, True])
def test_a_line_cut_in_two_is_never_one_record(tmp_path, monkeypatch, cut, in_pieces):
    """A newline inserted into a line leaves two bad lines (JSON.parse rejects both
    halves), never one record spanning two lines: the fast decode made each ``\\n`` a
    ``,`` and read the halves as one value (oracle cases line-split-in-a-string/*)."""
    lines = spec_transcript([_ONE_USER] * 3).split(b"\n")[:-1]
    lines[2] = cut + lines[2][lines[2].index(b',"uuid"') :]
    data = b"\n".join(lines) + b"\n"
    if in_pieces:
        monkeypatch.setattr(transcript_source, "PIECE_MIN_BYTES", 1)
        rf = scan_records(_source(tmp_path, data), streamed=False)
    else:
        rf = scan_records(data)
    assert [b.line for b in rf.bad_lines] == [3, 4]
    assert [r.line for r in rf.records] == [1, 2, 5]
    assert rf.line_count == 5


_CR_BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize(
    ("data", "piece", "streamed"),
    [
        # a CRLF line read past its piece kept its "\r" out of its span (streaming reader)
        (b'{"type":"a","uuid":"u0"}\r\n{"type":"b"}', 1, True),
        # a BOM alone on line 1: the trim takes a newline too; pieces did not trim at all
        (_CR_BOM + b'\n{"type":"a"}\n', 7, False),
        # whitespace JSON rejects after the last record: pieces did not trim it
        (b'{"type":"a"}\n{"type":"b"}\xc2\xa0\n', 5, False),
        # a BOM head, read line by line in memory: a trimmed copy ("\r" made a space)
        (_CR_BOM + b'{"type":"a"}\r\n{"type":"b"}\r\n', 1, False),
        # a BOM glued to a NUL: the bad line's span began before the trimmed head
        (_CR_BOM + b'\x00\n{"type":"a"}', 1, False),
    ],
)
def test_the_reading_paths_agree_on_the_edges(tmp_path, data, piece, streamed):
    """What the slow property (test_reading_paths_agree.py) found, kept in the fast run."""
    got = reading_paths(tmp_path, data, piece, streamed)
    ref = got.pop("whole")
    for path, shape in got.items():
        assert shape == ref, path

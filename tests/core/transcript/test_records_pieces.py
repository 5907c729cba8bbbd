"""Big transcripts are read and scanned in pieces (peak memory).

The piecewise scan must give exactly what the in-memory scan gives: same records, bad
lines, blank lines, decoded fields and the same ``show --json``, whatever the piece size
(lines cut across pieces, lines longer than a piece, a final line without newline); a
file truncated while it is read gives a clear error, never a crash.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sidtui.core.base.discover import discover
from sidtui.core.base.home import Home
from sidtui.core.transcript import source as transcript_source
from sidtui.core.transcript.chain import is_one_linear_chain
from sidtui.core.transcript.records import RecordFile
from sidtui.core.transcript.scan import scan_records
from sidtui.core.transcript.source import FileChanged, FileSource, read_transcript
from sidtui.core.transcript.tolerant import scan_tolerant
from sidtui.core.views.session import open_session
from sidtui.core.views.show_json import session_to_json, write_json_stream
from tests.helpers import REAL_HOME

SESSION_FILES = sorted(
    p for p in (REAL_HOME / "sessions").rglob("*.jsonl") if "summaries" not in p.parts
)


def _shape(rf: RecordFile) -> tuple:
    recs = [
        (r.index, r.line, r.offset, r.end, r.type, r.uuid, r.parent, r.is_object, r.obj)
        for r in rf.records
    ]
    bad = [(b.line, b.offset, b.length, b.reason, b.terminated) for b in rf.bad_lines]
    return recs, bad, rf.blank_lines, rf.line_count, rf.ends_with_newline, rf.size, rf.whole


def _mapped(path: Path) -> FileSource:
    f = open(path, "rb", buffering=0)
    return FileSource(path, f, path.stat().st_size)


@pytest.fixture
def tiny_chunks(monkeypatch):
    """Read every file in 512-byte pieces, so every fixture crosses many boundaries."""
    monkeypatch.setattr(transcript_source, "PIECE_MIN_BYTES", 1)
    monkeypatch.setattr(transcript_source, "PIECE_BYTES", 512)


@pytest.mark.parametrize("path", SESSION_FILES, ids=lambda p: p.name)
def test_mapped_scan_equals_in_memory_scan(path, tiny_chunks):
    if path.stat().st_size == 0:
        pytest.skip("an empty file is read, never a source")
    mm = read_transcript(path)
    assert isinstance(mm, FileSource)
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
    monkeypatch.setattr(transcript_source, "PIECE_MIN_BYTES", 1)
    monkeypatch.setattr(transcript_source, "PIECE_BYTES", 700)
    for sf in files:
        if sf.path.stat().st_size:
            assert _show_json(home, sf) == plain[str(sf.path)], sf.path


def test_small_files_are_read_and_big_ones_read_in_pieces(tmp_path, monkeypatch):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"type":"session_start","uuid":"a","parentUuid":null}\n')
    assert isinstance(read_transcript(p), bytes)
    monkeypatch.setattr(transcript_source, "PIECE_MIN_BYTES", 10)
    assert isinstance(read_transcript(p), FileSource)
    empty = tmp_path / "e.jsonl"
    empty.write_bytes(b"")
    assert read_transcript(empty) == b""


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
# 275a2f4: two linear records; a chain-only scan does not share the parent strings
@example(
    lines=[_record(0, "user_message"), _record(1, "assistant_message")],
    chunk=300,
    final_newline=True,
)
def test_mapped_scan_property(tmp_path_factory, lines, chunk, final_newline):
    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    if not data:
        return
    p = tmp_path_factory.mktemp("m") / "s.jsonl"
    p.write_bytes(data)
    old = transcript_source.PIECE_BYTES
    transcript_source.PIECE_BYTES = chunk
    try:
        for chain_only in (False, True):
            rf = scan_records(data, chain_only=chain_only)
            assert _shape(scan_records(_mapped(p), chain_only=chain_only)) == _shape(rf)
            if rf.is_fast:  # the scan's one-pass test agrees with the column test
                _, uuids, parents = rf.columns()
                assert rf.whole == (None not in uuids and is_one_linear_chain(uuids, parents))
                if rf.whole and not chain_only:
                    # a full scan makes each parent its parent record's very uuid string (a
                    # chain-only scan is short-lived and skips the sharing)
                    assert all(p is u for p, u in zip(parents[1:], uuids, strict=False))
    finally:
        transcript_source.PIECE_BYTES = old


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
    old = transcript_source.PIECE_BYTES
    transcript_source.PIECE_BYTES = chunk
    try:
        for rf in (scan_records(data), scan_records(_mapped(p))):
            _, uuids, parents = rf.columns()
            expect = None not in uuids and is_one_linear_chain(uuids, parents)
            assert rf.whole == expect
            intact = cut is None or cut >= n
            assert expect == (
                intact or (how == "null_parent" and cut == 0) or (how == "drop" and cut == n - 1)
            )
    finally:
        transcript_source.PIECE_BYTES = old


def _big_session(path: Path, n: int = 400) -> None:
    lines = [_record(i, "user_message") for i in range(n)]
    lines[0] = lines[0].replace(b'"type":"user_message"', b'"type":"session_start"')
    path.write_bytes(b"\n".join(lines) + b"\n")


def test_file_truncated_during_the_scan_is_a_clear_error(tmp_path, monkeypatch):
    """A file cut short while it is read in pieces: FileChanged (exit 1 in the CLI), no
    crash (a memory map would die of SIGBUS here)."""
    monkeypatch.setattr(transcript_source, "PIECE_MIN_BYTES", 1)
    monkeypatch.setattr(transcript_source, "PIECE_BYTES", 1000)
    p = tmp_path / "s.jsonl"
    _big_session(p)
    src = read_transcript(p)
    real_read_into = FileSource.read_into
    calls = []

    def read_then_truncate(self, view, start):
        real_read_into(self, view, start)
        if not calls:
            with open(p, "r+b") as f:
                f.truncate(1500)  # someone cuts the file after the first piece
        calls.append(start)

    monkeypatch.setattr(FileSource, "read_into", read_then_truncate)
    with pytest.raises(FileChanged, match="changed while sidtui read it"):
        scan_records(src)
    assert len(calls) == 1  # the second piece found the file shorter (it raised)


def test_line_read_after_truncation_is_none_not_a_crash(tmp_path, monkeypatch):
    monkeypatch.setattr(transcript_source, "PIECE_MIN_BYTES", 1)
    p = tmp_path / "s.jsonl"
    _big_session(p, 50)
    rf = scan_records(read_transcript(p))
    assert rf.decode_at(40)["uuid"] == "u40"
    with open(p, "r+b") as f:
        f.truncate(100)
    assert rf.decode_at(40) is None and rf.decode(rf.records[45]) is None
    with pytest.raises(FileChanged):
        rf.raw_at(40)


def test_cli_show_on_a_file_truncated_while_read_exits_1(tmp_path, monkeypatch, capsys):
    from sidtui.cli import main

    monkeypatch.setattr(transcript_source, "PIECE_MIN_BYTES", 1)
    monkeypatch.setattr(transcript_source, "PIECE_BYTES", 1000)
    folder = tmp_path / "sessions" / "p"
    folder.mkdir(parents=True)
    p = folder / "20260101-000000-eeeeeeee.jsonl"
    _big_session(p)
    real_read_into = FileSource.read_into

    def read_then_truncate(self, view, start):
        real_read_into(self, view, start)
        with open(p, "r+b") as f:
            f.truncate(min(f.seek(0, 2), 1500))

    monkeypatch.setattr(FileSource, "read_into", read_then_truncate)
    assert main(["--home", str(tmp_path), "show", str(p), "--json"]) == 1
    err = capsys.readouterr().err
    assert "changed while sidtui read it" in err and "Traceback" not in err


def test_pieces_without_preadv_or_pread(tmp_path, monkeypatch):
    """Platforms without preadv/pread read the pieces another way, with the same result."""
    monkeypatch.setattr(transcript_source, "PIECE_MIN_BYTES", 1)
    monkeypatch.setattr(transcript_source, "PIECE_BYTES", 300)
    p = tmp_path / "s.jsonl"
    _big_session(p, 60)
    want = _shape(scan_records(p.read_bytes()))
    monkeypatch.setattr(transcript_source, "_HAS_PREADV", False)
    assert _shape(scan_records(read_transcript(p))) == want
    monkeypatch.setattr(transcript_source, "_HAS_PREAD", False)
    rf = scan_records(read_transcript(p))
    assert _shape(rf) == want and rf.decode_at(59)["uuid"] == "u59"


def test_open_session_refuses_a_file_cut_after_the_scan(tmp_path, monkeypatch):
    """Cut after the scan, while metadata lines are read back: an error, not a view with
    silently missing state (a tester saw 'usage could not be restored')."""
    from sidtui.core.base.discover import classify_file
    from sidtui.core.base.home import Home

    monkeypatch.setattr(transcript_source, "PIECE_MIN_BYTES", 1)
    folder = tmp_path / "sessions" / "p"
    folder.mkdir(parents=True)
    p = folder / "20260101-000000-ffffffff.jsonl"
    lines = [_record(i, "user_message") for i in range(30)]
    lines[0] = lines[0].replace(b'"type":"user_message"', b'"type":"session_start"')
    lines[25] = (
        b'{"type":"metadata","key":"usage_stats","value":{"totalCostUSD":1},'
        b'"uuid":"u25","parentUuid":"u24"}'
    )
    p.write_bytes(b"\n".join(lines) + b"\n")
    real_scan = scan_records

    def scan_then_cut(data, **kw):
        rf = real_scan(data, **kw)
        with open(p, "r+b") as f:
            f.truncate(200)  # after the scan, before the loader reads the metadata back
        return rf

    monkeypatch.setattr("sidtui.core.views.session.scan_records", scan_then_cut)
    with pytest.raises(FileChanged, match="changed while sidtui read it"):
        open_session(Home(tmp_path), classify_file(p, "p"))


def test_the_scan_leaves_no_thread_and_asks_for_the_next_piece(tmp_path, monkeypatch):
    """The kernel is asked to read each next piece ahead (no reader thread: waking one took
    the GIL from the decode); no path (done, a line for the tolerant path, the file cut
    short) leaves a thread behind — listing forks workers only while no other thread runs."""
    import threading

    monkeypatch.setattr(transcript_source, "PIECE_MIN_BYTES", 1)
    monkeypatch.setattr(transcript_source, "PIECE_BYTES", 700)
    p = tmp_path / "s.jsonl"
    _big_session(p)
    asked: list[tuple[int, int]] = []
    real = FileSource.advise
    monkeypatch.setattr(
        FileSource, "advise", lambda self, a, n: asked.append((a, n)) or real(self, a, n)
    )
    before = threading.active_count()
    rf = scan_records(read_transcript(p))
    assert rf.objs is not None and threading.active_count() == before
    starts = [a for a, _, _ in rf._pieces]
    assert [a for a, _ in asked] == starts[1:] and all(n == 700 for _, n in asked)
    with open(p, "ab") as f:
        f.write(b"{not json}\n")
    assert scan_records(read_transcript(p)).bad_lines
    assert threading.active_count() == before
    src = read_transcript(p)
    with open(p, "r+b") as f:
        f.truncate(1500)
    with pytest.raises(FileChanged):
        scan_records(src)
    assert threading.active_count() == before


@pytest.mark.parametrize("final_newline", [True, False])
def test_line_starts_of_a_file_read_in_pieces_are_found_when_asked(
    tmp_path, monkeypatch, final_newline
):
    """The scan of a big file finds no line starts (the core needs none); a line asked for
    is found from its own piece, and every start equals the in-memory scan's."""
    monkeypatch.setattr(transcript_source, "PIECE_MIN_BYTES", 1)
    monkeypatch.setattr(transcript_source, "PIECE_BYTES", 700)
    p = tmp_path / "s.jsonl"
    _big_session(p, 120)
    if not final_newline:
        p.write_bytes(p.read_bytes().rstrip(b"\n"))
    data = p.read_bytes()
    mem = scan_records(data)
    rf = scan_records(read_transcript(p))
    assert rf._starts is None and len(rf._pieces) > 5
    for i in (0, 1, 57, 118, 119):
        assert rf.raw_at(i) == mem.raw_at(i) == data.split(b"\n")[i]
    assert rf._starts is None  # single lines came from their pieces
    assert list(rf.line_starts()) == list(mem.line_starts())
    assert [(r.offset, r.end) for r in rf.records] == [(r.offset, r.end) for r in mem.records]


_TORN = st.sampled_from(
    [
        b'{"type":"user_message","uuid":"u9',
        b"{",
        b"garbage",
        b'{"a":1}}',
        b'{"type":"assistant_message","message":{"role":"assi',
        b"\xff\xfe",
        b"NaN",
        b'{"x":1,}',
    ]
)


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 30),
    torn=_TORN,
    chunk=st.integers(1, 400),
    final_newline=st.booleans(),
)
def test_a_torn_last_line_keeps_the_fast_scan(tmp_path_factory, n, torn, chunk, final_newline):
    """A last line JSON.parse rejects (a write torn by a crash) after good records: the fast
    scan keeps its columns and reports the line, exactly as the per-line scan does — in
    memory and in pieces of any size."""
    good = [_record(i, "user_message") for i in range(n)]
    data = b"\n".join([*good, torn]) + (b"\n" if final_newline else b"")
    p = tmp_path_factory.mktemp("t") / "s.jsonl"
    p.write_bytes(data)
    exact = scan_tolerant(data, 0, 0)
    old = transcript_source.PIECE_BYTES
    transcript_source.PIECE_BYTES = chunk
    try:
        for rf in (scan_records(data), scan_records(_mapped(p))):
            assert rf.is_fast  # no fall-back to the per-line scan
            assert _shape(rf)[:-1] == _shape(exact)[:-1]  # all but `whole`
            assert rf.whole  # one chain through every record
            assert [rf.raw_at(i) for i in range(n)] == good
            assert rf.line_starts().tolist() == [r.offset for r in exact.records]
    finally:
        transcript_source.PIECE_BYTES = old


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 24),
    crlf=st.booleans(),
    bom=st.booleans(),
    torn=st.one_of(st.none(), _TORN),
    final_newline=st.booleans(),
    base=st.sampled_from([0, 7]),
)
def test_records_near_the_head_read_before_the_line_starts(n, crlf, bom, torn, final_newline, base):
    """``raw_at`` of one of the first records, asked before any line start is known (a
    ``session_start`` decoded at the end of a load), is the line every later ask gets."""
    end = b"\r\n" if crlf else b"\n"
    lines = [_record(i, "user_message") for i in range(n)] + ([torn] if torn else [])
    data = (b"\xef\xbb\xbf" if bom else b"") + end.join(lines) + (end if final_newline else b"")
    first = scan_records(data, base_offset=base, start_line=1 if base else 0)
    second = scan_records(data, base_offset=base, start_line=1 if base else 0)
    if not first.is_fast:
        return  # the per-line scan holds every line start already
    near = [first.raw_at(i) for i in range(min(first.count, 20))]
    second.line_starts()
    assert near == [second.raw_at(i) for i in range(len(near))]


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 40),
    crlf=st.booleans(),
    bom=st.booleans(),
    torn=st.one_of(st.none(), _TORN),
    final_newline=st.booleans(),
    base=st.sampled_from([0, 7]),
    order=st.randoms(use_true_random=False),
)
def test_records_near_the_tail_read_before_the_line_starts(
    n, crlf, bom, torn, final_newline, base, order
):
    """``raw_at`` of one of the last records (a metadata winner), asked in any order before
    any line start is known, is the line every later ask gets."""
    end = b"\r\n" if crlf else b"\n"
    lines = [_record(i, "user_message") for i in range(n)] + ([torn] if torn else [])
    data = (b"\xef\xbb\xbf" if bom else b"") + end.join(lines) + (end if final_newline else b"")
    first = scan_records(data, base_offset=base, start_line=1 if base else 0)
    second = scan_records(data, base_offset=base, start_line=1 if base else 0)
    if not first.is_fast:
        return
    asked = list(range(first.count))
    order.shuffle(asked)
    near = {i: first.raw_at(i) for i in asked}
    assert first._starts is None  # found without every line start
    second.line_starts()
    assert near == {i: second.raw_at(i) for i in asked}

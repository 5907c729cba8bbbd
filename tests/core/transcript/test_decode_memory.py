"""What decoding a huge line holds at once (docs/DECISIONS.md, "Memory is bounded by what
is decoded"): one copy of its bytes, and one str per distinct block type."""

from __future__ import annotations

import tracemalloc

from sidtui.core.transcript import source as transcript_source
from sidtui.core.transcript.decode import decode_lines_exact
from sidtui.core.transcript.scan import scan_records
from sidtui.core.transcript.source import FileSource
from sidtui.core.transcript.structs import RECORD_DECODER, RECORD_LIST_DECODER, Block

_BLOCK = b'{"type":"text","text":"a"}'


def _prompt(blocks: int, text: bytes = b"") -> bytes:
    body = b",".join([_BLOCK] * blocks)
    if text:
        body += b',{"type":"text","text":"' + text + b'"}'
    return b'{"type":"user","uuid":"u1","message":{"role":"user","content":[' + body + b"]}}"


def _peak(fn):
    tracemalloc.start()
    try:
        out = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return out, peak


def test_blocks_share_one_str_per_type():
    rec = RECORD_DECODER.decode(_prompt(3) + b"")
    a, b, c = rec.message.content
    assert a.type == "text" and a.type is b.type is c.type
    odd = RECORD_DECODER.decode(
        b'{"message":{"content":[{"type":["x"]},{"type":"' + b"y" * 99 + b'"}]}}'
    )
    assert odd.message.content[0].type == ["x"]  # kept as written, never a failure
    assert odd.message.content[1].type == "y" * 99
    assert Block(type="tool_use").type == "tool_use"


def test_a_long_line_is_decoded_where_it_lies():
    """One line longer than a run is decoded in place: the text it holds once more, not
    the array copy of the line on top."""
    line = _prompt(1, b"x" * (3 << 20))
    buf = line + b"\n"
    (rec,), peak = _peak(lambda: decode_lines_exact(buf, len(buf), RECORD_LIST_DECODER))
    assert rec.message.content[1].text == "x" * (3 << 20)
    assert peak < 1.5 * len(line), (peak, len(line))
    # exactly one value per line, as before: two values, or none, are refused
    for bad in (line + b" " + line, b"   ", line[:-1]):
        assert decode_lines_exact(bad + b"\n", len(bad) + 1, RECORD_LIST_DECODER) is None


def test_a_line_longer_than_a_piece_is_held_once(tmp_path, monkeypatch):
    """A file read in pieces: a line longer than a piece is read whole, and decoded
    while only one copy of it is held (plus what is decoded from it)."""
    monkeypatch.setattr(transcript_source, "PIECE_MIN_BYTES", 1)
    line = _prompt(1, b"x" * (3 << 20))
    head = b'{"type":"session_start","uuid":"s0"}\n'
    path = tmp_path / "t.jsonl"
    path.write_bytes(head + line + b"\n")
    with open(path, "rb") as f:
        src = FileSource(path, f, path.stat().st_size)
        rf, peak = _peak(lambda: scan_records(src))
        assert [r.type for r in rf.records] == ["session_start", "user"]
        assert rf.records[1].obj.message.content[1].text == "x" * (3 << 20)
    # reading it whole joins its parts (2×), and the decoded text is one more
    assert peak < 2.5 * len(line), (peak, len(line))

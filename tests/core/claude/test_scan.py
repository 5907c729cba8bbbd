"""Scanning Claude Code transcripts: every real file, and every kind of damaged line."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sidtui.core.claude import scan as scan_mod
from sidtui.core.claude.layout import ClaudeFile
from sidtui.core.claude.scan import KNOWN_TYPES, salvage, scan
from sidtui.core.claude.transcript import load_transcript
from sidtui.core.transcript.source import FileSource
from tests.helpers import CC_PROJECTS, cc_assistant, cc_lines, cc_user

REAL = sorted(CC_PROJECTS.rglob("*.jsonl"))
A = cc_user("a", None, "first")
B = cc_assistant("b", "a", "reply", ts=1)
C = cc_user("c", "b", "second", ts=2)


def _raw(d: dict) -> bytes:
    return cc_lines(d)[:-1]


@pytest.mark.parametrize("path", REAL, ids=lambda p: str(p.relative_to(CC_PROJECTS))[-60:])
def test_every_real_transcript_scans_whole(path):
    data = path.read_bytes()
    sc = scan(data)
    assert not sc.bad_lines and not sc.repairs and not sc.blank_lines
    assert sc.line_count == data.count(b"\n") == len(sc)
    assert list(sc.lines) == list(range(1, len(sc) + 1))
    lines = data.split(b"\n")
    for i in range(len(sc)):  # every span is its line, and decodes to what the line holds
        assert sc.raw_at(i) == lines[i]
    if sc.objs:
        assert sc.decode_at(len(sc) - 1) == orjson.loads(lines[len(sc) - 1])


def test_real_record_types_are_all_known():
    types = {o.type for p in REAL for o in scan(p.read_bytes()).objs}
    assert types == {
        "user",
        "assistant",
        "system",
        "progress",
        "summary",
        "queue-operation",
        "file-history-snapshot",
    }
    assert types <= KNOWN_TYPES


def test_an_unknown_record_type_is_an_opaque_record():
    sc = scan(cc_lines(A, {"type": "artifact-new", "payload": {"x": [1, 2]}}, B))
    assert [o.type for o in sc.objs] == ["user", "artifact-new", "assistant"]
    assert sc.decode_at(1) == {"type": "artifact-new", "payload": {"x": [1, 2]}}
    assert not sc.bad_lines


def test_a_torn_last_line_is_lost_and_said_so():
    data = cc_lines(A, B) + _raw(C)[:40]
    sc = scan(data)
    assert [o.uuid for o in sc.objs] == ["a", "b"]
    (bad,) = sc.bad_lines
    assert (bad.line, bad.terminated, bad.recovered, bad.lost_bytes) == (3, False, 0, 40)
    assert "torn or unfinished write" in bad.reason and "40 bytes lost" in bad.reason


def test_two_records_on_one_line_are_both_recovered():
    data = cc_lines(A) + _raw(B) + _raw(C) + b"\n"
    sc = scan(data)
    assert [o.uuid for o in sc.objs] == ["a", "b", "c"]
    assert list(sc.lines) == [1, 2, 2]
    (bad,) = sc.bad_lines
    assert (bad.recovered, bad.lost_bytes) == (2, 0)
    assert "2 records on one line" in bad.reason
    assert sc.decode_at(1)["uuid"] == "b" and sc.decode_at(2)["uuid"] == "c"  # exact spans


def test_a_nul_filled_line_is_lost_and_a_record_after_nuls_is_kept():
    data = cc_lines(A) + b"\x00" * 300 + b"\n" + b"\x00" * 50 + _raw(B) + b"\n" + cc_lines(C)
    sc = scan(data)
    assert [o.uuid for o in sc.objs] == ["a", "b", "c"]
    first, second = sc.bad_lines
    assert first.line == 2 and first.recovered == 0 and "only NUL bytes" in first.reason
    assert second.line == 3 and second.recovered == 1 and second.lost_bytes == 0
    assert "NUL bytes in front of a whole record" in second.reason


def test_a_partly_overwritten_record_is_lost_and_the_whole_one_after_it_kept():
    torn = _raw(B)[:55] + b"\x00" * 7
    sc = scan(cc_lines(A) + torn + _raw(C) + b"\n")
    assert [o.uuid for o in sc.objs] == ["a", "c"]
    (bad,) = sc.bad_lines
    assert bad.recovered == 1 and bad.lost_bytes == 55
    assert "a damaged record (55 bytes lost) next to a whole one" in bad.reason


def test_a_record_nested_in_a_torn_one_is_not_taken_for_a_record():
    # progress records embed whole messages (with uuid and timestamp): torn after one of
    # them, the embedded message must not come back as a record of this file
    inner = _raw(cc_user("inner", None, "embedded"))
    torn = b'{"parentUuid":"a","type":"progress","uuid":"p","data":{"message":' + inner
    sc = scan(cc_lines(A) + torn + b"\n" + cc_lines(B))
    assert [o.uuid for o in sc.objs] == ["a", "b"]
    assert sc.bad_lines[0].recovered == 0


def test_a_content_block_of_a_torn_record_is_not_a_record():
    torn = _raw(B)[:-3]  # the text block inside is whole, the record is not
    sc = scan(cc_lines(A) + torn + b"\n")
    assert [o.uuid for o in sc.objs] == ["a"]


def test_invalid_utf8_is_read_as_replacement_characters():
    bad = _raw(cc_user("x", "a", "caf\u00e9")).replace("\u00e9".encode(), b"\xe9")
    sc = scan(cc_lines(A) + bad + b"\n")
    assert [o.uuid for o in sc.objs] == ["a", "x"]
    assert sc.objs[1].message.content == "caf\ufffd"
    (rep,) = sc.repairs
    assert rep.line == 2 and "invalid UTF-8" in rep.reason
    assert not sc.bad_lines


def test_a_lone_surrogate_is_kept_as_json_parse_keeps_it():
    line = _raw(cc_user("x", "a", "PLACEHOLDER")).replace(b"PLACEHOLDER", b"\\ud83d")
    sc = scan(cc_lines(A) + line + b"\n")
    assert sc.objs[1].message.content == "\ud83d"
    assert "lone surrogate" in sc.repairs[0].reason


def test_a_byte_order_mark_in_front_of_a_record_is_stray_bytes():
    sc = scan("\ufeff".encode() + cc_lines(A, B))
    assert [o.uuid for o in sc.objs] == ["a", "b"]
    (bad,) = sc.bad_lines
    assert bad.recovered == 1 and bad.lost_bytes == 3 and "stray bytes" in bad.reason


def test_blank_lines_crlf_and_non_object_values():
    data = cc_lines(A) + b"\n   \n" + _raw(B) + b"\r\n" + b"[1, 2]\n" + cc_lines(C)
    sc = scan(data)
    assert [o.uuid for o in sc.objs] == ["a", "b", "c"]
    assert (sc.blank_lines, sc.non_records, sc.line_count) == (2, 1, 6)
    assert list(sc.lines) == [1, 4, 6]


def test_a_field_of_an_unexpected_type_is_read_as_none():
    odd = dict(
        cc_user("x", "a", "t", ts=3),
        uuid=5,
        message={"role": "user", "content": [3, {"type": "text", "text": "t"}]},
    )
    sc = scan(cc_lines(A, odd))
    assert sc.objs[1].uuid is None and sc.objs[1].type == "user"
    assert [b.text for b in sc.objs[1].message.content] == ["t"]


def test_a_file_of_only_glued_records_still_gives_a_conversation(tmp_path):
    # every newline lost: one line, nothing JSON.parse accepts, and still every record
    data = _raw(A) + _raw(B) + _raw(C)
    p = tmp_path / "x.jsonl"
    p.write_bytes(data)
    tr = load_transcript(ClaudeFile(p, "x", ""))
    assert [m.uuid for m in tr.messages] == ["a", "b", "c"]
    assert tr.scan.bad_lines[0].recovered == 3


def test_pieces_give_what_the_whole_file_gives(tmp_path, monkeypatch):
    monkeypatch.setattr(scan_mod, "PIECE_BYTES", 300)
    recs = [A, B, C] + [
        cc_assistant(f"x{i}", "c", "y" * (i * 37 % 500), ts=3 + i) for i in range(30)
    ]
    data = (
        cc_lines(*recs[:10])
        + _raw(recs[10])
        + _raw(recs[11])
        + b"\n"
        + cc_lines(*recs[12:])
        + b"\x00" * 9
    )
    p = tmp_path / "big.jsonl"
    p.write_bytes(data)
    whole = scan(data)
    with open(p, "rb", buffering=0) as f:
        pieces = scan(FileSource(p, f, len(data)))
        assert [o.uuid for o in pieces.objs] == [o.uuid for o in whole.objs]
        assert list(pieces.lines) == list(whole.lines)
        assert list(pieces.starts) == list(whole.starts) and list(pieces.ends) == list(whole.ends)
        assert [(b.line, b.recovered, b.lost_bytes) for b in pieces.bad_lines] == [
            (b.line, b.recovered, b.lost_bytes) for b in whole.bad_lines
        ]
        assert pieces.decode_at(11)["uuid"] == "x8"
    assert whole.line_count == 33 and not whole.ends_with_newline


def test_salvage_gives_spans_inside_the_line():
    raw = b"\x00\x00" + _raw(A) + b"  " + _raw(B)
    found, lost = salvage(raw)
    assert [v["uuid"] for _, _, v in found] == ["a", "b"]
    assert lost == 0
    for s, e, v in found:
        assert orjson.loads(raw[s:e]) == v


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(["glue", "nul", "tear", "ok"]), min_size=1, max_size=12),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=20),
)
def test_every_whole_record_survives_any_damage_between_records(ops, text):
    """Damage between records (lost newlines, NUL runs, a torn record) never costs a
    whole record: each one written in full comes back, in order."""
    out = b""
    whole = []
    for k, op in enumerate(ops):
        rec = _raw(cc_user(f"u{k}", None, text, ts=k))
        if op == "tear":
            out += rec[: len(rec) // 2] + b"\n"
            continue
        whole.append(f"u{k}")
        out += {"glue": rec, "nul": b"\x00" * 5 + rec + b"\n", "ok": rec + b"\n"}[op]
    sc = scan(out)
    assert [o.uuid for o in sc.objs] == whole


def test_checkpoint_prompt_reads_the_nested_id_of_snapshots_and_deltas():
    from sidtui.core.claude.kinds import checkpoint_prompt
    from sidtui.core.claude.scan import DECODER, lenient_record

    snap = b'{"type":"file-history-snapshot","messageId":"edit","isSnapshotUpdate":true,"snapshot":{"messageId":"prompt","trackedFileBackups":{}}}'
    old = b'{"type":"file-history-snapshot","messageId":"prompt","snapshot":{"trackedFileBackups":{}}}'
    delta = b'{"type":"file-history-delta","messageId":"edit","snapshotMessageId":"prompt","trackingPath":"a"}'
    odd = b'{"type":"file-history-snapshot","messageId":"top","snapshot":"not an object"}'
    assert [checkpoint_prompt(DECODER.decode(x)) for x in (snap, old, delta)] == ["prompt"] * 3
    assert checkpoint_prompt(lenient_record(orjson.loads(odd))) == "top"
    assert checkpoint_prompt(DECODER.decode(b'{"type":"user","messageId":"x"}')) is None


def _long_record_line(n: int) -> bytes:
    """A valid record line of about ``n`` bytes (JSON.parse accepts it)."""
    return _raw(cc_user("big", "a", "y" * n, ts=1))


@pytest.mark.parametrize("how", ["whole", "pieces"])
def test_a_line_above_the_ceiling_is_one_damaged_line_never_decoded(tmp_path, monkeypatch, how):
    monkeypatch.setenv("SIDTUI_MAX_LINE_BYTES", "4096")
    monkeypatch.setattr(scan_mod, "PIECE_BYTES", 1024)  # the long line spans pieces
    long = _long_record_line(20_000)
    data = cc_lines(A) + long + b"\n" + b"x" * 30_000 + b"\n" + cc_lines(B)
    if how == "whole":
        sc = scan(data)
    else:
        p = tmp_path / "t.jsonl"
        p.write_bytes(data)
        with open(p, "rb", buffering=0) as f:
            sc = scan(FileSource(p, f, len(data)))
    assert [o.uuid for o in sc.objs] == ["a", "b"]  # the long record is not decoded
    assert [(b.line, b.length, b.recovered) for b in sc.bad_lines] == [
        (2, len(long), 0),
        (3, 30_000, 0),
    ]
    assert all("SIDTUI_MAX_LINE_BYTES" in b.reason for b in sc.bad_lines)
    assert sc.line_count == 4 and list(sc.lines) == [1, 4]


def test_a_line_above_the_ceiling_read_in_pieces_is_never_held(tmp_path, monkeypatch):
    import tracemalloc

    monkeypatch.setenv("SIDTUI_MAX_LINE_BYTES", str(64 << 10))
    p = tmp_path / "t.jsonl"
    with open(p, "wb") as fh:
        fh.write(cc_lines(A))
        for _ in range(16):
            fh.write(b"x" * (1 << 20))  # a 16 MiB line
        fh.write(b"\n" + cc_lines(B))
    size = p.stat().st_size
    with open(p, "rb", buffering=0) as f:
        tracemalloc.start()
        try:
            sc = scan(FileSource(p, f, size))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert [o.uuid for o in sc.objs] == ["a", "b"] and sc.bad_lines[0].length == 16 << 20
    assert peak < 4 << 20, f"{peak:,} bytes held for a 16 MiB line above a 64 KiB ceiling"


class _CountingSpan:
    """``json.JSONDecoder`` whose ``raw_decode`` adds up the characters each call read."""

    def __init__(self) -> None:
        import json

        self.real = json.JSONDecoder(strict=True)
        self.read = 0

    def raw_decode(self, text, s):
        import json

        try:
            v, e = self.real.raw_decode(text, s)
        except json.JSONDecodeError as exc:
            self.read += exc.pos - s + 1
            raise
        self.read += e - s
        return v, e


@pytest.mark.parametrize(
    "raw",
    [
        b"{" * 200_000,
        # a candidate per key, each string closed by the next one's quote
        b" ".join(b'{"k' for _ in range(3000)) + b"x" * 200_000,
        b'{"type":"user","uuid":"' + b"x" * 300_000,
    ],
    ids=["braces", "quoted-keys", "one-long-string"],
)
def test_salvage_work_is_linear_in_the_line(monkeypatch, raw):
    span = _CountingSpan()
    monkeypatch.setattr(scan_mod, "_SPAN", span)
    found, lost = salvage(raw)
    assert found == [] and lost == len(raw.replace(b" ", b""))
    assert span.read <= 5 * len(raw) + (1 << 20), f"{span.read:,} chars read for {len(raw):,}"


def test_salvage_of_many_glued_non_ascii_records_keeps_them_all():
    recs = [_raw(cc_user(f"u{i}", None, "é" * 50, ts=i)) for i in range(1500)]
    raw = b"\x00".join(recs)
    found, lost = salvage(raw)
    assert [v["uuid"] for _, _, v in found] == [f"u{i}" for i in range(1500)]
    assert lost == 0 and all(orjson.loads(raw[s:e]) == v for s, e, v in found)


def test_a_sparse_transcript_is_read_without_its_hole(tmp_path, monkeypatch):
    import tracemalloc

    monkeypatch.setenv("SIDTUI_MAX_LINE_BYTES", str(64 << 10))
    p = tmp_path / "t.jsonl"
    head = cc_lines(A)
    with open(p, "wb") as fh:  # records, a 256 MiB hole, then a record again
        fh.write(head)
        fh.seek(len(head) + (256 << 20))
        fh.write(b"\n" + cc_lines(B))
    size = p.stat().st_size
    with open(p, "rb", buffering=0) as f:
        tracemalloc.start()
        try:
            sc = scan(FileSource(p, f, size))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert [o.uuid for o in sc.objs] == ["a", "b"]
    (bad,) = sc.bad_lines
    assert bad.length == 256 << 20 and "NUL bytes" in bad.reason and bad.lost_bytes == 0
    assert peak < 4 << 20, f"{peak:,} bytes held for a 256 MiB hole"


def _line_by_line(data: bytes) -> scan_mod.ClaudeScan:
    """The reference: every line decoded on its own (the tolerant path)."""
    sc = scan_mod.ClaudeScan(data=data)
    if data:
        scan_mod._scan_lines(sc, data, len(data), 0)
        sc.line_count += scan_mod.count_lines(data, len(data))
    return sc


def _shape(sc: scan_mod.ClaudeScan) -> tuple:
    return (
        [o.uuid for o in sc.objs],
        list(sc.lines),
        list(sc.starts),
        list(sc.ends),
        [(b.line, b.offset, b.recovered, b.lost_bytes) for b in sc.bad_lines],
        sc.blank_lines,
        sc.non_records,
        sc.line_count,
    )


_PIECES = {
    "rec": lambda r: _raw(r),
    "glued": lambda r: _raw(r) + _raw(dict(r, uuid=f"{r['uuid']}-g")),
    "glued-space": lambda r: _raw(r) + b" \t" + _raw(dict(r, uuid=f"{r['uuid']}-s")),
    "blank": lambda r: b"",
    "spaces": lambda r: b"  \t",
    "cr": lambda r: _raw(r) + b"\r",
    "split": lambda r: _raw(r).replace(b',"', b',\n"', 1),  # one record over two lines
    "pretty": lambda r: orjson.dumps(r, option=orjson.OPT_INDENT_2),
}


@given(
    st.lists(
        st.tuples(st.sampled_from(sorted(_PIECES)), st.integers(0, 2)), min_size=1, max_size=12
    ),
    st.booleans(),
)
@example([("glued", 0), ("blank", 0)], True)  # {a}{b} + a blank line: 2 values on 2 lines
@example([("rec", 0), ("glued", 1), ("spaces", 0), ("rec", 2)], True)
@example([("glued-space", 0), ("split", 1)], False)  # 3 values on 3 lines, one over two
@example([("pretty", 0), ("glued", 1), ("glued", 2), ("glued", 0)], True)
def test_the_fast_scan_agrees_with_the_line_by_line_scan(pieces, final_newline):
    """Regression: ``decode_lines`` reads whitespace-separated values, so a glued ``{a}{b}``
    line (two values) and a blank line (none) in one run cancelled out in the line count:
    both records were taken as whole lines, every line number after them shifted and the
    glued line was not reported as damaged. Any mix of glued, blank, whitespace-only, CR
    and multi-line records reads exactly as the line-by-line scan reads it."""
    recs = [A, B, C]
    lines = [
        _PIECES[kind](dict(recs[i], uuid=f"{recs[i]['uuid']}{n}"))
        for n, (kind, i) in enumerate(pieces)
    ]
    data = b"\n".join(lines) + (b"\n" if final_newline else b"")
    assert _shape(scan(data)) == _shape(_line_by_line(data))

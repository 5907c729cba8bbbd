"""The agent's reader, by file size (docs/DECISIONS.md, "Reading files exactly as the agent").

A file of at most 4,194,304 bytes is trimmed whole before it is split into lines; a bigger
one is read by the agent's streaming reader (no trim; a lone ``\\r`` and U+2028/U+2029 also
end a line). Each rule is tested on both sides of the line; the oracle's own answers for
the same shapes are vendored under tests/fixtures/oracle-cases/file-over-4mib/.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sidtui.core.base.jsonout import js_to_string
from sidtui.core.base.jsonparse import JS_WHITESPACE
from sidtui.core.transcript.chain import rebuild_chain
from sidtui.core.transcript.loader import load_jsonl
from sidtui.core.transcript.scan import scan_records
from sidtui.core.transcript.source import STREAM_ABOVE, trim_whole_file
from sidtui.core.transcript.tolerant import link_key, scan_tolerant
from tests.helpers import assistant, jsonl, start, user

BOM = b"\xef\xbb\xbf"


def _sized(head: bytes, body: bytes, size: int) -> bytes:
    """``head + body`` grown to exactly ``size`` bytes inside the last record's text."""
    data = head + body
    at = data.rindex(b'"text":"') + len(b'"text":"')
    n = size - len(data)
    assert n > 0
    return data[:at] + b"x" * n + data[at:]


def _load(data: bytes):
    rf = scan_records(data)
    chain = rebuild_chain(rf)
    return rf, load_jsonl(rf, chain)


def test_the_line_is_4_mib() -> None:
    assert STREAM_ABOVE == 4_194_304


def test_a_bom_is_trimmed_up_to_4_mib_and_kept_above() -> None:
    body = jsonl(start("S"), user("u1", "S"), assistant("a1", "u1"))
    at = _sized(BOM, body, STREAM_ABOVE)
    above = _sized(BOM, body, STREAM_ABOVE + 1)
    rf, loaded = _load(at)
    assert len(at) == 4_194_304 and rf.trimmed is not None and not rf.bad_lines
    assert loaded.loadable and [m.uuid for m in loaded.messages] == ["u1", "a1"]
    rf, loaded = _load(above)
    assert len(above) == 4_194_305 and rf.trimmed is None
    assert [b.line for b in rf.bad_lines] == [1]  # the BOM glued to the session_start
    assert not loaded.loadable


def test_a_lone_cr_ends_a_line_only_above_4_mib() -> None:
    glued = jsonl(user("u2", "a1"))[:-1] + b"\r" + jsonl(assistant("a2", "u2"))
    body = jsonl(start("S"), user("u1", "S"), assistant("a1", "u1")) + glued
    at = _sized(b"", body, STREAM_ABOVE)
    # grown inside a1's text: the lone \r stays between u2 and a2
    rf, loaded = _load(at)
    assert [b.line for b in rf.bad_lines] == [4]  # one line JSON.parse rejects
    assert [m.uuid for m in loaded.messages] == ["u1", "a1"]
    above = _sized(b"", body, STREAM_ABOVE + 1)
    rf, loaded = _load(above)
    assert not rf.bad_lines
    assert [(m.uuid, m.line) for m in loaded.messages] == [
        ("u1", 2),
        ("a1", 3),
        ("u2", 4),
        ("a2", 4),  # the streaming reader's second line keeps the physical line number
    ]


def test_crlf_is_one_line_end_on_both_sides() -> None:
    body = jsonl(start("S"), user("u1", "S"), assistant("a1", "u1")).replace(b"\n", b"\r\n")
    for size in (STREAM_ABOVE, STREAM_ABOVE + 1):
        rf, loaded = _load(_sized(b"", body, size))
        assert not rf.bad_lines and [m.uuid for m in loaded.messages] == ["u1", "a1"]


_WS = st.text(alphabet=sorted(JS_WHITESPACE), max_size=4).map(str.encode)


@given(lead=_WS, trail=_WS, n=st.integers(1, 4))
def test_trim_is_javascripts_trim(lead: bytes, trail: bytes, n: int) -> None:
    """The lines of a trimmed file are those of ``text.trim()`` (offsets and line numbers
    kept: what the trim takes becomes spaces, its newlines stay)."""
    records = [start("S")] + [user(f"u{i}", "S" if i == 0 else f"u{i - 1}") for i in range(n)]
    data = lead + jsonl(*records) + trail
    out = trim_whole_file(data)
    assert len(out) == len(data) and out.count(b"\n") == data.count(b"\n")
    want = data.decode().strip(JS_WHITESPACE).split("\n")
    got = [ln for ln in out.decode().split("\n") if ln.strip(JS_WHITESPACE)]
    assert [ln.strip(JS_WHITESPACE) for ln in got] == [ln.strip(JS_WHITESPACE) for ln in want]


#: what the trim takes that JSON.parse would not skip (a BOM, no-break space, U+2028...)
_ODD_HEAD = st.lists(
    st.sampled_from(sorted(set(JS_WHITESPACE) - set(" \t\r\n"))), min_size=1, max_size=3
).map(lambda cs: "".join(cs).encode())


@given(
    lead=_ODD_HEAD,
    pad=st.sampled_from([b"", b" ", b"\t "]),
    n=st.integers(0, 5),
    crlf=st.booleans(),
    torn=st.booleans(),
)
def test_a_trimmed_head_is_read_in_place(
    lead: bytes, pad: bytes, n: int, crlf: bool, torn: bool
) -> None:
    """A byte-order mark (or other whitespace JSON.parse rejects) glued to line 1 is
    trimmed without copying the file: line 1's record begins after it, and every record,
    bad line and decode is the per-line scan's of the trimmed copy."""
    records = [start("S")] + [user(f"u{i}", "S" if i == 0 else f"u{i - 1}") for i in range(n)]
    body = jsonl(*records) + (b'{"type":"us' if torn else b"")
    if crlf:
        body = body.replace(b"\n", b"\r\n")
    data = pad + lead + body
    rf = scan_records(data)
    exact = scan_tolerant(trim_whole_file(data), 0, 0)
    assert rf.is_fast and rf.data is data and rf.head == len(pad + lead)
    assert rf.trimmed is not None
    assert [(r.line, r.end, r.type, r.uuid) for r in rf.records] == [
        (r.line, r.end, r.type, r.uuid) for r in exact.records
    ]
    assert rf.records[0].offset == len(pad + lead)
    assert [rf.decode(r) for r in rf.records] == [exact.decode(r) for r in exact.records]
    # the same bytes but for JSON whitespace the copy made spaces (a final \r)
    assert [rf.raw_at(i).rstrip(b"\r") for i in range(rf.count)] == [
        exact.raw(r).strip(b" \t\r") for r in exact.records
    ]
    assert [(b.line, b.reason) for b in rf.bad_lines] == [
        (b.line, b.reason) for b in exact.bad_lines
    ]
    glued = scan_records(data + b"\n\n")  # a blank line: the per-line scan, same offsets
    assert not glued.is_fast and glued.records[0].offset == len(pad + lead)


def test_link_keys_compare_as_the_agents_walk() -> None:
    assert link_key(5) == link_key(5.0) == link_key(5)
    assert link_key(5) != "5" and link_key(True) != link_key(1)
    assert link_key(0) == link_key(-0.0) and link_key(False) != link_key(0)
    assert link_key(None) is None and link_key("a") == "a"
    assert link_key({"a": 1}) != link_key({"a": 1})  # objects never match


def test_string_form_of_a_metadata_key() -> None:
    got = [js_to_string(v) for v in (5, None, [1, [2, None]], {"a": 1}, 1.5e21, True, 2.0)]
    assert got == ["5", "null", "1,2,", "[object Object]", "1.5e+21", "true", "2"]

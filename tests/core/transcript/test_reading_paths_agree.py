"""Every way sidtui reads a transcript's lines gives the same records (issue 32).

A file is read whole into one buffer or in pieces (a big file, ``FileSource``), each by the
fast typed decode of many lines at once or, when a line needs JSON.parse's rules, one line
at a time — and a file the agent streams (above 4 MiB) with the streaming reader's line
ends. The paths must agree on every file: byte-order marks, blank and whitespace lines,
CRLF, lone CRs and U+2028, NUL runs, torn and unterminated last lines, pieces of 1 to
4,096 bytes. Slow (many examples): the default run keeps the smaller properties of
``test_tolerant_batches.py``; ``pytest -m slow`` runs this one.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.helpers import reading_paths, record_specs, spec_transcript

pytestmark = pytest.mark.slow

_BOM = b"\xef\xbb\xbf"
_USER = {"type": "user_message", "role": "user", "content": [], "meta": None, "mode": None}
_LINE = b'{"type":"metadata","key":"k","value":1,"uuid":"m1"}'
_ODD = st.sampled_from(
    [
        b"",  # blank
        b"   ",
        b"\t \r",  # whitespace, a CR before the \n
        b"\r",
        _BOM,  # a BOM alone
        _BOM + _LINE,  # glued to a record
        b"\xc2\xa0" + _LINE,  # a no-break space before a record (JS whitespace, not JSON's)
        b"\x00",  # NUL runs
        b"\x00" * 7,
        b"\x00" * 300,
        _LINE[:20] + b"\x00\x00" + _LINE[20:],  # NULs inside a record
        b'{"type": "user_message", "uuid": ',  # torn
        _LINE + b"\r" + _LINE,  # a lone CR (a line end for the streaming reader)
        _LINE[:-1] + b',"t":"a\xe2\x80\xa8b"}',  # U+2028 inside a string
        b'{"type":"metadata","uuid":7,"parentUuid":null}',
        b'{"a":1}{"b":2}',
        b"null",
        b"[1,2]",
        b"  " + _LINE + b"  ",  # JSON whitespace around a record
    ]
)


def _file(specs, odd, crlf: bool, bom: bool, final_newline: bool) -> bytes:
    lines = spec_transcript(specs).split(b"\n")[:-1]
    for at, what in odd:
        lines.insert(at % (len(lines) + 1), what)
    if bom:
        lines[0] = _BOM + lines[0]
    end = b"\r\n" if crlf else b"\n"
    return end.join(lines) + (end if final_newline else b"")


@settings(
    max_examples=1500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    specs=st.lists(record_specs, min_size=1, max_size=10),
    odd=st.lists(st.tuples(st.integers(0, 30), _ODD), max_size=4),
    crlf=st.booleans(),
    bom=st.booleans(),
    final_newline=st.booleans(),
    piece=st.one_of(st.integers(1, 64), st.integers(1, 4096)),
    streamed=st.booleans(),
)
@example(  # issue 32: a BOM on line 1, a blank line in the first piece
    specs=[_USER],
    odd=[(1, b"")],
    crlf=False,
    bom=True,
    final_newline=True,
    piece=64,
    streamed=False,
)
# a CRLF line read past its piece kept its "\r" out of its span (the streaming reader)
@example(specs=[_USER], odd=[], crlf=True, bom=False, final_newline=False, piece=1, streamed=True)
# a BOM alone on line 1: the trim takes a newline too; pieces did not trim at all
@example(
    specs=[_USER],
    odd=[(0, b"")],
    crlf=False,
    bom=True,
    final_newline=False,
    piece=1,
    streamed=False,
)
# a BOM head and a line-by-line scan in memory: a trimmed copy, its "\r" made a space
@example(specs=[_USER], odd=[], crlf=True, bom=True, final_newline=True, piece=1, streamed=False)
# a BOM glued to a NUL: the bad line's span began before the trimmed head
@example(
    specs=[_USER],
    odd=[(0, b"\x00")],
    crlf=False,
    bom=True,
    final_newline=False,
    piece=1,
    streamed=False,
)
def test_every_reading_path_gives_the_same_records(
    tmp_path, specs, odd, crlf, bom, final_newline, piece, streamed
):
    data = _file(specs, odd, crlf, bom, final_newline)
    got = reading_paths(tmp_path, data, piece, streamed)
    ref = got.pop("whole")
    for path, shape in got.items():
        assert shape == ref, path

"""A marker lands only after a whole record; the wait is injected (no test sleeps)."""

from __future__ import annotations

import pytest

from sidtui.core.edits.marker import MarkerError, TailPolicy, settle_tail


def test_a_whole_tail_needs_no_wait(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"a":1}\n')
    waits = []
    assert settle_tail(p, TailPolicy(attempts=5, wait=waits.append)) is True
    assert waits == []


def test_a_half_written_record_is_waited_for(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"a":1}\n{"b":')

    def writer_finishes(_seconds):  # its second write() lands during the first wait
        if p.read_bytes().endswith(b":"):
            with open(p, "ab") as fh:
                fh.write(b"2}\n")

    assert settle_tail(p, TailPolicy(attempts=5, wait=writer_finishes)) is True


def test_a_still_torn_tail_is_a_crashed_writers(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"a":1}\n{"b":')
    waits = []
    assert settle_tail(p, TailPolicy(attempts=4, wait=waits.append)) is False
    assert len(waits) == 3


def test_a_tail_that_keeps_growing_is_refused(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"a":1}\n{"b":')

    def keeps_writing(_seconds):
        with open(p, "ab") as fh:
            fh.write(b'{"more":')

    with pytest.raises(MarkerError, match="is being written"):
        settle_tail(p, TailPolicy(attempts=3, wait=keeps_writing))

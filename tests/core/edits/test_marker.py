"""A marker lands only after a whole record; the wait is injected (no test sleeps)."""

from __future__ import annotations

import orjson
import pytest

from sidtui.core.edits import marker
from sidtui.core.edits.marker import MarkerError, TailPolicy, append_marker, settle_tail


def test_a_whole_tail_needs_no_wait(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"a":1}\n')
    waits = []
    settle_tail(p, TailPolicy(attempts=5, wait=waits.append))
    assert waits == []


def test_a_half_written_record_is_waited_for(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"a":1}\n{"b":')

    def writer_finishes(_seconds):  # its second write() lands during the first wait
        if p.read_bytes().endswith(b":"):
            with open(p, "ab") as fh:
                fh.write(b"2}\n")

    settle_tail(p, TailPolicy(attempts=5, wait=writer_finishes))


def test_a_still_torn_tail_is_refused(tmp_path):
    # A writer paused between the two write() calls of one record looks exactly like a
    # crashed one: ending its line for it would split its record when it goes on.
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"a":1}\n{"b":')
    waits = []
    with pytest.raises(MarkerError, match="incomplete record"):
        settle_tail(p, TailPolicy(attempts=4, wait=waits.append))
    assert len(waits) == 3


def test_a_tail_that_keeps_growing_is_refused(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"a":1}\n{"b":')

    def keeps_writing(_seconds):
        with open(p, "ab") as fh:
            fh.write(b'{"more":')

    with pytest.raises(MarkerError, match="still growing"):
        settle_tail(p, TailPolicy(attempts=3, wait=keeps_writing))


NO_WAIT = TailPolicy(attempts=2, wait=lambda _s: None)


def test_a_marker_after_a_whole_record_is_one_line(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"uuid":"a"}\n')
    uuid = append_marker(p, "a", "rewind", {"toPoint": 1}, policy=NO_WAIT)
    lines = p.read_bytes().split(b"\n")
    assert lines[0] == b'{"uuid":"a"}' and lines[2] == b""
    rec = orjson.loads(lines[1])
    assert list(rec) == ["type", "key", "value", "timestamp", "uuid", "parentUuid"]
    assert rec["uuid"] == uuid and rec["parentUuid"] == "a" and rec["value"] == {"toPoint": 1}


def test_a_half_written_record_is_never_glued_to(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"uuid":"a"}\n{"uuid":"b","half":')
    before = p.read_bytes()
    with pytest.raises(MarkerError, match="incomplete record"):
        append_marker(p, "a", "rewind", {}, policy=NO_WAIT)
    assert p.read_bytes() == before


def test_a_record_begun_between_the_check_and_the_append_is_not_glued_to(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"uuid":"a"}\n')

    def writer_starts_a_record():  # the first of its two write() calls
        with open(p, "ab") as fh:
            fh.write(b'{"uuid":"b","half":')

    policy = TailPolicy(attempts=2, wait=lambda _s: None, before_append=writer_starts_a_record)
    with pytest.raises(MarkerError, match="incomplete record") as exc:
        append_marker(p, "a", "rewind", {}, policy=policy)
    assert "\n" not in str(exc.value)
    with open(p, "ab") as fh:  # its second write() call
        fh.write(b"1}\n")
    assert p.read_bytes() == b'{"uuid":"a"}\n{"uuid":"b","half":1}\n'


def test_a_marker_is_never_written_through_a_symlink(tmp_path):
    target = tmp_path / "elsewhere.jsonl"
    target.write_bytes(b"{}\n")
    (tmp_path / "s.jsonl").symlink_to(target)
    with pytest.raises(MarkerError):
        append_marker(tmp_path / "s.jsonl", None, "rewind", {}, policy=NO_WAIT)
    assert target.read_bytes() == b"{}\n"


def test_the_default_policy_is_the_documented_one():
    assert marker.DEFAULT_TAIL_POLICY == TailPolicy(attempts=20, interval_s=0.05)


@pytest.mark.parametrize("cut", [1, 9, 27, 40, 80])
def test_a_killed_sidtuis_own_marker_is_ended_and_a_rerun_lands(tmp_path, cut):
    # A sidtui killed inside its one write() leaves a prefix of its marker: no agent
    # writes a rewind marker, so that fragment is ended with "\n" and the re-run appends.
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"uuid":"a"}\n')
    append_marker(p, "a", "rewind", {"toPoint": 1, "by": "sidtui"}, policy=NO_WAIT)
    whole = p.read_bytes()
    p.write_bytes(whole[: len(b'{"uuid":"a"}\n') + cut])
    uuid = append_marker(p, "a", "rewind", {"toPoint": 1, "by": "sidtui"}, policy=NO_WAIT)
    lines = p.read_bytes().split(b"\n")
    assert len(lines) == 4 and lines[3] == b""
    assert orjson.loads(lines[2])["uuid"] == uuid


@pytest.mark.parametrize(
    "fragment", [b'{"type":"metadata","key":"title","value":', b'{"type":"user_message"']
)
def test_an_agents_still_fragment_is_not_taken_for_ours(tmp_path, fragment):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b'{"uuid":"a"}\n' + fragment)
    with pytest.raises(MarkerError, match="incomplete record"):
        append_marker(p, "a", "rewind", {}, policy=NO_WAIT)
    assert p.read_bytes() == b'{"uuid":"a"}\n' + fragment

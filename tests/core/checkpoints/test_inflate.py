"""Unpacking stored ``full`` entries: gzip members back to back, one cap over all."""

from __future__ import annotations

import base64
import zlib

import pytest

from sidtui.core.checkpoints.index import CorruptEntry, decode_entry, inflate


def _gz(data: bytes) -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


def test_two_gzip_members_unpack_to_both_as_node_does():
    raw = _gz(b"# hello\n") + _gz(b"second member line\n")
    assert bytes(inflate(raw)) == b"# hello\nsecond member line\n"
    entry = {"filePath": "@/README.md", "type": "full", "compressed": True}
    entry["content"] = base64.b64encode(raw).decode()
    assert decode_entry(entry) == "# hello\nsecond member line\n"


def test_trailing_non_gzip_bytes_after_a_member_are_ignored():
    assert bytes(inflate(_gz(b"one\n") + b"\0\0\0")) == b"one\n"


def test_a_truncated_second_member_is_an_error():
    with pytest.raises((zlib.error, CorruptEntry)):
        inflate(_gz(b"one\n") + _gz(b"two\n")[:-6])


def test_the_cap_counts_every_member_together(monkeypatch):
    monkeypatch.setenv("SIDTUI_MAX_INFLATE_BYTES", "1000")
    member = _gz(b"x" * 600)
    assert len(inflate(member)) == 600
    with pytest.raises(CorruptEntry, match="unpacks to more than 1,000"):
        inflate(member + member)

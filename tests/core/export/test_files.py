"""Export's files: ``safefs.streamed_replace`` (complete or nothing under the name, never
through a symlink) and the file names a folder export makes of session ids."""

from __future__ import annotations

import os

import pytest

from sidtui.core.base.safefs import UnsafePath, streamed_replace
from sidtui.core.export.files import file_stem


def test_replaced_whole_when_complete(tmp_path) -> None:
    target = tmp_path / "out.html"
    target.write_text("old")
    with streamed_replace(target) as out:
        out.write(b"new ")
        assert target.read_text() == "old"  # nothing visible until the block ends
        out.write(b"content")
    assert target.read_text() == "new content"
    assert os.listdir(tmp_path) == ["out.html"]


def test_an_error_leaves_the_old_file_and_no_temp(tmp_path) -> None:
    target = tmp_path / "out.md"
    target.write_text("old")
    with pytest.raises(RuntimeError), streamed_replace(target) as out:
        out.write(b"half")
        raise RuntimeError("killed half-way")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["out.md"]


def test_a_symlink_at_the_name_is_refused(tmp_path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("keep")
    (tmp_path / "out.html").symlink_to(elsewhere)
    with pytest.raises(UnsafePath), streamed_replace(tmp_path / "out.html") as out:
        out.write(b"x")
    assert elsewhere.read_text() == "keep"


@pytest.mark.parametrize(
    ("sid", "stem"),
    [
        ("20260101-000000-aaaaaaaa", "20260101-000000-aaaaaaaa"),
        ("../../etc/passwd", "_.._etc_passwd"),
        (".hidden", "hidden"),
        ("", "session"),
        ("a/b\\c:d", "a_b_c_d"),
    ],
)
def test_file_stem(sid: str, stem: str) -> None:
    assert file_stem(sid) == stem

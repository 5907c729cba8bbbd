"""What every adapter's reading shares: the unreadable-file wording, chain health, liveness
as JSON (core/base/errors.py, core/base/chain_health.py, core/resume/process.Liveness)."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from sidtui.core.base.chain_health import LinkChain
from sidtui.core.base.errors import UnreadableInput, unreadable
from sidtui.core.checkpoints.rebuild import ChainLink
from sidtui.core.checkpoints.rebuild import FileChain as SidChain
from sidtui.core.claude.file_history import Backup, FileChainLink
from sidtui.core.claude.file_history import FileChain as ClaudeChain
from sidtui.core.claude.liveness import ClaudeRegistration
from sidtui.core.resume.process import Liveness, Registration


@pytest.mark.parametrize(
    ("exc", "said"),
    [
        (IsADirectoryError(errno.EISDIR, "x"), "/p is a directory, not a session file"),
        (PermissionError(errno.EACCES, "x"), "permission denied reading /p"),
        (FileNotFoundError(errno.ENOENT, "x"), "/p does not exist (deleted while reading?)"),
        (OSError(errno.EIO, "Input/output error"), "cannot read /p: Input/output error"),
        (OSError("no errno"), "cannot read /p: no errno"),
    ],
)
def test_unreadable_says_one_line(exc, said):
    e = unreadable(Path("/p"), exc)
    assert isinstance(e, UnreadableInput) and str(e) == said and e.exit_code == 1


def test_a_reader_says_a_vanished_transcript_in_those_words(tmp_path):
    from sidtui.core.claude.transcript import read_bytes

    with pytest.raises(UnreadableInput) as e:
        read_bytes(tmp_path / "gone.jsonl")
    assert str(e.value) == f"{tmp_path / 'gone.jsonl'} does not exist (deleted while reading?)"
    (tmp_path / "d.jsonl").mkdir()  # a folder: the regular-file check's own words
    with pytest.raises(UnreadableInput, match="is not a regular file"):
        read_bytes(tmp_path / "d.jsonl")


def _sid_link(sid: str, rebuilds: bool, type_: str = "diff") -> ChainLink:
    return ChainLink(sid, 0, type_, True, False, True, 10, 2, rebuilds, None if rebuilds else "x")


def _backup(name: str | None, version: int | None, present: bool) -> Backup:
    blob = None if name is None else Path("/fh") / name
    return Backup("k", "/p", name, version, None, blob, present)


def test_both_stores_draw_and_judge_a_chain_alike():
    sid = SidChain("a.txt", (_sid_link("s1", True, "full"), _sid_link("s2", False)))
    assert isinstance(sid, LinkChain)
    assert sid.drawing == "full·gz → diff ✗" and not sid.healthy
    doc = sid.to_json()
    assert list(doc) == ["file_path", "drawing", "healthy", "entries"]
    assert doc["entries"][1] == {
        "snapshot_id": "s2",
        "type": "diff",
        "compressed": True,
        "binary": False,
        "existed_before": True,
        "stored_chars": 10,
        "ops": 2,
        "rebuilds": False,
        "reason": "x",
    }
    links = (
        FileChainLink(_backup("h@v1", 1, True), ("c1", "c2")),
        FileChainLink(_backup("h@v2", 2, False), ("c3",)),
    )
    cc = ClaudeChain("/p", links)
    assert isinstance(cc, LinkChain)
    assert cc.drawing == " → ".join(link.backup.label for link in links) and not cc.healthy
    assert ClaudeChain("/p", links[:1]).healthy
    entry = cc.to_json()["entries"][0]
    assert entry["snapshot_id"] == "c1" and entry["checkpoints"] == ["c1", "c2"]
    assert entry["backup_file_name"] == "h@v1" and entry["rebuilds"] is True
    assert LinkChain("f", ()).healthy and LinkChain("f", ()).drawing == ""


def test_liveness_json_is_one_shape_with_status_where_the_agent_records_one():
    sid = Registration(Path("/h/active-sessions/a.json"), "a", 12, live=False, reason="gone")
    assert Liveness().to_json() == {"live": False, "stale": False, "registrations": []}
    doc = Liveness(False, True, [sid]).to_json()
    assert doc == {
        "live": False,
        "stale": True,
        "registrations": [
            {
                "session_id": "a",
                "pid": 12,
                "live": False,
                "reason": "gone",
                "path": "/h/active-sessions/a.json",
            }
        ],
    }
    assert (
        Liveness(False, True, [sid]).to_json(with_status=True)["registrations"][0]["status"] is None
    )
    cc = ClaudeRegistration(Path("/c/sessions/9.json"), "s", 9, live=True, reason="alive")
    cc_doc = Liveness(True, False, [cc]).to_json(with_status=True)["registrations"][0]
    assert list(cc_doc) == ["session_id", "pid", "live", "reason", "path", "status"]

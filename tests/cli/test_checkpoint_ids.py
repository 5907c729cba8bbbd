"""Which ``checkpoints/<id>/`` folder is a session's: one validated id for every verb.

The folder is named by the transcript's file-name id (``SessionFile.checkpoint_id``), never
by the ``session_start.sessionId`` inside: a crafted one cannot lead a write outside the
home, and a copied or renamed transcript never borrows its original's checkpoints. An id
that is not a plain name (a sidechain's header names its parent) is refused with one line.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sidtui.cli import main
from sidtui.core.base.home import Home, SessionFile
from tests.helpers import checkpoint_session, snapshot_ms

INDEX = {
    "sessionId": "x",
    "createdAt": snapshot_ms(1),
    "nextId": 2,
    "snapshots": [
        {
            "id": "s1",
            "timestamp": snapshot_ms(1),
            "toolName": "write",
            "toolSummary": "@/a.txt",
            "files": [
                {
                    "filePath": "@/a.txt",
                    "existedBefore": True,
                    "type": "full",
                    "content": "A old\n",
                    "compressed": False,
                }
            ],
        }
    ],
}


def run(capsys, *argv):
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def _session(tmp_path: Path) -> tuple[Path, Path, str, Path]:
    home, project, sid = checkpoint_session(tmp_path, INDEX, {"a.txt": b"A now\n"})
    return home, project, sid, next((home / "sessions").rglob(f"{sid}.jsonl"))


def _set_start_id(transcript: Path, session_id: str) -> None:
    lines = transcript.read_bytes().splitlines(keepends=True)
    first = json.loads(lines[0])
    first["sessionId"] = session_id
    transcript.write_bytes(json.dumps(first).encode() + b"\n" + b"".join(lines[1:]))


def test_a_crafted_session_start_id_never_leads_a_write_outside_the_home(tmp_path, capsys):
    home, project, sid, transcript = _session(tmp_path)
    outside = tmp_path / "outside" / "pwn"
    outside.mkdir(parents=True)
    shutil.copy(home / "checkpoints" / sid / "index.json", outside / "index.json")
    planted = (outside / "index.json").read_bytes()
    _set_start_id(transcript, "../../outside/pwn")
    rc, _, err = run(
        capsys, "--home", str(home), "rewind", sid, "--to", "1", "--mode", "code", "--force"
    )
    assert rc == 0, err
    assert sorted(p.name for p in outside.iterdir()) == ["index.json"]
    assert (outside / "index.json").read_bytes() == planted
    assert (project / "a.txt").read_bytes() == b"A old\n"  # from the session's own index
    own = json.loads((home / "checkpoints" / sid / "index.json").read_bytes())
    assert own["snapshots"][-1]["toolName"] == "sidtui-restore"


def test_a_copied_transcript_never_uses_its_originals_checkpoints(tmp_path, capsys):
    home, project, sid, transcript = _session(tmp_path)
    copy_id = "20260102-030405-c0ffee01"
    shutil.copy(transcript, transcript.with_name(f"{copy_id}.jsonl"))
    index = home / "checkpoints" / sid / "index.json"
    before = index.read_bytes()
    # every verb names the same folder, checkpoints/<copy id>/, which does not exist
    rc, _, err = run(
        capsys, "--home", str(home), "rewind", copy_id, "--to", "1", "--mode", "code", "--force"
    )
    assert rc == 0 and "the session has no checkpoints: files not restored" in err, err
    for verb in (["undo", "--force"], ["redo", "--force"], ["checkpoints"]):
        rc, _, err = run(capsys, "--home", str(home), verb[0], copy_id, *verb[1:])
        assert rc == 1 and f"session {copy_id} has no file checkpoints" in err, (verb, err)
    assert index.read_bytes() == before and (project / "a.txt").read_bytes() == b"A now\n"
    assert not (home / "checkpoints" / copy_id).exists()
    # the original's own verbs still find it, and agree
    rc, _, err = run(capsys, "--home", str(home), "undo", sid, "--force")
    assert rc == 0, err
    assert (project / "a.txt").read_bytes() == b"A old\n"


def test_a_sidechain_naming_a_parent_that_is_a_path_is_refused_in_one_line(tmp_path, capsys):
    home, _, sid, transcript = _session(tmp_path)
    side = transcript.with_name("renamed-sidechain.jsonl")
    start = {
        "type": "sidechain_start",
        "sessionId": "../../outside",
        "agentId": "zz",
        "agentType": "general",
        "timestamp": "2026-01-02T03:00:00.000Z",
    }
    side.write_bytes(json.dumps(start).encode() + b"\n")
    for verb in (["undo"], ["checkpoints"]):
        rc, out, err = run(capsys, "--home", str(home), verb[0], str(side))
        assert rc == 1, err
        assert err.count("\n") == 1 and "'../../outside' is not a plain name" in err, err
    assert not (tmp_path / "outside").exists()


def test_a_sidechain_checkpoint_id_is_its_names_parent():
    f = SessionFile(
        Path("/s/p/A-B-agent7.jsonl"), "A-B-agent7", "p", "sidechain", "jsonl", "X", "agent7"
    )
    assert f.checkpoint_id == "A-B"
    g = SessionFile(Path("/s/p/odd.jsonl"), "odd", "p", "sidechain", "jsonl", "X", "agent7")
    assert g.checkpoint_id == "X"
    assert SessionFile(Path("/s/p/M.jsonl"), "M", "p").checkpoint_id == "M"


@pytest.mark.parametrize("bad", ["", ".", "..", "../x", "a/b", "/abs", "nul\x00"])
def test_only_a_plain_name_makes_a_checkpoint_folder(bad, tmp_path):
    from sidtui.core.base.home import UnsafeSessionId, require_plain_name

    with pytest.raises(UnsafeSessionId, match="not a plain name"):
        Home(tmp_path).checkpoint_index(bad)
    with pytest.raises(UnsafeSessionId):
        require_plain_name(bad)
    assert Home(tmp_path).checkpoint_folder("..x") == tmp_path / "checkpoints" / "..x"

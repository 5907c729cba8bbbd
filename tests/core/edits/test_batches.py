"""What a batch left in a file, proven from tool results; the drift check built on it."""

from __future__ import annotations

import pytest

from sidtui.core.base.discover import discover
from sidtui.core.base.home import Home
from sidtui.core.checkpoints.drift import Expected, drift_of, expected_now
from sidtui.core.checkpoints.index import CheckpointIndex
from sidtui.core.checkpoints.rebuild import rebuild
from sidtui.core.edits.batches import (
    UNKNOWN,
    BatchResults,
    PatchMismatch,
    apply_structured_patch,
)
from sidtui.core.views.session import open_session
from tests.helpers import FIXTURE_PREFIX, REAL_HOME, REAL_PROJECTS


def hunk(old_start, old_lines, lines):
    new = sum(1 for ln in lines if ln[0] in " +")
    return {
        "oldStart": old_start,
        "oldLines": old_lines,
        "newStart": old_start,
        "newLines": new,
        "lines": lines,
    }


def test_patch_applies_with_context_checked():
    base = "a\nb\nc\nd\n"
    out = apply_structured_patch(base, [hunk(2, 2, [" b", "-c", "+C", "+C2"])])
    assert out == "a\nb\nC\nC2\nd\n"
    with pytest.raises(PatchMismatch):
        apply_structured_patch(base, [hunk(2, 2, [" b", "-x"])])


def test_patch_keeps_crlf_and_missing_final_newline():
    assert apply_structured_patch("a\r\nb\r\n", [hunk(1, 2, [" a", "-b", "+B"])]) == "a\r\nB\r\n"
    assert apply_structured_patch("a\nb", [hunk(1, 2, [" a", "-b", "+B"])]) == "a\nB\n"
    got = apply_structured_patch(
        "a\nb",
        [
            hunk(
                1,
                2,
                [" a", "-b", "\\ No newline at end of file", "+B", "\\ No newline at end of file"],
            )
        ],
    )
    assert got == "a\nB"


def test_patch_of_a_new_file():
    assert apply_structured_patch("", [hunk(1, 0, ["+x", "+y"])]) == "x\ny\n"


def _fixture_sessions():
    home = Home(REAL_HOME)
    for sf in discover(home):
        if (
            sf.kind == "main"
            and sf.container == "jsonl"
            and home.checkpoint_index(sf.session_id).exists()
        ):
            yield home, sf


def test_proven_post_images_match_the_next_pre_image_on_every_fixture():
    """Where the index itself knows what a batch left (a later entry's pre-image), the tool
    results prove the same bytes, or say they cannot (shell commands, inherited batches)."""
    proven = unknown = 0
    for home, sf in _fixture_sessions():
        idx = CheckpointIndex.load(home.checkpoint_index(sf.session_id))
        results = BatchResults.from_records(open_session(home, sf, with_sidechains=False).rf)
        for path in idx.tracked_files():
            entries = idx.entries_for(path)
            for (i, _), (j, _) in zip(entries, entries[1:], strict=False):
                pre, nxt = rebuild(idx, path, i), rebuild(idx, path, j)
                if not (pre.recoverable and nxt.recoverable):
                    continue
                got = results.post_image(idx.snapshots[i], path, pre.data(), idx.snapshots[j])
                if got == UNKNOWN:
                    unknown += 1
                    continue
                assert got == nxt.data(), (sf.session_id, idx.snapshots[i]["id"], path)
                proven += 1
    assert proven >= 19 and unknown <= 4


def test_drift_of_the_fixture_projects():
    """S01's login.ts was changed after it by S05 (a fork of it): drift; S05 left it as is."""
    found = {}
    for home, sf in _fixture_sessions():
        idx = CheckpointIndex.load(home.checkpoint_index(sf.session_id))
        post = BatchResults.from_records(
            open_session(home, sf, with_sidechains=False).rf
        ).post_image
        for path in idx.tracked_files():
            real = REAL_PROJECTS / path.removeprefix(FIXTURE_PREFIX + "/")
            cur = real.read_bytes() if real.exists() else None
            found[(sf.session_id, path.rsplit("/", 1)[1])] = drift_of(
                expected_now(idx, path, post), path, cur
            ).status
    assert found[("20261130-052907-9ff3799b", "login.ts")] == "changed"
    assert found[("20261130-052911-4ee72b6a", "login.ts")] == "same"
    assert found[("20261130-052918-63b1c5f8", "medium.txt")] == "same"  # last batch s10
    assert found[("20261130-052918-63b1c5f8", "todo.md")] == "same"  # a batch never saved (s6)
    assert found[("20261130-052919-7c46f0c3", "huge.log")] == "unknown"  # EMPTY_OPS entry
    assert found[("20261130-052915-f2217f0e", "styles.css")] == "unknown"  # result lost (kill)


def test_expected_after_a_sidtui_restore_comes_from_its_targets():
    from sidtui.core.checkpoints.drift import digest

    idx = CheckpointIndex.empty("s", 0)
    idx.snapshots.append(
        {
            "id": "s1",
            "timestamp": 1,
            "toolName": "sidtui-restore",
            "toolSummary": "sidtui undo: revert s0",
            "sidtuiOp": "undo",
            "sidtuiTargets": {"/p/a": digest(b"x"), "/p/b": None},
            "files": [
                {
                    "filePath": "/p/a",
                    "existedBefore": True,
                    "type": "full",
                    "content": "y",
                    "compressed": False,
                },
                {
                    "filePath": "/p/b",
                    "existedBefore": True,
                    "type": "full",
                    "content": "z",
                    "compressed": False,
                },
            ],
        }
    )
    a = expected_now(idx, "/p/a", None)
    assert a == Expected(True, True, digest(b"x"), "sidtui undo s1")
    assert drift_of(a, "/p/a", b"x").status == "same"
    assert drift_of(a, "/p/a", b"hand edit").status == "changed"
    assert drift_of(expected_now(idx, "/p/b", None), "/p/b", None).status == "same"
    assert expected_now(idx, "/p/c", None).known is False

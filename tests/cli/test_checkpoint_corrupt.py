"""Corrupt checkpoint entries are reported as such everywhere, never rebuilt to a wrong file
(docs/DECISIONS.md, "Reading a hostile disk"): diff ops of an unknown type, ``lines`` that
are not a list of strings, counts beyond the base, and a past version whose history was
evicted (``--show`` follows restore's proof rule)."""

from __future__ import annotations

import json

import orjson
import pytest

from sidtui.cli import main
from tests.helpers import checkpoint_session, copy_real_home, neutralize_fixture_pids, snapshot_ms

S01 = "20261130-052907-9ff3799b"


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture
def webapp(tmp_path):
    """(home, projects, index path) of a copy of the fixture home (S01: login.ts s1 → s3)."""
    home = copy_real_home(tmp_path / "home", tmp_path / "projects")
    neutralize_fixture_pids(home)
    return home, tmp_path / "projects", home / "checkpoints" / S01 / "index.json"


def _edit_index(index, fn) -> None:
    d = json.loads(index.read_text())
    fn(d)
    index.write_text(json.dumps(d, indent=2))


def _login_ops(d) -> list:
    return d["snapshots"][2]["files"][0]["diff"]["ops"]


def _bad_login(index, bad: str) -> None:
    """Replace S01's s3 diff of src/login.ts with the ops ``BAD_OPS[bad]``."""

    def edit(d):
        _login_ops(d)[:] = BAD_OPS[bad]

    _edit_index(index, edit)


BAD_OPS = {
    "unknown type": [{"type": "bogus", "lines": 5}],
    "lines not a list": [{"type": "keep", "lines": 9}, {"type": "add", "lines": "x"}],
    "non-string line": [{"type": "keep", "lines": [1, 2]}, {"type": "add", "lines": ["x"]}],
    "keep beyond the base": [{"type": "keep", "lines": ["x"] * 500}],
    "remove beyond the base": [
        {"type": "remove", "lines": ["x"] * 500},
        {"type": "add", "lines": ["y"]},
    ],
    "op not an object": [5, {"type": "add", "lines": ["y"]}],
}


@pytest.mark.parametrize("bad", BAD_OPS, ids=list(BAD_OPS))
def test_invalid_diff_is_unrecoverable_everywhere(webapp, capsys, bad):
    home, projects, index = webapp
    _bad_login(index, bad)
    login = projects / "webapp" / "src" / "login.ts"
    before = login.read_bytes()
    h = ["--home", home]

    rc, out, err = run(capsys, *h, "checkpoints", S01, "--json")
    assert rc == 0, err
    doc = json.loads(out)
    chain = next(f for f in doc["files"] if f["file_path"].endswith("/src/login.ts"))
    assert not chain["healthy"] and chain["drawing"].endswith("✗")
    assert [e["rebuilds"] for e in chain["entries"]] == [True, False]
    assert "internal error" not in err

    rc, out, _ = run(capsys, *h, "checkpoints", S01)
    assert rc == 0 and "diff ✗" in out

    rc, out, _ = run(capsys, *h, "check", "--session", S01, "--json")
    assert rc == 1
    assert json.loads(out)["checkpoints"]["unrecoverable"] == 1

    rc, out, err = run(capsys, *h, "checkpoints", S01, "--show", "src/login.ts@s3")
    assert rc == 1 and out == "" and "unrecoverable" in err and "internal error" not in err

    for argv in (
        ["undo", S01, "--dry-run"],
        ["rewind", S01, "--to", "3", "--mode", "code", "--dry-run"],
        ["undo", S01],
    ):
        rc, out, err = run(capsys, *h, *argv)
        assert rc == 1, (argv, out, err)
        assert "login.ts" in err and "unrecoverable" in err and "internal error" not in err, argv
        assert login.read_bytes() == before, argv  # never emptied


def test_non_string_line_skips_only_that_file(webapp, capsys):
    home, projects, index = webapp
    _bad_login(index, "non-string line")
    webapp_dir = projects / "webapp"
    readme = webapp_dir / "README.md"

    def readme_in_s3(d):  # the same batch also saved README.md (a good entry)
        d["snapshots"][2]["files"].append(
            {
                "filePath": str(readme),
                "existedBefore": True,
                "type": "full",
                "content": "old readme\n",
                "compressed": False,
            }
        )

    _edit_index(index, readme_in_s3)
    login_before = (webapp_dir / "src/login.ts").read_bytes()
    for argv in (["undo", S01, "--dry-run"], ["checkpoints", S01, "--show", "src/login.ts@s3"]):
        rc, out, err = run(capsys, "--home", home, *argv)
        assert rc == 1 and "internal error" not in err, (argv, err)
    # --force: README.md's entry, added to s3 by hand, is proven by no tool result (drift)
    rc, out, err = run(capsys, "--home", home, "restore", S01, "--before", "s3", "--force")
    assert rc == 1 and "internal error" not in err
    assert "login.ts" in err and "unrecoverable" in err
    assert readme.read_text() == "old readme\n"  # the other file of the batch is restored
    assert (webapp_dir / "src/login.ts").read_bytes() == login_before


def test_every_later_entry_built_on_a_bad_one_is_unrecoverable(webapp, capsys):
    home, _, index = webapp

    def corrupt(d):
        _login_ops(d)[:] = BAD_OPS["unknown type"]
        login = d["snapshots"][2]["files"][0]["filePath"]
        for n, ops in (
            (4, [{"type": "keep", "lines": ["a"]}, {"type": "add", "lines": ["b"]}]),
            (5, [{"type": "add", "lines": ["fresh", ""]}]),
        ):
            d["snapshots"].append(
                {
                    "id": f"s{n}",
                    "timestamp": d["snapshots"][-1]["timestamp"] + 1000,
                    "toolName": "edit",
                    "toolSummary": login,
                    "files": [
                        {
                            "filePath": login,
                            "existedBefore": True,
                            "type": "diff",
                            "diff": {"ops": ops},
                        }
                    ],
                }
            )
        d["nextId"] = 6

    _edit_index(index, corrupt)
    rc, out, _ = run(capsys, "--home", home, "checkpoints", S01, "--json")
    chain = next(f for f in json.loads(out)["files"] if f["file_path"].endswith("/src/login.ts"))
    # s3 is bad, s4 keeps lines of it: bad too; s5 reads no base: it rebuilds
    assert [e["rebuilds"] for e in chain["entries"]] == [True, False, False, True]
    rc, out, _ = run(capsys, "--home", home, "checkpoints", S01, "--show", "src/login.ts@s5")
    assert rc == 0 and out == "fresh\n"


def test_redo_after_a_restore_over_a_bad_entry_keeps_the_final_newline(webapp, capsys):
    home, projects, index = webapp
    _bad_login(index, "unknown type")
    login = projects / "webapp" / "src" / "login.ts"
    before = login.read_bytes()
    assert before.endswith(b"\n")
    rc, _, err = run(capsys, "--home", home, "restore", S01, "--before", "s1")
    assert rc == 0, err
    assert login.read_bytes() != before
    rc, _, err = run(capsys, "--home", home, "redo", S01)
    assert rc == 0, err
    assert login.read_bytes() == before  # every byte, the final newline too


# ------------------------------------------------------------------ one proof rule


def _evicted_history(tmp_path):
    """a.txt's oldest remaining entry is a full in s5; s3 and s4 were evicted, so its state
    before s2 is unknown (restore calls it uncertain)."""
    snap = lambda n, minute, files, summary: {  # noqa: E731
        "id": f"s{n}",
        "timestamp": snapshot_ms(minute),
        "toolName": "edit",
        "toolSummary": summary,
        "files": files,
    }
    full = lambda p, text: {  # noqa: E731
        "filePath": p,
        "existedBefore": True,
        "type": "full",
        "content": text,
        "compressed": False,
    }
    index = {
        "sessionId": "x",
        "createdAt": snapshot_ms(1),
        "nextId": 6,
        "snapshots": [
            snap(1, 1, [full("@/b.txt", "b one\n")], "@/b.txt"),
            snap(2, 2, [full("@/b.txt", "b two\n")], "@/b.txt"),
            snap(5, 3, [full("@/a.txt", "a as of s5\n")], "@/a.txt"),
        ],
    }
    return checkpoint_session(
        tmp_path, index, {"a.txt": b"a now\n", "b.txt": b"b now\n"}, prompts=3
    )


def test_show_of_an_unproven_past_version_is_refused_like_restore(tmp_path, capsys):
    home, project, sid = _evicted_history(tmp_path)
    h = ["--home", home]
    rc, out, err = run(capsys, *h, "restore", sid, "--before", "s2", "--dry-run")
    assert rc == 1 and "a.txt" in err and "uncertain" in err
    rc, out, err = run(capsys, *h, "checkpoints", sid, "--show", "a.txt@s2")
    assert rc == 1 and out == "", out
    assert "a.txt" in err and "s2" in err and "evicted" in err
    rc, out, err = run(capsys, *h, "checkpoints", sid, "--show", "a.txt@s5")
    assert rc == 0 and out == "a as of s5\n"
    rc, out, _ = run(capsys, *h, "checkpoints", sid, "--show", "b.txt@s2")
    assert rc == 0 and out == "b two\n"


def test_gzip_limit_makes_an_entry_unrecoverable_not_an_error(tmp_path, capsys, monkeypatch):
    import base64
    import zlib

    data = b"0123456789abcdef" * 8192  # 128 KiB
    c = zlib.compressobj(6, zlib.DEFLATED, 31)
    packed = base64.b64encode(c.compress(data) + c.flush()).decode()
    index = {
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
                        "content": packed,
                        "compressed": True,
                    }
                ],
            }
        ],
    }
    home, project, sid = checkpoint_session(tmp_path, index, {"a.txt": b"now\n"})
    monkeypatch.setenv("SIDTUI_MAX_INFLATE_BYTES", "65536")
    rc, out, err = run(capsys, "--home", home, "checkpoints", sid, "--json")
    assert rc == 0
    entry = json.loads(out)["files"][0]["entries"][0]
    assert entry["rebuilds"] is False and "SIDTUI_MAX_INFLATE_BYTES" in entry["reason"]
    rc, _, err = run(capsys, "--home", home, "undo", sid)
    assert rc == 1 and "SIDTUI_MAX_INFLATE_BYTES" in err
    assert (project / "a.txt").read_bytes() == b"now\n"
    monkeypatch.delenv("SIDTUI_MAX_INFLATE_BYTES")
    rc, out, _ = run(capsys, "--home", home, "checkpoints", sid, "--show", "a.txt@s1")
    assert rc == 0 and out.encode() == data
    assert orjson.loads((home / "checkpoints" / sid / "index.json").read_bytes())["nextId"] == 2


def _one_full(text: str) -> dict:
    entry = {"filePath": "@/a.txt", "existedBefore": True, "type": "full", "content": text}
    snap = {"id": "s1", "timestamp": snapshot_ms(1), "toolName": "write", "files": [entry]}
    snap["toolSummary"] = "@/a.txt"
    return {"sessionId": "x", "createdAt": snapshot_ms(1), "nextId": 2, "snapshots": [snap]}


def test_show_to_a_terminal_is_bounded_and_whole_to_a_pipe(tmp_path, capsys, monkeypatch):
    from sidtui.cli import common

    text = "short \x1b[31mred\n" + "x" * 3000 + "\n" + "line\n" * 50
    home, _, sid = checkpoint_session(tmp_path, _one_full(text), {"a.txt": b"now\n"})
    show = ["--home", home, "checkpoints", sid, "--show", "a.txt@s1"]
    monkeypatch.setenv("SIDTUI_MAX_DIFF_BYTES", "1024")
    rc, out, _ = run(capsys, *show)  # to a pipe (capsys): raw and whole, whatever the size
    assert rc == 0 and out == text
    monkeypatch.setattr(common, "stdout_is_terminal", lambda: True)
    rc, out, err = run(capsys, *show)  # above the preview limit: not printed, says how
    assert (rc, out) == (1, "")
    assert (
        "a.txt at s1" in err and "--full" in err and "> FILE" in err and len(err.splitlines()) == 1
    )
    rc, out, _ = run(capsys, *show, "--full")
    assert rc == 0 and "x" * 3000 in out and "\x1b" not in out and "\\x1b[31mred" in out
    monkeypatch.delenv("SIDTUI_MAX_DIFF_BYTES")
    rc, out, _ = run(capsys, *show)  # below it: lines cut at 1,000 characters, marked
    lines = out.splitlines()
    assert rc == 0 and lines[1] == "x" * 1000 + " … [2,000 more characters]", lines[1][-40:]
    assert lines[2:] == ["line"] * 50 and "\x1b" not in out

"""Odd but valid shapes a fresh-user trial found.

- a line nested ~1,000 levels deep is valid JSON (orjson and JSON.parse read it) but
  msgspec's fast decode raises RecursionError: ``show`` and ``ls --no-cache`` stopped with
  an internal error, and the cached ``ls`` dropped the session;
- a content block whose ``type`` is a number crashed the text ``show``;
- the app opens such a session on every tab.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from sidtui.cli import main
from sidtui.core.base.resolve import resolve_session
from sidtui.tui.app import make_app
from sidtui.tui.screens.session import SessionScreen
from tests.helpers import assistant, jsonl, rec, start, user
from tests.tui_support import settle

SID = "20260101-000000-aaaaaaaa"
DEPTH = 990  # deeper than msgspec's recursion allows here, within orjson's 1,024


_DEEP = "@@DEEP@@"  # written as a value nested DEPTH arrays deep (our writers recurse)


def _deep() -> str:
    return _DEEP


def _home(tmp_path: Path, *records) -> Path:
    root = tmp_path / "home"
    proj = root / "sessions" / "proj"
    proj.mkdir(parents=True)
    deep = ("[" * DEPTH + '"bottom"' + "]" * DEPTH).encode()
    (proj / f"{SID}.jsonl").write_bytes(jsonl(*records).replace(f'"{_DEEP}"'.encode(), deep))
    return root


def _records_deep_in_the_middle():
    return (
        start(sid=SID),
        user("u1", "S", text="hello"),
        assistant("a1", "u1", text=None, tools=[("t1", "Read")]),
        rec(
            "user_message",
            "r1",
            "a1",
            message={
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": [{"deep": _deep()}]}
                ],
            },
        ),
        assistant("a2", "r1", text="done"),
    )


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_deep_valid_line_is_a_record(capsys, tmp_path):
    root = _home(tmp_path, *_records_deep_in_the_middle())
    code, out, err = _run(capsys, "--home", str(root), "show", SID, "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["bad_lines"] == [] and d["loadable"] is True
    assert [m["uuid"] for m in d["resumed"]] == ["u1", "a1", "r1", "a2"]
    assert d["interruption"]["kind"] == "none"
    code, out, err = _run(capsys, "--home", str(root), "show", SID)
    assert code == 0 and "internal error" not in err
    for extra in (["--no-cache"], []):
        code, out, err = _run(capsys, "--home", str(root), "ls", "--json", *extra)
        assert code == 0 and "internal error" not in err, err
        (row,) = json.loads(out)
        assert row["loadable"] is True and row["interruption"] == "none"
        assert row["records"] == 5


def test_a_deep_valid_last_line(capsys, tmp_path):
    recs = list(_records_deep_in_the_middle())
    recs[-1] = rec(
        "assistant_message",
        "a2",
        "r1",
        message={"role": "assistant", "content": [{"type": "text", "text": "done"}]},
        extra=_deep(),
    )
    root = _home(tmp_path, *recs)
    code, out, err = _run(capsys, "--home", str(root), "ls", "--json", "--no-cache")
    assert code == 0, err
    (row,) = json.loads(out)
    assert row["loadable"] is True and row["interruption"] == "none"


def _weird_blocks():
    return (
        start(sid=SID),
        rec(
            "user_message",
            "u1",
            "S",
            message={
                "role": "user",
                "content": [
                    1,
                    None,
                    "s",
                    [],
                    {"type": 5},
                    {"type": None},
                    {"no": "type"},
                    {"type": "text", "text": 9},
                    {"type": "text", "text": "hi"},
                ],
            },
        ),
        assistant("a1", "u1", text="ok"),
    )


def test_block_types_that_are_no_strings(capsys, tmp_path):
    root = _home(tmp_path, *_weird_blocks())
    code, out, err = _run(capsys, "--home", str(root), "show", SID)
    assert code == 0 and "internal error" not in err, err
    assert "5" in out
    code, out, err = _run(capsys, "--home", str(root), "show", SID, "--json")
    assert code == 0
    blocks = json.loads(out)["messages"][0]["blocks"]
    assert blocks[4] == 5 and blocks[-1] == "text"  # as written


def _deep_metadata():
    return (
        start(sid=SID),
        user("u1", "S", text="hi"),
        rec("metadata", "m1", "u1", key="goal_state", value=_deep()),
        rec("metadata", "m2", "m1", key="todos", value=_deep()),
        rec("metadata", "m3", "m2", key="some_new_key", value=_deep()),
        assistant("a1", "m3", text="ok"),
    )


def test_values_nested_deeper_than_orjson_writes(capsys, tmp_path):
    """Metadata values ~1,000 levels deep: text ``show`` printed an internal error (orjson
    writes 254 levels; the lenient writer recursed)."""
    root = _home(tmp_path, *_deep_metadata())
    for extra in ([], ["--json"]):
        code, out, err = _run(capsys, "--home", str(root), "show", SID, *extra)
        assert code == 0 and "internal error" not in err, err
    assert orjson.loads(out)["loadable"] is True  # json.loads recurses


def test_the_writers_have_no_depth_limit():
    import orjson

    from sidtui.core.base.jsonout import dumps_lenient, stringify

    v: object = "x"
    for _ in range(3000):
        v = [v]
    text = "[" * 3000 + '"x"' + "]" * 3000
    assert stringify(v) == text.encode()
    assert dumps_lenient({"k": v}) == b'{"k":' + text.encode() + b"}"
    pretty = dumps_lenient(v, option=orjson.OPT_INDENT_2)
    assert pretty.startswith(b"[\n  [\n    [") and pretty.count(b"\n") == 6000


@pytest.mark.slow  # every tab of three odd sessions (~2 s each)
@pytest.mark.asyncio
@pytest.mark.parametrize("records", [_weird_blocks, _records_deep_in_the_middle, _deep_metadata])
async def test_the_app_opens_odd_sessions_on_every_tab(tmp_path, records):
    root = _home(tmp_path, *records())
    app = make_app(root, poll_interval=0, catalog_path=":memory:")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        app.open_session(resolve_session(app.home, SID))
        await settle(app, pilot)
        s = app.screen
        assert isinstance(s, SessionScreen)
        for key in ("e", "2", "3", "4", "5", "1"):
            await pilot.press(key)
            await settle(app, pilot)
            assert app.screen is s
        app.export_screenshot()  # everything on screen renders


@pytest.mark.parametrize(
    "pairs, phrase",
    [
        ([("u2", "u3"), ("u3", "u2")], "is only on a later line (line 3)"),
        ([("u2", "u2")], "is the record's own uuid (line 2)"),
        ([("u2", "nowhere")], "never appears in the file"),
    ],
)
def test_why_a_parent_was_not_found(capsys, tmp_path, pairs, phrase):
    """The agent's walk looks at earlier lines only: a parent on a later line, or the record
    itself, is not 'not in the file' (a tester was told so of a uuid on line 3)."""
    recs = [start(sid=SID)]
    for u, p in pairs:
        recs.append(user(u, p, text="t"))
    root = _home(tmp_path, *recs)
    code, out, err = _run(capsys, "--home", str(root), "show", SID, "--json")
    assert code == 0
    d = json.loads(out)
    assert d["loadable"] is False and phrase in d["load_failure"]
    assert any(phrase in w for w in d["warnings"][1:])


def test_odd_arguments_are_usage_errors(capsys, tmp_path):
    root = _home(tmp_path, start(sid=SID), user("u1", "S"), assistant("a1", "u1", text="ok"))
    code, _, err = _run(capsys, "--home", str(root), "ls", "--project", "")
    assert code == 2 and "not an empty name" in err
    code, _, err = _run(capsys, "--home", str(root), "show", "a" * 300)
    assert code == 2 and "no session matches" in err  # not "cannot read …: File name too long"
    code, _, err = _run(capsys, "--home", str(root), "show", "/tmp/" + "a" * 300 + ".jsonl")
    assert code == 2 and "no such file" in err


def test_a_link_to_nothing_is_named_by_both_listings(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = _home(tmp_path, start(sid=SID), user("u1", "S"), assistant("a1", "u1", text="ok"))
    link = root / "sessions" / "proj" / "20260102-000000-bbbbbbbb.jsonl"
    link.symlink_to(tmp_path / "missing.jsonl")
    for extra in (["--no-cache"], [], []):  # cold catalog, then warm
        code, out, err = _run(capsys, "--home", str(root), "ls", "--json", *extra)
        assert code == 0
        assert f"cannot read {link}: a symbolic link to a file that does not exist" in err
        assert len(json.loads(out)) == 1


def test_sessions_that_is_a_file(capsys, tmp_path):
    root = tmp_path / "home"
    root.mkdir()
    (root / "sessions").write_text("x")
    for extra in (["--no-cache"], []):
        code, _, err = _run(capsys, "--home", str(root), "ls", *extra)
        assert code == 1 and "sessions: not a folder" in err


def test_a_byte_order_mark_is_named(capsys, tmp_path):
    """The agent trims a file it reads whole (≤ 4 MiB): a leading BOM costs nothing then,
    and show says so (above 4 MiB it would make line 1 unreadable)."""
    root = _home(tmp_path, start(sid=SID), user("u1", "S"), assistant("a1", "u1", text="ok"))
    f = root / "sessions" / "proj" / f"{SID}.jsonl"
    f.write_bytes(b"\xef\xbb\xbf" + f.read_bytes())
    code, out, _ = _run(capsys, "--home", str(root), "show", SID, "--json")
    d = json.loads(out)
    assert code == 0 and d["loadable"] and not d["bad_lines"]
    assert [m["uuid"] for m in d["messages"]] == ["u1", "a1"]
    assert any("byte-order mark before the first record" in w for w in d["warnings"])


def test_an_empty_uuid_is_quoted_in_messages(capsys, tmp_path):
    root = _home(tmp_path, start(sid=SID), user("", "S"), user("u2", ""), user("", "u2"))
    code, out, _ = _run(capsys, "--home", str(root), "show", SID, "--json")
    d = json.loads(out)
    assert code == 0
    assert any('""' in w for w in d["warnings"]), d["warnings"]


def test_objects_nested_deep_in_a_metadata_value(capsys, tmp_path):
    """``show --json`` looked for streamed values in every nested dict (helper-24: objects
    ~500 levels deep in a metadata value stopped it half-way through its output)."""
    deep = '{"a":' * 600 + "1" + "}" * 600
    root = _home(
        tmp_path,
        start(sid=SID),
        user("u1", "S", text="hi"),
        rec("metadata", "m1", "u1", key="todo_state", value=_deep()),
        assistant("a1", "m1", text="ok"),
    )
    f = root / "sessions" / "proj" / f"{SID}.jsonl"
    f.write_bytes(f.read_bytes().replace(b"[" * DEPTH + b'"bottom"' + b"]" * DEPTH, deep.encode()))
    code, out, err = _run(capsys, "--home", str(root), "show", SID, "--json")
    assert code == 0, err
    assert orjson.loads(out)["loadable"] is True


@pytest.mark.parametrize("odd", [{"a": 1}, {}, [1, "text"], []])
def test_block_types_that_are_objects_or_lists(capsys, tmp_path, odd):
    root = _home(
        tmp_path,
        start(sid=SID),
        rec(
            "user_message",
            "u1",
            "S",
            message={"role": "user", "content": [{"type": odd}, {"type": "text", "text": "hi"}]},
        ),
        assistant("a1", "u1", text="ok"),
    )
    code, out, err = _run(capsys, "--home", str(root), "show", SID)
    assert code == 0 and "internal error" not in err, err


def test_odd_entries_in_a_home(capsys, tmp_path, monkeypatch):
    """A folder with a transcript's name and a link to one are named; ``sessions`` that is a
    link to nothing says so; a --project name too long for the system is a usage error."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = _home(tmp_path, start(sid=SID), user("u1", "S"), assistant("a1", "u1", text="ok"))
    folder = root / "sessions" / "proj"
    (folder / "20260103-000000-cccccccc.jsonl").mkdir()
    (folder / "20260104-000000-dddddddd.jsonl").symlink_to(tmp_path)
    for extra in (["--no-cache"], []):
        code, out, err = _run(capsys, "--home", str(root), "ls", "--json", *extra)
        assert code == 0 and len(json.loads(out)) == 1
        assert err.count("a folder, not a file") == 2, err
    code, _, err = _run(capsys, "--home", str(root), "ls", "--project", "x" * 300)
    assert code == 2 and "no project folder" in err
    other = tmp_path / "other"
    other.mkdir()
    (other / "sessions").symlink_to(tmp_path / "nowhere")
    code, _, err = _run(capsys, "--home", str(other), "ls", "--no-cache")
    assert code == 1 and "a symbolic link to a folder that does not exist" in err

"""Lone surrogates in session text and non-UTF-8 bytes in file names (catalog, search, JSON).

JSON.parse accepts ``"\\ud800"`` (the agent loads such a prompt); ``os.listdir`` gives a name
byte that is not UTF-8 as a ``surrogateescape`` str. orjson and SQLite refuse both, which
used to break ``search`` for every query, disable the ``ls`` cache and crash ``ls --json``.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
from pathlib import Path

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sidtui.cli import main
from sidtui.cli.common import unescape_arg
from sidtui.cli.watch import event_lines
from sidtui.core.base.home import Home
from sidtui.core.base.jsonout import _kept, dumps_lenient
from sidtui.core.index.catalog import Catalog
from sidtui.core.index.database import db_text, py_text
from sidtui.core.index.search import SearchIndex
from sidtui.core.live import events as ev
from sidtui.core.views.summary import SessionSummary
from tests.helpers import assistant, jsonl, start, user

SID = "20261201-000000-aaaaaaaa"
LONE_STR = "lone \ud800 high and \udfff low"
LONE_LINE = (
    b'{"type":"user_message","uuid":"U","parentUuid":"S","message":{"role":"user",'
    b'"content":[{"type":"text","text":"lone \\ud800 high and \\udfff low"},'
    b'{"type":"tool_use","id":"t1","name":"Grep","input":{"pattern":"\\udfffzz"}}]}}'
)
BAD_FILE = b"20261201-000001-\xe9x"  # a name byte that is not UTF-8
BAD_FOLDER = b"pr\xe9j"
OPTS = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def lone_home(tmp_path: Path) -> Path:
    root = tmp_path / "home"
    proj = root / "sessions" / "proj"
    proj.mkdir(parents=True)
    (proj / f"{SID}.jsonl").write_bytes(
        jsonl(start(sid=SID), LONE_LINE, assistant("A", "U", "done"))
    )
    return root


def bad_names_home(tmp_path: Path) -> Path:
    root = lone_home(tmp_path)
    sessions = os.fsencode(root / "sessions")
    with open(sessions + b"/proj/" + BAD_FILE + b".jsonl", "wb") as f:
        f.write(
            jsonl(
                start(sid="20261201-000001-bbbbbbbb"),
                user("U", "S", "bytes name"),
                assistant("A", "U", "ok"),
            )
        )
    os.mkdir(sessions + b"/" + BAD_FOLDER)
    with open(sessions + b"/" + BAD_FOLDER + b"/20261201-000002-cccccccc.jsonl", "wb") as f:
        f.write(
            jsonl(
                start(sid="20261201-000002-cccccccc"),
                user("U", "S", "bad folder"),
                assistant("A", "U", "ok"),
            )
        )
    return root


def bad_file_path(root: Path) -> str:
    return os.fsdecode(os.fsencode(root / "sessions" / "proj") + b"/" + BAD_FILE + b".jsonl")


# --- the lenient writer -------------------------------------------------------------------


@dataclasses.dataclass
class _Inner:
    name: str
    when: datetime.datetime


NORMAL = [
    SessionSummary(
        "20261201-000000-aaaaaaaa",
        "proj",
        "/x/a.jsonl",
        first_prompt="héllo 周三 😀",
        tool_names=["Edit"],
        cost_usd=0.25,
    ),
    {"a": [1, 2.5, None, True], 3: "int key", "nested": {"t": (1, "x")}},
    {"path": Path("/tmp/x"), "inner": _Inner("n", datetime.datetime(2026, 1, 2, 3, 4, 5))},
    "plain \x00 control \n and \u2028",
    [],
]


@pytest.mark.parametrize("obj", NORMAL)
def test_normal_data_is_written_exactly_as_orjson_writes_it(obj):
    # a summary (a msgspec struct) is written as orjson writes the dict of its fields
    ref = obj.to_json() if isinstance(obj, SessionSummary) else obj
    assert dumps_lenient(obj, option=OPTS, default=str) == orjson.dumps(
        ref, option=OPTS, default=str
    )
    # the fallback walk changes nothing either (only strings holding a surrogate)
    assert orjson.dumps(_kept(obj, str), option=OPTS, default=str) == orjson.dumps(
        ref, option=OPTS, default=str
    )


def test_lone_surrogates_keep_their_escape():
    obj = {
        "prompt": LONE_STR,
        "path": Path("/s/\udce9x.jsonl"),
        "k\ud800": 1,
        "ok": "😀",
        "rows": [SessionSummary("a\udce9", "p", "/p/a\udce9.jsonl")],
    }
    out = dumps_lenient(obj, option=OPTS, default=str)
    assert b"\\ud800" in out and b"\\udfff" in out and b"\\udce9" in out
    back = json.loads(out)
    assert back["prompt"] == LONE_STR
    assert os.fsencode(back["path"]) == b"/s/\xe9x.jsonl"  # the name's bytes back
    assert back["k\ufffd"] == 1  # a key cannot be a fragment: U+FFFD
    assert back["ok"] == "😀" and "😀".encode() in out
    assert back["rows"][0]["session_id"] == "a\udce9"
    with pytest.raises(TypeError):  # what orjson refuses for another reason still raises
        dumps_lenient({"x": {1, 2}, "y": "\ud800"})


_LONELY = st.text(
    st.characters(codec=None, categories=("Cs", "Ll", "Lo", "Nd", "Zs", "Cc")), max_size=12
).filter(
    lambda s: (
        not any(
            "\ud800" <= a <= "\udbff" and "\udc00" <= b <= "\udfff"
            for a, b in zip(s, s[1:], strict=False)
        )
    )
)


@settings(max_examples=200, deadline=None)
@given(_LONELY)
def test_any_string_reads_back_as_json_parse_would(s):
    out = dumps_lenient([s])
    assert json.loads(out) == [s]
    if not any("\ud800" <= c <= "\udfff" for c in s):
        assert dumps_lenient(s) == orjson.dumps(s)


def test_db_text_round_trips():
    for s in ("ascii", "héllo", "a\udce9", LONE_STR):
        assert py_text(db_text(s)) == s
    assert db_text("héllo") == "héllo" and isinstance(db_text("a\udce9"), bytes)


def test_watch_json_lines_keep_lone_surrogates():
    e = ev.SessionCreated(
        session_id="20261201-000001-\udce9x", path="/s/\udce9x.jsonl", project="proj"
    )
    (line,) = event_lines([e], as_json=True)
    assert json.loads(line)["path"] == "/s/\udce9x.jsonl"


# --- catalog and search with a lone surrogate ----------------------------------------------


def test_catalog_stores_and_returns_lone_surrogates_and_caches(tmp_path):
    root = lone_home(tmp_path)
    cat = Catalog(Home(root))
    res = cat.refresh()
    assert res.changed == 1 and not res.errors
    (row,) = cat.rows()
    assert row.first_prompt == LONE_STR
    cat2 = Catalog(Home(root))  # same database: the row is reused, not re-read
    assert cat2.get(row.path).first_prompt == LONE_STR
    assert cat2.refresh().changed == 0


def test_search_index_holds_lone_surrogate_text(tmp_path):
    cat = Catalog(Home(lone_home(tmp_path)))
    cat.refresh()
    idx = SearchIndex(cat)
    assert idx.fill().documents >= 3
    (hit,) = idx.search("high")
    assert hit.uuid == "U" and "lone \ufffd «high» and \ufffd low" in hit.snippet
    assert [h.kind for h in idx.search("grep")] == ["tool"]
    assert idx.search("anything") == []


def test_cli_search_and_ls_with_a_lone_surrogate_prompt(capsys, tmp_path):
    root = str(lone_home(tmp_path))
    code, out, err = run(capsys, "--home", root, "search", "anything")
    assert (code, err) == (0, "") and "no matches" in out
    code, out, err = run(capsys, "--home", root, "search", "low")
    assert code == 0 and SID in out
    code, out, err = run(capsys, "--home", root, "search", "--json", "low")
    assert code == 0 and json.loads(out)[0]["session_id"] == SID
    for _ in range(2):
        code, out, err = run(capsys, "--home", root, "ls")
        assert code == 0 and "warning" not in err and SID in out
    assert Catalog(Home(root)).refresh().changed == 0  # ls cached the row
    code, out, err = run(capsys, "--home", root, "ls", "--json")
    assert code == 0 and json.loads(out)[0]["first_prompt"] == LONE_STR
    code, out, err = run(capsys, "--home", root, "rewind", "--json", SID)
    assert code == 0 and json.loads(out)["points"][0]["preview"] == LONE_STR


# --- non-UTF-8 bytes in file and folder names -----------------------------------------------


def test_ls_json_with_non_utf8_names_is_valid_json_that_names_the_files(capsys, tmp_path):
    root = str(bad_names_home(tmp_path))
    code, out, err = run(capsys, "--home", root, "ls", "--json")
    assert code == 0, err
    rows = {r["session_id"]: r for r in json.loads(out)}
    assert set(rows) == {SID, "20261201-000001-\udce9x", "20261201-000002-cccccccc"}
    assert b'"20261201-000001-\\udce9x"' in out.encode("utf-8", "surrogatepass")
    assert rows["20261201-000002-cccccccc"]["project"] == "pr\udce9j"
    for r in rows.values():
        assert os.path.isfile(os.fsencode(r["path"]))  # json.loads + fsencode: the real bytes
    code, out, err = run(capsys, "--home", root, "ls")
    assert code == 0 and "20261201-000001-?x" in out and "pr?j" in out and "warning" not in err
    assert Catalog(Home(root)).refresh().changed == 0  # cached, bad names included


def test_search_with_non_utf8_names(capsys, tmp_path):
    root = str(bad_names_home(tmp_path))
    code, out, err = run(capsys, "--home", root, "search", "--json", "bytes")
    assert code == 0, err
    (hit,) = json.loads(out)
    assert hit["session_id"] == "20261201-000001-\udce9x" and hit["path"] == bad_file_path(
        Path(root)
    )
    code, out, err = run(
        capsys, "--home", root, "search", "--json", "--project", "pr\\udce9j", "folder"
    )
    assert code == 0 and json.loads(out)[0]["project"] == "pr\udce9j"
    code, out, err = run(
        capsys, "--home", root, "search", "--project", os.fsdecode(BAD_FOLDER), "folder"
    )
    assert code == 0 and "bad folder" in out


def test_search_index_follows_a_non_utf8_named_file(tmp_path):
    root = bad_names_home(tmp_path)
    cat = Catalog(Home(root))
    cat.refresh()
    idx = SearchIndex(cat)
    idx.fill()
    path = bad_file_path(root)
    with open(path, "ab") as f:
        f.write(jsonl(user("U2", "A", "appended wombat")))
    cat.refresh()
    res = idx.fill()
    assert res.indexed_files == 1 and res.documents == 1  # only the new line was read
    assert [h.path for h in idx.search("wombat")] == [path]
    os.remove(path)
    cat.refresh()
    idx.fill()
    assert idx.search("wombat") == [] and idx.search("bytes") == []


@pytest.mark.parametrize("form", ["real", "escaped", "escaped_id", "real_id"])
def test_show_takes_the_name_as_printed_by_json_or_the_real_one(capsys, tmp_path, form):
    root = bad_names_home(tmp_path)
    arg = {
        "real": bad_file_path(root),
        "escaped": bad_file_path(root).replace("\udce9", "\\udce9"),
        "escaped_id": "20261201-000001-\\udce9x",
        "real_id": "20261201-000001-\udce9x",
    }[form]
    code, out, err = run(capsys, "--home", str(root), "show", "--json", arg)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["path"] == bad_file_path(root) and doc["loadable"]


def test_unescape_arg(tmp_path):
    assert unescape_arg("20261201-000001-\\udce9x") == "20261201-000001-\udce9x"
    assert unescape_arg("plain") == "plain"
    assert unescape_arg("a\\ud800b") == "a\\ud800b"  # not a byte escape: kept
    literal = tmp_path / "x\\udce9y"
    literal.write_text("")
    assert unescape_arg(str(literal)) == str(literal)  # an existing name is taken as typed


def test_usage_of_a_project_folder_whose_name_is_not_utf8(capsys, tmp_path):
    import shutil

    from tests.helpers import CLAUDE_HOME

    home = tmp_path / "claude"
    shutil.copytree(CLAUDE_HOME, home)
    first = sorted((home / "projects").iterdir())[0]
    odd = os.fsdecode(os.fsencode(home / "projects") + b"/-tmp-x\xff")
    first.rename(odd)
    key = os.path.basename(odd)
    for _ in range(2):  # read, then from the usage cache
        code, out, err = run(
            capsys, "--claude-home", str(home), "usage", "--by", "project", "--json"
        )
        assert code == 0, err
        assert key in [r["key"] for r in json.loads(out)["rows"]]
    code, out, err = run(capsys, "--claude-home", str(home), "usage", "--by", "project")
    assert code == 0 and "-tmp-x" in out, err


@settings(max_examples=200)
@given(st.text(st.characters(blacklist_categories=())), st.text())
@example("-tmp-x\udcff", "")
@example("\ue000", "\ud800")
def test_usage_cache_blobs_keep_any_string(s, t):
    from sidtui.core.index.usage_cache import _DECODE, _ENCODE, _SUMMARY, _Summary
    from sidtui.core.usage.events import UsageEvent

    e = UsageEvent(0, s, t, None, 1, 2, 3, 4, session=s, project=t)
    (back,) = _DECODE(_ENCODE([e]))
    assert back == e
    summary = _SUMMARY(_ENCODE(_Summary([s, t, "\ue000" + s], [])))
    assert summary.keys == [s, t, "\ue000" + s]

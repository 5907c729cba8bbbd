"""Full-text search: what is indexed, incremental updates, results."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from sidtui.core.base.errors import UsageError
from sidtui.core.base.home import Home
from sidtui.core.index.catalog import Catalog
from sidtui.core.index.search import SearchIndex, documents_of, fts_query
from sidtui.core.live.watcher import Watcher
from tests.helpers import SID, line, make_home, neutralize_fixture_pids
from tests.helpers import live_assistant as assistant
from tests.helpers import live_start as start
from tests.helpers import live_user as user

SID2 = "20260101-000009-dddddddd"


@pytest.fixture
def idx(tmp_path):
    a = (
        line(start())
        + line(user("u1", "u0", "please refactor the frobnicator module"))
        + line(assistant("u2", "u1", "I will edit it", tool="Edit", path="/src/frob_nicator.py"))
        + line(
            {
                "type": "metadata",
                "key": "file_changes",
                "uuid": "u3",
                "parentUuid": "u2",
                "value": {"files": ["/src/widgets/zebra.py"], "count": 1},
            }
        )
        + line(user("x1", "u0", "abandoned branch mentions quokka"))
    )
    b = line(start(sid=SID2)) + line(user("v1", "u0", "unrelated frobnicator question"))
    root = make_home(tmp_path / "h", {SID: a})
    make_home(root, {SID2: b}, project="other")
    cat = Catalog(Home(root))
    cat.refresh()
    si = SearchIndex(cat)
    res = si.fill()
    assert res.indexed_files == 2 and res.documents >= 6
    return si


def test_search_prompts_assistant_tools_files_and_branches(idx):
    hits = idx.search("frobnicator")
    assert {(h.session_id, h.uuid, h.kind) for h in hits} == {
        (SID, "u1", "prompt"),
        (SID2, "v1", "prompt"),
    }
    h = next(h for h in hits if h.session_id == SID)
    assert h.line == 2 and "«frobnicator»" in h.snippet and h.project == "proj"
    assert [(h.uuid, h.kind) for h in idx.search("frob_nicator")] == [("u2", "tool")]
    assert sorted((h.uuid, h.kind) for h in idx.search("edit")) == [
        ("u2", "assistant"),
        ("u2", "tool"),
    ]  # "I will edit it" and the Edit tool
    assert [(h.uuid, h.kind) for h in idx.search("zebra")] == [("u3", "file")]
    assert [h.uuid for h in idx.search("quokka")] == ["x1"]  # skipped branches are searchable
    assert [h.session_id for h in idx.search("frobnicator", project="other")] == [SID2]
    assert [h.uuid for h in idx.search("frobni*")] != []
    assert idx.search('frobnicator" OR "x') == []  # FTS syntax is literal, never an error
    with pytest.raises(UsageError):
        idx.search("   ")


def test_incremental_append_reset_and_removal(idx):
    cat = idx.catalog
    p = str(cat.home.sessions_dir / "proj" / f"{SID}.jsonl")
    w = Watcher(cat.home, force_polling=True)
    w.prime()
    before = cat.conn.execute("SELECT count(*) FROM docs").fetchone()[0]
    with open(p, "ab") as fh:
        fh.write(line(user("u4", "u3", "now about the walrus")) + b'{"type":"user_message"')
    batch = w.process_paths([p])
    assert idx.apply(batch) == 1
    assert cat.conn.execute("SELECT count(*) FROM docs").fetchone()[0] == before + 1
    assert [(h.uuid, h.line) for h in idx.search("walrus")] == [("u4", 6)]
    with open(p, "ab") as fh:  # the partial line completes: indexed once, at its line
        fh.write(
            b',"uuid":"u5","parentUuid":"u4","message":{"role":"user","content":"pangolin"}}\n'
        )
    idx.apply(w.process_paths([p]))
    assert [(h.uuid, h.line) for h in idx.search("pangolin")] == [("u5", 7)]
    assert len(idx.search("walrus")) == 1
    tmp = p + ".tmp"  # replaced: old documents dropped
    with open(tmp, "wb") as fh:
        fh.write(line(start()) + line(user("n1", "u0", "fresh capybara")))
    os.replace(tmp, p)
    idx.apply(w.process_paths([p]))
    assert idx.search("walrus") == [] and [h.uuid for h in idx.search("capybara")] == ["n1"]
    os.remove(p)
    cat.refresh()
    assert idx.search("capybara") == []
    assert cat.conn.execute("SELECT count(*) FROM docs WHERE path = ?", (p,)).fetchone()[0] == 0


def test_documents_of_shapes():
    side = {
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "text", "text": "t"},
            {"type": "tool_use", "id": "1", "name": "Bash", "input": {"command": "ls"}},
        ],
    }
    assert documents_of(side) == [("assistant", "t"), ("tool", 'Bash {"command":"ls"}')]
    tr = user("a", None)
    tr["message"]["content"] = [{"type": "tool_result", "tool_use_id": "1", "content": "x"}]
    assert documents_of(tr) == []
    assert documents_of([1]) == [] and documents_of({"type": "session_end"}) == []
    # every word is a prefix match (fresh-user finding: `slug` must find `slugify`)
    assert fts_query('a "b" c*') == '"a"* """b"""* "c"*'
    # a CJK word is a phrase of its characters (unicode61 keeps a CJK run as one token)
    assert fts_query("周三") == '"周 三"*'


def test_fixture_home_search(real_home_copy):
    neutralize_fixture_pids(real_home_copy)
    cat = Catalog(Home(real_home_copy))
    cat.refresh()
    si = SearchIndex(cat)
    si.fill()
    assert si.fill().indexed_files == 0  # second fill: nothing new
    d = orjson.loads(next((real_home_copy / "history.jsonl").open("rb")))
    word = max(d["display"].split(), key=len).strip(".,:;!?\"'()")
    assert si.search(word), word


def test_fill_cancel_resume_and_concurrent_indexing_no_duplicates(idx):
    cat = idx.catalog
    from sidtui.core.index.database import delete_docs

    with cat.write_lock, cat.conn as conn:  # start over
        for p in cat.paths():
            delete_docs(conn, p)
    calls = []
    res = idx.fill(cancel=lambda: bool(calls.append(1)) or len(calls) > 1)
    assert res.cancelled and res.indexed_files == 1
    seen = []
    res = idx.fill(progress=seen.append)
    assert not res.cancelled and res.indexed_files == 1 and seen[-1].done == seen[-1].total
    full = sorted((h.path, h.uuid) for h in idx.search("frobnicator"))
    assert len(full) == 2
    # two readers collect the same appended bytes; only the first store lands
    p = str(cat.home.sessions_dir / "proj" / f"{SID}.jsonl")
    with open(p, "ab") as fh:
        fh.write(line(user("u9", "u3", "racing wombat")))
    a, b = idx._collect(p), idx._collect(p)
    idx._store([a])
    idx._store([b])
    assert len(idx.search("wombat")) == 1


def test_follow_keeps_catalog_and_search_current(idx):
    import queue

    from sidtui.core.live import events as ev

    cat = idx.catalog
    got: queue.Queue = queue.Queue()
    w = Watcher(cat.home, force_polling=True, poll_delay_ms=20, poll_interval=0.2)
    stop_following = cat.follow(w, idx)
    w.subscribe(got.put)  # after follow: rows are already updated when we are called
    w.start()
    try:
        assert w.ready.wait(20)
        p = str(cat.home.sessions_dir / "proj" / f"{SID}.jsonl")
        with open(p, "ab") as fh:
            fh.write(line(assistant("u5", "u3", "the narwhal answer")))
        while True:
            batch = got.get(timeout=20)
            if any(isinstance(e, ev.RecordsAppended) for e in batch):
                break
        assert [h.uuid for h in idx.search("narwhal")] == ["u5"]
        assert next(r for r in cat.rows() if r.session_id == SID).interruption == "none"
    finally:
        stop_following()
        w.stop()
    assert w.warnings == []


def test_cjk_runs_and_word_prefixes_are_found(real_home_copy):
    """Fresh-user finding: `周三` inside a Chinese sentence and `slug` for `slugify`."""
    neutralize_fixture_pids(real_home_copy)
    cat = Catalog(Home(real_home_copy))
    cat.refresh()
    si = SearchIndex(cat)
    si.fill()
    # the notes fixture (S09) talks about 周报 (weekly reports) inside longer sentences
    hits = si.search("周报")
    assert hits and all("周报" in h.snippet.replace("«", "").replace("»", "") for h in hits)
    assert si.search("valid")  # a prefix of "validation"/"validate"
    # deleting and re-indexing a file keeps the CJK-split index consistent
    si.fill()
    assert si.search("周报")


def test_the_same_home_spelled_two_ways_is_one_home(tmp_path, monkeypatch):
    """Regression: an app on ``/abs/home`` searched, ``sidtui ls --home rel/home`` refreshed
    the same catalog with relative paths, which dropped every absolute row and its
    documents, and the app's search returned 0 results until restarted (and the reverse).
    Every path the catalog and the index keep is the resolved absolute one."""
    root = make_home(
        tmp_path / "h", {SID: line(start()) + line(user("u1", "u0", "the frobnicator"))}
    )
    monkeypatch.chdir(tmp_path)
    absolute = Catalog(Home(root))
    absolute.refresh()
    idx = SearchIndex(absolute)
    idx.fill()
    assert [h.uuid for h in idx.search("frobnicator")] == ["u1"]
    for spelling in (Path("h"), Path("./h/../h"), tmp_path / "h" / "sessions" / ".."):
        other = Catalog(Home(spelling))
        assert other.db_path == absolute.db_path
        res = other.refresh()
        assert (res.changed, res.removed) == (0, 0), spelling
        SearchIndex(other).fill()
        other.close()
        assert [h.uuid for h in idx.search("frobnicator")] == ["u1"], spelling
        assert [r.path for r in absolute.rows()] == [
            str(root.resolve() / "sessions" / "proj" / f"{SID}.jsonl")
        ]
    # watcher batches name paths as the watcher's home spells them
    from sidtui.core.live import events as ev

    rel = Path("h") / "sessions" / "proj" / f"{SID}.jsonl"
    with open(rel, "ab") as fh:
        fh.write(line(user("u2", "u1", "a second frobnicator")))
    batch = [ev.RecordsAppended(SID, str(rel), (), "main")]
    assert absolute.apply(batch) == [str(rel.resolve())]
    assert idx.apply(batch) == 1
    assert sorted(h.uuid for h in idx.search("frobnicator")) == ["u1", "u2"]
    assert absolute.get(rel) is not None

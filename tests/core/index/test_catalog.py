"""Catalog: same rows as list_sessions, cache keys, corrupt/foreign cache rebuilt."""

from __future__ import annotations

import os
import sqlite3
import time

import orjson
import pytest

from sidtui.core.base.home import Home
from sidtui.core.index.catalog import FORMAT, Catalog, default_db_path
from sidtui.core.live import events as ev
from sidtui.core.live.watcher import Watcher
from sidtui.core.views.listing import list_sessions
from tests.helpers import REAL_HOME, SID, line, make_home, neutralize_fixture_pids
from tests.helpers import live_assistant as assistant
from tests.helpers import live_start as start
from tests.helpers import live_user as user


def _cmp(rows):
    return [
        (
            s.path,
            s.session_id,
            s.interruption,
            s.loadable,
            s.records,
            s.ended,
            s.live,
            s.stale,
            s.first_prompt,
        )
        for s in rows
    ]


def test_rows_equal_list_sessions_on_fixture_home(real_home_copy):
    neutralize_fixture_pids(real_home_copy)
    home = Home(real_home_copy)
    cat = Catalog(home)
    assert str(default_db_path(home)).startswith(os.environ["XDG_CACHE_HOME"])
    progress = []
    res = cat.refresh(progress=progress.append)
    assert res.errors == [] or all(isinstance(e, str) for e in res.errors)
    assert progress and progress[-1].done == progress[-1].total == res.total
    want, _ = list_sessions(home)
    assert _cmp(cat.rows()) == _cmp(want)
    for proj in {s.project for s in want}:
        assert _cmp(cat.rows(proj)) == _cmp(list_sessions(home, proj)[0])
    assert any(s.kind == "sidechain" for s in cat.rows(include_sidechains=True))
    # warm: nothing changed, nothing re-summarized; a second Catalog reuses the file
    again = Catalog(home)
    assert again.rebuilt is None
    res2 = again.refresh()
    assert res2.changed == 0 and res2.removed == 0
    assert _cmp(again.rows()) == _cmp(want)


def test_cache_key_invalidation(tmp_path):
    root = make_home(tmp_path / "h", {SID: line(start()) + line(user("u1", "u0", "first"))})
    home = Home(root)
    cat = Catalog(home)
    assert cat.refresh().changed == 1
    p = home.sessions_dir / "proj" / f"{SID}.jsonl"
    assert cat.rows()[0].interruption == "interrupted_prompt"
    with open(p, "ab") as fh:  # size changes
        fh.write(line(assistant("u2", "u1")))
    res = cat.refresh()
    assert res.changed == 1 and cat.rows()[0].interruption == "none"
    assert cat.rows()[0].records == 3
    st = p.stat()  # same size, new mtime: re-summarized
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000))
    assert cat.refresh().changed == 1
    data = p.read_bytes()  # replaced by a same-size file (new inode, same mtime)
    tmp = p.with_suffix(".tmp")
    tmp.write_bytes(data)
    os.utime(tmp, ns=(st.st_atime_ns, p.stat().st_mtime_ns))
    os.replace(tmp, p)
    assert cat.refresh().changed == 1
    assert cat.refresh().changed == 0
    p.unlink()
    res = cat.refresh()
    assert res.removed == 1 and cat.rows() == []


def test_liveness_never_trusted_from_cache(tmp_path):
    import subprocess
    import sys

    root = make_home(tmp_path / "h", {SID: line(start()) + line(user("u1", "u0"))})
    home = Home(root)
    cat = Catalog(home)
    cat.refresh()
    assert not cat.rows()[0].live
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    try:
        (home.active_sessions_dir / f"{SID}.json").write_bytes(
            orjson.dumps({"sessionId": SID, "pid": child.pid, "startedAt": int(time.time() * 1000)})
        )
        assert cat.rows()[0].live  # no refresh needed
    finally:
        child.kill()
        child.wait()
    row = cat.rows()[0]
    assert not row.live and row.stale


@pytest.mark.parametrize("damage", ["garbage", "foreign", "other-home", "truncated-page"])
def test_corrupt_or_foreign_cache_is_rebuilt(tmp_path, damage):
    root = make_home(tmp_path / "h", {SID: line(start()) + line(user("u1", "u0"))})
    home = Home(root)
    cat = Catalog(home)
    cat.refresh()
    cat.close()
    db = default_db_path(home)
    if damage == "garbage":
        db.write_bytes(b"this is not a database" * 100)
        for s in ("-wal", "-shm"):
            if os.path.exists(str(db) + s):
                os.remove(str(db) + s)
    elif damage in ("foreign", "other-home"):
        con = sqlite3.connect(db)
        key, val = ("format", "sidtui-catalog/0") if damage == "foreign" else ("home", "/elsewhere")
        con.execute("UPDATE meta SET value = ? WHERE key = ?", (val, key))
        # a poisoned row that must not be served
        con.execute(
            "UPDATE sessions SET summary = ?",
            (orjson.dumps({"session_id": "POISON", "project": "x", "path": "/nope"}),),
        )
        con.commit()
        con.close()
    else:
        con = sqlite3.connect(db)
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.close()
        data = bytearray(db.read_bytes())
        for i in range(4096, len(data)):  # wreck every page after the first
            data[i] = 0xA5
        db.write_bytes(bytes(data))
    again = Catalog(home)
    rows = again.rows()
    if again.rebuilt is not None:
        assert rows == []
    assert all(r.session_id != "POISON" for r in rows)
    again.refresh()
    assert again.rebuilt is not None
    assert [r.session_id for r in again.rows()] == [SID]
    meta = dict(again.conn.execute("SELECT key, value FROM meta").fetchall())
    assert meta["format"] == FORMAT


def test_apply_watcher_batches(tmp_path):
    root = make_home(tmp_path / "h", {SID: line(start()) + line(user("u1", "u0"))})
    home = Home(root)
    cat = Catalog(home)
    cat.refresh()
    w = Watcher(home, force_polling=True)
    w.prime()
    p = str(home.sessions_dir / "proj" / f"{SID}.jsonl")
    with open(p, "ab") as fh:
        fh.write(line(assistant("u2", "u1")))
    sid2 = "20260101-000002-cccccccc"
    p2 = str(home.sessions_dir / "proj" / f"{sid2}.jsonl")
    with open(p2, "wb") as fh:
        fh.write(line(start(sid=sid2)) + line(user("x1", "u0", "new one")))
    batch = w.process_paths([p, p2])
    assert any(isinstance(e, ev.SessionCreated) for e in batch)
    changed = cat.apply(batch)
    assert sorted(changed) == sorted([p, p2])
    rows = {r.session_id: r for r in cat.rows()}
    assert rows[SID].interruption == "none" and rows[sid2].first_prompt == "new one"
    assert cat.refresh().changed == 0  # apply wrote exactly what refresh would


async def test_refresh_async_yields_progress(real_home_copy):
    neutralize_fixture_pids(real_home_copy)
    cat = Catalog(Home(real_home_copy))
    seen = [p async for p in cat.refresh_async()]
    assert seen and seen[-1].done == seen[-1].total
    assert cat.rows()


def test_fixture_home_untouched():
    assert (REAL_HOME / "sessions").is_dir()


def test_rows_readable_from_another_thread_during_refresh(tmp_path, monkeypatch):
    import threading

    from sidtui.core.index import catalog as catalog_mod

    monkeypatch.setattr(catalog_mod, "BATCH", 2)
    sessions = {
        f"20260101-00000{i}-aaaaaaa{i}": line(start(sid=f"20260101-00000{i}-aaaaaaa{i}"))
        + line(user("u1", "u0", f"prompt {i}"))
        for i in range(6)
    }
    home = Home(make_home(tmp_path / "h", sessions))
    cat = Catalog(home)
    mid, go = threading.Event(), threading.Event()
    seen: list[int] = []

    def progress(p):
        if p.done == 2:
            mid.set()
            assert go.wait(20)  # hold the refresh half-way while the other thread reads

    t = threading.Thread(target=cat.refresh, kwargs={"progress": progress})
    t.start()
    assert mid.wait(20)
    seen.append(len(cat.rows()))  # the main thread reads while the refresh is under way
    go.set()
    t.join(20)
    assert seen == [2] and len(cat.rows()) == 6


def _many(tmp_path, n=9):
    sids = [f"20260101-00000{i}-bbbbbbb{i}" for i in range(n)]
    sessions = {
        sid: line(start(sid=sid))
        + line(user("u1", "u0", f"prompt {i}"))
        + (line(assistant("u2", "u1")) if i % 2 else b"")
        for i, sid in enumerate(sids)
    }
    return Home(make_home(tmp_path / "h", sessions))


@pytest.fixture
def pools(monkeypatch):
    """Force the forked-worker path for any number of files (even with pytest-xdist's
    threads around: the children only summarize and exit), counting the pools made."""
    import concurrent.futures as cf

    from sidtui.core.base import pool
    from sidtui.core.views import listing

    made = []
    real = cf.ProcessPoolExecutor

    def counting(*a, **kw):
        made.append(kw.get("max_workers"))
        return real(*a, **kw)

    monkeypatch.setattr(cf, "ProcessPoolExecutor", counting)
    monkeypatch.setattr(listing, "workers_for", lambda n: 2 if n else 1)
    monkeypatch.setattr(pool, "can_fork", lambda: True)
    return made


@pytest.mark.parametrize("forked", [False, True])
def test_batch_rows_equal_list_sessions(real_home_copy, monkeypatch, request, forked):
    from sidtui.core.index import catalog as catalog_mod

    neutralize_fixture_pids(real_home_copy)
    home = Home(real_home_copy)
    want = [s.to_json() for s in list_sessions(home, include_sidechains=True)[0]]
    monkeypatch.setattr(catalog_mod, "BATCH", 3)  # many chunks
    made = request.getfixturevalue("pools") if forked else None
    cat = Catalog(home)
    res = cat.refresh()
    assert [s.to_json() for s in cat.rows(include_sidechains=True)] == want
    assert res.changed == len(want)
    if forked:
        assert made == [2]


@pytest.mark.parametrize("forked", [False, True])
def test_cancel_keeps_finished_chunks(tmp_path, monkeypatch, request, forked):
    from sidtui.core.index import catalog as catalog_mod

    home = _many(tmp_path)
    if forked:
        request.getfixturevalue("pools")
    monkeypatch.setattr(catalog_mod, "BATCH", 2)
    cat = Catalog(home)
    calls = []
    res = cat.refresh(progress=calls.append, cancel=lambda: bool(calls))  # after the first chunk
    assert res.cancelled and res.changed == 2
    assert len(cat.rows()) == 2 and calls[-1].done == 2
    res = cat.refresh()  # the rest; the first two are not read again
    assert not res.cancelled and res.changed == 7 and res.removed == 0
    assert [s.to_json() for s in cat.rows()] == [s.to_json() for s in list_sessions(home)[0]]


def test_refresh_from_a_thread_stays_in_process(tmp_path, monkeypatch):
    """The app refreshes from a worker thread: no fork (it would copy locks other threads
    hold), the same rows from one process."""
    import concurrent.futures as cf
    import threading

    from sidtui.core.views import listing

    home = _many(tmp_path)
    want = [s.to_json() for s in list_sessions(home)[0]]
    monkeypatch.setattr(listing, "PARALLEL_MIN_FILES", 1)  # big enough to go parallel...

    def no_pool(*a, **kw):
        raise AssertionError("forked from a threaded process")

    monkeypatch.setattr(cf, "ProcessPoolExecutor", no_pool)
    cat = Catalog(home)
    out = {}
    t = threading.Thread(target=lambda: out.update(res=cat.refresh()))
    t.start()
    t.join(60)
    assert out["res"].changed == 9 and out["res"].errors == []
    assert [s.to_json() for s in cat.rows()] == want


def test_chmod_is_noticed(tmp_path, monkeypatch):
    """A chmod changes only the ctime: the row is re-read (unreadable: an error line and
    no row, as list_sessions), and comes back when the file is readable again."""
    from sidtui.core.views import listing

    root = make_home(tmp_path / "h", {SID: line(start()) + line(user("u1", "u0"))})
    home = Home(root)
    p = home.sessions_dir / "proj" / f"{SID}.jsonl"
    cat = Catalog(home)
    assert cat.refresh().changed == 1
    assert cat.refresh().changed == 0
    real_open = os.open

    def deny(path, *a, **kw):  # root reads through mode 000: deny it here as the kernel would
        if os.fspath(path) == str(p):
            raise PermissionError(13, "Permission denied", str(p))
        return real_open(path, *a, **kw)

    monkeypatch.setattr(listing.os, "open", deny)
    os.chmod(p, 0)
    try:
        res = cat.refresh()
        assert res.changed == 0 and res.errors == [f"permission denied reading {p}"]
        assert cat.rows() == [] and list_sessions(home)[0] == []
        monkeypatch.setattr(listing.os, "open", real_open)
    finally:
        os.chmod(p, 0o644)
    res = cat.refresh()
    assert res.changed == 1 and res.errors == [] and [r.session_id for r in cat.rows()] == [SID]
    os.chmod(p, 0o600)  # a chmod alone (size, mtime, inode unchanged) is a new key
    assert cat.refresh().changed == 1


def test_rows_batch_decode_equals_row_by_row():
    """``rows()`` decodes every stored row in one call; a row msgspec refuses (a lone
    surrogate escape) sends the batch row by row, with the same result."""
    from sidtui.core.index.catalog import summaries_from_blobs, summary_from_blob
    from sidtui.core.views.summary import SessionSummary

    rows = [
        SessionSummary("a", "p", "/x/a.jsonl", "main", "jsonl", title="t"),
        SessionSummary("b", "p", "/x/b.jsonl", "main", "jsonl", model="m"),
    ]
    blobs = [orjson.dumps(r.to_json()) for r in rows]
    assert summaries_from_blobs(blobs) == rows == [summary_from_blob(b) for b in blobs]
    odd = blobs + [
        b'{"session_id":"c","project":"p","path":"/x/c","kind":"main",'
        b'"container":"jsonl","title":"\\ud800"}'
    ]
    got = summaries_from_blobs(odd)
    assert got[:2] == rows and got[2].title == "\ud800"
    assert summaries_from_blobs([]) == []


def test_the_warm_digest_of_scanned_files_is_the_stored_one(tmp_path):
    from sidtui.core.index.files import files_digest, keys_of, scanned_digest

    for n in range(3):
        (tmp_path / f"s{n}.jsonl").write_bytes(b"x" * n)
    files = [(str(p), "", p.stat()) for p in sorted(tmp_path.iterdir())]
    files.append((str(tmp_path / "gone.jsonl"), "", None))  # no stat: left out by both
    assert scanned_digest(files) == files_digest(keys_of(files))
    assert scanned_digest(files[:2]) != scanned_digest(files)

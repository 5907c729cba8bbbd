"""What :func:`pending_journals` finds: sidtui's journals, one it did not write, a fork's."""

from __future__ import annotations

import os

import orjson

from sidtui.core.checkpoints.journal import pending_journals, write_journal
from tests.helpers import dead_pid


def test_pending_journals_of_a_folder(tmp_path):
    cps = tmp_path / "checkpoints"
    assert pending_journals(cps) == []  # no folder: nothing, no error
    (cps / "clean").mkdir(parents=True)
    (cps / "clean" / "index.json").write_text("{}")
    write_journal(cps / "b", {"op": "undo", "restore": {"paths": ["/p/x", "/p/y"]}})
    j = cps / "b" / "sidtui-journal.json"
    j.write_bytes(orjson.dumps({**orjson.loads(j.read_bytes()), "pid": dead_pid()}))
    (cps / "a").mkdir()
    (cps / "a" / "sidtui-journal.json").write_text("[1]")
    write_journal(cps / "c", {"op": "fork", "fork": {"source": "b", "transcript": "/t"}})
    found = pending_journals(cps)
    assert [p.session_id for p in found] == ["a", "b", "c"]
    a, b, c = found
    assert a.invalid and "is not a journal sidtui wrote" in a.describe()
    assert (b.op, b.files, b.running, b.fork_of, b.session) == ("undo", 2, False, None, "b")
    assert "interrupted sidtui undo of b is pending" in b.describe()
    assert "2 file(s) may be half restored" in b.describe()
    assert (c.fork_of, c.session, c.pid, c.running) == ("b", "b", os.getpid(), False)
    assert "its copy c is incomplete" in c.describe()
    assert [p.session_id for p in pending_journals(cps, ["b", "clean", "nosuch"])] == ["b"]
    assert b.to_json()["message"] == b.describe()


def test_a_journal_whose_writer_runs_is_a_write_in_progress(tmp_path):
    import subprocess
    import sys

    cps = tmp_path / "checkpoints"
    with subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    ) as proc:
        write_journal(cps / "s", {"op": "restore", "restore": {"paths": []}})
        j = cps / "s" / "sidtui-journal.json"
        import psutil

        started = psutil.Process(proc.pid).create_time()  # the writer: its pid and start
        body = {**orjson.loads(j.read_bytes()), "pid": proc.pid, "pidStarted": started}
        j.write_bytes(orjson.dumps(body))
        [p] = pending_journals(cps)
        proc.stdin.close()
    assert p.running and f"(process {proc.pid}) is writing now" in p.describe()

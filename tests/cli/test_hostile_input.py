"""A hostile disk: FIFOs and devices where the home has files, gzip bombs, sparse and huge
files, files swapped for FIFOs while they are read (docs/DECISIONS.md, "Reading a hostile
disk").

Every command runs in a child process under a timeout (a hang is the failure) with its own
peak memory measured (``ru_maxrss``) against :data:`HOSTILE_RSS_CEILING`; nothing may write
outside the home, print a traceback or an internal error.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from sidtui.core.transcript.source import FileSource
from sidtui.core.views.listing import read_file
from tests.helpers import (
    HOSTILE_RSS_CEILING,
    checkpoint_session,
    copy_real_home,
    line,
    live_start,
    live_user,
    neutralize_fixture_pids,
    run_bounded,
    snapshot_ms,
)

S01 = "20261130-052907-9ff3799b"  # webapp: src/login.ts full → diff, checkpoints s1..s3
WEBAPP = "tmp-sidtui-fixture-projects-webapp"
HANG = 30.0  # seconds: far above any of these commands' normal run time


def _ok(r, rc: int) -> None:
    """The run ended by itself with ``rc``, within the memory ceiling, without a crash."""
    assert not r.hung, f"hung: {r!r}"
    assert "Traceback" not in r.err and "internal error" not in r.err, r
    assert r.peak_rss < HOSTILE_RSS_CEILING, f"{r.peak_rss >> 20} MiB: {r!r}"
    assert r.rc == rc, r


@pytest.fixture
def fixture_home(tmp_path):
    home = copy_real_home(tmp_path / "home", tmp_path / "projects")
    neutralize_fixture_pids(home)
    return home, tmp_path / "projects"


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# ------------------------------------------------------------------ FIFOs and devices


INDEX_READERS = [
    ["checkpoints", S01],
    ["checkpoints", S01, "--json"],
    ["checkpoints", S01, "--show", "src/login.ts@s1"],
    ["undo", S01, "--dry-run"],
    ["restore", S01, "--before", "s1", "--dry-run"],
    ["rewind", S01, "--to", "1", "--mode", "code", "--dry-run"],
    ["check", "--session", S01],
]


@pytest.mark.parametrize(
    ("argv", "kind"),
    [(a, "fifo") for a in INDEX_READERS] + [(a, "dev-zero") for a in INDEX_READERS[::3]],
    ids=lambda a: " ".join(a[:1] + a[2:]) if isinstance(a, list) else a,
)
def test_index_that_is_not_a_regular_file_is_refused(fixture_home, argv, kind):
    home, projects = fixture_home
    index = home / "checkpoints" / S01 / "index.json"
    index.unlink()
    if kind == "fifo":
        os.mkfifo(index)
    else:
        index.symlink_to("/dev/zero")
    before = _tree(projects)
    r = run_bounded(["--home", str(home), *argv], timeout=HANG)
    _ok(r, 1)
    assert "not a regular file" in r.err + r.out, r
    assert _tree(projects) == before


@pytest.mark.parametrize("argv", [["ls", "--no-cache"], ["ls"], ["show", S01]])
def test_fifo_registration_is_skipped_by_readers(fixture_home, argv):
    home, _ = fixture_home
    os.mkfifo(home / "active-sessions" / "20261130-000000-deadbeef.json")
    r = run_bounded(["--home", str(home), *argv], timeout=HANG)
    _ok(r, 0)
    assert S01 in r.out
    assert r.err.count("20261130-000000-deadbeef.json") == 1, r  # one warning
    assert "not a regular file" in r.err


def test_fifo_registration_of_the_session_refuses_a_change(fixture_home):
    home, projects = fixture_home
    os.mkfifo(home / "active-sessions" / f"{S01}.json")
    before = _tree(projects)
    r = run_bounded(["--home", str(home), "undo", S01], timeout=HANG)
    _ok(r, 1)
    assert f"{S01}.json" in r.err and "possibly live" in r.err, r
    assert _tree(projects) == before
    r = run_bounded(["--home", str(home), "undo", S01, "--dry-run"], timeout=HANG)
    _ok(r, 1)  # the dry run predicts the real run's refusal
    assert "a real run is refused" in r.err and "possibly live" in r.err, r


@pytest.mark.parametrize(
    "where",
    ["summary", "progress", "worktree", "sidechain-swap"],
)
def test_fifo_beside_a_session_does_not_stop_show(fixture_home, where):
    home, projects = fixture_home
    folder = home / "sessions" / WEBAPP
    if where == "summary":
        (folder / "summaries").mkdir(exist_ok=True)
        os.mkfifo(folder / "summaries" / f"{S01}.json")
    elif where == "progress":
        (home / "progress").mkdir(exist_ok=True)
        os.mkfifo(home / "progress" / f"{S01}.md")
    elif where == "worktree":
        (projects / "webapp" / ".sid-code").mkdir(exist_ok=True)
        os.mkfifo(projects / "webapp" / ".sid-code" / "session-config.json")
    else:  # a sidechain of the session replaced by a link to a FIFO
        side = folder / "20261130-052917-0c88f996-a1f6n1kpu.jsonl"
        fifo = home / "fifo"
        os.mkfifo(fifo)
        side.unlink()
        side.symlink_to(fifo)
    sid = "20261130-052917-0c88f996" if where == "sidechain-swap" else S01
    r = run_bounded(["--home", str(home), "show", sid], timeout=HANG)
    _ok(r, 0)
    # what was said is checked in the data: the screen text wraps with the path's length
    r = run_bounded(["--home", str(home), "show", sid, "--json"], timeout=HANG)
    _ok(r, 0)
    if where != "summary":  # (a title from the summary file is optional)
        said = json.loads(r.out)["warnings"]
        assert any("not a regular file" in w for w in said), said
    r = run_bounded(["--home", str(home), "ls", "--no-cache"], timeout=HANG)
    _ok(r, 0)


def test_fifo_and_device_session_names_are_each_one_warning(fixture_home):
    home, _ = fixture_home
    folder = home / "sessions" / WEBAPP
    os.mkfifo(folder / "20261130-000001-aaaaaaaa.jsonl")
    (folder / "20261130-000002-bbbbbbbb.jsonl").symlink_to("/dev/zero")
    for argv in (["ls", "--no-cache"], ["ls"], ["check"]):
        r = run_bounded(["--home", str(home), *argv], timeout=HANG)
        _ok(r, 1 if argv == ["check"] else 0)
        for name in ("20261130-000001-aaaaaaaa", "20261130-000002-bbbbbbbb"):
            assert r.err.count(name) + r.out.count(name) >= 1, (argv, r)
        assert "does not exist" not in r.err + r.out, r  # /dev/zero is there: not "dangling"
        assert "not a regular file" in r.err + r.out, r
    r = run_bounded(
        ["--home", str(home), "show", str(folder / "20261130-000002-bbbbbbbb.jsonl")],
        timeout=HANG,
    )
    _ok(r, 2)
    assert "not a regular file" in r.err


def _watch(home: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "sidtui", "watch", *extra, "--json", "--home", str(home)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def _readline(stream, timeout: float) -> str:
    """One line from a child's pipe, or "" when none came within ``timeout`` seconds."""
    import selectors

    sel = selectors.DefaultSelector()
    sel.register(stream, selectors.EVENT_READ)
    if not sel.select(timeout):
        return ""
    return stream.readline()


@pytest.mark.parametrize("polling", [False, True])
def test_watch_survives_a_fifo_in_sessions_and_stops_on_sigterm(tmp_path, polling):
    sid = "20260101-000000-aaaaaaaa"
    folder = tmp_path / "h" / "sessions" / "proj"
    folder.mkdir(parents=True)
    session = folder / f"{sid}.jsonl"
    session.write_bytes(line(live_start()) + line(live_user("u1", "u0")))
    proc = _watch(tmp_path / "h", *(["--polling"] if polling else []))
    try:
        assert _readline(proc.stderr, HANG).startswith("watching ")
        os.mkfifo(folder / "20260101-000000-ffffffff.jsonl")
        time.sleep(0.3)  # let the watcher meet the FIFO before the record (order, not timing)
        with open(session, "ab") as fh:
            fh.write(line(live_user("u2", "u1", "after the fifo")))
        got = _readline(proc.stdout, HANG)
        assert got, "no event after a FIFO appeared under sessions/"
        events = [json.loads(got)]
        while events[-1].get("uuid") != "u2":
            nxt = _readline(proc.stdout, HANG)
            assert nxt, events
            events.append(json.loads(nxt))
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=HANG)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise AssertionError("watch ignored SIGTERM") from None
    assert rc == 0
    assert "Traceback" not in proc.stderr.read()


def test_watch_starts_with_fifo_registrations_and_intents(fixture_home):
    home, _ = fixture_home
    os.mkfifo(home / "active-sessions" / "20261130-000000-deadbeef.json")
    os.mkfifo(home / "file-intents" / "20261130-000000-deadbeef.json")
    proc = _watch(home)
    try:
        assert _readline(proc.stderr, HANG).startswith(("watching ", "sidtui: warning")), (
            "watch did not start"
        )
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            rc = proc.wait(timeout=HANG)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise AssertionError("watch ignored SIGINT") from None
    assert rc == 0


_APP_QUITS = """
import sys
from pathlib import Path
from sidtui.core.base.home import Home
from sidtui.tui.app import make_app

async def pilot(p):
    for _ in range(5):  # the browser's load and live workers, until none runs
        await p.app.workers.wait_for_complete()
        await p.pause()
    await p.press("ctrl+q")

app = make_app(Home(Path(sys.argv[1])), catalog_path=Path(sys.argv[2]))
app.run(headless=True, size=(120, 40), auto_pilot=pilot)
print("quit")
"""


def test_app_with_a_fifo_registration_quits_on_ctrl_q(fixture_home, tmp_path):
    home, _ = fixture_home
    os.mkfifo(home / "active-sessions" / "20261130-000000-deadbeef.json")
    os.mkfifo(home / "checkpoints" / "20261130-052911-4ee72b6a" / "index.json.fifo")
    r = run_bounded([str(home), str(tmp_path / "catalog.db")], code=_APP_QUITS, timeout=HANG)
    assert not r.hung, r
    assert r.rc == 0 and "quit" in r.out, r


# ------------------------------------------------------------------ symlink races


_SWAP_THEN_READ = """
import os, sys
from pathlib import Path
from sidtui.core.base.errors import SidtuiError
from sidtui.core.base.discover import discover
from sidtui.core.base.home import Home
from sidtui.core.views.session import open_session
from sidtui.core.checkpoints.manager import CheckpointManager
from sidtui.core.views.listing import summarize

home = Home(Path(sys.argv[1]))
sf = next(f for f in discover(home) if f.session_id == sys.argv[2])
mgr = CheckpointManager.for_session(home, sys.argv[2])
assert mgr.exists
fifo = Path(sys.argv[3])
# the race lost: both files become links to a FIFO after they were found
for p in (sf.path, mgr.index_path):
    p.unlink()
    p.symlink_to(fifo)
for what, call in (
    ("show", lambda: open_session(home, sf)),
    ("ls", lambda: summarize(home, sf)),
    ("index", lambda: mgr.index),
):
    try:
        call()
    except SidtuiError as exc:
        print(what, "refused:", exc)
    else:
        print(what, "read a FIFO")
"""


def test_files_swapped_for_a_fifo_after_discovery_are_refused(fixture_home, tmp_path):
    home, _ = fixture_home
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    r = run_bounded([str(home), S01, str(fifo)], code=_SWAP_THEN_READ, timeout=HANG)
    assert not r.hung, r
    assert r.rc == 0, r
    lines = r.out.splitlines()
    assert [ln.split()[0] for ln in lines] == ["show", "ls", "index"], r
    assert all("refused:" in ln and "not a regular file" in ln for ln in lines), r


_SWAPPER = """
import os, sys, time
target, regular, fifo = sys.argv[1:4]
tmp = target + ".swap"
end = time.monotonic() + float(sys.argv[4])
while time.monotonic() < end:
    for src in (fifo, regular):
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        os.symlink(src, tmp)
        os.replace(tmp, target)
"""


def test_reads_racing_a_swapper_never_hang(fixture_home, tmp_path):
    """A second process flips a session file between a regular file and a FIFO link while
    ``ls``/``show`` read it: each run reads the file, refuses it, or (looked up while it
    was a FIFO, listed again once it was not) finds no such session; none hangs."""
    home, _ = fixture_home
    target = home / "sessions" / WEBAPP / f"{S01}.jsonl"
    regular = tmp_path / "regular.jsonl"
    regular.write_bytes(target.read_bytes())
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    swapper = subprocess.Popen(
        [sys.executable, "-c", _SWAPPER, str(target), str(regular), str(fifo), "60"]
    )
    try:
        for argv in (["ls", "--no-cache"], ["show", S01], ["show", S01, "--json"]):
            r = run_bounded(["--home", str(home), *argv], timeout=HANG)
            assert not r.hung, (argv, r)
            assert "Traceback" not in r.err and "internal error" not in r.err, (argv, r)
            if r.rc != 0:  # lost the race: the file was a FIFO when opened or looked up
                refused = r.rc in (1, 2) and "not a regular file" in r.err
                unseen = r.rc == 2 and "no session matches" in r.err
                assert refused or unseen, (argv, r)
    finally:
        swapper.kill()
        swapper.wait()


# ------------------------------------------------------------------ gzip bombs


@pytest.fixture(scope="module")
def packed_zeros() -> bytes:
    """gzip(1 GiB of NUL bytes): ~1 MB, built in a second (one 1 MiB block compressed and
    repeated: after a full flush every block of the same bytes compresses the same)."""
    import struct

    c = zlib.compressobj(9, zlib.DEFLATED, -15)  # raw deflate: header and trailer below
    chunk = bytes(1 << 20)
    block = c.compress(chunk) + c.flush(zlib.Z_FULL_FLUSH)
    last = c.compress(chunk) + c.flush()
    crc = 0
    for _ in range(1024):
        crc = zlib.crc32(chunk, crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
    return header + block * 1023 + last + struct.pack("<II", crc, (1 << 30) & 0xFFFFFFFF)


@pytest.fixture
def gzip_bomb(packed_zeros) -> str:
    """base64 of the bomb (~1.4 MB of index text)."""
    return base64.b64encode(packed_zeros).decode("ascii")


def _bomb_session(root: Path, bomb: str):
    index = {
        "sessionId": "x",
        "createdAt": snapshot_ms(1),
        "nextId": 3,
        "snapshots": [
            {
                "id": "s1",
                "timestamp": snapshot_ms(1),
                "toolName": "write",
                "toolSummary": "@/big.txt, @/small.txt",
                "files": [
                    {
                        "filePath": "@/big.txt",
                        "existedBefore": True,
                        "type": "full",
                        "content": bomb,
                        "compressed": True,
                    },
                    {
                        "filePath": "@/small.txt",
                        "existedBefore": True,
                        "type": "full",
                        "content": "small before\n",
                        "compressed": False,
                    },
                ],
            },
            {
                "id": "s2",
                "timestamp": snapshot_ms(2),
                "toolName": "edit",
                "toolSummary": "@/big.txt",
                "files": [
                    {
                        "filePath": "@/big.txt",
                        "existedBefore": True,
                        "type": "diff",
                        "diff": {
                            "ops": [
                                {"type": "keep", "lines": [""]},
                                {"type": "add", "lines": ["x"]},
                            ]
                        },
                    }
                ],
            },
        ],
    }
    return checkpoint_session(root, index, {"big.txt": b"now\n", "small.txt": b"small now\n"})


BOMB_READERS = [
    (["checkpoints", "@"], 0),
    (["checkpoints", "@", "--json"], 0),
    (["checkpoints", "@", "--show", "big.txt@s1"], 1),
    (["restore", "@", "--before", "s1", "--dry-run"], 1),
    (["rewind", "@", "--to", "1", "--mode", "code", "--dry-run"], 1),
    (["check"], 1),
]


@pytest.mark.parametrize(
    ("argv", "rc"), BOMB_READERS, ids=lambda a: " ".join(a) if isinstance(a, list) else str(a)
)
def test_gzip_bomb_is_an_unrecoverable_entry_within_the_memory_ceiling(
    tmp_path, gzip_bomb, argv, rc
):
    home, project, sid = _bomb_session(tmp_path, gzip_bomb)
    before = _tree(project)
    r = run_bounded(["--home", str(home), *(sid if a == "@" else a for a in argv)], timeout=HANG)
    _ok(r, rc)
    text = r.out + r.err
    assert "MemoryError" not in text
    if argv[0] != "check":
        assert "big.txt" in text and ("limit" in text or "✗" in text), r
    if argv[0] in ("restore", "rewind"):
        assert "small.txt" in r.out  # the other file is still restored
    assert _tree(project) == before


@pytest.mark.parametrize("argv", [BOMB_READERS[1][0], BOMB_READERS[3][0]], ids=["json", "restore"])
def test_a_bomb_with_a_lying_size_stops_at_the_limit(tmp_path, packed_zeros, argv):
    """The gzip trailer's size zeroed: only the incremental limit stops the unpacking."""
    lying = base64.b64encode(packed_zeros[:-4] + bytes(4)).decode("ascii")
    home, project, sid = _bomb_session(tmp_path, lying)
    r = run_bounded(["--home", str(home), *(sid if a == "@" else a for a in argv)], timeout=HANG)
    _ok(r, 0 if argv[0] == "checkpoints" else 1)
    assert "unpacks to more than" in r.out + r.err, r


def test_gzip_bomb_ceiling_is_configurable(tmp_path):
    data = ("line of text\n" * 20_000).encode()
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
    home, _, sid = checkpoint_session(tmp_path, index, {"a.txt": b"x\n"})
    argv = ["--home", str(home), "checkpoints", sid, "--show", "a.txt@s1"]
    r = run_bounded(argv, timeout=HANG)  # 260 KB from 2 KB: within the default allowance
    _ok(r, 0)
    assert r.out.encode() == data
    r = run_bounded(argv, timeout=HANG, env={"SIDTUI_MAX_INFLATE_BYTES": "100000"})
    _ok(r, 1)
    assert "SIDTUI_MAX_INFLATE_BYTES" in r.err, r


# ------------------------------------------------------------------ sparse and NUL files

SPARSE = 4 << 30  # apparent size of the sparse session


@pytest.fixture
def sparse_home(fixture_home):
    """S01 with its file grown to 4 GiB apparent by a hole (a NUL tail, no newline)."""
    home, projects = fixture_home
    p = home / "sessions" / WEBAPP / f"{S01}.jsonl"
    size = p.stat().st_size
    os.truncate(p, SPARSE)
    return home, p, size


SPARSE_READERS = [
    (["ls", "--no-cache"], 0),
    (["ls"], 0),
    (["ls", "--json", "--no-cache"], 0),
    (["show", S01], 0),
    (["show", S01, "--json"], 0),
    (["check", "--session", S01], 0),
    (["search", "login"], 0),
    (["rewind", S01], 0),
]


@pytest.mark.parametrize(
    ("argv", "rc"), SPARSE_READERS, ids=lambda a: " ".join(a) if isinstance(a, list) else str(a)
)
def test_sparse_session_is_read_by_content(sparse_home, argv, rc):
    home, _, size = sparse_home
    r = run_bounded(["--home", str(home), *argv], timeout=HANG)
    _ok(r, rc)
    assert S01 in r.out or argv[0] in ("search", "rewind"), r
    if argv[0] == "show":
        bad = str(SPARSE - size)
        assert bad in r.out + r.err, r  # the NUL run is one bad line, with its length


def test_nul_run_between_records_is_one_bad_line(tmp_path):
    sid = "20260101-000000-aaaaaaaa"
    folder = tmp_path / "h" / "sessions" / "proj"
    folder.mkdir(parents=True)
    p = folder / f"{sid}.jsonl"
    head = line(live_start()) + line(live_user("u1", "u0", "before the hole"))
    with open(p, "wb") as fh:
        fh.write(head)
        fh.seek(len(head) + (64 << 20))  # line 3: a 64 MiB hole
        fh.write(b"\n" + line(live_user("u2", "u1", "after the hole")))
    r = run_bounded(["--home", str(tmp_path / "h"), "show", sid, "--json"], timeout=HANG)
    _ok(r, 0)
    doc = json.loads(r.out)
    assert [b["line"] for b in doc["bad_lines"]] == [3]
    assert doc["bad_lines"][0]["reason"].startswith(f"{64 << 20} NUL bytes")
    assert [m["uuid"] for m in doc["messages"]][-1] == "u2"


def test_a_line_above_the_ceiling_is_one_bad_line(tmp_path):
    sid = "20260101-000000-aaaaaaaa"
    folder = tmp_path / "h" / "sessions" / "proj"
    folder.mkdir(parents=True)
    p = folder / f"{sid}.jsonl"
    big = b'{"type":"metadata","key":"x","value":"' + b"a" * (3 << 20) + b'"}\n'
    p.write_bytes(line(live_start()) + big + line(live_user("u1", "u0")))
    argv = ["--home", str(tmp_path / "h"), "show", sid, "--json"]
    r = run_bounded(argv, timeout=HANG, env={"SIDTUI_MAX_LINE_BYTES": str(1 << 20)})
    _ok(r, 0)
    doc = json.loads(r.out)
    assert [b["line"] for b in doc["bad_lines"]] == [2]
    assert doc["bad_lines"][0]["reason"].startswith(f"{len(big) - 1} bytes")
    assert "SIDTUI_MAX_LINE_BYTES" in doc["bad_lines"][0]["reason"]
    r = run_bounded(argv, timeout=HANG)  # 3 MiB is far below the default ceiling
    _ok(r, 0)
    assert json.loads(r.out)["bad_lines"] == []


# ------------------------------------------------------------------ huge indexes


def test_index_above_the_ceiling_is_refused_without_reading_it(fixture_home):
    home, projects = fixture_home
    index = home / "checkpoints" / S01 / "index.json"
    with open(index, "r+b") as fh:
        fh.truncate(1 << 30)  # 1 GiB apparent (a hole after the JSON)
    before = _tree(projects)
    for argv in (["checkpoints", S01], ["undo", S01, "--dry-run"], ["check", "--session", S01]):
        r = run_bounded(["--home", str(home), *argv], timeout=HANG)
        _ok(r, 1)
        assert "SIDTUI_MAX_INDEX_BYTES" in r.err + r.out, (argv, r)
    assert _tree(projects) == before


def test_index_ceiling_is_configurable(fixture_home):
    home, _ = fixture_home
    size = (home / "checkpoints" / S01 / "index.json").stat().st_size
    argv = ["--home", str(home), "checkpoints", S01, "--json"]
    r = run_bounded(argv, timeout=HANG, env={"SIDTUI_MAX_INDEX_BYTES": str(size - 1)})
    _ok(r, 1)
    assert f"{size:,}" in r.err or str(size) in r.err, r
    r = run_bounded(argv, timeout=HANG, env={"SIDTUI_MAX_INDEX_BYTES": str(size)})
    _ok(r, 0)


def test_a_long_non_json_last_line_is_a_bad_line_on_every_path(tmp_path, monkeypatch):
    """ls, search indexing and check read a file above the line ceiling in pieces: the
    line is one bad line with its length, never decoded or copied whole."""
    sid = "20260101-000000-aaaaaaaa"
    folder = tmp_path / "h" / "sessions" / "proj"
    folder.mkdir(parents=True)
    p = folder / f"{sid}.jsonl"
    p.write_bytes(line(live_start()) + line(live_user("u1", "u0", "hello there")) + b"a" * 5000)
    env = {"SIDTUI_MAX_LINE_BYTES": "1000"}
    monkeypatch.setenv("SIDTUI_MAX_LINE_BYTES", "1000")
    data, _ = read_file(p)  # above the line ceiling: in pieces, so the ceiling applies
    assert isinstance(data, FileSource)
    data._f.close()
    h = ["--home", str(tmp_path / "h")]
    r = run_bounded([*h, "check", "--session", sid, "--json"], timeout=HANG, env=env)
    assert "5000 bytes, more than the 1000" in r.out, r
    r = run_bounded([*h, "ls", "--no-cache", "--json"], timeout=HANG, env=env)
    _ok(r, 0)
    assert sid in r.out
    r = run_bounded([*h, "search", "hello"], timeout=HANG, env=env)
    _ok(r, 0)
    assert sid in r.out or "hello" in r.out, r


@pytest.mark.parametrize(
    "argv", [["show"], ["rewind"], ["checkpoints"], ["undo", "--dry-run"]], ids=str
)
def test_a_folder_in_place_of_a_transcript_is_named_by_id(fixture_home, capsys, argv):
    """As a FIFO there is: `cannot read PATH: a folder, not a file`, exit 1 — not 'no
    session matches', nor an undo that goes on without its transcript."""
    from sidtui.cli import main

    home, _ = fixture_home
    path = home / "sessions" / WEBAPP / f"{S01}.jsonl"
    path.unlink()
    path.mkdir()
    rc = main(["--home", str(home), argv[0], S01, *argv[1:]])
    err = capsys.readouterr().err
    assert rc == 1 and err.strip() == f"sidtui: error: cannot read {path}: a folder, not a file"

"""The tests' one helpers module: fixture paths and builders for hand-made transcripts/homes.

Test modules import from here (``from tests.helpers import ...``), never from ``conftest`` or
another test module; pytest fixtures stay in ``conftest.py``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import orjson
from hypothesis import strategies as st

from sidtui.core.base.jsonout import stringify

REPO = Path(__file__).resolve().parent.parent
# Vendored test data (tests/fixtures/README.md): nothing outside the repository is read.
FIXTURES = REPO / "tests" / "fixtures"
REAL_HOME = FIXTURES / "real-home"
REAL_ORACLE = FIXTURES / "real-home-oracle"
REAL_PROJECTS = FIXTURES / "real-projects"
FIXTURE_PREFIX = "/tmp/sidtui-fixture-projects"


def remap_fixture_paths(home: Path, projects_root: Path) -> None:
    """Rewrite ``/tmp/sidtui-fixture-projects`` to ``projects_root`` in every home file."""
    old = FIXTURE_PREFIX.encode()
    new = str(projects_root).encode()
    for p in home.rglob("*"):
        if p.is_file():
            data = p.read_bytes()
            if old in data:
                p.write_bytes(data.replace(old, new))


def copy_real_home(dst: Path, projects: Path | None = None) -> Path:
    """Copy the real-home fixture to ``dst`` (and real-projects to ``projects``, remapped)."""
    shutil.copytree(REAL_HOME, dst)
    if projects is not None:
        shutil.copytree(REAL_PROJECTS, projects, symlinks=True)
        remap_fixture_paths(dst, projects)
    return dst


def settle_s01_drift(projects: Path) -> None:
    """Put back ``webapp/src/login.ts`` as S01 left it (S05, a fork of S01, edited it after):
    for a test of something else, S01's undo or code rewind then needs no ``--force``."""
    oracle = orjson.loads(
        (REAL_ORACLE / "checkpoints/20261130-052911-4ee72b6a/index.json.oracle.json").read_bytes()
    )
    s4 = next(s for s in oracle["snapshots"] if s["id"] == "s4")
    truth = next(v for k, v in s4["files"].items() if k.endswith("/src/login.ts"))
    (projects / "webapp" / "src" / "login.ts").write_text(truth["truthAtSnapshotTime"]["content"])


def rec(type_: str, uuid: str | None, parent: str | None, **fields) -> dict:
    d = {"type": type_, **fields}
    if uuid is not None:
        d["uuid"] = uuid
        d["parentUuid"] = parent
    return d


def start(uuid="S", parent=None, sid="20260101-000000-aaaaaaaa", **kw) -> dict:
    return rec(
        "session_start",
        uuid,
        parent,
        version="3.0",
        sessionId=sid,
        model="m",
        provider="p",
        cwd="/tmp/x",
        timestamp="2026-01-01T00:00:00.000Z",
        **kw,
    )


def user(uuid, parent, text="hi") -> dict:
    return rec(
        "user_message",
        uuid,
        parent,
        message={"role": "user", "content": [{"type": "text", "text": text}]},
    )


def tool_results(uuid, parent, *ids) -> dict:
    return rec(
        "user_message",
        uuid,
        parent,
        message={
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": i, "content": "ok"} for i in ids],
        },
    )


def assistant(uuid, parent, text="ok", tools=(), thinking=None) -> dict:
    content = []
    if thinking is not None:
        content.append({"type": "thinking", "thinking": thinking})
    if text is not None:
        content.append({"type": "text", "text": text})
    for tid, name in tools:
        content.append({"type": "tool_use", "id": tid, "name": name, "input": {}})
    return rec("assistant_message", uuid, parent, message={"role": "assistant", "content": content})


def jsonl(*records) -> bytes:
    out = []
    for r in records:
        out.append(r if isinstance(r, bytes) else stringify(r))
    return b"\n".join(out) + b"\n"


# ---------------------------------------------------------------- live-layer records
# Plausible v3 records with timestamps, compact orjson lines, and a tiny home (the live tests).

SID = "20260101-000000-aaaaaaaa"


def line(d: dict) -> bytes:
    return orjson.dumps(d) + b"\n"


def live_start(uuid: str = "u0", sid: str = SID, parent: str | None = None) -> dict:
    return {
        "type": "session_start",
        "version": "3.0",
        "sessionId": sid,
        "model": "m",
        "provider": "p",
        "cwd": "/tmp/x",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "uuid": uuid,
        "parentUuid": parent,
    }


def live_user(uuid: str, parent: str | None, text: str = "hello") -> dict:
    return {
        "type": "user_message",
        "uuid": uuid,
        "parentUuid": parent,
        "timestamp": "2026-01-01T00:00:01.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
    }


def live_assistant(
    uuid: str,
    parent: str | None,
    text: str = "ok",
    tool: str | None = None,
    path: str | None = None,
) -> dict:
    content: list[dict] = [{"type": "text", "text": text}]
    if tool:
        content.append(
            {
                "type": "tool_use",
                "id": f"t-{uuid}",
                "name": tool,
                "input": {"file_path": path or "/tmp/x/a.py"},
            }
        )
    return {
        "type": "assistant_message",
        "uuid": uuid,
        "parentUuid": parent,
        "timestamp": "2026-01-01T00:00:02.000Z",
        "message": {"role": "assistant", "content": content},
    }


def make_home(root: Path, sessions: dict[str, bytes], project: str = "proj") -> Path:
    """A home with ``sessions/<project>/<id>.jsonl`` for each item."""
    d = root / "sessions" / project
    d.mkdir(parents=True, exist_ok=True)
    for sid, data in sessions.items():
        (d / f"{sid}.jsonl").write_bytes(data)
    for sub in ("active-sessions", "file-intents", "checkpoints"):
        (root / sub).mkdir(exist_ok=True)
    return root


def dead_pid() -> int:
    """A PID that is certainly not running now (a child we started and reaped)."""
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def neutralize_fixture_pids(home: Path) -> None:
    """Never trust fixture PIDs: point every registration/intent at a reaped child."""
    pid = dead_pid()
    for sub in ("active-sessions", "file-intents"):
        for p in (home / sub).glob("*.json"):
            d = orjson.loads(p.read_bytes())
            if isinstance(d, dict) and "pid" in d:
                d["pid"] = pid
                p.write_bytes(orjson.dumps(d))


# ---------------------------------------------------------------- loader-scan property tests
# Messages of every shape the loader's scan must classify (odd ids, content, modes, _meta).

SCAN_SLOTS = ("uses", "use_pos", "results", "result_pos", "modes", "shells", "names_ok", "count")
_ids = st.sampled_from(["t1", "t2", "t3", None, "", 0, ["x"]])
_block = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": st.sampled_from(["hi", " ", ""])}),
    st.fixed_dictionaries({"type": st.just("thinking"), "thinking": st.just("hm")}),
    st.just({"type": "redacted_thinking"}),
    st.fixed_dictionaries(
        {"type": st.just("tool_use"), "id": _ids, "name": st.sampled_from(["Read", "", None])}
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("tool_result"),
            "tool_use_id": _ids,
            "content": st.just([{"type": "text", "text": "out"}]),
        }
    ),
    st.fixed_dictionaries({"type": st.sampled_from(["image", None, ["odd"], 3])}),
)
_content = st.one_of(st.lists(_block, max_size=4), st.sampled_from(["plain text", "  "]))
record_specs = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["user_message", "assistant_message", "tool_result", "metadata"]),
        "role": st.sampled_from(["user", "assistant"]),
        "content": _content,
        "meta": st.sampled_from([None, {}, {"permissionMode": "yolo"}]),
        "mode": st.sampled_from([None, None, "default", "plan", "nope"]),
    }
)


def spec_transcript(specs) -> bytes:
    """A linear v3 transcript from ``record_specs`` draws (one record per spec)."""
    lines = [
        {
            "type": "session_start",
            "uuid": "u0",
            "parentUuid": None,
            "sessionId": "s",
            "version": "3.0",
            "timestamp": "2026-01-01T00:00:00.000Z",
        }
    ]
    for i, spec in enumerate(specs, 1):
        rec = {
            "type": spec["type"],
            "uuid": f"u{i}",
            "parentUuid": f"u{i - 1}",
            "timestamp": f"2026-01-01T00:00:{i % 60:02d}.000Z",
        }
        if spec["type"] == "metadata":
            rec.update(key="session_name", value="x")
        else:
            msg = {"role": spec["role"], "content": spec["content"]}
            if spec["meta"] is not None:
                msg["_meta"] = spec["meta"]
            rec["message"] = msg
            if spec["mode"] is not None:
                rec["permissionMode"] = spec["mode"]
        lines.append(rec)
    return b"".join(orjson.dumps(r) + b"\n" for r in lines)


# ---------------------------------------------------------------- Claude Code records
# Records in the shapes Claude Code writes (docs/CLAUDE-CODE.md §3–4), for the cases the
# vendored transcripts (tests/fixtures/claude-code/) do not cover.

CLAUDE_HOME = FIXTURES / "claude-code"
CC_PROJECTS = CLAUDE_HOME / "projects"
CC_SESSION = "11111111-2222-4333-8444-555555555555"


def cc_path(rel: str) -> Path:
    """A vendored Claude Code transcript by its path under ``projects/``."""
    return CC_PROJECTS / rel


def cc_ts(n: float) -> str:
    """An ISO timestamp ``n`` seconds after 2026-01-01T00:00:00Z, as Claude Code writes it."""
    from datetime import UTC, datetime, timedelta

    t = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=n)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def cc_rec(type_: str, uuid: str | None, parent: str | None, ts: float = 0, **kw) -> dict:
    d: dict = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/tmp/cc"}
    d.update(sessionId=CC_SESSION, version="2.1.114", type=type_)
    if uuid is not None:
        d["uuid"] = uuid
    else:
        d.pop("parentUuid")
    d["timestamp"] = cc_ts(ts)
    d.update(kw)
    return d


def cc_user(uuid: str, parent: str | None, text: str = "hi", ts: float = 0, **kw) -> dict:
    return cc_rec("user", uuid, parent, ts, message={"role": "user", "content": text}, **kw)


def cc_results(uuid: str, parent: str | None, *tool_ids: str, ts: float = 0, **kw) -> dict:
    content = [{"tool_use_id": t, "type": "tool_result", "content": "ok"} for t in tool_ids]
    return cc_rec("user", uuid, parent, ts, message={"role": "user", "content": content}, **kw)


def cc_assistant(
    uuid: str,
    parent: str | None,
    text: str | None = "ok",
    ts: float = 0,
    msg_id: str | None = None,
    tools: tuple = (),
    **kw,
) -> dict:
    """An assistant line: one text block and/or ``tools`` = ``(id, name)`` tool uses."""
    content: list = []
    if text is not None:
        content.append({"type": "text", "text": text})
    for tid, name in tools:
        content.append({"type": "tool_use", "id": tid, "name": name, "input": {}})
    msg = {
        "model": "claude-opus-4-5",
        "id": msg_id or f"msg_{uuid}",
        "type": "message",
        "role": "assistant",
        "content": content,
        "stop_reason": None,
    }
    return cc_rec("assistant", uuid, parent, ts, message=msg, **kw)


def cc_progress(uuid: str, parent: str | None, ts: float = 0) -> dict:
    data = {"type": "hook_progress", "hookEvent": "PostToolUse", "hookName": "PostToolUse:Bash"}
    return cc_rec("progress", uuid, parent, ts, data=data, parentToolUseID="t", toolUseID="t")


def cc_system(
    uuid: str, parent: str | None, subtype: str = "turn_duration", ts: float = 0, **kw
) -> dict:
    return cc_rec("system", uuid, parent, ts, subtype=subtype, isMeta=False, **kw)


def cc_boundary(uuid: str, logical: str | None, ts: float = 0) -> dict:
    return cc_system(
        uuid,
        None,
        "compact_boundary",
        ts,
        content="Conversation compacted",
        logicalParentUuid=logical,
        compactMetadata={"trigger": "auto", "preTokens": 1000},
    )


def cc_lines(*records) -> bytes:
    """JSONL as Claude Code writes it (``JSON.stringify`` + ``\\n``); bytes pass as given."""
    return b"".join((r if isinstance(r, bytes) else stringify(r)) + b"\n" for r in records)


def cc_home(root: Path, projects: dict[str, dict[str, bytes]]) -> Path:
    """A Claude Code home: ``projects/<folder>/<relative path>`` = bytes."""
    for folder, files in projects.items():
        for rel, data in files.items():
            p = root / "projects" / folder / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
    return root


# ---------------------------------------------------------------- hostile input
# The CLI in a child process under a timeout, with its own peak memory (a hang or a
# blow-up is the failure, so it must not take the test run with it).

#: Peak resident memory (bytes) any read of a hostile home may reach (docs/DECISIONS.md,
#: "Reading a hostile disk"): generous, far below what the unbounded reads needed.
HOSTILE_RSS_CEILING = 512 << 20
#: Address-space limit of the child: a blow-up ends in MemoryError instead of eating the
#: machine (a guard for the test run, not the ceiling asserted).
HOSTILE_AS_LIMIT = 3 << 30


class Bounded:
    """What :func:`run_bounded` saw: ``rc``, ``out``, ``err`` (text), ``hung`` (killed at the
    timeout), ``peak_rss`` (bytes, the child's ``ru_maxrss``)."""

    def __init__(self, rc: int, out: str, err: str, hung: bool, peak_rss: int) -> None:
        self.rc, self.out, self.err, self.hung, self.peak_rss = rc, out, err, hung, peak_rss

    def __repr__(self) -> str:
        return (
            f"Bounded(rc={self.rc}, hung={self.hung}, peak_rss={self.peak_rss >> 20} MiB, "
            f"err={self.err[-600:]!r}, out={self.out[:300]!r})"
        )


# The child is started through this small launcher: a child forked straight from a test
# worker reports the worker's own peak RSS (Linux carries the parent's high-water mark over
# fork and exec), so a worker grown by earlier tests failed every memory bound after it.
_LAUNCH = r"""
import os, signal, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.executable, [sys.executable, *sys.argv[2:]])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as fh:
    fh.write(str(usage.ru_maxrss))
if os.WIFSIGNALED(status):
    signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(status))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def cc_project_folder(cwd: Path | str) -> str:
    """A Claude Code project folder name for ``cwd`` (``/a/b.c`` → ``-a-b-c``), cut to 200
    characters plus a hash of the whole when longer: a folder name holds at most 255 bytes,
    and a test's temporary folder may be nested deep. (sidtui finds a Claude Code session
    by id in any project folder; it never derives the folder from the cwd.)"""
    import hashlib
    import re

    slug = re.sub(r"[^A-Za-z0-9]", "-", str(cwd))
    if len(slug) <= 200:
        return slug
    return f"{slug[:200]}-{hashlib.sha256(slug.encode()).hexdigest()[:8]}"


def run_bounded(
    argv: list[str],
    *,
    timeout: float = 60.0,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    code: str | None = None,
) -> Bounded:
    """Run ``python -m sidtui ARGV`` (or ``python -c CODE ARGV``) in a child, killed after
    ``timeout`` seconds; its own peak RSS from ``wait4`` (through a small launcher, see
    ``_LAUNCH``). stdout/stderr go to files (a full pipe must not block the child)."""
    import os
    import resource
    import signal
    import tempfile

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (HOSTILE_AS_LIMIT, HOSTILE_AS_LIMIT))

    args = ["-c", code, *argv] if code else ["-m", "sidtui", *argv]
    # no COLUMNS/LINES: the child prints as to a pipe (tables 200 wide, text unwrapped)
    # unless ``env`` asks for a width
    full_env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    full_env.update({"PYTHONUNBUFFERED": "1", **(env or {})})
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.TemporaryDirectory() as box,
    ):
        peak_file = Path(box) / "peak"
        proc = subprocess.Popen(
            [sys.executable, "-c", _LAUNCH, str(peak_file), *args],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            env=full_env,
            cwd=cwd,
            preexec_fn=limit,
            start_new_session=True,  # a timeout kills the launcher and the child together
        )
        try:
            proc.wait(timeout)
            hung = False
        except subprocess.TimeoutExpired:
            hung = True
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        peak_kib = int(peak_file.read_text() or 0) if peak_file.is_file() else 0
        out.seek(0)
        err.seek(0)
        return Bounded(
            proc.returncode,
            out.read().decode("utf-8", "replace"),
            err.read().decode("utf-8", "replace"),
            hung,
            peak_kib * 1024,  # KiB on Linux
        )


def checkpoint_session(
    root: Path,
    index: dict,
    files: dict[str, bytes],
    sid: str = "20260102-030405-c0ffee00",
    prompts: int = 2,
) -> tuple[Path, Path, str]:
    """A home with one session whose project (``root/proj``, a git top level) holds ``files``
    and whose ``checkpoints/<sid>/index.json`` is ``index`` (``"@/"`` in any string is the
    project folder), with ``prompts`` human prompts one minute apart from 2026-01-02 03:00Z
    (snapshot timestamps: ms of that day). Returns ``(home, project, sid)``."""
    project = root / "proj"
    (project / ".git").mkdir(parents=True)
    for rel, data in files.items():
        p = project / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    home = root / "home"
    recs = [
        {
            "type": "session_start",
            "version": "3.0",
            "sessionId": sid,
            "model": "m",
            "provider": "p",
            "cwd": str(project),
            "timestamp": "2026-01-02T03:00:00.000Z",
            "uuid": "u0",
            "parentUuid": None,
        }
    ]
    for n in range(prompts):
        recs.append(
            {
                "type": "user_message",
                "uuid": f"p{n}",
                "parentUuid": recs[-1]["uuid"],
                "timestamp": f"2026-01-02T03:{n + 1:02d}:00.000Z",
                "message": {"role": "user", "content": [{"type": "text", "text": f"prompt {n}"}]},
            }
        )
        recs.append(
            {
                "type": "assistant_message",
                "uuid": f"a{n}",
                "parentUuid": f"p{n}",
                "timestamp": f"2026-01-02T03:{n + 1:02d}:30.000Z",
                "message": {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
            }
        )
    make_home(home, {sid: b"".join(line(r) for r in recs)})
    raw = orjson.dumps(index).replace(b"@/", str(project).encode() + b"/")
    idx = home / "checkpoints" / sid / "index.json"
    idx.parent.mkdir(parents=True)
    idx.write_bytes(raw)
    return home, project, sid


def snapshot_ms(minute: int, second: int = 45) -> int:
    """ms timestamp of 2026-01-02T03:MM:SSZ (the prompts of :func:`checkpoint_session`)."""
    from datetime import UTC, datetime

    t = datetime(2026, 1, 2, 3, minute, second, tzinfo=UTC)
    return int(t.timestamp() * 1000)


# --------------------------------------------------------------------------- oracle cases

#: Regression cases of the differential loop: ``<class>/<name>.<ext>`` inputs, each beside
#: ``<name>.<ext>.oracle.json``, the agent's loader's output for it (tests/fixtures/README.md).
ORACLE_CASES = FIXTURES / "oracle-cases"


def oracle_cases() -> list[Path]:
    """Every vendored case's ``.oracle.json`` file, sorted."""
    return sorted(ORACLE_CASES.glob("*/*.oracle.json"))


def oracle_case_input(oracle_json: Path) -> tuple[str, bytes]:
    """``(file name, bytes)`` of the input the oracle read for ``oracle_json``.

    A big case (past the agent's 4 MiB line) is stored as its small core
    (``<name>.core.jsonl``) and ``<name>.big.json`` (where the filler goes, how long it is,
    the unit repeated); the exact bytes are rebuilt here.
    """
    name = oracle_json.name[: -len(".oracle.json")]
    folder = oracle_json.parent
    plain = folder / name
    if plain.exists():
        return name, plain.read_bytes()
    stem = name[: -len(".jsonl")]
    core = (folder / f"{stem}.core.jsonl").read_bytes()
    spec = orjson.loads((folder / f"{stem}.big.json").read_bytes())
    at, n, unit = spec["insert_at"], spec["length"], spec["filler"].encode()
    data = core[:at] + (unit * (n // len(unit) + 1))[:n] + core[at:]
    assert len(data) == spec["size"], f"{oracle_json}: rebuilt {len(data)} bytes"
    return name, data


def oracle_case_disagreements(oracle_json: Path, tmp: Path) -> list[str]:
    """What sidtui says differently from the vendored oracle output for one case, judged
    as the differential loop judges (``scripts/difftest/compare.py``); differences kept on
    purpose (docs/DECISIONS.md) are left out."""
    from scripts.difftest.compare import compare, sidtui_view

    name, data = oracle_case_input(oracle_json)
    path = tmp / oracle_json.parent.name / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    # (as the loop reads the loader's output: its text may hold a lone surrogate, which
    # orjson refuses)
    import json

    oracle = json.loads(oracle_json.read_bytes().decode("utf-8", "surrogatepass"))
    return [f"{d.key}: {d.detail}" for d in compare(oracle, sidtui_view(path), data) if not d.known]


# ---------------------------------------------------------------- Claude Code file history
# Snapshot, update and delta records in the shapes Claude Code writes (docs/CLAUDE-CODE.md
# §4.7; the update shape as in the vendored spotter transcripts), and their blobs.


def cc_blob_name(abs_path: str, version: int) -> str:
    """``sha256(absolute path)[:16]@v<n>``: a backup's file name."""
    import hashlib

    return hashlib.sha256(abs_path.encode()).hexdigest()[:16] + f"@v{version}"


def cc_backup(name: str | None, version: int = 1, ts: float = 0) -> dict:
    return {"backupFileName": name, "version": version, "backupTime": cc_ts(ts)}


def cc_snapshot(
    prompt: str, backups: dict, ts: float = 0, update: bool = False, editor: str | None = None
) -> dict:
    """A ``file-history-snapshot``: ``prompt`` is the prompt's uuid (``snapshot.messageId``);
    an update carries the editing assistant record's uuid (``editor``) at the top."""
    return {
        "type": "file-history-snapshot",
        "messageId": editor if update and editor else prompt,
        "snapshot": {"messageId": prompt, "trackedFileBackups": backups, "timestamp": cc_ts(ts)},
        "isSnapshotUpdate": update,
    }


def cc_delta(prompt: str, path: str, backup: dict, ts: float = 0, editor: str = "x") -> dict:
    """A ``file-history-delta`` (2.1.220 on) back-filling ``path`` into ``prompt``'s snapshot."""
    return {
        "type": "file-history-delta",
        "messageId": editor,
        "snapshotMessageId": prompt,
        "trackingPath": path,
        "backup": backup,
        "timestamp": cc_ts(ts),
    }


def cc_blobs(home: Path, session: str, blobs: dict[str, bytes]) -> Path:
    """``file-history/<session>/<name>`` = bytes."""
    folder = home / "file-history" / session
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in blobs.items():
        (folder / name).write_bytes(data)
    return folder


def set_mtime(path: Path, iso_n: float) -> None:
    """Give ``path`` the mtime ``cc_ts(iso_n)`` (a file last written during the session)."""
    import os
    from datetime import UTC, datetime, timedelta

    t = (datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=iso_n)).timestamp()
    os.utime(path, (t, t), follow_symlinks=False)


def cc_edit_session(home: Path, project: Path, session: str = CC_SESSION) -> dict:
    """A Claude Code session with three prompts that edit files of ``project``, its
    checkpoints (a snapshot per prompt, updates, a delta) and blobs, and the files as the
    session left them (mtimes inside the session).

    Prompt 1 edits ``a.txt`` (A0 → A1); prompt 2 edits ``a.txt`` (→ A2), creates ``new.txt``
    and edits ``b.txt`` (B0 → B1, back-filled by a delta); prompt 3 edits ``a.txt`` (→ A3).

    Returns:
        ``{"path": transcript, "a"/"b"/"new": files, "cwd": str, "blobs": {"a1": name, …}}``;
        the prompts' uuids are ``u1``, ``u2``, ``u3``.
    """
    project.mkdir(parents=True, exist_ok=True)
    cwd = str(project)
    a, b, n = project / "a.txt", project / "b.txt", project / "new.txt"
    an = {v: cc_blob_name(str(a), v) for v in (1, 2, 3)}
    bn = {v: cc_blob_name(str(b), v) for v in (1, 2)}
    nn = cc_blob_name(str(n), 2)
    kw = {"cwd": cwd, "sessionId": session}

    def tool(uid, parent, tid, ts, name="Edit"):
        return cc_assistant(uid, parent, None, ts, tools=((tid, name),), **kw)

    recs = [
        cc_snapshot("u1", {}, 10),
        cc_user("u1", None, "edit a", 10, **kw),
        tool("a1", "u1", "t1", 11),
        cc_snapshot("u1", {"a.txt": cc_backup(an[1], 1, 11)}, 10, update=True, editor="a1"),
        cc_results("r1", "a1", "t1", ts=12, **kw),
        cc_assistant("a1b", "r1", "done 1", 13, **kw),
        cc_snapshot("u2", {"a.txt": cc_backup(an[2], 2, 20)}, 20),
        cc_user("u2", "a1b", "edit all", 20, **kw),
        tool("a2", "u2", "t2", 21, "Write"),
        cc_snapshot(
            "u2",
            {"a.txt": cc_backup(an[2], 2, 20), "new.txt": cc_backup(None, 1, 21)},
            20,
            update=True,
            editor="a2",
        ),
        cc_results("r2", "a2", "t2", ts=22, **kw),
        tool("a3", "r2", "t3", 23),
        cc_delta("u2", "b.txt", cc_backup(bn[1], 1, 23), 23, editor="a3"),
        cc_results("r3", "a3", "t3", ts=24, **kw),
        cc_assistant("a3b", "r3", "done 2", 25, **kw),
        cc_snapshot(
            "u3",
            {
                "a.txt": cc_backup(an[3], 3, 30),
                "new.txt": cc_backup(nn, 2, 30),
                "b.txt": cc_backup(bn[2], 2, 30),
            },
            30,
        ),
        cc_user("u3", "a3b", "edit a again", 30, **kw),
        tool("a4", "u3", "t4", 31),
        cc_results("r4", "a4", "t4", ts=32, **kw),
        cc_assistant("a4b", "r4", "done 3", 40, **kw),
    ]
    path = home / "projects" / cc_project_folder(cwd) / f"{session}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(cc_lines(*recs))
    cc_blobs(
        home,
        session,
        {
            an[1]: b"A0\n",
            an[2]: b"A1\n",
            an[3]: b"A2\n",
            bn[1]: b"B0\n",
            bn[2]: b"B1\n",
            nn: b"N\n",
        },
    )
    for f, data in ((a, b"A3\n"), (b, b"B1\n"), (n, b"N\n")):
        f.write_bytes(data)
        set_mtime(f, 35)
    names = {f"a{v}": an[v] for v in an} | {f"b{v}": bn[v] for v in bn} | {"new2": nn}
    return {"path": path, "a": a, "b": b, "new": n, "cwd": cwd, "blobs": names}


# ---------------------------------------------------------------- reading paths


def _reading_shape(rf) -> tuple:
    recs = [
        (r.index, r.line, r.offset, r.end, r.type, r.uuid, r.parent, r.is_object)
        for r in rf.records
    ]
    bad = [(b.line, b.offset, b.length, b.reason, b.terminated) for b in rf.bad_lines]
    links = {k: tuple(map(str, v)) for k, v in rf.odd_links.items()}
    raws = [rf.raw(r) for r in rf.records]
    return recs, bad, raws, rf.blank_lines, rf.line_count, rf.ends_with_newline, links, rf.trimmed


def _piece_source(tmp, data: bytes):
    from sidtui.core.transcript.source import FileSource

    p = tmp / "s.jsonl"
    p.write_bytes(data)
    return FileSource(p, open(p, "rb", buffering=0), len(data))


def reading_paths(tmp, data: bytes, piece: int, streamed: bool) -> dict[str, tuple]:
    """Every way sidtui reads ``data``'s lines, each as a comparable shape: ``whole`` (one
    buffer, fast decode), in pieces of ``piece`` bytes (``FileSource``), and each of them
    line by line (the per-line scan from the start). ``streamed``: the agent's reader."""
    import pytest

    from sidtui.core.transcript import source as transcript_source
    from sidtui.core.transcript import tolerant
    from sidtui.core.transcript.scan import scan_records

    got = {}
    with pytest.MonkeyPatch.context() as m:
        got["whole"] = _reading_shape(scan_records(data, streamed=streamed))
        m.setattr(transcript_source, "PIECE_MIN_BYTES", 1)
        m.setattr(transcript_source, "PIECE_BYTES", piece)
        got["whole, small runs"] = _reading_shape(scan_records(data, streamed=streamed))
        got["pieces"] = _reading_shape(scan_records(_piece_source(tmp, data), streamed=streamed))
        m.setattr(tolerant, "_whole_lines", lambda *a: None)
        got["pieces, line by line"] = _reading_shape(
            scan_records(_piece_source(tmp, data), streamed=streamed)
        )
        # the per-line scan from the start: what any odd line anywhere gives
        m.setattr("sidtui.core.transcript.scan.decode_run", lambda *a, **k: None)
        m.setattr("sidtui.core.transcript.scan.decode_piece_array", lambda *a: None)
        got["whole, line by line"] = _reading_shape(scan_records(data, streamed=streamed))
        got["pieces, line by line from the start"] = _reading_shape(
            scan_records(_piece_source(tmp, data), streamed=streamed)
        )
    return got


# --------------------------------------------------------------------------- interrupted writes


def small_home(run: Path, sessions: list[tuple[str, str]], projects: list[str]) -> None:
    """``run/home``: only ``sessions`` ((folder, id)) of the real fixture home with their
    checkpoints, and ``run/projects/<name>`` for ``projects``, paths remapped there."""
    home = run / "home"
    for folder, sid in sessions:
        (home / "sessions" / folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(REAL_HOME / "sessions" / folder / f"{sid}.jsonl", home / "sessions" / folder)
        ckpt = REAL_HOME / "checkpoints" / sid
        if ckpt.exists():
            shutil.copytree(ckpt, home / "checkpoints" / sid)
    for sub in ("active-sessions", "file-intents", "checkpoints"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    for name in projects:
        shutil.copytree(REAL_PROJECTS / name, run / "projects" / name)
    remap_fixture_paths(home, run / "projects")


def file_tree(root: Path) -> dict[str, bytes]:
    """Every regular file under ``root`` (relative path -> bytes); symlinks left out."""
    if not root.exists():
        return {}
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def snapshot_contents(*index_folders: Path) -> set[bytes]:
    """Every file content any snapshot of the ``index.json`` files under ``index_folders``
    can rebuild (what a ``redo``/``restore`` could bring back)."""
    from sidtui.core.checkpoints.manager import CheckpointManager

    out: set[bytes] = set()
    for folder in index_folders:
        for idx in sorted(folder.rglob("index.json")) if folder.exists() else []:
            mgr = CheckpointManager(idx, idx.parent.name)
            for s in mgr.index.snapshots:
                for path in mgr.index.tracked_files():
                    try:
                        r = mgr.rebuild_at(path, str(s.get("id")))
                    except Exception:  # noqa: BLE001 - no entry at or after it
                        continue
                    if r.content is not None:
                        out.add(r.content.encode() if isinstance(r.content, str) else r.content)
    return out


def lost_bytes(before: dict[str, bytes], now: dict[str, bytes], kept: set[bytes]) -> list[str]:
    """The files of ``before`` whose bytes are neither on disk (``now``, any path) nor in
    ``kept`` (:func:`snapshot_contents`): what a run lost for good."""
    on_disk = set(now.values())
    return [rel for rel, data in before.items() if data not in on_disk and data not in kept]


def run_forked(argv: list[str], hook=None, *, stdin_null: bool = True) -> tuple[int, str]:
    """Run ``sidtui argv`` in a forked child with ``safefs.fault_hook = hook``.

    Returns:
        ``(exit code, or -signal when it was killed; its stderr)``. The child never
        returns into pytest; a child that does not end within 120 s is killed (a guard
        against a hang, not a timing).
    """
    import os
    import select
    import signal
    import tempfile

    from sidtui.cli import main
    from sidtui.core.base import safefs

    err = tempfile.TemporaryFile()
    pid = os.fork()
    if pid == 0:  # the child
        code = 70
        try:
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(null, 1)
            os.dup2(err.fileno(), 2)
            sys.stderr = open(2, "w", closefd=False)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            safefs.fault_hook = hook
            code = main(argv)
            sys.stderr.flush()
        finally:
            os._exit(code)
    pidfd = os.pidfd_open(pid)
    try:
        ready, _, _ = select.select([pidfd], [], [], 120)
        if not ready:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(pidfd)
    assert ready, f"{argv} hung"
    err.seek(0)
    text = err.read().decode(errors="replace")
    err.close()
    rc = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    return rc, text


# --- Claude Code lab cases (tests/fixtures/claude-code-lab/README.md) ---------------------

CLAUDE_LAB_CASES = FIXTURES / "claude-code-lab"


def claude_lab_cases() -> list[Path]:
    """Every vendored lab answer (``*.lab.json``), sorted."""
    return sorted(CLAUDE_LAB_CASES.rglob("*.lab.json"))


def claude_lab_case(case: Path) -> tuple[Path, dict]:
    """(the transcript, the lab's answer) of one case."""
    doc = orjson.loads(case.read_bytes())
    if "input" in doc:
        return FIXTURES / doc["input"], doc
    return case.with_name(case.name[: -len(".lab.json")] + ".jsonl"), doc


def sidtui_resume(path: Path) -> dict:
    """sidtui's ``resume`` object for a Claude Code transcript (``show --json``'s)."""
    from sidtui.core.claude.layout import file_for_path
    from sidtui.core.claude.resume import predict_for
    from sidtui.core.claude.transcript import load_transcript

    return predict_for(load_transcript(file_for_path(path))).to_json()


# ---------------------------------------------------------------- the Claude Code lab
# What the real Claude Code sent (vendored `lab resume` answers) against sidtui's reading.


def lab_items(answer: dict) -> list[tuple[str, str]]:
    """The turns of a ``lab resume`` answer as (kind, text or tool id), in order (text
    right-stripped: Claude Code ends a text with a newline when it joins it to the next)."""
    out = []
    for m in answer["messages"]:
        for b in m["blocks"]:
            if b["type"] == "text":
                out.append(("text", b["text"].rstrip()))
            elif b["type"] == "tool_use":
                out.append(("tool_use", b["id"]))
            elif b["type"] == "tool_result":
                out.append(("tool_result", b["tool_use_id"]))
    return out


def lab_sendable(view) -> list[tuple[str, str]]:
    """What the copy's conversation holds that Claude Code sends: text (no API error, not
    before the last compaction), and tool uses whose result it also holds (and those results)."""
    items = []
    for m in view.messages:
        if m.compacted or m.kind == "api_error":
            continue
        for b in m.blocks:
            if b.type == "text" and isinstance(b.text, str) and b.text.strip():
                items.append(("text", b.text.rstrip()))
            elif b.type == "tool_use":
                items.append(("tool_use", b.id))
            elif b.type == "tool_result":
                items.append(("tool_result", b.tool_use_id))
    uses = {x for k, x in items if k == "tool_use"}
    results = {x for k, x in items if k == "tool_result"}
    return [(k, x) for k, x in items if k == "text" or (x in uses and x in results)]


def missing_in_order(want: list, got: list) -> list:
    """The items of ``want`` not found in ``got`` in order (a text may be part of one)."""
    missing, k = [], 0
    for kind, x in want:
        j = k
        while j < len(got) and not (
            got[j][0] == kind and (got[j][1] == x or (kind == "text" and x.strip() in got[j][1]))
        ):
            j += 1
        if j < len(got):
            k = j + 1
        else:
            missing.append((kind, x))
    return missing


def short_folder(short_base: Path, name: str) -> Path:
    """A fresh folder named after ``name`` under ``short_base`` (the ``short_base`` fixture
    of tests/conftest.py: a folder shallow enough for project keys made from it)."""
    import tempfile

    return Path(tempfile.mkdtemp(prefix=name[:20] + "-", dir=short_base))

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


def run_bounded(
    argv: list[str],
    *,
    timeout: float = 60.0,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    code: str | None = None,
) -> Bounded:
    """Run ``python -m sidtui ARGV`` (or ``python -c CODE ARGV``) in a child, killed after
    ``timeout`` seconds; its own peak RSS from ``wait4``. stdout/stderr go to files (a
    full pipe must not block the child)."""
    import os
    import resource
    import tempfile
    import threading

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (HOSTILE_AS_LIMIT, HOSTILE_AS_LIMIT))

    cmd = [sys.executable, "-c", code, *argv] if code else [sys.executable, "-m", "sidtui", *argv]
    full_env = {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "120", **(env or {})}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            env=full_env,
            cwd=cwd,
            preexec_fn=limit,
        )
        box: dict = {}
        waiter = threading.Thread(target=lambda: box.update(r=os.wait4(proc.pid, 0)), daemon=True)
        waiter.start()
        waiter.join(timeout)
        hung = waiter.is_alive()
        if hung:
            proc.kill()
            waiter.join()
        _, status, usage = box["r"]
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Bounded(
            proc.returncode,
            out.read().decode("utf-8", "replace"),
            err.read().decode("utf-8", "replace"),
            hung,
            usage.ru_maxrss * 1024,  # KiB on Linux
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
    oracle = orjson.loads(oracle_json.read_bytes())
    return [f"{d.key}: {d.detail}" for d in compare(oracle, sidtui_view(path)) if not d.known]

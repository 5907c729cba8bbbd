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

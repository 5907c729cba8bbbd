"""The demo's Claude Code home: ``<demo dir>/claude`` beside the sid-code ``home/``.

:func:`build_claude_demo` writes ``claude/`` (projects, subagents, file history, a stale
registration) and its projects in ``claude-projects/`` with a simulated Claude Code
(:class:`_Session`) in Claude Code's record shapes and key order (docs/CLAUDE-CODE.md §3–4,
§4.7). Cases (``ClaudeDemo.cases``): ``checkpoints`` (deltas, a created file, parallel reads,
a pruned blob, a hand edit after the session), ``rewind`` (a stranded branch, 2.1.114
updates), ``compaction``, ``subagents`` (Task, background Agent, nested), ``interrupted``,
``torn``, ``fork`` (sidtui's own) and ``empty``. Same seed, same bytes (but the dead PID).
"""

from __future__ import annotations

import hashlib
import os
import random
import uuid as _uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sidtui.core.base.jsonout import stringify
from sidtui.demo.agent import structured_patch
from sidtui.demo.clock import DEMO_EPOCH_MS, find_dead_pid, iso_ms
from sidtui.demo.projects import Project, create_project

#: The Claude Code home's timeline starts a day after the sid-code one.
CLAUDE_EPOCH_MS = DEMO_EPOCH_MS + 24 * 3600 * 1000
MODEL = "claude-opus-4-6"
_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_LAST = object()


@dataclass
class ClaudeDemo:
    """A built Claude Code demo home.

    Attributes:
        home: the Claude Code home (pass as ``--claude-home``).
        projects: project name → :class:`~sidtui.demo.projects.Project`.
        cases: case → session id (see the module docstring).
        dead_pid: the PID of the stale registration.
    """

    home: Path
    projects: dict[str, Project] = field(default_factory=dict)
    cases: dict[str, str] = field(default_factory=dict)
    dead_pid: int = 0


def claude_slug(cwd: str) -> str:
    """Claude Code's project folder for ``cwd``: every character outside ``[A-Za-z0-9]``
    becomes ``-`` (per UTF-16 unit, no collapsing); past 200 characters, the first 200 +
    ``-`` + a base-36 hash of the path (docs/CLAUDE-CODE.md §1.2). The demo only writes."""
    units = cwd.encode("utf-16-le")
    chars = [chr(int.from_bytes(units[i : i + 2], "little")) for i in range(0, len(units), 2)]
    slug = "".join(c if c.isascii() and c.isalnum() else "-" for c in chars)
    if len(slug) <= 200:
        return slug
    h = 0
    for c in chars:
        h = ((h << 5) - h + ord(c)) & 0xFFFFFFFF
    h = abs(h - (1 << 32) if h >= 1 << 31 else h)
    digits = ""
    while True:
        h, r = divmod(h, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[r] + digits
        if not h:
            break
    return slug[:200] + "-" + digits


class _Ids:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def uuid(self) -> str:
        return str(_uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def tool(self) -> str:
        return "toolu_01" + "".join(self.rng.choices(_B62, k=22))

    def msg(self) -> str:
        return "msg_01" + "".join(self.rng.choices(_B62, k=22))

    def req(self) -> str:
        return "req_011" + "".join(self.rng.choices(_B62, k=21))

    def agent(self) -> str:
        return "a" + "".join(self.rng.choices("0123456789abcdef", k=16))


class _Session:
    """A simulated Claude Code process writing one session (records kept in memory).

    Args:
        demo: the builder (home, ids).
        project: where it runs (its root is the cwd).
        version: the ``version`` field (2.1.220 on: deltas instead of snapshot updates).
        start_ms: the first record's time.
    """

    def __init__(
        self,
        demo: _Builder,
        project: Project,
        *,
        version: str = "2.1.224",
        start_ms: int,
        session_id: str | None = None,
        sidechain: tuple[str, str] | None = None,
    ) -> None:
        self.demo = demo
        self.project = project
        self.cwd = str(project.root)
        self.version = version
        self.ms = start_ms
        self.session_id = session_id or demo.ids.uuid()
        self.sidechain = sidechain  # (session id, agent id) for a subagent transcript
        self.records: list[dict[str, Any]] = []
        self.last: str | None = None
        self.slug_word = "-".join(demo.rng.choice(_WORDS) for _ in range(3))
        # file history: path key → (version, backup name or None, content when backed up)
        self.tracked: dict[str, tuple[int, str | None, bytes | None]] = {}
        self.turn_tracked: set[str] = set()
        self.prompt: str | None = None
        self.deltas = tuple(int(x) for x in version.split(".")) >= (2, 1, 220)

    # --- time and envelope -----------------------------------------------------------

    def tick(self, lo: int = 40, hi: int = 900) -> str:
        self.ms += self.demo.rng.randint(lo, hi)
        return iso_ms(self.ms)

    def _env(self, type_: str, parent: str | None) -> dict[str, Any]:
        d: dict[str, Any] = {"parentUuid": parent, "isSidechain": self.sidechain is not None}
        d["userType"] = "external"
        d["cwd"] = self.cwd
        d["sessionId"] = self.sidechain[0] if self.sidechain else self.session_id
        d["version"] = self.version
        if self.project.branch:
            d["gitBranch"] = self.project.branch
        if self.sidechain:
            d["agentId"] = self.sidechain[1]
        d["slug"] = self.slug_word
        d["type"] = type_
        return d

    def _add(self, d: dict[str, Any]) -> str:
        self.records.append(d)
        u = d.get("uuid")
        if isinstance(u, str):
            self.last = u
        return u or ""

    # --- records -----------------------------------------------------------------------

    def prompt_(self, text: str, parent: Any = _LAST, **extra: Any) -> str:
        """A user record (a typed prompt unless ``extra`` says otherwise), preceded by its
        file-history snapshot; ``parent`` defaults to the last record."""
        p = self.last if parent is _LAST else parent
        u = self.demo.ids.uuid()
        ts = self.tick(2000, 9000)
        if not self.sidechain:
            self._snapshot(u, ts)
        d = self._env("user", p)
        d["message"] = {"role": "user", "content": text}
        d["uuid"] = u
        d["timestamp"] = ts
        d.update(extra)
        if not self.sidechain:
            d["permissionMode"] = "default"
        self.prompt = u
        self.turn_tracked = set()
        return self._add(d)

    def reply(self, text: str, parent: str | None = None, msg_id: str | None = None) -> str:
        return self._assistant([{"type": "text", "text": text}], parent, msg_id, "end_turn")

    def _assistant(
        self,
        content: list[dict[str, Any]],
        parent: str | None = None,
        msg_id: str | None = None,
        stop: str | None = None,
    ) -> str:
        d = self._env("assistant", parent or self.last)
        d["message"] = {
            "model": MODEL,
            "id": msg_id or self.demo.ids.msg(),
            "type": "message",
            "role": "assistant",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": self.demo.rng.randint(2, 9),
                "cache_creation_input_tokens": self.demo.rng.randint(200, 4000),
                "cache_read_input_tokens": self.demo.rng.randint(10000, 60000),
                "output_tokens": self.demo.rng.randint(20, 900),
                "service_tier": "standard",
            },
        }
        d["requestId"] = self.demo.ids.req()
        d["uuid"] = self.demo.ids.uuid()
        d["timestamp"] = self.tick()
        return self._add(d)

    def tool_use(
        self,
        name: str,
        inp: dict[str, Any],
        parent: str | None = None,
        msg_id: str | None = None,
        text: str | None = None,
    ) -> tuple[str, str]:
        """An assistant line with one tool use: ``(record uuid, tool use id)``."""
        tid = self.demo.ids.tool()
        content: list[dict[str, Any]] = []
        if text:
            content.append({"type": "text", "text": text})
        content.append({"type": "tool_use", "id": tid, "name": name, "input": inp})
        return self._assistant(content, parent, msg_id, "tool_use"), tid

    def result(
        self,
        parent: str,
        tid: str,
        text: str,
        tur: Any = None,
        *,
        error: bool = False,
    ) -> str:
        d = self._env("user", parent)
        block: dict[str, Any] = {"tool_use_id": tid, "type": "tool_result", "content": text}
        if error:
            block["is_error"] = True
        d["message"] = {"role": "user", "content": [block]}
        d["uuid"] = self.demo.ids.uuid()
        d["timestamp"] = self.tick(20, 300)
        if tur is not None:
            d["toolUseResult"] = tur
        d["sourceToolAssistantUUID"] = parent
        return self._add(d)

    def system(self, subtype: str, parent: Any = _LAST, **fields: Any) -> str:
        d = self._env("system", self.last if parent is _LAST else parent)
        d["subtype"] = subtype
        d.update(fields)
        d["timestamp"] = self.tick(5, 60)
        d["uuid"] = self.demo.ids.uuid()
        d["isMeta"] = False
        return self._add(d)

    def progress(self, hook: str, parent: Any = _LAST) -> str:
        tid = self.demo.ids.uuid()
        d = self._env("progress", self.last if parent is _LAST else parent)
        d["data"] = {"type": "hook_progress", "hookEvent": hook, "hookName": f"{hook}:startup"}
        d["parentToolUseID"] = tid
        d["toolUseID"] = tid
        d["timestamp"] = self.tick(5, 60)
        d["uuid"] = self.demo.ids.uuid()
        return self._add(d)

    def meta(self, type_: str, **fields: Any) -> None:
        self.records.append({"type": type_, **fields, "sessionId": self.session_id})

    # --- files -------------------------------------------------------------------------

    def _key(self, rel: str) -> str:
        return rel  # files under the cwd are tracked by their relative path

    def _backup(self, key: str, content: bytes | None, version: int, ts: str) -> dict[str, Any]:
        name = None
        if content is not None:
            abs_path = os.path.join(self.cwd, key)
            name = hashlib.sha256(abs_path.encode()).hexdigest()[:16] + f"@v{version}"
            self.demo.blob(self.session_id, name, content, self.project.root / key)
        return {"backupFileName": name, "version": version, "backupTime": ts}

    def _current(self, key: str) -> bytes | None:
        p = self.project.root / key
        return p.read_bytes() if p.exists() else None

    def _snapshot(self, prompt: str, ts: str) -> None:
        backups: dict[str, Any] = {}
        for key, (v, name, content) in list(self.tracked.items()):
            now = self._current(key)
            if now == content:
                backups[key] = {"backupFileName": name, "version": v, "backupTime": ts}
            else:
                b = self._backup(key, now, v + 1, ts)
                self.tracked[key] = (v + 1, b["backupFileName"], now)
                backups[key] = b
        self._snapshot_line(prompt, backups, ts, update=False)

    def _snapshot_line(
        self, prompt: str, backups: dict[str, Any], ts: str, *, update: bool, editor: str = ""
    ) -> None:
        self.records.append(
            {
                "type": "file-history-snapshot",
                "messageId": editor if update else prompt,
                "snapshot": {"messageId": prompt, "trackedFileBackups": backups, "timestamp": ts},
                "isSnapshotUpdate": update,
            }
        )
        self._snapshot_ts = ts

    def edit(self, rel: str, new: str, *, write: bool = False, parent: str | None = None) -> str:
        """An Edit (or Write) of ``rel``: tool use, the back-fill of a file first touched in
        this turn, the file written, the result. Returns the result record's uuid."""
        path = self.project.root / rel
        old_b = path.read_bytes() if path.exists() else None
        old = old_b.decode() if old_b is not None else ""
        name = "Write" if write or old_b is None else "Edit"
        if name == "Write":
            inp: dict[str, Any] = {"file_path": str(path), "content": new}
        else:
            i = next(
                (k for k in range(min(len(old), len(new))) if old[k] != new[k]),
                min(len(old), len(new)),
            )
            inp = {"file_path": str(path), "old_string": old[i:], "new_string": new[i:]}
        uid, tid = self.tool_use(name, inp, parent)
        key = self._key(rel)
        if key not in self.tracked and self.prompt is not None:
            ts = iso_ms(self.ms)
            b = self._backup(key, old_b, 1, ts)
            self.tracked[key] = (1, b["backupFileName"], old_b)
            if self.deltas:
                self.records.append(
                    {
                        "type": "file-history-delta",
                        "messageId": uid,
                        "snapshotMessageId": self.prompt,
                        "trackingPath": key,
                        "backup": b,
                        "timestamp": ts,
                    }
                )
            else:
                snap = self.records_snapshot(self.prompt)
                snap[key] = b
                self._snapshot_line(self.prompt, snap, self._snapshot_ts, update=True, editor=uid)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(new.encode())
        self.demo.touch(path, self.ms)
        if name == "Write":
            tur: dict[str, Any] = {
                "type": "create" if old_b is None else "update",
                "filePath": str(path),
                "content": new,
                "structuredPatch": structured_patch(old, new) if old_b is not None else [],
                "originalFile": old if old_b is not None else None,
            }
            text = f"File created successfully at: {path}"
        else:
            tur = {
                "filePath": str(path),
                "oldString": inp["old_string"],
                "newString": inp["new_string"],
                "originalFile": old,
                "structuredPatch": structured_patch(old, new),
                "userModified": False,
                "replaceAll": False,
            }
            text = f"The file {path} has been updated."
        return self.result(uid, tid, text, tur)

    def records_snapshot(self, prompt: str) -> dict[str, Any]:
        """The latest ``trackedFileBackups`` written for ``prompt`` (a copy)."""
        for d in reversed(self.records):
            if d.get("type") == "file-history-snapshot" and d["snapshot"]["messageId"] == prompt:
                return dict(d["snapshot"]["trackedFileBackups"])
        return {}

    def read(self, rel: str, parent: str | None = None, msg_id: str | None = None) -> str:
        path = self.project.root / rel
        text = path.read_text() if path.exists() else ""
        uid, tid = self.tool_use("Read", {"file_path": str(path)}, parent, msg_id)
        numbered = "\n".join(f"{n:>6}→{line}" for n, line in enumerate(text.splitlines(), 1))
        tur = {
            "type": "text",
            "file": {"filePath": str(path), "content": text, "numLines": text.count("\n")},
        }
        return self.result(uid, tid, numbered, tur)

    # --- output ------------------------------------------------------------------------

    def path(self) -> Path:
        folder = self.demo.home / "projects" / claude_slug(self.cwd)
        if self.sidechain:
            return folder / self.sidechain[0] / "subagents" / f"agent-{self.sidechain[1]}.jsonl"
        return folder / f"{self.session_id}.jsonl"

    def data(self) -> bytes:
        return b"".join(stringify(d) + b"\n" for d in self.records)

    def write(self, tail: bytes = b"") -> Path:
        p = self.path()
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(self.data() + tail)
        self.demo.touch(p, self.ms)
        return p


_WORDS = (
    "quiet",
    "amber",
    "rolling",
    "cedar",
    "lunar",
    "brisk",
    "hollow",
    "meadow",
    "copper",
    "drifting",
    "velvet",
    "harbor",
)

_APP_PY = '''"""A tiny notes app."""

NOTES = ["buy milk", "Call Ada", "write the report"]


def list_notes():
    return list(NOTES)


def main():
    for n in list_notes():
        print("-", n)
'''

_SERVER_PY = """from http.server import BaseHTTPRequestHandler, HTTPServer


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"ok")


if __name__ == "__main__":
    HTTPServer(("", 8000), Handler).serve_forever()
"""


class _Builder:
    def __init__(self, root: Path, seed: int, use_git: bool) -> None:
        self.root = root
        self.home = root / "claude"
        self.rng = random.Random(f"claude-demo-{seed}")
        self.ids = _Ids(self.rng)
        self.use_git = use_git
        self.demo = ClaudeDemo(self.home)
        self.mtimes: dict[Path, int] = {}

    def touch(self, path: Path, ms: int) -> None:
        self.mtimes[path] = ms

    def blob(self, session: str, name: str, content: bytes, source: Path) -> None:
        p = self.home / "file-history" / session / name
        if p.exists():
            return
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(content)
        try:
            os.chmod(p, os.stat(source).st_mode & 0o777)
        except OSError:
            pass
        self.touch(p, CLAUDE_EPOCH_MS)

    def project(self, name: str, files: dict[str, str]) -> Project:
        p = create_project(
            self.root / "claude-projects",
            name,
            files,
            when_ms=CLAUDE_EPOCH_MS,
            use_git=self.use_git,
        )
        for rel in files:
            self.touch(p.root / rel, CLAUDE_EPOCH_MS)
        self.demo.projects[name] = p
        return p

    # --- cases -------------------------------------------------------------------------

    def checkpoints(self, notes: Project) -> _Session:
        s = _Session(self, notes, start_ms=CLAUDE_EPOCH_MS + 60_000)
        s.progress("SessionStart", parent=None)
        s.prompt_("Add a search function to the notes app")
        r = s.read("app.py")
        s.reply("I'll add a `search` module and use it from `main`.", parent=r)
        r = s.edit(
            "search.py", "def search(notes, word):\n    return [n for n in notes if word in n]\n"
        )
        r = s.edit(
            "app.py",
            _APP_PY.replace(
                '"""A tiny notes app."""', '"""A tiny notes app."""\n\nfrom search import search'
            ),
        )
        s.reply("Added `search.py` and imported it in `app.py`.", parent=r)
        s.system("turn_duration", durationMs=8421)

        s.prompt_("Make the search case-insensitive")
        mid = self.ids.msg()
        a1, t1 = s.tool_use("Read", {"file_path": str(notes.root / "app.py")}, msg_id=mid)
        a2, t2 = s.tool_use("Read", {"file_path": str(notes.root / "search.py")}, a1, mid)
        s.result(a1, t1, "(app.py)")  # parallel tool calls: each result under its own part
        r2 = s.result(a2, t2, "(search.py)")
        r = s.edit(
            "search.py",
            "def search(notes, word):\n"
            "    word = word.lower()\n"
            "    return [n for n in notes if word in n.lower()]\n",
            parent=r2,
        )
        r = s.edit(
            "app.py",
            _APP_PY.replace("print(", 'print("*", ').replace(
                '"""A tiny notes app."""', '"""A tiny notes app."""\n\nfrom search import search'
            ),
            parent=r,
        )
        s.reply("Search now ignores case.", parent=r)

        s.prompt_("Add tests for search")
        r = s.edit(
            "tests/test_search.py",
            "from search import search\n\n\ndef test_case():\n"
            '    assert search(["Call Ada"], "ada") == ["Call Ada"]\n',
        )
        s.reply("Added `tests/test_search.py`.", parent=r)

        s.prompt_("Rename search to find everywhere")
        r = s.edit(
            "search.py",
            "def find(notes, word):\n"
            "    word = word.lower()\n"
            "    return [n for n in notes if word in n.lower()]\n",
        )
        r = s.edit(
            "tests/test_search.py",
            "from search import find\n\n\ndef test_case():\n"
            '    assert find(["Call Ada"], "ada") == ["Call Ada"]\n',
            parent=r,
        )
        r = s.edit(
            "app.py",
            (notes.root / "app.py").read_text().replace("import search", "import find"),
            parent=r,
        )
        s.reply("Renamed `search` to `find` in all three files.", parent=r)
        s.system("stop_hook_summary", hookCount=1, hookErrors=[], preventedContinuation=False)
        s.write()
        # superseded blobs are pruned except each file's first (2.1.208 on): app.py@v2 is gone
        app2 = hashlib.sha256(str(notes.root / "app.py").encode()).hexdigest()[:16] + "@v2"
        (self.home / "file-history" / s.session_id / app2).unlink()
        # and search.py was edited by hand after the session (drift)
        sp = notes.root / "search.py"
        sp.write_bytes(sp.read_bytes() + b"\n\n# TODO: fuzzy matching\n")
        self.touch(sp, s.ms + 3_600_000)
        self.demo.cases["checkpoints"] = s.session_id
        return s

    def rewind(self, notes: Project) -> None:
        s = _Session(self, notes, version="2.1.114", start_ms=CLAUDE_EPOCH_MS + 3 * 3600_000)
        s.prompt_("Write a README for the notes app")
        r = s.edit("README.md", "# Notes\n\nA tiny notes app.\n")
        p1 = s.reply("Wrote README.md.", parent=r)
        s.prompt_("Translate the README to French")
        r = s.edit("README.md", "# Notes\n\nUne petite application de notes.\n")
        s.reply("Traduit.", parent=r)
        # /rewind in Claude Code: the files go back, the next prompt re-parents onto p1
        (notes.root / "README.md").write_bytes(b"# Notes\n\nA tiny notes app.\n")
        s.prompt_("Add an install section instead", parent=p1)
        r = s.edit(
            "README.md", "# Notes\n\nA tiny notes app.\n\n## Install\n\n    pip install -e .\n"
        )
        s.reply("Added an Install section.", parent=r)
        s.meta("custom-title", customTitle="README work")
        s.write()
        self.demo.cases["rewind"] = s.session_id

    def compaction(self, api: Project) -> None:
        s = _Session(self, api, version="2.1.39", start_ms=CLAUDE_EPOCH_MS + 5 * 3600_000)
        s.progress("SessionStart", parent=None)
        for text in (
            "Explain how the server handles requests",
            "What would it take to add JSON responses?",
            "And logging?",
        ):
            s.prompt_(text)
            r = s.read("server.py")
            s.reply(f"About '{text[:30]}': the handler writes the body directly.", parent=r)
        leaf = s.last
        b = s.system(
            "compact_boundary",
            parent=None,
            content="Conversation compacted",
            logicalParentUuid=leaf,
            level="info",
            compactMetadata={"trigger": "auto", "preTokens": 167_117},
        )
        s.prompt_(
            "This session is being continued from a previous conversation that ran out of "
            "context. The summary below covers the earlier portion of the conversation.\n\n"
            "The user asked how the server handles requests, JSON responses and logging.",
            parent=b,
            isCompactSummary=True,
            isVisibleInTranscriptOnly=True,
        )
        s.prompt_("Now add the JSON response")
        r = s.edit("server.py", _SERVER_PY.replace('b"ok"', "b'{\"ok\": true}'"))
        s.reply("The handler now answers JSON.", parent=r)
        s.write()
        self.demo.cases["compaction"] = s.session_id

    def subagents(self, api: Project) -> None:
        s = _Session(self, api, start_ms=CLAUDE_EPOCH_MS + 7 * 3600_000)
        s.prompt_("Audit the API for missing auth checks, and draft docs in the background")
        explore, bg, nested = self.ids.agent(), self.ids.agent(), self.ids.agent()
        a, tid = s.tool_use(
            "Task",
            {
                "description": "Find auth gaps",
                "prompt": "List handlers without auth",
                "subagent_type": "Explore",
            },
        )
        sub = self._agent(
            s, explore, "Explore", "Find auth gaps", tid, "List handlers without auth"
        )
        sub.reply("Handler.do_GET has no auth check.")
        sub.write()
        r = s.result(
            a,
            tid,
            f"Handler.do_GET has no auth check.\nagentId: {explore}",
            {
                "status": "completed",
                "prompt": "List handlers without auth",
                "agentId": explore,
                "content": [{"type": "text", "text": "Handler.do_GET has no auth check."}],
                "totalDurationMs": 4210,
                "totalTokens": 9120,
                "totalToolUseCount": 1,
            },
        )
        a, tid = s.tool_use(
            "Agent",
            {
                "description": "Draft API docs",
                "prompt": "Write docs/API.md",
                "subagent_type": "general-purpose",
                "run_in_background": True,
            },
            parent=r,
        )
        r = s.result(
            a,
            tid,
            f"Async agent launched successfully.\nagentId: {bg}",
            {
                "isAsync": True,
                "status": "async_launched",
                "agentId": bg,
                "description": "Draft API docs",
            },
        )
        s.reply(
            "do_GET needs an auth check; the docs are being drafted in the background.", parent=r
        )
        bga = self._agent(s, bg, "general-purpose", "Draft API docs", tid, "Write docs/API.md")
        na, ntid = bga.tool_use(
            "Task",
            {
                "description": "Collect endpoints",
                "prompt": "List every endpoint",
                "subagent_type": "Explore",
            },
        )
        inner = self._agent(
            s, nested, "Explore", "Collect endpoints", ntid, "List every endpoint", parent_agent=bg
        )
        inner.reply("One endpoint: GET /.")
        inner.write()
        nr = bga.result(
            na,
            ntid,
            f"One endpoint: GET /.\nagentId: {nested}",
            {
                "status": "completed",
                "agentId": nested,
                "prompt": "List every endpoint",
                "content": [{"type": "text", "text": "One endpoint: GET /."}],
            },
        )
        bga.tool_use(
            "Write",
            {"file_path": str(api.root / "docs" / "API.md"), "content": "# API\n"},
            parent=nr,
        )
        bga.write()  # the background agent was still writing when the session ended
        s.write()
        reg = self.home / "sessions" / f"{self.demo.dead_pid}.json"
        reg.parent.mkdir(parents=True, exist_ok=True)
        reg.write_bytes(
            stringify(
                {
                    "pid": self.demo.dead_pid,
                    "sessionId": s.session_id,
                    "cwd": s.cwd,
                    "startedAt": CLAUDE_EPOCH_MS + 7 * 3600_000,
                    "procStart": "4242",
                    "status": "busy",
                    "kind": "interactive",
                    "entrypoint": "cli",
                }
            )
        )
        self.touch(reg, s.ms)
        self.demo.cases["subagents"] = s.session_id

    def _agent(
        self,
        s: _Session,
        agent_id: str,
        agent_type: str,
        description: str,
        tool_use_id: str,
        prompt: str,
        parent_agent: str | None = None,
    ) -> _Session:
        sub = _Session(self, s.project, start_ms=s.ms, sidechain=(s.session_id, agent_id))
        sub.prompt_(prompt, parent=None)
        sub.read("server.py")
        meta: dict[str, Any] = {
            "agentType": agent_type,
            "description": description,
            "toolUseId": tool_use_id,
        }
        if parent_agent:
            meta["parentAgentId"] = parent_agent
            meta["spawnDepth"] = 2
        mp = sub.path().with_name(f"agent-{agent_id}.meta.json")
        mp.parent.mkdir(parents=True, exist_ok=True)
        mp.write_bytes(stringify(meta))
        self.touch(mp, s.ms)
        return sub

    def interrupted(self, notes: Project) -> None:
        s = _Session(self, notes, start_ms=CLAUDE_EPOCH_MS + 9 * 3600_000)
        s.prompt_("Run the tests")
        a, tid = s.tool_use("Bash", {"command": "python -m pytest -q", "description": "Run tests"})
        s.result(
            a,
            tid,
            "The user doesn't want to proceed with this tool use. The tool use was rejected.",
            "User rejected tool use",
            error=True,
        )
        d = s._env("user", s.last)
        d["message"] = {
            "role": "user",
            "content": [{"type": "text", "text": "[Request interrupted by user for tool use]"}],
        }
        d["uuid"] = self.ids.uuid()
        d["timestamp"] = s.tick()
        s._add(d)
        s.write()
        self.demo.cases["interrupted"] = s.session_id

    def torn(self, api: Project) -> None:
        s = _Session(self, api, start_ms=CLAUDE_EPOCH_MS + 10 * 3600_000)
        s.prompt_("Add a health endpoint")
        s.reply("Sure: GET /health will answer 200.")
        s.prompt_("Go ahead")
        a, _ = s.tool_use("Read", {"file_path": str(api.root / "server.py")})
        data = s.data()
        cut = data.rstrip(b"\n").rfind(b"\n") + 1
        last = data[cut:]
        p = s.path()
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data[:cut] + last[: len(last) // 2])  # killed mid-write
        self.touch(p, s.ms)
        self.demo.cases["torn"] = s.session_id

    def empty(self, api: Project) -> None:
        sid = self.ids.uuid()
        p = self.home / "projects" / claude_slug(str(api.root)) / f"{sid}.jsonl"
        p.write_bytes(b"")
        self.touch(p, CLAUDE_EPOCH_MS + 11 * 3600_000)
        self.demo.cases["empty"] = sid

    def fork(self, src: _Session) -> None:
        """sidtui's own fork of the checkpoints session, before its third prompt."""
        from sidtui.core.claude.fork import fork_session
        from sidtui.core.claude.layout import ClaudeHome, file_for_path
        from sidtui.core.claude.session import open_claude_session

        home = ClaudeHome(self.home)
        view = open_claude_session(home, file_for_path(src.path()))
        prompts = view.prompts
        res = fork_session(
            view, before=prompts[2].index, session_id=self.ids.uuid(), new_uuid=self.ids.uuid
        )
        self.touch(res.path, src.ms + 600_000)
        for n in (home.file_history(res.session_id)).iterdir():
            self.touch(n, src.ms + 600_000)
        self.demo.cases["fork"] = res.session_id

    def finish(self) -> None:
        for p, ms in self.mtimes.items():
            if os.path.lexists(p):
                os.utime(p, (ms / 1000, ms / 1000), follow_symlinks=False)


def build_claude_demo(root: Path, seed: int = 0, *, use_git: bool = True) -> ClaudeDemo:
    """Write ``root/claude`` (the Claude Code home) and ``root/claude-projects``.

    Raises:
        OSError: a file cannot be written.
    """
    b = _Builder(Path(root).absolute(), seed, use_git)
    b.demo.dead_pid = find_dead_pid(random.Random(f"claude-pid-{seed}"))
    notes = b.project("notes-app", {"app.py": _APP_PY, "README.md": "# Notes\n"})
    api = b.project("api-server", {"server.py": _SERVER_PY})
    src = b.checkpoints(notes)
    b.rewind(notes)
    b.compaction(api)
    b.subagents(api)
    b.interrupted(notes)
    b.torn(api)
    b.empty(api)
    b.fork(src)
    b.finish()
    return b.demo


__all__ = ["ClaudeDemo", "build_claude_demo", "claude_slug"]

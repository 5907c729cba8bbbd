"""``sidtui rename`` against the real Claude Code: is the title sidtui writes the one Claude
Code finds a session by, and does the resumed conversation stay the same?

For each transcript, in a throw-away home: Claude Code resumes the original by id (``lab
resume``), sidtui renames a copy, then ``claude -p --resume TITLE PING`` runs against the
lab's scripted model (the lab's own ``Api``/``env``/``claude`` helpers, loaded from the lab's
folder: a development tool, never the suite's). A case agrees when Claude Code resumes the
renamed session by its title with the same conversation it sent for the original (or the
same error, naming the session: the title found it), and by
each later title after a second rename (whether the first title still finds it is recorded).
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scripts.ccdifftest.lab import lab_resume, normalise


def _lab_module(cmd: Sequence[str]) -> Any:
    """The lab's Python module, from the folder of its command (``…/lab`` → ``…/lab.py``)."""
    exe = Path(cmd[-1]).resolve()
    spec = importlib.util.spec_from_file_location("cclab", exe.parent / "lab.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _resume_by(lab: Any, work: Path, proj: Path, arg: str) -> dict[str, Any]:
    """``claude -p --resume ARG PING`` in ``work``'s home: the lab's answer shape."""
    ping = "LAB_PING_" + uuid.uuid4().hex[:8]
    with lab.Api([], work / f"cap-{ping}") as api:
        r = subprocess.run(
            [str(lab.claude()), "-p", "--resume", arg, "--", ping],
            cwd=proj,
            env=lab.env(work, api.port),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=120,
        )
        for req in api.requests():
            msgs = req.get("messages") or []
            if any(ping in json.dumps(m) for m in msgs[-3:]):
                conv = [
                    {"role": m["role"], "blocks": lab.blocks_of(m["content"])}
                    for m in msgs
                    if m.get("role") in ("user", "assistant")
                ]
                return {"ok": True, "messages": conv, "ping": ping}
    said = (r.stdout + r.stderr).decode("utf-8", "replace").strip()
    return {"ok": False, "exit": r.returncode, "error": said[-400:], "ping": ping}


def check_rename(cmd: Sequence[str], files: Sequence[Path], titles: Sequence[str]) -> list[dict]:
    """One result per file: ``{"file", "titles", "agree", "why", "first_title_still_finds_it"}``."""
    from sidtui.core.claude.layout import ClaudeHome
    from sidtui.core.sources import ClaudeSource

    lab = _lab_module(cmd)
    base = lab_resume(cmd, list(files))
    out = []
    for f, before in zip(files, base, strict=True):
        work = Path(tempfile.mkdtemp(prefix="ccrename-"))
        try:
            proj = work / "proj"
            proj.mkdir()
            pdir = work / "home" / "projects" / lab.project_key(proj)
            pdir.mkdir(parents=True)
            sid = f.stem if lab.UUID_RE.match(f.stem) else str(uuid.uuid4())
            dest = pdir / f"{sid}.jsonl"
            shutil.copyfile(f, dest)
            src = ClaudeSource(ClaudeHome(work / "home"))
            why = None
            for i, title in enumerate(titles):
                src.rename(src.resolve(sid), title, force=True)
                got = _resume_by(lab, work, proj, title)
                if not got["ok"] and sid not in str(got.get("error")):
                    why = f"title {i + 1} not found: {got.get('error')}"
                    break
                if i == 0 and normalise(got) != before:
                    why = "Claude Code resumes it by title otherwise than by id"
                    break
                if got["ok"] and got["ping"] not in dest.read_text("utf-8", "replace"):
                    why = f"title {i + 1} resumed another session"
                    break
            old = None
            if why is None and len(titles) > 1:  # a fact about Claude Code, not a verdict
                old = _resume_by(lab, work, proj, titles[0])["ok"]
            out.append(
                {
                    "file": str(f),
                    "titles": list(titles),
                    "agree": why is None,
                    "why": why,
                    "first_title_still_finds_it": old,
                }
            )
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return out

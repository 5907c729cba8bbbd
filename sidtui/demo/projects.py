"""Scratch projects the simulated agent works in, and the agent's project key.

Each demo project is a real folder under ``<demo dir>/projects/``; when ``git`` is on PATH it
is a real repository (one initial commit on ``main``) so user records carry ``gitBranch`` as
the agent's do. Git runs with a fixed author, fixed dates and no user/system config
(``GIT_CONFIG_GLOBAL=/dev/null``), so it works on a fresh machine with no ``git config`` and
a commit-signing setup cannot break it. Without git the folder stays a plain folder and the
records have no ``gitBranch`` (as the agent writes them outside a repo).

Design notes: docs/ARCHITECTURE.md, “demo/projects.py”.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from sidtui.core.base.project import project_key
from sidtui.demo.clock import iso_ms


@dataclass
class Project:
    """A scratch project.

    Attributes:
        name: folder name under ``projects/`` (may be non-ASCII with spaces).
        root: absolute path.
        key: the agent's project key (its ``sessions/`` folder).
        git: whether it is a git repository.
        branch: the current branch (None without git).
    """

    name: str
    root: Path
    key: str
    git: bool
    branch: str | None

    def path(self, rel: str) -> str:
        """Absolute path (str, as the agent writes ``file_path``) of ``rel``."""
        return str(self.root / rel)


def git_available() -> bool:
    """Whether a ``git`` executable is on PATH."""
    return shutil.which("git") is not None


def _git_env(when_ms: int) -> dict[str, str]:
    # Drop inherited GIT_* (a git hook running the tests sets GIT_DIR/GIT_INDEX_FILE, which
    # would point our commands at the caller's repository).
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    stamp = iso_ms(when_ms).replace(".000Z", "Z")
    env.update(
        {
            "GIT_AUTHOR_NAME": "sidtui demo",
            "GIT_AUTHOR_EMAIL": "demo@sidtui.invalid",
            "GIT_COMMITTER_NAME": "sidtui demo",
            "GIT_COMMITTER_EMAIL": "demo@sidtui.invalid",
            "GIT_AUTHOR_DATE": stamp,
            "GIT_COMMITTER_DATE": stamp,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_TERMINAL_PROMPT": "0",
        }
    )
    return env


def _git(root: Path, args: list[str], when_ms: int) -> bool:
    try:
        subprocess.run(
            ["git", "-c", "commit.gpgsign=false", "-c", "core.autocrlf=false", *args],
            cwd=root,
            env=_git_env(when_ms),
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return True


def create_project(
    projects_dir: Path,
    name: str,
    files: Mapping[str, str | bytes],
    *,
    when_ms: int,
    use_git: bool = True,
) -> Project:
    """Create ``projects_dir/name`` with ``files`` (relative path → text or bytes).

    Text is written as given (``\\r\\n`` kept, no newline added). With ``use_git`` and git
    on PATH the folder becomes a repository with one commit on ``main``; if any git step
    fails the folder is left as a plain folder.

    The project's key is not checked here (a Claude Code project has its own rule): a
    sid-code demo checks its folders first (``scenarios.check_demo_root``).

    Raises:
        OSError: the folder or a file cannot be written.
    """
    root = (projects_dir / name).absolute()
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        p.write_bytes(data)
    is_git = False
    if use_git and git_available():
        is_git = (
            _git(root, ["init", "-q"], when_ms)
            and _git(root, ["symbolic-ref", "HEAD", "refs/heads/main"], when_ms)
            and _git(root, ["add", "-A"], when_ms)
            and _git(root, ["commit", "-q", "-m", "Initial commit"], when_ms)
        )
        if not is_git:
            shutil.rmtree(root / ".git", ignore_errors=True)
    return Project(name, root, project_key(root), is_git, "main" if is_git else None)


def session_start_record(session_id: str, model: str, cwd: str) -> dict:
    """The ``session_start`` a hand-made demo session opens with (v3; more keys may follow)."""
    return {
        "type": "session_start",
        "version": "3.0",
        "schemaCompat": "claude-code-like/v3",
        "sessionId": session_id,
        "model": model,
        "provider": "anthropic",
        "cwd": cwd,
    }

"""Where each source's home keeps what the :class:`~sidtui.core.live.watcher.Watcher`
follows: its transcripts (and how deep), registrations, checkpoint index and file intents,
how a path is classified and which paths belong to one session (FORMAT.md §1, §8;
docs/CLAUDE-CODE.md §1, §8; docs/CODEX.md §1, §6). :func:`layout_of` picks one by the
home's kind.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sidtui.core.base.discover import classify_file
from sidtui.core.base.home import Home
from sidtui.core.resume.process import read_file_intents, read_registrations


class SidCodeLayout:
    """Where a sid-code home keeps what the watcher follows (FORMAT.md §1)."""

    chain = True  # the loader's chain: branched / rewind events
    depth = 2  # sessions/<project>/<file>

    def __init__(self, home: Home) -> None:
        self.home = home
        self.transcripts = home.sessions_dir
        self.checkpoints: Path | None = home.checkpoints_dir
        self.registrations_dir = home.active_sessions_dir
        self.intents_dir: Path | None = home.file_intents_dir

    def registrations(self) -> list:
        return read_registrations(self.home)

    def intents(self) -> list:
        return read_file_intents(self.home)

    def classify(self, p: str) -> Any:
        parent = Path(p).parent
        return classify_file(Path(p), "" if parent == self.home.sessions_dir else parent.name)

    def wanted(self, session: Any, p: str) -> bool:
        own = str(session.path)
        return p == own or p.startswith(own[: -len(".jsonl")] + "-")  # its sidechains


class ClaudeLayout:
    """Where a Claude Code home keeps transcripts and registrations (docs/CLAUDE-CODE.md
    §1, §8): ``projects/<slug>/<session>/subagents/agent-*.jsonl`` is three levels down;
    no checkpoint index and no file intents; Claude Code resumes by its own leaf rule, so
    the sid-code chain is not followed."""

    chain = False
    depth = 3
    checkpoints = None
    intents_dir = None

    def __init__(self, home: Any) -> None:
        self.home = home
        self.transcripts = home.projects_dir
        self.registrations_dir = home.sessions_dir

    def registrations(self) -> list:
        from sidtui.core.claude.liveness import read_processes

        return read_processes(self.home)

    def intents(self) -> list:
        return []

    def classify(self, p: str) -> Any:
        from sidtui.core.claude.layout import file_for_path

        return file_for_path(Path(p))

    def wanted(self, session: Any, p: str) -> bool:
        own = session.path
        if p == str(own):
            return True
        q = Path(p)
        if q.parent == own.parent / own.stem / "subagents":
            return True
        if q.parent == own.parent and q.name.startswith("agent-"):  # the older layout
            from sidtui.core.claude.layout import head_session_id, read_head

            return head_session_id(read_head(q, 4096)) == session.session_id
        return False


class CodexLayout:
    """Where a Codex CLI home keeps rollouts and writer locks (docs/CODEX.md §1, §6):
    ``sessions/YYYY/MM/DD/rollout-*.jsonl`` is three levels down; no checkpoints, no
    file intents, no sub-agent files; a rollout has no record tree to follow."""

    chain = False
    depth = 3
    checkpoints = None
    intents_dir = None

    def __init__(self, home: Any) -> None:
        from sidtui.core.codex.liveness import LOCKS_DIR

        self.home = home
        self.transcripts = home.sessions_dir
        self.registrations_dir = home.root / LOCKS_DIR

    def registrations(self) -> list:
        from sidtui.core.codex.liveness import read_locks

        return read_locks(self.home)

    def intents(self) -> list:
        return []

    def classify(self, p: str) -> Any:
        from sidtui.core.codex.layout import file_for_path

        return file_for_path(Path(p))

    def wanted(self, session: Any, p: str) -> bool:
        return p == str(session.path)


def layout_of(home: Any) -> SidCodeLayout | ClaudeLayout | CodexLayout:
    from sidtui.core.claude.layout import ClaudeHome
    from sidtui.core.codex.layout import CodexHome

    if isinstance(home, CodexHome):
        return CodexLayout(home)
    return ClaudeLayout(home) if isinstance(home, ClaudeHome) else SidCodeLayout(home)

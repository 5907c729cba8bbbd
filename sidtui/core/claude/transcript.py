"""One Claude Code transcript read into the model: records, tree, messages, end state.

:func:`load_transcript` is the whole reading pipeline of one file — scan
(:mod:`.scan`), DAG (:mod:`.tree`), messages and interruption (:mod:`.conversation`) — and
:class:`ClaudeTranscript` what it gives. The session view (:mod:`.session`) adds what
needs the home (subagents, liveness, titles); subagent transcripts are read the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sidtui.core.base.errors import unreadable
from sidtui.core.base.gcpause import gc_paused
from sidtui.core.claude.conversation import (
    ClaudeMessage,
    Interruption,
    build_messages,
    detect_interruption,
)
from sidtui.core.claude.layout import ClaudeFile
from sidtui.core.claude.scan import ClaudeScan, scan
from sidtui.core.claude.tree import ClaudeTree, build_tree
from sidtui.core.transcript.source import (
    PIECE_MIN_BYTES,
    FileChanged,
    FileSource,
    line_ceiling,
    read_transcript,
)


@dataclass
class ClaudeTranscript:
    """A transcript as sidtui reads it.

    Attributes:
        file: the file.
        scan: every record, bad line and span (:class:`~.scan.ClaudeScan`).
        tree: the DAG, every leaf, the leaf resume picks, the chain (:class:`~.tree.ClaudeTree`).
        messages: the resumed conversation's messages (:class:`~.conversation.ClaudeMessage`).
        interruption: how it ended (:class:`~.conversation.Interruption`).
    """

    file: ClaudeFile
    scan: ClaudeScan
    tree: ClaudeTree
    messages: list[ClaudeMessage]
    interruption: Interruption

    def record(self, i: int) -> Any:
        """Record ``i`` fully decoded (a dict; None if the file changed under a big read)."""
        return self.scan.decode_at(i)

    def line_of(self, i: int | None) -> int | None:
        return None if i is None or i < 0 else self.scan.lines[i]

    def uuid_of(self, i: int | None) -> str | None:
        return None if i is None or i < 0 else self.scan.objs[i].uuid

    def message_of_record(self) -> dict[int, int]:
        """Record index → index of the message it belongs to (merged parts included)."""
        out: dict[int, int] = {}
        for m in self.messages:
            for r in m.records:
                out[r] = m.index
        return out


def whole_max() -> int:
    """Files this big or bigger are read in pieces: 16 MB, or the line ceiling when lower
    (a file above it may hold a line too long to hold)."""
    return min(PIECE_MIN_BYTES, line_ceiling())


def read_bytes(path: Path) -> bytes | FileSource:
    """A transcript's bytes (or a :class:`FileSource` for a big one: see :func:`whole_max`).

    Raises:
        UnreadableInput: it cannot be read (a one-line reason).
    """
    try:
        return read_transcript(path, whole_max())
    except OSError as exc:
        raise unreadable(path, exc) from None


def load_transcript(cf: ClaudeFile, data: bytes | FileSource | None = None) -> ClaudeTranscript:
    """Read one transcript completely (the cyclic GC paused: millions of small objects
    without cycles).

    Raises:
        UnreadableInput: the file cannot be read.
        FileChanged: a big file got shorter while it was read.
    """
    if data is None:
        data = read_bytes(cf.path)
    with gc_paused():
        sc = scan(data)
        tree = build_tree(sc.objs)
        messages = build_messages(sc.objs, sc.lines, tree)
        tr = ClaudeTranscript(cf, sc, tree, messages, detect_interruption(messages))
    if isinstance(data, FileSource) and data.changed:
        raise FileChanged(
            f"{cf.path} changed while sidtui read it (it is shorter now): read it again"
        )
    return tr

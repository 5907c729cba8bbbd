"""Sub-agent transcripts (FORMAT.md §9).

A sidechain ``<parentId>-<agentId>.jsonl`` is linear (no uuid chain) and written
synchronously: ``sidechain_start`` {sessionId (parent), agentId, agentType, description,
model}, ``message`` {role, content, turn}, ``sidechain_end`` {status}. Unlike a main
session's ``session_end``, ``sidechain_end`` is written by the program on every normal
path, so its absence reliably means the sub-agent was killed: *unfinished* (FORMAT.md §9.3).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sidtui.core.base.home import Home, SessionFile, discover
from sidtui.core.transcript.loader import Block, blocks_from_content
from sidtui.core.transcript.records import RecordFile, read_transcript, scan_records


@dataclass
class SidechainMessage:
    """One sub-agent message: ``role`` (user/assistant/tool), blocks, turn, line."""

    index: int
    role: str | None
    blocks: list[Block]
    turn: int | None
    line: int
    timestamp: str | None = None

    def preview(self, width: int = 60) -> str:
        for b in self.blocks:
            if b.text:
                return b.text[:width]
        return ""


@dataclass
class Sidechain:
    """A parsed sidechain file.

    Attributes:
        path: the file.
        parent_session_id, agent_id, agent_type, description, model: from sidechain_start.
        messages: the ``message`` records in file order.
        ended: a ``sidechain_end`` record exists; status: its ``status``.
        started_at, ended_at: ISO timestamps.
        bad_lines: lines JSON.parse rejects.
    """

    path: Path
    parent_session_id: str | None = None
    agent_id: str | None = None
    agent_type: str | None = None
    description: str | None = None
    model: str | None = None
    messages: list[SidechainMessage] = field(default_factory=list)
    ended: bool = False
    status: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    bad_lines: int = 0

    @property
    def unfinished(self) -> bool:
        """No ``sidechain_end``: the sub-agent was killed or timed out (resumable)."""
        return not self.ended


def parse_sidechain(path: Path, rf: RecordFile | None = None) -> Sidechain:
    """Parse a sidechain file linearly, tolerating bad lines. Never raises on content.

    Raises:
        OSError / NotRegularFile: the file cannot be read (or is not a regular file).
    """
    if rf is None:
        rf = scan_records(read_transcript(path))
    sc = Sidechain(path=path, bad_lines=len(rf.bad_lines))
    for rec in rf.records:
        if not rec.is_object:
            continue
        d = rf.decode(rec)
        t = d.get("type")
        if t == "sidechain_start":
            sc.parent_session_id = d.get("sessionId")
            sc.agent_id = d.get("agentId")
            sc.agent_type = d.get("agentType")
            sc.description = d.get("description")
            model, started = d.get("model"), d.get("timestamp")
            sc.model = model if isinstance(model, str) else None
            sc.started_at = started if isinstance(started, str) else None
        elif t == "message":
            blocks, _ = blocks_from_content(d.get("content"))
            turn = d.get("turn")
            sc.messages.append(
                SidechainMessage(
                    len(sc.messages),
                    d.get("role") if isinstance(d.get("role"), str) else None,
                    blocks,
                    turn if isinstance(turn, int) else None,
                    rec.line,
                    d.get("timestamp") if isinstance(d.get("timestamp"), str) else None,
                )
            )
        elif t == "sidechain_end":
            sc.ended = True
            sc.status = d.get("status") if isinstance(d.get("status"), str) else None
            sc.ended_at = d.get("timestamp") if isinstance(d.get("timestamp"), str) else None
    return sc


def sidechains_of(
    home: Home, session: SessionFile, errors: list[str] | None = None
) -> list[SessionFile]:
    """Sidechain files whose first record names ``session`` as parent (same folder).

    ``errors``, if given, gets one line per file named like one of its sidechains
    (``<id>-….jsonl``) that cannot be read (a FIFO, a device, a link to nothing).
    """
    found: list[str] = []
    files = discover(home, session.project, found)
    if errors is not None:
        mine = f"{session.session_id}-"
        errors.extend(e for e in found if f"/{mine}" in e)
    return [f for f in files if f.kind == "sidechain" and f.parent_session_id == session.session_id]

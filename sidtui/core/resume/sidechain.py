"""Sub-agent transcripts (FORMAT.md §9).

A sidechain ``<parentId>-<agentId>.jsonl`` is linear (no uuid chain) and written
synchronously: ``sidechain_start`` {sessionId (parent), agentId, agentType, description,
model}, ``message`` {role, content, turn}, ``sidechain_end`` {status}. Unlike a main
session's ``session_end``, ``sidechain_end`` is written by the program on every normal
path, so its absence reliably means the sub-agent was killed: *unfinished* (FORMAT.md §9.3).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from sidtui.core.base.discover import discover
from sidtui.core.base.home import Home, SessionFile
from sidtui.core.base.jsonparse import js_falsy
from sidtui.core.resume.integrity import hashable
from sidtui.core.transcript.messages import THINKING_TYPES, blocks_from_content
from sidtui.core.transcript.records import RecordFile
from sidtui.core.transcript.scan import scan_records
from sidtui.core.transcript.source import read_transcript
from sidtui.core.transcript.structs import Block, make_block


@dataclass
class SidechainMessage:
    """One sub-agent message: ``role`` (user/assistant/tool), blocks, turn, line.

    ``content_list``: its content is a JSON array (a string content has one text block
    here, to show; the agent's reconstruction leaves such a message out).
    """

    index: int
    role: str | None
    blocks: list[Block]
    turn: int | None
    line: int
    timestamp: str | None = None
    content_list: bool = True

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
        resumed: the agent's reconstruction of the sub-agent's conversation from
            ``messages`` (:func:`reconstruct`); None when it throws (a null line).
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
    resumed: list[SidechainMessage] | None = None
    #: a line ``null``: the agent's sidechain readers throw on it, so they neither list
    #: the sub-agent as unfinished nor rebuild its conversation
    null_line: bool = False

    @property
    def unfinished(self) -> bool:
        """No ``sidechain_end``: the sub-agent was killed or timed out (resumable; not when
        a null line makes the agent's readers fail, :attr:`null_line`)."""
        return not self.ended and not self.null_line


def parse_sidechain(path: Path, rf: RecordFile | None = None) -> Sidechain:
    """Parse a sidechain file linearly, tolerating bad lines. Never raises on content.

    Raises:
        OSError / NotRegularFile: the file cannot be read (or is not a regular file).
    """
    if rf is None:  # the agent's sidechain readers read the file whole at any size
        rf = scan_records(read_transcript(path), streamed=False)
    sc = Sidechain(path=path, bad_lines=len(rf.bad_lines))
    null_line = False
    for rec in rf.records:
        if not rec.is_object:
            null_line = null_line or rf.raw(rec).strip() == b"null"
            continue
        d = rf.decode(rec)
        if not isinstance(d, dict):  # (the line could not be read again)
            continue
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
            content = d.get("content")
            blocks, _ = blocks_from_content(content)
            turn = d.get("turn")
            sc.messages.append(
                SidechainMessage(
                    len(sc.messages),
                    d.get("role") if isinstance(d.get("role"), str) else None,
                    blocks,
                    turn if isinstance(turn, int) else None,
                    rec.line,
                    d.get("timestamp") if isinstance(d.get("timestamp"), str) else None,
                    isinstance(content, list),
                )
            )
        elif t == "sidechain_end":
            sc.ended = True
            sc.status = d.get("status") if isinstance(d.get("status"), str) else None
            sc.ended_at = d.get("timestamp") if isinstance(d.get("timestamp"), str) else None
    sc.null_line = null_line
    sc.resumed = None if null_line else reconstruct(sc.messages)
    return sc


#: The user turn the agent puts first when a sub-agent's rebuilt conversation does not
#: start with one (its own words: "continuing the earlier sub-agent task").
RESUME_PLACEHOLDER = "(接续之前的子代理任务)"


def reconstruct(messages: list[SidechainMessage]) -> list[SidechainMessage]:
    """The sub-agent's conversation as the agent rebuilds it to resume it (observed with
    its own reconstruction; tests/fixtures/oracle-cases/sidechain-reconstruction):

    * a message whose content is no array, or an empty one, is left out;
    * the role is ``assistant`` or else ``user``;
    * an assistant message with no block of a (truthy) type other than thinking is left
      out (null blocks and typeless blocks count as none), then tool_use blocks no
      tool_result answers are stripped from assistant messages, and an assistant message
      left empty is left out;
    * when what is left does not start with a user message, :data:`RESUME_PLACEHOLDER`
      opens it (nothing left: nothing is rebuilt).
    """
    answered = {
        b.tool_use_id
        for m in messages
        if m.content_list
        for b in m.blocks
        if b.type == "tool_result" and hashable(b.tool_use_id)
    }
    out: list[SidechainMessage] = []
    for m in messages:
        if not m.content_list or not m.blocks:
            continue
        role = "assistant" if m.role == "assistant" else "user"
        blocks = m.blocks
        if role == "assistant":
            if all(
                js_falsy(b.type) or (hashable(b.type) and b.type in THINKING_TYPES) for b in blocks
            ):
                continue
            blocks = [
                b
                for b in blocks
                if not (b.type == "tool_use" and (not hashable(b.id) or b.id not in answered))
            ]
            if not blocks:
                continue
        out.append(replace(m, index=len(out), role=role, blocks=blocks))
    if out and out[0].role != "user":  # the agent opens with a user turn of its own
        first = out[0]
        out.insert(
            0,
            SidechainMessage(
                0, "user", [make_block("text", text=RESUME_PLACEHOLDER)], None, first.line
            ),
        )
        for i, m in enumerate(out):
            m.index = i
    return out


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

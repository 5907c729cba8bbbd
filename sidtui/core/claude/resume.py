"""What Claude Code 2.1.332 sends when it resumes a transcript (docs/CLAUDE-CODE.md §11).

The display tree (:mod:`.tree`) bridges a missing parent and salvages damaged lines so that
everything on disk can be shown; Claude Code does neither. :func:`predict_resume` reads the
same scan again, the way Claude Code does (checked against the real CLI with
``scripts/ccdifftest``), and gives :class:`ResumePrediction`:

* ``messages``: the turns Claude Code sends before the new prompt, in the shape of the
  lab's capture (``{"role", "blocks": [...]}``; text blocks starting with
  ``<system-reminder>`` left out on both sides: they are its own context);
* ``lost``: the conversation records on disk it will not send, grouped, each group with
  its reason and line range;
* ``added``: the turns it adds itself (``No response requested.``, …);
* ``error``: it refuses to resume (``No conversation found with session ID: …``);
* ``sent``: the record indices whose content is in ``messages``.

No file is read again: only the scan's skeletons (types, uuids, parents, block types, ids,
texts) are used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sidtui.core.base.gcpause import gc_paused
from sidtui.core.claude.resume_chain import LoadedChain, loaded_chain
from sidtui.core.claude.scan import CRecord
from sidtui.core.claude.tree import ClaudeTree
from sidtui.core.transcript.structs import visible_text

#: The Claude Code version the prediction is checked against.
AGENT_VERSION = "2.1.332"
#: The turn Claude Code adds after a conversation that ends on a user turn.
NO_RESPONSE = "No response requested."
#: What Claude Code sends instead of a tool result whose tool use it does not send.
ORPHAN_RESULT = "[Orphaned tool result removed due to conversation resume]"
#: Replies whose thinking blocks Claude Code 2.1.332 sends again, by model id prefix; the
#: thinking of every other model (older ones, unknown ids, ``<synthetic>``) is left out.
#: Observed in the lab, which resumes with claude-opus-4-6: kept for these, dropped for
#: claude-3-7-sonnet, claude-opus-4/-4-0/-4-1, claude-sonnet-4/-4-5/-4-7, claude-haiku-5 and
#: made-up ids (docs/CLAUDE-CODE.md §11.3).
KEEPS_THINKING = (
    "claude-opus-4-5",
    "claude-opus-4-6",
    "claude-opus-4-7",
    "claude-opus-5",
    "claude-sonnet-4-6",
    "claude-sonnet-5",
    "claude-haiku-4-5",
)
THINKING = ("thinking", "redacted_thinking")
#: What it sends for such a result further on (the message left empty).
NO_CONTENT = "(no content)"
#: Context Claude Code adds of its own (left out of ``messages`` on both sides).
REMINDER_PREFIX = "<system-reminder>"

#: The model of the replies Claude Code writes itself (errors, ``No response requested.``).
SYNTHETIC = "<synthetic>"
#: The records of a command the user ran in Claude Code itself (``/compact``, ``/model``…):
#: the caveat it writes first, then the command and its output.
CAVEAT = "<local-command-caveat>"
LOCAL_COMMAND_PARTS = ("<command-name>", "<local-command-stdout>", "<local-command-stderr>")
#: Tool names Claude Code sends under their new name (``Task`` became ``Agent`` in 2.1.x).
RENAMED = {"Task": "Agent"}

#: Lost-group reasons.
PARENT_MISSING = "parent_missing"
DAMAGED_LINE = "damaged_line"
COMPACTED = "compacted"
BRANCH = "branch"
SIDECHAIN = "sidechain"

_TURN_TYPES = frozenset({"user", "assistant"})


@dataclass
class LostGroup:
    """A run of conversation records Claude Code will not send.

    Attributes:
        reason: :data:`PARENT_MISSING` (the chain breaks: ``at`` names the record whose
            parent was never written), :data:`DAMAGED_LINE` (the record is on a line
            JSON.parse rejects), :data:`COMPACTED` (before the compaction resume starts
            from).
        records: the user/assistant record indices (conversation order); messages: the
            messages they make (an assistant response's parts are one); first_line/last_line:
            their line range.
        at_line: the line where the chain breaks (the first record Claude Code loads after
            the gap), or the damaged line; missing_parent: the uuid never written;
            damaged_line: the damaged line that most likely held that parent.
    """

    reason: str
    records: list[int]
    first_line: int
    last_line: int
    at_line: int | None = None
    missing_parent: str | None = None
    messages: int = 0
    damaged_line: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "messages": self.messages,
            "records": len(self.records),
            "lines": [self.first_line, self.last_line],
            "at_line": self.at_line,
            "missing_parent": self.missing_parent,
            "damaged_line": self.damaged_line,
        }


@dataclass
class ResumePrediction:
    """What ``claude --resume`` sends (see the module docstring)."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    lost: list[LostGroup] = field(default_factory=list)
    added: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    sent: set[int] = field(default_factory=set)
    chain: list[int] = field(default_factory=list)
    added_after: list[int] = field(default_factory=list)
    bridges: dict[int, int] = field(default_factory=dict)

    @property
    def lost_messages(self) -> int:
        return sum(g.messages for g in self.lost if g.reason != COMPACTED)

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": "claude-code",
            "agent_version": AGENT_VERSION,
            "messages": self.messages,
            "lost": [g.to_json() for g in self.lost],
            "added": self.added,
            "error": self.error,
        }


def predict_resume(
    objs: list[CRecord],
    lines: Any,
    damaged: set[int],
    session_id: str,
    tree: ClaudeTree,
    full: Callable[[int], Any] | None = None,
    rescued: frozenset[int] = frozenset(),
) -> ResumePrediction:
    """What Claude Code sends on ``--resume`` of a file whose records are ``objs``.

    Args:
        objs, lines: the scan's records and their 1-based lines.
        damaged: lines JSON.parse rejects (their salvaged records are not loaded).
        session_id: the file's session id (for the error Claude Code gives).
        tree: the display tree of ``objs`` (its conversation, with parallel tool calls
            spliced in, is cut where Claude Code's parent walk stops).
        full: record index → the decoded record (read for ``local_command`` system
            records only); None: they are not sent.
        rescued: records on a damaged line that Claude Code reads all the same.
    Never raises.
    """
    pred = ResumePrediction()
    gone = (
        {i for i, ln in enumerate(lines) if ln in damaged and i not in rescued}
        if damaged
        else set()
    )
    ch = loaded_chain(objs, gone, tree, full)
    if ch.leaf is None:
        pred.error = f"No conversation found with session ID: {session_id}"
        _lost_all(pred, objs, lines)
        return pred
    pred.chain = ch.records
    pred.bridges = ch.bridges
    _build_messages(pred, objs, ch.records, full)
    _lost(pred, objs, lines, damaged, gone, tree, ch)
    return pred


def _blocks(o: CRecord) -> list[dict[str, Any]]:
    m = o.message
    c = m.content if m is not None else None
    if isinstance(c, str):
        return [{"type": "text", "text": c}]
    out: list[dict[str, Any]] = []
    for b in c or []:
        t = b.type
        if t == "text":
            out.append({"type": "text", "text": b.text})
        elif t == "tool_use":
            out.append({"type": "tool_use", "id": b.id, "name": RENAMED.get(b.name, b.name)})
        elif t == "tool_result":
            out.append(
                {
                    "type": "tool_result",
                    "tool_use_id": b.tool_use_id,
                    "is_error": b.is_error is True,
                }
            )
        else:
            out.append({"type": t})
    return out


def _turn_blocks(o: CRecord, i: int, full: Callable[[int], Any] | None) -> tuple[str, list]:
    """The role and blocks record ``o`` is sent as ("" when it is not sent at all)."""
    t = o.type
    if t == "assistant":
        if _is_error_reply(o):
            return "", []  # an error Claude Code showed as a reply (the flag alone is not enough)
        blocks = _blocks(o)
        m = o.message.model if o.message is not None else None
        if not (isinstance(m, str) and m.startswith(KEEPS_THINKING)):
            blocks = [b for b in blocks if b["type"] not in THINKING]
        return t, blocks
    if t == "user":
        if o.rowSource == "recorded":  # kept for the transcript only (a task notification)
            return "", []
        return t, _blocks(o)
    if t == "system" and o.subtype == "local_command" and full is not None:
        rec = full(i)
        text = rec.get("content") if isinstance(rec, dict) else None
        if isinstance(text, str):
            return "user", [{"type": "text", "text": text}]
    return "", []


def _build_messages(
    pred: ResumePrediction,
    objs: list[CRecord],
    chain: list[int],
    full: Callable[[int], Any] | None,
) -> None:
    """Each chain record as it is sent (:func:`_items`), merged into turns: user records
    in a row are one turn (a text followed by text gets ``"\n"``); the parts of one
    response (same ``message.id``) with only tool results between them are one assistant
    turn, their results one user turn; two responses in a row stay two turns."""
    turns: list[dict[str, Any]] = []
    last_reply = -1  # the turn of the last assistant response, and its message.id
    last_mid: Any = None
    mine: list[tuple[dict[str, Any], str, list[dict[str, Any]]]] = []  # Claude Code's own
    for i, role, blocks in _items(pred, objs, chain, full):
        if role == "assistant":
            o = objs[i] if i >= 0 else None
            mid = o.message.id if o is not None and o.message is not None else None
            if mid is not None and mid == last_mid and _only_results(turns, last_reply):
                turns[last_reply]["blocks"].extend(blocks)  # more of one response
                continue
            last_mid = mid
            last_reply = len(turns)
            turns.append({"role": role, "blocks": blocks})  # another response: its own turn
            if i < 0:
                mine.append((turns[-1], "ends_on_user_turn", blocks))
            continue
        if turns and turns[-1]["role"] == role:
            _join(turns[-1]["blocks"], blocks)
        else:
            turns.append({"role": role, "blocks": blocks})
        if i < 0:
            mine.append((turns[-1], "ends_on_user_turn" if i == -1 else "pending_tool_use", blocks))
    turns, moved = _without_thinking_only(turns)
    mine = [(moved.get(id(t), t), why, blocks) for t, why, blocks in mine]
    for t in turns:  # orphan results: dropped beside other content, else one placeholder
        if t["role"] == "user" and len(t["blocks"]) > 1:
            keep = [b for b in t["blocks"] if not _is_orphan(b)]
            if keep and len(keep) < len(t["blocks"]):
                t["blocks"] = keep
            elif not keep:
                t["blocks"] = t["blocks"][:1]
    pred.messages = turns
    at = {id(t): k for k, t in enumerate(pred.messages)}
    pred.added = [
        {"index": at.get(id(t)), "why": why, "role": t["role"], "blocks": blocks}
        for t, why, blocks in mine
    ]


def _join(have: list[dict[str, Any]], blocks: list[dict[str, Any]]) -> None:
    """Append ``blocks`` to a turn of the same role; user text followed by text gets
    ``"\n"`` at its end."""
    if (
        have[-1]["type"] == "text"
        and blocks[0]["type"] == "text"
        and not _is_orphan(have[-1])  # a result, when the turns were joined
        and not _is_orphan(blocks[0])
    ):
        have[-1] = {"type": "text", "text": have[-1]["text"] + "\n"}
    have.extend(blocks)


def _without_thinking_only(
    turns: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], dict[int, dict[str, Any]]]:
    """``turns`` without the responses that hold only thinking (Claude Code drops them
    before it joins the turns: the user turns on both sides become one, lab), and which
    turn each joined turn went into."""
    out: list[dict[str, Any]] = []
    moved: dict[int, dict[str, Any]] = {}
    dropped = False
    for t in turns:
        if t["role"] == "assistant" and all(b["type"] in THINKING for b in t["blocks"]):
            dropped = True
            continue
        if dropped and out and out[-1]["role"] == "user" and t["role"] == "user":
            _join(out[-1]["blocks"], t["blocks"])
            moved[id(t)] = out[-1]
        else:
            out.append(t)
        dropped = False
    return out, moved


def _items(
    pred: ResumePrediction,
    objs: list[CRecord],
    chain: list[int],
    full: Callable[[int], Any] | None,
) -> list[tuple[int, str, list[dict[str, Any]]]]:
    """(record, role, blocks) for each chain record sent, and Claude Code's own
    ``No response requested.`` (record -1) after the last user/assistant record when it is
    a user record (system records after it do not count)."""
    out: list[tuple[int, str, list[dict[str, Any]]]] = []
    ends_on, ends_at = "", 0
    marks: list[tuple[int, int]] = []  # user/assistant records, items before them
    for i in chain:
        o = objs[i]
        role, blocks = _turn_blocks(o, i, full)
        blocks = [
            b
            for b in blocks
            if not (
                b["type"] == "text"
                and (not visible_text(b["text"]) or b["text"].startswith(REMINDER_PREFIX))
            )
        ]
        if blocks:
            pred.sent.add(i)
            out.append((i, role, blocks))
        if o.type == "assistant" and not _is_error_reply(o):
            # a reply left empty (only thinking it does not send, whitespace) is no turn;
            # an error reply is one until it is dropped on the way out (lab)
            if all(b["type"] in THINKING for b in blocks):
                continue
        if (o.type == "user" and o.rowSource != "recorded") or o.type == "assistant":
            marks.append((i, len(out)))  # a record kept for the transcript only is none
    # the last of these decides; attachments (even the files Claude Code re-reads into
    # context after /compact) do not count: a command led by its caveat does (lab)
    if marks:
        ends_on, ends_at = objs[marks[-1][0]].type or "", marks[-1][1]
        if ends_on == "user" and _ends_on_local_command(objs, [i for i, _ in marks], full):
            ends_on = "local_command"
    ends_on, ends_at = _tool_pairs(pred, objs, out, ends_on, ends_at)
    if ends_on == "user":
        out.insert(ends_at, (-1, "assistant", [{"type": "text", "text": NO_RESPONSE}]))
        pred.added_after.append(next((r for r, _, _ in reversed(out[:ends_at]) if r >= 0), -1))
    return out


def _ends_on_local_command(
    objs: list[CRecord], marks: list[int], full: Callable[[int], Any] | None
) -> bool:
    """The conversation ends on a command the user ran in Claude Code itself: from the last
    record back over the command's own records (``<command-name>``, its
    ``<local-command-stdout>``/``-stderr``) to the caveat Claude Code wrote before them (a
    meta record, no ``promptSource``). Then it adds no turn of its own (lab: a caveat
    rewritten as a prompt, given a ``promptSource`` or followed by a prompt, and the
    command's records without their caveat, all get ``No response requested.``)."""
    if full is None:
        return False
    for i in reversed(marks):
        o = objs[i]
        if o.type != "user":
            return False
        text = _first_text(o)
        if text.startswith(LOCAL_COMMAND_PARTS):
            continue
        if o.isMeta is True and text.startswith(CAVEAT):
            rec = full(i)
            return isinstance(rec, dict) and "promptSource" not in rec
        return False
    return False


def _first_text(o: CRecord) -> str:
    c = o.message.content if o.message is not None else None
    if isinstance(c, str):
        return c
    if c and c[0].type == "text" and isinstance(c[0].text, str):
        return c[0].text
    return ""


def _tool_pairs(
    pred: ResumePrediction,
    objs: list[CRecord],
    out: list[tuple[int, str, list[dict[str, Any]]]],
    ends_on: str,
    ends_at: int,
) -> tuple[str, int]:
    """Claude Code's tool-pair repair, in place: a ``tool_result`` whose ``tool_use`` is not
    sent before it becomes the text :data:`ORPHAN_RESULT`; a ``tool_use`` nothing answers
    is dropped, unless it is in the last response, which then gets an error result of
    Claude Code's own (record -2). Returns the new (ends_on, ends_at)."""
    uses: set[Any] = set()
    answered = {
        b["tool_use_id"]
        for _, role, blocks in out
        if role == "user"
        for b in blocks
        if b["type"] == "tool_result"
    }
    last_mid: Any = None
    for i, role, _ in out:
        if role == "assistant" and i >= 0:
            m = objs[i].message
            last_mid = m.id if m is not None else None
    pending: list[Any] = []
    last_reply = -1
    k = 0
    while k < len(out):
        i, role, blocks = out[k]
        if role == "user":
            for n, b in enumerate(blocks):
                if b["type"] == "tool_result" and b["tool_use_id"] not in uses:
                    blocks[n] = {"type": "text", "text": ORPHAN_RESULT if k == 0 else NO_CONTENT}
        else:
            m = objs[i].message
            last = m is not None and m.id is not None and m.id == last_mid
            keep = []
            for b in blocks:
                if b["type"] == "tool_use":
                    if b["id"] not in answered:
                        if not last:
                            continue
                        pending.append(b["id"])
                    uses.add(b["id"])
                keep.append(b)
            if not keep:
                del out[k]
                pred.sent.discard(i)
                ends_at -= 1 if ends_at > k else 0
                continue
            out[k] = (i, role, keep)
            last_reply = k
        k += 1
    if pending and last_reply >= 0 and ends_at > last_reply:
        res = [{"type": "tool_result", "tool_use_id": t, "is_error": True} for t in pending]
        out.insert(ends_at, (-2, "user", res))
        pred.added_after.append(out[ends_at - 1][0])
        return "user", ends_at + 1
    return ends_on, ends_at


def _is_error_reply(o: CRecord) -> bool:
    """A reply Claude Code wrote itself to show an error (``isApiErrorMessage`` and model
    ``<synthetic>``)."""
    return o.isApiErrorMessage is True and o.message is not None and o.message.model == SYNTHETIC


def _is_orphan(b: dict[str, Any]) -> bool:
    return b["type"] == "text" and b["text"].rstrip("\n") in (ORPHAN_RESULT, NO_CONTENT)


def _only_results(turns: list[dict[str, Any]], reply: int) -> bool:
    """Every turn after ``turns[reply]`` holds only tool results."""
    return reply >= 0 and all(
        b["type"] == "tool_result" for t in turns[reply + 1 :] for b in t["blocks"]
    )


def _lost(
    pred: ResumePrediction,
    objs: list[CRecord],
    lines: Any,
    damaged: set[int],
    gone: set[int],
    tree: ClaudeTree,
    ch: LoadedChain,
) -> None:
    """Group the user/assistant records of the display conversation (bridged, salvaged)
    that Claude Code does not load, in conversation order: on a damaged line
    (:data:`DAMAGED_LINE`); before where its walk starts — cut at a parent never written
    (:data:`PARENT_MISSING`) or on a damaged line (:data:`DAMAGED_LINE`), or compacted
    (:data:`COMPACTED`); or passed over where it joined a record to an earlier one
    (:data:`BRANCH`)."""
    on = set(pred.chain)
    start = pred.chain[0] if pred.chain else -1
    first = objs[start] if start >= 0 else None
    cut, missing, at_line = COMPACTED, None, None
    if ch.cut_at is not None:
        cut, missing, at_line = PARENT_MISSING, ch.missing_parent, lines[ch.cut_at]
        if any(objs[j].uuid == missing and j in gone for j in tree.conversation):
            cut = DAMAGED_LINE
    elif first is not None and not (first.type == "system" and first.subtype == "compact_boundary"):
        cut = BRANCH
    else:
        at_line = lines[start] if start >= 0 else None  # the compact boundary
    conv = tree.conversation
    try:
        k = conv.index(start) if start >= 0 else len(conv)
    except ValueError:  # the walk starts off the display conversation (a preserved boundary)
        k = len(conv)
    groups: list[LostGroup] = []
    run: list[int] = []
    run_reason = ""
    # records not loaded: before where the walk starts, and passed over after it
    for part, where in ((conv[:k], cut), (conv[k:], BRANCH)):
        for i in [i for i in part if i not in on and (objs[i].type in _TURN_TYPES)]:
            reason = DAMAGED_LINE if i in gone else where
            if run and reason != run_reason:
                groups.append(LostGroup(run_reason, run, 0, 0))
                run = []
            run_reason = reason
            run.append(i)
    if run:
        groups.append(LostGroup(run_reason, run, 0, 0))
    for g in groups:
        g.messages = _count_messages(objs, g.records)
        g.first_line = min(lines[i] for i in g.records)
        g.last_line = max(lines[i] for i in g.records)
        if g.reason == cut and cut != BRANCH:
            g.at_line, g.missing_parent = at_line, missing
            if at_line is not None and cut == PARENT_MISSING:
                # a damaged line between the lost records and the break most likely held
                # the parent (a torn record has no uuid left to tell)
                near = max((d for d in damaged if g.last_line < d < at_line), default=None)
                if near is not None:
                    g.reason, g.damaged_line = DAMAGED_LINE, near
        elif g.reason == DAMAGED_LINE:
            g.at_line = g.first_line
    pred.lost = groups


def _count_messages(objs: list[CRecord], recs: list[int]) -> int:
    """Messages among ``recs``: a user record is one, an assistant response's parts (one
    ``message.id``) are one."""
    mids = [m.id if (m := objs[i].message) is not None else None for i in recs]
    users = sum(1 for i in recs if objs[i].type == "user")
    ids = {
        mid
        for i, mid in zip(recs, mids, strict=True)
        if mid is not None and objs[i].type == "assistant"
    }
    loose = sum(
        1 for i, mid in zip(recs, mids, strict=True) if mid is None and objs[i].type == "assistant"
    )
    return users + len(ids) + loose


def _lost_all(pred: ResumePrediction, objs: list[CRecord], lines: Any) -> None:
    recs = [i for i, o in enumerate(objs) if o.type in ("user", "assistant")]
    if recs:
        n = _count_messages(objs, recs)
        pred.lost = [LostGroup(DAMAGED_LINE, recs, lines[recs[0]], lines[recs[-1]], messages=n)]


def predict_for(tr: Any) -> ResumePrediction:
    """:func:`predict_resume` of a :class:`~.transcript.ClaudeTranscript` (main files)."""
    sc = tr.scan
    damaged = {b.line for b in sc.bad_lines if not _loads_anyway(b)}
    with gc_paused():  # many small dicts among millions of objects without cycles
        return predict_resume(
            sc.objs, sc.lines, damaged, tr.file.session_id, tr.tree, tr.record, _rescued(sc)
        )


def _rescued(sc: Any) -> frozenset[int]:
    """Records on a damaged line Claude Code reads all the same: a whole record at the very
    start of the line with more after it (a record glued on, a torn one) — JSON.parse stops
    after the first value and Claude Code keeps it; the rest of the line is lost (lab)."""
    if not sc.bad_lines:
        return frozenset()
    starts = {b.line: b.offset for b in sc.bad_lines}
    out = set()
    seen: set[int] = set()
    for i, ln in enumerate(sc.lines):
        at = starts.get(ln)
        if at is not None and ln not in seen:
            seen.add(ln)
            if sc.start_at(i) == at:
                out.add(i)
    return frozenset(out)


def lost_notice(g: LostGroup) -> str:
    """One sentence for people about a lost group (``show`` prints it below the group)."""
    n = g.messages
    what = f"the {n} message{'s' if n != 1 else ''} above"
    if g.reason == COMPACTED:
        return (
            f"Claude Code sends the summary after the compaction at line {g.at_line} instead "
            f"of {what} (compacted)"
        )
    if g.reason == DAMAGED_LINE and g.first_line == g.at_line:
        why = f"line {g.first_line} is damaged (JSON.parse rejects it)"
    elif g.reason == DAMAGED_LINE:
        on = f"damaged line {g.damaged_line}" if g.damaged_line else "a damaged line"
        why = f"the chain breaks at line {g.at_line}, whose parent is on {on}"
    else:
        why = f"the chain breaks at line {g.at_line}, whose parent was never written"
    return (
        f"Claude Code will not load {what}: {why} — `sidtui repair` makes a session it loads whole"
    )


def _loads_anyway(b: Any) -> bool:
    """A damaged line Claude Code reads all the same: the first line, one whole record
    behind a byte-order mark (3 bytes)."""
    return b.recovered == 1 and b.line == 1 and 0 < b.lost_bytes <= 3

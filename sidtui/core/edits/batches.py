"""What an agent batch left in a file, proven from the transcript (docs/DECISIONS.md, drift).

:class:`BatchResults` holds a transcript's tool calls (every branch, in file order);
``post_image(snapshot, path, pre)`` applies the calls on ``path`` from that snapshot's
batch on (the agent's ``structuredPatch`` hunks, checked line by line; a ``write``'s
content) to ``pre``, or returns :data:`UNKNOWN`. :func:`apply_structured_patch` is the
hunk applier.

Design notes: docs/ARCHITECTURE.md, “core/edits/batches.py”.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sidtui.core.base.errors import SidtuiError
from sidtui.core.edits.points import iso_to_ms
from sidtui.core.transcript.scan import scan_records
from sidtui.core.transcript.source import read_transcript

#: The post-image could not be proven (the value :meth:`BatchResults.post_image` returns).
UNKNOWN = "unknown"


class PatchMismatch(ValueError):
    """A hunk's context or removed lines are not the base's (the patch does not apply)."""


def apply_structured_patch(base: str, hunks: list[Any]) -> str:
    """Apply jsdiff ``structuredPatch`` hunks to ``base`` (lines split on ``\\n``).

    Args:
        base: the text before.
        hunks: ``[{oldStart, oldLines, newStart, newLines, lines: [" ctx", "-old", "+new",
            "\\\\ No newline at end of file"]}]`` in file order.

    Raises:
        PatchMismatch: a hunk does not match ``base`` (or is malformed).
    """
    lines = base.split("\n")
    final_nl = base.endswith("\n")
    if final_nl:
        lines.pop()
    if base == "":
        lines = []
    # jsdiff splits on \r\n too: a CRLF file's lines are matched without their \r, and
    # the lines a patch adds get it back (the agent's edit tool keeps the file's endings).
    crlf = "\r\n" in base and all(ln.endswith("\r") for ln in lines)
    cr = "\r" if crlf else ""
    offset = 0
    new_marker = False
    reaches_end = False
    for h in hunks:
        if not isinstance(h, dict) or not isinstance(h.get("lines"), list):
            raise PatchMismatch("malformed hunk")
        old_start, old_count = h.get("oldStart"), h.get("oldLines")
        if not isinstance(old_start, int) or not isinstance(old_count, int):
            raise PatchMismatch("malformed hunk")
        at = (old_start - 1 if old_count else min(old_start, len(lines) - offset)) + offset
        if at < 0:
            raise PatchMismatch(f"hunk at line {old_start} starts before the file")
        pos = at
        out: list[str] = []
        prev = ""
        hunk_new_marker = False
        for ln in h["lines"]:
            if not isinstance(ln, str) or not ln:
                raise PatchMismatch("malformed hunk line")
            tag, text = ln[0], ln[1:]
            if tag == "\\":
                if prev in (" ", "+"):
                    hunk_new_marker = True
                continue
            if tag in (" ", "-"):
                if pos >= len(lines) or lines[pos].removesuffix(cr) != text.removesuffix(cr):
                    raise PatchMismatch(f"hunk at line {old_start} does not match")
                if tag == " ":
                    out.append(lines[pos])
                pos += 1
            elif tag == "+":
                out.append(text + cr if crlf and not text.endswith("\r") else text)
            else:
                raise PatchMismatch(f"unknown hunk line tag {tag!r}")
            prev = tag
        if pos - at != old_count:
            raise PatchMismatch(f"hunk at line {old_start} has a wrong line count")
        reaches_end = pos == len(lines)
        new_marker = hunk_new_marker
        lines[at:pos] = out
        offset += len(out) - (pos - at)
    if hunks and reaches_end:
        final_nl = not new_marker
        if crlf and final_nl and lines and not lines[-1].endswith("\r"):
            lines[-1] += "\r"
    if not lines:
        return ""
    return "\n".join(lines) + ("\n" if final_nl else "")


@dataclass
class _Call:
    name: str
    input: dict[str, Any]
    result: dict[str, Any] | None = None


@dataclass
class _Assistant:
    """An assistant message with tool calls, in physical (time) order."""

    timestamp_ms: int | None
    calls: list[_Call] = field(default_factory=list)

    @property
    def tool_name(self) -> str:
        return ", ".join(c.name for c in self.calls)


def post_image_of(source: Any) -> Any:
    """A ``post_image`` callable for the drift check that scans ``source`` (a
    :class:`~sidtui.core.transcript.records.RecordFile`, or a transcript path) on first use;
    None when ``source`` is None (no transcript: every agent batch is unknown, never
    suspect — :attr:`~sidtui.core.checkpoints.drift.Expected.suspect`)."""
    if source is None:
        return None
    cache: list[BatchResults | None] = []

    def post_image(snapshot: dict[str, Any], path: str, pre: bytes | None) -> bytes | None | str:
        if not cache:
            if isinstance(source, (str, Path)):
                cache.append(BatchResults.from_path(Path(source)))
            else:
                cache.append(BatchResults.from_records(source))
        results = cache[0]
        return UNKNOWN if results is None else results.post_image(snapshot, path, pre)

    return post_image


def _decode_text(data: bytes | None) -> str | None:
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _content(rec: Any) -> list[Any]:
    msg = rec.get("message") if isinstance(rec, dict) else None
    content = msg.get("content") if isinstance(msg, dict) else None
    return content if isinstance(content, list) else []


class BatchResults:
    """The tool calls of a transcript (every branch, in file order), looked up by snapshot.

    Build with :meth:`from_records` (a scanned :class:`sidtui.core.transcript.records.RecordFile`)
    or :meth:`from_path`; then :meth:`post_image`. Branches count because files are not
    rewound with a conversation: an abandoned branch's edits are still on disk.
    """

    def __init__(self, assistants: list[_Assistant], by_sid: dict[str, int]) -> None:
        self._assistants = assistants
        self._by_sid = by_sid

    @classmethod
    def from_records(cls, rf: Any) -> BatchResults:
        """From a scanned transcript (only lines naming a tool or ``file_changes`` decoded)."""
        assistants: list[_Assistant] = []
        by_id: dict[str, _Call] = {}
        by_sid: dict[str, int] = {}
        for r in rf.records:
            if r.type not in ("assistant_message", "user_message", "metadata"):
                continue
            raw = rf.raw(r)
            if r.type == "metadata":
                if b'"file_changes"' not in raw:
                    continue
                d = rf.decode(r)
                value = d.get("value") if isinstance(d, dict) else None
                sid = value.get("lastSnapshotId") if isinstance(value, dict) else None
                if isinstance(sid, str) and assistants and d.get("key") == "file_changes":
                    by_sid.setdefault(sid, len(assistants) - 1)
                continue
            if b'"tool_use"' not in raw and b'"tool_result"' not in raw:
                continue
            d = rf.decode(r)
            if r.type == "assistant_message":
                ts = d.get("timestamp") if isinstance(d, dict) else None
                a = _Assistant(iso_to_ms(ts) if isinstance(ts, str) else None)
                for b in _content(d):
                    if isinstance(b, dict) and b.get("type") == "tool_use":
                        inp = b.get("input")
                        c = _Call(str(b.get("name")), inp if isinstance(inp, dict) else {})
                        a.calls.append(c)
                        if isinstance(b.get("id"), str):
                            by_id[b["id"]] = c
                if a.calls:
                    assistants.append(a)
            else:
                for b in _content(d):
                    if isinstance(b, dict) and b.get("type") == "tool_result":
                        tid = b.get("tool_use_id")
                        call = by_id.get(tid) if isinstance(tid, str) else None
                        if call is not None and call.result is None:
                            call.result = b
        return cls(assistants, by_sid)

    @classmethod
    def from_path(cls, path: Path) -> BatchResults | None:
        """From a transcript file; None when it cannot be read."""
        try:
            data: Any = read_transcript(path)  # bytes, or a FileSource for a big file
            return cls.from_records(scan_records(data))
        except (OSError, ValueError, SidtuiError):
            return None

    def _batch_start(self, snapshot: dict[str, Any]) -> int | None:
        sid, tool_name = snapshot.get("id"), snapshot.get("toolName")
        if not isinstance(tool_name, str):
            return None
        idx = self._by_sid.get(sid) if isinstance(sid, str) else None
        if idx is not None and self._assistants[idx].tool_name == tool_name:
            return idx
        ts = snapshot.get("timestamp")
        if not isinstance(ts, (int, float)):
            return None
        best = None
        for i, a in enumerate(self._assistants):
            if a.timestamp_ms is not None and a.timestamp_ms <= ts and a.tool_name == tool_name:
                best = i
        return best

    def post_image(
        self,
        snapshot: dict[str, Any],
        path: str,
        pre: bytes | None,
        upto: dict[str, Any] | None = None,
    ) -> bytes | None | str:
        """What the session left in ``path`` from ``snapshot``'s batch on (``pre``: its
        content before that batch).

        Every later call on the file counts too (up to the batch of snapshot ``upto``, if
        given): a batch whose snapshot the agent never saved (it skips files equal to
        their last entry) still changed it.

        Returns:
            The bytes, None (the file did not exist afterwards), or :data:`UNKNOWN`.
        """
        summary = snapshot.get("toolSummary")
        if isinstance(summary, str) and summary.startswith("$ ") and " → " in summary:
            touched = summary.split(" → ", 1)[1].split(", ")
            if path in (t.strip() for t in touched):
                return UNKNOWN  # a shell command changed it: no patch says how
        start = self._batch_start(snapshot)
        if start is None:
            return UNKNOWN
        text = _decode_text(pre) if pre is not None else None
        if pre is not None and text is None:
            return UNKNOWN  # a binary file: the patches are text
        end = self._batch_start(upto) if upto is not None else None
        touched_it = False
        for a in self._assistants[start:end]:
            for c in a.calls:
                if c.input.get("file_path") != path or c.name == "read":
                    continue
                touched_it = True
                res = c.result
                if res is None:
                    return UNKNOWN  # the result was lost (killed): did the change land?
                if res.get("is_error"):
                    continue
                patch = res.get("structuredPatch")
                if isinstance(patch, list):
                    try:
                        text = apply_structured_patch(text or "", patch)
                    except PatchMismatch:
                        return UNKNOWN
                elif c.name == "write" and isinstance(c.input.get("content"), str):
                    text = c.input["content"]
                else:
                    return UNKNOWN
        if not touched_it:
            return UNKNOWN
        return None if text is None else text.encode("utf-8")

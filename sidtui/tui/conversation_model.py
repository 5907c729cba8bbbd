"""The Conversation tab's rows: any source's session laid out as collapsible entries (no Textual).

One :class:`Entry` per message header and per content block, in the reader's order, so the
view shows every message the source's reader returns. What the reader says of them is
attached, never recomputed (:meth:`~sidtui.core.sources.base.SessionModel.reading`): a
message or block not sent on resume is marked with the reason (shown dimmed: sid-code's
cleaning layer, a Claude Code compaction or what its ``--resume`` leaves out), a header's
note (a re-queued prompt, a local command), compaction markers, and the final banner with
the interruption state and what resume does.

Bodies are produced lazily: tool inputs and tool-result contents are decoded from the
record only when an entry is drawn (:meth:`ConversationModel.body`), so opening a 100 MB
session costs one pass over the reader's messages, not a decode of every record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sidtui.core.transcript.messages import tool_name_text
from sidtui.fmt import cut_path, printable
from sidtui.tui.fmt import clock_time, one_line, pretty_json

#: Lines of a text block shown before "… N more lines".
TEXT_PREVIEW_LINES = 12
COLLAPSED_KINDS = frozenset({"thinking", "redacted_thinking", "tool_use", "tool_result"})


@dataclass(slots=True)
class Entry:
    """One row group of the Conversation tab.

    Attributes:
        kind: ``header`` (a message), ``text``, ``thinking``, ``redacted_thinking``,
            ``tool_use``, ``tool_result``, ``other`` (unknown block), ``banner``.
        msg: index of the message in the model's message list.
        block: block position in the original message (None for headers/banners).
        role: the message's role.
        dropped: ``"layer: reason"`` when recovery cleaning removes it.
        collapsed: whether only the summary line is shown.
        note: extra words for the header (re-queued prompt, changed by cleaning...).
    """

    kind: str
    msg: int | None
    block: int | None = None
    role: str | None = None
    dropped: str | None = None
    collapsed: bool = False
    note: str | None = None

    @property
    def collapsible(self) -> bool:
        return self.kind in COLLAPSED_KINDS or self.kind == "text"


@dataclass(repr=False)
class ConversationModel:
    """Entries plus lazy access to the blocks behind them.

    Attributes:
        entries: rows in display order.
        messages: the reader's messages (``reading.messages``).
        view: the session model (:class:`~sidtui.core.sources.base.SessionModel`).
        reading: its :class:`~sidtui.core.sources.base.ConversationReading`.
        message_entry: for each message index, the index of its header entry.
    """

    entries: list[Entry] = field(default_factory=list)
    messages: list[Any] = field(default_factory=list)
    view: Any = None
    message_entry: dict[int, int] = field(default_factory=dict)
    banner: list[str] = field(default_factory=list)
    banner_kind: str = "none"
    reading: Any = None
    #: sub-agents known from the session that opened this one (a sub-agent's own
    #: transcript names none of the agents it spawned: its session does)
    inherited: list[Any] = field(default_factory=list)
    _links: list[Any] | None = None

    def __repr__(self) -> str:  # the default would print every entry
        return f"ConversationModel({len(self.messages)} messages, {len(self.entries)} entries)"

    # ------------------------------------------------------------------ building

    @classmethod
    def from_view(cls, view) -> ConversationModel:
        """Lay out ``view`` (any source's session model) from its
        :meth:`~sidtui.core.sources.base.SessionModel.reading`: O(messages + blocks), no
        record decoding."""
        r = view.reading()
        model = cls(view=view, reading=r)
        model.messages = r.messages
        for i, m in enumerate(model.messages):
            for rec_index in r.compacts.get(i, ()):
                model.entries.append(Entry("compact", None, rec_index))
            model.add_message(i, m, r.dropped.get(i), r.block_dropped, r.notes.get(i))
        model.banner, model.banner_kind = r.banner, r.banner_kind
        model.entries.append(Entry("banner", None))
        return model

    def add_message(self, i: int, m, dropped: str | None, blocks, note) -> None:
        self.message_entry[i] = len(self.entries)
        self.entries.append(Entry("header", i, role=m.role, dropped=dropped, note=note))
        results = sum(1 for b in m.blocks if b.type == "tool_result")
        if results > 1:
            self.entries[-1].note = ((note + "; ") if note else "") + f"{results} parallel results"
        for bi, b in enumerate(m.blocks):
            if b.type == "text" and isinstance(b.text, str) and (not b.text or b.text.isspace()):
                continue  # a blank text block ("\n\n") says nothing: no blank lines drawn
            kind = b.type if b.type in COLLAPSED_KINDS or b.type == "text" else "other"
            self.entries.append(
                Entry(
                    kind,
                    i,
                    bi,
                    role=m.role,
                    # a block's own layer and reason first: layer 3 strips a block, then
                    # layer 4 may drop the whole message for what is left
                    dropped=blocks.get((i, bi)) or dropped,
                    collapsed=kind in COLLAPSED_KINDS or kind == "text",
                )
            )

    # ------------------------------------------------------------------ lazy content

    def source(self) -> tuple[Any, int] | None:
        """``(path, bytes read)`` of the transcript whose lines :meth:`lines_of` names, as
        it was loaded (None: lines unknown), for find's byte prefilter."""
        return self.reading.span()

    def lines_of(self, msg: int) -> tuple[int, ...]:
        """The file lines message ``msg`` is read from (empty: unknown)."""
        return self.reading.lines_of(msg)

    def raw_block(self, msg: int, block: int) -> dict[str, Any] | None:
        """The block's full JSON object, decoded from its record(s) on demand."""
        content = self.reading.content(msg)
        if isinstance(content, list) and 0 <= block < len(content):
            b = content[block]
            return b if isinstance(b, dict) else None
        return None

    def tool_name_for(self, tool_use_id: str | None) -> str | None:
        """The tool name of the ``tool_use`` a result answers (searched backwards)."""
        if not tool_use_id:
            return None
        names = self.tool_names()
        return names.get(tool_use_id)

    def tool_names(self) -> dict[str, str]:
        cache = getattr(self, "_names_cache", None)
        if cache is None:
            cache = {}
            for m in self.messages:
                for b in m.blocks:
                    if b.type == "tool_use" and b.id:
                        cache[b.id] = tool_name_text(b.name) or "?"
            self._names_cache = cache
        return cache

    def header_text(self, e: Entry) -> str:
        """One entry's header line (control characters shown as ``\\xNN``, tabs as
        spaces); a block dropped for a reason of its own says which layer and why."""
        text = self._header_text(e)
        if e.kind not in ("header", "banner", "compact", "text") and self._own_drop(e):
            text += f"  · dropped by {e.dropped}"
        return printable(text).expandtabs(4)

    def header_note(self, e: Entry) -> str | None:
        """The words drawn under a line, wrapped: a message's note and the cleaning layer
        that drops it; for a tool or thinking block dropped for a reason of its own, that
        layer and reason (shown when the block is expanded)."""
        if e.kind == "header":
            parts = [e.note] if e.note else []
            if e.dropped:
                parts.append(f"dropped by {e.dropped}")
            return printable(" · ".join(parts)).expandtabs(4) if parts else None
        if e.kind not in ("banner", "compact", "text") and self._own_drop(e):
            return printable(f"✗ dropped by {e.dropped}").expandtabs(4)
        return None

    def subagent_links(self) -> list[Any]:
        """The session's sub-agents (``SessionModel.subagent_links``), then those it
        inherited; read on first use."""
        if self._links is None:
            links = getattr(self.view, "subagent_links", None)  # a reader may have none
            try:
                own = list(links()) if links is not None else []
            except (OSError, ValueError):
                own = []
            self._links = own + [x for x in self.inherited if x not in own]
        return self._links

    def subagent_of(self, e: Entry) -> Any:
        """The sub-agent a tool use (or its result) spawned, with a transcript to open:
        linked by the tool use's id, else (a source that records no id) by the call's
        description; None for any other entry."""
        if e.kind not in ("tool_use", "tool_result") or e.msg is None or e.block is None:
            return None
        b = self.messages[e.msg].blocks[e.block]
        spawn = b.id if e.kind == "tool_use" else b.tool_use_id
        if not spawn:
            return None
        links = [x for x in self.subagent_links() if x.ref is not None]
        if not links:
            return None
        hit = next((x for x in links if x.spawn_id == spawn), None)
        if hit is not None or e.kind != "tool_use":
            return hit
        inp = (self.raw_block(e.msg, e.block) or {}).get("input")
        what = inp.get("description") if isinstance(inp, dict) else None
        if not isinstance(what, str) or not what:
            return None
        return next((x for x in links if x.spawn_id is None and x.description == what), None)

    def header_path(self, e: Entry) -> str | None:
        """The path a tool use's header line ends with (a view that must cut the line
        cuts the path's middle, never its file name); None for any other line."""
        if e.kind != "tool_use" or e.msg is None or self._own_drop(e):
            return None
        raw = self.raw_block(e.msg, e.block) or {}
        inp = raw.get("input")
        if not isinstance(inp, dict):
            return None
        for key in PATH_KEYS:
            v = inp.get(key)
            if isinstance(v, str) and v and "\n" not in v:
                return printable(v).expandtabs(4)
        return None

    def _own_drop(self, e: Entry) -> bool:
        """A block drop that its message's header does not already say."""
        if not e.dropped or e.msg is None:
            return False
        head = self.entries[self.message_entry[e.msg]]
        return head.dropped != e.dropped

    def _header_text(self, e: Entry) -> str:
        """The one-line summary of an entry (without fold markers or styles)."""
        if e.kind == "banner":
            return self.banner[0] if self.banner else ""
        if e.kind == "compact":
            return self.reading.compact_text(e.block)
        m = self.messages[e.msg]
        if e.kind == "header":
            role = m.role or "?"
            where = f"line {m.line}" if getattr(m, "line", None) else ""
            ts = clock_time(getattr(m, "timestamp", None))
            parts = [role, where, ts]
            if getattr(m, "turn", None) is not None:
                parts.append(f"turn {m.turn}")
            return "  ".join(p for p in parts if p)
        b = m.blocks[e.block]
        if e.kind == "text":
            return one_line(self.text_of(e.msg, b.text_like or ""), 200)
        if e.kind == "thinking":
            t = b.text_like or ""
            return f"thinking ({len(t)} chars)  {one_line(t, 100)}"
        if e.kind == "redacted_thinking":
            return "redacted thinking"
        if e.kind == "tool_use":
            raw = self.raw_block(e.msg, e.block) or {}
            line = f"⚙ {tool_name_text(b.name) or '?'}  {tool_input_summary(raw.get('input'))}"
            if self.subagent_of(e) is not None:
                line = f"{line}  ↵ sub-agent"  # Enter opens its transcript
            return line
        if e.kind == "tool_result":
            raw = self.raw_block(e.msg, e.block) or {}
            name = self.tool_name_for(b.tool_use_id) or "tool"
            status = "error" if (b.is_error or raw.get("is_error")) else "ok"
            return f"⮑ {name} {status}  {one_line(result_text(raw.get('content')), 120)}"
        return f"{b.type or '(no type)'} block"

    def text_of(self, msg: int, text: str) -> str:
        """A text block as drawn: as the reader shows it (``text_shown``: a command record
        as typed), without the blank lines around it."""
        shown = getattr(self.reading, "text_shown", None)
        if shown is not None:
            text = shown(msg, text)
        return text.strip("\n")

    def body(self, e: Entry) -> str:
        """The full text an expanded entry shows (control characters shown as ``\\xNN``);
        a text block dropped for a reason of its own starts with the layer and reason."""
        body = printable(self._body(e))
        if e.kind == "text" and self._own_drop(e):
            body = printable(f"✗ dropped by {e.dropped}") + "\n" + body
        return body

    def _body(self, e: Entry) -> str:
        if e.kind == "banner":
            return "\n".join(self.banner[1:])
        if e.kind == "header":
            return ""
        m = self.messages[e.msg]
        b = m.blocks[e.block]
        if e.kind == "text":
            return self.text_of(e.msg, b.text_like or "")
        if e.kind == "thinking":
            return b.text_like or ""
        raw = self.raw_block(e.msg, e.block) or {}
        if e.kind == "tool_use":
            return pretty_json(raw.get("input"))
        if e.kind == "tool_result":
            return result_text(raw.get("content"))
        return pretty_json(raw)


#: Tool input keys holding the path a tool acts on (its summary keeps the file name).
PATH_KEYS = ("file_path", "path", "notebook_path")


def tool_input_summary(inp: Any, width: int = 100) -> str:
    """One line for a tool input: the path, command or pattern it acts on."""
    if not isinstance(inp, dict):
        return one_line(str(inp) if inp is not None else "", width)
    for key in PATH_KEYS:
        v = inp.get(key)
        if isinstance(v, str) and v and "\n" not in v:
            return cut_path(printable(v), width)  # the file name kept, the middle cut
    for key in ("command", "pattern", "url", "query", "description", "prompt"):
        v = inp.get(key)
        if isinstance(v, str) and v:
            return one_line(v, width)
    for v in inp.values():
        if isinstance(v, str) and v:
            return one_line(v, width)
    return one_line(pretty_json(inp).replace("\n", " "), width)


def result_text(content: Any) -> str:
    """A tool result's content as text (string, or the text of its blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for c in content:
            if isinstance(c, dict):
                if isinstance(c.get("text"), str):
                    parts.append(c["text"])
                else:
                    parts.append(f"[{c.get('type', 'block')}]")
            else:
                parts.append(str(c))
        return "\n".join(parts)
    if content is None:
        return ""
    return pretty_json(content)

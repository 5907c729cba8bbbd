"""The HTML export: structure (facts, lost set apart, details, diffs, sub-agents) and
escaping — a transcript's ``<script>``, ``</script>`` in the embedded JSON, attribute
injection and ``javascript:`` URLs stay text (also over arbitrary text, hypothesis)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sidtui.core.base.conversation import ConversationItem, SessionFacts, SubagentLink
from sidtui.core.export import Document
from sidtui.core.export.html import CSP, SCRIPT, e, script_json, write_html
from tests.core.export.support import (
    HOSTILE_PROMPT,
    HOSTILE_RESULT,
    HOSTILE_TITLE_BIT,
    JS_URL,
    claude_doc,
    parse,
    render,
    sid_doc,
)

#: The tags the page itself makes: nothing a transcript says adds one.
PAGE_TAGS = {
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "dl", "dt", "dd", "div",
    "input", "span", "main", "section", "header", "details", "summary", "pre", "code", "b",
    "p", "i", "footer", "script", "ul", "li",
}  # fmt: skip


def _check_inert(page: str) -> None:
    """Only the page's own tags; no event handler attribute, no link, two scripts: the
    JSON island (which parses) and the page's script (whose hash the CSP names)."""
    tags = parse(page)
    assert {t for t, _ in tags.tags} <= PAGE_TAGS
    for _, attrs in tags.tags:
        assert not any(k.startswith("on") for k in attrs), attrs
        assert "href" not in attrs and "src" not in attrs
    assert len(tags.scripts) == 2
    (island_attrs, island), (own_attrs, own) = tags.scripts
    assert island_attrs == {"type": "application/json", "id": "sidtui-session"}
    json.loads(island)
    assert own_attrs == {} and own == SCRIPT


def test_claude_session_structure_and_escaping(tmp_path: Path) -> None:
    page = render(claude_doc(tmp_path), "html")
    _check_inert(page)
    tags = parse(page)
    text = "".join(tags.texts)
    assert HOSTILE_PROMPT in text  # shown as text, whole
    assert HOSTILE_RESULT in text
    assert "<script>alert" not in page and "<img" not in page and "<svg" not in page
    assert JS_URL in text
    assert HOSTILE_TITLE_BIT.replace('"', '\\"') in text  # inside the input's JSON, as text
    assert f'content="{CSP}"' in page
    # facts, collapsible call and result, the edit as a diff, thinking collapsed
    assert "Claude Code" in text and "-tmp-cc" in text
    assert '<details class="tool">' in page and "call <b>Edit</b>" in page
    assert '<span class="d">-x = 1</span><span class="i">+x = 2</span>' in page
    assert '<details class="result">' in page and "result of <b>Edit</b>" in page
    assert '<details class="thinking">' in page
    assert "pondering &lt;/details&gt; &lt;b&gt;bold&lt;/b&gt;" in page
    assert page.count('<section class="msg') == 6


def test_sid_code_session(tmp_path: Path) -> None:
    page = render(sid_doc(tmp_path), "html")
    _check_inert(page)
    text = "".join(parse(page).texts)
    assert HOSTILE_PROMPT in text and "sid-code" in text
    assert "the reply " + JS_URL in text


def test_script_json_cannot_close_the_element() -> None:
    v = {"title": "</script><script>alert(1)</script><!-- \u2028 &amp;"}
    out = script_json(v)
    assert "<" not in out and ">" not in out and "&" not in out and "\u2028" not in out
    assert json.loads(out) == v


# ---------------------------------------------------------------- a document in memory


class _Model:
    """The parts of a SessionModel a Document reads (items given, sub-agents optional)."""

    def __init__(self, items, links=(), subs=None, path="/x/s.jsonl", title="t") -> None:
        self.file = SimpleNamespace(path=Path(path), kind="main")
        self.session_id = "s"
        self.interruption_kind = "none"
        self.interruption_tools: list[str] = []
        self.warnings: list[str] = []
        self.liveness = SimpleNamespace(live=False)
        self._items, self._links, self._title = list(items), list(links), title

    def facts(self):
        return SessionFacts(title=self._title, project="p")

    def conversation_items(self):
        return iter(self._items)

    def subagent_links(self):
        return self._links


class _Source:
    name, label, usage_gaps = "fake", "Fake", None

    def __init__(self, subs=None) -> None:
        self.subs = subs or {}

    def open(self, ref):
        return self.subs[ref.path]


def _page(items, title="t", source=None, links=()) -> str:
    buf = io.BytesIO()
    write_html(Document(source or _Source(), _Model(items, links, title=title)), buf)
    return buf.getvalue().decode()


def _text(s: str) -> str:
    """What a page shows of ``s``: a lone surrogate as U+FFFD; CR as LF (the parser's)."""
    s = s.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return s.replace("\r\n", "\n").replace("\r", "\n")


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300), st.text(max_size=100))
@example("</script><script>alert(1)</script>", '" onmouseover="alert(1)')
@example("<!--", "]]>")
@example("\ud800 lone", "\x00nul")
def test_any_text_stays_text(prompt: str, name: str) -> None:
    items = [
        ConversationItem("user", [{"type": "text", "text": prompt}], prompt=True),
        ConversationItem(
            "assistant",
            [{"type": "tool_use", "id": "t1", "name": name, "input": {"command": prompt}}],
        ),
        ConversationItem(
            "user", [{"type": "tool_result", "tool_use_id": "t1", "content": prompt}],
            status="lost", reason=name,
        ),
    ]  # fmt: skip
    page = _page(items, title=prompt)
    _check_inert(page)
    tags = parse(page)
    shown = "".join(tags.texts).replace("\r\n", "\n").replace("\r", "\n")
    assert _text(prompt).replace("\x00", "\ufffd") in shown.replace("\x00", "\ufffd")


@given(st.text())
def test_escape_round_trips(s: str) -> None:
    from html import unescape

    out = e(s)
    assert not set("<>\"'") & set(out)
    assert unescape(out) == s


def test_lost_and_added_set_apart_and_subagent_nested() -> None:
    sub = _Model([ConversationItem("user", [{"type": "text", "text": "sub-agent task"}])])
    link = SubagentLink("t1", SimpleNamespace(path=Path("/x/sub.jsonl")), "agent-1", "Explore")
    items = [
        ConversationItem("user", [{"type": "text", "text": "gone 1"}], "lost", "chain breaks"),
        ConversationItem("assistant", [{"type": "text", "text": "gone 2"}], "lost", "chain breaks"),
        ConversationItem("user", [{"type": "text", "text": "kept"}], prompt=True),
        ConversationItem(
            "assistant", [{"type": "tool_use", "id": "t1", "name": "Task", "input": {}}]
        ),
        ConversationItem(None, [{"type": "text", "text": "note"}], "added", "agent's own"),
    ]
    page = _page(items, source=_Source({Path("/x/sub.jsonl"): sub}), links=[link])
    _check_inert(page)
    assert page.count('<div class="lost">') == 1  # one box for the two lost messages
    tags = parse(page)
    assert "lost" in tags.within("gone 1") and "lost" in tags.within("gone 2")
    assert "lost" not in tags.within("kept")
    assert '<section class="msg assistant added"' in page
    assert tags.within("sub-agent task")[-4:] == ["msg assistant", "subagent", "msg user", "text"]
    assert page.index("call <b>Task</b>") < page.index("sub-agent task") < page.index("note")
    assert "1 sub-agents" in page


class _Chunks(io.RawIOBase):
    """A stream that keeps only the size of each write."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        self.sizes.append(len(b))
        return len(b)


@pytest.mark.parametrize("fmt", ["html", "md", "json"])
def test_written_in_bounded_chunks(fmt: str) -> None:
    """A long session goes out in many writes, none near the whole output: the output is
    never held whole (each chunk is bounded by the pieces gathered between messages)."""
    from sidtui.core.export import write

    items = (
        ConversationItem("user", [{"type": "text", "text": f"message {n} " + "x" * 200}])
        for n in range(40_000)
    )
    out = _Chunks()
    write(Document(_Source(), _Model(items)), fmt, out)
    total = sum(out.sizes)
    assert total > 8_000_000 and len(out.sizes) > 10
    assert max(out.sizes) < 1_000_000  # 64 messages of ~250 bytes, whatever the format

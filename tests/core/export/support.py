"""Builders for export tests: a Claude Code home and a sid-code home holding hostile text,
documents read from them through their sources, a writer run into bytes, and an HTML
parser that records every tag, attribute and text run."""

from __future__ import annotations

import io
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from sidtui.core.export import Document, write
from tests.helpers import (
    CC_SESSION,
    assistant,
    cc_assistant,
    cc_home,
    cc_lines,
    cc_rec,
    cc_user,
    jsonl,
    make_home,
    start,
    user,
)

HOSTILE_PROMPT = 'first prompt <script>alert("p")</script> & "quotes" \'single\''
HOSTILE_RESULT = "</script><img src=x onerror=alert(1)><script>alert(2)</script>"
HOSTILE_TITLE_BIT = '"><svg onload=alert(3)>'
JS_URL = "javascript:alert(4)"
EDIT_INPUT = {"file_path": "/tmp/cc/a.py", "old_string": "x = 1\n", "new_string": "x = 2\n"}


def claude_home(root: Path) -> Path:
    """A Claude Code home with one session: a hostile prompt, a tool call (an edit) with a
    hostile result, thinking, a reply; then a branch the resume does not take."""
    tool = {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "Edit",
        "input": {**EDIT_INPUT, "note": JS_URL + HOSTILE_TITLE_BIT},
    }
    reply = cc_assistant("a1", "u1", text=None, ts=1)
    reply["message"]["content"] = [
        {"type": "thinking", "thinking": "pondering </details> <b>bold</b>", "signature": "s"},
        tool,
    ]
    result = cc_rec(
        "user",
        "u2",
        "a1",
        2,
        message={
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": HOSTILE_RESULT}
            ],
        },
    )
    data = cc_lines(
        cc_user("u1", None, HOSTILE_PROMPT, ts=0),
        reply,
        result,
        cc_assistant("a2", "u2", "done ``` with ```` fences", ts=3),
        cc_user("u3", "a2", "second prompt", ts=4),
        cc_assistant("a3", "u3", "final answer", ts=5),
    )
    return cc_home(root, {"-tmp-cc": {f"{CC_SESSION}.jsonl": data}})


SID = "20260101-000000-aaaaaaaa"


def sid_home(root: Path) -> Path:
    """A sid-code home with one session: a hostile prompt and a reply."""
    data = jsonl(
        start(),
        user("u1", "S", HOSTILE_PROMPT),
        assistant("a1", "u1", "the reply " + JS_URL),
    )
    return make_home(root, {SID: data})


def claude_doc(root: Path) -> Document:
    from sidtui.core.sources import ClaudeSource

    src = ClaudeSource.resolve_home(str(claude_home(root)), {})
    return Document(src, src.open(src.resolve(CC_SESSION)))


def sid_doc(root: Path) -> Document:
    from sidtui.core.sources import SidCodeSource

    src = SidCodeSource.resolve_home(str(sid_home(root)), {})
    return Document(src, src.open(src.resolve(SID)))


def render(doc: Document, fmt: str, jsonl: bool = False) -> str:
    buf = io.BytesIO()
    write(doc, fmt, buf, jsonl=jsonl)
    return buf.getvalue().decode("utf-8")


class Tags(HTMLParser):
    """Every start tag with its attributes, script bodies, and text per element class."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, Any]]] = []
        self.scripts: list[tuple[dict[str, Any], str]] = []
        self.texts: list[str] = []
        self._in_script: dict[str, Any] | None = None
        self._buf: list[str] = []
        self._stack: list[tuple[str, str]] = []
        #: each text run with the classes of the elements around it (outermost first)
        self.placed: list[tuple[str, list[str]]] = []

    VOID = frozenset({"meta", "input", "br", "img", "hr", "link"})

    def within(self, text: str) -> list[str]:
        """The classes around the first text run holding ``text``."""
        return next(c for t, c in self.placed if text in t)

    def handle_starttag(self, tag, attrs) -> None:
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag not in self.VOID:
            self._stack.append((tag, a.get("class") or ""))
        if tag == "script":
            self._in_script, self._buf = a, []

    def handle_endtag(self, tag) -> None:
        while self._stack:
            if self._stack.pop()[0] == tag:
                break
        if tag == "script" and self._in_script is not None:
            self.scripts.append((self._in_script, "".join(self._buf)))
            self._in_script = None

    def handle_data(self, data) -> None:
        if self._in_script is not None:
            self._buf.append(data)
        else:
            self.texts.append(data)
            self.placed.append((data, [c for _, c in self._stack if c]))


def parse(page: str) -> Tags:
    p = Tags()
    p.feed(page)
    p.close()
    return p

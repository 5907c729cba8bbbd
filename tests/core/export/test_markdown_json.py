"""The Markdown export (fences no content closes, details, escaping of summaries) and the
JSON schema (one object and JSON Lines), for both sources."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from sidtui.core.export.jsonexport import SCHEMA, VERSION
from sidtui.core.export.markdown import fence_for, fenced
from tests.core.export.support import (
    EDIT_INPUT,
    HOSTILE_PROMPT,
    HOSTILE_RESULT,
    claude_doc,
    render,
    sid_doc,
)

_CLOSE = re.compile(r"^ {0,3}(`{3,})[ \t]*$")


def _fence_body(block: str) -> str:
    """The content of the fenced block at the start of ``block`` by CommonMark's rule: the
    first later line that is a backtick run at least as long as the opening one closes it."""
    lines = block.split("\n")
    opening = re.match(r"`+", lines[0])
    assert opening is not None
    n = len(opening.group())
    for i, line in enumerate(lines[1:], 1):
        m = _CLOSE.match(line)
        if m and len(m.group(1)) >= n:
            assert i == len(lines) - 2 and lines[-1] == "", "closed early"
            return "\n".join(lines[1:i]) + "\n"
    raise AssertionError("never closed")


@settings(max_examples=300)
@given(st.text(alphabet=st.sampled_from("`a \n~\t"), max_size=60) | st.text(max_size=80))
@example("```")
@example("````\n```\n")
@example("   ```````")
def test_fence_holds_any_text(text: str) -> None:
    block = fenced(text)
    want = text if text.endswith("\n") else text + "\n"
    assert _fence_body(block) == want
    assert len(fence_for(text)) >= 3


def test_claude_markdown(tmp_path: Path) -> None:
    md = render(claude_doc(tmp_path), "md")
    assert md.startswith("# first prompt &lt;script&gt;")  # the title is escaped
    assert HOSTILE_PROMPT in md  # a prompt is its own text (Markdown)
    assert "<details><summary>call <b>Edit</b> <code>/tmp/cc/a.py</code></summary>" in md
    assert "```diff\n@@ /tmp/cc/a.py\n-x = 1\n+x = 2\n" in md
    # the result sits in a fence no backtick run of it closes
    i = md.index("result of <b>Edit</b>")
    block = md[md.index("\n\n", i) + 2 : md.index("\n\n</details>", i) + 1]
    assert _fence_body(block) == HOSTILE_RESULT + "\n"
    assert "done ``` with ```` fences" in md
    assert "<summary>thinking</summary>" in md


def test_json_object_schema(tmp_path: Path) -> None:
    doc = json.loads(render(claude_doc(tmp_path), "json"))
    assert doc["schema"] == SCHEMA and doc["version"] == VERSION
    assert set(doc) == {"schema", "version", "session", "messages", "subagents", "counts"}
    s = doc["session"]
    assert s["source"] == "claude-code" and s["project"] == "-tmp-cc"
    assert s["title"].startswith("first prompt <script>")
    assert s["interruption"] == {"kind": "none", "tool_names": []}
    m = doc["messages"]
    assert [x["role"] for x in m] == ["user", "assistant", "user", "assistant", "user", "assistant"]
    assert m[0]["blocks"] == [{"type": "text", "text": HOSTILE_PROMPT}] and m[0]["prompt"]
    assert m[1]["blocks"][1]["input"]["old_string"] == EDIT_INPUT["old_string"]
    assert m[2]["blocks"][0]["content"] == HOSTILE_RESULT
    assert all(x["status"] == "loaded" for x in m)
    assert doc["counts"]["messages"] == 6 and doc["counts"]["tool_uses"] == 1


def test_jsonl_lines(tmp_path: Path) -> None:
    lines = [json.loads(x) for x in render(sid_doc(tmp_path), "json", jsonl=True).splitlines()]
    assert lines[0]["type"] == "session" and lines[0]["version"] == VERSION
    assert lines[0]["session"]["source"] == "sid-code"
    assert [x["type"] for x in lines[1:]] == ["message", "message", "message", "end"]
    # the note sid-code adds on resume (no record of it on disk)
    assert lines[3]["status"] == "added" and lines[3]["line"] is None
    assert lines[1]["blocks"][0]["text"] == HOSTILE_PROMPT and lines[1]["agent"] is None
    assert lines[-1]["counts"]["messages"] == 2

"""``repair`` against what the real Claude Code 2.1.332 sent (vendored answers under
``tests/fixtures/claude-code-repair/``, see its README row): every turn of the repaired
conversation that Claude Code can send (text, and tool uses with their results) is in what it
sent for the repair, in order; and the repair never sends less than the damaged file did."""

from __future__ import annotations

import itertools
import json
import uuid
from pathlib import Path

import pytest

from sidtui.core.claude.layout import ClaudeHome, file_for_path, resolve_session
from sidtui.core.claude.repair import repair_session
from sidtui.core.claude.session import open_claude_session
from tests.helpers import FIXTURES, cc_home, lab_items, lab_sendable, missing_in_order

CASES = sorted((FIXTURES / "claude-code-repair").glob("*.json"))


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_claude_code_resumes_the_whole_repair(case: Path, tmp_path):
    c = json.loads(case.read_text())
    sid = str(uuid.uuid5(uuid.NAMESPACE_URL, c["name"]))
    data = (case.parent / c["input"]).read_bytes()
    h = ClaudeHome(cc_home(tmp_path, {"-p": {f"{sid}.jsonl": data}}))
    view = open_claude_session(h, resolve_session(h, sid))
    n = itertools.count()
    res = repair_session(view, new_uuid=lambda: str(uuid.UUID(int=next(n) + 1, version=4)))
    back = open_claude_session(h, file_for_path(res.fork.path))
    assert not back.scan.bad_lines and not back.tree.bridges
    got = lab_items(c["lab_resume_repair"])
    assert missing_in_order(lab_sendable(back), got) == []
    # and everything Claude Code sent for the repair is a record of the copy (a repair that
    # lost a record it once put back fails here), but for the turn it adds itself
    blocks = [b for m in back.messages for b in m.blocks]
    ids = {b.id for b in blocks if b.type == "tool_use"} | {
        b.tool_use_id for b in blocks if b.type == "tool_result"
    }
    texts = [b.text.strip() for b in blocks if b.type == "text" and isinstance(b.text, str)]
    foreign = [
        x
        for k, x in got
        if (k != "text" and x not in ids)
        or (k == "text" and not any(x.strip() in t or t in x for t in texts if t))
    ]
    assert foreign in ([], ["No response requested."])
    before = c["lab_resume_input"]
    if before["ok"]:  # the repair never sends less than the damaged file
        assert missing_in_order(lab_items(before), got) == []
    if c["damage"] != "none":  # and the damage cost something Claude Code got back
        assert (
            not before["ok"] or len(set(got) - set(lab_items(before))) > 0 or c["damage"] == "drop"
        )

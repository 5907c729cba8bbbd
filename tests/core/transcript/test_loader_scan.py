"""The loader's inlined pre-scan (``LoadedSession.scan``) equals :class:`MessageScan`.

``load_jsonl`` classifies each message for recovery while it builds it (a copy of
``MessageScan.add`` inlined in the hot loop); these tests hold the two together on random
transcripts and on every fixture session, and check that ``recover`` gives the same
result with the loader's scan as without it.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sidtui.core.base.discover import discover
from sidtui.core.base.home import Home
from sidtui.core.resume.recovery import recover
from sidtui.core.transcript.chain import rebuild_chain
from sidtui.core.transcript.loader import load_jsonl
from sidtui.core.transcript.messages import MessageScan
from sidtui.core.transcript.scan import scan_records
from sidtui.core.transcript.source import read_transcript
from tests.helpers import REAL_HOME, SCAN_SLOTS, record_specs, spec_transcript


def _same_scan(loaded_scan: MessageScan, messages) -> None:
    ref = MessageScan.of(messages)
    assert loaded_scan.count == ref.count == len(messages)
    assert loaded_scan.ok == ref.ok
    if ref.ok:  # after an unclassifiable message the lists do not matter
        for name in SCAN_SLOTS:
            assert getattr(loaded_scan, name) == getattr(ref, name), name


def _result(r):
    return (
        [(d.layer, d.index, d.uuid, d.reason, d.block) for d in r.dropped],
        [(c.src_index, c.message.uuid, c.kept_blocks, c.changed) for c in r.messages],
        r.interruption.kind,
        r.interruption.tool_names,
    )


@settings(max_examples=300, deadline=None)
@given(st.lists(record_specs, max_size=14))
def test_loader_scan_equals_message_scan(specs):
    rf = scan_records(spec_transcript(specs))
    assert rf.objs is not None  # the fast scan, where the inlined copy runs
    ls = load_jsonl(rf, rebuild_chain(rf))
    assert ls.scan is not None
    _same_scan(ls.scan, ls.messages)
    assert _result(recover(ls.messages, scan=ls.scan)) == _result(recover(ls.messages))


def test_fixture_sessions_scan_alike():
    files = [f for f in discover(Home(REAL_HOME)) if f.container == "jsonl"]
    assert files
    for sf in files:
        src = read_transcript(sf.path)
        rf = scan_records(src)
        ls = load_jsonl(rf, rebuild_chain(rf))
        if ls.scan is None:  # the tolerant scan: recovery scans for itself
            assert rf.objs is None
            continue
        _same_scan(ls.scan, ls.messages)
        assert _result(recover(ls.messages, scan=ls.scan)) == _result(recover(ls.messages))


def test_a_scan_of_another_list_is_not_used():
    """A scan whose length differs from the list given is ignored (recovery rescans)."""
    specs = [
        {
            "type": "assistant_message",
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "Read"}],
            "meta": None,
            "mode": None,
        }
    ]
    rf = scan_records(spec_transcript(specs))
    ls = load_jsonl(rf, rebuild_chain(rf))
    r = recover(ls.messages, scan=MessageScan())  # an empty scan: count 0 != 1
    assert r.dropped and r.dropped[0].layer == "filter_unresolved_tool_uses"
    assert _result(r) == _result(recover(ls.messages))


def test_visible_text_is_no_shell():
    """Only messages layers 4–5 could drop are shells: thinking, blank text, nothing."""
    specs = [
        {
            "type": "assistant_message",
            "role": "assistant",
            "meta": None,
            "mode": None,
            "content": content,
        }
        for content in (
            [{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "done"}],
            [{"type": "thinking", "thinking": "hm"}],
            [{"type": "text", "text": " \n\u2003"}],
            [],
            "visible",
        )
    ]
    rf = scan_records(spec_transcript(specs))
    ls = load_jsonl(rf, rebuild_chain(rf))
    assert ls.scan.shells == [1, 2, 3]
    _same_scan(ls.scan, ls.messages)

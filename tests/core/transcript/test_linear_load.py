"""The loader run ahead during the scan (:class:`sidtui.core.transcript.loader.LinearLoad`).

``scan_records(on_piece=ahead)`` feeds the loader each piece of freshly decoded records on
the guess that the file is one linear chain; ``load_jsonl(..., ahead=ahead)`` uses that
work only when the scan proved the guess. These tests hold the result equal to the plain
loader's on random transcripts (linear, branching, with bad lines), on every fixture, in
one piece and in many, and check that the guess is used exactly when it holds.
"""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidtui.core.base.discover import discover
from sidtui.core.base.home import Home
from sidtui.core.transcript import source as transcript_source
from sidtui.core.transcript.chain import rebuild_chain
from sidtui.core.transcript.loader import LinearLoad, LoadedSession, load_jsonl
from sidtui.core.transcript.scan import scan_records
from sidtui.core.transcript.source import FileSource, read_transcript
from tests.helpers import REAL_HOME, SCAN_SLOTS, record_specs, spec_transcript


def _shape(ls: LoadedSession) -> tuple:
    msgs = [
        (
            m.index,
            m.record,
            m.uuid,
            m.line,
            m.record_type,
            m.role,
            [(b.type, b.id, b.name, b.tool_use_id, b.text, b.thinking) for b in m.blocks],
            m.timestamp,
            m.string_content,
            m.meta,
        )
        for m in ls.messages
    ]
    fields = {
        k: v for k, v in vars(ls).items() if k not in ("messages", "scan", "metadata_entries")
    }
    entries = [(e.record, e.line, e.key) for e in ls.metadata_entries]
    scan = None if ls.scan is None else tuple(getattr(ls.scan, k) for k in SCAN_SLOTS + ("ok",))
    return msgs, fields, entries, scan


def _both(src) -> tuple[LoadedSession, LoadedSession, bool]:
    """(plain load, load with the run-ahead, whether the run-ahead's work was used)."""
    plain_rf = scan_records(src)
    plain = load_jsonl(plain_rf, rebuild_chain(plain_rf))
    ahead = LinearLoad()
    rf = scan_records(src, on_piece=ahead)
    chain = rebuild_chain(rf)
    used = ahead.result(rf, chain) is not None
    ahead2 = LinearLoad()  # result() closes the run: load with a fresh one
    rf2 = scan_records(src, on_piece=ahead2)
    fast = load_jsonl(rf2, rebuild_chain(rf2), ahead=ahead2)
    return plain, fast, used


def _source(tmp_path, data: bytes) -> FileSource:
    p = tmp_path / "s.jsonl"
    p.write_bytes(data)
    f = open(p, "rb", buffering=0)
    return FileSource(p, f, len(data))


@settings(max_examples=200, deadline=None)
@given(st.lists(record_specs, max_size=14))
def test_linear_transcripts_load_alike_and_use_the_guess(specs):
    data = spec_transcript(specs)
    plain, fast, used = _both(data)
    assert used  # every record on one chain in file order: the guess holds
    assert _shape(fast) == _shape(plain)


_edits = st.lists(
    st.tuples(
        st.sampled_from(["fork", "dup", "bad", "blank", "lost", "reorder"]), st.integers(0, 20)
    ),
    max_size=3,
)


def _mutate(data: bytes, edits) -> bytes:
    lines = data.split(b"\n")[:-1]
    for kind, at in edits:
        i = at % len(lines)
        if kind in ("fork", "lost") and not lines[i].strip().endswith(b"}"):
            continue  # a bad or blank line put there by an earlier edit
        if kind == "fork":  # a second child of line i's parent: the file branches
            d = orjson.loads(lines[i])
            d["uuid"] = d["uuid"] + "-b"
            lines.append(orjson.dumps(d))
        elif kind == "dup":  # a uuid written twice
            lines.append(lines[i])
        elif kind == "bad":
            lines.insert(i, b'{"type": "user_message", "uuid": ')
        elif kind == "blank":
            lines.insert(i, b"  ")
        elif kind == "lost":
            d = orjson.loads(lines[i])
            d["parentUuid"] = "nowhere"
            lines[i] = orjson.dumps(d)
        elif kind == "reorder" and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
    return b"\n".join(lines) + b"\n"


@settings(max_examples=200, deadline=None)
@given(st.lists(record_specs, min_size=1, max_size=10), _edits)
def test_any_transcript_loads_alike(specs, edits):
    """Branching, repeated, bad, blank, lost or reordered lines: the same load either way."""
    data = _mutate(spec_transcript(specs), edits)
    plain, fast, used = _both(data)
    assert _shape(fast) == _shape(plain)
    rf = scan_records(data)
    if used:  # the guess was used only where it holds
        assert rf.whole


@pytest.mark.parametrize("piece", [300, 2048, 1 << 22])
def test_fixture_sessions_load_alike_in_pieces(monkeypatch, tmp_path, piece):
    """Every fixture transcript, read in pieces of several sizes (the hook runs per piece)."""
    monkeypatch.setattr(transcript_source, "PIECE_MIN_BYTES", 1)
    monkeypatch.setattr(transcript_source, "PIECE_BYTES", piece)
    files = [f for f in discover(Home(REAL_HOME)) if f.container == "jsonl"]
    assert files
    used_any = False
    for sf in files:
        data = sf.path.read_bytes()
        if not data:
            continue
        plain, fast, used = _both(_source(tmp_path, data))
        assert _shape(fast) == _shape(plain), sf.path.name
        used_any |= used
    assert used_any  # some fixture is one linear chain


def test_fixture_sessions_load_alike_in_memory():
    for sf in discover(Home(REAL_HOME)):
        if sf.container != "jsonl":
            continue
        plain, fast, _ = _both(read_transcript(sf.path))
        assert _shape(fast) == _shape(plain), sf.path.name


def test_a_guess_for_another_file_is_not_used():
    data = spec_transcript([])
    ahead = LinearLoad()
    scan_records(data, on_piece=ahead)
    other = scan_records(data)  # same bytes, another RecordFile
    assert ahead.result(other, rebuild_chain(other)) is None
    assert LinearLoad().result(other, rebuild_chain(other)) is None  # never fed


def test_a_chain_only_scan_is_not_fed():
    ahead = LinearLoad()
    rf = scan_records(spec_transcript([]), chain_only=True, on_piece=ahead)
    assert ahead.result(rf, rebuild_chain(rf)) is None


def test_a_uuid_written_again_on_the_chain_is_no_linear_guess():
    """Each parent is the previous uuid, but a uuid repeats: not one linear chain."""
    lines = [
        {"type": "session_start", "uuid": "a", "parentUuid": None, "sessionId": "s"},
        {
            "type": "user_message",
            "uuid": "b",
            "parentUuid": "a",
            "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        },
        {
            "type": "assistant_message",
            "uuid": "a",
            "parentUuid": "b",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "yo"}]},
        },
    ]
    data = b"".join(orjson.dumps(x) + b"\n" for x in lines)
    plain, fast, used = _both(data)
    assert not used
    assert _shape(fast) == _shape(plain)


def test_a_failed_guess_is_dropped_before_the_rest_is_read(tmp_path, monkeypatch):
    """A branching file, or a bad line that sends the scan to the tolerant path, makes the
    scan abandon the run-ahead at once: its messages (and the structs they hold) must not
    stay alive next to the tolerant scan or the loader's own walk (peak memory)."""
    monkeypatch.setattr(transcript_source, "PIECE_MIN_BYTES", 1)
    monkeypatch.setattr(transcript_source, "PIECE_BYTES", 300)
    specs = [
        {
            "type": "user_message",
            "role": "user",
            "content": "hello there",
            "meta": None,
            "mode": None,
        }
    ] * 30
    data = spec_transcript(specs)
    lines = data.split(b"\n")
    cases = {
        "bad": b"\n".join(lines[:25] + [b"{oops"] + lines[25:]),
        "fork": data
        + orjson.dumps(
            {
                "type": "user_message",
                "uuid": "x",
                "parentUuid": "u3",
                "message": {"role": "user", "content": "b"},
            }
        )
        + b"\n",
    }

    class Watched(LinearLoad):
        __slots__ = ("calls",)

        def __init__(self) -> None:
            super().__init__()
            self.calls = 0

        def abandon(self) -> None:
            self.calls += 1
            super().abandon()

    for name, blob in cases.items():
        ahead = Watched()
        rf = scan_records(_source(tmp_path, blob), on_piece=ahead)
        assert ahead.calls, name  # told during the scan
        assert ahead.run is None and ahead.rf is None, name
        plain_rf = scan_records(blob)
        assert _shape(load_jsonl(rf, rebuild_chain(rf), ahead=ahead)) == _shape(
            load_jsonl(plain_rf, rebuild_chain(plain_rf))
        ), name

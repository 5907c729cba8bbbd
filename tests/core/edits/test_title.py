"""Renaming a session as the agent's own rename does: append-only, the resume unchanged.

Claude Code's side is checked against what Claude Code 2.1.332 itself wrote for ``/rename``
and against its ``claude -p --resume TITLE`` on the vendored real transcripts
(``tests/fixtures/claude-code-rename/``, made by ``python -m scripts.ccdifftest rename``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from sidtui.core.base.errors import SidtuiError, UsageError
from sidtui.core.base.home import Home
from sidtui.core.claude.layout import ClaudeHome
from sidtui.core.claude.title import title_records
from sidtui.core.sources import ClaudeSource, SidCodeSource
from sidtui.core.transcript.append import AppendError, TailPolicy
from sidtui.core.transcript.title import MAX_TITLE_CHARS, clean_title
from tests.helpers import (
    CC_SESSION,
    FIXTURES,
    assistant,
    cc_assistant,
    cc_home,
    cc_lines,
    cc_user,
    jsonl,
    make_home,
    start,
    user,
)

RENAME = FIXTURES / "claude-code-rename"
SID = "20260101-000000-aaaaaaaa"
CC = CC_SESSION
NO_WAIT = TailPolicy(attempts=2, wait=lambda _s: None)


def _sid_code(tmp: Path, data: bytes | None = None) -> tuple[SidCodeSource, Path]:
    data = data or jsonl(start(sid=SID), user("u1", "S", "first"), assistant("a1", "u1", "done"))
    home = make_home(tmp / "home", {SID: data})
    return SidCodeSource(Home(home)), home / "sessions" / "proj" / f"{SID}.jsonl"


def _claude(tmp: Path) -> tuple[ClaudeSource, Path]:
    data = cc_lines(cc_user("u1", None, "first"), cc_assistant("a1", "u1", "done"))
    home = cc_home(tmp / "claude", {"-p": {f"{CC}.jsonl": data}})
    return ClaudeSource(ClaudeHome(home)), home / "projects" / "-p" / f"{CC}.jsonl"


def _conversation(src, ref) -> list:
    """What a resume loads, as each source's ``show --json`` states it."""
    d = src.open(ref).to_json()
    keys = ("messages", "resume", "dropped", "interruption", "leaf", "loadable")
    return [d.get(k) for k in keys]


def test_claude_title_records_are_the_ones_claude_code_writes() -> None:
    lines = (RENAME / "claude-2.1.332-rename-records.jsonl").read_bytes()
    sid = orjson.loads(lines.split(b"\n")[0])["sessionId"]
    assert title_records("My lab title", sid) == lines


@pytest.mark.parametrize("which", ["sid-code", "claude-code"])
def test_rename_appends_and_keeps_what_a_resume_loads(tmp_path, which) -> None:
    src, path = _sid_code(tmp_path) if which == "sid-code" else _claude(tmp_path)
    ref = src.resolve(SID if which == "sid-code" else CC)
    before, conv = path.read_bytes(), _conversation(src, ref)
    first = src.rename(ref, "  Parser rewrite  ", policy=NO_WAIT)
    assert first.title == "Parser rewrite" and first.records == (1 if which == "sid-code" else 2)
    second = src.rename(ref, "Parser rewrite, take 2", policy=NO_WAIT)
    assert second.previous == "Parser rewrite"
    assert path.read_bytes().startswith(before)  # append-only
    assert _conversation(src, ref) == conv
    assert src.title_of(src.open(ref)) == "Parser rewrite, take 2"
    again = src.rename(ref, "Parser rewrite, take 2", policy=NO_WAIT)
    assert again.records == 0 and again.to_json()["records_appended"] == 0
    rows, _errors = src.list_sessions()
    assert [r.title for r in rows] == ["Parser rewrite, take 2"]


def test_sid_code_title_is_a_session_name_record_on_the_chain(tmp_path) -> None:
    src, path = _sid_code(tmp_path)
    src.rename(src.resolve(SID), "Named", policy=NO_WAIT)
    last = orjson.loads(path.read_bytes().splitlines()[-1])
    assert (last["type"], last["key"], last["value"], last["parentUuid"]) == (
        "metadata",
        "session_name",
        "Named",
        "a1",
    )


@pytest.mark.parametrize(
    "title, words",
    [
        ("", "at least one character"),
        ("   ", "at least one character"),
        ("two\nlines", "one line"),
        ("tab\there", "control character"),
        ("bad \udce9 byte", "UTF-8"),
        ("x" * (MAX_TITLE_CHARS + 1), f"at most {MAX_TITLE_CHARS}"),
    ],
)
def test_a_title_that_is_not_one_line_of_text_is_refused(tmp_path, title, words) -> None:
    src, path = _sid_code(tmp_path)
    before = path.read_bytes()
    with pytest.raises(UsageError, match=words):
        src.rename(src.resolve(SID), title, policy=NO_WAIT)
    assert path.read_bytes() == before


def test_a_session_the_agent_cannot_load_is_refused(tmp_path) -> None:
    cycle = jsonl(start(sid=SID), user("u1", "a1", "first"), assistant("a1", "u1", "loop"))
    src, path = _sid_code(tmp_path, cycle)
    before = path.read_bytes()
    with pytest.raises(SidtuiError, match="cannot load .* salvage"):
        src.rename(src.resolve(SID), "x", policy=NO_WAIT)
    assert path.read_bytes() == before


def test_a_torn_tail_is_refused_and_nothing_is_written(tmp_path) -> None:
    src, path = _claude(tmp_path)
    with open(path, "ab") as fh:
        fh.write(b'{"type":"user","message":')
    before = path.read_bytes()
    with pytest.raises(AppendError, match="incomplete record"):
        src.rename(src.resolve(CC), "x", policy=NO_WAIT)
    assert path.read_bytes() == before


def test_a_killed_rename_of_ours_is_ended_and_the_next_one_lands(tmp_path) -> None:
    src, path = _claude(tmp_path)
    with open(path, "ab") as fh:  # sidtui killed inside its one write()
        fh.write(title_records("half", CC)[:30])
    res = src.rename(src.resolve(CC), "whole", policy=NO_WAIT)
    assert res.records == 2
    assert src.title_of(src.open(src.resolve(CC))) == "whole"


def test_a_symlinked_transcript_is_not_written_through(tmp_path) -> None:
    src, path = _claude(tmp_path)
    real = tmp_path / "elsewhere.jsonl"
    shutil.move(path, real)
    os.symlink(real, path)
    before = real.read_bytes()
    with pytest.raises(SidtuiError):
        src.rename(src.resolve(CC), "x", policy=NO_WAIT)
    assert real.read_bytes() == before


def test_a_live_session_needs_force(tmp_path, monkeypatch) -> None:
    from sidtui.core.resume.process import Liveness

    src, path = _claude(tmp_path)
    real_open = src.open

    def live_open(ref, **kw):
        view = real_open(ref, **kw)
        view.liveness = Liveness(live=True)
        return view

    monkeypatch.setattr(src, "open", live_open)
    with pytest.raises(SidtuiError, match="running Claude Code.*--force"):
        src.rename(src.resolve(CC), "x", policy=NO_WAIT)
    assert src.rename(src.resolve(CC), "x", force=True, policy=NO_WAIT).records == 2


_TITLE = st.text(min_size=1, max_size=60).filter(
    lambda t: t.strip() and t == t.strip() and t.isprintable()
)


@given(title=_TITLE)
@example(title='quote " and \\ back')
@example(title="日本語のタイトル 📝")
@example(title="</script><b>")
def test_any_title_reads_back_exactly(tmp_path_factory, title) -> None:
    tmp = tmp_path_factory.mktemp("t")
    try:
        clean_title(title)
    except UsageError:
        return
    for src, sid in (_sid_code(tmp)[0], SID), (_claude(tmp)[0], CC):
        src.rename(src.resolve(sid), title, policy=NO_WAIT)
        assert src.title_of(src.open(src.resolve(sid))) == title


def test_claude_code_found_every_renamed_real_transcript_by_its_title(tmp_path) -> None:
    """The vendored lab results (40 real transcripts, 60 the lab wrote or damaged, one
    written by /rename itself): Claude Code resumed each renamed copy by its title with
    the conversation it sent for the original; sidtui reads the same title back and
    predicts the same resume before and after."""
    from tests.helpers import sidtui_resume

    results = [
        *orjson.loads((RENAME / "results-real.json").read_bytes()),
        *orjson.loads((RENAME / "results-lab.json").read_bytes()),
    ]
    real = [r for r in results if r["file"].startswith("tests/")]
    assert len(real) >= 100 and all(r["agree"] for r in results)
    assert all(r["first_title_still_finds_it"] is False for r in results)
    repo = FIXTURES.parent.parent
    for i, r in enumerate(real):
        f = repo / r["file"]
        home = tmp_path / str(i) / "claude"
        dest = home / "projects" / "p" / f.name
        dest.parent.mkdir(parents=True)
        shutil.copyfile(f, dest)
        src = ClaudeSource(ClaudeHome(home))
        before = sidtui_resume(dest)
        for title in r["titles"]:
            src.rename(src.resolve(f.stem), title, force=True, policy=NO_WAIT)
        assert src.title_of(src.open(src.resolve(f.stem))) == r["titles"][-1]
        assert sidtui_resume(dest) == before, r["file"]

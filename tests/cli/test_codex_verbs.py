"""Every verb on a vendored Codex CLI home (tests/fixtures/codex-lab/home: rollouts the real
Codex 0.169.0 wrote), through the one pipeline: read verbs with ``--codex-home`` or with the
home found unnamed (``$CODEX_HOME``), and the writes Codex can read back (a fork, a
conversation rewind as a fork); the code verbs are refused in one line."""

from __future__ import annotations

import json
import shutil

import pytest

from sidtui.cli import main
from sidtui.core.sources import CodexSource
from tests.helpers import FIXTURES

LAB_HOME = FIXTURES / "codex-lab" / "home"
HELLO = "01a23620-82d0-7a90-a3de-26e5efe19e46"  # two prompts, no tools
MULTI = "01a23620-a823-7ed2-bd22-cd51722ee280"  # four prompts
FORKED = "01a23620-dd87-7f53-84c7-cdc9343ef52a"  # Codex's own fork of another session


@pytest.fixture
def home(tmp_path):
    """A writable copy of the lab home."""
    dst = tmp_path / "codex"
    shutil.copytree(LAB_HOME, dst)
    return dst


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _json(capsys, *argv: str):
    code, out, err = _run(capsys, *argv)
    assert code == 0, err
    return json.loads(out)


def _rollouts(home) -> set[str]:
    return {p.name for p in (home / "sessions").rglob("rollout-*.jsonl")}


def test_ls_lists_every_rollout_as_codex(capsys, home) -> None:
    rows = _json(capsys, "--codex-home", str(home), "ls", "--json")
    assert len(rows) == 11 and {r["source"] for r in rows} == {"codex"}
    assert {r["project"] for r in rows if r["session_id"] == HELLO} == {"/tmp/cxlab2/hello/work"}
    cold = _json(capsys, "--codex-home", str(home), "ls", "--json", "--no-cache")
    assert [r["session_id"] for r in cold] == [r["session_id"] for r in rows]


def test_a_codex_home_is_read_without_being_named(capsys, home, monkeypatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(home))
    rows = _json(capsys, "ls", "--json", "--no-cache")
    assert sum(1 for r in rows if r["source"] == "codex") == 11
    doc = _json(capsys, "show", HELLO, "--json")  # an id found in the unnamed home
    assert doc["format"] == "codex" and doc["session_id"] == HELLO


def test_codex_home_is_accepted_after_any_verb(capsys, home) -> None:
    rows = _json(capsys, "ls", "--codex-home", str(home), "--source", "codex", "--json")
    assert len(rows) == 11


def test_show_json_and_text(capsys, home) -> None:
    doc = _json(capsys, "--codex-home", str(home), "show", HELLO, "--json")
    assert doc["format"] == "codex"
    prompts = [m for m in doc["messages"] if m["prompt"]]
    assert [m["blocks"][0]["text"] for m in prompts] == ["say hello", "and again"]
    code, out, _ = _run(capsys, "--codex-home", str(home), "show", HELLO)
    assert code == 0
    assert f"Codex CLI session {HELLO}" in out
    assert "codex resume sends 7 history items" in out
    assert "context Codex writes itself" in out  # the environment block is no prompt


def test_show_by_path_finds_the_home_from_the_place(capsys, home) -> None:
    path = next((home / "sessions").rglob(f"*{FORKED}.jsonl"))
    doc = _json(capsys, "show", str(path), "--json")
    # the fork's history is read from its base session, found in the same home
    assert doc["resume"]["bases"][0]["found"] is True


def test_check_counts_the_home(capsys, home) -> None:
    doc = _json(capsys, "--codex-home", str(home), "check", "--json")
    assert (doc["source"], doc["sessions"], doc["faults"], doc["exit_code"]) == (
        "codex",
        11,
        [],
        0,
    )
    code, out, _ = _run(capsys, "--codex-home", str(home), "check")
    assert code == 0 and "sessions          11" in out and "no structural faults" in out
    one = _json(capsys, "--codex-home", str(home), "check", "--session", HELLO, "--json")
    assert one["sessions"] == 1 and one["scope"] == f"session {HELLO}"


def test_export_markdown_and_json(capsys, home) -> None:
    code, md, _ = _run(capsys, "--codex-home", str(home), "export", HELLO, "--format", "md")
    assert code == 0
    assert "**Agent:** Codex CLI" in md and "say hello" in md and "Hello again." in md
    code, text, _ = _run(capsys, "--codex-home", str(home), "export", HELLO, "--format", "json")
    assert code == 0
    doc = json.loads(text)
    assert doc["session"]["source"] == "codex" and doc["session"]["session_id"] == HELLO
    assert len(doc["messages"]) == 6
    assert [m["role"] for m in doc["messages"] if m.get("prompt")] == ["user", "user"]


def test_search_finds_prompts_and_replies(capsys, home) -> None:
    hits = _json(capsys, "--codex-home", str(home), "search", "stand-in", "--json")
    assert {(h["source"], h["session_id"], h["kind"]) for h in hits} >= {
        ("codex", HELLO, "assistant")
    }


def test_fork_before_a_prompt_resumes_the_history_before_it(capsys, home) -> None:
    before = _rollouts(home)
    original = next((home / "sessions").rglob(f"*{MULTI}.jsonl")).read_bytes()
    doc = _json(capsys, "--codex-home", str(home), "fork", MULTI, "--at", "3", "--json")
    assert (doc["source"], doc["source_session_id"], doc["point"]) == ("codex", MULTI, 3)
    assert doc["resume"] == f"codex resume {doc['session_id']}"
    assert len(_rollouts(home) - before) == 1
    assert next((home / "sessions").rglob(f"*{MULTI}.jsonl")).read_bytes() == original
    src = CodexSource.resolve_home(str(home), {})
    old = src.open(src.resolve(MULTI))
    new = src.open(src.resolve(doc["session_id"]))
    cut = old.prompts[2].items[0]
    assert new.resume.payloads() == old.resume.payloads()[:cut] and cut == doc["resume_items"]
    assert [m.preview() for m in new.prompts] == [m.preview() for m in old.prompts[:2]]


def test_fork_text_dry_run_and_refusals(capsys, home) -> None:
    before = _rollouts(home)
    code, out, _ = _run(capsys, "--codex-home", str(home), "fork", HELLO, "--dry-run")
    assert code == 0 and "dry run: nothing written" in out and _rollouts(home) == before
    code, _, err = _run(capsys, "--codex-home", str(home), "fork", HELLO, "--at", "1")
    assert code == 2 and err.count("\n") == 1 and "would be empty" in err
    code, _, err = _run(capsys, "--codex-home", str(home), "fork", HELLO, "--at", "9")
    assert code == 2 and err.count("\n") == 1 and "choose 1–2" in err
    code, out, _ = _run(capsys, "--codex-home", str(home), "fork", HELLO)
    assert code == 0 and "resume it with: codex resume " in out
    assert len(_rollouts(home) - before) == 1


def test_rewind_points_and_a_conversation_rewind_as_a_new_session(capsys, home) -> None:
    doc = _json(capsys, "--codex-home", str(home), "rewind", HELLO, "--json")
    assert [(p["id"], p["preview"], p["restore_from"]) for p in doc["points"]] == [
        (1, "say hello", None),
        (2, "and again", None),
    ]
    code, out, _ = _run(capsys, "--codex-home", str(home), "rewind", HELLO)
    assert code == 0 and "Codex CLI keeps no file states: no code rewind" in out
    before = _rollouts(home)
    argv = ["--codex-home", str(home), "rewind", HELLO, "--to", "2", "--mode", "conversation"]
    code, out, err = _run(capsys, *argv)
    assert code == 0 and "messages dropped: 2" in out and "codex resume " in err
    assert len(_rollouts(home) - before) == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["rewind", HELLO, "--to", "2"],  # both, the default
        ["rewind", HELLO, "--to", "2", "--mode", "code"],
        ["undo", HELLO],
        ["redo", HELLO],
        ["restore", HELLO, "--before", "1"],
        ["checkpoints", HELLO],
    ],
)
def test_the_code_verbs_say_codex_keeps_no_file_states(capsys, home, argv) -> None:
    before = _rollouts(home)
    code, out, err = _run(capsys, "--codex-home", str(home), *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "keeps no file states" in err and "Traceback" not in err
    assert _rollouts(home) == before


def test_project_is_the_sessions_cwd(capsys, home) -> None:
    rows = _json(
        capsys, "--codex-home", str(home), "ls", "--project", "/tmp/cxlab2/fork/work", "--json"
    )
    assert len(rows) == 2 and {r["project"] for r in rows} == {"/tmp/cxlab2/fork/work"}
    code, out, err = _run(capsys, "--codex-home", str(home), "ls", "--project", "nope")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "no project folder 'nope'" in err and "/tmp/cxlab2/hello/work" in err

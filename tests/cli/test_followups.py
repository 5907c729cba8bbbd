"""Every follow-up command a mutating verb prints runs as printed and does what it says:
each ```sidtui …``` in the output of rewind, fork, salvage, branch, undo, restore and redo
of both sources is parsed, run through the CLI word for word, and must
exit 0; a printed ``redo`` puts the project back as it was before the verb, and a printed
safety snapshot ``sN`` can be restored to (``restore --before sN``)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from sidtui.cli import main
from tests.helpers import CC_SESSION, cc_edit_session, copy_real_home, settle_s01_drift

S01 = "20261130-052907-9ff3799b"
S16 = "20261130-052921-ad7240fb"
COMMAND = re.compile(r"`(sidtui [^`]+)`")
SAFETY = re.compile(r"(?:safety snapshot|saved the previous contents as) (s\d+)")


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def run(capsys, argv: list[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out + out.err


def followups(text: str) -> list[list[str]]:
    """The printed commands, as argv (without ``sidtui``); placeholders are not commands."""
    cmds = [shlex.split(m) for m in COMMAND.findall(text.replace("\n", " "))]
    return [c[1:] for c in cmds if not any(w.isupper() and w.isalpha() for w in c)]


def sid_env(tmp_path: Path) -> tuple[list[str], Path]:
    home, projects = tmp_path / "home", tmp_path / "projects"
    copy_real_home(home, projects)
    settle_s01_drift(projects)
    (tmp_path / "no-claude" / "projects").mkdir(parents=True)
    return ["--home", str(home), "--claude-home", str(tmp_path / "no-claude")], projects


def cc_env(tmp_path: Path) -> tuple[list[str], Path]:
    (tmp_path / "no-sid").mkdir()
    project = tmp_path / "proj"
    cc_edit_session(tmp_path / "claude", project)
    return ["--home", str(tmp_path / "no-sid"), "--claude-home", str(tmp_path / "claude")], project


W = ["--force", "--allow-outside-root"]
SID_VERBS = {
    "rewind-both": ["rewind", S01, "--to", "2", "--mode", "both", *W],
    "rewind-code": ["rewind", S01, "--to", "2", "--mode", "code", *W],
    "rewind-conversation": ["rewind", S01, "--to", "2", "--mode", "conversation", "--force"],
    "rewind-fork": ["rewind", S01, "--to", "2", "--mode", "both", "--fork", *W],
    "undo": ["undo", S01, *W],
    "restore": ["restore", S01, "--before", "s1", *W],
    "fork": ["fork", S01],
    "salvage": ["salvage", S16],
}
CC_VERBS = {
    "rewind-both": ["rewind", CC_SESSION[:8], "--to", "2", "--mode", "both", *W],
    "rewind-code": ["rewind", CC_SESSION[:8], "--to", "2", "--mode", "code", *W],
    "rewind-conversation": ["rewind", CC_SESSION[:8], "--to", "2", "--mode", "conversation"],
    "undo": ["undo", CC_SESSION[:8], *W],
    "restore": ["restore", CC_SESSION[:8], "--before", "c1", *W],
    "fork": ["fork", CC_SESSION[:8]],
}
CASES = [("sid", k, v) for k, v in SID_VERBS.items()] + [("cc", k, v) for k, v in CC_VERBS.items()]


@pytest.mark.parametrize(("source", "name", "verb"), CASES, ids=[f"{s}-{n}" for s, n, _ in CASES])
def test_every_printed_followup_runs_as_printed(tmp_path, capsys, source, name, verb):
    flags, project = (sid_env if source == "sid" else cc_env)(tmp_path)
    before = tree(project)
    code, text = run(capsys, [*verb, *flags])
    assert code == 0, text
    cmds = followups(text)
    if name.startswith(("rewind-both", "rewind-code", "rewind-fork", "undo", "restore")):
        assert any(c[2:3] == ["redo"] or "redo" in c for c in cmds), text  # one is printed
    for cmd in cmds:
        code, out = run(capsys, cmd)
        assert code == 0, f"{shlex.join(cmd)} as printed after {name}: {out}"
        if "redo" in cmd:
            assert tree(project) == before, f"{shlex.join(cmd)} did not take the files back"


@pytest.mark.parametrize("source", ["sid", "cc"])
def test_a_printed_safety_snapshot_can_be_restored_to(tmp_path, capsys, source):
    flags, project = (sid_env if source == "sid" else cc_env)(tmp_path)
    session = S01 if source == "sid" else CC_SESSION
    before = tree(project)
    code, text = run(capsys, ["rewind", session, "--to", "2", "--mode", "code", *W, *flags])
    assert code == 0, text
    (safety,) = SAFETY.findall(text)
    code, out = run(capsys, ["restore", session, "--before", safety, *W, *flags])
    assert code == 0, out
    assert tree(project) == before


def test_a_command_inside_an_error_gets_this_runs_flags(tmp_path, capsys, monkeypatch):
    import sidtui.core.edits.rewind as rw

    def fail(*_a, **_k):
        raise rw.RewindError("could not append the rewind marker to X: Read-only file system")

    monkeypatch.setattr(rw, "_append_marker", fail)
    flags, project = sid_env(tmp_path)
    before = tree(project)
    code, text = run(capsys, ["rewind", S01, "--to", "2", "--mode", "both", *W, *flags])
    assert code == 1 and "the files WERE rewound" in text
    (cmd,) = [c for c in followups(text) if "redo" in c]
    assert cmd[:4] == flags and cmd[-1] == "--allow-outside-root"
    code, out = run(capsys, cmd)
    assert code == 0, out
    assert tree(project) == before


def _parses(cmd: list[str]) -> bool:
    from sidtui.cli import build_parser, join_dash_values

    try:
        build_parser().parse_args(join_dash_values(cmd))
    except SystemExit:
        return False
    return True


@pytest.mark.parametrize("source", ["sid", "cc"])
def test_a_refusals_printed_followups_carry_the_session_and_parse(tmp_path, capsys, source):
    flags, project = (sid_env if source == "sid" else cc_env)(tmp_path)
    session = S01 if source == "sid" else CC_SESSION[:8]
    for p in sorted(project.rglob("*")):
        if p.is_file():
            p.write_bytes(p.read_bytes() + b"changed after the session\n")
    verb = ["rewind", session, "--to", "2", "--mode", "both", "--allow-outside-root"]
    code, text = run(capsys, [*verb, *flags])
    assert code == 1 and "nothing was changed" in text, text
    cmds = followups(text)
    if source == "cc":  # sid-code's refusal names no command
        assert any("redo" in c for c in cmds), text
    for cmd in cmds:
        assert _parses(cmd), f"{shlex.join(cmd)} as printed does not parse: {text}"
        verb_at = next(i for i, w in enumerate(cmd) if w in ("redo", "salvage", "show"))
        assert cmd[verb_at + 1].startswith(session[:8]), cmd


def test_a_core_message_naming_a_session_verb_bare_gets_this_runs_session():
    import argparse

    from sidtui.cli.common import followups_in

    args = argparse.Namespace(session="20261130-05")
    assert followups_in("use `sidtui salvage` instead", args) == (
        "use `sidtui salvage 20261130-05` instead"
    )
    assert followups_in("`sidtui redo --force`", args) == "`sidtui redo 20261130-05 --force`"
    assert followups_in("`sidtui ls` shows it", args) == "`sidtui ls` shows it"

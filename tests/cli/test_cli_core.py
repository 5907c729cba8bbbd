"""CLI contract for `ls` and `show`: exit codes, JSON keys, no tracebacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from sidtui.cli import main
from tests.helpers import REAL_HOME, assistant, jsonl, make_home, start, user

SHOW_KEYS = {
    "session_id",
    "path",
    "format_version",
    "kind",
    "loadable",
    "load_failure",
    "messages",
    "resumed",
    "dropped",
    "interruption",
    "integrity",
    "bad_lines",
    "branches",
    "cycle",
    "state",
    "warnings",
    "records",
}
LS_KEYS = {
    "session_id",
    "project",
    "path",
    "format_version",
    "started",
    "model",
    "records",
    "bytes",
    "interruption",
    "loadable",
    "ended",
    "live",
}


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_show_json_contract(capsys):
    code, out, err = run(capsys, "--home", str(REAL_HOME), "show", "20261130-052907-79e5", "--json")
    assert code == 0, err
    j = json.loads(out)
    assert SHOW_KEYS <= j.keys()
    assert j["interruption"] == {"kind": "interrupted_turn", "tool_names": ["bash", "bash"]}
    assert {"line", "offset", "uuid", "parent", "type", "on_chain"} <= j["records"][0].keys()
    assert {"heads", "tips", "skipped_records"} <= j["branches"].keys()
    assert len([i for i in j["state"] if 1 <= i["number"] <= 10]) == 10


def test_show_unloadable_says_so(capsys):
    code, out, _ = run(
        capsys, "show", "20261130-052921-ad7240fb", "--home", str(REAL_HOME), "--json"
    )
    assert code == 0
    j = json.loads(out)
    assert j["loadable"] is False and "line 12" in j["load_failure"]
    assert j["messages"] == [] and j["chain"]["longest_readable_lines"][:2] == [1, 2]
    code, out, _ = run(capsys, "--home", str(REAL_HOME), "show", "20261130-052921-ad7240fb")
    assert "sees NOTHING" in out


def test_ls_json_contract(capsys):
    code, out, err = run(capsys, "--home", str(REAL_HOME), "ls", "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert rows and all(LS_KEYS <= r.keys() for r in rows)
    by_id = {r["session_id"]: r for r in rows}
    assert by_id["20261130-052907-87d4ce35"]["interruption"] == "interrupted_prompt"
    assert by_id["20261130-052921-ad7240fb"]["loadable"] is False
    assert all(r["kind"] == "main" for r in rows)


def test_ls_human_and_project_filter(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run(
        capsys, "--home", str(REAL_HOME), "ls", "--project", "tmp-sidtui-fixture-projects-cli-tool"
    )
    assert code == 0 and "interrupted turn" in out and "webapp" not in out
    code, _, err = run(capsys, "--home", str(REAL_HOME), "ls", "--project", "nope")
    assert code == 2 and "no project folder" in err


@pytest.mark.parametrize(
    "argv, code, needle",
    [
        (["show", "zzzz"], 2, "no session matches"),
        (["show", "2026113"], 2, "matches"),
        (["show"], 2, ""),
        (["frobnicate"], 2, ""),
    ],
)
def test_bad_arguments_exit_2(capsys, argv, code, needle):
    c, out, err = run(capsys, "--home", str(REAL_HOME), *argv)
    assert c == code
    assert needle in err
    assert "Traceback" not in err


def test_missing_home_is_clear(capsys, tmp_path):
    c, _, err = run(capsys, "--home", str(tmp_path / "nothing"), "ls")
    assert c == 2 and "no sid-code home" in err


def test_unreadable_file_exit_1(capsys, tmp_path):
    p = tmp_path / "sessions" / "p" / "x.jsonl"
    p.parent.mkdir(parents=True)
    p.write_text("{}\n")
    p.chmod(0)
    if os.geteuid() == 0:  # root reads anything: simulate with a directory instead
        p.chmod(0o644)
        p.unlink()
        p.mkdir()
    c, _, err = run(capsys, "--home", str(tmp_path), "show", str(p))
    # an unreadable file is an error of the input (1); a folder given as a session is a
    # usage error (2): root reads anything, so only the second can be made here as root
    assert c == (2 if os.geteuid() == 0 else 1) and err.startswith("sidtui: error:")


def test_env_home_and_python_m(tmp_path):
    env = {**os.environ, "SID_CONFIG_DIR": str(REAL_HOME)}
    r = subprocess.run(
        [sys.executable, "-m", "sidtui", "ls", "--json"], capture_output=True, env=env
    )
    assert r.returncode == 0 and json.loads(r.stdout)


def test_core_never_imports_textual():
    code = (
        "import sys, sidtui.core.views.session, sidtui.core.views.listing, sidtui.core.resume.process, "
        "sidtui.core.resume.state, sidtui.cli.ls, sidtui.cli.show\n"
        "import pkgutil, importlib, sidtui.core as c\n"
        "[importlib.import_module(m.name) for m in pkgutil.walk_packages(c.__path__, 'sidtui.core.')]\n"
        "assert 'textual' not in sys.modules, 'core imported textual'"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_streamed_json_equals_materialised():
    import io

    import orjson

    from sidtui.core.base.home import Home
    from sidtui.core.base.resolve import resolve_session
    from sidtui.core.views.session import open_session
    from sidtui.core.views.show_json import session_to_json, write_json_stream

    for n in (0, 1, 3, 5):
        buf = io.BytesIO()
        write_json_stream({"a": 1, "g": (i for i in range(n)), "z": [1]}, buf, chunk=2)
        assert orjson.loads(buf.getvalue()) == {"a": 1, "g": list(range(n)), "z": [1]}
    home = Home(REAL_HOME)
    v = open_session(home, resolve_session(home, "20261130-052911-93f211fb"))
    buf = io.BytesIO()
    write_json_stream(session_to_json(v, lazy=True), buf)
    assert orjson.loads(buf.getvalue()) == orjson.loads(orjson.dumps(v.to_json()))


@pytest.mark.parametrize("max_rows", [200, 1])
def test_ls_prompts_are_text_not_markup(capsys, tmp_path, monkeypatch, max_rows):
    """A prompt holding Rich markup ("[/]", "[bold]") prints as written, boxed or plain."""
    import sidtui.cli.ls as ls_cli
    from tests.helpers import assistant, jsonl, start, user

    monkeypatch.setattr(ls_cli, "TABLE_MAX_ROWS", max_rows)
    monkeypatch.setenv("COLUMNS", "200")
    folder = tmp_path / "sessions" / "p"
    folder.mkdir(parents=True)
    for i in range(2):
        sid = f"20260101-000000-aaaaaaa{i}"
        (folder / f"{sid}.jsonl").write_bytes(
            jsonl(
                start(sid=sid),
                user("u", "S", text="fix arr[/] and [bold]x[/bold]"),
                assistant("a", "u"),
            )
        )
    code, out, err = run(capsys, "--home", str(tmp_path), "ls", "--no-cache")
    assert code == 0, err
    assert out.count("fix arr[/] and [bold]x[/bold]") == 2
    assert ("┏" in out) == (max_rows == 200)  # boxed table, or aligned lines for big projects


def test_show_lists_the_last_messages_and_prints_text_literally(capsys, tmp_path, monkeypatch):
    """`show` lists the last --messages N resumed messages (all on request); session text
    with Rich markup prints as written; a bad --messages value is a usage error."""
    from tests.helpers import assistant, jsonl, start, user

    monkeypatch.setenv("COLUMNS", "200")
    folder = tmp_path / "sessions" / "p"
    folder.mkdir(parents=True)
    sid = "20260101-000000-bbbbbbbb"
    recs = [start(sid=sid)]
    parent = "S"
    for i in range(30):
        recs.append(user(f"u{i}", parent, text=f"prompt {i} [/] [bold]x"))
        recs.append(assistant(f"a{i}", f"u{i}", text=f"answer {i}"))
        parent = f"a{i}"
    (folder / f"{sid}.jsonl").write_bytes(jsonl(*recs))
    code, out, err = run(capsys, "--home", str(tmp_path), "show", sid, "--messages", "4")
    assert code == 0, err
    assert "the last 4 of 60 messages" in out
    assert "prompt 29 [/] [bold]x" in out and "prompt 27" not in out
    code, out, _ = run(capsys, "--home", str(tmp_path), "show", sid, "--messages", "all")
    assert code == 0 and "prompt 0 [/] [bold]x" in out and "the last" not in out
    code, _, err = run(capsys, "--home", str(tmp_path), "show", sid, "--messages", "lots")
    assert code == 2 and "--messages" in err and "Traceback" not in err


def test_markup_in_session_data_never_breaks_human_output(capsys, tmp_path, monkeypatch):
    """Project folders, prompts and record types holding Rich markup print literally in
    every read verb's human output (Rich would raise on a stray "[/]")."""
    from tests.helpers import assistant, jsonl, rec, start, user

    monkeypatch.setenv("COLUMNS", "200")
    folder = tmp_path / "sessions" / "proj[red]x[link=y]"
    folder.mkdir(parents=True)
    sid = "20260101-000000-cccccccc"
    (folder / f"{sid}.jsonl").write_bytes(
        jsonl(
            start(sid=sid),
            user("u", "S", text="see [/] and [bold]"),
            rec("odd[/]kind", "o", "u"),
            assistant("a", "o"),
        )
        + b'{"type": "user_message", "broken [/]\n'
    )
    # every read verb succeeds (a torn last line is no structural fault for check) except
    # checkpoints: this session has no index, a one-line error with exit 1
    for argv, want in (
        (["ls", "--no-cache"], 0),
        (["show", sid], 0),
        (["check"], 0),
        (["rewind", sid], 0),
        (["search", "[/]"], 0),
        (["checkpoints", sid], 1),
    ):
        code, out, err = run(capsys, "--home", str(tmp_path), *argv)
        assert "Traceback" not in err and "MarkupError" not in err, (argv, err)
        assert code == want, (argv, code, err)
    code, out, _ = run(capsys, "--home", str(tmp_path), "show", sid, "--messages", "all")
    assert "see [/] and [bold]" in out
    code, out, _ = run(capsys, "--home", str(tmp_path), "check")
    assert "odd[/]kind" in out
    code, out, _ = run(capsys, "--home", str(tmp_path), "ls", "--no-cache")
    assert "proj[red]x[link=y]" in out


@pytest.mark.parametrize("as_json", [False, True])
def test_stdout_closed_early_exits_0_quietly(tmp_path, as_json):
    """`sidtui show … | head -1`: a reader that stops early is not an error (exit 0, no
    traceback), for Rich output and for the streamed JSON (both far above a pipe buffer)."""
    from tests.helpers import assistant, jsonl, start, user

    folder = tmp_path / "sessions" / "p"
    folder.mkdir(parents=True)
    sid = "20260101-000000-dddddddd"
    recs = [start(sid=sid)]
    parent = "S"
    for i in range(1500):
        recs.append(user(f"u{i}", parent, text=f"prompt {i} " + "x" * 60))
        recs.append(assistant(f"a{i}", f"u{i}", text=f"answer {i}"))
        parent = f"a{i}"
    (folder / f"{sid}.jsonl").write_bytes(jsonl(*recs))
    argv = ["show", sid, "--json"] if as_json else ["show", sid, "--messages", "all"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "sidtui", "--home", str(tmp_path), *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "COLUMNS": "120"},
    )
    proc.stdout.readline()
    proc.stdout.close()  # the reader goes away with most of the output unread
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["show", "latest"],
        ["undo", "latest", "--dry-run"],
        ["redo", "latest", "--dry-run"],
        ["restore", "latest", "--before", "s1", "--dry-run"],
        ["rewind", "latest", "--to", "1", "--dry-run"],
        ["fork", "latest", "--dry-run"],
        ["salvage", "latest", "--dry-run"],
        ["branch", "latest", "--dry-run"],
        ["checkpoints", "latest"],
    ],
)
def test_latest_outside_a_project_targets_no_other_project(
    capsys, monkeypatch, real_home_with_projects, argv
):
    """From a folder holding projects (not a repo itself), `latest` names no session."""
    home, projects = real_home_with_projects
    monkeypatch.chdir(projects)
    code, out, err = run(capsys, "--home", str(home), *argv)
    assert code == 2, (out, err)
    assert f"no session of the project for {projects.resolve()}" in err
    assert "projects below it: cd into one, or give a session id" in err
    assert (
        f"{projects.resolve() / 'cli-tool'}  (folder tmp-sidtui-fixture-projects-cli-tool)" in err
    )
    assert out == ""


def test_latest_inside_a_project_is_its_newest_session(
    capsys, monkeypatch, real_home_with_projects
):
    home, projects = real_home_with_projects
    monkeypatch.chdir(projects / "cli-tool")
    code, out, err = run(capsys, "--home", str(home), "show", "latest", "--json")
    assert code == 0, err
    assert "tmp-sidtui-fixture-projects-cli-tool" in json.loads(out)["path"]


def test_empty_home_is_a_usage_error(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("SID_CONFIG_DIR", str(tmp_path))  # never silently this, nor ~/.sid-code
    for argv in (["--home", "", "ls"], ["ls", "--home", " "], ["--home", ""]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and "--home needs a folder" in err and out == "", argv


def test_app_without_a_terminal_prints_the_listing(capsys):
    """stdout/stdin not a terminal (pytest's capture): no full-screen app, the `ls` listing."""
    code, out, err = run(capsys, "--home", str(REAL_HOME))
    assert code == 0
    assert "the app needs a terminal" in err and "session list instead" in err
    assert out.splitlines()[0] == str(REAL_HOME)
    assert "20261130-052907-9ff3799b" in out


def test_ls_on_an_empty_home_with_markup_in_its_path(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # tmp paths are long: keep the line whole
    home = tmp_path / "e[/]h[bold]"
    (home / "sessions").mkdir(parents=True)
    code, out, err = run(capsys, "--home", str(home), "ls")
    assert code == 0 and "Traceback" not in err and f"no sessions under {home}" in err
    assert out == ""


def test_ls_on_a_demo_dir_names_the_home_inside(capsys, tmp_path):
    """``sidtui ls --home DIR`` where DIR is a demo's ``--dir`` (the home is DIR/home):
    stderr says what was looked for, where, and which folder is the home."""
    (tmp_path / "home" / "sessions" / "p").mkdir(parents=True)
    code, out, err = run(capsys, "--home", str(tmp_path), "ls")
    assert code == 0 and out == ""
    assert err.splitlines() == [
        f"sidtui: no sessions: {tmp_path}/sessions does not exist (sessions live in <home>/sessions/)",
        f"sidtui: {tmp_path}/home/sessions exists: try sidtui --home {tmp_path}/home",
    ]


def test_piped_output_never_cuts_a_long_path_or_project_key(capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)  # piped at 200 columns, text unwrapped
    key = "k" * 230  # wider than a piped stdout's tables
    cwd = "/" + "/".join(["d" * 60] * 4)
    sid = "20260101-000000-aaaaaaaa"
    data = jsonl({**start(), "cwd": cwd}, user("u", "S", "checkout please"), assistant("a", "u"))
    home = make_home(tmp_path / ("h" * 150), {sid: data}, project=key)
    path = str(home / "sessions" / key / f"{sid}.jsonl")
    code, out, err = run(capsys, "--home", str(home), "ls")
    assert code == 0 and f"{key}  (1 session)" in out.splitlines(), err
    code, out, err = run(capsys, "--home", str(home), "search", "checkout")
    assert code == 0 and key in out.splitlines()[0], err
    code, out, err = run(capsys, "--home", str(home), "show", sid)
    assert code == 0, err
    folded = "".join(ln.strip("│ ") for ln in out.splitlines()[:12])  # the head panel
    assert path in folded and cwd in folded and "…" not in folded

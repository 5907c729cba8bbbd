"""A transcript name that cannot be read (a symlink loop) is named, never hidden:
``show ID`` says ``cannot read …`` as ``show PATH`` does, and the cached ``ls`` warns
as ``ls --no-cache`` does."""

from __future__ import annotations

import pytest

from sidtui.cli import main
from sidtui.core.base.discover import unreadable_transcripts
from sidtui.core.base.errors import AmbiguousSession, UnreadableInput
from sidtui.core.base.home import Home
from sidtui.core.base.resolve import resolve_session

CLI = "tmp-sidtui-fixture-projects-cli-tool"
WEBAPP = "tmp-sidtui-fixture-projects-webapp"
SID = "20261130-052907-79e5ff19"
LOOP_ID = "20990101-000000-aaaaaaaa"
ELOOP = "Too many levels of symbolic links"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in err, err
    return code, out, err


@pytest.mark.parametrize("two_links", [False, True], ids=["self", "a-b-a"])
def test_show_id_of_a_symlink_loop_names_it(real_home_copy, capsys, two_links):
    folder = real_home_copy / "sessions" / CLI
    path = folder / f"{LOOP_ID}.jsonl"
    if two_links:  # a.jsonl -> b.jsonl -> a.jsonl
        path.symlink_to(folder / "other.jsonl")
        (folder / "other.jsonl").symlink_to(path)
    else:
        path.symlink_to(path.name)
    by_path = run(capsys, "--home", str(real_home_copy), "show", str(path))
    line = f"sidtui: error: cannot read {path}: {ELOOP}"
    assert by_path[0] == 1 and by_path[2].strip() == line
    for arg in (LOOP_ID, LOOP_ID[:12], "2099"):  # exact id, unique prefixes
        code, out, err = run(capsys, "--home", str(real_home_copy), "show", arg)
        assert (code, out, err.strip()) == (1, "", line), arg
    # a readable session still resolves, and an unknown id is still "no session matches"
    assert resolve_session(Home(real_home_copy), SID).path.name == f"{SID}.jsonl"
    code, _, err = run(capsys, "--home", str(real_home_copy), "show", "3000")
    assert code == 2 and "no session matches '3000'" in err


def test_readable_match_wins_and_several_unreadable_are_listed(real_home_copy):
    home = Home(real_home_copy)
    folder = real_home_copy / "sessions" / CLI
    for stem in (LOOP_ID, LOOP_ID[:-1] + "b"):
        (folder / f"{stem}.jsonl").symlink_to(f"{stem}.jsonl")
    assert [p.name for p, _ in unreadable_transcripts(home)] == [
        f"{LOOP_ID}.jsonl",
        f"{LOOP_ID[:-1]}b.jsonl",
    ]
    with pytest.raises(AmbiguousSession) as ei:
        resolve_session(home, "2099")
    assert len(ei.value.candidates) == 2 and all(ELOOP in c for c in ei.value.candidates)
    with pytest.raises(UnreadableInput, match=ELOOP):
        resolve_session(home, LOOP_ID)  # exact beats the other prefix hit
    # a loop whose name shares a readable session's prefix: the readable one answers
    (folder / f"{SID[:-1]}0.jsonl").symlink_to(f"{SID[:-1]}0.jsonl")
    assert resolve_session(home, SID).session_id == SID
    assert resolve_session(home, SID[:-1]).session_id == SID


def test_cached_ls_warns_like_no_cache(real_home_copy, capsys):
    folder = real_home_copy / "sessions" / CLI
    (folder / "x.jsonl").symlink_to("x.jsonl")
    (folder / "loop").symlink_to("loop")  # not a transcript name: quiet in both
    (real_home_copy / "sessions" / "flat.jsonl").symlink_to("flat.jsonl")
    home = str(real_home_copy)
    _, _, no_cache = run(capsys, "--home", home, "ls", "--json", "--no-cache")
    assert (
        no_cache.count("warning:") == 2 and f"cannot read {folder / 'x.jsonl'}: {ELOOP}" in no_cache
    )
    for _ in range(2):  # cold, then warm (answered from the catalog)
        code, out, err = run(capsys, "--home", home, "ls", "--json")
        assert code == 0 and SID in out
        assert err == no_cache
    # --project: only that folder's files are named, as --no-cache does
    for extra in ([], ["--no-cache"]):
        _, _, err = run(capsys, "--home", home, "ls", "--project", WEBAPP, *extra)
        assert "warning" not in err, extra
        _, _, err = run(capsys, "--home", home, "ls", "--project", CLI, "--json", *extra)
        assert err.strip() == f"sidtui: warning: cannot read {folder / 'x.jsonl'}: {ELOOP}"

"""Per-file usage events cached beside the catalog (sidtui.core.index.usage_cache)."""

from __future__ import annotations

import json
from pathlib import Path

from scripts.usage_compare import rec
from sidtui.core.claude.layout import ClaudeHome
from sidtui.core.claude.usage import read_usage
from sidtui.core.index.catalog import Catalog
from sidtui.core.index.usage_cache import cached_usage

M = "claude-sonnet-4-20250514"


def _line(n: int, day: int = 1) -> str:
    return (
        json.dumps(
            rec(f"2025-03-0{day}T12:00:00Z", M, f"m{n}", f"r{n}", n, 1), separators=(",", ":")
        )
        + "\n"
    )


def _home(tmp_path: Path) -> ClaudeHome:
    for rel, ns in (("p/a.jsonl", (1, 2)), ("p/b.jsonl", (3,)), ("q/c.jsonl", (4,))):
        f = tmp_path / "claude" / "projects" / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("".join(_line(n) for n in ns))
    return ClaudeHome(tmp_path / "claude")


class Counting:
    def __init__(self) -> None:
        self.read: list[str] = []

    def __call__(self, path, project, errors):
        self.read.append(Path(path).name)
        return read_usage(path, project, errors)


def _events(files) -> list:
    return [e for f in files for e in f.load()]


def _ids(files) -> list[tuple[str, str | None, int]]:
    return [(Path(e.file).name, e.message_id, e.input_tokens) for e in _events(files)]


def test_a_warm_run_reads_no_file_and_gives_the_same_events(tmp_path) -> None:
    home, db = _home(tmp_path), tmp_path / "cat.sqlite3"
    cold = Counting()
    first = cached_usage(home, cold, db_path=db)
    assert sorted(cold.read) == ["a.jsonl", "b.jsonl", "c.jsonl"]
    warm = Counting()
    second = cached_usage(home, warm, db_path=db)
    assert warm.read == []
    assert _ids(second) == _ids(first) == _ids(cached_usage(home, Counting(), use_cache=False))
    assert [e.file for e in _events(second)] == [e.file for e in _events(first)]
    assert [(f.keys, f.parts) for f in second] == [(f.keys, f.parts) for f in first]


def test_a_grown_file_is_read_again_and_a_removed_one_forgotten(tmp_path) -> None:
    home, db = _home(tmp_path), tmp_path / "cat.sqlite3"
    cached_usage(home, Counting(), db_path=db)
    with open(home.projects_dir / "p" / "b.jsonl", "a") as fh:
        fh.write(_line(5, day=2))
    (home.projects_dir / "q" / "c.jsonl").unlink()
    again = Counting()
    events = cached_usage(home, again, db_path=db)
    assert again.read == ["b.jsonl"]
    assert _ids(events) == [
        ("a.jsonl", "m1", 1),
        ("a.jsonl", "m2", 2),
        ("b.jsonl", "m3", 3),
        ("b.jsonl", "m5", 5),
    ]
    cat = Catalog(home, db)
    assert [p for (p,) in cat.conn.execute("SELECT path FROM usage_by_file ORDER BY path")] == [
        str(home.projects_dir / "p" / "a.jsonl"),
        str(home.projects_dir / "p" / "b.jsonl"),
    ]


def test_a_project_filter_reads_only_its_files_and_forgets_nothing(tmp_path) -> None:
    home, db = _home(tmp_path), tmp_path / "cat.sqlite3"
    r = Counting()
    assert [e.project for e in _events(cached_usage(home, r, project="q", db_path=db))] == ["q"]
    assert r.read == ["c.jsonl"]
    again = Counting()
    cached_usage(home, again, db_path=db)
    assert sorted(again.read) == ["a.jsonl", "b.jsonl"]


def test_a_corrupt_cache_is_rebuilt_and_the_catalog_still_lists(tmp_path) -> None:
    home, db = _home(tmp_path), tmp_path / "cat.sqlite3"
    db.write_bytes(b"not a database" * 100)
    events = _events(cached_usage(home, Counting(), db_path=db))
    assert len(events) == 4
    cat = Catalog(home, db)
    cat.refresh()
    assert len(cat.rows()) == 3
    assert len(_events(cached_usage(home, Counting(), db_path=db))) == 4


def test_workers_give_the_same_events_in_the_same_order(tmp_path) -> None:
    home = _home(tmp_path)
    one = cached_usage(home, read_usage, use_cache=False, workers=1)
    two = cached_usage(home, read_usage, use_cache=False, workers=2)
    assert _ids(one) == _ids(two)


def test_an_unreadable_file_is_one_error_line(tmp_path) -> None:
    home = _home(tmp_path)
    target = home.projects_dir / "p" / "b.jsonl"
    target.unlink()
    target.mkdir()  # a folder named like a transcript is no file to read
    (home.projects_dir / "p" / "z.jsonl").symlink_to(tmp_path / "nowhere")
    errors: list[str] = []
    events = _events(cached_usage(home, read_usage, errors=errors, use_cache=False))
    assert {e.message_id for e in events} == {"m1", "m2", "m4"}

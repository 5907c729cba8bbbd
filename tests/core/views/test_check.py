"""`sidtui check`: every count equals an independent, straightforward recount.

The recount below reads every file line by line with the standard library's ``json`` (plus
the two places where JSON.parse differs from it: ``NaN``/``Infinity`` are refused, and bytes
are decoded as UTF-8 with U+FFFD for invalid sequences) and shares no code with sidtui's
reader. The rule of FORMAT.md §13.1 (3): count the same thing two ways; if they disagree,
one of them is wrong.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from collections import Counter
from pathlib import Path

import orjson
import pytest

from sidtui.cli import main
from tests.helpers import REAL_HOME, REPO, assistant, jsonl, start, tool_results, user

# --- the independent recount ---------------------------------------------------------------

_JS_WS = " \t\n\r\x0b\x0c\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def _no_constants(name):
    raise ValueError(name)


def js_parse(text: str):
    """JSON.parse on one line, via the standard library (raises ValueError when it would)."""
    return json.loads(text, parse_constant=_no_constants)


def _lines(data: bytes):
    """(line number, byte offset, raw bytes) of every physical line, like str.split('\\n')."""
    off = 0
    for n, raw in enumerate(data.split(b"\n"), 1):
        yield n, off, raw
        off += len(raw) + 1


def recount(home: Path) -> dict:
    sessions = home / "sessions"
    folders = [sessions] + sorted(
        p for p in sessions.iterdir() if p.is_dir() and p.name != "summaries"
    )
    out = {
        "main": 0,
        "sidechain": 0,
        "v1": 0,
        "linear": 0,
        "session_start": 0,
        "null_heads": 0,
        "fork_heads": 0,
        "no_uuid": 0,
        "blank": 0,
        "non_blank": 0,
        "types": Counter(),
        "side_types": Counter(),
        "meta": Counter(),
        "human": 0,
        "tr_records": 0,
        "other_user": 0,
        "tr_blocks": 0,
        "tr_max": 0,
        "bad": [],
        "strict": [],
        "sizes": [],
        "ends_with": 0,
        "ends_last": 0,
        "end_records": 0,
        "fc": 0,
        "fc_last": 0,
        "fc_ids": 0,
        "start_version": 0,
        "faults": set(),
    }
    for folder in folders:
        for p in sorted(folder.iterdir()):
            if not p.is_file():
                continue
            if p.name.endswith(".json"):
                out["v1"] += 1
                continue
            if not p.name.endswith(".jsonl"):
                continue
            data = p.read_bytes()
            parsed = []  # (line, value)
            for n, off, raw in _lines(data):
                if n > 1 and off == len(data):
                    break  # the empty string after the final "\n"
                text = raw.decode("utf-8", errors="replace")
                if not text.strip(_JS_WS):
                    out["blank"] += 1
                    continue
                out["non_blank"] += 1
                try:
                    value = js_parse(text)
                except ValueError:
                    out["bad"].append((str(p), n, off))
                    continue
                try:
                    orjson.loads(raw)
                except orjson.JSONDecodeError:
                    out["strict"].append((str(p), n, off))
                parsed.append((n, value))
            first = parsed[0][1] if parsed and parsed[0][0] == 1 else None
            if isinstance(first, dict) and first.get("type") == "sidechain_start":
                out["sidechain"] += 1
                for _, v in parsed:
                    out["side_types"][_tkey(v)] += 1
                continue
            out["main"] += 1
            out["sizes"].append(len(data))
            values = [v for _, v in parsed]
            uuids = {
                v["uuid"] for v in values if isinstance(v, dict) and isinstance(v.get("uuid"), str)
            }
            if not uuids:
                out["linear"] += 1
            starts = heads = 0
            ends = 0
            for v in values:
                out["types"][_tkey(v)] += 1
                if not isinstance(v, dict):
                    continue
                t = v.get("type")
                if uuids:
                    if not isinstance(v.get("uuid"), str):
                        out["no_uuid"] += 1
                    elif not isinstance(v.get("parentUuid"), str):
                        out["null_heads"] += 1
                        heads += 1
                    elif t == "session_start" and v["parentUuid"] not in uuids:
                        out["fork_heads"] += 1
                        heads += 1
                if t == "session_start":
                    starts += 1
                    out["start_version"] += v.get("version") is not None
                elif t == "session_end":
                    ends += 1
                elif t == "metadata":
                    key = v.get("key") if isinstance(v.get("key"), str) else "(no key)"
                    out["meta"][key] += 1
                    if key == "file_changes":
                        val = v.get("value") if isinstance(v.get("value"), dict) else {}
                        out["fc"] += 1
                        out["fc_last"] += val.get("lastSnapshotId") is not None
                        out["fc_ids"] += val.get("snapshotIds") is not None
                elif t == "user_message":
                    m = v.get("message")
                    if not isinstance(m, dict):
                        out["other_user"] += 1
                        continue
                    c = m.get("content")
                    kinds = (
                        ["text"]
                        if isinstance(c, str)
                        else [b.get("type") if isinstance(b, dict) else None for b in c]
                        if isinstance(c, list)
                        else []
                    )
                    n = kinds.count("tool_result")
                    if m.get("role") == "user" and n == 0:
                        out["human"] += 1
                    elif n:
                        out["tr_records"] += 1
                    else:
                        out["other_user"] += 1
                    out["tr_blocks"] += n
                    out["tr_max"] = max(out["tr_max"], n)
            out["session_start"] += starts
            out["end_records"] += ends
            out["ends_with"] += ends > 0
            out["ends_last"] += (
                bool(values)
                and isinstance(values[-1], dict)
                and values[-1].get("type") == "session_end"
            )
            if starts != 1:
                out["faults"].add(
                    ("session_start_missing" if starts == 0 else "session_start_multiple", str(p))
                )
            if uuids and heads != 1:
                out["faults"].add(("head_missing" if heads == 0 else "head_multiple", str(p)))
    out["checkpoints"] = _recount_checkpoints(home)
    return out


def _tkey(v) -> str:
    if not isinstance(v, dict):
        return "(not an object)"
    t = v.get("type")
    return t if isinstance(t, str) else "(no type)"


def _recount_checkpoints(home: Path) -> dict:
    tot = {
        "indexes": 0,
        "snapshots": 0,
        "full": 0,
        "compressed": 0,
        "diff": 0,
        "bytes": 0,
        "largest": 0,
        "unrecoverable": 0,
    }
    root = home / "checkpoints"
    if not root.is_dir():
        return tot
    for d in sorted(root.iterdir()):
        p = d / "index.json"
        if not p.is_file():
            continue
        idx = json.loads(p.read_text("utf-8"))
        tot["indexes"] += 1
        tot["bytes"] += p.stat().st_size
        if "snapshots" in idx:
            snaps = [s.get("files") or [] for s in idx["snapshots"]]
        else:  # legacy shape: one snapshot per entry
            snaps = [[e] for f in idx["files"].values() for e in f["entries"]]
        tot["snapshots"] += len(snaps)
        tot["largest"] = max(tot["largest"], len(snaps))
        base: dict[str, bool] = {}  # file → its content so far can be rebuilt
        for files in snaps:
            for e in files:
                path = e["filePath"]
                if e["type"] == "full":
                    tot["full"] += 1
                    tot["compressed"] += bool(e.get("compressed"))
                    base[path] = True
                    continue
                tot["diff"] += 1
                ops = e["diff"]["ops"]
                if not ops:  # the ≥ 10,000-line bug: nothing was stored
                    ok = False
                elif not any(o["type"] == "keep" for o in ops):
                    ok = True  # does not read its base
                else:
                    ok = base.get(path, False)  # needs a base (evicted ⇒ history cut)
                tot["unrecoverable"] += not ok
                base[path] = ok
    return tot


def nearest_rank(sizes: list[int], p: float) -> int:
    s = sorted(sizes)
    return s[max(math.ceil(p * len(s)), 1) - 1]


def run_json(capsys, *argv) -> tuple[int, dict]:
    code = main(list(argv))
    out = capsys.readouterr().out
    return code, json.loads(out)


def assert_matches(report: dict, rc: dict) -> None:
    assert report["files"] == {
        "main": rc["main"],
        "sidechain": rc["sidechain"],
        "v1_json": rc["v1"],
        "main_linear": rc["linear"],
    }
    assert report["session_start"] == rc["session_start"]
    assert report["heads"] == {"null_parent": rc["null_heads"], "forked": rc["fork_heads"]}
    assert report["records_without_uuid"] == rc["no_uuid"]
    assert report["record_types"] == dict(rc["types"])
    assert report["sidechain_record_types"] == dict(rc["side_types"])
    assert report["metadata_keys"] == dict(rc["meta"])
    assert report["prompts"] == {
        "human": rc["human"],
        "tool_result_records": rc["tr_records"],
        "other_user_records": rc["other_user"],
        "tool_result_blocks": rc["tr_blocks"],
        "max_tool_results_per_record": rc["tr_max"],
    }
    assert report["lines"] == {
        "non_blank": rc["non_blank"],
        "blank": rc["blank"],
        "bad": len(rc["bad"]),
        "strict_only": len(rc["strict"]),
    }
    assert [(b["file"], b["line"], b["offset"]) for b in report["bad_lines"]] == rc["bad"]
    assert [(b["file"], b["line"], b["offset"]) for b in report["strict_parser_only"]] == rc[
        "strict"
    ]
    sizes = rc["sizes"]
    assert report["sizes"] == {
        "n": len(sizes),
        "min": min(sizes),
        "p50": nearest_rank(sizes, 0.5),
        "p95": nearest_rank(sizes, 0.95),
        "max": max(sizes),
        "total": sum(sizes),
    }
    assert report["session_end"] == {
        "files_with": rc["ends_with"],
        "files": rc["main"],
        "share": rc["ends_with"] / rc["main"],
        "records": rc["end_records"],
        "last_record": rc["ends_last"],
    }
    land = {x["field"]: (x["count"], x["out_of"]) for x in report["landings"]}
    records = sum(rc["types"].values())
    metas = rc["types"]["metadata"]
    for t in (
        "session_start",
        "user_message",
        "assistant_message",
        "tool_result",
        "context_compact",
        "metadata",
        "session_end",
    ):
        assert land[f"record.{t}"] == (rc["types"][t], records)
    for k in ("file_changes", "usage_stats", "trace_session_id", "kind", "side_call_stats"):
        assert land[f"metadata.{k}"] == (rc["meta"][k], metas)
    assert land["file_changes.lastSnapshotId"] == (rc["fc_last"], rc["fc"])
    assert land["file_changes.snapshotIds"] == (rc["fc_ids"], rc["fc"])
    assert land["session_start.version"] == (rc["start_version"], rc["session_start"])
    zero = {z["field"] for z in report["zero_landing"]}
    assert zero == {f for f, (c, n) in land.items() if c == 0 and n > 0}
    ck, rck = report["checkpoints"], rc["checkpoints"]
    for k in ("indexes", "snapshots", "full", "compressed", "diff", "bytes"):
        assert ck[k] == rck[k], k
    assert ck["largest"]["snapshots"] == rck["largest"]
    assert ck["unrecoverable"] == rck["unrecoverable"]
    faults = {
        (f["kind"], f["file"]) for f in report["faults"] if not f["kind"].startswith("checkpoint")
    }
    assert faults == rc["faults"]


# --- the real fixtures home ---------------------------------------------------------------


def test_counts_equal_recount_on_real_home(real_home_copy, capsys):
    code, report = run_json(capsys, "--home", str(real_home_copy), "check", "--json")
    rc = recount(real_home_copy)
    assert_matches(report, rc)
    # Known facts of the fixture (its README): the reused id S17 holds two session_starts,
    # S14's ≥ 10,000-line files left three empty-ops diffs, S16 has a torn line.
    kinds = {(f["kind"], Path(f["file"]).name) for f in report["faults"]}
    s17 = "6d659820-d5f0-4ba3-a0d4-57ce34cdc963.jsonl"
    assert ("session_start_multiple", s17) in kinds and ("head_multiple", s17) in kinds
    assert report["checkpoints"]["unrecoverable"] == 3
    assert report["heads"]["forked"] == 1  # S05's start points at its source session id
    assert any(b["file"].endswith("20261130-052921-ad7240fb.jsonl") for b in report["bad_lines"])
    assert report["coverage"]["indexes"]["without_session"] == 0
    assert report["coverage"]["sessions"]["count"] == 21
    assert code == 1


def test_counts_equal_recount_on_demo_home(short_tmp_path, capsys):
    """The goal as worded: on the demo home (lone surrogate, half line, torn/glued line,
    reused id, fork, legacy files, checkpoints) every count equals the recount."""
    from sidtui.demo.scenarios import build_demo_home

    demo = build_demo_home(short_tmp_path / "demo", 0, use_git=False)
    code, report = run_json(capsys, "--home", str(demo.home), "check", "--json")
    rc = recount(demo.home)
    assert_matches(report, rc)
    assert report["strict_parser_only"], (
        "the demo's lone-surrogate line is not bad, only strict-rejected"
    )
    assert any(w["kind"] == "cycle" for w in report["warnings"])  # the demo's cycle case
    assert code == (1 if report["faults"] else 0)


def test_parallel_scan_gives_the_same_report(real_home_copy, monkeypatch, tmp_path):
    from sidtui.core.base import pool
    from sidtui.core.base.home import Home
    from sidtui.core.views import check

    _crafted(tmp_path)  # another home to merge: bad lines, strict-only lines, faults
    serial = check.run_check(Home(real_home_copy)).to_json()
    monkeypatch.setattr(pool, "can_fork", lambda: True)  # fork under pytest-xdist's threads
    monkeypatch.setattr(check, "CHUNK_FILES", 3)
    seen = []
    parallel = check.run_check(
        Home(real_home_copy), workers=2, progress=lambda d, t, p: seen.append((d, t))
    ).to_json()
    assert parallel == serial
    assert seen[-1][0] == seen[-1][1] and len(seen) > 2
    home = Home(tmp_path / "home")
    monkeypatch.setattr(check, "CHUNK_FILES", 1000)
    one = check.run_check(home).to_json()
    monkeypatch.setattr(check, "CHUNK_FILES", 2)
    assert check.run_check(home, workers=2).to_json() == one


def test_real_home_is_read_only(capsys):
    before = {p: p.stat().st_mtime_ns for p in REAL_HOME.rglob("*") if p.is_file()}
    # --home on the committed fixture: check never writes.
    code = main(["--home", str(REAL_HOME), "check", "--json"])
    capsys.readouterr()
    assert code == 1
    assert before == {p: p.stat().st_mtime_ns for p in REAL_HOME.rglob("*") if p.is_file()}


# --- a crafted home ------------------------------------------------------------------------


def _crafted(root: Path) -> Path:
    home = root / "home"
    a = home / "sessions" / "proj-a"
    b = home / "sessions" / "proj-b"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    (home / "sessions" / "summaries").mkdir()
    good = jsonl(
        start("S1", sid="20260101-000000-00000001"),
        user("U1", "S1", "hello"),
        assistant("A1", "U1", tools=[("t1", "edit"), ("t2", "read")]),
        {
            "type": "metadata",
            "key": "file_changes",
            "value": {"files": ["x"], "count": 1},
            "uuid": "M1",
            "parentUuid": "A1",
        },
        tool_results("U2", "M1", "t1", "t2"),
        assistant("A2", "U2"),
        {
            "type": "metadata",
            "key": "trace_session_id",
            "value": "20260101-000001-77777777",
            "uuid": "M2",
            "parentUuid": "A2",
        },
        {"type": "session_end", "totalCostUSD": 0.1, "uuid": "E1", "parentUuid": "M2"},
    )
    (a / "20260101-000000-00000001.jsonl").write_bytes(good)
    # JSON.parse accepts a lone surrogate escape, a number beyond double range and an
    # invalid UTF-8 byte; jq/orjson refuse all three. NaN and a torn tail are really bad.
    tricky = b"\n".join(
        [
            jsonl(start("S2", sid="20260101-000000-00000002")).rstrip(b"\n"),
            b'{"type":"user_message","uuid":"U1","parentUuid":"S2","message":{"role":"user","content":"emoji \\ud83d cut"}}',
            b'{"type":"metadata","key":"usage_stats","value":{"n":1e400},"uuid":"M1","parentUuid":"U1"}',
            b'{"type":"assistant_message","uuid":"A1","parentUuid":"M1","message":{"role":"assistant","content":[{"type":"text","text":"bad \xff byte"}]}}',
            b"",
            b"  \xc2\xa0 ",
            b'{"type":"metadata","key":"file_changes","value":{"files":[],"lastSnapshotId":"s1","snapshotIds":null},"uuid":"M2","parentUuid":"A1"}',
            b'{"type":"metadata","key":"x","value":NaN,"uuid":"M3","parentUuid":"M2"}',
            b"5",
            b'{"uuid":"Q1","parentUuid":"M2","note":"no type"}',
            b'{"type":"context_compact","summary":"s","removedCount":2,"isBoundary":true}',
            b'{"type":"assistant_message","uuid":"A2","parentUuid":"Q1","message":{"role":"ass',
        ]
    )
    (a / "20260101-000000-00000002.jsonl").write_bytes(tricky)
    # Two session_start records (a reused id) and none at all (first line lost).
    (b / "20260101-000000-00000003.jsonl").write_bytes(
        jsonl(start("S3"), user("U3", "S3"), start("S4"), user("U4", "S4"))
    )
    (b / "20260101-000000-00000004.jsonl").write_bytes(
        jsonl(user("U5", "gone"), assistant("A5", "U5"))
    )
    # A fork: the start's parent is the source session id; not a fault.
    (b / "20260101-000000-00000005.jsonl").write_bytes(
        jsonl(start("S6", parent="20260101-000000-00000001"), user("U6", "S6"))
    )
    # A legacy v2 file (no uuids) and a sidechain (recognised by its first record).
    (b / "20260101-000000-00000006.jsonl").write_bytes(
        jsonl(
            {"type": "session_start", "sessionId": "x"},
            {"type": "user_message", "message": {"role": "user", "content": "hi"}},
        )
    )
    (b / "20260101-000000-00000001-agent1.jsonl").write_bytes(
        jsonl(
            {
                "type": "sidechain_start",
                "sessionId": "20260101-000000-00000001",
                "agentId": "agent1",
            },
            {"type": "message", "role": "user", "content": "go"},
        )
    )
    (b / "20260101-000000-00000007.json").write_text('{"version":"1.0","messages":[]}')
    # Checkpoints: one for a session, one whose session is gone.
    for sid in ("20260101-000000-00000001", "20250101-000000-99999999"):
        d = home / "checkpoints" / sid
        d.mkdir(parents=True)
        (d / "index.json").write_text(
            json.dumps(
                {
                    "sessionId": sid,
                    "createdAt": 1,
                    "nextId": 3,
                    "snapshots": [
                        {
                            "id": "s1",
                            "timestamp": 1,
                            "toolName": "edit",
                            "toolSummary": "x",
                            "files": [
                                {
                                    "filePath": "/p/x",
                                    "existedBefore": True,
                                    "type": "full",
                                    "content": "a\nb",
                                }
                            ],
                        },
                        {
                            "id": "s2",
                            "timestamp": 2,
                            "toolName": "edit",
                            "toolSummary": "x",
                            "files": [
                                {
                                    "filePath": "/p/x",
                                    "existedBefore": True,
                                    "type": "diff",
                                    "diff": {
                                        "ops": [
                                            {"type": "keep", "lines": ["a"]},
                                            {"type": "remove", "lines": ["b"]},
                                        ]
                                    },
                                }
                            ],
                        },
                    ],
                },
                indent=2,
            )
        )
    return home


def test_counts_equal_recount_on_crafted_home(tmp_path, capsys):
    home = _crafted(tmp_path)
    code, report = run_json(capsys, "--home", str(home), "check", "--json")
    rc = recount(home)
    assert_matches(report, rc)
    assert len(report["strict_parser_only"]) == 3  # surrogate, 1e400, \xff: not bad
    assert [b["line"] for b in report["bad_lines"]] == [8, 12]  # NaN, the torn tail
    assert report["bad_lines"][1]["terminated"] is False
    assert report["lines"]["blank"] == 2  # "" and a U+00A0-only line (trim() empties it)
    assert report["record_types"]["(not an object)"] == 1
    assert report["record_types"]["(no type)"] == 1
    assert report["records_without_uuid"] == 1  # the context_compact record
    assert report["heads"]["forked"] == 1
    cov = report["coverage"]
    assert cov["indexes"] == {
        "count": 2,
        "with_session": 1,
        "without_session": 1,
        "complete": True,
        "reasons": {next(iter(cov["indexes"]["reasons"])): 1},
    }
    assert cov["sessions"]["count"] == 7 and cov["sessions"]["with_index"] == 1
    assert code == 1


def test_missing_and_duplicate_session_start_both_named_exit_1(tmp_path, capsys):
    home = _crafted(tmp_path)
    code, report = run_json(capsys, "--home", str(home), "check", "--json", "--project", "proj-b")
    assert code == 1
    kinds = {(f["kind"], Path(f["file"]).name) for f in report["faults"]}
    assert ("session_start_multiple", "20260101-000000-00000003.jsonl") in kinds
    assert ("session_start_missing", "20260101-000000-00000004.jsonl") in kinds
    assert ("head_multiple", "20260101-000000-00000003.jsonl") in kinds
    # the forked start is its file's head, not a fault; the v2 file has no chain to check
    assert not any(n.endswith(("05.jsonl", "06.jsonl")) for _, n in kinds)
    # human output names both too
    assert main(["--home", str(home), "check", "--project", "proj-b"]) == 1
    out = capsys.readouterr().out
    assert "20260101-000000-00000003.jsonl" in out and "20260101-000000-00000004.jsonl" in out


def test_clean_home_exits_0_and_scopes(tmp_path, capsys):
    home = _crafted(tmp_path)
    code, report = run_json(
        capsys, "--home", str(home), "check", "--json", "--session", "20260101-000000-00000001"
    )
    assert code == 0, report["faults"]
    assert report["files"]["main"] == 1 and report["checkpoints"]["indexes"] == 1
    assert report["coverage"]["indexes"]["complete"] is False
    assert report["zero_landing"]  # e.g. record.tool_result, file_changes.lastSnapshotId
    zl = {z["field"]: z for z in report["zero_landing"]}
    assert zl["file_changes.lastSnapshotId"]["out_of"] == 1
    assert zl["file_changes.lastSnapshotId"]["readings"] == [
        "dead code",
        "not triggered",
        "broken wiring",
    ]
    assert "FORMAT.md §3.7" in zl["file_changes.lastSnapshotId"]["known_cause"]


def test_bad_arguments_exit_2(tmp_path, capsys):
    home = _crafted(tmp_path)
    assert main(["--home", str(home), "check", "--project", "nope"]) == 2
    assert main(["--home", str(home), "check", "--session", "nope-nothing"]) == 2
    assert main(["--home", str(tmp_path / "missing"), "check"]) == 2
    assert main(["--home", str(home), "check", "--bogus"]) == 2
    capsys.readouterr()


def test_unreadable_pieces_never_hide_the_rest(tmp_path, capsys):
    home = _crafted(tmp_path)
    idx = home / "checkpoints" / "20260101-000000-00000001" / "index.json"
    idx.write_text('{"sessionId": "20260101-000000-00000001", "snapsh')  # torn in-place write
    bad = home / "sessions" / "proj-a" / "20260101-000000-00000009.jsonl"
    bad.mkdir()  # a directory named like a session: skipped, others still counted
    code, report = run_json(capsys, "--home", str(home), "check", "--json")
    assert code == 1
    assert any(f["kind"] == "checkpoint_index_unreadable" for f in report["faults"])
    assert report["checkpoints"]["indexes"] == 1
    assert report["files"]["main"] == 6
    if os.geteuid() != 0:
        f = home / "sessions" / "proj-a" / "20260101-000000-00000001.jsonl"
        f.chmod(0)
        try:
            code, report = run_json(capsys, "--home", str(home), "check", "--json")
        finally:
            f.chmod(0o644)
        assert any(x["kind"] == "unreadable_file" for x in report["faults"])
        assert report["files"]["main"] == 5


def test_no_progress_when_stderr_is_not_a_terminal(tmp_path, capsys):
    home = _crafted(tmp_path)
    main(["--home", str(home), "check", "--json"])
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "line",
    [
        b'{"a":"\\ud800"}',
        b'{"a":"\\uDFFF x"}',
        b'{"a":-1.5E+999}',
        b"[1e400]",
        b"1e400",
        b'{"a":"\\\\ud83d"}',
        b'{"a":"\xe9"}',
        b'{"n":' + b"9" * 400 + b"}",
        b'{"a":"ok"}',
        b'{"id":"9e345-1e400x"}',
        b'{"n":' + b"9" * 300 + b"e10}",
        b'{"n":' + b"1" * 120 + b"e-10}",
        b'{"n":12E+308}',
        b'{"n":1e-999}',
    ],
)
def test_strict_prefilter_never_misses(tmp_path, line):
    """Only candidate lines are re-parsed strictly; the candidates must cover every line a
    strict parser refuses but JSON.parse accepts."""
    from sidtui.core.transcript.scan import scan_records
    from sidtui.core.views.check import _Scan
    from sidtui.core.views.check_report import CheckReport

    data = b'{"type":"x"}\n' + line + b"\n"
    rep = CheckReport("h", {})
    _Scan(rep)._strict("f", scan_records(data))
    expected = []
    try:
        js_parse(line.decode("utf-8", "replace"))
        orjson.loads(line)
    except orjson.JSONDecodeError:
        expected = [2]
    except ValueError:
        pass
    assert [b.line for b in rep.strict_only] == expected


# --- 10,000 sessions, progress on a terminal ---------------------------------------------


def _many(home: Path, n: int) -> None:
    for p in range(10):
        (home / "sessions" / f"proj-{p}").mkdir(parents=True)
    for i in range(n):
        sid = f"20260101-{i // 100:06d}-{i:08x}"
        body = (
            f'{{"type":"session_start","uuid":"s{i}","parentUuid":null,"version":"3.0","sessionId":"{sid}"}}\n'
            f'{{"type":"user_message","uuid":"u{i}","parentUuid":"s{i}","message":{{"role":"user","content":"hi"}}}}\n'
        )
        (home / "sessions" / f"proj-{i % 10}" / f"{sid}.jsonl").write_text(body)


def test_ten_thousand_sessions_with_progress_on_a_tty(tmp_path):
    import pty
    import subprocess
    import sys

    home = tmp_path / "big"
    _many(home, 10_000)
    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": "100"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "sidtui", "--home", str(home), "check", "--json"],
        stdout=subprocess.PIPE,
        stderr=slave,
        stdin=subprocess.DEVNULL,
        env=env,
        cwd=REPO,
    )
    os.close(slave)
    err = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        err += chunk
    out, _ = proc.communicate(timeout=300)
    os.close(master)
    assert proc.returncode == 0, err
    report = json.loads(out)
    assert report["files"]["main"] == 10_000
    assert report["session_start"] == 10_000
    assert report["prompts"]["human"] == 10_000
    assert b"10000/10000 files" in err
    shutil.rmtree(home)


# --- property: the strict-parser candidates never miss a line -------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)
_num = st.one_of(
    st.integers(-(10**30), 10**30).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.builds(lambda m, e: f"{m}e{e}", st.integers(-99, 99), st.integers(-500, 500)),
    st.builds(lambda m, e: f"{m}E+{e}", st.integers(1, 9), st.integers(0, 999)),
    st.integers(1, 400).map(lambda n: "7" * n),
)


def _json_text(v) -> str:
    return json.dumps(v, ensure_ascii=True)


@st.composite
def _line(draw) -> bytes:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["str", "num", "id"]))
        if kind == "num":
            parts.append(draw(_num))
        elif kind == "id":
            parts.append('"' + draw(st.from_regex(r"[0-9a-fE-]{4,20}", fullmatch=True)) + '"')
        else:
            s = draw(_text)
            if draw(st.booleans()):
                parts.append(_json_text(s))  # lone surrogates as \\udXXX escapes
            else:  # raw bytes, lone surrogates as invalid UTF-8
                parts.append(json.dumps(s, ensure_ascii=False))
    body = "[" + ",".join(parts) + "]"
    return body.encode("utf-8", "surrogatepass").replace(b"\n", b"")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_line(), min_size=1, max_size=4))
def test_strict_candidates_cover_every_strict_only_line(lines):
    from sidtui.core.transcript.scan import scan_records
    from sidtui.core.views.check import _strict_candidates

    rf = scan_records(b"\n".join(lines) + b"\n")
    found = {r.line for r in _strict_candidates(rf)}
    for rec in rf.records:
        try:
            orjson.loads(rf.raw(rec))
        except orjson.JSONDecodeError:
            assert rec.line in found, rf.raw(rec)


def test_unreadable_folder_is_a_fault_not_silence(real_home_copy, monkeypatch, capsys):
    """Fresh-user finding: a project folder that cannot be listed vanished from the counts.

    (Tests run as root, where chmod does not stop reads, so listing is made to fail.)
    """
    import sidtui.core.views.check as check

    blocked = real_home_copy / "sessions" / "tmp-sidtui-fixture-projects-cli-tool"
    real_scandir = os.scandir

    def scandir(path="."):
        if Path(path) == blocked:
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(check.os, "scandir", scandir)
    code = main(["--home", str(real_home_copy), "check", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1
    faults = [f for f in out["faults"] if f["kind"] == "unreadable_folder"]
    assert (
        faults and faults[0]["file"] == str(blocked) and "Permission denied" in faults[0]["detail"]
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_line(), min_size=1, max_size=4), st.integers(1, 64))
def test_strict_candidates_in_windows_are_those_of_the_whole(lines, window):
    """A record's bytes looked at in windows (each cut after a comma) find exactly what
    one look at the whole finds."""
    import sidtui.core.views.check as check
    from sidtui.core.transcript.scan import scan_records

    rf = scan_records(b"\n".join(lines) + b"\n")
    whole = check._candidates_in(rf.records, rf.data, rf.base_offset)
    saved = check._WINDOW
    check._WINDOW = window
    try:
        windowed = check._candidates_in(rf.records, rf.data, rf.base_offset)
    finally:
        check._WINDOW = saved
    assert windowed == whole


def test_strict_candidates_of_a_huge_record_copy_a_window_not_the_record(monkeypatch):
    """A strict look at one 4 MB record holds a window's copies, never a copy of the
    record (a 110 MB prompt of tiny blocks cost two more 110 MB copies)."""
    import tracemalloc

    import sidtui.core.views.check as check
    from sidtui.core.transcript.scan import scan_records

    block = b'{"type":"text","text":"a"}'
    line = (
        b'{"type":"user","message":{"role":"user","content":['
        + b",".join([block] * 150_000)
        + b',1e0000,"\\ud800"]}}'
    )
    rf = scan_records(line + b"\n")
    monkeypatch.setattr(check, "_WINDOW", 64 << 10)
    tracemalloc.start()
    try:
        found = check._strict_candidates(rf)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [r.line for r in found] == [1]  # both strict-only spellings found
    assert peak < len(line) // 4, (peak, len(line))

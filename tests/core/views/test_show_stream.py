"""`sidtui show --messages all` streams its listing: the streamed rows
look exactly like the one Rich table they replace (byte for byte, colours included), at
any width, for rows that fit, wrap, are cut, hold control characters or wide text."""

from __future__ import annotations

import io
import random
import sys
from pathlib import Path

import pytest
from rich.console import Console

from sidtui.cli import main
from sidtui.cli import show as show_cli
from sidtui.cli.common import _SafeConsole
from sidtui.core.base.home import Home
from sidtui.core.base.resolve import resolve_session
from sidtui.core.views.session import open_session
from tests.helpers import assistant, jsonl, start, tool_results, user

SID = "20260101-000000-aaaaaaaa"
TEXTS = [
    "plain words here",
    "x" * 90,  # one long word: cut at 70 by the preview, wraps in a narrow column
    "  leading and trailing  ",
    "ctl \x1b[2J esc \x00 nul \x07 bel \r cr \x7f del \x9b csi",
    "tab\there",
    "宽字符的预览文本 with wide characters 😀 and more 宽字符",
    "",
    "many short words " * 6,
]


def _home(tmp_path: Path, n: int = 260) -> Path:
    rng = random.Random(5)
    recs = [start(sid=SID)]
    parent = "S"
    for i in range(n):
        text = rng.choice(TEXTS) + f" {i}"
        recs.append(user(f"u{i}", parent, text=text))
        if i % 7 == 3:  # recovery rewrites it ("(changed)" in yellow)
            recs[-1]["permissionMode"] = "no-such-mode"
        if rng.random() < 0.3:
            recs.append(
                assistant(
                    f"a{i}",
                    f"u{i}",
                    text=rng.choice(TEXTS),
                    tools=[(f"t{i}", "x"), (f"t{i}b", "y")],
                )
            )
            recs.append(tool_results(f"r{i}", f"a{i}", f"t{i}", f"t{i}b"))
            parent = f"r{i}"
        else:
            recs.append(
                assistant(
                    f"a{i}",
                    f"u{i}",
                    text=rng.choice(TEXTS),
                    thinking="hmm" if rng.random() < 0.5 else None,
                )
            )
            parent = f"a{i}"
    folder = tmp_path / "home" / "sessions" / "p"
    folder.mkdir(parents=True)
    (folder / f"{SID}.jsonl").write_bytes(jsonl(*recs))
    return tmp_path / "home"


def _console(width: int, color: bool) -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    con = _SafeConsole(Console)(
        file=buf,
        width=width,
        force_terminal=color,
        color_system="truecolor" if color else None,
        highlight=False,
        soft_wrap=False,
    )
    return con, buf


@pytest.mark.parametrize("width", [200, 120, 80, 52, 44, 40, 36, 30])
@pytest.mark.parametrize("color", [False, True])
def test_streamed_listing_is_the_table(tmp_path, width, color):
    root = _home(tmp_path)
    home = Home(root)
    view = open_session(home, resolve_session(home, SID))
    shown, msgs = view.recovery.messages, view.loaded.messages
    assert any(r[5] for r in show_cli._resumed_cells(shown, msgs))  # a changed row
    title = "what the agent sends on resume"
    con, table_out = _console(width, color)
    con.print(show_cli._resumed_table(title, show_cli._resumed_cells(shown, msgs)))
    con, stream_out = _console(width, color)
    show_cli.print_resumed_streamed(con, title, shown, msgs)
    got, want = stream_out.getvalue(), table_out.getvalue()
    assert got.splitlines() == want.splitlines()
    assert got == want
    assert "\x1b[2J" not in got and "\x00" not in got and "\x9b" not in got
    if width >= 80:  # the preview column has room for it
        assert "\\x1b[2J" in got


def test_cli_streams_only_long_listings(tmp_path, capsys, monkeypatch):
    root = _home(tmp_path, n=30)
    calls: list[int] = []
    real = show_cli.print_resumed_streamed
    monkeypatch.setattr(
        show_cli,
        "print_resumed_streamed",
        lambda c, t, s, m: calls.append(len(s)) or real(c, t, s, m),
    )
    assert main(["--home", str(root), "show", SID]) == 0  # the default 50: one table
    table = capsys.readouterr().out
    assert calls == []
    monkeypatch.setattr(show_cli, "STREAM_MIN_ROWS", 10)
    assert main(["--home", str(root), "show", SID]) == 0
    assert calls == [50] and capsys.readouterr().out == table
    assert main(["--home", str(root), "show", SID, "--messages", "all"]) == 0
    out = capsys.readouterr().out
    assert len(calls) == 2 and calls[1] > 50 and "the last" not in out


def test_column_measure_matches_rich():
    """The widest cell and longest word found per column measure as Rich measures the
    whole column (max over cells of Text's (min, max))."""
    from rich.measure import Measurement
    from rich.text import Text

    con, _ = _console(200, False)
    rng = random.Random(7)
    alphabet = ["a", "bb", " ", "  ", "\n", "\t", "宽", "\x1b", "x" * 12, "", "é"]
    for _ in range(300):
        col = tuple(
            "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 6)))
            for _ in range(rng.randrange(1, 6))
        )
        if rng.random() < 0.5:  # the usual: printable ASCII only
            col = tuple(
                c.replace("\n", " ")
                .replace("\t", "a")
                .replace("\x1b", "b")
                .replace("宽", "c")
                .replace("é", "e")
                for c in col
            )
        want_lo = max(Measurement.get(con, con.options, Text(c)).minimum for c in col)
        want_hi = max(Measurement.get(con, con.options, Text(c)).maximum for c in col)
        got = list(show_cli._measure_column(col))
        assert max(lo for _, lo, _ in got) == want_lo, col
        assert max(hi for _, _, hi in got) == want_hi, col
        for s, lo, hi in got:  # each candidate cell measures at least what it claims
            m = Measurement.get(con, con.options, Text(s))
            assert m.minimum >= lo and m.maximum >= hi and m.maximum <= want_hi, (col, s)


def test_without_richs_width_pass_the_plain_table_is_printed(tmp_path, monkeypatch):
    """A Rich release whose private width pass fails for us still prints every row (one
    table)."""
    from rich.table import Table

    root = _home(tmp_path)
    home = Home(root)
    view = open_session(home, resolve_session(home, SID))
    shown, msgs = view.recovery.messages, view.loaded.messages
    con, table_out = _console(120, False)
    con.print(show_cli._resumed_table("t", show_cli._resumed_cells(shown, msgs)))
    real = Table._calculate_column_widths

    def changed(self, *args, **kwargs):  # as if a Rich release changed it: fails for us
        if sys._getframe(1).f_code.co_filename == show_cli.__file__:
            raise TypeError("changed signature")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Table, "_calculate_column_widths", changed)
    con, stream_out = _console(120, False)
    show_cli.print_resumed_streamed(con, "t", shown, msgs)
    assert stream_out.getvalue() == table_out.getvalue()

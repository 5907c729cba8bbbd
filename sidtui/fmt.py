"""Presentation helpers shared by the CLI and the app (no Textual, no core logic)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from sidtui.core.views.summary import SessionSummary


def human_size(n: float) -> str:
    """Bytes as ``512 B`` / ``3.1 KB`` / ``1.2 MB`` / ``4.0 GB`` (powers of 1024)."""
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def project_relative(path: str, root: str | None) -> str:
    """``path`` relative to the project ``root`` when it is inside it (as the checkpoint
    listings print tracked files), else as given."""
    if root:
        base = root.rstrip("/") + "/"
        if path.startswith(base):
            return path[len(base) :]
    return path


def plural(n: int, noun: str, many: str | None = None, *, zero: str | None = None) -> str:
    """``1 session`` / ``2 sessions`` (``many``: an irregular plural); with ``zero``, that
    word for none (``plural(0, "file", zero="no")`` → ``no files``). Every count a person
    reads, in the app and the CLI, goes through here."""
    word = noun if n == 1 else (many or noun + "s")
    return f"{zero} {word}" if n == 0 and zero is not None else f"{n} {word}"


def messages_said(res: Any) -> str:
    """``N messages`` of a fork's result; for a Claude Code copy whose ``claude --resume``
    sends another number: ``N messages (claude --resume sends M)``."""
    said = plural(res.message_count, "message")
    sent = getattr(res, "resume_messages", None)
    if sent is not None and sent != res.message_count:
        said += f" (claude --resume sends {sent})"
    return said


def cut_path(path: str, width: int) -> str:
    """``path`` in at most ``width`` characters: whole when it fits, else the middle cut
    and the file name kept (``/Users/me/…/src/app.py``); a name longer than the room
    keeps its end (``…ng-file-name.py``). Nothing for ``width`` < 1."""
    if len(path) <= width:
        return path
    if width < 1:
        return ""
    name = path.rsplit("/", 1)[-1]
    tail = "/" + name if name != path else name
    room = width - len(tail) - 1  # "…"
    if room < 1:
        return "…" + path[len(path) - width + 1 :] if width > 1 else "…"
    return path[:room] + "…" + tail


def refused_line(refusal: str) -> str:
    """``a real run is refused: <why>`` for a dry run's refusal, without the doubled word
    when the core's message already starts with ``refused:``."""
    why = refusal.removeprefix("refused: ")
    return f"a real run is refused: {why}"


#: Control characters shown as escapes: C0 but newline and tab, DEL, C1. Session text is
#: the user's and the model's; an ESC in it would drive the terminal (clear the screen,
#: recolour, retitle) and a NUL or CR mangle the line.
_CONTROLS = {
    c: f"\\x{c:02x}" for c in (*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0))
}
#: Bidirectional overrides and isolates too, as ``\uNNNN``: one in a prompt or a file
#: path reorders what follows it on screen, so the text read is not the text there
#: ("Trojan Source"). Marks that only hint direction (U+200E/F) stay.
_CONTROLS.update({c: f"\\u{c:04x}" for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))})


def printable(text: str) -> str:
    """``text`` with every control character but newline and tab shown as ``\\xNN``, and
    every bidirectional override or isolate as ``\\uNNNN``.

    Used for everything a person reads (CLI consoles, app widgets); JSON output escapes
    them itself.
    """
    if text.isprintable():  # the usual text: one C pass, no copy
        return text
    return text.translate(_CONTROLS)


def local_time(iso: str | None, seconds: bool = False) -> str:
    """An ISO timestamp as local ``YYYY-MM-DD HH:MM[:SS]`` ("" when missing or unparsable)."""
    if not iso or not isinstance(iso, str):
        return ""
    from datetime import datetime

    try:
        return (
            datetime.fromisoformat(iso.replace("Z", "+00:00"))
            .astimezone()
            .strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")
        )
    except ValueError:
        return iso[:16]


BADGES = {
    "none": ("clean", "green"),
    "interrupted_prompt": ("interrupted prompt", "yellow"),
    "interrupted_turn": ("interrupted turn", "red"),
}


def state_badge(s: SessionSummary) -> tuple[str, str]:
    """(label, Rich style) of a session's state, as ``ls`` and the browser show it.

    Live beats everything; then a main file the agent cannot load (a Claude Code one with
    no message is ``empty``); else the interruption state, with " (stale)" when a dead
    process left its registration.
    """
    if s.live:
        return "live", "bold magenta"
    if not s.loadable and s.kind == "main":
        if getattr(s, "source", "sid-code") == "claude-code":  # no message: a session left empty
            return "empty", "dim"
        return "unloadable", "bold red"
    label, colour = BADGES.get(s.interruption or "", (s.interruption or "—", "dim"))
    if s.stale:
        label += " (stale)"
    return label, colour


def pct(x: Any) -> str:
    """A ratio as ``12.5%`` ("—" when it is not a number)."""
    return f"{x * 100:.1f}%" if isinstance(x, (int, float)) else "—"


def pretty_json(value: Any) -> str:
    """Two-space indented JSON (non-ASCII kept), for raw record views."""
    from sidtui.core.base.jsonout import dumps_lenient

    try:  # a lone surrogate ("\ud800" in a transcript) is shown as its escape
        return printable(
            dumps_lenient(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()
        )
    except TypeError:
        return repr(value)


def short_value(v: Any, width: int, *, spaced: bool = False) -> str:
    """A value on one line, cut to ``width`` characters with an ellipsis ("—" for None).

    A string is kept as it is and anything else written as compact JSON; with ``spaced`` (the
    app's state panel) anything else is :func:`pretty_json` on one line, and runs of
    whitespace, in strings too, become one space.
    """
    if v is None:
        return "—"
    if spaced:
        s = v if isinstance(v, str) else pretty_json(v).replace("\n", " ")
        s = " ".join(s.split())
    elif isinstance(v, str):
        s = v
    else:
        from sidtui.core.base.jsonout import dumps_lenient

        s = dumps_lenient(v, default=str).decode()
    return s if len(s) <= width else s[: width - 1] + "…"

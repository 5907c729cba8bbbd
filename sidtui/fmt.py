"""Presentation helpers shared by the CLI and the app (no Textual, no core logic)."""

from __future__ import annotations


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


def plural(n: int, noun: str, many: str | None = None) -> str:
    """``1 session`` / ``2 sessions`` (``many``: an irregular plural)."""
    return f"{n} {noun if n == 1 else (many or noun + 's')}"


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

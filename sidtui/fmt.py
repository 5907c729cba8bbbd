"""Presentation helpers shared by the CLI and the app (no Textual, no core logic)."""

from __future__ import annotations


def human_size(n: float) -> str:
    """Bytes as ``512 B`` / ``3.1 KB`` / ``1.2 MB`` / ``4.0 GB`` (powers of 1024)."""
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def local_time(iso: str | None, seconds: bool = False) -> str:
    """An ISO timestamp as local ``YYYY-MM-DD HH:MM[:SS]`` ("" when missing or unparsable)."""
    if not iso:
        return ""
    from datetime import datetime

    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone().strftime(
            "%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M"
        )
    except ValueError:
        return iso[:16]

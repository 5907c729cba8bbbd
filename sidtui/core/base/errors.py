"""Errors the core raises. The CLI maps each to a message and an exit code.

Exit codes (the CLI contract): 0 success, 1 unreadable input / structural fault,
2 bad arguments or unknown session.
"""

from __future__ import annotations

import os


class SidtuiError(Exception):
    """Base of every error sidtui reports to a user instead of a traceback.

    Attributes:
        exit_code: the process exit code the CLI uses for this error.
    """

    exit_code: int = 1


class SessionLive(SidtuiError):
    """A running agent writes the session: the write is refused unless forced (every
    source's writer raises a subclass; the app then asks whether to force it)."""


class UsageError(SidtuiError):
    """Bad arguments (exit code 2)."""

    exit_code = 2


class SessionNotFound(UsageError):
    """No session matches the argument (exit code 2).

    Attributes:
        candidates: near matches worth showing the user (may be empty).
    """

    def __init__(self, message: str, candidates: list[str] | None = None) -> None:
        super().__init__(message)
        self.candidates = candidates or []


class AmbiguousSession(UsageError):
    """More than one session matches an id prefix (exit code 2)."""

    def __init__(self, message: str, candidates: list[str]) -> None:
        super().__init__(message)
        self.candidates = candidates


class UnreadableInput(SidtuiError):
    """A file could not be read at all (permission, I/O error, not a file): exit 1."""

    exit_code = 1


def unreadable(path: os.PathLike[str] | str, exc: OSError) -> UnreadableInput:
    """The one-line error for a session file that cannot be read (every reader's wording):
    a folder, no permission, gone while reading, else the system's reason."""
    if isinstance(exc, IsADirectoryError):
        return UnreadableInput(f"{path} is a directory, not a session file")
    if isinstance(exc, PermissionError):
        return UnreadableInput(f"permission denied reading {path}")
    if isinstance(exc, FileNotFoundError):
        return UnreadableInput(f"{path} does not exist (deleted while reading?)")
    return UnreadableInput(f"cannot read {path}: {exc.strerror or exc}")

"""What every agent's home and every transcript file have, whichever agent wrote them.

An adapter's home (sid-code's :class:`~sidtui.core.base.home.Home`, Claude Code's
:class:`~sidtui.core.claude.layout.ClaudeHome`) is a :class:`HomeRoot`: one root folder,
chosen by a flag, else an environment variable, else a folder in the user's home, and
required to be a folder before a verb reads it. Its transcripts are
:class:`TranscriptFile` s. The folders inside a home and what a file's names mean are the
adapter's own (docs/ARCHITECTURE.md, "Sources").
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Self, overload

from sidtui.core.base.errors import UsageError


class Folder:
    """A path below a home's root, read as an attribute of the home:
    ``sessions_dir = Folder("sessions")`` gives ``home.root / "sessions"``."""

    def __init__(self, *parts: str) -> None:
        self.parts = parts

    @overload
    def __get__(self, home: None, owner: Any = None) -> Folder: ...

    @overload
    def __get__(self, home: HomeRoot, owner: Any = None) -> Path: ...

    def __get__(self, home: HomeRoot | None, owner: Any = None) -> Path | Folder:
        if home is None:
            return self
        return home.root.joinpath(*self.parts)


@dataclass(frozen=True)
class HomeRoot:
    """One agent's home root; every path of the home derives from it (injected, never global).

    Class attributes (each adapter's home sets them):
        label: the agent, for people (``"sid-code"``, ``"Claude Code"``).
        flag, env_var: the CLI flag and the environment variable that name the home.
        default_dir: the folder in the user's home used without either.
        missing_hint: said after the flag when there is no home (``""``: nothing more).
    """

    root: Path

    label: ClassVar[str]
    flag: ClassVar[str]
    env_var: ClassVar[str]
    default_dir: ClassVar[str]
    missing_hint: ClassVar[str] = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root))

    @classmethod
    def place(cls, p: str | os.PathLike[str]) -> Path:
        """The root a flag's or the variable's value names (``~`` expanded)."""
        return Path(p).expanduser()

    @classmethod
    def resolve(cls, home: str | os.PathLike[str] | None, env: Mapping[str, str]) -> Self:
        """``home`` if given, else ``env[cls.env_var]``, else ``~/<default_dir>``, each
        through :meth:`place`.

        Raises:
            UsageError: ``home`` is an empty string (e.g. an unset variable): never silently
                the default home.
        """
        if home is not None:
            if not os.fspath(home).strip():
                raise UsageError(f"{cls.flag} needs a folder (it was given an empty string)")
            return cls(cls.place(home))
        configured = env.get(cls.env_var)
        if configured:
            return cls(cls.place(configured))
        return cls(cls.place(Path(env.get("HOME") or Path.home()) / cls.default_dir))

    def require(self) -> Self:
        """Raise :class:`UsageError` (exit 2) when the root is not a readable directory."""
        if not self.root.exists():
            raise UsageError(
                f"no {self.label} home at {self.root} (pass {self.flag} DIR or set "
                f"{self.env_var}{self.missing_hint})"
            )
        if not self.root.is_dir():
            raise UsageError(f"{self.label} home {self.root} is not a directory")
        return self


@dataclass(frozen=True)
class TranscriptFile:
    """One transcript file of an agent's home (the adapter's subclass says where).

    Attributes:
        path: the file.
        session_id: for a main file its id (the stem); for a sidechain the adapter's name
            for it.
        project: the folder the file is listed under (``""``: none).
        kind: ``"main"`` or ``"sidechain"`` (a sub-agent's transcript).
        container: ``"jsonl"`` or ``"json"`` (a whole-file JSON session).
        parent_session_id: for a sidechain, its session's id.
        agent_id: for a sidechain, the sub-agent's id.
    """

    path: Path
    session_id: str
    project: str
    kind: str = "main"
    container: str = "jsonl"
    parent_session_id: str | None = None
    agent_id: str | None = None

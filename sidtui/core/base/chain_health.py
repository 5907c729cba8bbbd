"""The health of one tracked file's checkpoint chain, whatever store holds it.

A store (sid-code's ``checkpoints/<session>/index.json``, Claude Code's
``file-history/<session>/``) keeps, per file, entries oldest first; each entry has a short
``label`` and says whether its content can be had again (``rebuilds``). The chain's
drawing and health are the same for every store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class ChainEntry(Protocol):
    """One entry of a file's chain."""

    @property
    def label(self) -> str: ...

    @property
    def rebuilds(self) -> bool: ...

    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class LinkChain:
    """A tracked file's entries, oldest first (each a :class:`ChainEntry`)."""

    file_path: str
    links: Sequence[Any]

    @property
    def drawing(self) -> str:
        """The labels joined by arrows (a label ends in ``✗`` where an entry is lost)."""
        return " → ".join(link.label for link in self.links)

    @property
    def healthy(self) -> bool:
        """Every entry rebuilds."""
        return all(link.rebuilds for link in self.links)

    def to_json(self) -> dict[str, Any]:
        """``file_path``, ``drawing``, ``healthy`` and each entry's own ``to_json()``."""
        return {
            "file_path": self.file_path,
            "drawing": self.drawing,
            "healthy": self.healthy,
            "entries": [link.to_json() for link in self.links],
        }

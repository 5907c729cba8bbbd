"""Live layer (issue 6): incremental tails, the watcher, the SQLite catalog and search.

See docs/ARCHITECTURE.md "Live API". Nothing here imports Textual.
"""

from __future__ import annotations

from sidtui.core.live import events
from sidtui.core.live.tail import FileTail, TailUpdate

__all__ = ["events", "FileTail", "TailUpdate"]

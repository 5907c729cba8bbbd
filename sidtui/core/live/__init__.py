"""Live layer (issue 6): incremental tails, the watcher, the SQLite catalog and search.

See docs/ARCHITECTURE.md "Live API". Nothing here imports Textual.
"""

from __future__ import annotations

from sidtui.core.live import events
from sidtui.core.live.catalog import Catalog, RefreshProgress, RefreshResult
from sidtui.core.live.search import SearchHit, SearchIndex
from sidtui.core.live.tail import FileTail, TailUpdate
from sidtui.core.live.watcher import Watcher

__all__ = [
    "events",
    "Catalog",
    "RefreshProgress",
    "RefreshResult",
    "SearchHit",
    "SearchIndex",
    "FileTail",
    "TailUpdate",
    "Watcher",
]

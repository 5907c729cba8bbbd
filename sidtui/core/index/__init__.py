"""The persistent index of a home: the SQLite catalog of session summaries and FTS5 search.

See docs/ARCHITECTURE.md "Live API"; both follow a :class:`sidtui.core.live.Watcher`.
"""

from __future__ import annotations

from sidtui.core.index.catalog import Catalog, RefreshProgress, RefreshResult
from sidtui.core.index.search import SearchHit, SearchIndex

__all__ = ["Catalog", "RefreshProgress", "RefreshResult", "SearchHit", "SearchIndex"]

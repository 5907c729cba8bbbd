"""Live layer: incremental tails of growing files, the watcher and its event dataclasses.

See docs/ARCHITECTURE.md "Live API". The persistent catalog and search index that follow a
watcher are in :mod:`sidtui.core.index`.
"""

from __future__ import annotations

from sidtui.core.live import events
from sidtui.core.live.tail import FileTail, TailUpdate
from sidtui.core.live.watcher import Watcher

__all__ = ["events", "FileTail", "TailUpdate", "Watcher"]

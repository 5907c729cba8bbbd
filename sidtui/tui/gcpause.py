"""Pause the cyclic garbage collector while a worker builds a big session view.

Opening a 100 MB session creates millions of small objects; every generation-2 collection
then walks all of them while holding the GIL, which froze key handling for 300 ms at a
time (measured in bench/bench_tui.py). Reference counting still frees everything that is
not cyclic; the collector runs again when the last load ends, and ``gc.freeze()`` moves the
long-lived view into the permanent generation so later collections skip it.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic GC for the duration (re-entrant across threads)."""
    global _depth
    with _lock:
        _depth += 1
        if _depth == 1:
            gc.disable()
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                gc.freeze()
                gc.enable()

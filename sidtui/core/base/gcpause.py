"""Pause the cyclic garbage collector while millions of short-lived, cycle-free objects are built.

Loading a big session or writing its ``show --json`` rows creates objects none of which form
cycles; every collection pass would walk them all while holding the GIL (in the app that
froze key handling; measured in bench/bench_core.py and bench/bench_tui.py). Reference
counting still frees everything. Re-entrant across threads: the collector runs again when
the last pause ends, and only if it ran before the first began.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_was_enabled = False
_freeze = False


@contextmanager
def gc_paused(*, freeze: bool = False) -> Iterator[None]:
    """Disable the cyclic GC for the duration.

    Args:
        freeze: when the last pause ends, ``gc.freeze()`` the survivors (a view the app
            keeps) into the permanent generation, so later collections skip them.
    """
    global _depth, _was_enabled, _freeze
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
        _freeze = _freeze or freeze
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                if _freeze:
                    gc.freeze()
                    _freeze = False
                if _was_enabled:
                    gc.enable()

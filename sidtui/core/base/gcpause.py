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
_freeze_above: int | None = None


@contextmanager
def gc_paused(*, freeze: bool = False, freeze_above: int | None = None) -> Iterator[None]:
    """Disable the cyclic GC for the duration.

    Args:
        freeze: when the last pause ends, ``gc.freeze()`` the survivors (a view the app
            keeps) into the permanent generation, so later collections skip them.
        freeze_above: freeze only if more than this many tracked containers (lists,
            dicts) were made and kept since the last collection: the first collection
            after a big load walks them all (~0.4 µs each), a small one is not worth
            keeping other garbage cycles of the process out of collection for.
    """
    global _depth, _was_enabled, _freeze, _freeze_above
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
        _freeze = _freeze or freeze
        if freeze_above is not None and not _freeze:
            _freeze_above = min(freeze_above, _freeze_above or freeze_above)
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                above = _freeze_above
                _freeze_above = None
                if _freeze or (above is not None and gc.get_count()[0] > above):
                    gc.freeze()
                    _freeze = False
                if _was_enabled:
                    gc.enable()

"""One ordered map over forked worker processes, for the listings and checks of big homes.

Work reaches the workers by ``fork`` (never pickled; only results are), so the mapped
function may be a bound method or a closure. Forking with other threads running could leave
a lock held in the child, so only a single-threaded caller (the CLI) gets processes.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_TASK: tuple[Callable[[Any], Any], Sequence[Any]] | None = None  # inherited by the workers


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def can_fork() -> bool:
    """``fork`` exists here and this process runs no other thread."""
    # imported here: `sidtui ls` on a small home never pays for multiprocessing
    import multiprocessing
    import threading

    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def _run(i: int) -> Any:
    assert _TASK is not None
    fn, items = _TASK
    return fn(items[i])


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the parent (which stops the pool): no worker tracebacks."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def ordered_map(fn: Callable[[T], R], items: Sequence[T], workers: int) -> Iterator[R]:
    """``fn(item)`` for every item, yielded in ``items`` order.

    Runs on ``workers`` forked processes when ``workers > 1``, there are two items or more
    and :func:`can_fork`; else in-process. Closing the iterator early cancels the items not
    yet started (running ones finish first). If the processes cannot be started or one
    dies, the items not yet yielded run in-process. An exception ``fn`` raises propagates.
    """
    given = 0  # results yielded so far
    if workers > 1 and len(items) > 1 and can_fork():
        global _TASK
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        _TASK = (fn, items)
        try:
            with ProcessPoolExecutor(
                max_workers=min(workers, len(items)),
                mp_context=multiprocessing.get_context("fork"),
                initializer=_ignore_sigint,
            ) as pool:
                futures = [pool.submit(_run, i) for i in range(len(items))]
                try:
                    for fut in futures:  # in submission order
                        result = fut.result()
                        given += 1
                        yield result
                finally:
                    for fut in futures[given:]:  # closed early: start no more items
                        fut.cancel()
        except (OSError, RuntimeError, BrokenProcessPool):
            pass  # no processes here (or one died): the rest in-process
        finally:
            _TASK = None
    for item in items[given:]:
        yield fn(item)

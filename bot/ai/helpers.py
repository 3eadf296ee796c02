"""Helper processes for the strong level's play-outs.

``strong_plan`` with ``workers`` above 1 hands some rounds of play-outs to ``workers - 1`` helper
processes and plays the others itself, so that a two-core machine plays twice as many in the same
time. The processes are spawned on first use and kept for later turns (a spawn and the imports take
about half a second). Anything that goes wrong with them — a process that cannot be started (inside
a daemonic worker), one that dies, one that is late — only costs the rounds it would have played:
the caller plays on with what it has.
"""

from __future__ import annotations

import concurrent.futures
import logging
import multiprocessing
import multiprocessing.connection
import multiprocessing.util
import os
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

#: how much earlier than the caller a helper stops beginning play-outs, so that its answer is back
#: by the time the caller's last play-out ends
EARLY_S = 0.05
#: how long past the deadline a helper's answer is still waited for (a play-out begun in time may
#: end a little later; sending the answer back takes a few milliseconds)
GRACE_S = 0.1

_pool: concurrent.futures.ProcessPoolExecutor | None = None
_size = 0
#: helpers could not be started in this process (a daemonic one may not have children): not tried again
_cannot = False
_lock = threading.Lock()


def default_workers() -> int:
    """How many processes a strong player's play-outs use unless told: one per core, at most two
    (more measured no stronger for the memory: each process holds its own copy of the engine)."""
    return max(1, min(2, os.cpu_count() or 1))


def _warm() -> None:
    """Run once in each new helper: import the AI before the first task arrives, and end the helper
    as soon as the process that started it is gone (killed, say), instead of lingering."""
    from . import levels  # noqa: F401

    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent.sentinel,), daemon=True).start()


def _exit_with(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    os._exit(0)


def start(n: int) -> concurrent.futures.ProcessPoolExecutor | None:
    """The pool of ``n`` helper processes, started now if it is not running (``submit`` starts it
    too, but a turn would then lose its helpers' rounds to the start-up); None if it cannot be."""
    global _pool, _size, _cannot
    with _lock:
        if _cannot:
            return None
        if _pool is not None and _size != n:
            _pool.shutdown(wait=False, cancel_futures=True)
            _pool = None
        if _pool is None:
            if multiprocessing.current_process().daemon:
                log.warning("AI helper processes cannot be started from a daemonic process; playing alone")
                _cannot = True
                return None
            try:
                pool = concurrent.futures.ProcessPoolExecutor(
                    max_workers=n, mp_context=multiprocessing.get_context("spawn"), initializer=_warm
                )
                for _ in range(n):  # start them now, not at the first task
                    pool.submit(int)
            except Exception:
                log.exception("could not start %s AI helper process(es); playing alone", n)
                _cannot = True
                return None
            _pool, _size = pool, n
            # stop them before this process waits for its children at exit: a process that is itself
            # a pool's worker (the bot's AI worker) waits for them before any atexit handler runs; and
            # before the finalizers of the pool's own queues (priority 10), which would stop the thread
            # that sends the helpers their signal to stop
            multiprocessing.util.Finalize(pool, pool.shutdown, kwargs={"cancel_futures": True}, exitpriority=100)
        return _pool


def submit(
    n: int, fn: Callable[..., T], *args: Any
) -> list[concurrent.futures.Future[T]]:
    """``fn(*args, first=w + 1, step=n + 1)`` in helper ``w`` for ``w`` in ``range(n)``: the caller
    plays ``first=0``. Returns the futures (none if ``n`` < 1 or the helpers cannot be used)."""
    if n < 1:
        return []
    pool = start(n)
    if pool is None:
        return []
    try:
        return [pool.submit(fn, *args, first=w + 1, step=n + 1) for w in range(n)]
    except Exception:
        log.exception("the AI helper processes are broken; starting new ones next time")
        shutdown()
        return []


def collect(futures: list[concurrent.futures.Future[T]], deadline: float | None) -> list[T]:
    """The helpers' answers that arrive by the wall-clock ``deadline`` (``time.time()``) plus
    ``GRACE_S`` (all of them, however long, with no deadline)."""
    out: list[T] = []
    for f in futures:
        wait = None if deadline is None else max(0.0, deadline + GRACE_S - time.time())
        try:
            out.append(f.result(timeout=wait))
        except concurrent.futures.TimeoutError:
            log.warning("an AI helper process was late; its play-outs are left out")
        except Exception:
            log.exception("an AI helper process failed; starting new ones next time")
            shutdown()
    return out


def shutdown() -> None:
    """Stop the helper processes (they are started again when next needed)."""
    global _pool, _size
    with _lock:
        if _pool is not None:
            _pool.shutdown(wait=False, cancel_futures=True)
        _pool, _size = None, 0

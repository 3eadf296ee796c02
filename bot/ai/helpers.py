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
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

#: how much earlier than the caller a helper stops beginning play-outs, so that its answer is back
#: by the time the caller's last play-out ends
EARLY_S = 0.05
#: how long past the deadline a helper's answer is still waited for (a play-out begun in time may
#: end a little later; sending the answer back takes a few milliseconds)
GRACE_S = 0.1
#: with no deadline (a fixed number of play-outs), how long a helper's answer is waited for at most
#: (the caller then plays the missing rounds itself)
PATIENCE_S = 300.0
#: after this many failures in a row (a helper that cannot start or keeps dying, e.g. for want of
#: memory), no helper is tried for ``PAUSE_S`` seconds: the strong player thinks alone meanwhile
FAILURES = 3
PAUSE_S = 600.0

#: the most processes a strong player's play-outs may be asked to use (settings and options check it)
MAX_WORKERS = 8

_pool: concurrent.futures.ProcessPoolExecutor | None = None
_size = 0
#: stops ``_pool`` once, at exit or before (``multiprocessing.util.Finalize``)
_stopper: multiprocessing.util.Finalize | None = None
#: this is a daemonic process, which may not have children: helpers are never tried
_cannot = False
_failures = 0
#: ``time.monotonic()`` before which no helper is started again (after ``FAILURES`` failures)
_paused_until = 0.0
_lock = threading.Lock()


@dataclass
class Batch:
    """Work handed to the helpers: the futures, and the pool they run in."""

    pool: concurrent.futures.ProcessPoolExecutor | None
    futures: list[concurrent.futures.Future[Any]]


def default_workers() -> int:
    """How many processes a strong player's play-outs use unless told: one per core this process may
    run on (a container's CPU limit included, where the system reports it), at most two (more
    measured no stronger for the memory: each process holds its own copy of the engine)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(2, cores))


def _warm() -> None:
    """Run once in each new helper: import the AI before the first task arrives; leave Ctrl-C to the
    process that started it (which stops its helpers); end as soon as that process is gone (killed,
    say), instead of lingering."""
    from . import levels  # noqa: F401

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent.sentinel,), daemon=True).start()


def _exit_with(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    os._exit(0)


def _stop_pool(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    pool.shutdown(wait=True, cancel_futures=True)


def _start(n: int) -> concurrent.futures.ProcessPoolExecutor | None:
    """``start`` with ``_lock`` held."""
    global _pool, _size, _cannot, _stopper
    if _cannot or time.monotonic() < _paused_until:
        return None
    if _pool is not None and _size != n:
        _stop()
    if _pool is None:
        if multiprocessing.current_process().daemon:
            log.warning("AI helper processes cannot be started from a daemonic process; thinking alone")
            _cannot = True
            return None
        try:
            pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=n, mp_context=multiprocessing.get_context("spawn"), initializer=_warm
            )
            for _ in range(n):  # start them now, not at the first task
                pool.submit(int)
        except Exception as err:
            _failed(f"could not start {n} AI helper process(es): {err}")
            return None
        _pool, _size = pool, n
        # stop them before this process waits for its children at exit: a process that is itself
        # a pool's worker (the bot's AI worker) waits for them before any atexit handler runs; and
        # before the finalizers of the pool's own queues (priority 10), which would stop the thread
        # that sends the helpers their signal to stop
        _stopper = multiprocessing.util.Finalize(pool, _stop_pool, args=(pool,), exitpriority=100)
    return _pool


def _stop() -> None:
    """Stop the pool, with ``_lock`` held (its finalizer runs now, once, and is forgotten)."""
    global _pool, _size, _stopper
    if _stopper is not None:
        _stopper()
    _pool, _size, _stopper = None, 0, None


def _failed(what: str) -> None:
    """Count a failure, with ``_lock`` held; after ``FAILURES`` in a row, pause the helpers."""
    global _failures, _paused_until
    _failures += 1
    if _failures >= FAILURES:
        _failures = 0
        _paused_until = time.monotonic() + PAUSE_S
        log.warning("%s; %s failures in a row: thinking alone for %.0f minutes", what, FAILURES, PAUSE_S / 60)
    else:
        log.warning("%s; trying again at the next turn", what)


def start(n: int) -> concurrent.futures.ProcessPoolExecutor | None:
    """The pool of ``n`` helper processes, started now if it is not running (``submit`` starts it
    too, but a turn would then lose its helpers' rounds to the start-up); None if it cannot be."""
    with _lock:
        return _start(n)


def submit(n: int, fn: Callable[..., T], *args: Any) -> Batch:
    """``fn(*args, first=w + 1, step=n + 1)`` in helper ``w`` for ``w`` in ``range(n)``: the caller
    plays ``first=0``. No futures if ``n`` < 1 or the helpers cannot be used."""
    if n < 1:
        return Batch(None, [])
    with _lock:
        pool = _start(n)
        if pool is None:
            return Batch(None, [])
        try:
            return Batch(pool, [pool.submit(fn, *args, first=w + 1, step=n + 1) for w in range(n)])
        except concurrent.futures.BrokenExecutor as err:
            _failed(f"the AI helper processes stopped ({err})")
            _stop()
            return Batch(None, [])


def collect(batch: Batch, deadline: float | None) -> list[Any]:
    """The helpers' answers that arrive by the wall-clock ``deadline`` (``time.time()``) plus
    ``GRACE_S`` (with no deadline: within ``PATIENCE_S``). A helper that is late or fails costs only
    its answer; a pool whose processes died is replaced at the next turn."""
    global _failures
    out: list[Any] = []
    for f in batch.futures:
        wait = PATIENCE_S if deadline is None else max(0.0, deadline + GRACE_S - time.time())
        try:
            out.append(f.result(timeout=wait))
        except concurrent.futures.TimeoutError:
            log.warning("an AI helper process was late; its play-outs are left out")
        except concurrent.futures.CancelledError:
            pass  # the pool was stopped meanwhile
        except concurrent.futures.BrokenExecutor as err:
            with _lock:
                if _pool is batch.pool:
                    _failed(f"an AI helper process died ({err})")
                    _stop()
        except Exception:
            log.exception("an AI helper process failed on its play-outs")
        else:
            with _lock:
                _failures = 0
    return out


def shutdown() -> None:
    """Stop the helper processes (they are started again when next needed)."""
    with _lock:
        _stop()

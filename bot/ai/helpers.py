"""Helper processes for the strong level's play-outs.

A strong player made for ``workers`` processes owns a ``Helpers`` of ``workers - 1`` processes: it
hands some rounds of play-outs to them and plays the others itself, so that a two-core machine plays
twice as many in the same time. The processes are spawned on first use and kept for the player's
later turns (a spawn and the imports take about half a second), until the player is closed. Anything
that goes wrong with them — a process that cannot be started (inside a daemonic worker), one that
dies, one that is late — only costs the rounds it would have played: the caller plays on with what
it has.

This module knows nothing of the levels: what the helpers run is the caller's function, and the
module they import before their first task (``preload``) is named by the caller.
"""

from __future__ import annotations

import concurrent.futures
import importlib
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

#: the most processes a strong player's play-outs may be asked to use (``bot.config.MAX_AI_PROCESSES``,
#: which the settings and options check, says the same; a test checks that they agree)
MAX_WORKERS = 8


@dataclass
class Batch:
    """Work handed to the helpers: the futures, and the pool they run in."""

    pool: concurrent.futures.ProcessPoolExecutor | None
    futures: list[concurrent.futures.Future[Any]]


def end_with_parent() -> None:
    """In a child process: end at once when the process that started it is gone (killed, say),
    instead of lingering until its work is done."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent.sentinel,), daemon=True).start()


def _exit_with(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    os._exit(0)


def _warm(preload: str | None) -> None:
    """Run once in each new helper: import ``preload`` before the first task arrives; leave Ctrl-C
    to the process that started it (which stops its helpers); end as soon as that process is gone."""
    if preload:
        importlib.import_module(preload)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    end_with_parent()


def _stop_pool(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    pool.shutdown(wait=True, cancel_futures=True)


class Helpers:
    """``size`` helper processes, spawned on first use (``start`` or ``submit``) and kept until
    ``close``; thread-safe. ``preload`` is a module each new helper imports before its first task.

    The processes are also stopped when this object is garbage, and at the exit of the process that
    owns them — before it waits for its children: a process that is itself a pool's worker (the
    bot's AI worker was one) waits for them before any atexit handler runs."""

    def __init__(self, size: int, *, preload: str | None = None) -> None:
        if size < 1:
            raise ValueError(f"a pool of helpers has at least one process, not {size}")
        self.size = size
        self._preload = preload
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        #: stops ``_pool`` once, at exit or before (``multiprocessing.util.Finalize``)
        self._stopper: multiprocessing.util.Finalize | None = None
        #: this is a daemonic process, which may not have children: helpers are never tried
        self._cannot = False
        self._closed = False
        self._failures = 0
        #: ``time.monotonic()`` before which no helper is started again (after ``FAILURES`` failures)
        self._paused_until = 0.0
        self._lock = threading.Lock()

    def start(self) -> concurrent.futures.ProcessPoolExecutor | None:
        """The pool, started now if it is not running (``submit`` starts it too, but a turn would
        then lose its helpers' rounds to the start-up); None if it cannot be."""
        with self._lock:
            return self._start()

    def submit(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> Batch:
        """``fn(*args, first=w + 1, step=size + 1, **kwargs)`` in helper ``w`` for ``w`` in
        ``range(size)``: the caller plays ``first=0``. No futures if the helpers cannot be used."""
        with self._lock:
            pool = self._start()
            if pool is None:
                return Batch(None, [])
            step = self.size + 1
            try:
                return Batch(pool, [pool.submit(fn, *args, first=w + 1, step=step, **kwargs)
                                    for w in range(self.size)])
            except concurrent.futures.BrokenExecutor as err:
                self._failed(f"the AI helper processes stopped ({err})")
                self._stop()
                return Batch(None, [])

    def collect(self, batch: Batch, deadline: float | None) -> list[Any]:
        """The helpers' answers that arrive by the wall-clock ``deadline`` (``time.time()``) plus
        ``GRACE_S`` (with no deadline: within ``PATIENCE_S``). A helper that is late or fails costs
        only its answer; a pool whose processes died is replaced at the next turn."""
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
                with self._lock:
                    if self._pool is batch.pool:
                        self._failed(f"an AI helper process died ({err})")
                        self._stop()
            except Exception:
                log.exception("an AI helper process failed on its play-outs")
            else:
                with self._lock:
                    self._failures = 0
        return out

    def pids(self) -> list[int]:
        """The process ids of the running helpers (none before the first use or after ``close``)."""
        with self._lock:
            pool = self._pool
            return [] if pool is None else [p.pid for p in pool._processes.values() if p.pid is not None]

    def close(self) -> None:
        """Stop the helper processes for good: the owner thinks alone from now on."""
        with self._lock:
            self._closed = True
            self._stop()

    def _start(self) -> concurrent.futures.ProcessPoolExecutor | None:
        """``start`` with ``_lock`` held."""
        if self._closed or self._cannot or time.monotonic() < self._paused_until:
            return None
        if self._pool is None:
            if multiprocessing.current_process().daemon:
                log.warning("AI helper processes cannot be started from a daemonic process; thinking alone")
                self._cannot = True
                return None
            try:
                pool = concurrent.futures.ProcessPoolExecutor(
                    max_workers=self.size, mp_context=multiprocessing.get_context("spawn"), initializer=_warm,
                    initargs=(self._preload,))
                for _ in range(self.size):  # start them now, not at the first task
                    pool.submit(int)
            except Exception as err:
                self._failed(f"could not start {self.size} AI helper process(es): {err}")
                return None
            self._pool = pool
            # stop them before this process waits for its children at exit, and before the
            # finalizers of the pool's own queues (priority 10), which would stop the thread that
            # sends the helpers their signal to stop; or when this object is garbage
            self._stopper = multiprocessing.util.Finalize(self, _stop_pool, args=(pool,), exitpriority=100)
        return self._pool

    def _stop(self) -> None:
        """Stop the pool, with ``_lock`` held (its finalizer runs now, once, and is forgotten)."""
        if self._stopper is not None:
            self._stopper()
        self._pool, self._stopper = None, None

    def _failed(self, what: str) -> None:
        """Count a failure, with ``_lock`` held; after ``FAILURES`` in a row, pause the helpers."""
        self._failures += 1
        if self._failures >= FAILURES:
            self._failures = 0
            self._paused_until = time.monotonic() + PAUSE_S
            log.warning("%s; %s failures in a row: thinking alone for %.0f minutes", what, FAILURES, PAUSE_S / 60)
        else:
            log.warning("%s; trying again at the next turn", what)


__all__ = ["EARLY_S", "GRACE_S", "MAX_WORKERS", "Batch", "Helpers", "end_with_parent"]

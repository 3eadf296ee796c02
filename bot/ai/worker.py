"""The bot's AI worker: one spawned process that thinks for every AI seat, so that a long search
never slows the process that serves the players.

    worker = AIWorker(workers=2)                       # a strong player's play-outs: two processes
    future = worker.submit(state, seat, "strong", seed=seed, budget_s=2.0)
    action = future.result()                           # or: await asyncio.wrap_future(future)
    worker.close()

The process keeps its players (``bot.ai.players.Players``: one per level) between calls, as locals
of its receive loop, so a strong player's plan cache, play-out times and helper processes last
across the calls of a turn and the turns of a game. Calls are answered one at a time, in order; a
thread of this object sends each to the process and waits for the answer, so ``submit`` never
blocks. If the process dies, the call it was answering fails with ``WorkerDied`` and the next call
starts a new process. The process ends with ``close``, at the exit of the process that started it,
or as soon as that process is gone (killed, say).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
import multiprocessing.connection
import multiprocessing.process
import multiprocessing.util
import signal
import threading
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from rules import Action, GameState

from .helpers import end_with_parent
from .players import Players
from .search import Analysis, analyse

#: the request that asks the worker for ``search.analyse`` (a hint, a review) rather than a level's action
ANALYSE = "analyse"

#: a stand-in for the players, called like ``Players.choose`` (tests pass one; it must pickle)
Chooser = Callable[..., Action]

#: how long ``close`` (at exit) waits for the process to end before it is terminated
STOP_S = 10.0


class WorkerDied(concurrent.futures.BrokenExecutor):
    """The AI worker process ended while it was thinking; the next call starts a new one."""


class RemoteError(Exception):
    """The traceback of an exception raised in the AI worker process (the ``__cause__`` of the
    exception re-raised here)."""


class AIWorker:
    """One spawned process thinking for AI seats with its own ``Players(workers=workers)``, or
    with ``choose`` instead when given. Thread-safe. See the module docstring."""

    def __init__(self, *, workers: int = 1, choose: Chooser | None = None) -> None:
        self.workers = workers
        self._choose = choose
        #: the one thread that talks to the process, one call at a time
        self._calls = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="tiempo-ai-worker")
        self._process: multiprocessing.process.BaseProcess | None = None
        self._conn: multiprocessing.connection.Connection | None = None
        #: stops the process once, at exit or before (``multiprocessing.util.Finalize``)
        self._stopper: multiprocessing.util.Finalize | None = None
        self._closed = False
        #: held to start the process, to send it something, and to forget it
        self._lock = threading.Lock()

    @property
    def pid(self) -> int | None:
        """The id of the worker process, if it is running."""
        with self._lock:
            return self._process.pid if self._process is not None else None

    def submit(self, state: GameState, seat: int, level: str, *, seed: int, budget_s: float = 2.0,
               iterations: int | None = None) -> concurrent.futures.Future[Action]:
        """``seat``'s action by the worker's player of ``level`` (``Players.choose``), as a future.
        It fails with ``WorkerDied`` if the process dies meanwhile, and with the AI's own exception
        (its traceback in the worker as the ``__cause__``) if the AI fails."""
        kwargs: dict[str, Any] = {"seed": seed, "budget_s": budget_s}
        if iterations is not None:
            kwargs["iterations"] = iterations
        return self._calls.submit(self._ask, (state, seat, level, kwargs))

    def submit_analysis(self, state: GameState, seat: int, *, seed: int, budget_s: float = 2.0,
                        iterations: int | None = None, extra: Sequence[Sequence[Action]] = (), deals: int = 0
                        ) -> concurrent.futures.Future[Analysis]:
        """``search.analyse`` for ``seat`` (what the master level would do, and why: a hint, a review,
        which passes the turn played as ``extra``), worked out in the worker process, as a future; it
        fails as ``submit``'s does."""
        kwargs: dict[str, Any] = {"seed": seed, "budget_s": budget_s, "iterations": iterations,
                                  "extra": [list(plan) for plan in extra], "deals": deals}
        return self._calls.submit(self._ask, (state, seat, ANALYSE, kwargs), Analysis)

    def choose(self, state: GameState, seat: int, level: str, *, seed: int, budget_s: float = 2.0,
               iterations: int | None = None) -> Action:
        """``submit``, waiting for the answer."""
        return self.submit(state, seat, level, seed=seed, budget_s=budget_s, iterations=iterations).result()

    def close(self) -> None:
        """Stop the worker without waiting: calls not begun are cancelled; the process ends after
        the call in progress, if any, stopping its players' helpers."""
        self._calls.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            self._closed = True
            if self._conn is not None:
                with contextlib.suppress(OSError):
                    self._conn.send(None)

    def _ask(self, request: tuple[GameState, int, str, dict[str, Any]], expected: Any = Action) -> Any:
        """Send one call to the process (started if need be) and wait for its answer (an ``expected``)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the AI worker is closed")
            process, conn = self._start()
            try:
                conn.send(request)
            except OSError as err:
                self._forget(process)
                raise WorkerDied(f"the AI worker process is gone ({err})") from err
        multiprocessing.connection.wait([conn, process.sentinel])
        try:
            ok, answer, remote = conn.recv()
        except (EOFError, OSError) as err:
            process.join()
            with self._lock:
                self._forget(process)
            raise WorkerDied(f"the AI worker process died (exit code {process.exitcode})") from err
        if not ok:
            error = answer if isinstance(answer, Exception) else RuntimeError(f"the AI worker failed: {answer!r}")
            raise error from RemoteError(remote)
        if not isinstance(answer, expected):
            raise TypeError(f"the AI worker answered {answer!r}, not what was asked")
        return answer

    def _start(self) -> tuple[multiprocessing.process.BaseProcess, multiprocessing.connection.Connection]:
        """The process and our end of its pipe, started now if it is not running; ``_lock`` held."""
        if self._process is None or self._conn is None:
            context = multiprocessing.get_context("spawn")  # a fork would copy the event loop's and threads' locks
            conn, theirs = context.Pipe()
            process = context.Process(target=_serve, args=(theirs, self.workers, self._choose), name="tiempo-ai",
                                      daemon=False)  # not daemonic: it may start helper processes
            process.start()
            theirs.close()
            self._process, self._conn = process, conn
            # before this process waits for its children at exit
            self._stopper = multiprocessing.util.Finalize(self, _stop, args=(conn, process), exitpriority=100)
        return self._process, self._conn

    def _forget(self, process: multiprocessing.process.BaseProcess) -> None:
        """Forget a dead process (the next call starts a new one); ``_lock`` held."""
        if self._process is process:
            if self._stopper is not None:
                self._stopper()
            self._process, self._conn, self._stopper = None, None, None


def _stop(conn: multiprocessing.connection.Connection, process: multiprocessing.process.BaseProcess) -> None:
    """Ask the process to end, wait for it (``STOP_S`` at most, then terminate it), close the pipe."""
    with contextlib.suppress(OSError):
        conn.send(None)
    process.join(STOP_S)
    if process.is_alive():
        process.terminate()
        process.join(1.0)
    conn.close()


def _serve(conn: multiprocessing.connection.Connection, workers: int, choose: Chooser | None) -> None:
    """The worker process: answer calls until told to stop (None) or until the other end is gone.
    The players are this function's own, closed (their helpers stopped) when it returns."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the bot, which stops its worker
    end_with_parent()
    players = Players(workers=workers)
    think = choose if choose is not None else players.choose
    try:
        while True:
            try:
                request = conn.recv()
            except EOFError:
                return
            if request is None:
                return
            state, seat, level, kwargs = request
            reply: tuple[bool, object, str]
            try:
                answer = analyse(state, seat, **kwargs) if level == ANALYSE else think(state, seat, level, **kwargs)
                reply = (True, answer, "")
            except Exception as err:
                reply = (False, err, traceback.format_exc())
            try:
                conn.send(reply)
            except Exception:  # an answer or exception that cannot be pickled
                conn.send((False, RuntimeError(f"the AI's answer could not be sent back: {reply[1]!r}"),
                           reply[2] or traceback.format_exc()))
    finally:
        players.close()


__all__ = ["ANALYSE", "AIWorker", "Chooser", "RemoteError", "WorkerDied"]

"""The event loop the bot's processes run on: uvloop's (libuv under asyncio's interface, by asyncpg's
authors) where it can be imported, Python's own otherwise or when ``TIEMPO_EVENT_LOOP=asyncio``.

The Discord bot (``bot.discord.client.serve``), the console and the benchmark's bot process
(``bench/bot_serve.py``) all start their loop here, through ``run`` or, for a loop run step by step,
``asyncio.Runner(loop_factory=loop_factory())``. uvloop spends less of the bot's CPU on what every
interaction costs around the game: the loop's wake-ups, the sockets to Discord and to PostgreSQL,
the calls back from the SQLite thread (``docs/hosting.md`` §7).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, TypeVar

T = TypeVar("T")

#: the environment variable that chooses the loop
SWITCH = "TIEMPO_EVENT_LOOP"
#: what it may say; the first is the default
LOOPS = ("uvloop", "asyncio")


class EventLoopError(ValueError):
    """``TIEMPO_EVENT_LOOP`` names no loop this bot knows."""


def wanted_loop(environ: Mapping[str, str] | None = None) -> str:
    """The loop ``environ`` (``os.environ`` when None) asks for: ``uvloop`` unless ``TIEMPO_EVENT_LOOP``
    says ``asyncio``. Raises EventLoopError for any other value."""
    value = (os.environ if environ is None else environ).get(SWITCH, "").strip().lower()
    if not value:
        return LOOPS[0]
    if value not in LOOPS:
        raise EventLoopError(f"{SWITCH}={value} names no event loop: leave it unset (uvloop where it is installed) "
                             f"or set {SWITCH}=asyncio for Python's own.")
    return value


def loop_factory(environ: Mapping[str, str] | None = None) -> Callable[[], asyncio.AbstractEventLoop]:
    """What makes the loop to run on: uvloop's ``new_event_loop`` when it is wanted and can be
    imported (it is a dependency everywhere but on Windows), else asyncio's."""
    if wanted_loop(environ) == "uvloop":
        try:
            import uvloop
        except ImportError:
            return asyncio.new_event_loop
        factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
        return factory
    return asyncio.new_event_loop


def run(main: Coroutine[Any, Any, T], *, environ: Mapping[str, str] | None = None) -> T:
    """Run ``main`` on a new loop of ``loop_factory(environ)`` until it returns, then close the loop,
    as ``asyncio.run`` does (what discord.py's ``Client.run`` uses). Ctrl-C cancels ``main`` and, once
    it has unwound (a bot's ``async with`` closes it), raises KeyboardInterrupt; so does SIGTERM, a
    service manager's stop (in the main thread, where signals can be handled)."""
    terminated = False

    async def until_stopped() -> T:
        nonlocal terminated
        loop, task = asyncio.get_running_loop(), asyncio.current_task()
        assert task is not None

        def stop() -> None:
            nonlocal terminated
            terminated = True
            task.cancel()

        try:
            loop.add_signal_handler(signal.SIGTERM, stop)
        except (NotImplementedError, RuntimeError, ValueError):  # Windows; a thread other than the main one
            return await main
        try:
            return await main
        finally:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signal.SIGTERM)

    with asyncio.Runner(loop_factory=loop_factory(environ)) as runner:
        try:
            return runner.run(until_stopped())
        except asyncio.CancelledError:
            if terminated:
                raise KeyboardInterrupt from None
            raise


__all__ = ["LOOPS", "SWITCH", "EventLoopError", "loop_factory", "run", "wanted_loop"]

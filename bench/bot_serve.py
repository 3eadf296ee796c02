"""The bot of a capacity trial, alone in a process (started by ``bench/bot.py``, not by hand).

It imports the bot from whatever checkout ``PYTHONPATH`` names, not from the checkout this file is
in, so that ``bench/bot.py --baseline REV`` runs the same trials against another revision: the
players, the Discord stand-in and the figures are this checkout's, the bot is the other's. Hence it
uses nothing of the project but ``bot.config.Config`` and ``TiempoBot`` (``bot.discord``, or
``bot.discord_app`` in revisions before the front end became a package), whose constructors have
not changed.

REST goes to the stand-in at ``--sim``; gateway events come down the Unix socket ``--relay``, one JSON
``[event, payload]`` per line. On ``__ready__`` it answers ``ready``; on ``__close__`` it answers one
JSON line: the CPU seconds it used while the games were played, the seconds its threads waited for a
core, the errors it logged, its memory, and the CPU time at which each interaction arrived (for the
serial calibration: the CPU between two interactions of a game played alone is the first one's cost).
The bot runs on the event loop its checkout's Discord bot runs on (``bot.loop.run``, else
``asyncio.run``). ``--profile FILE`` writes a cProfile to FILE; the work the bot sends to threads (the
pictures) is then done on the event loop's thread, so that the profile has it, and the other threads
(the SQLite thread) are profiled each on its own and added to it; each thread's time is its CPU time
(``time.thread_time``), so that waiting (for a core, for the disk's fsync) is not counted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import pstats
import sys
import time
from typing import Any


def rss_mb() -> float:
    """Resident memory of this process, in MB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def scheduled() -> tuple[float, float]:
    """Seconds this process's threads have run, and waited for a core while ready to run (Linux's
    per-thread schedstat): the wait is the time other work on the bot's core took from it."""
    ran = waited = 0
    with contextlib.suppress(OSError):
        for task in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError, ValueError), open(f"/proc/self/task/{task}/schedstat") as f:
                on_cpu, queued, _ = f.read().split()
                ran, waited = ran + int(on_cpu), waited + int(queued)
    return ran / 1e9, waited / 1e9


class _ErrorCount(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.count = 0
        self.first: str | None = None

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1
        if self.first is None:
            self.first = record.getMessage()[:300]


def make_bot(token: str, guild_id: int, target: str) -> Any:
    from bot.config import Config

    try:
        from bot.discord import TiempoBot
    except ImportError:  # a revision before bot/discord/ (bot/discord_app.py)
        from bot.discord_app import TiempoBot  # type: ignore[no-redef]
    config = Config(token=token, database=target, guilds=(guild_id,))
    return TiempoBot(config, timer_every=3600, seed_source=lambda: 7)


async def serve(api: str, relay: str, token: str, guild_id: int, target: str) -> None:
    """The bot: REST to ``api`` (the stand-in's base URL with its API prefix), gateway events from
    ``relay``; ends on ``__close__``."""
    import discord.http

    errors = _ErrorCount()
    logging.getLogger().addHandler(errors)
    logging.getLogger("discord").setLevel(logging.ERROR)
    discord.http.Route.BASE = api
    bot = make_bot(token, guild_id, target)
    await bot.login(token)  # runs setup_hook: storage opened, commands synced
    bot._connection.guild_ready_timeout = 0.05
    closed = asyncio.get_running_loop().create_future()

    async def relayed(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        cpu = wall = waited = 0.0
        arrivals: list[tuple[str, float]] = []
        while line := await reader.readline():
            event, payload = json.loads(line)
            if event == "__ready__":
                await bot.wait_until_ready()
                cpu, wall = time.process_time(), time.monotonic()  # every thread of this process
                waited = scheduled()[1]
                writer.write(b"ready\n")
            elif event == "__close__":
                usage = {"cpu_s": round(time.process_time() - cpu, 2), "wall_s": round(time.monotonic() - wall, 1),
                         "threads_waited_for_core_s": round(scheduled()[1] - waited, 1),
                         "errors_logged": errors.count, "first_error": errors.first, "rss_mb": round(rss_mb(), 1),
                         "arrivals": arrivals}
                await bot.close()
                writer.write((json.dumps(usage) + "\n").encode())
                await writer.drain()
                break
            else:
                if event == "INTERACTION_CREATE":
                    arrivals.append((payload["id"], time.process_time() - cpu))
                bot._connection.parsers[event](payload)
        writer.close()
        if not closed.done():
            closed.set_result(None)

    server = await asyncio.start_unix_server(relayed, relay, limit=1 << 24)
    async with server:
        await closed
    if not bot.is_closed():
        await bot.close()


def loop_runner() -> Any:
    """How the checkout's bot runs its event loop: ``bot.loop.run`` (the one the Discord bot's ``serve``
    uses: uvloop's where it can be imported), or ``asyncio.run`` in revisions before ``bot/loop.py``,
    as those ran their bot (discord.py's ``Client.run``)."""
    try:
        from bot.loop import run
    except ImportError:
        return asyncio.run
    return run


def profiled_threads() -> list[Any]:
    """Every thread started from now on runs under a cProfile of its own (the SQLite thread,
    aiosqlite's, does the storage's work); the list of their profiles, filled as they start."""
    import cProfile
    import threading

    profiles: list[Any] = []
    run = threading.Thread.run

    def profiled(self: threading.Thread) -> None:
        profile = cProfile.Profile(time.thread_time)
        profiles.append(profile)
        profile.runcall(run, self)

    threading.Thread.run = profiled  # type: ignore[method-assign]
    return profiles


def main() -> None:
    # this file's folder is not where ``bot`` comes from (its bench/bot.py would shadow the package)
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--api", required=True)
    ap.add_argument("--relay", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--guild", type=int, required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--cpu", type=int)
    ap.add_argument("--profile")
    args = ap.parse_args()
    if args.cpu is not None:  # first of all, so that every thread this process starts inherits it
        os.sched_setaffinity(0, {args.cpu})
    run = serve(args.api, args.relay, args.token, args.guild, args.target)
    run_loop = loop_runner()
    if args.profile:
        import cProfile

        async def inline(func: Any, /, *a: Any, **kw: Any) -> Any:  # the renderer's work in the profile
            return func(*a, **kw)

        asyncio.to_thread = inline
        threads = profiled_threads()
        profiler = cProfile.Profile(time.thread_time)
        profiler.runcall(run_loop, run)
        profiler.create_stats()
        stats = pstats.Stats(profiler)
        for other in threads:  # the SQLite thread's work (aiosqlite) too
            other.create_stats()
            if other.stats:  # type: ignore[attr-defined]
                stats.add(other)
        stats.dump_stats(args.profile)
    else:
        run_loop(run)


if __name__ == "__main__":
    main()

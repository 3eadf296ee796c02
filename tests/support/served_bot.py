"""A child process for tests/discord/test_event_loop.py: the bot started as ``tiempo-bot`` starts it
(``bot.__main__.main``: the settings from the environment, the database checked, then ``serve`` and
its event loop), against the Discord stand-in of the test's process: REST at API, the gateway at
GATEWAY (the only two things changed, as ``discord.http.Route.BASE`` and the gateway's default URL),
the network limited to loopback.

    DISCORD_TOKEN=... TIEMPO_DATABASE=... python -m tests.support.served_bot API GATEWAY

Prints ``loop <module>.<class>`` (the running loop, from the bot's setup hook), ``ready`` once the
gateway's READY and guilds are in, and exits with the code ``main`` returns.
"""

from __future__ import annotations

import asyncio
import faulthandler
import signal
import sys

import discord.http
import yarl
from discord.gateway import DiscordWebSocket

from bot.__main__ import main
from bot.discord import TiempoBot
from tests.support.discord_sim import loopback_only


def served(api: str, gateway: str) -> int:
    discord.http.Route.BASE = api
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
    setup, ready = TiempoBot.setup_hook, TiempoBot.on_ready

    async def noted_setup(self: TiempoBot) -> None:
        await setup(self)
        loop = type(asyncio.get_running_loop())
        print(f"loop {loop.__module__}.{loop.__qualname__}", flush=True)

    async def noted_ready(self: TiempoBot) -> None:
        await ready(self)
        print("ready", flush=True)

    TiempoBot.setup_hook = noted_setup  # type: ignore[method-assign]
    TiempoBot.on_ready = noted_ready  # type: ignore[method-assign]
    with loopback_only([]):
        return main(["run"])


if __name__ == "__main__":
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # a test that finds it hanging asks where
    # Ctrl-C as at a terminal, whatever the test run inherited (a shell's background job, a CI runner
    # started with `&`, ignores SIGINT, and its children would too: asyncio would then leave it ignored)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    raise SystemExit(served(sys.argv[1], sys.argv[2]))

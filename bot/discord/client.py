"""The client: the command tree with ``/tiempo``, the persistent items, the table service and its
background work (discord.py's ``examples/app_commands/basic.py``)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import sys
from typing import Any

import aiohttp
import discord
from discord import app_commands

from ..config import Config
from ..loop import run
from ..service import Tiempo
from .answering import answer, answer_error, answer_privately, say_changed, stale_command
from .commands import TiempoGroup
from .context import Interaction, Work
from .items import DYNAMIC_ITEMS
from .sending import ChannelOutbox

log = logging.getLogger("tiempo.discord")

#: the permissions the bot needs in a channel: see it, post narration and boards with their picture
PERMISSIONS = discord.Permissions(view_channel=True, send_messages=True, send_messages_in_threads=True,
                                  attach_files=True, embed_links=True, read_message_history=True)


#: the collector's thresholds while the bot serves: Python's own for the young and middle generations
#: (700 objects, 10 collections), but a full collection after 1,000 middle ones instead of 10
COLLECTOR_THRESHOLDS = (700, 10, 1000)


def steady_collector() -> None:
    """Keep the garbage collector's full collections from stalling every answer. A bot with a few
    hundred games in memory holds 3-5 x 10^5 objects the collector tracks (positions, the scenes of
    the last cards, posts); a full collection walks all of them, 0.2-0.4 s each time on a 2-core
    EPYC, every player's answer waiting meanwhile. With Python's thresholds that was every few
    seconds under load; with a tenth of that rate, still every 15-25 s at 400 games by taps, which
    alone failed a 150 ms p95. A full collection is now a hundred times rarer than Python's (every
    few minutes at that load); the cycles it frees (discord.py's views and interactions that lived
    through two younger collections) wait that much longer: about 20 MB more at 400 games. What
    was made before the games (the modules, the command tree) is frozen out of its walks for good.
    Once per process (the first bot started in it)."""
    if gc.get_freeze_count():
        return
    gc.set_threshold(*COLLECTOR_THRESHOLDS)
    gc.collect()
    gc.freeze()


class Tree(app_commands.CommandTree[Any]):
    """The command tree: an interaction with a command as this bot no longer defines it is answered
    with ``CHANGED`` before discord.py tries it; errors discord.py catches before our handlers (a
    bad option value, a mismatch the check let through) are answered in ``on_error``."""

    async def interaction_check(self, interaction: Interaction, /) -> bool:
        stale = stale_command(self, interaction)
        if stale is None:
            return True
        await say_changed(interaction, f"/{stale}")
        return False

    async def on_error(self, interaction: Interaction, error: app_commands.AppCommandError, /) -> None:
        if isinstance(error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
            await say_changed(interaction, str(error))
            return
        if isinstance(error, app_commands.TransformerError | app_commands.CheckFailure):
            await answer_privately(interaction, str(error))
            return
        original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        await answer_error(interaction, interaction.command.name if interaction.command else "?", original)


class TiempoBot(discord.Client):
    """The bot: the command tree, the persistent buttons, the service and its background work.
    ``service_options`` go to ``Tiempo`` (tests pass a fake AI, a seed)."""

    def __init__(self, config: Config, *, timer_every: float = 15.0, **service_options: Any) -> None:
        shards: dict[str, Any] = ({"shard_id": config.shard_id, "shard_count": config.shard_count}
                                  if config.shard_count else {})
        super().__init__(intents=discord.Intents.none() | discord.Intents(guilds=True), **shards)
        self.config = config
        self.tree = Tree(self)
        self.tree.add_command(TiempoGroup())
        service_options.setdefault("ai_process", True)
        self._service_options = service_options
        self.timer_every = timer_every
        self._timers: asyncio.Task[None] | None = None
        self.service: Tiempo

    async def setup_hook(self) -> None:
        """Open the games, register the buttons, sync the commands, resume background work."""
        config = self.config
        self.service = await Tiempo.open(
            config.database, ChannelOutbox(self), shared=bool(config.shard_count),
            default_turn_minutes=config.turn_limit_minutes, ai_think_seconds=config.ai_think_seconds,
            reminder_minutes=config.reminder_minutes,
            ai_processes=config.ai_processes, owns=config.owns, **self._service_options)
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        if config.guilds:
            for guild_id in config.guilds:
                guild = discord.Object(guild_id)
                self.tree.copy_global_to(guild=guild)
                await self.tree.sync(guild=guild)
        else:
            await self.tree.sync()
        await self.service.resume()
        self._timers = asyncio.create_task(self.service.run_timers(self.timer_every), name="tiempo-timers")
        steady_collector()

    async def answer(self, interaction: Interaction, what: str, work: Work, *, defer: bool = False,
                     update: bool = False) -> None:
        """Answer an interaction with ``work``'s reply (``bot.discord.answering.answer``): how the
        persistent items answer a click."""
        await answer(interaction, what, work, defer=defer, update=update)

    async def on_ready(self) -> None:
        """Log who we are and how to invite us."""
        if self.user is not None and self.application_id is not None:
            url = discord.utils.oauth_url(self.application_id, permissions=PERMISSIONS,
                                          scopes=("bot", "applications.commands"))
            log.info("Tiempo is online as %s. Invite it with: %s", self.user, url)

    async def close(self) -> None:
        """Stop the timers and AI work, then close the games and the connection."""
        if self._timers is not None:
            self._timers.cancel()
            with contextlib.suppress(BaseException):
                await self._timers
        if hasattr(self, "service"):
            await self.service.close()
            del self.service
        await super().close()


async def online(bot: discord.Client, token: str) -> None:
    """Log ``bot`` in and keep it connected until it is closed or this is cancelled; closed either way
    (what discord.py's ``Client.run`` runs)."""
    async with bot:
        await bot.start(token)


def serve(config: Config) -> int:
    """Connect to Discord with ``config.token`` and serve until stopped (the logging is set up by the
    caller), on the event loop of ``bot.loop`` (uvloop's where installed). Ctrl-C and SIGTERM close the
    bot (the games, the outbox's sent posts, the connection) and return 0. Returns the exit code: 2
    when Discord refuses the token, 1 when it cannot be reached (a service manager may try again)."""
    assert config.token
    # Tiempo uses no voice: discord.py's warnings that its voice libraries are missing would only worry a host
    discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
    bot = TiempoBot(config)
    try:
        run(online(bot, config.token))
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM, after the bot closed
        return 0
    except discord.LoginFailure:
        sys.stderr.write("Discord refused the token. Copy it again from the developer portal (Bot → Reset Token).\n")
        return 2
    except (aiohttp.ClientError, OSError) as err:  # (no network, no DNS, a firewall: before the bot went online)
        sys.stderr.write(f"Cannot reach Discord ({err.__class__.__name__}: {err}): check this machine's network "
                         "connection and DNS, then start Tiempo again.\n")
        return 1
    return 0


__all__ = ["PERMISSIONS", "TiempoBot", "Tree", "online", "serve"]

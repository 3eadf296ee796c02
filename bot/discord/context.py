"""What every handler needs from an interaction: who asks (``caller_of``), the table service
(``service_of``), and the client that answers (``front_of``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, runtime_checkable

import discord

from ..service import Caller, Reply, Tiempo

Interaction = discord.Interaction[Any]
#: the work a handler runs: one call of the service
Work = Callable[[], Awaitable[Reply]]


def caller_of(interaction: Interaction) -> Caller:
    """Who is asking, where, and whether they may manage the channel."""
    perms = interaction.permissions
    return Caller(guild_id=interaction.guild_id or 0, channel_id=interaction.channel_id or 0,
                  user_id=interaction.user.id, name=interaction.user.display_name,
                  can_manage=bool(perms.manage_channels or perms.administrator))


@runtime_checkable
class Front(Protocol):
    """The client as the persistent items see it: the service, and how an interaction is answered
    (``bot.discord.answering.answer``)."""

    service: Tiempo

    async def answer(self, interaction: Interaction, what: str, work: Work, *, defer: bool = False,
                     update: bool = False) -> None:
        """Run ``work`` and answer the interaction with its reply (or the refusal, or an apology)."""


def front_of(interaction: Interaction) -> Front:
    """The client of the interaction, which holds the service; TypeError for another client."""
    client = interaction.client
    if not isinstance(client, Front):
        raise TypeError(f"{type(client).__name__} is not Tiempo's client")
    return client


def service_of(interaction: Interaction) -> Tiempo:
    """The table service of the interaction's client."""
    return front_of(interaction).service

"""A table at the service itself, without a front end: a channel nobody reads (``Silent``) and a game
opened, joined and started by the people given (``seated_game``)."""

from __future__ import annotations

from bot.service import Caller, Post, Tiempo
from bot.storage import GameRecord, Storage


class Silent:
    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        """The channel is not what this test reads."""


async def seated_game(service: Tiempo, storage: Storage, people: list[Caller]) -> GameRecord:
    """A game opened in channel 1 by the first of ``people``, joined by the others, and started."""
    await service.new(people[0])
    for p in people[1:]:
        await service.join(p)
    await service.start_game(people[0])
    game = await storage.active_game_in_channel(1)
    assert game is not None
    return game

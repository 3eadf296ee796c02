"""Whole games played through the service and stored, for the replay and export tests and bench."""

from __future__ import annotations

import random

from bot.service import Caller, Post, Tiempo, version_of
from bot.storage import GameRecord, Storage
from rules import legal_actions
from tests.support.gameplay import choose


class Silent:
    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        """The channel is not what these tests read."""


def people(names: list[str], guild: int = 1, channel: int = 1, ids: list[int] | None = None) -> list[Caller]:
    return [Caller(guild, channel, ids[i] if ids else 100 + i, name) for i, name in enumerate(names)]


async def play_game(path: str, seed: int, names: list[str], *, actions: int | None = None, guild: int = 1,
                    channel: int = 1, deal: int | None = None, ids: list[int] | None = None) -> int:
    """A game opened, joined and started in ``channel`` of ``guild``, dealt from ``deal`` (``seed`` if
    None), played by random legal moves from ``seed`` to its end (or for ``actions`` actions), stored in
    the SQLite file ``path``; its id. ``ids``: the players' user ids (default 100, 101, …)."""
    storage = await Storage.open(path)
    service = Tiempo(storage, Silent(), render=False, seed_source=lambda: seed if deal is None else deal)
    players = people(names, guild, channel, ids)
    rng = random.Random(seed)
    try:
        await service.new(players[0])
        for p in players[1:]:
            await service.join(p)
        await service.start_game(players[0])
        game: GameRecord | None = await storage.active_game_in_channel(channel)
        assert game is not None
        done = 0
        while actions is None or done < actions:
            game = await storage.get_game(game.id)
            state = service.state_of(game)
            if state.finished:
                break
            action = choose(rng, state, legal_actions(state))
            await service.moves.play_action(players[action.player], game.id, version_of(game),
                                            lambda s, p, a=action: a)
            done += 1
        return game.id
    finally:
        await service.close()
        await storage.close()

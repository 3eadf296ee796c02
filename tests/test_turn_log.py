"""The end-of-turn post tells the whole turn. Its events come from a small per-game turn log kept as
actions are stored (a busy bot serves more games than it keeps histories of, and must not replay a
whole game at each end of turn); the log must always say what the game's history says, through
undos and with a cold cache."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.play import Refusal
from bot.service import Caller, Tiempo, version_of
from bot.service.games import Games
from bot.storage import Storage
from rules import events as ev
from rules import legal_actions
from tests.gameplay import choose
from tests.test_retold import Silent, seated_game


async def _from_history(storage: Storage, game_id: int) -> list[ev.Event]:
    """The turn's events as a bot that just started (nothing cached) finds them."""
    fresh = Games(storage, clock=lambda: 0.0)
    return await fresh.turn_events(await storage.get_game(game_id))


@pytest.mark.parametrize("seed", [4, 11])
async def test_the_turn_log_says_what_the_history_says_through_undos(tmp_path: Path, seed: int) -> None:
    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    service = Tiempo(storage, Silent(), render=False, seed_source=lambda: seed)
    people = [Caller(1, 1, 100 + i, name) for i, name in enumerate(["alice", "bob", "cy"])]
    rng = random.Random(seed)
    undone = ends = 0
    try:
        game = await seated_game(service, storage, people)
        for step in range(120):
            game = await storage.get_game(game.id)
            state = service.state_of(game)
            if state.finished:
                break
            action = choose(rng, state, legal_actions(state))
            _, _, events = await service.table.play_action(people[action.player], game.id, version_of(game),
                                                               lambda s, p, a=action: a)
            ends += any(isinstance(e, ev.TurnEnded) for e in events)
            if step % 7 == 3:
                try:
                    await service.table.undo(people[action.player], game.id)
                    undone += 1
                except Refusal:
                    pass
            game = await storage.get_game(game.id)
            assert await service.games.turn_events(game) == await _from_history(storage, game.id), step
        assert undone >= 3 and ends >= 10
    finally:
        await storage.close()

"""An AI that thinks while the question it answers is taken back must not play its stale answer: seed 58,
four seats (the third a random AI), the random player of tests/support/gameplay.py for the people."""

from __future__ import annotations

import asyncio
import random
import threading
from pathlib import Path

import pytest

from bot.service import Caller, Post, Tiempo, version_of
from bot.storage import Storage
from rules import Action, EndTurn, GameState, from_json, legal_actions
from tests.support.gameplay import choose


class Silent:
    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        """The channel is not what this test reads."""


@pytest.mark.slow
async def test_an_ai_answer_to_a_question_taken_back_is_not_played(tmp_path: Path) -> None:
    rng = random.Random(58)
    thinking = threading.Event()
    thinking.set()

    def ai(state: GameState, seat: int, level: str, *, seed: int = 0, budget_s: float = 0) -> Action:
        thinking.wait(10)
        return choose(rng, state, legal_actions(state))

    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    service = Tiempo(storage, Silent(), choose_ai=ai, render=False, seed_source=lambda: 58)
    people = [Caller(1, 1, 100 + i, name) for i, name in enumerate(["alice", "bob", "cy", "di"])]
    try:
        await service.new(people[0])
        await service.join(people[1])
        await service.add_bot(people[0], "random")
        await service.join(people[3])
        await service.start_game(people[0])
        game = await storage.active_game_in_channel(1)
        assert game is not None
        while True:  # to the position where di's action asks the AI a question
            await service.idle()
            game = await storage.get_game(game.id)
            state = service.state_of(game)
            if game.action_count >= 113:
                break
            if game.seats[state.waiting_on].ai_level:
                await asyncio.sleep(0.01)
                continue
            action = choose(rng, state, legal_actions(state))
            await service.moves.play_action(people[action.player], game.id, version_of(game), lambda s, p, a=action: a)
        await service.idle()
        thinking.clear()  # the AI will think about the question until we let it go
        state = service.state_of(await storage.get_game(game.id))
        asking = choose(rng, state, legal_actions(state))
        await service.moves.play_action(people[asking.player], game.id, version_of(game), lambda s, p: asking)
        asked = service.state_of(await storage.get_game(game.id))
        assert asked.pending is not None and game.seats[asked.pending.decision.player].ai_level
        await asyncio.sleep(0.1)
        await service.undo(people[asking.player])  # the question is taken back…
        back = service.state_of(await storage.get_game(game.id))
        other = next(a for a in legal_actions(back) if isinstance(a, EndTurn))
        version = version_of(await storage.get_game(game.id))  # 113 actions again
        await service.moves.play_action(people[other.player], game.id, version, lambda s, p: other)  # 114 is another
        thinking.set()
        await asyncio.sleep(0.3)
        await service.idle()
        game = await storage.get_game(game.id)
        records = await storage.list_actions(game.id, after=113)
        assert records[0].action == "Blue end"  # di's end of turn, not the AI's stale answer after it
        service.games._histories.clear()
        history = await service.games.history(game)  # the stored log replays to the stored position
        assert service.games.replay(game, history) == from_json(game.snapshot or "")
    finally:
        thinking.set()
        await service.close()
        await storage.close()

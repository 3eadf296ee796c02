"""The end-of-turn post tells the whole turn. Its events come from a small per-game turn log kept as
actions are stored (a busy bot serves more games than it keeps histories of, and must not replay a
whole game at each end of turn); the log must always say what the game's history says, through
undos and with a cold cache."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.play import Refusal
from bot.service import Caller, Tiempo, version_of
from bot.service.games import Games
from bot.storage import GameRecord, Storage
from rules import events as ev
from rules import legal_actions
from tests.support.gameplay import choose
from tests.support.service_play import Silent, seated_game


async def _from_history(storage: Storage, game_id: int) -> list[ev.Event]:
    """The turn's events as a bot that just started (nothing cached) finds them."""
    fresh = Games(storage, clock=lambda: 0.0)
    return await fresh.turn_events(await storage.get_game(game_id))


async def _random_play_with_undos(storage: Storage, seed: int, steps: int, *, undos: int, ends_of_turn: int
                                  ) -> AsyncIterator[tuple[int, Games, GameRecord]]:
    """A 3-player game played by random legal actions through a service, an undo tried at every
    seventh step: yields each step's number, the service's games and the game stored after it; at the
    end, checks that at least ``undos`` undos and ``ends_of_turn`` ends of turn happened."""
    service = Tiempo(storage, Silent(), render=False, seed_source=lambda: seed)
    people = [Caller(1, 1, 100 + i, name) for i, name in enumerate(["alice", "bob", "cy"])]
    rng = random.Random(seed)
    undone = ends = 0
    game = await seated_game(service, storage, people)
    for step in range(steps):
        game = await storage.get_game(game.id)
        state = service.state_of(game)
        if state.finished:
            break
        action = choose(rng, state, legal_actions(state))
        _, _, events = await service.moves.play_action(people[action.player], game.id, version_of(game),
                                                       lambda s, p, a=action: a)
        ends += any(isinstance(e, ev.TurnEnded) for e in events)
        if step % 7 == 3:
            try:
                await service.moves.undo(people[action.player], game.id)
                undone += 1
            except Refusal:
                pass
        yield step, service.games, await storage.get_game(game.id)
    assert undone >= undos and ends >= ends_of_turn


@pytest.mark.slow  # (a whole search, game or animation: the full suite runs it)
@pytest.mark.parametrize("seed", [4, 11])
async def test_the_turn_log_says_what_the_history_says_through_undos(tmp_path: Path, seed: int) -> None:
    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    try:
        async for step, games, game in _random_play_with_undos(storage, seed, 120, undos=3, ends_of_turn=10):
            assert await games.turn_events(game) == await _from_history(storage, game.id), step
    finally:
        await storage.close()


async def test_histories_read_during_a_commit_stay_right(tmp_path: Path) -> None:
    """A reader outside the game's lock (``/tiempo log``) asks for the history while a move is being
    stored (its pictures drawn, its commit not yet made); then two readers ask at once. Each gets the
    game's log as stored, no action missing or told twice."""
    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    service = Tiempo(storage, Silent(), render=False, seed_source=lambda: 4)
    people = [Caller(1, 1, 100 + i, name) for i, name in enumerate(["alice", "bob", "cy"])]
    rng = random.Random(4)
    try:
        game = await seated_game(service, storage, people)

        async def play_one() -> None:
            g = await storage.get_game(game.id)
            s = service.state_of(g)
            a = choose(rng, s, legal_actions(s))
            await service.moves.play_action(people[a.player], g.id, version_of(g), lambda st, p, a=a: a)

        for _ in range(10):
            await play_one()
        posts = service.herald.posts

        async def slow_posts(*args: Any, **kwargs: Any) -> Any:  # pictures drawn in a thread: others run
            out = await posts(*args, **kwargs)
            await asyncio.sleep(0.2)
            return out

        service.herald.posts = slow_posts  # type: ignore[method-assign]
        before = await storage.get_game(game.id)
        move = asyncio.create_task(play_one())
        await asyncio.sleep(0.1)
        assert (await service.games.history(before)).seq == before.action_count
        await move
        service.herald.posts = posts  # type: ignore[method-assign]
        now = await storage.get_game(game.id)
        both = await asyncio.gather(service.games.history(now), service.games.history(now))
        stored = [r.seq for r in await storage.list_actions(game.id)]
        for h in both:
            assert h.seq == now.action_count and [r.seq for r, _, _ in h.actions] == stored
    finally:
        await storage.close()


async def test_a_state_is_remembered_by_its_snapshot_not_only_its_count(tmp_path: Path) -> None:
    """An undo and another move give the same count of actions with another position: the cached
    state of the first must not be served for the second."""
    from dataclasses import replace

    from rules import apply, to_json

    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    service = Tiempo(storage, Silent(), render=False, seed_source=lambda: 4)
    people = [Caller(1, 1, 100 + i, name) for i, name in enumerate(["alice", "bob"])]
    try:
        game = await seated_game(service, storage, people)
        state = service.state_of(game)
        one, other = legal_actions(state)[:2]
        first, second = apply(state, one)[0], apply(state, other)[0]
        assert first != second
        games = Games(storage, clock=lambda: 0.0)
        assert games.state_of(replace(game, action_count=1, snapshot=to_json(first))) == first
        assert games.state_of(replace(game, action_count=1, snapshot=to_json(second))) == second
    finally:
        await storage.close()


@pytest.mark.parametrize("reads", ["history", "turn_events"])
async def test_what_a_reader_worked_out_during_an_undo_is_not_kept(tmp_path: Path, reads: str) -> None:
    """A reader outside the lock (``/tiempo log``, ``/tiempo board``) loads the history while the
    actor takes the action back and another action brings the count back: what it worked out must not
    be cached (the history, or the turn's events), or the undone action would stay in it."""
    from bot.play import Refusal as Refused
    from rules import EndTurn

    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    service = Tiempo(storage, Silent(), render=False, seed_source=lambda: 6)
    people = [Caller(1, 1, 100 + i, name) for i, name in enumerate(["ana", "ben"])]
    rng = random.Random(1)
    raced = False
    try:
        game = await seated_game(service, storage, people)
        for _ in range(40):
            game = await storage.get_game(game.id)
            state = service.state_of(game)
            action = rng.choice([a for a in legal_actions(state) if not isinstance(a, EndTurn)]
                                or legal_actions(state))
            await service.moves.play_action(people[action.player], game.id, version_of(game),
                                            lambda s, p, a=action: a)
            game = await storage.get_game(game.id)
            service.games._histories.clear()
            gate, read = asyncio.Event(), storage.list_actions
            calls = 0

            async def slow(game_id: int, *, after: int = 0, read: Any = read, gate: asyncio.Event = gate) -> Any:
                nonlocal calls
                calls += 1
                rows = await read(game_id, after=after)
                if calls == 1:  # the reader's: it waits while the undo runs
                    await gate.wait()
                return rows

            storage.list_actions = slow  # type: ignore[method-assign]
            service.games._turns.clear()
            reader = asyncio.create_task(getattr(service.games, reads)(game))
            await asyncio.sleep(0)
            try:
                await service.moves.undo(people[action.player], game.id)
                raced = True
            except Refused:
                pass
            if raced:  # another action brings the count back, before the reader stores anything
                game = await storage.get_game(game.id)
                state = service.state_of(game)
                other = legal_actions(state)[-1]
                await service.moves.play_action(people[other.player], game.id, version_of(game),
                                                lambda s, p, o=other: o)
            gate.set()
            await reader
            storage.list_actions = read  # type: ignore[method-assign]
            if raced:
                break
        assert raced
        game = await storage.get_game(game.id)
        h = await service.games.history(game)
        assert [r.action for r, _, _ in h.actions] == [r.action for r in await storage.list_actions(game.id)]
        assert await service.games.turn_events(game) == await _from_history(storage, game.id)
    finally:
        await storage.close()


async def _began_from_history(storage: Storage, game_id: int) -> Any:
    """The position the last action's turn began from, as a bot that just started finds it (by replay)."""
    fresh = Games(storage, clock=lambda: 0.0)
    return await fresh.turn_began(await storage.get_game(game_id))


@pytest.mark.parametrize("seed", [4, 11])
async def test_the_position_a_turn_began_from_is_kept_as_the_history_says_through_undos(tmp_path: Path,
                                                                                        seed: int) -> None:
    """The end-of-turn post compares the position after the turn with the one it began from (who was
    hurt). That position is kept as actions are stored; it must always be the one the history gives,
    through undos and with a cold cache."""
    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    try:
        async for step, games, game in _random_play_with_undos(storage, seed, 45, undos=2, ends_of_turn=4):
            assert await games.turn_began(game) == await _began_from_history(storage, game.id), step
    finally:
        await storage.close()


async def test_an_end_of_turn_does_not_replay_the_game(tmp_path: Path) -> None:
    """Once a game's turn start is kept, ending turns reads neither the history nor the actions stored
    (a busy bot keeps fewer histories than it serves games: a replay at each end of turn grows with
    the game)."""
    from rules import EndTurn

    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    service = Tiempo(storage, Silent(), render=False, seed_source=lambda: 4)
    people = [Caller(1, 1, 100 + i, name) for i, name in enumerate(["alice", "bob", "cy"])]
    try:
        game = await seated_game(service, storage, people)

        async def end_turn() -> None:
            g = await storage.get_game(game.id)
            s = service.state_of(g)
            end = next(a for a in legal_actions(s) if isinstance(a, EndTurn))
            await service.moves.play_action(people[end.player], g.id, version_of(g), lambda st, p, a=end: a)

        await end_turn()  # (the first one finds the turn start by replay, and keeps it)
        service.games._histories.clear()
        listed = storage.list_actions
        reads: list[int] = []

        async def counting(*args: Any, **kwargs: Any) -> Any:
            reads.append(1)
            return await listed(*args, **kwargs)

        storage.list_actions = counting  # type: ignore[method-assign]
        for _ in range(5):
            await end_turn()
        assert reads == []
    finally:
        await storage.close()

"""The review after the game names only turns their player played (bot/service/review.py; docs/ai.md):
a turn the AI played for a person away, or in which the turn clock played for them when their time
was up, is stored as ``PLAYED_FOR_SEAT`` and left out of their review, which says how many were; the
person's own turns are still reviewed, and the replay and the game's log of such a game work as ever."""

from __future__ import annotations

import asyncio
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.ai import Analysis
from bot.service import Caller, Reply, Tiempo, version_of
from bot.service.clock import safe_action
from bot.service.games import Games
from bot.service.replay import Step, cut
from bot.storage import PLAYED_FOR_SEAT, ActionRecord, Storage
from bot.words import PLAIN, render
from rules import Action, GameState, legal_actions
from tests.support.clocks import Clock
from tests.support.gameplay import choose
from tests.support.replayed import Silent

ANA, BEN = Caller(1, 1, 100, "Ana"), Caller(1, 1, 101, "Ben")
#: play-outs a turn and common deals (the bot's own review makes more)
ITERATIONS = 2
DEALS = 2


@dataclass
class AI:
    """A stand-in for the AI players: the safe action, noting each turn it played a seat's own turn in."""

    turns: set[tuple[int, int]] = field(default_factory=set)  # (seat, state.turn)

    def __call__(self, state: GameState, seat: int, level: str, *, seed: int, budget_s: float = 2.0) -> Action:
        if state.active == seat:
            self.turns.add((seat, state.turn))
        action = safe_action(state)
        assert action is not None
        return action


@dataclass
class Played:
    """The game played, as stored: Ana's seat, her turns (``GameState.turn``) and those of them the AI
    or the clock played for her, her review's parts, the turns each ``analyse`` call judged (seat,
    turn), the log as stored, the replay of every step, and the game's log."""

    ana: int
    hers: set[int]
    played_for: set[int]
    parts: tuple[Reply, ...]
    judged: list[tuple[int, int]]
    records: list[ActionRecord]
    replays: list[Reply]
    log: Reply
    steps: list[Step]
    unmarked: tuple[Step, ...]
    restarted: tuple[Step, ...]


async def _drive(service: Tiempo, storage: Storage, clock: Clock, ai: AI) -> tuple[int, int, set[int], set[int]]:
    """Ana and Ben play random legal moves (a one-minute turn limit; seven turns each), but for Ana's
    2nd turn, which times out at once, her 4th, in which she acts once before it times out, and her
    5th and 6th, which the AI plays while she is away (she is back in Ben's turn after them). The
    game's id, Ana's seat, her turns and those the clock played for her."""
    rng = random.Random(6)
    await service.new(ANA, turn_minutes=1)
    await service.join(BEN)
    await service.start_game(ANA)
    game = (await storage.list_games())[-1]
    ana = next(i for i, s in enumerate(game.seats) if s.user_id == ANA.user_id)
    callers = {ana: ANA, 1 - ana: BEN}
    hers: list[int] = []  # Ana's turns she is asked to play, in order
    clocked: set[int] = set()
    away = False
    begun = 0  # the count of actions when Ana's latest turn began
    while True:
        await service.idle()
        game = await storage.get_game(game.id)
        state = service.state_of(game)
        if state.finished:
            return game.id, ana, set(hers) | {t for s, t in ai.turns if s == ana}, clocked
        if state.active == ana and state.turn not in hers:
            hers.append(state.turn)
            begun = game.action_count
            if len(hers) == 5:
                away = True
                await service.away(ANA)
                continue
        if state.active == ana and state.turn == hers[-1] and (
                len(hers) == 2 or (len(hers) == 4 and game.action_count > begun)):
            clocked.add(state.turn)
            clock.now += 61
            await service.tick()
            continue
        if away and state.active != ana and sum(s == ana for s, _ in ai.turns) >= 2:
            away = False
            await service.back(ANA)
        action = choose(rng, state, legal_actions(state))
        await service.standins.present(callers[action.player], game.id)  # as a front end does before a move
        await service.moves.play_action(callers[action.player], game.id, version_of(game),
                                        lambda s, p, a=action: a)


async def _play(path: Path) -> Played:
    """The game of ``_drive``, then Ana's review, the replay of each of its steps and its log."""
    clock, ai = Clock(), AI()
    storage = await Storage.open(str(path))
    service = Tiempo(storage, Silent(), render=False, seed_source=lambda: 6, clock=clock, choose_ai=ai)
    service.reviews.iterations, service.reviews.deals = ITERATIONS, DEALS
    try:
        game_id, ana, hers, clocked = await _drive(service, storage, clock, ai)
        judged: list[tuple[int, int]] = []
        analyse_before = service.reviews.analyse

        async def kept(state: GameState, seat: int, **kwargs: object) -> Analysis:
            judged.append((seat, state.turn))
            return await analyse_before(state, seat, **kwargs)

        service.reviews.analyse = kept
        parts = await service.review(ANA, game_id)
        game = await storage.get_game(game_id)
        line = await service.replays.timeline(game)
        replays = [await service.replay(ANA, game_id, i) for i in range(len(line.steps))]
        log = await service.game_log(ANA, 40)
        fresh = await Games(storage, clock=clock).history(game)
        first, actions = service.games.first_state(game), [(a, e) for _, a, e in fresh.actions]
        unmarked = cut(first, actions)
        restarted = cut(first, actions, {i for i, (r, _, _) in enumerate(fresh.actions) if r.played_for_seat})
        return Played(ana, hers, {t for s, t in ai.turns if s == ana} | clocked, parts, judged,
                      await storage.list_actions(game_id), replays, log, list(line.steps), unmarked,
                      restarted)
    finally:
        await service.close()
        await storage.close()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    return asyncio.run(_play(tmp_path_factory.mktemp("played_for") / "games.sqlite3"))


def plain(reply: Reply) -> str:
    return render(reply.text, PLAIN)


def test_the_turns_played_for_a_person_are_stored_as_such_and_theirs_as_theirs(played: Played) -> None:
    """Both time-outs and the two turns away were played for Ana, and no other of her seven turns; every
    action of the log is Ana's, Ben's or played for a seat."""
    assert len(played.hers) == 7 and len(played.played_for) == 4 and played.played_for < played.hers
    actors = {r.actor_id for r in played.records}
    assert actors == {ANA.user_id, BEN.user_id, PLAYED_FOR_SEAT}
    marked = {s.before.turn for s in played.steps[1:] for i in s.played_for if s.actions[i][1].player == played.ana}
    assert marked == played.played_for


def test_the_review_judges_and_names_only_the_turns_a_person_played(played: Played) -> None:
    """No analysis of a turn played for Ana, one of every other whole turn of hers; the turns named are
    among hers; her part says four were played for her."""
    whole = {s.before.turn for s in played.steps[1:] if s.player == played.ana and s.complete
             and s.before.pending is None and s.before.waiting_on == s.player}
    judged = {t for seat, t in played.judged if seat == played.ana}
    assert played.played_for <= whole
    assert judged == whole - played.played_for and len(judged) == 3
    said = plain(played.parts[0])
    assert "The AI or the turn clock played 4 of Ana (Red)'s turns for them (in whole or in part): they are not " \
           "reviewed." in said
    named = {int(n) for n in re.findall(r"Round \d+, turn (\d+):", said)}
    by_index = {s.index: s.before.turn for s in played.steps}
    assert not {by_index[n] for n in named} & played.played_for


def test_a_game_played_in_part_for_a_person_replays_as_ever(played: Played) -> None:
    """The replay's steps are those of the log without the marks (the same actions, narration and
    turns), with the same marks as a bot just started finds in storage; each step is shown, and the
    game's log tells every action."""
    assert [(s.index, s.before.turn, s.actions, s.narration) for s in played.steps] == \
           [(s.index, s.before.turn, s.actions, s.narration) for s in played.unmarked]
    assert not any(s.played_for for s in played.unmarked)
    assert [s.played_for for s in played.restarted] == [s.played_for for s in played.steps]
    assert len(played.replays) == len(played.steps) and all(plain(r) for r in played.replays)
    assert plain(played.log)

"""Random legal play shared by the property tests, benchmarks and AI tests, and a position at the start of
a turn reached by greedy play (``greedy_turn_start``)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from bot.ai import GreedyPlayer
from rules import (
    Action,
    Cell,
    EndTurn,
    GameMap,
    GameState,
    Options,
    RuleError,
    apply,
    legal_actions,
    new_game,
    plain_map,
)
from rules.events import Event

#: a small plain map with some terrain and hamlets, used where the default map is not the point
TEST_HAMLETS = (Cell(2, 2), Cell(7, 3), Cell(11, 8), Cell(4, 9), Cell(9, 10), Cell(13, 1))


def test_map() -> GameMap:
    base = plain_map(15, 12, TEST_HAMLETS)
    codes = list(base.codes)
    for col, row, code in [(5, 5, "f"), (6, 5, "m"), (5, 6, "M"), (10, 2, "~"), (10, 3, "~"), (10, 4, "R"),
                           (3, 6, "F"), (12, 6, "P"), (1, 11, "W")]:
        codes[row * 15 + col] = code
    return GameMap("test", 15, 12, "".join(codes), TEST_HAMLETS)


@dataclass
class Step:
    before: GameState
    action: Action
    after: GameState
    events: list[Event]


def choose(r: random.Random, state: GameState, acts: list[Action]) -> Action:
    """A random legal action, biased away from ending the turn so that games fill the boards."""
    ends = [a for a in acts if isinstance(a, EndTurn)]
    others = [a for a in acts if not isinstance(a, EndTurn)]
    if others and (not ends or r.random() < 0.8):
        return r.choice(others)
    return r.choice(ends)


def random_game(seed: int, players: int, holdem: bool, game_map: GameMap | None = None) -> Iterator[Step]:
    """Play a whole random game, yielding every step."""
    r = random.Random(seed)
    state = new_game([f"P{i + 1}" for i in range(players)], seed=seed, options=Options(holdem=holdem),
                     game_map=game_map or test_map())
    while not state.finished:
        action = choose(r, state, legal_actions(state))
        after, events = apply(state, action)
        yield Step(state, action, after, events)
        state = after


def accepted(s: GameState, a: Action) -> bool:
    """Whether ``apply`` accepts ``a``; either way ``s`` is unchanged, and a refusal is a RuleError
    with a code and a sentence."""
    before = s.clone()
    try:
        apply(s, a)
    except RuleError as err:
        assert str(err) and err.code
        assert s == before, "a refused action changed the state"
        return False
    assert s == before, "apply changed the state it was given"
    return True


def greedy_turn_start(players: int, seed: int, steps: int) -> GameState:
    """A new game of ``players`` played by the greedy level for ``steps`` actions, then on to the start
    of a turn (no decision pending, nothing done yet in the turn)."""
    greedy = GreedyPlayer()
    s = new_game([f"p{i}" for i in range(players)], seed=seed)
    for _ in range(steps):
        s, _ = apply(s, greedy.choose(s, s.waiting_on, seed=1))
    while s.pending is not None or s.acted:
        s, _ = apply(s, greedy.choose(s, s.waiting_on, seed=1))
    return s

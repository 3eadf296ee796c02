"""The evaluation's quick ways give what its plain ones give: ``values`` (every player's value, the
position read once, for ``score``) is ``value`` of each player, to the last bit, in every position of
random games of 2–5 players, with the greedy and the strong levels' weights; the facts of a board
reached by a move, read from the facts before it, are the facts read afresh."""

from __future__ import annotations

import pytest

from bot.ai import GreedyPlayer
from bot.ai.common import candidates
from bot.ai.evaluate import DEFAULT, facts, facts_after, value, values
from bot.ai.levels import STRONG_WEIGHTS
from rules import RuleError, apply
from tests.support.gameplay import greedy_turn_start, random_game


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_value_at_once_is_each_players_value(players: int) -> None:
    checked = 0
    for step in random_game(10 + players, players, holdem=players % 2 == 0):
        s = step.after
        f = facts(s)
        for w in (DEFAULT, STRONG_WEIGHTS):
            assert values(s, w, f) == [value(s, j, w, f) for j in range(players)]
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("players", [3, 4])
def test_facts_after_an_action_are_the_facts_read_afresh(players: int) -> None:
    """``facts_after`` (a domain kept as it was pays as it did) gives the facts read from scratch, after
    every candidate move of every position of a greedy game."""
    s = greedy_turn_start(players, 70 + players, 0)
    greedy = GreedyPlayer()
    checked = 0
    while not s.finished and s.round <= 5:
        if s.pending is None:
            known = facts(s)
            for a in candidates(s, s.active):
                try:
                    after, _ = apply(s, a)
                except RuleError:
                    continue
                assert facts_after(s, known, after) == facts(after)
                checked += 1
        s, _ = apply(s, greedy.choose(s, s.waiting_on, seed=1))
    assert checked > 300


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_facts_after_every_action_of_a_random_game_are_the_facts_read_afresh(players: int) -> None:
    """Also after populating and renovating on Reason (a building changed in place) and decisions."""
    known = None
    for step in random_game(20 + players, players, holdem=players % 2 == 1):
        known = facts(step.before) if known is None else known
        after = facts_after(step.before, known, step.after)
        assert after == facts(step.after)
        known = after

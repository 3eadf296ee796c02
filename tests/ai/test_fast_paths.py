"""The evaluation's quick ways give what its plain ones give: ``values`` (every player's value, the
position read once, for ``score``) is ``value`` of each player, to the last bit, in every position of
random games of 2–5 players, with the greedy and the strong levels' weights."""

from __future__ import annotations

import pytest

from bot.ai.evaluate import DEFAULT, facts, value, values
from bot.ai.levels import STRONG_WEIGHTS
from tests.support.gameplay import random_game


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

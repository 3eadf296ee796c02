"""The fitted evaluation (``bot.ai.evaluate.features``, ``fitted_value``, ``fitted_score``) and the
master level's switch between it and the strong level's (``bot.ai.search.EVALUATION``)."""

from __future__ import annotations

import time

import pytest

from bot.ai import GreedyPlayer, search
from bot.ai.common import project
from bot.ai.evaluate import FEATURES, FITTED, facts, features, fitted_score, fitted_value, score, turns_left, value
from bot.ai.levels import STRONG_WEIGHTS
from rules import apply
from tests.support.gameplay import greedy_turn_start


def test_the_table_covers_every_round_for_two_to_four_players_and_an_ecu_stays_an_ecu() -> None:
    assert set(FITTED) == {(n, r) for n in (2, 3, 4) for r in range(1, 8)}
    for coefficients in FITTED.values():
        assert len(coefficients) == len(FEATURES)
        assert coefficients[FEATURES.index("ecus")] == 1.0


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_move_of_a_turn_is_judged_with_the_same_turns_to_come(players: int) -> None:
    """The turns still to begin do not change during a turn (a move must not look like the loss of a
    turn); a player's count drops by one when his turn begins."""
    s = greedy_turn_start(players, seed=71, steps=2 * players)
    seat, greedy = s.active, GreedyPlayer()
    before = [turns_left(s, p) for p in range(players)]
    while s.active == seat and not s.finished:
        assert [turns_left(s, p) for p in range(players)] == before
        s, _ = apply(s, greedy.choose(s, s.waiting_on, seed=1))
    assert s.active != seat
    if s.active != s.first:  # the same round: the next player's turn has begun, the others' are as they were
        after = [turns_left(s, p) for p in range(players)]
        assert after == [before[p] - (p == s.active) for p in range(players)]


def test_the_fitted_value_is_the_sum_of_its_features_and_an_ended_game_its_ecus() -> None:
    s = greedy_turn_start(3, seed=72, steps=9)
    f = facts(s)
    for p in range(3):
        x = features(s, p, f)
        assert x[FEATURES.index("ecus")] == s.players[p].ecus
        c = FITTED[(3, s.round)]
        assert fitted_value(s, p, f) == pytest.approx(sum(a * b for a, b in zip(c, x, strict=True)))
    others = [fitted_value(s, j) for j in (1, 2)]
    assert fitted_score(s, 0) == pytest.approx(fitted_value(s, 0) - 0.5 * max(others))
    ended = s.clone()
    ended.finished = True
    assert [fitted_value(ended, p) for p in range(3)] == [float(p.ecus) for p in s.players]


def test_an_ecu_more_is_worth_an_ecu_more_to_the_seat_and_half_one_less_as_the_leaders() -> None:
    s = greedy_turn_start(3, seed=73, steps=6)
    leader = max(range(3), key=lambda p: fitted_value(s, p))
    seat = next(p for p in range(3) if p != leader)
    richer, rival_richer = s.clone(), s.clone()
    richer.players[seat].ecus += 1
    rival_richer.players[leader].ecus += 1
    assert fitted_score(richer, seat) == pytest.approx(fitted_score(s, seat) + 1)
    assert fitted_score(rival_richer, seat) == pytest.approx(fitted_score(s, seat) - 0.5)


def test_the_master_level_judges_by_the_evaluation_its_switch_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """Strong's by default (the fitted one won no more games); the fitted one or the tuned weights
    when the switch names them, at the leaves and in the root's ranking alike."""
    s = greedy_turn_start(4, seed=74, steps=8)
    seat = s.active
    assert search.EVALUATION == "strong"
    assert search.evaluation(s, seat) == score(s, seat, STRONG_WEIGHTS)
    assert search.estimate(s, seat) == value(s, seat, STRONG_WEIGHTS)
    monkeypatch.setattr(search, "EVALUATION", "tuned")
    assert search.evaluation(s, seat) == score(s, seat, search.TUNED_WEIGHTS)
    monkeypatch.setattr(search, "EVALUATION", "fitted")
    assert search.evaluation(s, seat) == pytest.approx(fitted_score(s, seat))
    assert search.estimate(s, seat) == pytest.approx(fitted_value(s, seat))
    view = project(s, seat)
    plans = search.root_plans(view, seat, deadline=float("inf"), clock=time.perf_counter)
    best, prior = plans[0]
    assert prior == max(p for _, p in plans), "the anchor is the plan the fitted evaluation rates best"
    assert prior == pytest.approx(search.evaluation(search._led_to(view.state, best), seat))

"""The master level's switches for experiments on aiming at the leading rival (``search.RIVALRY``) and
on plans that make a domain's income safe (``search.FIRM_PLANS``): off, the level plays as before
(``test_master_choices`` checks that); on, they do what they say."""

from __future__ import annotations

import time

import pytest

from bot.ai import search
from bot.ai.common import project
from bot.ai.evaluate import facts, value, values
from bot.ai.levels import STRONG_WEIGHTS, beam_plans
from rules import Exchange
from tests.support.gameplay import greedy_turn_start


def test_with_full_rivalry_the_score_is_the_lead_over_the_best_placed_rival(monkeypatch: pytest.MonkeyPatch) -> None:
    s = greedy_turn_start(3, seed=81, steps=7)
    seat = s.active
    every = [value(s, p, STRONG_WEIGHTS) for p in range(3)]
    best = max(v for p, v in enumerate(every) if p != seat)
    assert search.evaluation(s, seat) == pytest.approx(every[seat] - 0.5 * best)
    monkeypatch.setattr(search, "RIVALRY", {3: 1.0})
    assert search.evaluation(s, seat) == pytest.approx(every[seat] - best)
    leader = next(p for p, v in enumerate(every) if p != seat and v == best)
    richer = s.clone()
    richer.players[leader].ecus += 1
    assert search.evaluation(richer, seat) == pytest.approx(search.evaluation(s, seat) - 1)


def test_rivalry_is_set_by_number_of_players(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "RIVALRY", {3: 1.0})
    s = greedy_turn_start(4, seed=82, steps=8)
    seat = s.active
    every = values(s, STRONG_WEIGHTS, facts(s))
    best = max(v for p, v in enumerate(every) if p != seat)
    assert search.weights(4) is STRONG_WEIGHTS
    assert search.evaluation(s, seat) == pytest.approx(every[seat] - 0.5 * best)


def test_firm_plans_join_the_root_after_the_second_and_leave_the_anchor(monkeypatch: pytest.MonkeyPatch) -> None:
    s = greedy_turn_start(3, seed=83, steps=12)
    seat = s.active
    view = project(s, seat)
    before = search.root_plans(view, seat, deadline=float("inf"), clock=time.perf_counter)
    monkeypatch.setattr(search, "FIRM_PLANS", 2)
    after = search.root_plans(view, seat, deadline=float("inf"), clock=time.perf_counter)
    added = [a for a, _ in after if all(a != b for b, _ in before)]
    assert [a for a, _ in after if any(a == b for b, _ in before)] == [a for a, _ in before]
    assert after[0] == before[0] and after[1] == before[1]
    assert 1 <= len(added) <= 2
    firm = beam_plans(view.state, seat, width=search.BEAM_WIDTH, depth=search.BEAM_DEPTH, deadline=float("inf"),
                      keep=search.ROOT_PLANS, clock=time.perf_counter, weights=search.FIRM_WEIGHTS)
    assert all(any(list(a) == p.actions for p in firm) for a in added)


def test_distinct_boards_leave_no_two_root_plans_that_differ_only_in_the_pawns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside an income round a travel at the end of a plan changes nothing but the seat's Ecus and
    pawns: with the switch the root's plans are different turns, the anchor the same."""
    s = greedy_turn_start(3, seed=84, steps=6)
    seat = s.active
    assert s.round not in (4, 7)
    view = project(s, seat)
    before = search.root_plans(view, seat, deadline=float("inf"), clock=time.perf_counter)
    monkeypatch.setattr(search, "DISTINCT_BOARDS", True)
    after = search.root_plans(view, seat, deadline=float("inf"), clock=time.perf_counter)
    assert after[0] == before[0]
    keys = []
    for actions, _ in after:
        if actions and isinstance(actions[0], Exchange):
            continue
        end = search._led_to(view.state, actions)
        me = end.players[seat]
        keys.append((tuple(frozenset(board.buildings.values()) for board in end.boards), me.hand, me.supply))
    assert len(keys) == len(set(keys))
    assert len(after) >= len(before) - 1

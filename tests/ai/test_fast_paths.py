"""The evaluation's quick ways give what its plain ones give: ``values`` (every player's value, the
position read once, for ``score``) is ``value`` of each player, to the last bit, in every position of
random games of 2–5 players, with the greedy and the strong levels' weights; the facts of a board
reached by a move, read from the facts before it, are the facts read afresh; what a search keeps of
its play-outs' greedy steps (``levels.Effects``) changes none of their moves."""

from __future__ import annotations

import time
from typing import Any

import pytest

from bot.ai import GreedyPlayer, levels
from bot.ai.common import candidates, project
from bot.ai.evaluate import DEFAULT, facts, facts_after, score, value, values
from bot.ai.levels import STRONG_WEIGHTS
from bot.ai.search import Search, root_plans
from rules import Action, GameState, RuleError, Travel, apply, new_game
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


def _search_positions(players: int, rounds: tuple[int, ...] = (2, 3, 5, 6)) -> list[tuple[GameState, int]]:
    """Turn starts of greedy games of ``players`` players in ``rounds`` (the seat to move)."""
    greedy = GreedyPlayer()
    out = []
    for r in rounds:
        s = new_game([f"p{i}" for i in range(players)], seed=90 + 7 * players + r)
        while s.round < r or s.pending is not None or s.acted:
            s, _ = apply(s, greedy.choose(s, s.waiting_on, seed=1))
        out.append((s, s.active))
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_kept_effects_change_no_greedy_move_of_a_search(players: int) -> None:
    """``Effects`` (what the play-outs' greedy steps judged, kept for the search's later play-outs) is
    only a shortcut: every greedy step of a search's play-outs chooses the same move with the effects
    kept since the search began as without any, and the search's play-outs score the same."""
    steps = 0
    kept_moves = kept_steps = 0
    plain = levels._greedy_step

    def both(s: GameState, seat: int, per_signature: int, travel: bool, choose: Any, effects: Any,
             where: tuple[object, ...]) -> Action:
        nonlocal steps
        found = plain(s, seat, per_signature, travel, choose, effects, where)
        assert found == plain(s, seat, per_signature, travel, choose, None, ()), (s.round, seat)
        steps += 1
        return found

    for s, seat in _search_positions(players):
        view = project(s, seat)
        plans = root_plans(view, seat, deadline=float("inf"), clock=time.perf_counter)
        scores = []
        for keep in (True, False):
            found = Search(view, seat, [(list(a), v) for a, v in plans], seed=5)
            if not keep:
                found.effects = None
            with pytest.MonkeyPatch.context() as mp:
                mp.setattr(levels, "_greedy_step", both)
                for _ in range(8):
                    found.play(found.next_plan(), time.process_time)
            if keep:
                assert found.effects is not None
                kept_moves += len(found.effects.moves)
                kept_steps += sum(1 for _ in found.effects.steps)
            scores.append(found.samples)
        assert scores[0] == scores[1]
    assert steps > 100
    assert kept_moves > 500 and kept_steps > 20


@pytest.mark.parametrize("players", [3, 4])
def test_a_kept_move_scores_as_the_move_played(players: int) -> None:
    """What ``Effects`` keeps of a move (the boards' facts it leads to, what it changes of every player)
    scores the position the move leads to exactly, judged by every player, from another position with
    the same boards, stock and cubes."""
    checked = 0
    for s, seat in _search_positions(players, tuple(range(1, 8))):
        known = facts(s)
        for a in candidates(s, seat):
            after = levels._after(s, a, levels._first_option)
            if after is None:
                continue
            effect = levels._effect(s, after, facts_after(s, known, after), levels.Effects())
            if effect is None:
                assert isinstance(a, Travel) or after.pending is not None
                continue
            for j in range(players):
                assert score(s, j, known=effect[0], moved=effect[1]) == score(after, j)
            checked += 1
    assert checked > 150

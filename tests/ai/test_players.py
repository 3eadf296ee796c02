"""AI players (bot/ai): complete games between every level for 2–5 players, legality of every action,
decisions answered, the information each level may use, determinism, the strong player's budget and
helper processes, the bot's AI worker, the evaluation's income against the engine's ``rules.income``,
and the shape of the package (no module-level state; tests/app/test_layout.py checks imports)."""

from __future__ import annotations

import ast
import concurrent.futures
import contextlib
import functools
import json
import multiprocessing
import os
import random
import subprocess
import sys
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest

from bot.ai import (
    LEVEL_NAMES,
    LEVELS,
    AIWorker,
    GreedyPlayer,
    Helpers,
    MasterPlayer,
    Players,
    RandomPlayer,
    StrongPlayer,
    WorkerDied,
    analyse,
    get_level,
    make_player,
)
from bot.ai import helpers as helpers_module
from bot.ai.evaluate import board_facts, score
from bot.ai.levels import PlayoutTimes, play_rounds
from rules import (
    Action,
    Age,
    Choose,
    Construct,
    EndTurn,
    GameState,
    Options,
    Upgrade,
    View,
    apply,
    income,
    legal_actions,
    new_game,
    view_for,
)
from tests.support.gameplay import greedy_turn_start, random_game
from tests.support.hidden import reshuffle_hidden

ROOT = Path(__file__).resolve().parents[2]
AI_DIR = ROOT / "bot" / "ai"
STRONG_ITERATIONS = 2

#: every level, the strong one in the full suite only (its look-ahead takes seconds)
QUICK_LEVELS = [pytest.param(n, marks=pytest.mark.slow) if n in ("strong", "master") else n for n in LEVEL_NAMES]


class Ticks:
    """A clock for a strong player that moves on ``step`` seconds each time it is read, so that its
    budget is spent the same way on any machine."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def _play(levels: list[str], seed: int, holdem: bool = False) -> tuple[GameState, dict[str, int]]:
    """A whole game between ``levels`` (seat order); every action is checked against ``legal_actions``."""
    s = new_game([f"{lv}{i}" for i, lv in enumerate(levels)], seed=seed, options=Options(holdem=holdem))
    players = Players()
    kinds: dict[str, int] = {}
    steps = 0
    while not s.finished:
        who = s.waiting_on
        a = players.choose(s, who, levels[who], seed=seed + s.turn, iterations=STRONG_ITERATIONS)
        assert a in legal_actions(s), f"{levels[who]} chose {a}, which is not a legal action"
        if s.pending is not None:
            assert isinstance(a, Choose) and a.player == s.pending.decision.player
            kinds["Choose"] = kinds.get("Choose", 0) + 1
        s, _ = apply(s, a)  # raises RuleError if refused
        kinds[type(a).__name__] = kinds.get(type(a).__name__, 0) + 1
        steps += 1
        assert steps < 2000, "the game does not end"
    return s, kinds


@pytest.mark.slow
@pytest.mark.parametrize(
    ("levels", "seed", "holdem"),
    [
        (["strong", "random"], 11, False),
        (["random", "greedy", "strong"], 12, False),
        (["greedy", "strong", "random", "greedy"], 13, True),
        (["random", "random", "greedy", "greedy", "strong"], 14, False),
        (["master", "strong"], 15, False),
        (["greedy", "master", "random", "strong"], 16, True),
    ],
)
def test_complete_games_between_all_levels_end_with_a_ranking(levels: list[str], seed: int, holdem: bool) -> None:
    s, kinds = _play(levels, seed, holdem)
    assert s.finished and s.round == 7
    assert s.winners, "a finished game names its winners (R22)"
    best = max(p.ecus for p in s.players)
    assert set(s.winners) == {i for i, p in enumerate(s.players) if p.ecus == best}
    assert kinds.get("EndTurn", 0) == 7 * len(levels), "every seat ended each of its 7 turns"
    assert kinds.get("Construct", 0) + kinds.get("Upgrade", 0) > 0


@pytest.mark.slow
def test_greedy_and_strong_outscore_random_in_a_seeded_game() -> None:
    s, _ = _play(["random", "greedy", "strong"], 21)
    assert s.players[1].ecus > s.players[0].ecus
    assert s.players[2].ecus > s.players[0].ecus


# ---------------------------------------------------------------------------------------------
# Decisions


@functools.cache
def decisions() -> tuple[GameState, ...]:
    """Positions waiting on a decision, from seeded random games on the test map: the first few
    addressed to the active player and the first few addressed to another player. (Of the games of
    seeds 0 to 39, these three have them.)"""
    own: list[GameState] = []
    other: list[GameState] = []
    for seed in (2, 5, 28):
        for step in random_game(seed, 3 + seed % 3, holdem=False):
            s = step.after
            if s.pending is None or s.finished:
                continue
            if s.pending.decision.player == s.active and len(own) < 3:
                own.append(s)
            elif s.pending.decision.player != s.active and len(other) < 3:
                other.append(s)
        if len(own) >= 3 and len(other) >= 3:
            break
    return tuple(own + other)


def test_decision_positions_include_another_players_decision() -> None:
    assert any(s.pending is not None and s.pending.decision.player != s.active for s in decisions())
    assert any(s.pending is not None and s.pending.decision.player == s.active for s in decisions())


@pytest.mark.parametrize("level", LEVEL_NAMES)
def test_every_level_answers_a_pending_decision_with_one_of_its_options(level: str) -> None:
    player = make_player(level)
    for s in decisions():
        assert s.pending is not None
        d = s.pending.decision
        a = player.choose(s, d.player, seed=3, iterations=STRONG_ITERATIONS)
        assert isinstance(a, Choose) and a.player == d.player and a.cell in d.options
        apply(s, a)


def test_a_seat_with_nothing_to_do_or_an_unknown_level_is_refused() -> None:
    s = new_game(["a", "b", "c"], seed=1)
    for level in LEVEL_NAMES:
        with pytest.raises(ValueError, match="nothing to do"):
            make_player(level).choose(s, (s.active + 1) % 3, seed=1)
    sentence = "'clever' is not an AI level: the levels are random, greedy, strong and master"
    for refuse in (lambda: make_player("clever"), lambda: get_level("clever"),
                   lambda: Players().choose(s, s.active, "clever", seed=1)):
        with pytest.raises(ValueError) as refused:
            refuse()
        assert str(refused.value) == sentence


# ---------------------------------------------------------------------------------------------
# Information hiding and determinism


@functools.cache
def hidden() -> tuple[GameState, ...]:
    """Positions from a seeded greedy game (turn starts and mid-turn) plus the decision positions."""
    out: list[GameState] = []
    greedy = GreedyPlayer()
    s = new_game(["a", "b", "c", "d"], seed=5)
    n = 0
    while not s.finished:
        if s.pending is None and n % 9 == 0 and s.round in (1, 3, 4, 6, 7):
            out.append(s)
        s, _ = apply(s, greedy.choose(s, s.waiting_on, seed=5))
        n += 1
    return (*out[:7], *decisions())


@pytest.mark.parametrize("level", QUICK_LEVELS)
def test_a_decision_does_not_change_when_hidden_information_does(level: str) -> None:
    """Other hands and the deck order are hidden (R24): dealing them differently, consistently with
    what the seat sees, must not change the action, for the same seed and iterations."""
    rng = random.Random(99)
    for s in hidden():
        seat = s.waiting_on
        alternatives = [reshuffle_hidden(s, seat, rng) for _ in range(2)]
        for t in alternatives:
            assert view_for(t, seat).state == view_for(s, seat).state
        assert any(
            t.deck != s.deck or any(t.players[j].hand != s.players[j].hand for j in range(len(s.players)))
            for t in alternatives
        ), "the reshuffle changed nothing hidden"
        expected = make_player(level).choose(s, seat, seed=8, iterations=STRONG_ITERATIONS)
        for t in alternatives:
            assert apply(t, expected), "the action is legal in the other deal too"
            got = make_player(level).choose(t, seat, seed=8, iterations=STRONG_ITERATIONS)
            assert got == expected, f"{level} changed its action when only hidden cards changed"


@pytest.mark.slow
@pytest.mark.parametrize(("level", "iterations"), [("strong", 8), ("master", 16)])
def test_look_ahead_with_more_play_outs_still_ignores_hidden_cards(level: str, iterations: int) -> None:
    """The same check with enough play-outs for the Monte Carlo comparison to weigh in, where a
    leak through the sampled deals would show most."""
    rng = random.Random(5)
    for s in (hidden()[2], hidden()[4]):
        seat = s.waiting_on
        expected = make_player(level).choose(s, seat, seed=12, iterations=iterations)
        t = reshuffle_hidden(s, seat, rng)
        assert make_player(level).choose(t, seat, seed=12, iterations=iterations) == expected


def test_the_reshuffle_does_change_what_a_player_who_could_see_it_would_do() -> None:
    """Control for the test above: a level given the whole state (projected for nobody) would see the
    difference — the deals really differ where it matters (another player's hand)."""
    rng = random.Random(7)
    s = hidden()[0]
    seat = s.waiting_on
    other = (seat + 1) % len(s.players)
    hands = {reshuffle_hidden(s, seat, rng).players[other].hand for _ in range(20)}
    assert len(hands) > 1


@pytest.mark.parametrize("level", QUICK_LEVELS)
def test_same_view_seed_and_iterations_give_the_same_action(level: str) -> None:
    for s in hidden()[:4]:
        a = make_player(level).choose(s, s.waiting_on, seed=4, iterations=STRONG_ITERATIONS)
        b = make_player(level).choose(s, s.waiting_on, seed=4, iterations=STRONG_ITERATIONS)
        assert a == b


def test_random_level_depends_on_the_seed() -> None:
    s = hidden()[1]
    player = RandomPlayer()
    picks = {player.choose(s, s.waiting_on, seed=k) for k in range(30)}
    assert len(picks) > 3


def test_strong_follows_its_plan_through_the_turn_and_ends_it() -> None:
    s = new_game(["a", "b", "c"], seed=31)
    seat = s.active
    player = StrongPlayer()
    actions = []
    while not s.finished and s.active == seat:
        a = player.choose(s, s.waiting_on, seed=1, iterations=STRONG_ITERATIONS)
        actions.append(a)
        s, _ = apply(s, a)
        assert len(actions) < 30
    assert isinstance(actions[-1], EndTurn)
    assert any(isinstance(a, (Construct, Upgrade)) for a in actions)


@pytest.mark.parametrize("same_seed", [True, False])
def test_a_strong_turn_keeps_to_its_time_budget(same_seed: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The budget is per turn, also when the caller passes a new seed at every call (no plan is
    found again then): a turn at 0.5 s is given at most 0.85 × 0.5 s of planning in all, and on the
    player's clock it plans for no longer than its budget. The clock counts work, not time — 1 ms
    at every reading, 50 ms more for every play-out — so the turn comes out the same on any machine."""
    from bot.ai import levels
    from bot.ai import players as players_module
    from bot.ai.players import TURN_CAP

    greedy = GreedyPlayer()
    s = new_game(["a", "b", "c", "d"], seed=41)
    for _ in range(30):  # into round 2, with buildings on the board
        s, _ = apply(s, greedy.choose(s, s.waiting_on, seed=1))
    seat = s.active
    clock = Ticks(0.001)
    play_out = levels._play_out

    def costly_play_out(det: GameState, seat: int, actions: list[Action]) -> float:
        clock.now += 0.05
        return play_out(det, seat, actions)

    plan = players_module.strong_plan
    given: list[float] = []
    taken: list[float] = []

    def timed_plan(*args: Any, time_s: float, **kwargs: Any) -> list[Action]:
        given.append(time_s)
        began = clock.now
        try:
            return plan(*args, time_s=time_s, **kwargs)
        finally:
            taken.append(clock.now - began)

    monkeypatch.setattr(levels, "_play_out", costly_play_out)
    monkeypatch.setattr(players_module, "strong_plan", timed_plan)
    player = StrongPlayer(clock=clock)
    calls = 0
    while not s.finished and s.waiting_on == seat and s.active == seat:
        s, _ = apply(s, player.choose(s, seat, seed=2 if same_seed else calls, budget_s=0.5))
        calls += 1
    assert calls >= 2
    assert given and sum(given) <= TURN_CAP * 0.5 + 1e-9
    assert sum(taken) <= 0.5
    assert player.playout_times.typical(4) == pytest.approx(0.051), "the length of its play-outs is remembered"
    if not same_seed:
        assert len(given) >= 2, "a new seed finds no plan: it plans again, from what is left of the budget"


_turn_start = functools.cache(greedy_turn_start)  # (several tests start from one position)


@pytest.mark.parametrize(("players", "rounds"), [(3, 2), (4, 1)])
def test_strong_play_outs_reach_its_next_turn_or_one_round_further(players: int, rounds: int) -> None:
    """With three players a play-out goes on for one more round after the seat's next turn; with
    four it stops at the seat's next turn."""
    from bot.ai.levels import _play_on, play_out_turn

    s = _turn_start(players, seed=43, steps=3 * players)
    seat, turn = s.active, s.turn
    end = _play_on(play_out_turn(s, seat, []), seat)
    assert end.active == seat and end.pending is None and not end.acted
    assert end.turn == turn + rounds * players


def test_two_strong_players_share_no_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    """A strong player answers the later calls of its turn from its own plan; another strong player
    has not seen that plan and makes its own."""
    from bot.ai import players as players_module

    planned: list[int] = []
    plan = players_module.strong_plan

    def counted(*args: Any, **kwargs: Any) -> list[Action]:
        planned.append(1)
        return plan(*args, **kwargs)

    monkeypatch.setattr(players_module, "strong_plan", counted)
    s = _turn_start(3, seed=31, steps=0)
    one, other = StrongPlayer(), StrongPlayer()
    first = one.choose(s, s.active, seed=1, iterations=STRONG_ITERATIONS)
    assert len(planned) == 1
    assert other.choose(s, s.active, seed=1, iterations=STRONG_ITERATIONS) == first
    assert len(planned) == 2, "the other player found a plan it did not make"
    if not isinstance(first, EndTurn):
        after, _ = apply(s, first)
        if after.pending is None and after.waiting_on == s.active:
            one.choose(after, s.active, seed=1, iterations=STRONG_ITERATIONS)
            assert len(planned) == 2, "the player did not follow its own plan"


# ---------------------------------------------------------------------------------------------
# The master level's search, and the analysis a hint or a review asks of it


@pytest.mark.slow  # (a whole search, game or animation: the full suite runs it)
def test_a_hint_is_the_same_whatever_the_other_hands_hold() -> None:
    """``analyse`` sees only the seat's view: with the other hands and the deck dealt differently
    (consistently with that view) it finds the same hint — action, value and alternatives — for the
    same seed and iterations."""
    rng = random.Random(17)
    for s in (_turn_start(3, seed=51, steps=6), _turn_start(4, seed=52, steps=12)):
        seat = s.active
        expected = analyse(s, seat, seed=9, iterations=8)
        assert expected.iterations == 8 and len(expected.alternatives) >= 2
        others = [reshuffle_hidden(s, seat, rng) for _ in range(2)]
        assert any(t.players[j].hand != s.players[j].hand for t in others for j in range(len(s.players)) if j != seat)
        for t in others:
            assert view_for(t, seat).state == view_for(s, seat).state
            assert analyse(t, seat, seed=9, iterations=8) == expected


@pytest.mark.slow  # (a whole search, game or animation: the full suite runs it)
def test_a_hint_is_what_the_master_level_plays_with_its_reasons() -> None:
    s = _turn_start(3, seed=53, steps=6)
    seat = s.active
    hint = analyse(s, seat, seed=4, iterations=8)
    assert hint.best_action in legal_actions(s)
    assert hint.best_action == MasterPlayer().choose(s, seat, seed=4, iterations=8)
    best = hint.best
    assert best.actions[0] == hint.best_action and best.visits >= 2 and hint.value == best.value
    assert hint.cost(best.actions) == 0.0
    assert best.income >= 0 and best.domains >= 0 and best.ecus > 0
    assert sum(alt.visits for alt in hint.alternatives) == hint.iterations


def test_a_decision_is_analysed_option_by_option() -> None:
    for s in decisions()[:2]:
        assert s.pending is not None
        d = s.pending.decision
        found = analyse(s, d.player, seed=2, iterations=4)
        assert isinstance(found.best_action, Choose) and found.best_action.cell in d.options
        assert {alt.actions[0] for alt in found.alternatives} <= {Choose(d.player, c) for c in d.options}


@pytest.mark.slow
def test_a_review_compares_the_turn_played_with_the_best_one() -> None:
    """The turn a player played, passed as ``extra``, is played out on the same deals as the best
    plan; its cost is the expected loss against it (0 for the best plan itself)."""
    s = _turn_start(3, seed=54, steps=6)
    seat = s.active
    played: list[Action] = []
    t = s
    while not t.finished and t.active == seat and t.waiting_on == seat:
        a = RandomPlayer().choose(t, seat, seed=len(played))
        if isinstance(a, EndTurn):
            break
        played.append(a)
        t, _ = apply(t, a)
    review = analyse(s, seat, seed=3, iterations=12, extra=[played])
    alt = review.find(played)
    assert alt is not None and alt.visits >= 2
    cost = review.cost(played)
    assert cost is not None and cost >= 0.0
    assert review.cost(review.best.actions) == 0.0
    assert review.cost([EndTurn(seat)]) is None or review.find([EndTurn(seat)]) is not None


@pytest.mark.parametrize("players", [2, 3, 4])
def test_master_never_plays_a_turn_the_evaluation_rates_below_greedys(players: int) -> None:
    """The greedy level's own turn is always one of the search's plans, and with no play-outs
    (``iterations=0``) master plays the plan the evaluation rates best, never one below greedy's."""
    from bot.ai.common import project
    from bot.ai.search import _prior, evaluation, greedy_plan, root_plans

    for steps in (2, 7, 12):
        s = _turn_start(players, seed=60 + steps, steps=steps * players)
        seat = s.active
        state = project(s, seat).state
        greedy = greedy_plan(state, seat)
        plans = root_plans(project(s, seat), seat, deadline=float("inf"), clock=time.perf_counter)
        assert greedy in [actions for actions, _ in plans]
        hint = analyse(s, seat, seed=1, iterations=0)
        assert hint.iterations == 0 and hint.best.actions == tuple(plans[0][0])
        assert _prior(state, seat, list(hint.best.actions)) >= _prior(state, seat, greedy) - 1e-9
        assert evaluation(state, seat) <= plans[0][1] + 1e-9, "ending the turn at once is a plan too"


def test_a_play_out_that_ends_the_game_is_scored_by_who_wins() -> None:
    """At the end of the game a play-out is worth the seat's margin over the best other player plus
    a bonus for a win (R22): a narrow win is worth more than a narrow loss with more Ecus, which
    the evaluation's half rivalry rates the same (60 - 58 / 2 = 64 - 66 / 2)."""
    from bot.ai.levels import STRONG_WEIGHTS
    from bot.ai.search import WIN_BONUS, evaluation, leaf_score

    def ended(ecus: list[int]) -> GameState:
        s = _turn_start(3, seed=44, steps=3).clone()
        for p, e in zip(s.players, ecus, strict=True):
            p.ecus = e
        top = max(ecus)
        s.finished, s.winners = True, tuple(j for j, e in enumerate(ecus) if e == top)
        return s

    win, loss = ended([60, 58, 20]), ended([64, 66, 20])
    assert score(win, 0, STRONG_WEIGHTS) == score(loss, 0, STRONG_WEIGHTS)
    assert leaf_score(win, 0) == 2 + WIN_BONUS and leaf_score(loss, 0) == -2
    assert leaf_score(ended([50, 50, 10]), 1) == WIN_BONUS / 2, "a shared win counts a share"
    going = _turn_start(3, seed=44, steps=3)
    assert leaf_score(going, 0) == evaluation(going, 0), "before the end: the evaluation"


@pytest.mark.parametrize(("players", "turns"), [(2, 4), (3, 3), (4, 4)])
def test_master_play_outs_stop_at_the_seats_next_turn(players: int, turns: int) -> None:
    """A play-out is cut at the seat's next turn (the end of the round as it sees it); with two
    players, where a round is one greedy turn, two rounds."""
    from bot.ai.search import play_out

    s = _turn_start(players, seed=43, steps=3 * players)
    seat, turn = s.active, s.turn
    end = play_out(s, seat, [])
    assert end is not None and end.active == seat and end.pending is None and not end.acted
    assert end.turn == turn + turns


@functools.cache
def _round_start(players: int, seed: int, round_: int) -> GameState:
    """A greedy game on to the start of the first turn of round ``round_`` that is not the first
    player's (so that the round goes on after the seat's turn)."""
    s = greedy_turn_start(players, seed=seed, steps=0)
    greedy = GreedyPlayer()
    while s.round < round_ or s.active == s.first or s.pending is not None or s.acted:
        s, _ = apply(s, greedy.choose(s, s.waiting_on, seed=1))
    return s


@pytest.mark.parametrize("players", [3, 4])
def test_master_play_outs_go_on_through_a_near_income(players: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``INCOME_REACH`` a play-out begun up to that many rounds before an income round goes on,
    every player's turns played greedily, to the end of that round: from round 3 (reach 1 for round
    4) to the first turn of round 5, every income of round 4 paid; from round 6 (reach 1 for round 7)
    to the end of the game (the default). Further from an income, and with ``{}``, it stops at the
    seat's next turn; a play-out's length is remembered by how far it reaches (``playout_kind``)."""
    from bot.ai import search as search_module
    from bot.ai.search import play_out, playout_kind, reach

    r2, r3, r6 = (_round_start(players, seed=45, round_=r) for r in (2, 3, 6))
    assert search_module.INCOME_REACH == {4: 1, 7: 1}, "the default"
    assert [reach(s) for s in (r2, r3, r6)] == [None, 4, 7]
    assert [playout_kind(s) for s in (r2, r3, r6)] == [(players, 0), (players, 1), (players, 1)]
    end = play_out(r3, r3.active, [])
    assert end is not None and not end.finished and (end.round, end.active) == (5, end.first)
    end = play_out(r6, r6.active, [])
    assert end is not None and end.finished
    end = play_out(r2, r2.active, [])
    assert end is not None and (end.round, end.active, end.acted) == (3, r2.active, False)
    monkeypatch.setattr(search_module, "INCOME_REACH", {7: 2})
    assert [reach(s) for s in (r2, r3, r6)] == [None, None, 7]
    assert reach(_round_start(players, seed=45, round_=5)) == 7
    monkeypatch.setattr(search_module, "INCOME_REACH", {})
    assert [reach(s) for s in (r2, r3, r6)] == [None, None, None]
    assert playout_kind(r3) == (players, 0)
    end = play_out(r3, r3.active, [])
    assert end is not None and (end.round, end.active, end.acted) == (4, r3.active, False)


@pytest.mark.parametrize("made_by", ["MasterPlayer", "make_player", "Players"])
def test_a_master_turn_keeps_to_its_time_budget(made_by: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted on a clock that moves 1 ms at every reading and 50 ms more for every play-out, a
    master turn at 0.5 s plans for no more than its budget, and remembers how long a play-out takes;
    ``make_player`` and ``Players`` pass the clock on (a benchmark gives them a CPU-time clock)."""
    from bot.ai import search as search_module
    from bot.ai.search import playout_kind

    s = start = _turn_start(4, seed=41, steps=12)
    seat = s.active
    clock = Ticks(0.001)
    real = search_module.play_out
    made: list[int] = []

    def costly(det: GameState, seat: int, actions: Any, effects: Any = None) -> GameState | None:
        clock.now += 0.05
        made.append(1)
        return real(det, seat, actions, effects)

    monkeypatch.setattr(search_module, "play_out", costly)
    if made_by == "MasterPlayer":
        player = MasterPlayer(clock=clock)
    elif made_by == "make_player":
        made_player = make_player("master", clock=clock)
        assert isinstance(made_player, MasterPlayer)
        player = made_player
    else:
        kept = Players(clock=clock).player("master")
        assert isinstance(kept, MasterPlayer)
        player = kept
    began = clock.now
    calls = 0
    while not s.finished and s.waiting_on == seat and s.active == seat:
        s, _ = apply(s, player.choose(s, seat, seed=2, budget_s=0.5))
        calls += 1
    assert calls >= 2 and made
    assert clock.now - began <= 0.5
    assert player.playout_times.typical(playout_kind(start)) >= 0.05


@pytest.mark.parametrize("switched_off", [False, True])
def test_a_master_turn_before_an_income_may_search_longer_within_its_budget(
    switched_off: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A master turn whose play-outs go on through the next income (round 3, ``search.reach``) is
    given ``MASTER_REACH_SHARE`` = 0.9 of its budget at its start, another (round 2)
    ``MASTER_START_SHARE``, and a turn searches for no more than ``MASTER_TURN_CAP`` = 0.95 of it in
    all, however many calls it takes. Switched off (``reach_share`` and ``turn_cap`` set to
    ``MASTER_START_SHARE`` and strong's ``TURN_CAP``), every turn is given the same share at its start
    and no more than strong's cap in all."""
    from bot.ai import players as players_module
    from bot.ai.players import MASTER_START_SHARE, TURN_CAP
    from bot.ai.search import reach

    reach_share, cap = (MASTER_START_SHARE, TURN_CAP) if switched_off else (0.9, 0.95)
    if switched_off:
        monkeypatch.setattr(MasterPlayer, "reach_share", reach_share)
        monkeypatch.setattr(MasterPlayer, "turn_cap", cap)
    real = players_module.analyse_view
    given: list[float] = []

    def recorded(*args: Any, time_s: float, **kwargs: Any) -> Any:
        given.append(time_s)
        return real(*args, time_s=time_s, **kwargs)

    monkeypatch.setattr(players_module, "analyse_view", recorded)
    starts = {}
    for round_ in (2, 3):
        s = _round_start(3, seed=44, round_=round_)
        assert (reach(s) is not None) == (round_ == 3)
        seat = s.active
        player = MasterPlayer(clock=Ticks(0.001))
        given.clear()
        calls = 0
        while not s.finished and s.waiting_on == seat and s.active == seat:
            s, _ = apply(s, player.choose(s, seat, seed=calls, budget_s=0.5))  # a new seed: plans again
            calls += 1
        starts[round_] = given[0]
        assert calls >= 2 and len(given) >= 2
        assert sum(given) <= cap * 0.5 + 1e-9
    assert starts == {2: pytest.approx(MASTER_START_SHARE * 0.5), 3: pytest.approx(reach_share * 0.5)}


# ---------------------------------------------------------------------------------------------
# Play-outs shared with helper processes


def _plans_for(s: GameState) -> tuple[View, int, list[list[Action]]]:
    from bot.ai.common import project
    from bot.ai.levels import beam_plans

    seat = s.active
    view = project(s, seat)
    plans = beam_plans(view.state, seat, width=3, depth=3, deadline=float("inf"), keep=3)
    return view, seat, [p.actions for p in plans]


@pytest.mark.slow
def test_play_out_rounds_come_out_the_same_in_whichever_process_plays_them() -> None:
    """A round's deal depends on the seed and the round alone: two processes playing the even and
    the odd rounds find exactly what one process playing them all finds."""
    view, seat, moves = _plans_for(_turn_start(4, seed=47, steps=8))
    assert len(moves) >= 2
    alone = play_rounds(view, seat, moves, 5, 10, None).scores
    evens = play_rounds(view, seat, moves, 5, 10, None, first=0, step=2).scores
    odds = play_rounds(view, seat, moves, 5, 10, None, first=1, step=2).scores
    assert len(alone) == 10 and set(evens).isdisjoint(odds)
    assert {**evens, **odds} == alone
    assert odds and all(r % 2 for r, _ in odds) and not any(r % 2 for r, _ in evens)


def test_a_play_out_is_only_begun_if_it_would_end_by_the_deadline() -> None:
    """The typical length of a play-out (remembered per player count) must fit before the deadline.
    The clock moves one second at every reading: a play-out takes one second."""
    view, seat, moves = _plans_for(_turn_start(3, seed=48, steps=6))
    clock = Ticks(1.0)
    assert play_rounds(view, seat, moves, 5, None, clock.now - 1.0, clock=clock).scores == {}
    assert play_rounds(view, seat, moves, 5, None, clock.now + 30.0, typical=60.0, clock=clock).scores == {}
    found = play_rounds(view, seat, moves, 5, None, clock.now + 3.5, clock=clock)
    assert len(found.scores) == 1 and (found.done, found.spent) == (1, 1.0), "the second would end past it"
    times = PlayoutTimes()
    times.record(3, times.typical(3), found)
    assert times.typical(3) == 1.0, "the length of this plan's play-outs is remembered"
    times.record(3, times.typical(3), play_rounds(view, seat, moves, 5, None, clock.now + 6.5, typical=1.0,
                                                  clock=clock))
    assert times.typical(3) == 1.0 and times.typical(4) == 0.0


@pytest.mark.slow
def test_strong_plays_the_same_with_a_helper_process() -> None:
    """``workers=2`` hands half the rounds to a helper process; with a fixed number of play-outs the
    action is the one a single process finds."""
    positions = [_turn_start(4, seed=49, steps=10), _turn_start(3, seed=50, steps=9)]
    helped = StrongPlayer(workers=2)
    try:
        for s in positions:
            alone = StrongPlayer().choose(s, s.active, seed=3, iterations=12)
            assert helped.choose(s, s.active, seed=3, iterations=12) == alone
        assert helped.helpers is not None and len(helped.helpers.pids()) == 1, "no helper process was used"
    finally:
        helped.close()


@pytest.mark.slow
def test_closing_a_strong_player_stops_its_helpers() -> None:
    player = StrongPlayer(workers=2)
    assert player.helpers is not None and player.helpers.pids() == [], "helpers start at their first use"
    player.start_helpers()
    pids = player.helpers.pids()
    assert len(pids) == 1 and all(_running(p) for p in pids)
    player.close()
    assert player.helpers.pids() == [] and not any(_running(p) for p in pids)
    s = _turn_start(4, seed=52, steps=10)
    assert player.choose(s, s.active, seed=3, iterations=12) == _alone(4, 52, 10, 12)
    assert player.helpers.pids() == [], "a closed player thinks alone"


@functools.cache
def _alone(players: int, seed: int, steps: int, iterations: int) -> Action:
    """What a strong player thinking alone does at ``_turn_start(players, seed, steps)``."""
    s = _turn_start(players, seed, steps)
    return StrongPlayer().choose(s, s.active, seed=3, iterations=iterations)


@pytest.mark.slow
def test_strong_plays_on_alone_when_its_helpers_fail(monkeypatch: pytest.MonkeyPatch,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    """A helper that cannot be started, or whose answer is an error, costs only its rounds."""
    s = _turn_start(4, seed=52, steps=10)
    helped = StrongPlayer(workers=2)
    assert helped.helpers is not None
    monkeypatch.setattr(helped.helpers, "_start", lambda: None)
    assert helped.choose(s, s.active, seed=3, iterations=12) == _alone(4, 52, 10, 12)

    broken: concurrent.futures.Future[int] = concurrent.futures.Future()
    broken.set_exception(BrokenProcessPool("helper died"))
    late: concurrent.futures.Future[int] = concurrent.futures.Future()
    done: concurrent.futures.Future[int] = concurrent.futures.Future()
    done.set_result(7)
    with caplog.at_level("WARNING", logger="bot.ai.helpers"):
        batch = helpers_module.Batch(None, [broken, late, done])
        assert Helpers(1).collect(batch, time.time() - helpers_module.GRACE_S) == [7]
    assert "late" in caplog.text


@pytest.mark.slow
def test_with_a_fixed_number_of_play_outs_the_rounds_a_helper_missed_are_played_by_the_caller(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``iterations`` promises the same action whatever happens to the helpers."""
    s = _turn_start(4, seed=52, steps=10)

    def dead_helper(fn: object, *args: object, **kwargs: object) -> helpers_module.Batch:
        died: concurrent.futures.Future[object] = concurrent.futures.Future()
        died.set_exception(RuntimeError("a bug in the helper"))
        return helpers_module.Batch(None, [died])

    helped = StrongPlayer(workers=2)
    assert helped.helpers is not None
    monkeypatch.setattr(helped.helpers, "submit", dead_helper)
    assert helped.choose(s, s.active, seed=3, iterations=12) == _alone(4, 52, 10, 12)


def test_helpers_that_keep_failing_are_left_alone_for_a_while(monkeypatch: pytest.MonkeyPatch,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    """A helper that cannot start (or keeps dying) is tried again at the next turns, then not for
    ``PAUSE_S``: no traceback and no new process every turn for months."""
    starts: list[int] = []

    def cannot_start(*args: object, **kwargs: object) -> None:
        starts.append(1)
        raise OSError(12, "Cannot allocate memory")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", cannot_start)
    helpers = Helpers(1)
    with caplog.at_level("WARNING", logger="bot.ai.helpers"):
        for _ in range(10):
            assert helpers.submit(int).futures == []
    assert len(starts) == helpers_module.FAILURES
    assert "thinking alone for 10 minutes" in caplog.text and "Traceback" not in caplog.text
    helpers._paused_until = 0.0
    assert helpers.submit(int).futures == [] and len(starts) == helpers_module.FAILURES + 1


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie, which has exited and awaits its reaping, is not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    with contextlib.suppress(OSError):
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return True


@pytest.mark.slow
def test_a_helper_ends_when_the_process_that_started_it_is_killed() -> None:
    """A killed AI worker must not leave its helper processes behind (the bot starts a new worker)."""
    code = (
        "import multiprocessing, time\n"
        "from bot.ai import Helpers\n"
        "if __name__ == '__main__':\n"
        "    helpers = Helpers(1)\n"
        "    helpers.start()\n"
        "    time.sleep(1.0)\n"
        "    print(*[p.pid for p in multiprocessing.active_children()], flush=True)\n"
        "    time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        children = [int(x) for x in parent.stdout.readline().split()]
        assert children and all(_running(c) for c in children)
    finally:
        parent.kill()
        parent.wait()
    _gone(children, "a helper outlived its parent")


@pytest.mark.slow
def test_the_ai_worker_and_its_helpers_end_when_the_bot_is_killed() -> None:
    """kill -9 of the process that started the AI worker, while a strong player thinks in it with a
    helper: the worker and the helper are gone within seconds, not when the search would end."""
    code = (
        "import time\n"
        "from bot.ai import AIWorker, GreedyPlayer\n"
        "from rules import apply, new_game\n"
        "if __name__ == '__main__':\n"
        "    worker = AIWorker(workers=2)\n"
        "    s = new_game(['a', 'b', 'c'], seed=3)\n"
        "    greedy = GreedyPlayer()\n"
        "    for _ in range(6):\n"
        "        s, _ = apply(s, greedy.choose(s, s.waiting_on, seed=1))\n"
        "    worker.submit(s, s.waiting_on, 'strong', seed=1, budget_s=60.0)  # still thinking when killed\n"
        "    time.sleep(3.0)\n"
        "    print(worker.pid, flush=True)\n"
        "    time.sleep(60)\n"
    )
    bot = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert bot.stdout is not None
        worker = int(bot.stdout.readline())
        deadline = time.monotonic() + 20
        while not _children_of(worker) and time.monotonic() < deadline:  # the helper starts with the search
            time.sleep(0.05)
        helpers = _children_of(worker)
        assert helpers and _running(worker) and all(_running(h) for h in helpers)
    finally:
        bot.kill()
        bot.wait()
    _gone([worker, *helpers], "the AI worker or its helper outlived the bot", within=5.0)


def _children_of(pid: int) -> list[int]:
    """The live processes whose parent is ``pid`` (from /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid and _running(int(stat.parent.name)):
                out.append(int(stat.parent.name))
    return out


def _gone(pids: list[int], message: str, within: float = 10.0) -> None:
    deadline = time.monotonic() + within
    while any(_running(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_running(p) for p in pids), message


@pytest.mark.slow
def test_a_pool_worker_with_helpers_still_ends_when_its_pool_shuts_down() -> None:
    """A process that is a pool's worker waits for its children at exit before any atexit handler
    runs, so a strong player's helpers must be stopped first, or the pool never shuts down."""
    import threading

    from tests.support.ai_worker import strong_turn_with_a_helper

    pool = concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
    helper_pids = pool.submit(strong_turn_with_a_helper).result(timeout=60)
    assert helper_pids and all(_running(p) for p in helper_pids)
    closing = threading.Thread(target=pool.shutdown, daemon=True)
    closing.start()
    closing.join(timeout=30)
    assert not closing.is_alive(), "the worker did not end: its helpers kept it waiting"
    assert not any(_running(p) for p in helper_pids)


def test_helpers_are_not_started_from_a_daemonic_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(multiprocessing.current_process(), "daemon", True, raising=False)
    helpers = Helpers(1)
    assert helpers.submit(int).futures == []
    assert helpers._cannot and helpers._pool is None


# ---------------------------------------------------------------------------------------------
# The bot's AI worker


@pytest.mark.slow
def test_the_ai_worker_keeps_its_players_between_calls() -> None:
    """A strong turn played through the worker is the turn a strong player plays here, and the
    helper processes of its strong player last from one call to the next."""
    s = _turn_start(3, seed=53, steps=6)
    seat = s.active
    here = StrongPlayer()
    worker = AIWorker(workers=2)
    try:
        helpers: set[int] = set()
        while not s.finished and s.active == seat:
            a = worker.choose(s, s.waiting_on, "strong", seed=1, iterations=6)
            assert a == here.choose(s, s.waiting_on, seed=1, iterations=6)
            pid = worker.pid
            assert pid is not None
            helpers |= set(_children(pid))
            s, _ = apply(s, a)
        assert len(helpers) == 1, "the strong player's helper was not kept"
        assert worker.choose(s, s.waiting_on, "random", seed=1) in legal_actions(s)
    finally:
        worker.close()
    _gone([pid, *helpers], "the worker or its helper outlived close()")


@pytest.mark.slow
def test_a_dead_ai_worker_is_replaced_at_the_next_call(tmp_path: Path) -> None:
    from tests.support.ai_worker import broken, die_once

    s = new_game(["a", "b"], seed=1)
    worker = AIWorker(choose=functools.partial(die_once, marker=str(tmp_path / "died")))
    try:
        with pytest.raises(WorkerDied):
            worker.choose(s, s.active, "greedy", seed=1)
        assert worker.pid is None
        assert worker.choose(s, s.active, "greedy", seed=1) == legal_actions(s)[0]
        assert worker.pid is not None
    finally:
        worker.close()
    worker = AIWorker(choose=broken)
    try:
        pids = []
        for _ in range(2):
            with pytest.raises(ValueError, match="a bug in the greedy AI") as failed:
                worker.choose(s, s.active, "greedy", seed=1)
            assert "Traceback" in str(failed.value.__cause__), "the worker's traceback is kept"
            pids.append(worker.pid)
        assert pids[0] is not None and pids[1] == pids[0], "an AI that fails does not end the worker"
    finally:
        worker.close()


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(stat.parent.name))
    return out


# ---------------------------------------------------------------------------------------------
# The evaluation


def test_evaluation_income_is_the_engines_income() -> None:
    """``board_facts`` reads each board once for every player; it must agree with ``rules.income``
    (R73–R77) in every position of random games."""
    checked = 0
    for seed in (2, 3):
        for step in random_game(seed, 2 + seed, holdem=False):
            s = step.after
            if s.finished or step.before.turn % 2:
                continue
            for age in Age:
                f = board_facts(s, age)
                for p in range(len(s.players)):
                    assert f.income[p] == income(s, p, age)[0]
                    checked += 1
    assert checked > 100


def test_evaluation_prefers_more_income_and_more_ecus() -> None:
    s = new_game(["a", "b"], seed=3)
    me = s.active
    richer = s.clone()
    richer.players[me].ecus += 3
    assert score(richer, me) > score(s, me)
    poorer_rival = s.clone()
    poorer_rival.players[1 - me].ecus -= 3
    assert score(poorer_rival, me) > score(s, me)


def test_strong_rivalry_is_aimed_at_the_best_placed_rival() -> None:
    """With ``lead`` = 1 (the strong level), only the best-placed rival counts: taking Ecus from the
    leader gains, taking them from a trailing player does not; with ``lead`` = 0 (greedy) both do."""
    from dataclasses import replace

    from bot.ai.evaluate import DEFAULT
    from bot.ai.levels import STRONG_WEIGHTS

    assert STRONG_WEIGHTS.lead == 1.0 and DEFAULT.lead == 0.0
    s = new_game(["a", "b", "c", "d"], seed=3)
    me = s.active
    leader, trailer = [j for j in range(4) if j != me][:2]
    s.players[leader].ecus += 20
    robbed_leader = s.clone()
    robbed_leader.players[leader].ecus -= 3
    robbed_trailer = s.clone()
    robbed_trailer.players[trailer].ecus -= 3
    w = replace(DEFAULT, lead=1.0)
    assert score(robbed_leader, me, w) == pytest.approx(score(s, me, w) + 3 * w.rivalry)
    assert score(robbed_trailer, me, w) == pytest.approx(score(s, me, w))
    assert score(robbed_trailer, me) > score(s, me)


def test_bot_ai_imports_no_discord_storage_or_asyncio() -> None:
    allowed = {"rules", "bot"} | set(sys.stdlib_module_names)
    forbidden = {"discord", "aiosqlite", "asyncio"}
    for path in AI_DIR.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                root = name.split(".")[0]
                assert root not in forbidden, f"{path.name} imports {name}"
                assert root in allowed, f"{path.name} imports {name}"


#: what a module-level name may be bound to only with a read-only annotation (``Mapping``, ...)
MUTABLE_CALLS = {"dict", "list", "set", "OrderedDict", "defaultdict", "deque", "Counter", "Lock", "RLock",
                 "Event", "Condition", "Semaphore", "local"}
READ_ONLY = {"Mapping", "Sequence", "AbstractSet", "Collection", "tuple", "frozenset"}


def _mutable_module_state(path: Path) -> list[str]:
    """Module-level names bound to something that can change (a dict, list or set, an empty
    ``None`` to fill in later, a lock...) unless annotated read-only (so that mypy refuses to change
    them), and ``global`` statements; ``__all__`` aside."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = [f"{path.name}:{node.lineno}: global {', '.join(node.names)}"
             for node in ast.walk(tree) if isinstance(node, ast.Global)]
    for node in tree.body:
        if isinstance(node, ast.Assign):
            if [ast.unparse(t) for t in node.targets] == ["__all__"]:
                continue
            value, annotation = node.value, None
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            value, annotation = node.value, node.annotation
        else:
            continue
        if annotation is not None and any(isinstance(n, ast.Name) and n.id in READ_ONLY for n in ast.walk(annotation)):
            continue
        call = value.func if isinstance(value, ast.Call) else None
        name = call.attr if isinstance(call, ast.Attribute) else call.id if isinstance(call, ast.Name) else ""
        if (isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp))
                or (isinstance(value, ast.Constant) and value.value is None) or name in MUTABLE_CALLS):
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node).splitlines()[0]}")
    return found


def test_bot_ai_keeps_no_state_in_its_modules(tmp_path: Path) -> None:
    """What the AI remembers belongs to a player (or the worker's loop), never to a module."""
    found = [line for path in sorted(AI_DIR.glob("*.py")) for line in _mutable_module_state(path)]
    assert not found, "\n".join(found)
    sample = tmp_path / "sample.py"  # the check finds what it is for
    sample.write_text("import threading\nfrom collections import OrderedDict\n_cache = OrderedDict()\n_pool = None\n"
                      "_lock = threading.Lock()\nLIMITS: dict[int, int] = {}\nFIXED: Mapping[int, int] = {1: 2}\n"
                      "NAMES = ('a', 'b')\ndef f():\n    global _pool\n", encoding="utf-8")
    assert [line.split(":")[1] for line in _mutable_module_state(sample)] == ["10", "3", "4", "5", "6"]


def test_there_is_one_list_of_levels() -> None:
    """Every list of levels is made from ``bot.ai.LEVELS``: the service's, the console's and
    selfplay's options, the slash command's choices."""
    import argparse

    from discord import app_commands

    from bot import selfplay, service
    from bot.discord import TiempoGroup

    assert LEVEL_NAMES == ("random", "greedy", "strong", "master") == tuple(lv.name for lv in LEVELS)
    assert service.AI_LEVELS == LEVEL_NAMES
    assert service.AI_NAMES == {"random": "Dice", "greedy": "Magpie", "strong": "Oracle", "master": "Sibyl"}
    parser = argparse.ArgumentParser()
    selfplay.add_arguments(parser)
    (level,) = [a for a in parser._actions if a.dest == "level"]
    assert tuple(level.choices or ()) == LEVEL_NAMES
    addbot = TiempoGroup().get_command("addbot")
    assert isinstance(addbot, app_commands.Command)
    (option,) = addbot.parameters
    assert [c.value for c in option.choices] == ["greedy", "strong", "master", "random"]  # the default first
    assert option.description == ("greedy (default): sensible; strong: looks ahead; master: searches whole "
                                  "turns; random: at random")
    assert [type(make_player(name)) for name in LEVEL_NAMES] == [RandomPlayer, GreedyPlayer, StrongPlayer,
                                                                 MasterPlayer]


@pytest.mark.slow
def test_the_benchmark_reads_budgets_on_the_chosen_clock_and_says_which(tmp_path: Path) -> None:
    """``bench/ai.py --clock cpu`` records the clock in its run header and reports turn times on it
    with the wall-clock times beside them; ``--clock wall`` says so too."""
    root = Path(__file__).resolve().parents[2]
    for clock, says in (("cpu", "thread CPU time"), ("wall", "wall")):
        out = tmp_path / f"{clock}.json"
        subprocess.run([sys.executable, str(root / "bench" / "ai.py"), "--games", "1", "--clock", clock,
                        "--matchups", "greedy,random", "--out", str(out)], check=True, capture_output=True,
                       cwd=root, timeout=300)
        report = json.loads(out.read_text())
        assert report["clock"].startswith(says)
        greedy = report["matchups"]["greedy,random"]["levels"]["greedy"]
        assert greedy["turn_time_max_s"] > 0 and greedy["turn_wall_max_s"] > 0

"""The three levels: ``random``, ``greedy`` and ``strong``.

Every function here takes the seat's *view* (``rules.serial.View``), never the full state, so the
levels cannot use what the player in that seat could not see.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from rules import (
    Action,
    Cards,
    Choose,
    EndTurn,
    Exchange,
    Family,
    GameState,
    RuleError,
    Swap,
    Travel,
    apply,
    legal_actions,
)

from .common import View, candidates, determinize, end_turn, fingerprint, resolve_pending
from .evaluate import score

# ---------------------------------------------------------------------------------------------
# random


def random_action(view: View, seat: int, rng: random.Random) -> Action:
    """Uniform among the legal actions of a kind, the kinds weighted so that games move on: a card
    action 70% of the time when there is one, a travel 8% (only with 3 Ecus or more), an exchange
    3% (only before acting, with 5 Ecus or more), else the end of the turn with a uniform discard."""
    s = view.state
    acts = legal_actions(s)
    if s.pending is not None:
        return rng.choice(acts)
    ends = [a for a in acts if isinstance(a, EndTurn)]
    travels = [a for a in acts if isinstance(a, Travel)]
    exchanges = [a for a in acts if isinstance(a, Exchange)]
    cards = [a for a in acts if not isinstance(a, (EndTurn, Travel, Exchange, Swap))]
    swaps = [a for a in acts if isinstance(a, Swap)]
    ecus = s.players[seat].ecus
    r = rng.random()
    if cards and r < 0.70:
        return rng.choice(cards)
    if travels and ecus >= 3 and r < 0.78:
        return rng.choice(travels)
    if exchanges and ecus >= 5 and r < 0.81:
        return rng.choice(exchanges)
    if swaps and r < 0.84:
        return rng.choice(swaps)
    return rng.choice(ends)


# ---------------------------------------------------------------------------------------------
# decisions (every level but random)


def _first_option(s: GameState) -> Choose:
    assert s.pending is not None
    d = s.pending.decision
    return Choose(d.player, d.options[0])


def best_choice(s: GameState) -> Choose:
    """The answer to the pending decision that is best for the player it is addressed to, by the
    evaluation, later decisions (if any) answered with their first option."""
    assert s.pending is not None
    d = s.pending.decision
    best: Choose | None = None
    best_v = float("-inf")
    for cell in d.options:
        c = Choose(d.player, cell)
        try:
            s2, _ = apply(s, c)
        except RuleError:
            continue
        s2, _ = resolve_pending(s2, _first_option)
        v = score(s2, d.player)
        if v > best_v:
            best, best_v = c, v
    return best if best is not None else Choose(d.player, d.options[0])


def decide(view: View, seat: int, rng: random.Random, samples: int = 1) -> Choose:
    """Answer a decision addressed to ``seat``: the option that scores best on average over
    ``samples`` determinizations of the hidden cards (the answer rarely depends on them)."""
    totals: dict[int, float] = {}
    d = view.state.pending
    assert d is not None
    options = d.decision.options
    for _ in range(max(1, samples)):
        s = determinize(view, rng)
        for k, cell in enumerate(options):
            try:
                s2, _ = apply(s, Choose(seat, cell))
            except RuleError:
                totals[k] = totals.get(k, 0.0) - 1e9
                continue
            s2, _ = resolve_pending(s2, best_choice)
            totals[k] = totals.get(k, 0.0) + score(s2, seat)
    k = max(range(len(options)), key=lambda i: (totals.get(i, -1e18), -i))
    return Choose(seat, options[k])


# ---------------------------------------------------------------------------------------------
# greedy


def _after(s: GameState, a: Action) -> GameState | None:
    """The state after ``a`` with any decisions it raises answered by ``best_choice``."""
    try:
        s2, _ = apply(s, a)
    except RuleError:
        return None
    s2, _ = resolve_pending(s2, best_choice)
    return s2


def greedy_step(s: GameState, seat: int, *, per_signature: int = 1, travel: bool = True) -> Action:
    """The action with the best immediate score, or the end of the turn when nothing gains."""
    best: Action = end_turn(s, seat)
    best_v = score(s, seat) + 1e-9
    for a in candidates(s, seat, per_signature=per_signature, travel=travel):
        s2 = _after(s, a)
        if s2 is None:
            continue
        v = score(s2, seat)
        if v > best_v:
            best, best_v = a, v
    return best


def greedy_action(view: View, seat: int, rng: random.Random) -> Action:
    """The ``greedy`` level: the best immediate gain by the evaluation (``bot.ai.evaluate``).
    Decisions are answered the same way. It never exchanges or swaps."""
    s = view.state
    if s.pending is not None:
        return decide(view, seat, rng)
    return greedy_step(s, seat)


# ---------------------------------------------------------------------------------------------
# strong


@dataclass
class Plan:
    """A sequence of the seat's own actions this turn, the states they lead to and their score."""

    actions: list[Action]
    states: list[GameState]
    value: float
    samples: list[float] = field(default_factory=list)

    @property
    def final(self) -> GameState:
        return self.states[-1]


def _state_key(s: GameState) -> tuple[object, ...]:
    return (
        tuple(frozenset((b.kind, b.origin, b.owner, b.ruin, b.population, b.marker) for b in board.buildings.values())
              for board in s.boards),
        tuple((p.ecus, tuple(p.pawns), p.hand, p.supply, tuple(p.played)) for p in s.players),
        s.pending is not None,
    )


def beam_plans(s0: GameState, seat: int, *, width: int, depth: int, deadline: float, keep: int) -> list[Plan]:
    """Best-first beam search over the seat's own moves this turn (constructions, upgrades,
    demolitions, populating, renovating, travel), each move's decisions answered by ``best_choice``.
    Returns up to ``keep`` plans by score, the empty plan (end the turn now) included."""
    start = Plan([], [s0], score(s0, seat))
    beam = [start]
    finals: list[Plan] = [start]
    for _ in range(depth):
        grown: list[Plan] = []
        for plan in beam:
            s = plan.final
            if s.pending is not None or s.active != seat:
                continue
            for a in candidates(s, seat):
                if time.perf_counter() > deadline and grown:
                    break
                try:
                    s2, _ = apply(s, a)
                except RuleError:
                    continue
                acts: list[Action] = [*plan.actions, a]
                states: list[GameState] = [*plan.states, s2]
                while s2.pending is not None and s2.pending.decision.player == seat:
                    c = best_choice(s2)
                    s2, _ = apply(s2, c)
                    acts.append(c)
                    states.append(s2)
                if s2.pending is not None:  # another player's decision: the plan ends here
                    s3, _ = resolve_pending(s2, best_choice)
                    v = score(s3, seat)
                else:
                    v = score(s2, seat)
                grown.append(Plan(acts, states, v))
        if not grown:
            break
        beam = _distinct(sorted(grown, key=lambda p: -p.value), width)
        finals.extend(beam)
        if time.perf_counter() > deadline:
            break
    return _distinct(sorted(finals, key=lambda p: -p.value), keep)


def _distinct(plans: list[Plan], n: int) -> list[Plan]:
    """The first ``n`` plans (in the given order) that end in different positions."""
    seen: set[tuple[object, ...]] = set()
    out: list[Plan] = []
    for p in plans:
        k = _state_key(p.final)
        if k in seen:
            continue
        seen.add(k)
        out.append(p)
        if len(out) == n:
            break
    return out


def _play_out_turn(s: GameState, seat: int, actions: list[Action]) -> GameState:
    """Play ``actions`` (a plan made on the view) on a determinized state, answer what is left to
    decide, and end the turn."""
    for a in actions:
        if s.pending is not None and not isinstance(a, Choose):
            s, _ = resolve_pending(s, best_choice)
        try:
            s, _ = apply(s, a)
        except RuleError:
            break
    s, _ = resolve_pending(s, best_choice)
    if not s.finished and s.active == seat:
        s, _ = apply(s, end_turn(s, seat))
    return s


def _opponents(s: GameState, seat: int, max_actions: int = 40) -> GameState:
    """Let the other players play greedily (single sites per kind of site, no travel unless an
    income is due) until it is ``seat``'s turn again or the game ends."""
    n = 0
    while not s.finished and s.active != seat and n < max_actions:
        if s.pending is not None:
            s, _ = resolve_pending(s, best_choice)
            continue
        a = greedy_step(s, s.active, travel=s.round in (4, 7))
        s, _ = apply(s, a)
        n += 1
    return s


def exchange_options(hand: Cards) -> list[Cards]:
    """A few sensible discards for a paid exchange: the single cards, or the whole hand."""
    counts = [hand.count(f) for f in Family]
    singles = Cards(*(1 if c == 1 else 0 for c in counts))
    out = [hand]
    if 0 < singles.total < hand.total:
        out.append(singles)
    return out


def strong_plan(
    view: View, seat: int, rng: random.Random, *, time_s: float, iterations: int | None
) -> list[Action]:
    """The ``strong`` level's plan for the rest of the turn.

    1. A beam search (width 5) over the seat's own moves, on its view, keeps the best few plans.
    2. If a paid exchange is still possible, each of a few discards is tried on determinizations
       (the unseen cards dealt at random) followed by a greedy turn; it competes as one more plan.
    3. Flat Monte Carlo: each candidate plan is played out on determinizations, the turn ended, the
       other players' turns played greedily until the seat's next turn, and the position scored.
       The plan with the best mean wins. ``iterations`` bounds the number of play-outs; otherwise
       they run until the time is up.
    """
    start = time.perf_counter()
    deadline_beam = start + time_s * (0.45 if iterations is None else 1e9)
    s = view.state
    plans = beam_plans(s, seat, width=5, depth=6, deadline=deadline_beam, keep=4)
    p = s.players[seat]
    if not (s.exchanged or s.acted or s.swapped) and p.ecus >= 2 + 2:
        for cards in exchange_options(p.hand):
            plans.append(Plan([Exchange(seat, cards)], [s], plans[0].value - 2.0))
    if len(plans) == 1:
        return plans[0].actions
    total = iterations if iterations is not None else 10_000
    deadline = start + time_s
    done = 0
    k = 0
    while done < total:
        if iterations is None and time.perf_counter() > deadline:
            break
        if k == 0:
            det = determinize(view, rng)
        plan = plans[k]
        if plan.actions and isinstance(plan.actions[0], Exchange):
            try:
                s2, _ = apply(det, plan.actions[0])
            except RuleError:
                plan.samples.append(-1e9)
                k = (k + 1) % len(plans)
                done += 1
                continue
            acts: list[Action] = []
            while not s2.finished and s2.active == seat and s2.pending is None:
                a = greedy_step(s2, seat)
                if isinstance(a, EndTurn):
                    break
                acts.append(a)
                s2 = _after(s2, a) or s2
            end = _play_out_turn(s2, seat, [])
        else:
            end = _play_out_turn(det, seat, plan.actions)
        end = _opponents(end, seat)
        plan.samples.append(score(end, seat))
        done += 1
        k = (k + 1) % len(plans)
    scored = [pl for pl in plans if pl.samples]
    if not scored:
        return plans[0].actions
    n_min = min(len(pl.samples) for pl in scored)
    best = max(scored, key=lambda pl: (statistics.fmean(pl.samples[:n_min]) if n_min else pl.value, pl.value))
    return best.actions


ChooseFn = Callable[[View, int, random.Random], Action]

__all__ = [
    "Plan",
    "beam_plans",
    "best_choice",
    "decide",
    "fingerprint",
    "greedy_action",
    "greedy_step",
    "random_action",
    "strong_plan",
]

"""What the three levels do: ``random``, ``greedy`` and ``strong`` (the player objects that use it
are in ``bot.ai.players``).

Every function here takes the seat's *view* (``rules.View``), never the full state, so the levels
cannot use what the player in that seat could not see. Nothing here keeps anything from one call to
the next: what the strong level remembers (its plans, the typical length of a play-out) belongs to
its player, which passes it in.
"""

from __future__ import annotations

import random
import statistics
import threading
import time
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field, replace

from rules import (
    INCOME_ROUNDS,
    Action,
    Building,
    Cards,
    Choose,
    Construct,
    Demolish,
    EndTurn,
    Exchange,
    Family,
    GameState,
    Populate,
    Renovate,
    RuleError,
    Swap,
    Travel,
    Upgrade,
    apply,
    apply_first,
    legal_actions,
)

from .common import View, candidates, determinize, end_turn, fingerprint, mix_seed, resolve_pending
from .evaluate import DEFAULT, BoardFacts, Facts, Moved, Weights, facts, facts_after, score
from .helpers import EARLY_S, Batch, Helpers

#: a clock for the strong level's budget: seconds from any fixed point (``time.perf_counter``)
Clock = Callable[[], float]

#: the strong level's evaluation weights (the greedy level uses ``evaluate.DEFAULT``): the same,
#: with later incomes discounted by how firmly they are held, and the rivalry aimed at the
#: best-placed other player (the one to beat) instead of the mean of the others
STRONG_WEIGHTS: Weights = replace(DEFAULT, risk=(0.35, 0.15, 0.03), lead=1.0)

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
            s2, _ = apply_first(s, c)  # (resolve_pending with _first_option, in one run)
        except RuleError:
            continue
        v = score(s2, d.player)
        if v > best_v:
            best, best_v = c, v
    return best if best is not None else Choose(d.player, d.options[0])


def decide(view: View, seat: int, rng: random.Random, samples: int = 1) -> Choose:
    """Answer a decision addressed to ``seat``: the option that scores best on average over
    ``samples`` determinizations of the hidden cards (the answer rarely depends on them), later
    decisions of the same action answered with their first option (as ``best_choice`` does: a
    cascade of downsizings can ask a dozen questions in a row, and answering each by trying every
    answer to every later one took seconds)."""
    totals: dict[int, float] = {}
    d = view.state.pending
    assert d is not None
    options = d.decision.options
    for _ in range(max(1, samples)):
        s = determinize(view, rng)
        for k, cell in enumerate(options):
            try:
                s2, _ = apply_first(s, Choose(seat, cell))  # (resolve_pending with _first_option, in one run)
            except RuleError:
                totals[k] = totals.get(k, 0.0) - 1e9
                continue
            totals[k] = totals.get(k, 0.0) + score(s2, seat)
    k = max(range(len(options)), key=lambda i: (totals.get(i, -1e18), -i))
    return Choose(seat, options[k])


# ---------------------------------------------------------------------------------------------
# greedy


def _after(s: GameState, a: Action, choose: Callable[[GameState], Choose] = best_choice) -> GameState | None:
    """The state after ``a`` with any decisions it raises answered by ``choose``."""
    try:
        if choose is _first_option:
            return apply_first(s, a)[0]  # (resolve_pending with _first_option, in one run)
        s2, _ = apply(s, a)
    except RuleError:
        return None
    s2, _ = resolve_pending(s2, choose)
    return s2


class Effects:
    """What ``greedy_step`` worked out when judging quickly, kept for the play-outs of one search,
    which keep coming back to the same boards on different deals (the same plan, the same greedy
    replies):

    * ``moves``: what a move did — the facts of the boards it led to and what it changed of every
      player's Ecus, cubes and cards — by the boards, the stock, everyone's cubes, the round, the
      mover, and the move with the number of cards that pay it (``_move``). A move's effect depends
      on nothing else (its bonus, ripples, downsizings and the first options of the questions it
      raises follow from the boards, in the order the boards list their buildings; its cost is
      fixed), so a move judged before is scored again without being played: a quarter to two fifths
      of the moves a search's play-outs judge.
    * ``steps``: the move chosen, by all that the choice reads (the above, everyone's Ecus, cards in
      hand and pawns, the mover's hand and the cards his pawns have played, what he has done this
      turn): a tenth to a third of the steps of a search.

    ``greedy_step`` finds the same move with it or without it (tested)."""

    __slots__ = ("boards", "changes", "moves", "numbers", "steps")

    #: the most moves kept (about 30 MB with four players: a round-7 search plays hundreds of play-outs)
    LIMIT = 60_000

    def __init__(self) -> None:
        #: a small number for each set of buildings met, so that keys hash quickly
        self.boards: dict[tuple[Building, ...], int] = {}
        self.moves: dict[tuple[tuple[object, ...], tuple[object, ...]], tuple[Facts, Moved]] = {}
        self.steps: dict[tuple[object, ...], Action] = {}
        #: the facts of a board (numbers only) and the changes of the players that ``moves`` holds,
        #: each kept once
        self.numbers: dict[tuple[object, ...], BoardFacts] = {}
        self.changes: dict[Moved, Moved] = {}

    def where(self, s: GameState, seat: int) -> tuple[object, ...]:
        """What the effect of a move of ``seat`` in ``s`` may depend on."""
        ids = self.boards
        return (*(ids.setdefault(b.contents(), len(ids)) for b in s.boards), *s.stock.values(),
                *(p.supply for p in s.players), s.round, seat)

    @staticmethod
    def step(where: tuple[object, ...], s: GameState, seat: int, travel: bool, per_signature: int) -> \
            tuple[object, ...]:
        """What the move ``greedy_step`` chooses for ``seat`` in ``s`` may depend on, ``where`` being
        the ``where`` of the position."""
        p = s.players[seat]
        return (where, *(q.ecus for q in s.players), *(q.hand.total for q in s.players),
                *(a for q in s.players for a in q.pawns), p.hand, *p.played, s.first, s.acted, s.exchanged,
                s.swapped, travel, per_signature)


def _move(a: Action) -> tuple[object, ...]:
    """A move as ``Effects.moves`` knows it: all but the cards that pay it, of which only the number
    counts (a surcharge takes cards of any colour, every other payment cards of a fixed colour),
    so that the same move paid from two hands is one."""
    if isinstance(a, Construct):
        return (Construct, a.age, a.kind, a.origin, a.payment.cards.total)
    if isinstance(a, Upgrade):
        return (Upgrade, a.age, a.target, a.kind, a.origin, a.payment.cards.total)
    if isinstance(a, Demolish):
        return (Demolish, a.age, a.target, a.payment.cards.total)
    if isinstance(a, (Populate, Renovate)):
        return (type(a), a.target, a.payment.cards.total)
    return (a,)


def _effect(s: GameState, s2: GameState, f2: Facts, effects: Effects) -> tuple[Facts, Moved] | None:
    """What ``Effects`` keeps of a move from ``s`` to ``s2`` (whose facts are ``f2``): the facts of the
    boards, their numbers only, and what changed of every player, each kept once in ``effects`` for
    all the moves that lead to it (most lead to what others do); None if the move changed more than
    ``values`` can be told."""
    if s2.finished or s2.pending is not None or s2.active != s.active or s2.round != s.round or \
            s2.first != s.first or any(p2.pawns != p.pawns for p, p2 in zip(s.players, s2.players, strict=True)):
        return None
    moved = tuple((p2.ecus - p.ecus, p2.supply - p.supply, p2.hand.total - p.hand.total)
                  for p, p2 in zip(s.players, s2.players, strict=True))
    numbers = effects.numbers
    kept = []
    for f in f2:
        key = (f.income, f.hold, f.domains, f.levels)
        plain = numbers.get(key)
        if plain is None:
            plain = numbers[key] = BoardFacts(f.income, f.hold, f.domains, f.levels)
        kept.append(plain)
    return (kept[0], kept[1], kept[2]), effects.changes.setdefault(moved, moved)


def greedy_step(
    s: GameState, seat: int, *, per_signature: int = 1, travel: bool = True, quick: bool = False,
    effects: Effects | None = None,
) -> Action:
    """The action with the best immediate score, or the end of the turn when nothing gains. With
    ``quick`` (for play-outs), the decisions a move would raise are taken to be answered with their
    first option when the move is judged, instead of with the best one: about half the work, and
    the same move in most positions; with ``effects`` too, what was worked out before from the
    same position is not worked out again (``Effects``)."""
    if effects is None or not quick:
        return _greedy_step(s, seat, per_signature, travel, _first_option if quick else best_choice, None, ())
    where = effects.where(s, seat)
    key = Effects.step(where, s, seat, travel, per_signature)
    found = effects.steps.get(key)
    if found is None:
        found = effects.steps[key] = _greedy_step(s, seat, per_signature, travel, _first_option, effects, where)
    return found


def _greedy_step(
    s: GameState, seat: int, per_signature: int, travel: bool, choose: Callable[[GameState], Choose],
    effects: Effects | None, where: tuple[object, ...],
) -> Action:
    """``greedy_step``, the moves' effects kept in and taken from ``effects`` if given (``where``: the
    position's ``Effects.where``)."""
    best: Action = end_turn(s, seat)
    known = facts(s)
    best_v = score(s, seat, known=known) + 1e-9
    for a in candidates(s, seat, per_signature=per_signature, travel=travel):
        if effects is not None:
            key = (where, _move(a))
            effect = effects.moves.get(key)
            if effect is not None:
                v = score(s, seat, known=effect[0], moved=effect[1])
                if v > best_v:
                    best, best_v = a, v
                continue
        s2 = _after(s, a, choose)
        if s2 is None:
            continue
        f2 = facts_after(s, known, s2)
        if effects is not None and len(effects.moves) < Effects.LIMIT:
            effect = _effect(s, s2, f2, effects)
            if effect is not None:
                effects.moves[key] = effect
        v = score(s2, seat, known=f2)
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
    #: play-out scores by round (``play_rounds``)
    samples: dict[int, float] = field(default_factory=dict)

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


def beam_plans(s0: GameState, seat: int, *, width: int, depth: int, deadline: float, keep: int,
               clock: Clock = time.perf_counter, weights: Weights = STRONG_WEIGHTS) -> list[Plan]:
    """Best-first beam search over the seat's own moves this turn (constructions, upgrades,
    demolitions, populating, renovating, travel), each move's decisions answered by ``best_choice``,
    until ``clock()`` passes ``deadline``. Returns up to ``keep`` plans by score (``weights``: the
    strong level's unless the master level asks for others), the empty plan (end the turn now)
    included."""
    w = weights
    start = Plan([], [s0], score(s0, seat, w))
    beam = [start]
    finals: list[Plan] = [start]
    for _ in range(depth):
        grown: list[Plan] = []
        for plan in beam:
            s = plan.final
            if s.pending is not None or s.active != seat:
                continue
            for a in candidates(s, seat):
                if clock() > deadline and grown:
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
                    v = score(s3, seat, w)
                else:
                    v = score(s2, seat, w)
                grown.append(Plan(acts, states, v))
        if not grown:
            break
        beam = _distinct(sorted(grown, key=lambda p: -p.value), width)
        finals.extend(beam)
        if clock() > deadline:
            break
    ranked = _distinct(sorted(finals, key=lambda p: -p.value), 4 * keep)
    if not DIVERSE:
        return ranked[:keep]
    # the best plan, then the best plan of each other first move: play-outs compare directions
    out: list[Plan] = []
    firsts: set[object] = set()
    for p in ranked:
        first = p.actions[0] if p.actions else None
        if first not in firsts:
            firsts.add(first)
            out.append(p)
    out += [p for p in ranked if all(p is not q for q in out)]
    return out[:keep]


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


def play_out_turn(s: GameState, seat: int, actions: list[Action]) -> GameState:
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


def play_greedily(s: GameState, go_on: Callable[[GameState], bool], *, quick: bool, max_actions: int,
                  effects: Effects | None = None) -> GameState:
    """Turns played by ``greedy_step`` for whoever is active (travelling only in an income round,
    ``quick`` judging if asked), the questions they raise answered with the best option for whoever
    decides, while ``go_on`` holds of the position, the game is not over and fewer than
    ``max_actions`` moves were made (``effects``: as ``greedy_step``'s)."""
    n = 0
    while not s.finished and go_on(s) and n < max_actions:
        if s.pending is not None:
            s, _ = resolve_pending(s, best_choice)
            continue
        s, _ = apply(s, greedy_step(s, s.active, travel=s.round in INCOME_ROUNDS, quick=quick, effects=effects))
        n += 1
    return s


def _opponents(s: GameState, seat: int, quick: bool, max_actions: int = 40) -> GameState:
    """Let the other players play greedily (single sites per kind of site, no travel unless an
    income is due, ``greedy_step``'s ``quick`` judging if asked) until it is ``seat``'s turn again
    or the game ends."""
    return play_greedily(s, lambda t: t.active != seat, quick=quick, max_actions=max_actions)


#: strong: from how many players the greedy players of a play-out judge their moves quickly
#: (``greedy_step``): with four or five a play-out costs so much that plans got one or two each
QUICK_FROM = 4


#: strong: how many more of its own turns a play-out goes on for (played greedily, each followed
#: by the other players' turns) before the position is scored, by number of players: with two or
#: three, one more round of replies to what it does next, closer to the incomes of rounds 4 and 7
#: (R21); with four or five a round costs too much (three or four greedy turns): twice as many
#: play-outs to the seat's next turn measured better than half as many one round longer
HORIZON: Mapping[int, int] = {2: 1, 3: 1}


def _play_on(s: GameState, seat: int) -> GameState:
    """The other players' turns, then up to ``HORIZON`` more turns of the seat played greedily
    (judged quickly from ``QUICK_FROM`` players)."""
    quick = len(s.players) >= QUICK_FROM
    s = _opponents(s, seat, quick)
    for _ in range(HORIZON.get(len(s.players), 0)):
        if s.finished:
            break
        s = play_greedily(s, lambda t: t.active == seat, quick=quick, max_actions=12)
        s = _opponents(s, seat, quick)
    return s


def exchange_option(hand: Cards) -> Cards:
    """The discard tried for a paid exchange: the single cards when the hand also holds a pair,
    otherwise the whole hand."""
    counts = [hand.count(f) for f in Family]
    singles = Cards(*(1 if c == 1 else 0 for c in counts))
    return singles if 0 < singles.total < hand.total else hand


#: strong: beam width and depth over the turn's moves, how many plans the play-outs compare, and
#: the share of the planning time the beam may use when the clock decides
BEAM_WIDTH = 5
BEAM_DEPTH = 6
PLAN_KEEP = 3
BEAM_SHARE = 0.3
#: strong: compare the best plan with the best plan of each other first move instead of the best
#: few (which often differ only in their last move); measured no better in 36 games, so off
DIVERSE = False


def exchange_turn(det: GameState, seat: int, exchange: Exchange) -> GameState | None:
    """A paid exchange on a determinization, then a greedy turn, ended."""
    try:
        s, _ = apply(det, exchange)
    except RuleError:
        return None
    while not s.finished and s.active == seat and s.pending is None:
        a = greedy_step(s, seat)
        if isinstance(a, EndTurn):
            break
        nxt = _after(s, a)
        if nxt is None:
            break
        s = nxt
    return play_out_turn(s, seat, [])


class PlayoutTimes:
    """The typical duration of a play-out in recent plans, by kind of play-out (a running average of
    each plan's mean, on the player's clock): a play-out is only begun if the longer of that and the
    slowest of the plan so far would still end in time. The kind is what a play-out's length depends
    on: the number of players for strong's; for master's, that and how far it reaches
    (``search.playout_kind``). Thread-safe; one per player."""

    def __init__(self) -> None:
        self._by_kind: dict[Hashable, float] = {}
        self._lock = threading.Lock()

    def typical(self, kind: Hashable) -> float:
        """The typical play-out of this kind, in seconds (0 before the first)."""
        with self._lock:
            return self._by_kind.get(kind, 0.0)

    def record(self, kind: Hashable, typical: float, rounds: Rounds) -> None:
        """Fold the play-outs of ``rounds``, begun when the typical one took ``typical``, into the average."""
        if not rounds.done:
            return
        mean = rounds.spent / rounds.done
        with self._lock:
            self._by_kind[kind] = mean if not typical else 0.5 * (typical + mean)


def strong_plan(
    view: View, seat: int, rng: random.Random, *, time_s: float, iterations: int | None,
    helpers: Helpers | None = None, clock: Clock = time.perf_counter, times: PlayoutTimes | None = None,
) -> list[Action]:
    """The ``strong`` level's plan for the rest of the turn.

    1. A beam search over the seat's own moves, on its view, keeps the best ``PLAN_KEEP`` plans.
    2. If a paid exchange is still possible, it competes as one more plan: on each determinization
       (the unseen cards dealt at random) the exchange, then a greedy turn.
    3. Flat Monte Carlo: every plan is played out on the same determinizations — the plan, the end of
       the turn, the other players' turns played greedily until the seat's next turn, then
       ``HORIZON`` more rounds (the seat's turn and the others', all greedy) — and the position
       scored. ``_pick`` keeps the beam's best plan unless another clearly did better.
       ``iterations`` is the number of play-outs; otherwise they run while ``time_s`` seconds of
       ``clock`` last, a play-out begun only if the typical one (``times``) would end in time.
       With ``helpers``, helper processes play some of the rounds at the same time (on the wall
       clock); the result does not depend on how many do.
    """
    start = clock()
    timed = iterations is None
    deadline_beam = start + time_s * BEAM_SHARE if timed else float("inf")
    s = view.state
    plans = beam_plans(s, seat, width=BEAM_WIDTH, depth=BEAM_DEPTH, deadline=deadline_beam, keep=PLAN_KEEP,
                       clock=clock)
    p = s.players[seat]
    if not (s.exchanged or s.acted or s.swapped) and p.ecus >= 4 and p.hand.total:
        plans.append(Plan([Exchange(seat, exchange_option(p.hand))], [s], plans[0].value - 2.0))
    if len(plans) == 1:
        return plans[0].actions
    seed = rng.getrandbits(64)
    moves = [plan.actions for plan in plans]
    n_players = len(s.players)
    times = times if times is not None else PlayoutTimes()
    typical = times.typical(n_players) if timed else 0.0
    stop = start + time_s if timed else None
    # the helpers' deadline is on the wall clock, which every process shares
    wall = None if stop is None else time.time() + max(0.0, stop - clock())
    early = None if wall is None else wall - EARLY_S  # its answer is back when ours is done
    helping = (helpers.submit(play_rounds, view, seat, moves, seed, iterations, early, typical=typical)
               if helpers is not None else Batch(None, []))
    step = len(helping.futures) + 1
    own = play_rounds(view, seat, moves, seed, iterations, stop, first=0, step=step, typical=typical, clock=clock)
    if timed:
        times.record(n_players, typical, own)
    found = [own] + (helpers.collect(helping, wall) if helpers is not None else [])
    for rounds in found:
        for (r, k), v in rounds.scores.items():
            plans[k].samples[r] = v
    if iterations is not None:  # a helper that failed: its rounds are played here, for the same result
        n_rounds = -(-iterations // len(plans))
        for r in range(n_rounds):
            if r not in plans[0].samples:
                missed = play_rounds(view, seat, moves, seed, iterations, None, first=r, step=n_rounds)
                for (r2, k), v in missed.scores.items():
                    plans[k].samples[r2] = v
    return _pick(plans).actions


@dataclass
class Rounds:
    """What ``play_rounds`` found: the scores by (round, plan), and how many play-outs it timed and
    how long they took in all (only with a deadline)."""

    scores: dict[tuple[int, int], float] = field(default_factory=dict)
    done: int = 0
    spent: float = 0.0


def play_rounds(
    view: View, seat: int, moves: list[list[Action]], seed: int, iterations: int | None, deadline: float | None,
    first: int = 0, step: int = 1, *, typical: float = 0.0, clock: Clock = time.time,
) -> Rounds:
    """Play-outs of the plans ``moves`` (see ``strong_plan``), round by round: in round ``r`` every
    plan is played out on one determinization, dealt by a generator seeded with ``seed`` and ``r``
    alone, so that a round comes out the same in whichever process plays it. This process plays
    rounds ``first``, ``first + step``, ... — play-out ``r * len(moves) + k`` is plan ``k`` in
    round ``r`` — up to ``iterations`` play-outs in all, or while ``clock()`` (the wall clock unless
    told) is before ``deadline``: a play-out is begun only if the longer of ``typical`` and the
    slowest one so far would end by then."""
    out = Rounds()
    n_plans = len(moves)
    stop = deadline if deadline is not None else float("inf")
    slowest = typical if deadline is not None else 0.0
    r = first
    going = True
    while going and (iterations is None or r * n_plans < iterations):
        det = determinize(view, random.Random(mix_seed(seed, r)))
        for k, actions in enumerate(moves):
            began = clock()
            if (iterations is not None and r * n_plans + k >= iterations) or began + slowest > stop:
                going = False
                break
            out.scores[r, k] = _play_out(det, seat, actions)
            if deadline is not None:
                took = clock() - began
                out.done += 1
                out.spent += took
                slowest = max(slowest, took)
        r += step
    return out


def _play_out(det: GameState, seat: int, actions: list[Action]) -> float:
    """The score of one play-out of a plan on a determinization (a plan that begins with a paid
    exchange: the exchange and a greedy turn)."""
    head = actions[0] if actions else None
    end = exchange_turn(det, seat, head) if isinstance(head, Exchange) else play_out_turn(det, seat, actions)
    return -1e9 if end is None else score(_play_on(end, seat), seat, STRONG_WEIGHTS)


#: strong: how much better (in Ecus, on the same determinizations) a plan must play out than the
#: beam's best plan to be preferred to it, and how many standard errors of the difference
MC_MARGIN = 1.0
MC_SIGMAS = 1.0


def _pick(plans: list[Plan]) -> Plan:
    """The beam's best plan (``plans[0]``) unless another plan played out better on the same
    determinizations (rounds) by more than ``MC_MARGIN`` and ``MC_SIGMAS`` standard errors."""
    base = plans[0]
    best, best_gain = base, 0.0
    for pl in plans[1:]:
        rounds = [r for r in pl.samples if r in base.samples]
        n = len(rounds)
        if n < 2:
            continue
        diffs = [pl.samples[r] - base.samples[r] for r in rounds]
        mean = statistics.fmean(diffs)
        se = statistics.stdev(diffs) / n**0.5
        if mean > max(MC_MARGIN, MC_SIGMAS * se) and mean > best_gain:
            best, best_gain = pl, mean
    return best


__all__ = [
    "Clock",
    "Effects",
    "Plan",
    "PlayoutTimes",
    "Rounds",
    "beam_plans",
    "best_choice",
    "decide",
    "exchange_option",
    "exchange_turn",
    "fingerprint",
    "greedy_action",
    "greedy_step",
    "play_out_turn",
    "play_rounds",
    "random_action",
    "strong_plan",
]

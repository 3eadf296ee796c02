"""The ``master`` level's search, and the analysis a hint or a review asks of it.

**Information-set Monte Carlo tree search over whole-turn plans**, from the seat's view only:

* **A move is a whole turn.** The root's children are plans for the rest of the seat's turn (its
  own moves and the decisions they raise for it), found by the strong level's beam search on the
  view (``levels.beam_plans``, the best ``ROOT_PLANS`` distinct positions; with another
  ``EVALUATION`` than strong's, the best of the positions it reached by that one), the turn the greedy level
  would play (``greedy_plan``: always a plan, the anchor if the beam found nothing better), a paid
  exchange when one is still possible (third in the order widening opens them). A plan the caller
  adds (a review adds the turn that was played) takes no part in the search: see *Confirming*.
* **Every iteration deals the unseen cards again** (``common.determinize``: the other hands at their
  known sizes and the draw pile, from the seat's view; never the real hands, deck or generator),
  plays the chosen plan on that deal, ends the turn, lets the other players play their turns
  greedily (``greedy_step``, judged quickly) and **cuts the play-out at the seat's next turn** — the
  end of the round as the seat sees it — where the position is scored by the evaluation
  (``evaluation``: ``evaluate.score`` with the strong level's weights, estimated final Ecus minus
  half the best-placed rival's; ``EVALUATION`` switches to the fitted evaluation), or, if
  the game has ended, by the margin over the best other player and a bonus for a
  win (``leaf_score``). When an income is near (``INCOME_REACH``: from rounds 3 and 6), the
  play-out goes on instead, every player's turns (the seat's own too) played greedily, through it:
  to the end of round 4 or of the game (``reach``). Below the root the seat's information sets
  almost never repeat (it has drawn different cards on every deal, and the others' turns depend on
  their dealt hands), so the tree is the root and its plans; the play-out policy stands for
  everything below it.
* **Common deals.** A plan's ``j``-th visit is played on deal ``j`` (dealt by a generator seeded with
  the search's seed and ``j`` alone), and the beam's best plan (the *anchor*) is played on every deal
  any plan has reached. Plans are then compared by their difference from the anchor on the same
  deals, which removes most of the luck of the deal from the comparison.
* **Selection and progressive widening.** The plans enter the search in the beam's order: after
  ``t`` play-outs the first ``ceil(WIDEN_C * t ** WIDEN_ALPHA)`` (besides the anchor) may be chosen.
  A plan not yet visited is tried first; otherwise UCB1 on the difference from the anchor:
  ``gain + UCB_C * spread * sqrt(ln t / n)``, ``spread`` the standard deviation of the differences
  seen so far (at least ``MIN_SPREAD`` Ecus).
* **The choice.** The anchor, unless a plan compared with it on ``MIN_DEALS`` deals or more did
  better on them by more than ``MARGIN`` Ecus and by more than ``SIGMAS`` standard errors of the
  difference (a few lucky deals should not overturn a sound plan); of those, the one with the
  largest gain.

* **Confirming (a review).** After the search has chosen, the plans the caller adds (``extra``) join
  it (those not among its plans already), and the chosen plan, the anchor and each added plan are
  played out on at least ``deals`` common deals (the same deals ``0 … deals-1`` for all of them;
  with ``deals`` 0, on as many as the chosen plan had), so that the cost of an added plan against
  the chosen one (``Analysis.cost``) and its standard error (``Analysis.cost_error``) rest on
  enough deals. The choice stays the search's: the same view, seed and ``iterations`` choose the
  same plan with or without ``extra`` (what a hint says, what the master level plays).

``iterations`` fixes the number of play-outs (no clock: the result depends only on the view, the
seed and ``iterations``); otherwise the search runs while ``time_s`` seconds of ``clock`` last, a
play-out begun only if the slowest one so far (and the typical one, remembered by the player for
each ``playout_kind``) would end in time.

``analyse`` is the interface for a hint and a review: the best action for a seat, the value of the
position, and the plans it compared with their expected Ecus, income and domains.
"""

from __future__ import annotations

import functools
import math
import random
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from rules import INCOME_ROUNDS, Action, Choose, EndTurn, Exchange, GameState, RuleError, apply

from .common import View, determinize, end_turn, fingerprint, mix_seed, project, resolve_pending
from .evaluate import Facts, Weights, facts, fitted_score, fitted_value, score, value
from .levels import (
    STRONG_WEIGHTS,
    Clock,
    Effects,
    Plan,
    beam_plans,
    best_choice,
    decide,
    exchange_option,
    exchange_turn,
    greedy_step,
    play_greedily,
    play_out_turn,
)

#: master: how many of the beam's plans compete at the root, the beam's width and depth, and the
#: share of the search's time the beam may use
ROOT_PLANS = 8
BEAM_WIDTH = 5
BEAM_DEPTH = 6
BEAM_SHARE = 0.5
#: master: progressive widening (plans that may be chosen after ``t`` play-outs, the anchor aside)
WIDEN_C = 1.0
WIDEN_ALPHA = 0.5
#: master: UCB1's exploration constant, and the least spread of the differences it assumes (Ecus)
UCB_C = 1.0
MIN_SPREAD = 2.0
#: master: how much better than the anchor (Ecus, on the same deals) a plan must play out, and by how
#: many standard errors of the difference, to be chosen instead
MARGIN = 0.5
SIGMAS = 1.0
#: master: the fewest common deals on which a plan must have been compared with the anchor to be
#: chosen instead (with two, the standard error itself is a guess; under load a turn may make few)
MIN_DEALS = 3
#: master: how many turns of each other player a play-out lets pass before it is scored (1: to the
#: seat's next turn); more only with two players, where a round is one greedy turn
ROUNDS: Mapping[int, int] = {2: 2}
#: master: play-outs that reach the income they are about (R21). For each income round, how many rounds
#: ahead of it the seat's turn may be for its play-outs to go on through that income — every player's
#: turns, the seat's own included, played by the play-outs' greedy policy — to the end of that round
#: (round 7: the end of the game, scored by ``leaf_score``) instead of being cut at the seat's next
#: turn. A round not listed, or ``{}``: the play-out is cut at the seat's next turn (``ROUNDS``), as
#: before this switch. Measured on the same seeds against ``{}`` (docs/ai.md, "Play-outs through the
#: next income"): a little better in every figure, within the noise
INCOME_REACH: Mapping[int, int] = {4: 1, 7: 1}
#: master: the evaluation of its play-outs' ends and of its root plans, a switch for experiments:
#: "strong" (``evaluate.score`` with the strong level's weights), "fitted" (``evaluate.fitted_score``: the
#: final Ecus as fitted on games, minus half the best other player's) or "tuned" (``TUNED_WEIGHTS``).
#: Neither of the last two won more games on the same seeds (docs/ai.md, "The fitted evaluation")
EVALUATION = "strong"
#: master: the strong level's weights with later incomes valued as the fit found them (``EVALUATION``
#: "tuned"): income held by a level-1 top building or a tied lead worth almost nothing, a firm one in full
TUNED_WEIGHTS = replace(STRONG_WEIGHTS, future=1.0, risk=(0.9, 0.25, 0.0))
#: master: what a win is worth (Ecus) to a play-out that reaches the end of the game, on top of the
#: margin over the best of the other players
WIN_BONUS = 10.0
#: master: how much of the best-placed other player's estimated final Ecus its evaluation subtracts,
#: by number of players (at the play-outs' ends and in the beam's ranking of the root's plans; the
#: strong level's 0.5 where not given). At 1.0 the score is the seat's lead over that player, which is
#: what decides a game one or two players win with most of the income between them (docs/ai.md,
#: "Measured"); the end of the game is scored so already (``leaf_score``). A switch for experiments:
#: with the strong level's evaluation only (``EVALUATION`` "strong" or "tuned")
RIVALRY: Mapping[int, float] = {}
#: master: how many plans of a second beam, which values income held loosely as the fitted evaluation
#: does (``FIRM_WEIGHTS``: a domain topped by a level-1 building, a tied Reason lead, worth little; a
#: level above 1 worth 2 Ecus), join the root's plans (those not among them already, after the second):
#: plans that make a domain's income safe, for the play-outs to weigh against the beam's. A switch
#: for experiments
FIRM_PLANS = 0
#: master: the beam's plans at the root told apart by what they leave on the boards and in the seat's
#: hand and supply, not by where its pawns stand, except in an income round (the best plan of each such
#: position kept): without it most of the root's plans can be the beam's best with a pointless travel
#: or two at its end (each an Ecu worse, on every deal), and the search compares the same turn with
#: itself. A switch for experiments
DISTINCT_BOARDS = False
FIRM_WEIGHTS = replace(TUNED_WEIGHTS, security=2.0)


@dataclass(frozen=True)
class Alternative:
    """One plan the search compared: its actions (the rest of the seat's turn; a plan made on the
    view), how often it was played out, and what it is worth to the seat.

    ``value`` is the mean score of its play-outs (the seat's estimated final Ecus minus half the
    best-placed rival's; for a play-out that ends the game, ``leaf_score``), ``gain`` its mean
    difference from the anchor (the first plan, the beam's best) on the same deals, ``ecus`` the
    seat's estimated final Ecus (mean over the play-outs; for a plan never played out, on the view
    right after it, as ``value`` is then the evaluation's), ``income`` what the seat's two best
    boards would pay at an income right after the plan and ``domains`` how many domains it controls
    then (on its view, any question it stops at answered as the search reckons; no play-out needed).
    ``prior`` is the evaluation's score of where it leads (the root's ranking). ``error`` is the
    standard error of ``gain`` (0 for the anchor, and with fewer than two deals), ``scores`` the
    play-outs' scores by deal (the ``j``-th on deal ``j``, as for every plan: plans compare deal by deal)
    and ``estimates`` the seat's estimated final Ecus by deal (``ecus`` is their mean)."""

    actions: tuple[Action, ...]
    visits: int
    value: float
    gain: float
    ecus: float
    income: int
    domains: int
    prior: float
    error: float = 0.0
    scores: tuple[float, ...] = ()
    estimates: tuple[float, ...] = ()


@dataclass(frozen=True)
class Analysis:
    """What the search found for ``seat``: the action to play now (the first of the best plan), the
    value of the position (the best plan's mean score, see ``Alternative``), and every plan it
    compared, the chosen one first, then by gain. ``iterations`` is the number of play-outs made.
    At a decision the alternatives are the options (each one action), valued without play-outs."""

    seat: int
    best_action: Action
    value: float
    alternatives: tuple[Alternative, ...]
    iterations: int

    @property
    def best(self) -> Alternative:
        return self.alternatives[0]

    def find(self, actions: Sequence[Action]) -> Alternative | None:
        """The alternative whose plan is ``actions`` (e.g. a turn that was played), or None."""
        wanted = tuple(actions)
        for alt in self.alternatives:
            if alt.actions == wanted:
                return alt
        return None

    def cost(self, actions: Sequence[Action]) -> float | None:
        """How many points (the search's score, in Ecus) the plan ``actions`` is expected to lose
        against the best one, on the same deals; None if it was not compared (pass it to
        ``analyse`` as ``extra``)."""
        alt = self.find(actions)
        if alt is None:
            return None
        return max(0.0, self.best.gain - alt.gain)

    def cost_error(self, actions: Sequence[Action]) -> float | None:
        """The standard error of ``cost(actions)``: of the difference between the best plan's score
        and this plan's on the deals both were played out on (0 for the best plan itself, infinite on
        fewer than two common deals); None if it was not compared."""
        alt = self.find(actions)
        if alt is None:
            return None
        if alt.actions == self.best.actions:
            return 0.0
        d = [b - x for b, x in zip(self.best.scores, alt.scores, strict=False)]
        if len(d) < 2:
            return math.inf
        return statistics.stdev(d) / math.sqrt(len(d))


class Search:
    """One search from one view: the root's plans, their play-outs on common deals, the choice."""

    def __init__(self, view: View, seat: int, plans: list[tuple[list[Action], float]], seed: int) -> None:
        self.view = view
        self.seat = seat
        self.plans = plans
        self.seed = seed
        #: scores and the seat's estimated final Ecus of each plan's play-outs, by deal
        self.samples: list[list[float]] = [[] for _ in plans]
        self.ecus: list[list[float]] = [[] for _ in plans]
        self._deals: list[GameState] = []
        self.playouts = 0
        self.slowest = 0.0
        self.spent = 0.0
        #: what the play-outs' greedy steps judged, for the later play-outs of this search
        self.effects = Effects()

    def deal(self, j: int) -> GameState:
        """Deal ``j``: the unseen cards dealt again, from a generator seeded by the seed and ``j``."""
        while len(self._deals) <= j:
            k = len(self._deals)
            self._deals.append(determinize(self.view, random.Random(mix_seed(self.seed, "deal", k))))
        return self._deals[j]

    def next_plan(self) -> int:
        """The plan to play out next (``select``), or the anchor when it has fallen behind on deals."""
        k = self.select()
        if len(self.samples[0]) <= len(self.samples[k]):
            return 0
        return k

    def select(self) -> int:
        """Progressive widening, unvisited plans first, then UCB1 on the gain over the anchor."""
        n = len(self.plans)
        if n == 1:
            return 0
        t = max(1, self.playouts)
        width = min(n - 1, max(1, math.ceil(WIDEN_C * t**WIDEN_ALPHA)))
        open_ = range(1, 1 + width)
        for k in open_:
            if not self.samples[k]:
                return k
        spread = max(MIN_SPREAD, self._spread())
        log_t = math.log(t + 1)

        def ucb(k: int) -> float:
            return self.gain(k) + UCB_C * spread * math.sqrt(log_t / len(self.samples[k]))

        return max(open_, key=lambda k: (ucb(k), -k))

    def play(self, k: int, clock: Clock) -> None:
        """One play-out of plan ``k`` on its next deal."""
        began = clock()
        end = play_out(self.deal(len(self.samples[k])), self.seat, self.plans[k][0], self.effects)
        self.samples[k].append(leaf_score(end, self.seat) if end is not None else -1e9)
        self.ecus[k].append(estimate(end, self.seat) if end is not None else 0.0)
        took = clock() - began
        self.playouts += 1
        self.spent += took
        self.slowest = max(self.slowest, took)

    def diffs(self, k: int) -> list[float]:
        base = self.samples[0]
        return [x - base[j] for j, x in enumerate(self.samples[k]) if j < len(base)]

    def gain(self, k: int) -> float:
        d = self.diffs(k)
        return statistics.fmean(d) if d else 0.0

    def error(self, k: int) -> float:
        """The standard error of ``gain(k)`` (0 on fewer than two deals)."""
        d = self.diffs(k)
        return statistics.stdev(d) / math.sqrt(len(d)) if len(d) >= 2 else 0.0

    def join(self, actions: Sequence[Action]) -> int:
        """Plan ``actions`` among the plans (added last, at the beam score of where it leads, if it is
        not one already); its index."""
        wanted = list(actions)
        for k, (a, _) in enumerate(self.plans):
            if a == wanted:
                return k
        self.plans.append((wanted, _prior(self.view.state, self.seat, wanted)))
        self.samples.append([])
        self.ecus.append([])
        return len(self.plans) - 1

    def confirm(self, chosen: int, added: Sequence[int], deals: int, clock: Clock) -> None:
        """The chosen plan, the ``added`` ones and the anchor played out on the same deals: at least
        ``deals`` of them, and as many as the chosen or an added plan has had already (deal by deal,
        so that every two compare on all of them)."""
        ks = sorted({chosen, *added} - {0})
        target = max([deals, len(self.samples[chosen]), *(len(self.samples[k]) for k in added)])
        for j in range(target):
            for k in (0, *ks):
                if len(self.samples[k]) <= j:
                    self.play(k, clock)

    def _spread(self) -> float:
        d = [x for k in range(1, len(self.plans)) for x in self.diffs(k)]
        return statistics.pstdev(d) if len(d) >= 2 else 0.0

    def choice(self) -> int:
        """The anchor, unless another plan did clearly better on the same deals (``MARGIN``,
        ``SIGMAS``)."""
        best, best_gain = 0, 0.0
        for k in range(1, len(self.plans)):
            d = self.diffs(k)
            if len(d) < MIN_DEALS:
                continue
            mean = statistics.fmean(d)
            se = statistics.stdev(d) / len(d) ** 0.5
            if mean > max(MARGIN, SIGMAS * se) and mean > best_gain:
                best, best_gain = k, mean
        return best


def weights(players: int) -> Weights:
    """The weights of the master level's evaluation with ``players`` players (``EVALUATION`` "strong"
    or "tuned", and ``RIVALRY``)."""
    base = TUNED_WEIGHTS if EVALUATION == "tuned" else STRONG_WEIGHTS
    rivalry = RIVALRY.get(players)
    return base if rivalry is None or rivalry == base.rivalry else _rivalled(base, rivalry)


@functools.cache
def _rivalled(base: Weights, rivalry: float) -> Weights:
    return replace(base, rivalry=rivalry)


def evaluation(s: GameState, seat: int, known: Facts | None = None) -> float:
    """The master level's evaluation of ``s`` for ``seat`` (``EVALUATION``): the seat's estimated
    final Ecus minus a share (``RIVALRY``; half by default) of the best-placed other player's."""
    if EVALUATION == "fitted":
        return fitted_score(s, seat, known)
    return score(s, seat, weights(len(s.players)), known)


def estimate(s: GameState, seat: int) -> float:
    """The seat's estimated final Ecus in ``s`` by the master level's evaluation (``EVALUATION``)."""
    if EVALUATION == "fitted":
        return fitted_value(s, seat)
    return value(s, seat, TUNED_WEIGHTS if EVALUATION == "tuned" else STRONG_WEIGHTS)


def leaf_score(s: GameState, seat: int) -> float:
    """The score of a play-out's end for ``seat``: the evaluation (``evaluation``) while the game
    goes on; at the end of the game, what decides it (R22): the seat's Ecus minus the best of the
    others' in full, and ``WIN_BONUS`` for a win (shared by the winners)."""
    if not s.finished:
        return evaluation(s, seat)
    ecus = [p.ecus for p in s.players]
    best_other = max(e for j, e in enumerate(ecus) if j != seat)
    won = WIN_BONUS / len(s.winners) if seat in s.winners else 0.0
    return ecus[seat] - best_other + won


def reach(s: GameState) -> int | None:
    """The round through whose end a play-out begun in ``s`` (in the seat's turn) goes on, every
    player's turns played greedily: the next income round (R21) if it is a later round and at most
    ``INCOME_REACH`` rounds ahead; None if the play-out is cut at the seat's next turn (``ROUNDS``)."""
    for income in INCOME_ROUNDS:
        if s.round < income:
            return income if income - s.round <= INCOME_REACH.get(income, 0) else None
    return None


def playout_kind(s: GameState) -> tuple[int, int]:
    """What the length of a play-out from ``s`` depends on, for the player's record of how long one
    takes: the number of players and how many rounds ahead it reaches (0: to the seat's next turn)."""
    through = reach(s)
    return (len(s.players), 0 if through is None else through - s.round)


def play_out(det: GameState, seat: int, actions: Sequence[Action], effects: Effects | None = None) -> GameState | None:
    """A plan played on a deal: the plan (a paid exchange: then a greedy turn), the end of the turn,
    the other players' turns played greedily (judged quickly) until the seat's next turn — with two
    players, ``ROUNDS`` turns of each — then, if an income is near (``reach``), every player's turns
    played so to the end of its round; the position reached, or None if the plan cannot be played.
    ``effects``: what the greedy steps of the search's earlier play-outs judged (``greedy_step``)."""
    through = reach(det)
    head = actions[0] if actions else None
    if isinstance(head, Exchange):
        s = exchange_turn(det, seat, head)
        if s is None:
            return None
    else:
        s = play_out_turn(det, seat, list(actions))
    rounds = ROUNDS.get(len(s.players), 1)
    for r in range(rounds):
        s = _others(s, seat, effects)
        if r + 1 < rounds and not s.finished:
            s = _own_turn(s, seat, effects)
    if through is not None:
        s = _through(s, through, effects)
    return s


def _through(s: GameState, last_round: int, effects: Effects | None, max_actions: int = 300) -> GameState:
    """Every player's turns, each played by ``greedy_step`` judged quickly (as ``_others``), until
    the end of round ``last_round`` (the first turn of the next round) or of the game."""
    return play_greedily(s, lambda t: t.round <= last_round, quick=True, max_actions=max_actions, effects=effects)


def _others(s: GameState, seat: int, effects: Effects | None, max_actions: int = 40) -> GameState:
    """The other players' turns, each played by ``greedy_step`` judged quickly, until it is
    ``seat``'s turn again or the game ends."""
    return play_greedily(s, lambda t: t.active != seat, quick=True, max_actions=max_actions, effects=effects)


def _own_turn(s: GameState, seat: int, effects: Effects | None, max_actions: int = 12) -> GameState:
    """The seat's own later turn, played greedily (judged quickly)."""
    return play_greedily(s, lambda t: t.active == seat, quick=True, max_actions=max_actions, effects=effects)


def root_plans(view: View, seat: int, *, deadline: float, clock: Clock) -> list[tuple[list[Action], float]]:
    """The root's plans with their beam score, in the order widening opens them: the beam's best
    ``ROOT_PLANS`` distinct positions, and a paid exchange if one is still possible (the exchange then
    a greedy turn, third: a different kind of turn should be tried early)."""
    s = view.state
    if EVALUATION != "strong":
        # the beam (strong's weights) proposes; the master level's evaluation ranks what it found
        beam = beam_plans(s, seat, width=BEAM_WIDTH, depth=BEAM_DEPTH, deadline=deadline, keep=4 * ROOT_PLANS,
                          clock=clock)
        ranked = sorted(((p.actions, evaluation(resolve_pending(p.final, best_choice)[0], seat)) for p in beam),
                        key=lambda ap: -ap[1])
        plans = ranked[:ROOT_PLANS]
    else:
        beam = beam_plans(s, seat, width=BEAM_WIDTH, depth=BEAM_DEPTH, deadline=deadline,
                          keep=4 * ROOT_PLANS if DISTINCT_BOARDS else ROOT_PLANS, clock=clock,
                          weights=weights(len(s.players)))
        if DISTINCT_BOARDS:
            beam = _distinct_boards(beam, seat, pawns=s.round in INCOME_ROUNDS)[:ROOT_PLANS]
        plans = [(p.actions, p.value) for p in beam]
    greedy = greedy_plan(s, seat)
    if all(a != greedy for a, _ in plans):
        # the greedy level's own turn always competes; the anchor if the beam found nothing better
        prior = _prior(s, seat, greedy)
        plans.insert(0 if prior > plans[0][1] else 1, (greedy, prior))
    if FIRM_PLANS:
        w = replace(FIRM_WEIGHTS, rivalry=weights(len(s.players)).rivalry)
        firm = beam_plans(s, seat, width=BEAM_WIDTH, depth=BEAM_DEPTH, deadline=deadline, keep=ROOT_PLANS,
                          clock=clock, weights=w)
        new = [p.actions for p in firm if all(a != p.actions for a, _ in plans)][:FIRM_PLANS]
        for k, actions in enumerate(new):
            plans.insert(min(2 + k, len(plans)), (actions, _prior(s, seat, actions)))
    p = s.players[seat]
    if not (s.exchanged or s.acted or s.swapped) and p.ecus >= 4 and p.hand.total:
        # third in line, not last: a different kind of turn, which widening should reach early
        plans.insert(min(2, len(plans)), ([Exchange(seat, exchange_option(p.hand))], plans[0][1] - 2.0))
    return plans


def _distinct_boards(plans: Sequence[Plan], seat: int, *, pawns: bool) -> list[Plan]:
    """The first of ``plans`` (best first) of each position they lead to, told apart by the buildings on
    the boards and the seat's hand and supply, and by where its pawns stand only with ``pawns``."""
    seen: set[tuple[object, ...]] = set()
    out: list[Plan] = []
    for p in plans:
        s = p.final
        me = s.players[seat]
        key = (
            tuple(frozenset((b.kind, b.origin, b.owner, b.ruin, b.population, b.marker)
                            for b in board.buildings.values()) for board in s.boards),
            me.hand, me.supply, tuple(me.pawns) if pawns else (), s.pending is not None,
        )
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def greedy_plan(s: GameState, seat: int, max_actions: int = 12) -> list[Action]:
    """The turn the ``greedy`` level would play from the view ``s`` (its own moves need no hidden
    information): ``greedy_step`` until it ends the turn, the decisions its moves raise for the seat
    answered by ``best_choice``; the plan stops at a decision addressed to another player."""
    actions: list[Action] = []
    cur = s
    while len(actions) < max_actions and not cur.finished and cur.active == seat and cur.pending is None:
        a = greedy_step(cur, seat)
        if isinstance(a, EndTurn):
            break
        try:
            cur, _ = apply(cur, a)
        except RuleError:
            break
        actions.append(a)
        while cur.pending is not None and cur.pending.decision.player == seat:
            c = best_choice(cur)
            cur, _ = apply(cur, c)
            actions.append(c)
    return actions


def _prior(s: GameState, seat: int, actions: list[Action]) -> float:
    """The beam's score of where ``actions`` lead on the view (a plan that cannot be played there,
    or that begins with an exchange, counts as the position before it)."""
    cur, _ = resolve_pending(_led_to(s, actions), best_choice)
    return evaluation(cur, seat)


def _led_to(s: GameState, actions: Sequence[Action]) -> GameState:
    """Where ``actions`` lead on ``s``: played up to an exchange (whose draw the view cannot know) or
    an action the position refuses, whichever comes first."""
    cur = s
    for a in actions:
        if isinstance(a, Exchange):
            break
        try:
            cur, _ = apply(cur, a)
        except RuleError:
            break
    return cur


def search(view: View, seat: int, rng: random.Random, *, time_s: float, iterations: int | None,
           clock: Clock = time.perf_counter, typical: float = 0.0) -> Search:
    """Run the search (see the module docstring) from ``view`` for ``seat``, whose turn it is and who
    has no decision to take; ``typical`` is the length of a play-out the player remembers."""
    start = clock()
    timed = iterations is None
    deadline_beam = start + time_s * BEAM_SHARE if timed else float("inf")
    plans = root_plans(view, seat, deadline=deadline_beam, clock=clock)
    found = Search(view, seat, plans, rng.getrandbits(64))
    if len(plans) == 1:
        return found
    stop = start + time_s
    while True:
        if iterations is not None:
            if found.playouts >= iterations:
                break
        elif clock() + max(found.slowest, typical) > stop:
            break
        found.play(found.next_plan(), clock)
    return found


def analyse_view(view: View, seat: int, rng: random.Random, *, time_s: float, iterations: int | None,
                 clock: Clock = time.perf_counter, typical: float = 0.0,
                 extra: Sequence[Sequence[Action]] = (), deals: int = 0) -> tuple[Analysis, Search | None]:
    """``analyse`` on a view already made (the master player's way in); also returns the search."""
    s = view.state
    if s.pending is not None:
        return _analyse_decision(view, seat, rng), None
    found = search(view, seat, rng, time_s=time_s, iterations=iterations, clock=clock, typical=typical)
    k = found.choice()
    if extra:  # confirming: the added plans join after the choice, which they leave as it is
        added = [found.join(a) for a in extra]
        found.confirm(k, added, deals, clock)
    alts = [_alternative(found, j) for j in range(len(found.plans))]
    chosen = alts[k]
    rest = sorted((a for j, a in enumerate(alts) if j != k), key=lambda a: (-a.gain, -a.prior))
    first = chosen.actions[0] if chosen.actions else end_turn(s, seat)
    return Analysis(seat, first, chosen.value, (chosen, *rest), found.playouts), found


def _alternative(found: Search, k: int) -> Alternative:
    actions, prior = found.plans[k]
    view = found.view.state
    # (a plan that stops at another player's question: its income and domains once answered as the
    # search reckons, not those of the unsettled board in between, which pays no one: R62, R78)
    cur, _ = resolve_pending(_led_to(view, actions), best_choice)
    f = facts(cur)
    seat = found.seat
    incomes = sorted((f[0].income[seat], f[1].income[seat], f[2].income[seat]), reverse=True)
    samples = found.samples[k]
    return Alternative(
        actions=tuple(actions),
        visits=len(samples),
        value=statistics.fmean(samples) if samples else prior,
        gain=found.gain(k),
        ecus=statistics.fmean(found.ecus[k]) if found.ecus[k] else estimate(cur, seat),
        income=incomes[0] + incomes[1],
        domains=f[0].domains[seat] + f[1].domains[seat],
        prior=prior,
        error=found.error(k),
        scores=tuple(samples),
        estimates=tuple(found.ecus[k]),
    )


def _analyse_decision(view: View, seat: int, rng: random.Random) -> Analysis:
    """A decision addressed to ``seat``: its options valued as the strong level's ``decide`` does."""
    s = view.state
    assert s.pending is not None
    chosen = decide(view, seat, rng, samples=2)
    det = determinize(view, rng)
    alts = []
    for cell in s.pending.decision.options:
        c = Choose(seat, cell)
        try:
            after, _ = apply(det, c)
        except RuleError:
            continue
        after, _ = resolve_pending(after, best_choice)
        f = facts(after)
        incomes = sorted((f[0].income[seat], f[1].income[seat], f[2].income[seat]), reverse=True)
        v = evaluation(after, seat, f)
        alts.append(Alternative((c,), 0, v, 0.0, estimate(after, seat), incomes[0] + incomes[1],
                                f[0].domains[seat] + f[1].domains[seat], v))
    best = [a for a in alts if a.actions == (chosen,)]
    rest = sorted((a for a in alts if a.actions != (chosen,)), key=lambda a: -a.value)
    top = best[0] if best else Alternative((chosen,), 0, 0.0, 0.0, 0.0, 0, 0, 0.0)
    return Analysis(seat, chosen, top.value, (top, *rest), 0)


def analyse(state: GameState, seat: int, *, seed: int, budget_s: float = 2.0, iterations: int | None = None,
            clock: Clock = time.perf_counter, extra: Sequence[Sequence[Action]] = (), deals: int = 0) -> Analysis:
    """What the ``master`` level would do for ``seat`` now, and why: the best action, the value of
    the position and the plans it compared (``Analysis``). For a hint: ``best_action`` and the best
    alternative's expected Ecus, income and domains. For a review: pass the turn that was played (its
    actions from the start of the turn, in a state at that start) as ``extra``, the common deals
    wanted as ``deals``, and read ``Analysis.cost`` and ``Analysis.cost_error`` of it: the search
    chooses as it would without ``extra``, then confirms (module docstring).

    It sees only ``seat``'s view of ``state`` (``rules.view_for``). ``budget_s`` seconds of
    ``clock``, or exactly ``iterations`` play-outs (then the result depends only on the view,
    ``seed`` and ``iterations``, and its best action is the one a new ``master`` player given the same
    seed and ``iterations`` plays). Raises ``ValueError`` if ``seat`` has nothing to do."""
    if state.finished:
        raise ValueError("the game is over")
    if state.waiting_on != seat:
        raise ValueError(f"seat {seat} has nothing to do now (the game waits on seat {state.waiting_on})")
    view = project(state, seat)
    rng = random.Random(mix_seed(seed, "master", iterations, seat, fingerprint(view.state)))  # as the player's
    return analyse_view(view, seat, rng, time_s=budget_s, iterations=iterations, clock=clock, extra=extra,
                        deals=deals)[0]


__all__ = ["Alternative", "Analysis", "Search", "analyse", "analyse_view", "greedy_plan", "play_out", "playout_kind",
           "reach", "root_plans", "search"]

"""The evaluation function shared by the ``greedy``, ``strong`` and ``master`` levels, and a fitted
one the ``master`` level can be switched to (``search.EVALUATION``).

A position is worth, to one player, an estimate of the Ecus he will hold at the end of the game
(R22: the most Ecus wins). It adds up, in Ecus:

* **Ecus in hand** — counted in full (construction bonuses, R28, show up here at once).
* **Income due at the end of this turn** — when the player is the active one in round 4 or 7, what
  ``rules.income`` pays him now on the boards where his pawns stand (R21, R73–R77), in full.
* **Income prospects** — for every later income (rounds 4 and 7 still ahead of his own turn), what
  his two best boards would pay today (``rules.income`` on Might, Faith and Reason; two pawns can
  stand on two boards), discounted by ``future`` because the boards will change before then.
* **Domain control** — ``control`` per domain whose top Military (Might) or Religious (Faith)
  building carries his cube, plus ``security`` for each level of that top building above 1 (a Keep is
  harder to take over than a Watchtower, a Castle cannot be topped). This is what lets a building
  with no Civil neighbour yet count for something.
* **Cubes in supply** and **cards in hand** — small amounts (``cube`` and ``card`` each), mostly to
  break ties in favour of the cheaper of two equal actions.

A player's *score* is his value minus ``rivalry`` times the mean value of the other players, so that
harming a rival's domain counts too. With ``lead`` above 0 that share is moved from the mean towards
the best-placed other player (``lead`` = 1: only he counts), which is what winning needs: a Town
that pays the leader's domain costs more than a Town that pays a trailing player's. ``score`` is what
the AI maximises.

**The fitted evaluation** (``fitted_value``, ``fitted_score``; an experiment: the ``master`` level
with it won no more games than with the strong level's weights, docs/ai.md): the same
kind of estimate of the final Ecus, linear in a player's ``features`` with coefficients fitted by
least squares on the outcomes of greedy games (``FITTED``, by number of players and round, from
``bench/evalfit.py``): the slopes shared by all rounds, an intercept per round, an Ecu in hand
counted as one, cubes and cards at the hand-set 0.02 and 0.15 (fitted freely they stood for other
things — the fitted values made a greedy player lose). Its score is the value minus half the best
other player's, as the strong level's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from rules import INCOME_ROUNDS, ROUNDS, Age, Building, Domains, GameState, Kind, domains


@dataclass(frozen=True, slots=True)
class Weights:
    """The evaluation's coefficients (Ecus per unit); see the module docstring."""

    future: float = 0.8
    control: float = 0.6
    security: float = 0.4
    cube: float = 0.02
    card: float = 0.15
    rivalry: float = 0.5
    #: share of a later income expected to be lost, by how firmly it is held (see ``BoardFacts``)
    risk: tuple[float, float, float] = (0.0, 0.0, 0.0)
    #: share of the rivalry aimed at the best-placed other player rather than at their mean
    lead: float = 0.0


DEFAULT = Weights()


def income_events(s: GameState, player: int) -> tuple[bool, int]:
    """(is an income due at the end of the turn now in progress, how many later incomes remain) for
    ``player``: incomes are paid at the end of each player's own turn in rounds 4 and 7 (R21, A35)."""
    if s.finished:
        return False, 0
    n = len(s.players)
    pos = (player - s.first) % n
    pos_active = (s.active - s.first) % n
    now = s.round in INCOME_ROUNDS and player == s.active
    later = 0
    for r in INCOME_ROUNDS:
        if r > s.round or (r == s.round and pos > pos_active):
            later += 1
    return now, later


#: id(kind) -> (family index 0/1/2 for M/R/C, level); ids because Enum hashing is slow
_INFO: Mapping[int, tuple[int, int]] = {id(k): ("MRC".index(k.family.value), k.level) for k in Kind}


@dataclass(frozen=True, slots=True)
class BoardFacts:
    """One board read once for every player.

    ``income[p]`` is what ``p`` collects there if present (R74–R77, the same sums as
    ``rules.income``). ``hold[p]`` splits that income by how firmly it is held: on Might and Faith
    by the level (1, 2, 3) of the top building that earns it, on Reason by the lead in population
    (tied, ahead by 1, ahead by 2 or more). ``domains[p]`` counts the domains ``p`` controls (top
    Military on Might, top Religious on Faith) and ``levels[p]`` the sum of their levels above 1.
    """

    income: tuple[int, ...]
    hold: tuple[tuple[int, int, int], ...]
    domains: tuple[int, ...]
    levels: tuple[int, ...]
    #: on Might and Faith, the domains read (``rules.domains``) and what each pays whom: (controller,
    #: level of the top building, Civil value), or None; for the boards reached from this one
    read: Domains | None = field(default=None, compare=False, repr=False)
    parts: tuple[tuple[int, int, int] | None, ...] = field(default=(), compare=False, repr=False)
    #: on Reason, the buildings read and what each domain pays whom: (the players with the most
    #: cubes, how firmly, the value), or None
    seen: dict[int, Building] | None = field(default=None, compare=False, repr=False)
    shares: tuple[tuple[tuple[int, ...], int, int] | None, ...] = field(default=(), compare=False, repr=False)


def board_facts(s: GameState, age: Age, before: BoardFacts | None = None) -> BoardFacts:
    """Income and control of every player on one board, in one pass over its domains. ``before``:
    the facts of the same board in a position this one was reached from; on Might and Faith a domain
    kept as it was there (the same group: none of its buildings was put or taken) pays as it did, and
    on Reason one whose buildings are all as they were (the same objects: cubes and renovations
    change a building)."""
    if age is Age.REASON:
        return _reason_facts(s, before)
    return _controlled_facts(s, age, before)


def _kept(read: Domains, before: BoardFacts | None) -> list[int]:
    """For each domain of ``read``, the index of the same group (the same tuple) among the domains
    ``before`` read, or -1 (both lists are in reading order of their first building)."""
    old = before.read if before is not None else None
    if old is None:
        return [-1] * len(read.groups)
    old_groups, old_starts = old.groups, old.starts
    m = len(old_groups)
    o = 0
    out = []
    for group, start in zip(read.groups, read.starts, strict=True):
        while o < m and old_starts[o] < start:
            o += 1
        out.append(o if o < m and old_groups[o] is group else -1)
    return out


def _reason_facts(s: GameState, before: BoardFacts | None) -> BoardFacts:
    """``board_facts`` on Reason: the players with the most cubes in a domain share its value."""
    n = len(s.players)
    inc = [0] * n
    hold = [[0, 0, 0] for _ in range(n)]
    board = s.boards[Age.REASON]
    buildings = board.buildings
    info = _INFO
    read = domains(board, s.map)
    shares: list[tuple[tuple[int, ...], int, int] | None] = []
    old_shares = before.shares if before is not None else ()
    seen = before.seen if before is not None and before.seen is not None else {}
    for group, o in zip(read.groups, _kept(read, before), strict=True):
        share: tuple[tuple[int, ...], int, int] | None
        if o >= 0 and all(buildings[i] is seen.get(i) for i in group):
            share = old_shares[o]
        else:
            counts = [0] * n
            value = 0
            for i in group:
                b = buildings[i]
                fam, level = info[id(b.kind)]
                if fam == 2:
                    for q in b.population:
                        counts[q] += 1
                else:
                    value += level - 1 if b.ruin else level
            best = max(counts)
            share = None
            if best and value:
                leading = [q for q in range(n) if counts[q] == best]
                second = max((c for q, c in enumerate(counts) if q not in leading), default=0)
                share = (tuple(leading), 0 if len(leading) > 1 else min(2, best - second), value)
        shares.append(share)
        if share is not None:
            leaders, firm, value = share
            for q in leaders:
                inc[q] += value
                hold[q][firm] += value
    zeros = tuple([0] * n)
    return BoardFacts(tuple(inc), tuple((h[0], h[1], h[2]) for h in hold), zeros, zeros, read,
                      seen=buildings, shares=tuple(shares))


def _controlled_facts(s: GameState, age: Age, before: BoardFacts | None) -> BoardFacts:
    """``board_facts`` on Might or Faith: a domain's unique top Military (Might) or Religious (Faith)
    building's owner collects its Civil value."""
    n = len(s.players)
    inc = [0] * n
    hold = [[0, 0, 0] for _ in range(n)]
    doms = [0] * n
    lev = [0] * n
    board = s.boards[age]
    buildings = board.buildings
    info = _INFO
    want = 0 if age is Age.MIGHT else 1
    read = domains(board, s.map)
    parts: list[tuple[int, int, int] | None] = []
    old_parts = before.parts if before is not None else ()
    for group, o in zip(read.groups, _kept(read, before), strict=True):
        part: tuple[int, int, int] | None
        if o >= 0:
            part = old_parts[o]
        else:
            top_level = 0
            controller: int | None = None
            tied = False
            civil = 0
            for i in group:
                b = buildings[i]
                fam, level = info[id(b.kind)]
                if fam == 2:
                    civil += level
                elif fam == want:
                    if level > top_level:
                        top_level, controller, tied = level, b.owner, False
                    elif level == top_level:
                        tied = True
            part = (controller, top_level, civil) if controller is not None and not tied else None
        parts.append(part)
        if part is not None:
            owner, top, civil = part
            inc[owner] += civil
            hold[owner][top - 1] += civil
            doms[owner] += 1
            lev[owner] += top - 1
    return BoardFacts(tuple(inc), tuple((h[0], h[1], h[2]) for h in hold), tuple(doms), tuple(lev), read,
                      tuple(parts))


def facts(s: GameState) -> tuple[BoardFacts, BoardFacts, BoardFacts]:
    """``board_facts`` for Might, Faith and Reason."""
    return board_facts(s, Age.MIGHT), board_facts(s, Age.FAITH), board_facts(s, Age.REASON)


Facts = tuple[BoardFacts, BoardFacts, BoardFacts]

#: what a move changed of every player, in seat order: (Ecus, cubes in supply, cards in hand)
Moved = tuple[tuple[int, int, int], ...]


def facts_after(parent: GameState, known: Facts, child: GameState) -> Facts:
    """``facts(child)`` for a state reached from ``parent`` by actions, reusing ``known`` (the
    parent's) for every board that did not change (the same version: a board's version goes up at
    every change, and a clone keeps it)."""
    pb, cb = parent.boards, child.boards
    return (
        known[0] if cb[0].version == pb[0].version else board_facts(child, Age.MIGHT, known[0]),
        known[1] if cb[1].version == pb[1].version else board_facts(child, Age.FAITH, known[1]),
        known[2] if cb[2].version == pb[2].version else board_facts(child, Age.REASON, known[2]),
    )


def value(
    s: GameState, player: int, w: Weights = DEFAULT, known: tuple[BoardFacts, BoardFacts, BoardFacts] | None = None
) -> float:
    """The estimated final Ecus of ``player`` in ``s`` (see the module docstring)."""
    p = s.players[player]
    v = float(p.ecus)
    if s.finished:
        return v
    f = known if known is not None else facts(s)
    now, later = income_events(s, player)
    incomes = (f[0].income[player], f[1].income[player], f[2].income[player])
    if now:
        v += sum(incomes[a] for a in set(p.pawns))
    if later:
        # the same sums, in the same order, as over zip(hold, risk): without a generator per board
        k0, k1, k2 = 1.0 - w.risk[0], 1.0 - w.risk[1], 1.0 - w.risk[2]
        h0, h1, h2 = f[0].hold[player], f[1].hold[player], f[2].hold[player]
        held = [sum((h0[0] * k0, h0[1] * k1, h0[2] * k2)), sum((h1[0] * k0, h1[1] * k1, h1[2] * k2)),
                sum((h2[0] * k0, h2[1] * k1, h2[2] * k2))]
        best_two = sum(held) - min(held)
        v += w.future * later * best_two
        doms = f[0].domains[player] + f[1].domains[player]
        levels = f[0].levels[player] + f[1].levels[player]
        v += w.control * doms + w.security * levels
    v += w.cube * p.supply + w.card * p.hand.total
    return v


def values(s: GameState, w: Weights, f: Facts, moved: Moved | None = None) -> list[float]:
    """``value`` of every player, in seat order (the same sums in the same order, the position read once).
    ``moved``: the values of the position reached from ``s`` by a move that changed every player's Ecus,
    cubes in supply and cards in hand by these amounts and the boards to ``f`` (and nothing else that a
    value reads: not whose turn it is, the round or the pawns)."""
    players = s.players
    if s.finished:
        return [float(p.ecus) for p in players]
    n = len(players)
    first, active, rnd = s.first, s.active, s.round
    pos_active = (active - first) % n
    due = rnd in INCOME_ROUNDS
    f0, f1, f2 = f
    k0, k1, k2 = 1.0 - w.risk[0], 1.0 - w.risk[1], 1.0 - w.risk[2]
    out = []
    for player, p in enumerate(players):
        ecus, supply, cards = p.ecus, p.supply, p.hand.total
        if moved is not None:
            d_ecus, d_supply, d_cards = moved[player]
            ecus, supply, cards = ecus + d_ecus, supply + d_supply, cards + d_cards
        v = float(ecus)
        # income_events
        pos = (player - first) % n
        later = 0
        for r in INCOME_ROUNDS:
            if r > rnd or (r == rnd and pos > pos_active):
                later += 1
        if due and player == active:
            incomes = (f0.income[player], f1.income[player], f2.income[player])
            v += sum(incomes[a] for a in set(p.pawns))
        if later:
            h0, h1, h2 = f0.hold[player], f1.hold[player], f2.hold[player]
            held = [sum((h0[0] * k0, h0[1] * k1, h0[2] * k2)), sum((h1[0] * k0, h1[1] * k1, h1[2] * k2)),
                    sum((h2[0] * k0, h2[1] * k1, h2[2] * k2))]
            best_two = sum(held) - min(held)
            v += w.future * later * best_two
            doms = f0.domains[player] + f1.domains[player]
            levels = f0.levels[player] + f1.levels[player]
            v += w.control * doms + w.security * levels
        v += w.cube * supply + w.card * cards
        out.append(v)
    return out


def score(s: GameState, player: int, w: Weights = DEFAULT, known: Facts | None = None,
          moved: Moved | None = None) -> float:
    """``player``'s value minus ``rivalry`` times the mean value of the others, moved by ``lead``
    towards the value of the best-placed of them. ``known``: ``facts(s)`` if already found; ``moved``:
    as ``values`` (then ``known`` is the facts of the position moved to)."""
    f = known if known is not None else facts(s)
    every = values(s, w, f, moved)
    mine = every[player]
    others = [v for j, v in enumerate(every) if j != player]
    if not others:
        return mine
    mean = sum(others) / len(others)
    return mine - w.rivalry * (mean + w.lead * (max(others) - mean))


# ---------------------------------------------------------------------------------------------
# the fitted evaluation (the master level's): a linear estimate of the final Ecus learned from games

#: the fitted evaluation's features for one player, in the order ``features`` returns them: Ecus in
#: hand; the income due at the end of the turn in progress (``income_events``); for every later
#: income, what the two best boards pay today, split by how firmly it is held (``BoardFacts.hold``:
#: 0 loosest, 2 firmest); for every later income, what the boards where the pawns stand pay today;
#: domains and their levels above 1 (Might and Faith); cubes in supply; cards in hand; his turns still
#: to come (``turns_left``); 1
FEATURES = ("ecus", "now", "later_h0", "later_h1", "later_h2", "later_pawns", "domains", "levels", "cubes", "cards",
            "turns", "one")


def turns_left(s: GameState, player: int) -> int:
    """How many turns ``player`` has still to begin: one a round after this one, one more if his turn
    this round is still to come (a turn in progress is not counted, whatever it has done, so that
    every move of a turn sees the same count)."""
    n = len(s.players)
    return ROUNDS - s.round + ((player - s.first) % n > (s.active - s.first) % n)


def features(s: GameState, player: int, known: Facts | None = None) -> tuple[float, ...]:
    """``player``'s features in ``s`` (``FEATURES``); the game must not be over."""
    p = s.players[player]
    f = known if known is not None else facts(s)
    now, later = income_events(s, player)
    incomes = (f[0].income[player], f[1].income[player], f[2].income[player])
    pawns = sum(incomes[a] for a in set(p.pawns))
    worst = min(range(3), key=lambda a: (incomes[a], -a))
    h = [0.0, 0.0, 0.0]
    for a in range(3):
        if a != worst:
            for k in range(3):
                h[k] += f[a].hold[player][k]
    return (
        float(p.ecus),
        float(pawns if now else 0),
        later * h[0],
        later * h[1],
        later * h[2],
        float(later * pawns),
        float(f[0].domains[player] + f[1].domains[player]),
        float(f[0].levels[player] + f[1].levels[player]),
        float(p.supply),
        float(p.hand.total),
        float(turns_left(s, player)),
        1.0,
    )


#: the fitted evaluation's coefficients, by (number of players, round), one per ``FEATURES``: the
#: final Ecus fitted by least squares on the features of every player at two points of every turn of
#: 218 greedy games, 174 of them for the fit (``bench/evalfit.py fit --pool --fixed
#: ecus=1,cubes=0.02,cards=0.15``): slopes shared by the rounds, an intercept per round (which no
#: comparison of two positions of one round sees); five players use the four-player table
FITTED: Mapping[tuple[int, int], tuple[float, ...]] = {
    (2, 1): (1.000, 0.881, 0.053, 0.727, 0.893, -0.098, -1.316, 2.915, 0.020, 0.150, 3.782, 27.654),
    (2, 2): (1.000, 0.881, 0.053, 0.727, 0.893, -0.098, -1.316, 2.915, 0.020, 0.150, 3.782, 23.591),
    (2, 3): (1.000, 0.881, 0.053, 0.727, 0.893, -0.098, -1.316, 2.915, 0.020, 0.150, 3.782, 17.843),
    (2, 4): (1.000, 0.881, 0.053, 0.727, 0.893, -0.098, -1.316, 2.915, 0.020, 0.150, 3.782, 10.904),
    (2, 5): (1.000, 0.881, 0.053, 0.727, 0.893, -0.098, -1.316, 2.915, 0.020, 0.150, 3.782, 4.760),
    (2, 6): (1.000, 0.881, 0.053, 0.727, 0.893, -0.098, -1.316, 2.915, 0.020, 0.150, 3.782, 5.255),
    (2, 7): (1.000, 0.881, 0.053, 0.727, 0.893, -0.098, -1.316, 2.915, 0.020, 0.150, 3.782, 0.679),
    (3, 1): (1.000, 0.938, 0.087, 0.780, 1.042, -0.055, -0.112, 3.158, 0.020, 0.150, 2.493, 24.055),
    (3, 2): (1.000, 0.938, 0.087, 0.780, 1.042, -0.055, -0.112, 3.158, 0.020, 0.150, 2.493, 16.003),
    (3, 3): (1.000, 0.938, 0.087, 0.780, 1.042, -0.055, -0.112, 3.158, 0.020, 0.150, 2.493, 8.152),
    (3, 4): (1.000, 0.938, 0.087, 0.780, 1.042, -0.055, -0.112, 3.158, 0.020, 0.150, 2.493, 1.939),
    (3, 5): (1.000, 0.938, 0.087, 0.780, 1.042, -0.055, -0.112, 3.158, 0.020, 0.150, 2.493, -2.280),
    (3, 6): (1.000, 0.938, 0.087, 0.780, 1.042, -0.055, -0.112, 3.158, 0.020, 0.150, 2.493, -2.370),
    (3, 7): (1.000, 0.938, 0.087, 0.780, 1.042, -0.055, -0.112, 3.158, 0.020, 0.150, 2.493, -4.145),
    (4, 1): (1.000, 0.956, 0.031, 0.626, 1.040, -0.165, -0.388, 3.831, 0.020, 0.150, 4.404, 5.480),
    (4, 2): (1.000, 0.956, 0.031, 0.626, 1.040, -0.165, -0.388, 3.831, 0.020, 0.150, 4.404, -0.017),
    (4, 3): (1.000, 0.956, 0.031, 0.626, 1.040, -0.165, -0.388, 3.831, 0.020, 0.150, 4.404, -5.081),
    (4, 4): (1.000, 0.956, 0.031, 0.626, 1.040, -0.165, -0.388, 3.831, 0.020, 0.150, 4.404, -8.163),
    (4, 5): (1.000, 0.956, 0.031, 0.626, 1.040, -0.165, -0.388, 3.831, 0.020, 0.150, 4.404, -8.488),
    (4, 6): (1.000, 0.956, 0.031, 0.626, 1.040, -0.165, -0.388, 3.831, 0.020, 0.150, 4.404, -5.039),
    (4, 7): (1.000, 0.956, 0.031, 0.626, 1.040, -0.165, -0.388, 3.831, 0.020, 0.150, 4.404, -3.987),
}


def fitted_value(s: GameState, player: int, known: Facts | None = None) -> float:
    """``player``'s final Ecus as the fitted evaluation estimates them in ``s`` (his Ecus once the
    game is over)."""
    if s.finished:
        return float(s.players[player].ecus)
    c = FITTED[(min(4, len(s.players)), s.round)]
    return sum(a * b for a, b in zip(c, features(s, player, known), strict=True))


def fitted_score(s: GameState, player: int, known: Facts | None = None, rivalry: float = 0.5) -> float:
    """``player``'s fitted value minus ``rivalry`` times the best fitted value of the others."""
    f = known if known is not None or s.finished else facts(s)
    mine = fitted_value(s, player, f)
    others = [fitted_value(s, j, f) for j in range(len(s.players)) if j != player]
    return mine - rivalry * max(others) if others else mine

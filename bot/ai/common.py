"""What every level shares: the seat's view of the game, determinizations of what it cannot see,
a stable fingerprint of a view, and the pruned list of moves worth thinking about."""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Callable

from rules import (
    Action,
    Age,
    Building,
    Cards,
    Cell,
    Choose,
    Construct,
    Demolish,
    EndTurn,
    Event,
    Family,
    GameState,
    Kind,
    Payment,
    Populate,
    Renovate,
    RuleError,
    Travel,
    Upgrade,
    View,
    apply,
    construct_sites,
    default_payment,
    domains,
    legal_actions,
    surcharge,
    to_json,
    view_for,
)

__all__ = [
    "View",
    "candidates",
    "determinize",
    "end_turn",
    "fingerprint",
    "mix_seed",
    "project",
    "resolve_pending",
    "view_for",
]


def project(state: GameState, seat: int) -> View:
    """What a player in ``seat`` sees of ``state`` (R24): his own hand, not the others' or the deck."""
    return view_for(state, seat)


def fingerprint(view_state: GameState) -> str:
    """A stable digest of a (redacted) state: equal for equal views, in every process."""
    return hashlib.blake2b(to_json(view_state).encode(), digest_size=16).hexdigest()


def mix_seed(seed: int, *parts: object) -> int:
    """A 64-bit seed from the caller's seed and the given parts (a fingerprint, a level...)."""
    text = "|".join([str(seed), *(str(p) for p in parts)])
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def _families(cards: Cards) -> list[Family]:
    return cards.families()


def determinize(view: View, rng: random.Random) -> GameState:
    """One full state consistent with ``view``: the unseen cards dealt at random to the other hands
    (at their known sizes) and to the draw pile, a fresh generator state. A pending decision's saved
    state gets the same hands and deck, plus the cards the interrupted action spends."""
    me = view.viewer
    assert me is not None
    pool = _families(view.unseen)
    rng.shuffle(pool)
    s = view.state.clone()
    hands: dict[int, Cards] = {}
    k = 0
    for j, size in enumerate(view.hand_sizes):
        if j == me:
            continue
        hand = Cards()
        for f in pool[k : k + size]:
            hand = hand + Cards.of(f)
        k += size
        hands[j] = hand
        s.players[j].hand = hand
    s.deck = pool[k:]
    s.rng = rng.getrandbits(64)
    if s.pending is not None:
        base = s.pending.base.clone()
        action = s.pending.action
        for j, hand in hands.items():
            extra = Cards()
            if j == base.active and isinstance(action, (Construct, Upgrade, Demolish, Populate, Renovate)):
                extra = action.payment.cards
            base.players[j].hand = hand + extra
        base.deck = list(s.deck)
        base.rng = s.rng
        s.pending = dataclasses.replace(s.pending, base=base)
    return s


# ---------------------------------------------------------------------------------------------
# Moves worth considering


def end_turn(s: GameState, player: int) -> EndTurn:
    """The end of the turn with a sensible free discard (R20): keep colours held in pairs or more
    and discard single cards when the hand has a pair to build on; otherwise keep everything."""
    hand = s.players[player].hand
    counts = [hand.count(f) for f in Family]
    if max(counts, default=0) >= 2 and hand.total >= 3:
        drop = Cards(*(1 if c == 1 else 0 for c in counts))
        if drop.total < hand.total:
            return EndTurn(player, drop)
    return EndTurn(player)


def _near(s: GameState, age: Age, cells: tuple[int, ...]) -> int:
    """How many buildings lie within two cells of a block (for telling empty sites apart)."""
    game_map = s.map
    grid = s.boards[age].grid
    ring1 = set(game_map.neighbours(cells))
    ring2 = set(game_map.neighbours(tuple(ring1 | set(cells)))) | ring1
    return min(3, len({grid[i] for i in ring2} - {0}))


#: what two boards' parts of a signature are when a site touches and covers nothing there
_NOTHING: tuple[frozenset[int], frozenset[int]] = (frozenset(), frozenset())

#: the domains (``Domains.of``) of the three boards, each found when first needed
_Ofs = list[dict[int, int] | None]


def _signature(s: GameState, age: Age, kind: Kind, cells: tuple[int, ...]) -> tuple[object, ...]:
    """What makes two construction sites different for the game: the domains touched on this board,
    and for a building that ripples, the buildings it would cover and the domains it would touch on
    later boards. Sites touching nothing anywhere are told apart by how built-up their surroundings are.
    (``_constructs`` keeps the tail, which depends only on the board, whether the building ripples and
    the cells, for the other kinds of one listing.)"""
    return (age, kind, *_tail(s, age, kind.level >= 2, cells, [None, None, None]))


def _tail(s: GameState, age: Age, ripples: bool, cells: tuple[int, ...], ofs: _Ofs) -> tuple[object, ...]:
    """``_signature`` but the board and the kind: on this board and (if the building ripples) the later
    ones, the domains touched and the buildings covered."""
    ring = s.map.around[len(cells)][cells[0]]  # (s.map.neighbours(cells): cells is a footprint)
    parts: list[object] = []
    for a in range(age, Age.REASON + 1 if ripples else age + 1):
        grid = s.boards[a].grid
        of = ofs[a]
        if of is None:
            of = ofs[a] = domains(s.boards[a], s.map).of
        touched = frozenset({of[i] for j in ring if (i := grid[j])})
        covered = frozenset({i for j in cells if (i := grid[j])}) if a > age else _NOTHING[1]
        parts.append((touched, covered))
    if all(x == _NOTHING for x in parts):
        parts.append(_near(s, age, cells))
    return tuple(parts)


def _constructs(s: GameState, player: int, per_signature: int) -> list[Action]:
    """One construction per group of equivalent sites (``_signature``), with the default payment;
    the same sites as ``rules.placements`` gives."""
    p = s.players[player]
    out: list[Action] = []
    memo: dict[tuple[Age, bool, int, int], tuple[object, ...]] = {}
    ofs: _Ofs = [None, None, None]
    for age in (Age.MIGHT, Age.FAITH):
        if not p.is_on(age):
            continue
        for kind in Kind:
            if p.hand.count(kind.family) < kind.level:
                continue
            if s.stock[kind] <= 0 or (kind.is_mr and p.supply <= 0):
                continue
            # the sites by signature (the board and kind are the same for all: only the tail differs),
            # each as (surcharge, listing order, origin, payment)
            groups: dict[tuple[object, ...], list[tuple[int, int, Cell, Payment]]] = {}
            pays: dict[int, Payment | None] = {}
            need = Cards.of(kind.family, kind.level)
            ripples = kind.level >= 2
            for k, (origin, cells, extra) in enumerate(construct_sites(s, player, age, kind)):
                if extra in pays:
                    pay = pays[extra]
                else:
                    pay = pays[extra] = default_payment(s, player, age, need, extra)
                if pay is None:
                    continue
                key = (age, ripples, cells[0], len(cells))  # (what _signature keeps: only its tail varies)
                tail = memo.get(key)
                if tail is None:
                    tail = memo[key] = _tail(s, age, ripples, cells, ofs)
                found = groups.get(tail)
                if found is None:
                    groups[tail] = [(extra, k, origin, pay)]
                else:
                    found.append((extra, k, origin, pay))
            for sites in groups.values():  # the sites with the smallest surcharge, in reading order
                for _e, _k, origin, pay in sorted(sites, key=_surcharge_then_order)[:per_signature]:
                    out.append(Construct(player, age, kind, origin, pay))
    return out


def _surcharge_then_order(site: tuple[int, int, Cell, Payment]) -> tuple[int, int]:
    return site[0], site[1]


def _one_payment_each(acts: list[Action], key: Callable[[Action], object], preferred: Callable[[Action], bool]) -> \
        list[Action]:
    """One action per ``key``: the preferred payment if listed, else the first."""
    chosen: dict[object, Action] = {}
    for a in acts:
        k = key(a)
        if k not in chosen or (preferred(a) and not preferred(chosen[k])):
            chosen[k] = a
    return list(chosen.values())


def candidates(s: GameState, player: int, *, per_signature: int = 1, travel: bool = True) -> list[Action]:
    """The distinct moves of the active ``player`` (no exchange, swap or end of turn): constructions
    grouped by what they touch (``per_signature`` sites per group), and one payment for every
    upgrade, demolition, population and renovation, the default one where it applies."""
    if s.pending is not None or s.finished or s.active != player:
        return []
    p = s.players[player]
    out: list[Action] = []
    if p.hand.total and any(p.allowance(i) for i in (0, 1)):
        out.extend(_constructs(s, player, per_signature))
        others = legal_actions(s, types=(Upgrade, Demolish, Populate, Renovate))
        # what the key and the preferred payment of an upgrade depend on (all but the payment),
        # worked out once for the many payments listed for it
        upgrades: dict[tuple[Age, Cell, Kind, Cell], tuple[object, Payment | None]] = {}
        defaults: dict[tuple[Age, Cards, int], Payment | None] = {}

        def default(age: Age, need: Cards, extra: int) -> Payment | None:
            k = (age, need, extra)
            if k not in defaults:
                defaults[k] = default_payment(s, player, age, need, extra)
            return defaults[k]

        def upgrade(a: Upgrade) -> tuple[object, Payment | None]:
            k = (a.age, a.target, a.kind, a.origin)
            found = upgrades.get(k)
            if found is None:
                cells = s.map.footprint(a.origin, a.kind.level)
                assert cells is not None
                extra = surcharge(s, cells)
                old = _building(s, a.age, a.target)
                pay = None if old is None else default(a.age, Cards.of(a.kind.family, a.kind.level - old.level), extra)
                found = upgrades[k] = (("U", a.target, extra, _signature(s, a.age, a.kind, cells)), pay)
            return found

        def key(a: Action) -> object:
            if isinstance(a, Upgrade):
                return upgrade(a)[0]
            if isinstance(a, Demolish):
                return ("D", a.age, a.target)
            if isinstance(a, Populate):
                return ("P", a.target)
            assert isinstance(a, Renovate)
            return ("R", a.target, a.payment.cards.total)

        def preferred(a: Action) -> bool:
            if isinstance(a, Upgrade):
                pay = upgrade(a)[1]
                return pay is not None and a.payment == pay
            if isinstance(a, (Demolish, Populate, Renovate)):
                age = a.age if isinstance(a, Demolish) else Age.REASON
                return a.payment == default(age, a.payment.cards, 0)
            return False

        out.extend(_one_payment_each(others, key, preferred))
    if travel:
        out.extend(legal_actions(s, types=(Travel,)))
    return out


def _building(s: GameState, age: Age, cell: Cell) -> Building | None:
    return s.boards[age].at(s.map.index(cell))


def resolve_pending(
    s: GameState, choose: Callable[[GameState], Choose], limit: int = 40, events: list[Event] | None = None
) -> tuple[GameState, list[Choose]]:
    """Answer pending decisions with ``choose`` until none is left (or ``limit`` answers); returns
    the state and the answers given (``events``, if given, gains the answers' events)."""
    answers: list[Choose] = []
    while s.pending is not None and not s.finished and len(answers) < limit:
        d = s.pending.decision
        c = choose(s)
        try:
            s, told = apply(s, c)
        except RuleError:
            c = Choose(d.player, d.options[0])
            s, told = apply(s, c)
        if events is not None:
            events.extend(told)
        answers.append(c)
    return s, answers

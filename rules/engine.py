"""The game engine: create a game, apply an action.

``apply(state, action)`` returns ``(new_state, events)`` or raises ``RuleError``; the given state is
never changed. Decisions that belong to a player (R62–R64, R67, R72) stop the resolution: the
returned state has ``pending`` set, and a ``Choose`` action from the addressed player resumes it
(the engine replays the interrupted action with the answers given so far, which is exact because
the engine is deterministic).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from . import rng as rngmod
from .actions import (
    Action,
    Choose,
    Construct,
    Demolish,
    EndTurn,
    Exchange,
    Payment,
    Populate,
    Renovate,
    Swap,
    Travel,
    Upgrade,
)
from .domains import FAMILY_ORDER, domains, highest, neighbour_ids, ordered_group, power, top, violation
from .errors import RuleError
from .events import (
    BonusPaid,
    Built,
    CardsDrawn,
    CubeKept,
    CubesReturned,
    DecisionRequested,
    Demolished,
    Destroyed,
    Downsized,
    Event,
    Exchanged,
    GameEnded,
    IncomePaid,
    Junction,
    MarkerPlaced,
    ParadoxRemoved,
    Populated,
    PowerCompared,
    Renovated,
    Reshuffled,
    Rippled,
    RippleForbidden,
    RippleSkipped,
    ShadowRemoved,
    ShadowReplaced,
    Swapped,
    TopsTied,
    Travelled,
    TurnBegan,
    TurnEnded,
    Upgraded,
)
from .maps import Cell, GameMap, load_map
from .model import (
    BONUS,
    DECK_COMPOSITION,
    DEMOLISH_COST,
    EXCHANGE_COST,
    HAND_SIZE,
    INCOME_ROUNDS,
    INITIAL_STOCK,
    KIND_OF,
    POPULATION_CAP,
    ROUNDS,
    TRAVEL_COST,
    Age,
    Board,
    Building,
    Cards,
    Colour,
    Decision,
    DecisionKind,
    Family,
    GameState,
    Kind,
    Options,
    Pending,
    Player,
)

# ---------------------------------------------------------------------------------------------
# Setup


def new_game(
    names: Sequence[str],
    *,
    seed: int,
    options: Options = Options(),
    colours: Sequence[Colour] | None = None,
    game_map: GameMap | None = None,
) -> GameState:
    """A new game for 2–5 players (R8–R10, T24): pawns on Might, 25 cubes, 4 Ecus, 4 cards each,
    the printed hamlets on every board, a shuffled deck (and the Hold'em reserve, R33), and a
    first player drawn at random — all from ``seed``."""
    n = len(names)
    if not 2 <= n <= 5:
        raise ValueError("Khronos is for 2 to 5 players (R8)")
    colours = list(colours) if colours is not None else list(Colour)[:n]
    if len(colours) != n or len(set(colours)) != n:
        raise ValueError("each player needs a different colour")
    game_map = game_map or load_map("default")
    boards = [Board(age, {}, [0] * (game_map.width * game_map.height)) for age in Age]
    state = GameState(
        map=game_map,
        options=options,
        players=[Player(name, colour) for name, colour in zip(names, colours, strict=True)],
        boards=boards,
        stock=dict(INITIAL_STOCK),
        deck=[],
        discard=[],
        reserve=Cards(),
        rng=rngmod.seed_state(seed),
    )
    for board in boards:
        for cell in game_map.hamlets:
            board.put(state.make_building(Kind.HAMLET, cell, printed=True))
    deck = [f for f, k in DECK_COMPOSITION.items() for _ in range(k)]
    state.rng = rngmod.shuffle(state.rng, deck)
    if options.holdem:
        for family in Family:  # R33, A39: one card of each colour, before the deal
            deck.remove(family)
            state.reserve = state.reserve + Cards.of(family)
    state.deck = deck
    for p in state.players:
        for _ in range(HAND_SIZE):
            p.hand = p.hand + Cards.of(state.deck.pop())
    state.rng, state.first = rngmod.below(state.rng, n)
    state.active = state.first
    return state


# ---------------------------------------------------------------------------------------------
# Entry point


class _NeedDecision(Exception):
    def __init__(self, decision: Decision) -> None:
        self.decision = decision


def apply(state: GameState, action: Action) -> tuple[GameState, list[Event]]:
    """Apply ``action`` to ``state``. Returns the new state and the events it caused, in order.

    Raises ``RuleError`` (with the rule and a sentence for the player) if the action is refused;
    ``state`` itself is never modified."""
    return _apply(state, action, 0)


def apply_first(state: GameState, action: Action, limit: int = 40) -> tuple[GameState, list[Event]]:
    """``apply``, then every decision the action raises answered with its first option, up to
    ``limit`` of them (a look-ahead's quick answer): the state ``apply`` and then ``Choose`` of the
    first option, again and again, would reach, worked out in one run of the action instead of one
    per answer. The events are those of that run, without the decisions answered."""
    return _apply(state, action, limit)


def _apply(state: GameState, action: Action, first: int) -> tuple[GameState, list[Event]]:
    if state.finished:
        raise RuleError("game-over", "R22", "The game is over: no more actions can be played.")
    pending = state.pending
    if pending is not None:
        decision = pending.decision
        who = state.players[decision.player]
        if not isinstance(action, Choose):
            raise RuleError(
                "decision-pending", "R72",
                f"The game is waiting for {who.name} ({who.colour.value}) to {describe_decision(state, decision)}.",
            )
        if action.player != decision.player:
            raise RuleError(
                "not-your-decision", "R72",
                f"This choice belongs to {who.name} ({who.colour.value}), who must "
                f"{describe_decision(state, decision)}.",
            )
        if action.cell not in decision.options:
            opts = ", ".join(str(c) for c in decision.options)
            raise RuleError("bad-choice", "R72", f"{action.cell} is not one of the choices: {opts}.")
        return _run(pending.base, pending.action, (*pending.answers, action.cell), pending.reported, first)
    if isinstance(action, Choose):
        raise RuleError("no-decision", "R72", "There is no decision to answer right now.")
    return _run(state, action, (), 0, first)


def _run(
    base: GameState, action: object, answers: tuple[Cell, ...], reported: int, first: int = 0
) -> tuple[GameState, list[Event]]:
    s = base.clone()
    run = _Run(s, answers, first)
    try:
        _perform(run, action)
    except _NeedDecision as need:
        s.pending = Pending(need.decision, base, action, run.answers, len(run.events))
        return s, [*run.events[reported:], DecisionRequested(need.decision)]
    s.pending = None
    return s, run.events[reported:]


def describe_decision(state: GameState, d: Decision) -> str:
    """A short imperative phrase for a decision, e.g. "choose which Keep is downsized"."""
    opts = ", ".join(str(c) for c in d.options)
    if d.kind is DecisionKind.PLACE_SMALLER:
        assert d.result is not None and d.subject is not None
        # what was downsized, from the question itself (the smaller square fits the old one in
        # side² ways), not from the board: told again later, the board may hold something else there
        old_level = d.result.level + math.isqrt(len(d.options)) - 1
        old = KIND_OF[(d.result.family, old_level)].value if (d.result.family, old_level) in KIND_OF else "building"
        return (
            f"choose where the downsized {old} at {d.subject} on {d.age.title} goes as {with_article(d.result.value)} "
            f"({'cell' if d.result.level == 1 else 'top-left cell'}: {opts})"
        )
    if d.kind is DecisionKind.DOWNSIZE_WHICH:
        fam = d.family.title if d.family else ""
        return f"choose which {fam} building on {d.age.title} is downsized ({opts})"
    return f"choose which domain on {d.age.title} is resolved first (one of its tied buildings: {opts})"


def _s(n: int) -> str:
    """The plural ending for ``n`` of something: "1 card", "2 cards", "0 cards"."""
    return "" if n == 1 else "s"


def with_article(word: str) -> str:
    """``word`` after its indefinite article, by its first letter: ``a Keep``, ``an Abbey``, ``an
    upgrade`` (every building's name, and the words the bot says, read right by it)."""
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def _perform(run: _Run, action: object) -> None:
    s = run.s
    if not isinstance(action, (Construct, Upgrade, Demolish, Populate, Renovate, Travel, Exchange, Swap, EndTurn)):
        raise RuleError("unknown-action", "", f"{action!r} is not an action of this game.")
    _check_turn(s, action.player)
    if isinstance(action, Construct):
        run.card_action(check_construct(s, action))
    elif isinstance(action, Upgrade):
        run.card_action(check_upgrade(s, action))
    elif isinstance(action, Demolish):
        run.card_action(check_demolish(s, action))
    elif isinstance(action, Populate):
        run.populate(action, check_populate(s, action))
    elif isinstance(action, Renovate):
        run.renovate(action, check_renovate(s, action))
    elif isinstance(action, Travel):
        check_travel(s, action)
        run.travel(action)
    elif isinstance(action, Exchange):
        check_exchange(s, action)
        run.exchange(action)
    elif isinstance(action, Swap):
        check_swap(s, action)
        run.swap(action)
    else:
        check_end_turn(s, action)
        run.end_turn(action)


# ---------------------------------------------------------------------------------------------
# Checks shared by apply and the legal-action listing


def _name(s: GameState, player: int) -> str:
    p = s.players[player]
    return f"{p.name} ({p.colour.value})"


def _check_turn(s: GameState, player: int) -> None:
    if not 0 <= player < len(s.players):
        raise RuleError("no-such-player", "", f"There is no player {player} in this game.")
    if player != s.active:
        raise RuleError("not-your-turn", "R11", f"It is {_name(s, s.active)}'s turn, not yours.")


def _where(s: GameState, b: Building) -> str:
    owner = f"{s.players[b.owner].colour.value}, " if b.owner is not None else ""
    name = "printed Hamlet" if b.printed else (b.kind.value + (" ruin" if b.ruin else ""))
    return f"{name} ({owner}{b.origin})"


#: the boards after each board, in order (``Age(n)`` is slow)
_LATER: dict[Age, tuple[Age, ...]] = {Age.MIGHT: (Age.FAITH, Age.REASON), Age.FAITH: (Age.REASON,), Age.REASON: ()}


def surcharge(s: GameState, cells: tuple[int, ...]) -> int:
    """R37–R39: extra cards of any colour for a footprint covering forest and/or mountain."""
    return terrain_surcharge(
        len(s.players), not s.map.forest_cells.isdisjoint(cells), not s.map.mountain_cells.isdisjoint(cells)
    )


def surcharged_terrain(s: GameState, cells: tuple[int, ...]) -> tuple[str, ...]:
    """R37–R39: the terrains under a footprint that cost extra cards with this many players, in the order
    ``"forest"``, ``"mountain"`` (a forest costs nothing with four players or more, a mountain nothing
    with five)."""
    players = len(s.players)
    out: list[str] = []
    if not s.map.forest_cells.isdisjoint(cells) and terrain_surcharge(players, True, False):
        out.append("forest")
    if not s.map.mountain_cells.isdisjoint(cells) and terrain_surcharge(players, False, True):
        out.append("mountain")
    return tuple(out)


def terrain_surcharge(players: int, forest: bool, mountain: bool) -> int:
    """R37–R39: the surcharge with ``players`` players for a footprint covering forest, mountain."""
    extra = 0
    if forest and players <= 3:
        extra += 1
    if mountain:
        extra += 2 if players <= 3 else 1 if players == 4 else 0
    return extra


def pool(s: GameState, player: int, age: Age) -> int:
    """R16–R17: how many cards the player's pawns on ``age`` may still play this turn."""
    p = s.players[player]
    return sum(p.allowance(i) for i in (0, 1) if p.pawns[i] is age)


def check_payment(
    s: GameState, player: int, age: Age, need: Cards, extra: int, payment: Payment, what: str, rule: str
) -> None:
    """R16–R18, R25, R37–R39: ``payment`` must hold ``need`` (family colour) plus ``extra`` cards of
    any colour, all in hand, played through pawns on ``age`` within their allowance. ``rule`` is the
    action's own rule (R27, R29–R32), cited when the colours or the cards in hand do not fit."""
    p = s.players[player]
    total = need.total + extra
    room = pool(s, player, age)
    cards, pawns, hand = payment.cards, payment.pawns, p.hand
    # (each test is one comparison when it passes, the usual case: the words are made only to refuse)
    if total > room:
        detail = f" ({need.total} + {extra} for terrain)" if extra else ""
        raise RuleError(
            "allowance", "R17",
            f"{what} costs {total} card{_s(total)}{detail}, but your pawns on {age.title} can play only {room} more "
            f"this turn (2 per pawn; both pawns must be on that board for a 3- or 4-card action).",
        )
    if not hand.contains(need):
        fam = next(f for f in Family if hand.count(f) < need.count(f))
        n = need.count(fam)
        raise RuleError(
            "wrong-colour", rule,
            f"{what} needs {n} {fam.title} ({fam.value}) card{_s(n)} and you hold "
            f"{hand.count(fam)} (your hand: {hand}).",
        )
    if cards.total != total:
        detail = f" ({need} + {extra} of any colour for terrain)" if extra else f" ({need})"
        raise RuleError("wrong-cards", "R25", f"{what} costs {total} card{_s(total)}{detail}; you offered {cards}.")
    if not cards.contains(need):
        fam = next(f for f in Family if need.count(f))
        raise RuleError(
            "wrong-colour", rule,
            f"{what} needs {need.total} {fam.title} ({fam.value}) card{_s(need.total)}; "
            f"no other colour may stand in for them (you offered {cards}).",
        )
    if not hand.contains(cards):
        raise RuleError("not-in-hand", rule, f"You do not hold {cards} (your hand: {hand}).")
    if len(pawns) != 2 or min(pawns) < 0 or sum(pawns) != total:
        raise RuleError("bad-split", "R17", f"The pawns must play {total} card{_s(total)} in all.")
    for i in (0, 1):
        k = pawns[i]
        if k and p.pawns[i] is not age:
            raise RuleError(
                "pawn-elsewhere", "R16",
                f"Pawn {i + 1} is on {p.pawns[i].title}, so it cannot play cards on {age.title}.",
            )
        if k > p.allowance(i):
            raise RuleError(
                "allowance", "R16",
                f"Pawn {i + 1} can play only {p.allowance(i)} more card{_s(p.allowance(i))} "
                f"this turn (2 per pawn).",
            )


@dataclass(frozen=True, slots=True)
class CardPlan:
    """What a checked construct/upgrade/demolish will do."""

    player: int
    age: Age
    kind: Kind
    origin: Cell
    cells: tuple[int, ...]
    payment: Payment
    old: Building | None  # upgrade: the building replaced; demolish: the target
    demolish: bool = False


def _check_board_action(s: GameState, player: int, age: Age, verb: str) -> None:
    if age is Age.REASON:
        raise RuleError(
            "wrong-age", "R25",
            f"Nothing can be {verb} on Reason: its buildings arrive only as shadows. Use Might or Faith.",
        )
    if not s.players[player].is_on(age):
        raise RuleError("presence", "R15", f"You have no pawn on {age.title}: travel there first (1 Ecu).")


def _check_cells(s: GameState, age: Age, kind: Kind, cells: tuple[int, ...], old: Building | None) -> None:
    board = s.boards[age]
    for i in cells:
        b = board.at(i)
        if b is not None and b is not old:
            raise RuleError(
                "occupied", "R34", f"{s.map.cell(i)} is taken by the {_where(s, b)}: a building needs empty cells."
            )
    if kind is Kind.HAMLET or kind.is_mr:
        for i in cells:
            if i in s.map.river_cells:
                raise RuleError(
                    "river", "R35",
                    f"{s.map.cell(i)} is a river cell: only Towns and Cities may cover river cells.",
                )


def merging_domains(s: GameState, age: Age, cells: tuple[int, ...], old: Building | None) -> list[int]:
    """R41/R42: the domains (indices) that a block at ``cells`` would merge: those it touches, plus
    the domain of ``old`` (the building being upgraded) unless ``old`` stands alone."""
    board = s.boards[age]
    doms = domains(board, s.map)
    exclude = old.id if old else 0
    found = {doms.of[n] for n in neighbour_ids(board, s.map, cells, exclude)}
    if old is not None:
        own = doms.of[old.id]
        if len(doms.groups[own]) > 1:
            found.add(own)
    return sorted(found)


def _check_dominion_hierarchy(
    s: GameState, age: Age, kind: Kind, cells: tuple[int, ...], old: Building | None
) -> list[int]:
    merged = merging_domains(s, age, cells, old)
    if not kind.is_mr:
        return merged
    board = s.boards[age]
    doms = domains(board, s.map)
    if len(merged) >= 2:
        raise RuleError(
            "dominion", "R42" if old else "R41",
            f"Rule of Dominion: {with_article(kind.value)} there would join {len(merged)} domains; only Civil "
            f"buildings may join domains.",
        )
    if merged:
        members = [board.buildings[i] for i in doms.groups[merged[0]] if old is None or i != old.id]
        h = highest(members, kind.family)
        if h == kind.level:
            rival = top(members, kind.family)[0]
            owner = f"{s.players[rival.owner].colour.value}, " if rival.owner is not None else ""
            raise RuleError(
                "hierarchy", "R43",
                f"Rule of Hierarchy: this domain's highest {kind.family.title} building is already "
                f"{with_article(rival.kind.value)} ({owner}{rival.origin}); {with_article(kind.value)} may not "
                "equal it.",
            )
    return merged


def check_construct(s: GameState, a: Construct) -> CardPlan:
    """R27 with R34–R46."""
    _check_board_action(s, a.player, a.age, "constructed")
    cells = s.map.footprint(a.origin, a.kind.level)
    if cells is None:
        raise RuleError(
            "off-board", "R27", f"A {a.kind.value} at {a.origin} would leave the board ({a.kind.level}×{a.kind.level} "
            f"cells from its top-left corner).",
        )
    _check_cells(s, a.age, a.kind, cells, None)
    _check_dominion_hierarchy(s, a.age, a.kind, cells, None)
    _check_stock(s, a.player, a.kind, cube=a.kind.is_mr)
    check_payment(
        s, a.player, a.age, Cards.of(a.kind.family, a.kind.level), surcharge(s, cells), a.payment,
        f"A {a.kind.value}", "R27",
    )
    return CardPlan(a.player, a.age, a.kind, a.origin, cells, a.payment, None)


def _check_stock(s: GameState, player: int, kind: Kind, cube: bool) -> None:
    if s.stock[kind] <= 0:
        raise RuleError("no-tile", "R44", f"No {kind.value} tile is left in the stock.")
    if cube and s.players[player].supply <= 0:
        raise RuleError("no-cube", "R45", "You have no control cube left in your supply.")


def building_at(s: GameState, age: Age, cell: Cell) -> Building:
    """The building covering ``cell`` on ``age``, or a RuleError saying the cell is empty."""
    if not s.map.contains(cell):
        raise RuleError("off-board", "", f"{cell} is not on the board.")
    b = s.boards[age].at(s.map.index(cell))
    if b is None:
        raise RuleError("empty", "", f"There is no building at {cell} on {age.title}.")
    if b.origin != cell:
        raise RuleError(
            "not-origin", "", f"Name the {_where(s, b)} by its top-left cell, {b.origin}, not {cell}."
        )
    return b


def check_upgrade(s: GameState, a: Upgrade) -> CardPlan:
    """R29 with R35–R44 (level skipping A7, Dominion A13, surcharge on the new footprint A11)."""
    _check_board_action(s, a.player, a.age, "upgraded")
    old = building_at(s, a.age, a.target)
    if old.kind.family is not a.kind.family or a.kind.level <= old.level:
        raise RuleError(
            "upgrade-kind", "R29",
            f"The {_where(s, old)} can only become a larger {old.kind.family.title} building, "
            f"not a {a.kind.value}.",
        )
    if old.kind.is_mr and old.owner != a.player:
        raise RuleError(
            "not-yours", "R29",
            f"The {_where(s, old)} is not yours: you may upgrade only your own Military and Religious "
            f"buildings, or any Civil building.",
        )
    cells = s.map.footprint(a.origin, a.kind.level)
    if cells is None:
        raise RuleError("off-board", "R29", f"A {a.kind.value} at {a.origin} would leave the board.")
    if not set(old.cells) <= set(cells):
        raise RuleError(
            "containment", "R29",
            f"A {a.kind.value} at {a.origin} does not cover the whole {_where(s, old)}: the new building "
            f"must contain the old one.",
        )
    _check_cells(s, a.age, a.kind, cells, old)
    _check_dominion_hierarchy(s, a.age, a.kind, cells, old)
    _check_stock(s, a.player, a.kind, cube=False)
    check_payment(
        s, a.player, a.age, Cards.of(a.kind.family, a.kind.level - old.level), surcharge(s, cells), a.payment,
        f"Upgrading to a {a.kind.value}", "R29",
    )
    return CardPlan(a.player, a.age, a.kind, a.origin, cells, a.payment, old)


def check_demolish(s: GameState, a: Demolish) -> CardPlan:
    """R30, ruling A31."""
    if a.age is Age.REASON:
        raise RuleError("wrong-age", "A31", "Nothing can be demolished on Reason.")
    _check_board_action(s, a.player, a.age, "demolished")
    b = building_at(s, a.age, a.target)
    if b.printed:
        raise RuleError("printed-hamlet", "R30", f"The printed Hamlet at {b.origin} can never be demolished.")
    if b.level != 1:
        raise RuleError(
            "too-big", "R30", f"Only Watchtowers, Chapels and Hamlet tiles can be demolished, not a {b.kind.value}."
        )
    if s.players[a.player].ecus < DEMOLISH_COST:
        raise RuleError("no-ecus", "R30", "Demolishing costs 1 Ecu and you have none.")
    check_payment(s, a.player, a.age, Cards.of(b.kind.family), 0, a.payment, f"Demolishing a {b.kind.value}", "R30")
    return CardPlan(a.player, a.age, b.kind, b.origin, b.cells, a.payment, b, demolish=True)


def check_populate(s: GameState, a: Populate) -> Building:
    """R31, rulings A5, A33."""
    if not s.players[a.player].is_on(Age.REASON):
        raise RuleError("presence", "R15", "You have no pawn on Reason: travel there first (1 Ecu).")
    b = building_at(s, Age.REASON, a.target)
    if b.kind.family is not Family.CIVIL:
        raise RuleError("not-civil", "R31", f"Only Civil buildings can be populated; the {_where(s, b)} is not one.")
    cap = POPULATION_CAP[b.kind]
    if len(b.population) >= cap:
        raise RuleError(
            "full", "R31", f"The {_where(s, b)} already holds {cap} cube{_s(cap)}, its limit."
        )
    if s.players[a.player].supply <= 0:
        raise RuleError("no-cube", "R45", "You have no control cube left in your supply.")
    check_payment(s, a.player, Age.REASON, Cards(c=1), 0, a.payment, "Populating", "R31")
    return b


def check_renovate(s: GameState, a: Renovate) -> Building:
    """R32, rulings A6, A10, A32."""
    if not s.players[a.player].is_on(Age.REASON):
        raise RuleError("presence", "R15", "You have no pawn on Reason: travel there first (1 Ecu).")
    b = building_at(s, Age.REASON, a.target)
    if not b.ruin:
        raise RuleError("not-ruin", "R32", f"The {_where(s, b)} is not a ruin.")
    n = a.payment.cards.total
    if b.level == 2 or b.marker is not None:
        if n != 1:
            raise RuleError(
                "wrong-cards", "R32",
                f"The {_where(s, b)} needs just 1 {b.kind.family.title} card to be "
                f"{'finished' if b.marker is not None else 'renovated'}.",
            )
    elif n not in (1, 2):
        raise RuleError(
            "wrong-cards", "R32",
            f"The {_where(s, b)} takes 2 {b.kind.family.title} cards: pay both now, or 1 now (with a marker "
            f"cube) and 1 later.",
        )
    elif n == 1 and s.players[a.player].supply <= 0:
        raise RuleError("no-cube", "R45", "Paying one card of two needs a cube for the marker, and you have none.")
    check_payment(s, a.player, Age.REASON, Cards.of(b.kind.family, n), 0, a.payment, "Renovating", "R32")
    return b


def check_travel(s: GameState, a: Travel) -> None:
    """R26, ruling A40."""
    p = s.players[a.player]
    if a.pawn not in (0, 1):
        raise RuleError("no-such-pawn", "", "Choose pawn 1 or pawn 2.")
    if p.pawns[a.pawn] is a.to:
        raise RuleError("same-board", "A40", f"Pawn {a.pawn + 1} is already on {a.to.title}.")
    if p.ecus < TRAVEL_COST:
        raise RuleError("no-ecus", "R26", "Travelling costs 1 Ecu and you have none.")


def check_exchange(s: GameState, a: Exchange) -> None:
    """R13, ruling A9."""
    p = s.players[a.player]
    if s.acted or s.swapped:
        raise RuleError(
            "phase", "R13", "The paid exchange comes first in your turn, before any swap, travel or card action."
        )
    if s.exchanged:
        raise RuleError("once", "R13", "You have already exchanged cards this turn.")
    if a.cards.total < 1:
        raise RuleError("wrong-cards", "R13", "Name the cards to exchange (one or more from your hand).")
    if not p.hand.contains(a.cards):
        raise RuleError("not-in-hand", "R13", f"You do not hold {a.cards} (your hand: {p.hand}).")
    if p.ecus < EXCHANGE_COST:
        raise RuleError("no-ecus", "R13", f"Exchanging costs 2 Ecus and you have {p.ecus}.")


def check_swap(s: GameState, a: Swap) -> None:
    """R33, ruling A39."""
    p = s.players[a.player]
    if not s.options.holdem:
        raise RuleError("no-holdem", "R33", "This game is played without the Hold'em reserve.")
    if s.acted:
        raise RuleError("phase", "R33", "The swap comes at the start of your turn, before any travel or card action.")
    if s.swapped:
        raise RuleError("once", "R33", "You have already swapped with the reserve this turn.")
    colours = [f for f in Family if a.take.count(f)]
    if len(colours) != 1:
        raise RuleError(
            "swap-colours", "R33", "Take one or more reserve cards of a single colour (e.g. both C, not M and C)."
        )
    if not s.reserve.contains(a.take):
        raise RuleError("not-in-reserve", "R33", f"The reserve holds {s.reserve}, not {a.take}.")
    if a.give.total != a.take.total:
        raise RuleError("swap-count", "R33", f"Give as many cards as you take ({a.take.total}).")
    if not p.hand.contains(a.give):
        raise RuleError("not-in-hand", "R33", f"You do not hold {a.give} (your hand: {p.hand}).")


def check_end_turn(s: GameState, a: EndTurn) -> None:
    """R20."""
    p = s.players[a.player]
    if not p.hand.contains(a.discard):
        raise RuleError("not-in-hand", "R20", f"You cannot discard {a.discard}: your hand is {p.hand}.")


# ---------------------------------------------------------------------------------------------
# Resolution


class _Run:
    """One application of an action to a working copy ``s``, collecting events and answering
    decisions from ``answers`` in order, then (``first`` of them at most) with their first option."""

    def __init__(self, s: GameState, answers: tuple[Cell, ...], first: int = 0) -> None:
        self.s = s
        self.answers = answers
        self.used = 0
        self.first = first
        self.events: list[Event] = []
        self.causer = s.active

    # -- decisions --------------------------------------------------------------------------------
    def ask(self, decision: Decision) -> Cell:
        if self.used < len(self.answers):
            answer = self.answers[self.used]
            self.used += 1
            return answer
        if self.first > 0:  # (apply_first) the answers given so far are those a replay would be given
            self.first -= 1
            answer = decision.options[0]
            self.answers = (*self.answers, answer)
            self.used += 1
            return answer
        raise _NeedDecision(decision)

    # -- small helpers ----------------------------------------------------------------------------
    def emit(self, event: Event) -> None:
        self.events.append(event)

    def spend(self, player: int, payment: Payment) -> None:
        p = self.s.players[player]
        p.hand = p.hand - payment.cards
        self.s.discard.extend(payment.cards.families())
        for i in (0, 1):
            p.played[i] += payment.pawns[i]
        self.s.acted = True

    def identical(self, age: Age, src: Building) -> Building | None:
        """R54, A18: the building on ``age`` identical to ``src`` (a building of the board before):
        same type and cells, and on Faith the same owner. A value-1 tile never ripples (R47), so it has
        no shadow: only a printed hamlet is identical to a value-1 building (the one on the same cell)."""
        if src.level < 2 and not src.printed:
            return None
        y = self.s.boards[age].at(src.cells[0])
        if y is None or y.kind is not src.kind or y.cells != src.cells or y.printed != src.printed:
            return None
        if age is Age.FAITH and y.owner != src.owner:
            return None
        return y

    def return_cubes(self, age: Age, b: Building, keep_on_hamlet: bool) -> Cell | None:
        """Give back the cubes on ``b`` (control cube, marker, population: R53, R64, R70). With
        ``keep_on_hamlet``, R70a: one population cube may stay on an uncovered printed hamlet; returns
        the hamlet cell and puts the kept owner in ``self._kept``."""
        s = self.s
        self._kept: int | None = None
        if b.owner is not None:
            s.players[b.owner].supply += 1
            self.emit(CubesReturned(age, b.owner, 1, "control"))
        if b.marker is not None:
            s.players[b.marker].supply += 1
            self.emit(CubesReturned(age, b.marker, 1, "marker"))
        if b.population:
            counts = Counter(b.population)
            hamlet = next((i for i in b.cells if s.map.is_printed_hamlet(i)), None) if not b.printed else None
            if keep_on_hamlet and hamlet is not None:
                best = max(counts.values())
                leaders = [q for q, k in counts.items() if k == best]
                if len(leaders) > 1:  # A28: P's cubes come off first, then a sole plurality keeps one
                    rest = {q: k for q, k in counts.items() if q != self.causer}
                    best = max(rest.values(), default=0)
                    leaders = [q for q, k in rest.items() if k == best]
                if len(leaders) == 1:
                    self._kept = leaders[0]
                    counts[leaders[0]] -= 1
            for q in sorted(counts):
                if counts[q]:
                    s.players[q].supply += counts[q]
                    self.emit(CubesReturned(age, q, counts[q], "population"))
            if self._kept is not None:
                assert hamlet is not None
                return s.map.cell(hamlet)
        return None

    def remove(self, age: Age, b: Building, paradox: bool) -> None:
        """Take ``b`` off ``age``: tile to stock, cubes back (R71), printed hamlets under it uncovered."""
        s = self.s
        board = s.boards[age]
        board.take(b.id)
        if not b.printed:
            s.stock[b.kind] += 1
        kept_cell = self.return_cubes(age, b, keep_on_hamlet=paradox and age is Age.REASON)
        for i in b.cells:
            if s.map.is_printed_hamlet(i) and not b.printed:
                population: tuple[int, ...] = ()
                cell = s.map.cell(i)
                if kept_cell == cell and self._kept is not None:
                    population = (self._kept,)
                    self.emit(CubeKept(age, self._kept, cell))
                board.put(s.make_building(Kind.HAMLET, cell, printed=True, population=population))

    def cover_hamlet(self, age: Age, ph: Building) -> None:
        """A printed hamlet covered by a tile that is not its replacement: it is only covered (R53);
        any cube on it goes back to its owner (decision D3 in docs/rules.md)."""
        self.s.boards[age].take(ph.id)
        for q, k in sorted(Counter(ph.population).items()):
            self.s.players[q].supply += k
            self.emit(CubesReturned(age, q, k, "population"))

    def remove_chain(self, age: Age, src: Building) -> None:
        """R53, R65, A16: remove the identical shadow of ``src`` on the next board, and so on down."""
        if age is Age.REASON:
            return
        nxt = _LATER[age][0]
        y = self.identical(nxt, src)
        if y is None:
            return
        self.remove(nxt, y, paradox=True)
        self.emit(ShadowRemoved(nxt, y))
        self.remove_chain(nxt, y)

    # -- downsizing (R63–R65) --------------------------------------------------------------------
    def downsize(self, age: Age, b: Building) -> None:
        s = self.s
        new_kind: Kind | None = None
        for level in range(b.level - 1, 0, -1):  # R64, A20: one level lower still if the tile is missing
            k = Kind.of(b.kind.family, level)
            if s.stock[k] > 0:
                new_kind = k
                break
        board = s.boards[age]
        if new_kind is None:
            self.remove(age, b, paradox=False)
            self.emit(Destroyed(age, b))
            self.remove_chain(age, b)
            return
        size = new_kind.level
        span = b.level - size
        options = tuple(
            Cell(b.origin.col + dc, b.origin.row + dr) for dr in range(span + 1) for dc in range(span + 1)
        )
        assert b.owner is not None
        origin = self.ask(
            Decision(DecisionKind.PLACE_SMALLER, b.owner, age, options, subject=b.origin, result=new_kind)
        )
        cells = s.map.footprint(origin, size)
        assert cells is not None
        board.take(b.id)
        s.stock[b.kind] += 1
        s.stock[new_kind] -= 1
        new = replace(b, kind=new_kind, origin=origin, cells=cells)
        board.put(new)
        self.emit(Downsized(age, b, new))
        if size == 1:
            self.remove_chain(age, b)
        else:
            self.propagate_shrink(age, b, new)

    def propagate_shrink(self, age: Age, old: Building, new: Building) -> None:
        """R65: a Castle/Abbey became a Keep/Monastery on ``age``; replace its identical shadows."""
        if age is Age.REASON:
            return
        s = self.s
        nxt = _LATER[age][0]
        y = self.identical(nxt, old)
        if y is None:
            return
        board = s.boards[nxt]
        if s.stock[new.kind] <= 0:
            self.remove(nxt, y, paradox=False)
            self.emit(ShadowRemoved(nxt, y))
            self.remove_chain(nxt, y)
            return
        board.take(y.id)
        s.stock[y.kind] += 1
        if y.marker is not None:  # R70c
            s.players[y.marker].supply += 1
            self.emit(CubesReturned(nxt, y.marker, 1, "marker"))
        s.stock[new.kind] -= 1
        if nxt is Age.FAITH:
            repl = replace(y, kind=new.kind, origin=new.origin, cells=new.cells)  # same cube reused
        else:
            repl = replace(y, kind=new.kind, origin=new.origin, cells=new.cells, ruin=True, marker=None)
        board.put(repl)
        self.emit(ShadowReplaced(nxt, y, repl))
        self.propagate_shrink(nxt, y, repl)

    # -- junction (R60–R63) and division (R66–R67) ---------------------------------------------------
    def members(self, age: Age, ids: Sequence[int]) -> list[Building]:
        bs = self.s.boards[age].buildings
        return [bs[i] for i in ids if i in bs]

    def downsize_in_order(self, age: Age, chosen: list[Building]) -> None:
        """R63: one by one, clockwise by owner starting with P (reading order within one owner)."""
        n = len(self.s.players)
        chosen.sort(key=lambda b: (((b.owner or 0) - self.causer) % n, b.origin.row, b.origin.col))
        for b in chosen:
            current = self.s.boards[age].buildings.get(b.id)
            if current is not None:
                self.downsize(age, current)

    def junction(self, age: Age, x: Building, originals: list[tuple[int, ...]]) -> None:
        """R60–R62 on ``age`` (not Reason): power comparisons while the merged domain holds together."""
        s = self.s
        board = s.boards[age]
        merged_ids = domains(board, s.map).groups[domains(board, s.map).of[x.id]]
        self.emit(Junction(age, x, len(originals)))
        for family in FAMILY_ORDER[age]:
            doms = domains(board, s.map)
            alive = [i for i in merged_ids if i in board.buildings]
            if len({doms.of[i] for i in alive}) > 1:
                break  # R61: split; the rest is division mode
            tied = top(self.members(age, alive), family)
            if len(tied) < 2:
                continue
            tied_ids = {b.id for b in tied}
            # an original domain holds two members of S only when a paradox on Faith exposed a tie
            # before the copy joined it: all its members contend for it (decision D17)
            involved: list[tuple[list[Building], int]] = []
            for orig in originals:
                mine = [b for b in self.members(age, orig) if b.id in tied_ids]
                if mine:
                    involved.append((mine, power(self.members(age, orig), family)))
            best = max(p for _, p in involved)
            to_go = [b for m, p in involved if p < best for b in m]
            candidates = [b for m, p in involved if p == best for b in m]
            own_first = [b for b in candidates if b.owner == self.causer]
            if len(own_first) == len(candidates):  # (no one else's among them: P simply chooses)
                own_first = []
            self.emit(PowerCompared(age, family, tuple((m[0].origin, p) for m, p in involved), tuple(own_first)))
            need = len(candidates) - 1
            while need > 0:  # R62, A22: P's own first, then P's choice
                own = [b for b in candidates if b.owner == self.causer]
                pick_from = own or candidates
                if len(pick_from) <= need:
                    picked = list(pick_from)
                else:
                    cell = self.ask(
                        Decision(
                            DecisionKind.DOWNSIZE_WHICH, self.causer, age,
                            tuple(b.origin for b in pick_from), family=family,
                        )
                    )
                    picked = [b for b in pick_from if b.origin == cell]
                for b in picked:
                    to_go.append(b)
                    candidates.remove(b)
                    need -= 1
            self.downsize_in_order(age, to_go)
        self.division(age)

    def division(self, age: Age) -> None:
        """R67: downsize tied top buildings until every domain on ``age`` obeys the Rule of Hierarchy."""
        if age is Age.REASON:
            return
        s = self.s
        board = s.boards[age]
        while board.clean != board.version:
            doms = domains(board, s.map)
            found = []
            # a domain kept as it was when the board was last in order still is (the same group: none
            # of its buildings was put or taken since; their kinds are all violation reads)
            kept = board.checked[1]
            for group in doms.groups:
                if id(group) in kept:
                    continue
                v = violation(board, self.members(age, group))
                if v is not None:
                    found.append(v)
            if not found:
                board.clean = board.version
                board.checked = (doms.groups, frozenset(map(id, doms.groups)))
                return
            if len(found) > 1:
                cell = self.ask(
                    Decision(DecisionKind.DOMAIN_ORDER, self.causer, age, tuple(t[0].origin for _, t in found))
                )
                family, tied = next(v for v in found if v[1][0].origin == cell)
            else:
                family, tied = found[0]
            own = [b for b in tied if b.owner == self.causer]
            self.emit(TopsTied(age, family, tuple(tied), tuple(own) if len(own) < len(tied) else ()))
            pick_from = own or tied
            if len(pick_from) == 1:
                target = pick_from[0]
            else:
                cell = self.ask(
                    Decision(
                        DecisionKind.DOWNSIZE_WHICH, self.causer, age, tuple(b.origin for b in pick_from),
                        family=family,
                    )
                )
                target = next(b for b in pick_from if b.origin == cell)
            self.downsize(age, target)

    # -- card actions on Might and Faith (R59) -----------------------------------------------------
    def card_action(self, plan: CardPlan) -> None:
        s = self.s
        P = plan.player
        age = plan.age
        board = s.boards[age]
        self.spend(P, plan.payment)
        ripple: Building | None = None
        old = plan.old
        originals: list[tuple[int, ...]] = []
        if plan.demolish:
            assert old is not None
            s.players[P].ecus -= DEMOLISH_COST
            self.remove(age, old, paradox=False)
            self.emit(Demolished(P, age, old, plan.payment.cards))
        else:
            touched = merging_domains(s, age, plan.cells, old)
            if not plan.kind.is_mr and len(touched) >= 2:  # a junction's original domains, as walked (R60)
                originals = [
                    tuple(i for i in ordered_group(board, s.map, k) if old is None or i != old.id) for k in touched
                ]
            owner = P if plan.kind.is_mr else None
            if old is not None:
                board.take(old.id)
                if not old.printed:
                    s.stock[old.kind] += 1
                new = replace(
                    old, kind=plan.kind, origin=plan.origin, cells=plan.cells, printed=False, owner=owner
                ) if not old.printed else s.make_building(plan.kind, plan.origin)
                for i in plan.cells:  # a printed hamlet under the new tile is covered (R3)
                    ph = board.at(i)
                    if ph is not None and ph.printed:
                        board.take(ph.id)
                s.stock[plan.kind] -= 1
                board.put(new)
                self.emit(Upgraded(P, age, old, new, plan.payment.cards))
            else:
                new = s.make_building(plan.kind, plan.origin, owner=owner)
                s.stock[plan.kind] -= 1
                if owner is not None:
                    s.players[P].supply -= 1
                board.put(new)
                self.emit(Built(P, age, new, plan.payment.cards))
            if new.level >= 2:
                s.players[P].ecus += BONUS[age]
                self.emit(BonusPaid(P, age, BONUS[age]))
                ripple = new
            # R59 step 2: stabilise the board acted on
            if not plan.kind.is_mr and len(originals) >= 2:
                self.junction(age, new, originals)
        self.division(age)
        # R59 step 3: later boards in order
        prev_old = old if not plan.demolish else None
        alive = ripple is not None
        for b_age in _LATER[age]:
            if b_age is Age.FAITH:
                self.division(b_age)
            if alive:
                assert ripple is not None
                alive, prev_old = self.ripple_onto(b_age, ripple, prev_old)

    def ripple_onto(
        self, age: Age, src: Building, prev_old: Building | None
    ) -> tuple[bool, Building | None]:
        """R47–R57 and R59 step 3b–c: place ``src``'s copy on ``age``. ``prev_old`` is the building
        that ``src`` replaced on the board before; its identical shadow here is replaced, not removed.
        Returns whether the copy was placed, and the building it replaced here."""
        s = self.s
        board = s.boards[age]
        z = self.identical(age, prev_old) if prev_old is not None else None
        victims: list[Building] = []  # R52-R53: everything under the copy but the old shadow
        hamlets: list[Building] = []
        seen: set[int] = set()
        for i in src.cells:
            b = board.at(i)
            if b is None or b.id in seen or (z is not None and b.id == z.id):
                continue
            seen.add(b.id)
            (hamlets if b.printed else victims).append(b)
        mr = src.kind.is_mr
        if age is Age.FAITH and mr:  # R51 on the board as it would be without the victims (A15)
            rule = self._forbidden(age, src, z, victims + hamlets)
            if rule:
                self.emit(RippleForbidden(age, src.kind, src.origin, rule))
                return False, None
        if s.stock[src.kind] <= 0:
            self.emit(RippleSkipped(age, src.kind, src.origin, "tile"))
            return False, None
        assert src.owner is not None or not mr
        if age is Age.FAITH and mr and z is None and s.players[src.owner or 0].supply <= 0:
            self.emit(RippleSkipped(age, src.kind, src.origin, "cube"))
            return False, None
        for v in victims:  # R53: paradox
            if v.id in board.buildings:
                self.remove(age, v, paradox=True)
                self.emit(ParadoxRemoved(age, v))
                self.remove_chain(age, v)
        if prev_old is not None and z is None:
            # a printed hamlet uncovered by the paradox is the upgraded hamlet's old shadow (R52, D4)
            z = self.identical(age, prev_old)
        # original domains for a Civil junction on Faith (R60: after the paradox removals)
        originals: list[tuple[int, ...]] = []
        if age is Age.FAITH and not mr:
            touched = merging_domains(s, age, src.cells, z)
            if len(touched) >= 2:  # as walked (R60)
                originals = [tuple(i for i in ordered_group(board, s.map, k) if z is None or i != z.id)
                             for k in touched]
        population: tuple[int, ...] = ()
        cube_from_z = False
        if z is not None:
            board.take(z.id)
            if not z.printed:
                s.stock[z.kind] += 1
            if z.marker is not None:
                s.players[z.marker].supply += 1
                self.emit(CubesReturned(age, z.marker, 1, "marker"))
            population = z.population
            cube_from_z = z.owner is not None
        for i in src.cells:  # other printed hamlets under the copy are only covered
            ph = board.at(i)
            if ph is not None and ph.printed:
                self.cover_hamlet(age, ph)
        cap = POPULATION_CAP.get(src.kind, 0)
        assert len(population) <= cap or not population, "A29: caps only grow through an upgrade"
        s.stock[src.kind] -= 1
        if age is Age.FAITH:
            owner = src.owner if mr else None
            if mr and not cube_from_z:
                assert owner is not None
                s.players[owner].supply -= 1
            copy = s.make_building(src.kind, src.origin, owner=owner)
        else:
            copy = s.make_building(src.kind, src.origin, ruin=mr, population=population)
        board.put(copy)
        self.emit(Rippled(age, copy, z))
        if age is Age.FAITH:
            if not mr and len(originals) >= 2:
                self.junction(age, copy, originals)
            self.division(age)
        return True, z

    def _forbidden(self, age: Age, src: Building, z: Building | None, gone: list[Building]) -> str:
        """R51 on a scratch copy of the board without ``gone`` (the paradox victims, ruling A15)."""
        board = self.s.boards[age]
        scratch = board.clone()
        for v in gone:
            scratch.take(v.id)
        doms = domains(scratch, self.s.map)
        exclude = z.id if z is not None else 0
        found = {doms.of[n] for n in neighbour_ids(scratch, self.s.map, src.cells, exclude)}
        if z is not None and len(doms.groups[doms.of[z.id]]) > 1:
            found.add(doms.of[z.id])
        if len(found) >= 2:
            return "dominion"
        if found:
            group = doms.groups[found.pop()]
            others = [scratch.buildings[i] for i in group if i != exclude]
            if highest(others, src.kind.family) == src.level:
                return "hierarchy"
        return ""

    # -- Reason actions --------------------------------------------------------------------------
    def populate(self, a: Populate, b: Building) -> None:
        s = self.s
        self.spend(a.player, a.payment)
        s.players[a.player].supply -= 1
        new = replace(b, population=tuple(sorted((*b.population, a.player))))
        s.boards[Age.REASON].swap(new)
        self.emit(Populated(a.player, new))

    def renovate(self, a: Renovate, b: Building) -> None:
        s = self.s
        self.spend(a.player, a.payment)
        if b.level == 3 and b.marker is None and a.payment.cards.total == 1:
            s.players[a.player].supply -= 1
            new = replace(b, marker=a.player)
            s.boards[Age.REASON].swap(new)
            self.emit(MarkerPlaced(a.player, new))
            return
        if b.marker is not None:
            s.players[b.marker].supply += 1
            self.emit(CubesReturned(Age.REASON, b.marker, 1, "marker"))
        new = replace(b, ruin=False, marker=None)
        s.boards[Age.REASON].swap(new)
        self.emit(Renovated(a.player, new, a.payment.cards))

    # -- other actions ---------------------------------------------------------------------------
    def travel(self, a: Travel) -> None:
        p = self.s.players[a.player]
        frm = p.pawns[a.pawn]
        p.ecus -= TRAVEL_COST
        p.pawns[a.pawn] = a.to
        self.s.acted = True
        self.emit(Travelled(a.player, a.pawn, frm, a.to))

    def draw(self, player: int, n: int) -> None:
        """R20, A38: draw ``n`` cards, reshuffling the discard pile when the draw pile is empty."""
        s = self.s
        p = s.players[player]
        drawn = 0
        for _ in range(n):
            if not s.deck:
                if not s.discard:
                    break
                s.deck, s.discard = s.discard, []
                s.rng = rngmod.shuffle(s.rng, s.deck)
                self.emit(Reshuffled(len(s.deck)))
            p.hand = p.hand + Cards.of(s.deck.pop())
            drawn += 1
        if drawn:
            self.emit(CardsDrawn(player, drawn))

    def exchange(self, a: Exchange) -> None:
        s = self.s
        p = s.players[a.player]
        p.hand = p.hand - a.cards
        s.discard.extend(a.cards.families())
        p.ecus -= EXCHANGE_COST
        s.exchanged = True
        self.emit(Exchanged(a.player, a.cards.total))
        self.draw(a.player, HAND_SIZE - p.hand.total)

    def swap(self, a: Swap) -> None:
        s = self.s
        p = s.players[a.player]
        p.hand = p.hand - a.give + a.take
        s.reserve = s.reserve - a.take + a.give
        s.swapped = True
        self.emit(Swapped(a.player, a.take, a.give))

    def end_turn(self, a: EndTurn) -> None:
        s = self.s
        p = s.players[a.player]
        p.hand = p.hand - a.discard
        s.discard.extend(a.discard.families())
        self.emit(TurnEnded(a.player, a.discard.total))
        self.draw(a.player, max(0, HAND_SIZE - p.hand.total))
        if s.round in INCOME_ROUNDS:  # A8: refill, then income
            for age in sorted(set(p.pawns)):
                amount, count = income(s, a.player, age)
                p.ecus += amount
                self.emit(IncomePaid(a.player, age, amount, count))
        n = len(s.players)
        nxt = (s.active + 1) % n
        if nxt == s.first:
            if s.round == ROUNDS:
                s.finished = True
                best = max(q.ecus for q in s.players)
                s.winners = tuple(i for i, q in enumerate(s.players) if q.ecus == best)
                self.emit(GameEnded(s.winners, tuple(q.ecus for q in s.players)))
                return
            s.round += 1
        s.active = nxt
        s.turn += 1
        s.exchanged = s.swapped = s.acted = False
        for q in s.players:
            q.played = [0, 0]
        self.emit(TurnBegan(nxt, s.round))


def income(s: GameState, player: int, age: Age) -> tuple[int, int]:
    """R73–R78: what ``player`` collects from ``age`` now, and from how many domains."""
    sources = income_sources(s, player, age)
    return sum(amount for _, amount in sources), len(sources)


def income_sources(s: GameState, player: int, age: Age) -> list[tuple[Building, int]]:
    """R74–R78: the domains of ``age`` that pay ``player`` now (pawns aside, R73), each as the building
    that earns it and the amount: on Might and Faith the domain's top Military or Religious building,
    which is the player's; on Reason the domain's first Civil building holding one of the player's
    cubes (the player has the most cubes there)."""
    board = s.boards[age]
    doms = domains(board, s.map)
    out: list[tuple[Building, int]] = []
    for k, group in enumerate(doms.groups):
        members = [board.buildings[i] for i in group]
        if age is Age.REASON:
            counts = Counter(q for b in members if b.kind.family is Family.CIVIL for q in b.population)
            if counts and counts.get(player, 0) == max(counts.values()):
                amount = sum(b.income_value for b in members if b.kind.is_mr)
                if amount:
                    walked = [board.buildings[i] for i in ordered_group(board, s.map, k)]
                    out.append((next(b for b in walked if player in b.population), amount))
        else:
            family = Family.MILITARY if age is Age.MIGHT else Family.RELIGIOUS
            tops = top(members, family)
            assert len(tops) <= 1, f"R78: tied top {family.title} buildings on {age.title}"
            if tops and tops[0].owner == player:
                amount = sum(b.level for b in members if b.kind.family is Family.CIVIL)
                if amount:
                    out.append((tops[0], amount))
    return out

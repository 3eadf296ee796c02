"""What a picture shows, taken from a game state: only what the viewer may see (R24, A37).

``make_scene`` is the one place where the renderer reads a ``GameState``. It copies the public
facts into plain frozen data (``Scene``) and nothing else: hands are reduced to their size, the
draw pile to its size, Ecus to ``None`` when they are secret for this viewer, and a pending
decision to who must decide what. The drawing code only ever sees a ``Scene``, so it cannot leak
what the scene does not hold.

The events of the last turn (``rules.events``) become ``Change`` marks: what is new, upgraded,
downsized, populated, renovated, and what was removed.

The economy (domains, who controls each and what it would pay now) is public; it is taken from the
engine's read-only query ``rules.economy`` as it stands, never worked out here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from rules import (
    INCOME_ROUNDS,
    ROUNDS,
    Age,
    Building,
    Cards,
    Cell,
    Colour,
    DecisionKind,
    GameMap,
    GameState,
    Kind,
    describe_decision,
    economy,
)
from rules.events import (
    Built,
    Demolished,
    Destroyed,
    Downsized,
    Event,
    MarkerPlaced,
    ParadoxRemoved,
    Populated,
    Renovated,
    Rippled,
    ShadowRemoved,
    ShadowReplaced,
    Travelled,
    Upgraded,
)

from .style import safe_text


class Mark(Enum):
    """How a building changed during the last turn (the badge on its tile)."""

    NEW = "NEW"  # built, or rippled onto this board
    UP = "UP"  # upgraded, or its shadow replaced by the upgrade
    DOWN = "DOWN"  # downsized, or its shadow replaced by the smaller building
    RENOVATED = "RENOVATED"  # renovation finished (R32)
    MARKER = "1/2"  # first renovation card paid, marker placed (R32)
    POPULATED = "+"  # population cubes added (R31); the badge shows "+n"


#: when several events touch one building, the most telling mark wins
_MARK_ORDER = [Mark.NEW, Mark.UP, Mark.DOWN, Mark.RENOVATED, Mark.MARKER, Mark.POPULATED]


@dataclass(frozen=True, slots=True)
class Piece:
    """A building as drawn on one board."""

    kind: Kind
    origin: Cell
    owner: int | None  # control cube (Might and Faith)
    printed: bool  # a printed hamlet (R3), not a tile
    ruin: bool  # Reason: ruin side up
    renovated: bool  # Reason: an M/R building on its intact side
    marker: int | None  # Reason: renovation marker cube (R32)
    population: tuple[int, ...]  # Reason: population cubes, by seat, sorted (R31)
    mark: Mark | None = None
    added: int = 0  # population cubes added during the last turn

    @property
    def level(self) -> int:
        return self.kind.level


@dataclass(frozen=True, slots=True)
class Ghost:
    """A building removed during the last turn (paradox R53, destruction R64, demolition R30, removed
    shadow R65), or the footprint a downsized building left (``downsized``)."""

    kind: Kind
    origin: Cell
    downsized: bool = False
    owner: int | None = None  # the removed building's control cube


@dataclass(frozen=True, slots=True)
class DomainMark:
    """A domain as ``rules.economy`` gives it (R40, R74–R76): the cells it covers, its name cell, the
    seats that control it (none, one, or several tied on Reason) and what it would pay each of them
    now (None on a board a pending decision leaves unsettled: it pays no one until the answer, R78).
    ``contested``: two tied top buildings wait on a decision (no controller yet)."""

    name: Cell
    cells: tuple[Cell, ...]  # reading order
    buildings: int
    controllers: tuple[int, ...]
    value: int | None
    contested: bool = False


@dataclass(frozen=True, slots=True)
class BoardScene:
    age: Age
    pieces: tuple[Piece, ...]
    ghosts: tuple[Ghost, ...]
    #: the cells a pending decision on this board offers
    choices: tuple[Cell, ...]
    #: the board's domains with their controllers and values, in reading order of their names
    domains: tuple[DomainMark, ...] = ()
    #: a list of the board's areas: each area's first and last cell and how many places it holds
    areas: tuple[tuple[Cell, Cell, int], ...] = ()


@dataclass(frozen=True, slots=True)
class PlayerScene:
    seat: int
    name: str  # already reduced to the font's characters
    colour: Colour
    ecus: int | None  # None: secret for this viewer (A37)
    supply: int  # cubes left
    cards: int  # cards in hand: the number only
    pawns: tuple[Age, Age]
    moved: tuple[bool, bool]  # pawn travelled during the last turn
    active: bool
    deciding: bool  # a pending decision waits on this player
    viewer: bool
    winner: bool


@dataclass(frozen=True, slots=True)
class Scene:
    map: GameMap
    round: int
    rounds: int
    income_rounds: tuple[int, ...]
    players: tuple[PlayerScene, ...]
    boards: tuple[BoardScene, BoardScene, BoardScene]
    stock: tuple[tuple[Kind, int], ...]
    deck: int
    discard: int
    reserve: Cards | None  # Hold'em reserve (face up), None without the variant
    #: "Ana (Red) to choose ... on Might ..." when a decision is pending (R72)
    waiting: str | None
    finished: bool
    #: a pending decision places a smaller building (R64): the kind it becomes, else None
    placing: Kind | None = None


def make_scene(state: GameState, viewer: int | None = None, events: Sequence[Event] = ()) -> Scene:
    """The public view of ``state`` for ``viewer`` (a seat index, or None for the whole channel),
    with the changes of ``events`` marked. Raises ``ValueError`` for a viewer who is not a seat."""
    n = len(state.players)
    if viewer is not None and not 0 <= viewer < n:
        raise ValueError(f"viewer {viewer} is not a seat of this game (0-{n - 1})")
    marks: list[dict[int, Mark]] = [{}, {}, {}]
    added: dict[int, int] = {}
    ghosts: list[list[Ghost]] = [[], [], []]
    moved: set[tuple[int, int]] = set()

    def mark(age: Age, b: Building, m: Mark) -> None:
        old = marks[age].get(b.id)
        if old is None or _MARK_ORDER.index(m) < _MARK_ORDER.index(old):
            marks[age][b.id] = m

    for ev in events:
        if isinstance(ev, Built):
            mark(ev.age, ev.building, Mark.NEW)
        elif isinstance(ev, Rippled):
            mark(ev.age, ev.building, Mark.NEW if ev.replaced is None else Mark.UP)
        elif isinstance(ev, Upgraded):
            mark(ev.age, ev.new, Mark.UP)
        elif isinstance(ev, (Downsized, ShadowReplaced)):
            mark(ev.age, ev.new, Mark.DOWN)
            ghosts[ev.age].append(Ghost(ev.old.kind, ev.old.origin, downsized=True))
        elif isinstance(ev, (ParadoxRemoved, ShadowRemoved, Destroyed, Demolished)):
            ghosts[ev.age].append(Ghost(ev.building.kind, ev.building.origin, owner=ev.building.owner))
        elif isinstance(ev, Populated):
            mark(Age.REASON, ev.building, Mark.POPULATED)
            added[ev.building.id] = added.get(ev.building.id, 0) + 1
        elif isinstance(ev, MarkerPlaced):
            mark(Age.REASON, ev.building, Mark.MARKER)
        elif isinstance(ev, Renovated):
            mark(Age.REASON, ev.building, Mark.RENOVATED)
        elif isinstance(ev, Travelled):
            moved.add((ev.player, ev.pawn))

    decision = state.pending.decision if state.pending is not None else None
    worth = economy(state)
    boards: list[BoardScene] = []
    for board in state.boards:
        age = board.age
        pieces = tuple(
            Piece(
                kind=b.kind,
                origin=b.origin,
                owner=b.owner,
                printed=b.printed,
                ruin=b.ruin,
                renovated=age is Age.REASON and b.kind.is_mr and not b.ruin,
                marker=b.marker,
                population=tuple(sorted(b.population)),
                mark=marks[age].get(b.id),
                added=added.get(b.id, 0),
            )
            for b in board.sorted_buildings(state.map)
        )
        choices = decision.options if decision is not None and decision.age is age else ()
        doms = tuple(DomainMark(d.name, d.cells, len(d.buildings), d.controllers,
                                d.value if worth.settled[age] else None, d.contested) for d in worth.domains[age])
        boards.append(BoardScene(age, pieces, _dedupe(ghosts[age]), tuple(choices), doms))

    finished = state.finished
    players = tuple(
        PlayerScene(
            seat=i,
            name=safe_text(p.name, fallback=p.colour.value),
            colour=p.colour,
            ecus=p.ecus if (state.options.ecus_public or finished or viewer == i) else None,
            supply=p.supply,
            cards=p.hand.total,
            pawns=(p.pawns[0], p.pawns[1]),
            moved=((i, 0) in moved, (i, 1) in moved),
            active=i == state.active and not finished,
            deciding=decision is not None and decision.player == i,
            viewer=viewer == i,
            winner=finished and i in state.winners,
        )
        for i, p in enumerate(state.players)
    )
    waiting: str | None = None
    if decision is not None:
        who = state.players[decision.player]
        name = safe_text(who.name, fallback=who.colour.value)
        waiting = safe_text(f"{name} ({who.colour.value}) to {describe_decision(state, decision)}")
    return Scene(
        map=state.map,
        round=state.round,
        rounds=ROUNDS,
        income_rounds=tuple(INCOME_ROUNDS),
        players=players,
        boards=(boards[0], boards[1], boards[2]),
        stock=tuple((k, state.stock[k]) for k in Kind),
        deck=len(state.deck),
        discard=len(state.discard),
        reserve=state.reserve if state.options.holdem else None,
        waiting=waiting,
        finished=finished,
        placing=decision.result if decision is not None and decision.kind is DecisionKind.PLACE_SMALLER else None,
    )


def _dedupe(ghosts: list[Ghost]) -> tuple[Ghost, ...]:
    seen: set[tuple[Kind, Cell, bool]] = set()
    out: list[Ghost] = []
    for g in ghosts:
        key = (g.kind, g.origin, g.downsized)
        if key not in seen:
            seen.add(key)
            out.append(g)
    return tuple(out)

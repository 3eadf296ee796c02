"""A late-game showcase position, shared by the render tests, the benchmark and the docs.

Five players in round 6 on a 15x12 map with every terrain code; every building type on Might and
Faith with owners, ruins, renovated buildings and a renovation marker on Reason, population cubes
from several players, the ten pawns spread over the three Ages, and the events of a busy last
turn (built, rippled, upgraded, downsized, removed by paradox, destroyed, populated, renovated).

Built directly with the model (``GameState.make_building`` and ``Board.put``), so it depends on
nothing but ``rules``; the stock and each player's supply are made consistent with the boards.
"""

from __future__ import annotations

from dataclasses import replace

from rules import Age, Cards, Cell, Colour, GameMap, GameState, Kind, new_game, parse_map
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
    Travelled,
    Upgraded,
)
from rules.model import CUBES_PER_PLAYER, INITIAL_STOCK, Building

MAP_TEXT = """\
name: Render test valley
size: 15x12
grid:
..ffF..~W..mmM.
.fffF..~...PmM.
..fF...R~...Pm.
........~......
..P.....W~.....
.mmP.....~~...f
.mM......fR~.ff
..M.....ff.~.fF
...........~...
..F.....mm..~..
.FfF...mMm..W~.
..f.....m....~~
hamlets: F2 K3 N4 E6 H7 A9 D9 J9 L10 G11
"""


def demo_map() -> GameMap:
    """The showcase map: all nine terrain codes and ten printed hamlets."""
    return parse_map(MAP_TEXT, source="render/demo.py")


RED, WHITE, GREEN, BLUE, YELLOW = range(5)

#: (Age, kind, origin, owner, extras) — owners are seats; extras: ruin, marker, population
_PIECES: list[tuple[Age, Kind, str, int | None, dict[str, object]]] = [
    # Might
    (Age.MIGHT, Kind.CASTLE, "A1", RED, {}),
    (Age.MIGHT, Kind.WATCHTOWER, "C4", RED, {}),
    (Age.MIGHT, Kind.KEEP, "E1", WHITE, {}),
    (Age.MIGHT, Kind.TOWN, "D3", None, {}),
    (Age.MIGHT, Kind.CHAPEL, "G1", YELLOW, {}),
    (Age.MIGHT, Kind.ABBEY, "J4", GREEN, {}),
    (Age.MIGHT, Kind.KEEP, "M5", BLUE, {}),
    (Age.MIGHT, Kind.HAMLET, "M4", None, {}),
    (Age.MIGHT, Kind.MONASTERY, "E8", BLUE, {}),
    (Age.MIGHT, Kind.WATCHTOWER, "G8", YELLOW, {}),
    (Age.MIGHT, Kind.CITY, "A10", None, {}),
    (Age.MIGHT, Kind.CHAPEL, "D10", WHITE, {}),
    (Age.MIGHT, Kind.KEEP, "K11", GREEN, {}),
    (Age.MIGHT, Kind.HAMLET, "J10", None, {}),
    # Faith: shadows of Might's buildings and buildings of its own
    (Age.FAITH, Kind.CASTLE, "A1", RED, {}),
    (Age.FAITH, Kind.KEEP, "E1", WHITE, {}),
    (Age.FAITH, Kind.TOWN, "D3", None, {}),
    (Age.FAITH, Kind.ABBEY, "J4", GREEN, {}),
    (Age.FAITH, Kind.KEEP, "M5", BLUE, {}),
    (Age.FAITH, Kind.MONASTERY, "E8", BLUE, {}),
    (Age.FAITH, Kind.CITY, "A10", None, {}),
    (Age.FAITH, Kind.KEEP, "K11", GREEN, {}),
    (Age.FAITH, Kind.MONASTERY, "G4", YELLOW, {}),
    (Age.FAITH, Kind.WATCHTOWER, "I4", RED, {}),
    (Age.FAITH, Kind.CHAPEL, "L9", WHITE, {}),
    (Age.FAITH, Kind.HAMLET, "C7", None, {}),
    (Age.FAITH, Kind.WATCHTOWER, "H10", BLUE, {}),
    # Reason: ruins, renovated buildings, a marker, population
    (Age.REASON, Kind.CASTLE, "A1", None, {"ruin": True, "marker": YELLOW}),
    (Age.REASON, Kind.KEEP, "E1", None, {"ruin": True}),
    (Age.REASON, Kind.TOWN, "D3", None, {"population": (RED, WHITE, WHITE)}),
    (Age.REASON, Kind.ABBEY, "J4", None, {"ruin": False}),
    (Age.REASON, Kind.KEEP, "M5", None, {"ruin": False}),
    (Age.REASON, Kind.MONASTERY, "E8", None, {"ruin": True}),
    (Age.REASON, Kind.CITY, "A10", None, {"population": (GREEN, GREEN, BLUE, YELLOW)}),
    (Age.REASON, Kind.KEEP, "K11", None, {"ruin": True}),
    (Age.REASON, Kind.MONASTERY, "G4", None, {"ruin": False}),
    (Age.REASON, Kind.ABBEY, "G8", None, {"ruin": True}),
]

#: population on Reason's printed hamlets (cap 1)
_HAMLET_CUBES = {"K3": BLUE, "J9": RED}


def _put(s: GameState, age: Age, kind: Kind, where: str, **kw: object) -> Building:
    board = s.boards[age]
    b = s.make_building(kind, Cell.parse(where), **kw)
    for i in b.cells:
        under = board.at(i)
        if under is not None:
            if not under.printed:
                raise ValueError(f"{b.describe()} overlaps {under.describe()} on {age.title}")
            board.take(under.id)  # a printed hamlet under a tile is covered (R3)
    board.put(b)
    return b


def late_game() -> tuple[GameState, list[Event]]:
    """The showcase position (White's turn has just ended; Green is to play) and the events of
    White's turn."""
    s = new_game(["Rosa", "Wilhelmina", "Gaspard", "Bea", "Yusuf"], seed=2006, game_map=demo_map(),
                 colours=list(Colour))
    s.round = 6
    s.first = 0
    s.active = GREEN
    s.turn = 28
    on: dict[tuple[Age, str], Building] = {}
    for age, kind, where, owner, extras in _PIECES:
        kw: dict[str, object] = dict(extras)
        if owner is not None:
            kw["owner"] = owner
        if age is Age.REASON and kind.is_mr:
            kw.setdefault("ruin", True)
        on[(age, where)] = _put(s, age, kind, where, **kw)
    reason = s.boards[Age.REASON]
    for where, seat in _HAMLET_CUBES.items():
        ph = reason.at(s.map.index(Cell.parse(where)))
        assert ph is not None and ph.printed
        reason.swap(replace(ph, population=(seat,)))
    # stock and supply consistent with the boards
    used: dict[Kind, int] = dict.fromkeys(Kind, 0)
    cubes = [0] * 5
    for board in s.boards:
        for b in board.buildings.values():
            if not b.printed:
                used[b.kind] += 1
            for cube in (b.owner, b.marker, *b.population):
                if cube is not None:
                    cubes[cube] += 1
    s.stock = {k: INITIAL_STOCK[k] - used[k] for k in Kind}
    for seat, p in enumerate(s.players):
        p.supply = CUBES_PER_PLAYER - cubes[seat]
    for p, ecus, pawns in zip(
        s.players,
        (23, 17, 31, 9, 14),
        ((Age.MIGHT, Age.REASON), (Age.MIGHT, Age.FAITH), (Age.FAITH, Age.FAITH), (Age.REASON, Age.MIGHT),
         (Age.REASON, Age.FAITH)),
        strict=True,
    ):
        p.ecus = ecus
        p.pawns = list(pawns)
    yellow = s.players[YELLOW]  # a short hand (R20, A38): two of his cards went to the discard pile
    for family in yellow.hand.families()[:2]:
        yellow.hand = yellow.hand - Cards.of(family)
        s.discard.append(family)

    # White's last turn, as the engine reports it
    keep_m = on[(Age.MIGHT, "E1")]
    tower = replace(keep_m, kind=Kind.WATCHTOWER, cells=(keep_m.cells[0],))
    town_r = on[(Age.REASON, "D3")]
    small = on[(Age.FAITH, "H10")]
    events: list[Event] = [
        Travelled(WHITE, 1, Age.REASON, Age.FAITH),
        Upgraded(WHITE, Age.MIGHT, tower, keep_m, Cards(m=1)),
        ParadoxRemoved(Age.FAITH, s.make_building(Kind.CHAPEL, Cell.parse("F1"), owner=YELLOW)),
        Rippled(Age.FAITH, on[(Age.FAITH, "E1")]),
        Rippled(Age.REASON, on[(Age.REASON, "E1")]),
        Downsized(Age.FAITH, replace(small, kind=Kind.KEEP, cells=s.map.footprint(small.origin, 2) or ()), small),
        Built(WHITE, Age.MIGHT, on[(Age.MIGHT, "D10")], Cards(r=1)),
        Destroyed(Age.MIGHT, s.make_building(Kind.WATCHTOWER, Cell.parse("H5"), owner=BLUE)),
        Demolished(WHITE, Age.FAITH, s.make_building(Kind.HAMLET, Cell.parse("N1"))),
        Populated(WHITE, town_r),
        Populated(WHITE, town_r),
        Renovated(WHITE, on[(Age.REASON, "J4")]),
        MarkerPlaced(YELLOW, on[(Age.REASON, "A1")]),
    ]
    return s, events

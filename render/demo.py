"""A late-game showcase position, shared by the render tests, the benchmark and the docs.

Five players in round 6 on a 15x12 map with every terrain code; every building type on Might and
Faith with owners, ruins, renovated buildings and a renovation marker on Reason, population cubes
from several players, the ten pawns spread over the three Ages, and the events of a busy last
turn (built, rippled, upgraded, downsized, removed by paradox, destroyed, populated, renovated).

Written in the rules notation (``LATE_GAME``, docs/notation.md) and read with ``parse_position``;
the stock and each player's supply follow from the boards.
"""

from __future__ import annotations

from dataclasses import replace

from rules import Age, Building, Cards, Cell, GameMap, GameState, Kind, parse_map, parse_position
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
hamlets: F3 K3 N4 E6 H7 A9 D9 J9 L10 G11
"""


def demo_map() -> GameMap:
    """The showcase map: all nine terrain codes and ten printed hamlets."""
    return parse_map(MAP_TEXT, source="render/demo.py")


def _map_lines() -> str:
    m = demo_map()
    terrain = " ".join(f"{m.cell(i)}={c}" for i, c in enumerate(m.codes) if c != ".")
    return f"map: plain {m.width}x{m.height}\nterrain: {terrain}\nhamlets: {' '.join(map(str, m.hamlets))}\n"


_MAP_LINES = _map_lines()


RED, WHITE, GREEN, BLUE, YELLOW = range(5)

#: The position in the rules notation (docs/notation.md), on the demo map.
LATE_GAME = """\
players: Red White Green Blue Yellow
names: Red=Rosa, White=Wilhelmina, Green=Gaspard, Blue=Bea, Yellow=Yusuf
seed: 18296760630360715353
round: 6
first: Red
active: Green
turns: 28
Red: ecus=23 cubes=19 pawns=M,R played=0,0 hand=MMCC
White: ecus=17 cubes=19 pawns=M,F played=0,0 hand=MRCC
Green: ecus=31 cubes=19 pawns=F,F played=0,0 hand=MRCC
Blue: ecus=9 cubes=18 pawns=R,M played=0,0 hand=RRRR
Yellow: ecus=14 cubes=20 pawns=R,F played=0,0 hand=MR
M: Castle[Red]@A1 Keep[White]@E1 Chapel[Yellow]@G1 Town@D3 Watchtower[Red]@C4 Abbey[Green]@J4
M: Hamlet@M4 Keep[Blue]@M5 Monastery[Blue]@E8 Watchtower[Yellow]@G8 City@A10 Chapel[White]@D10
M: Hamlet@J10 Keep[Green]@K11
F: Castle[Red]@A1 Keep[White]@E1 Town@D3 Monastery[Yellow]@G4 Watchtower[Red]@I4 Abbey[Green]@J4
F: Keep[Blue]@M5 Hamlet@C7 Monastery[Blue]@E8 Chapel[White]@L9 City@A10 Watchtower[Blue]@H10
F: Keep[Green]@K11
R: Castle-ruin@A1+Yellow Keep-ruin@E1 Town@D3{Red:1,White:2} PH@K3{Blue:1} Monastery-renov@G4
R: Abbey-renov@J4 Keep-renov@M5 Monastery-ruin@E8 Abbey-ruin@G8 PH@J9{Red:1}
R: City@A10{Green:2,Blue:1,Yellow:1} Keep-ruin@K11
deck: RRRCRRRMMCCCRCRCRRMMMCMCCMCMCMMRMCC
discard: MM
"""


def late_game() -> tuple[GameState, list[Event]]:
    """The showcase position (White's turn has just ended; Green is to play) and the events of
    White's turn."""
    s = parse_position(_MAP_LINES + LATE_GAME)
    s.map = demo_map()

    def on(age: Age, where: str) -> Building:
        b = s.boards[age].at(s.map.index(Cell.parse(where)))
        assert b is not None, (age, where)
        return b

    # White's last turn, as the engine reports it
    keep_m = on(Age.MIGHT, "E1")
    tower = replace(keep_m, kind=Kind.WATCHTOWER, cells=(keep_m.cells[0],))
    town_r = on(Age.REASON, "D3")
    small = on(Age.FAITH, "H10")
    events: list[Event] = [
        Travelled(WHITE, 1, Age.REASON, Age.FAITH),
        Upgraded(WHITE, Age.MIGHT, tower, keep_m, Cards(m=1)),
        ParadoxRemoved(Age.FAITH, s.make_building(Kind.CHAPEL, Cell.parse("F1"), owner=YELLOW)),
        Rippled(Age.FAITH, on(Age.FAITH, "E1")),
        Rippled(Age.REASON, on(Age.REASON, "E1")),
        Downsized(Age.FAITH, replace(small, kind=Kind.KEEP, cells=s.map.footprint(small.origin, 2) or ()), small),
        Built(WHITE, Age.MIGHT, on(Age.MIGHT, "D10"), Cards(r=1)),
        Destroyed(Age.MIGHT, s.make_building(Kind.WATCHTOWER, Cell.parse("H5"), owner=BLUE)),
        Demolished(WHITE, Age.FAITH, s.make_building(Kind.HAMLET, Cell.parse("N1"))),
        Populated(WHITE, town_r),
        Populated(WHITE, town_r),
        Renovated(WHITE, on(Age.REASON, "J4")),
        MarkerPlaced(YELLOW, on(Age.REASON, "A1")),
    ]
    return s, events

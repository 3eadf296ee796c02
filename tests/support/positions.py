"""Positions built by hand for the picture tests: a building put on a board (``put``), stock and supplies
made consistent with the boards (``settle``), digest T13's junction with its pending decision
(``junction_pending``), a Hamlet the first player builds with one Clay (``hamlet_of_first``) and a
Hold'em game at its start (``holdem_start``)."""

from __future__ import annotations

from collections.abc import Sequence

from render.demo import demo_map
from rules import (
    CUBES_PER_PLAYER,
    INITIAL_STOCK,
    Age,
    Cards,
    Cell,
    Construct,
    GameState,
    Kind,
    Options,
    apply,
    default_payment,
    new_game,
)
from rules.events import Event


def put(s: GameState, age: Age, kind: Kind, where: str, **kw: object) -> None:
    board = s.boards[age]
    b = s.make_building(kind, Cell.parse(where), **kw)
    for i in b.cells:
        under = board.at(i)
        if under is not None:
            assert under.printed, f"{where} is taken"
            board.take(under.id)
    board.put(b)


def settle(s: GameState) -> None:
    """Stock and supplies consistent with the boards (as in the notation's defaults)."""
    used = dict.fromkeys(Kind, 0)
    cubes = [0] * len(s.players)
    for board in s.boards:
        for b in board.buildings.values():
            used[b.kind] += 0 if b.printed else 1
            for seat in (b.owner, b.marker, *b.population):
                if seat is not None:
                    cubes[seat] += 1
    s.stock = {k: INITIAL_STOCK[k] - used[k] for k in Kind}
    for seat, p in enumerate(s.players):
        p.supply = CUBES_PER_PLAYER - cubes[seat]


def junction_pending() -> tuple[GameState, list[Event]]:
    """Digest T13 on the demo map, moved to rows 4-5: Red's Hamlet at D4 joins her Keep's domain to
    White's; 3 beats 2, so White's Keep is downsized and White must choose where the Watchtower goes
    (R62, R64): a pending decision with four option cells on Might."""
    s = new_game(["Ana", "Ben", "Cy", "Dee"], seed=5, game_map=demo_map())
    put(s, Age.MIGHT, Kind.KEEP, "A4", owner=0)
    put(s, Age.MIGHT, Kind.WATCHTOWER, "C4", owner=2)
    put(s, Age.MIGHT, Kind.KEEP, "E4", owner=1)
    put(s, Age.FAITH, Kind.KEEP, "A4", owner=0)
    put(s, Age.FAITH, Kind.KEEP, "E4", owner=1)
    put(s, Age.REASON, Kind.KEEP, "A4", ruin=True)
    put(s, Age.REASON, Kind.KEEP, "E4", ruin=True)
    settle(s)
    s.active = s.first = 0
    s.players[0].hand = Cards(m=1, r=1, c=2)
    pay = default_payment(s, 0, Age.MIGHT, Cards(c=1), 0)
    assert pay is not None
    after, events = apply(s, Construct(0, Age.MIGHT, Kind.HAMLET, Cell.parse("D4"), pay))
    assert after.pending is not None
    return after, events


def holdem_start() -> GameState:
    """A 2-player Hold'em game at its start, Ecus secret (A37)."""
    return new_game(["Émilie", "周杰"], seed=11, game_map=demo_map(), options=Options(holdem=True, ecus_public=False))


def t13_hamlet(names: Sequence[str] = ("Ana", "Ben", "Cy", "Dee")) -> tuple[GameState, Construct]:
    """Digest T13 on the demo map, rows 4-5, before its move: Ana's Keep at A4 and Ben's at E4 on Might
    and Faith, Cy's Watchtower between on Might; and Ana's Hamlet at D4 (``hamlet_of_first``), which
    joins the two Keeps' domains on Might and asks Ben where his downsized Keep goes (R62, R64)."""
    s = new_game(list(names), seed=5, game_map=demo_map())
    put(s, Age.MIGHT, Kind.KEEP, "A4", owner=0)
    put(s, Age.MIGHT, Kind.WATCHTOWER, "C4", owner=2)
    put(s, Age.MIGHT, Kind.KEEP, "E4", owner=1)
    put(s, Age.FAITH, Kind.KEEP, "A4", owner=0)
    put(s, Age.FAITH, Kind.KEEP, "E4", owner=1)
    settle(s)
    return s, hamlet_of_first(s, "D4")


def hamlet_of_first(s: GameState, cell: str) -> Construct:
    """Seat 0 made the player to act, with one Military, one Religious and two Civil cards, and its
    Hamlet at ``cell`` on Might paid with one Civil card."""
    s.active = s.first = 0
    s.players[0].hand = Cards(m=1, r=1, c=2)
    pay = default_payment(s, 0, Age.MIGHT, Cards(c=1), 0)
    assert pay is not None
    return Construct(0, Age.MIGHT, Kind.HAMLET, Cell.parse(cell), pay)

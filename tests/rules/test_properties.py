"""Invariants over random legal games (2–5 players, with and without Hold'em): components are
conserved, Ecus never go negative, buildings never overlap, the Rule of Hierarchy holds on Might and
Faith, and every game ends after round 7 with winners."""

from __future__ import annotations

import os
from collections import Counter

import pytest

from rules import (
    CUBES_PER_PLAYER,
    DECK_COMPOSITION,
    INITIAL_STOCK,
    POPULATION_CAP,
    ROUNDS,
    Age,
    Cards,
    GameState,
    Kind,
    domains,
    format_position,
    from_json,
    parse_position,
    to_json,
    violation,
)
from rules.events import GameEnded
from tests.support.gameplay import random_game

#: every test here plays random games to the end
pytestmark = pytest.mark.slow

#: how many random games the property test plays (TIEMPO_PROPERTY_GAMES=2000 for a long soak)
GAMES = [(seed, 2 + seed % 4, seed % 2 == 0) for seed in range(int(os.environ.get("TIEMPO_PROPERTY_GAMES", "24")))]


def check_invariants(s: GameState) -> None:
    # R2, R44: 155 tiles, boards + stock (printed hamlets are not tiles)
    on_boards: Counter[Kind] = Counter(
        b.kind for board in s.boards for b in board.buildings.values() if not b.printed
    )
    for kind, n in INITIAL_STOCK.items():
        assert s.stock[kind] >= 0
        assert s.stock[kind] + on_boards[kind] == n, kind
    # R5, R45: each player's 25 cubes
    cubes: Counter[int] = Counter()
    for board in s.boards:
        for b in board.buildings.values():
            if b.owner is not None:
                cubes[b.owner] += 1
            if b.marker is not None:
                cubes[b.marker] += 1
            cubes.update(b.population)
    for i, p in enumerate(s.players):
        assert p.supply >= 0
        assert p.supply + cubes[i] == CUBES_PER_PLAYER, p
    # R4: 55 cards
    total = Cards()
    for p in s.players:
        total = total + p.hand
    for fam in s.deck + s.discard:
        total = total + Cards.of(fam)
    total = total + s.reserve
    assert (total.m, total.r, total.c) == tuple(DECK_COMPOSITION.values())
    if s.options.holdem:
        assert s.reserve.total == 3
    # R23: no negative Ecus
    assert all(p.ecus >= 0 for p in s.players)
    # no overlap: the grid and the buildings agree exactly
    for board in s.boards:
        claimed: dict[int, int] = {}
        for b in board.buildings.values():
            assert s.map.footprint(b.origin, b.level) == b.cells
            for i in b.cells:
                assert i not in claimed, f"overlap at {s.map.cell(i)} on {board.age.title}"
                claimed[i] = b.id
        assert {i: bid for i, bid in enumerate(board.grid) if bid} == claimed
        for b in board.buildings.values():
            if board.age is Age.REASON:
                assert b.owner is None  # R50
                assert b.ruin == (b.kind.is_mr and b.ruin)
                if b.kind.family.value == "C":
                    assert len(b.population) <= POPULATION_CAP[b.kind]  # R31
            else:
                assert not b.population and b.marker is None and not b.ruin
                assert (b.owner is not None) == b.kind.is_mr  # §0
        # R3: a printed hamlet is either in play or covered by a Civil tile
        for cell in s.map.hamlets:
            b = board.at(s.map.index(cell))
            assert b is not None and (b.printed or b.kind.family.value == "C")
    # R43, R78: the Rule of Hierarchy holds on Might and Faith once resolution is over
    if s.pending is None:
        for age in (Age.MIGHT, Age.FAITH):
            board = s.boards[age]
            for group in domains(board, s.map).groups:
                assert violation(board, [board.buildings[i] for i in group]) is None
    assert 1 <= s.round <= ROUNDS


@pytest.mark.parametrize(("seed", "players", "holdem"), GAMES)
def test_r2_r4_r5_r22_r23_r43_r68_a29_invariants_hold_through_random_games(
    seed: int, players: int, holdem: bool
) -> None:
    last = None
    pending_seen = 0
    for n, step in enumerate(random_game(seed, players, holdem)):
        check_invariants(step.after)
        assert from_json(to_json(step.after)) == step.after  # the JSON round trip is exact
        if n % 5 == 0:  # and the notation reproduces the position
            text = format_position(step.after)
            again = parse_position(text)
            assert format_position(again) == text
            assert again.pending is None or again.pending.decision == step.after.pending.decision  # type: ignore[union-attr]
        pending_seen += step.after.pending is not None
        last = step
    assert last is not None
    s = last.after
    assert s.finished and s.round == ROUNDS  # R11, R22
    best = max(p.ecus for p in s.players)
    assert s.winners == tuple(i for i, p in enumerate(s.players) if p.ecus == best)  # A36
    assert any(isinstance(e, GameEnded) for e in last.events)


def test_random_games_reach_decisions_and_ripples() -> None:
    """The random games above are not trivial: they build, ripple and stop on decisions."""
    kinds = Counter()
    pending = 0
    for seed, players, holdem in GAMES[:8]:
        for step in random_game(seed, players, holdem):
            pending += step.after.pending is not None
            kinds.update(type(e).__name__ for e in step.events)
    assert kinds["Rippled"] > 50 and kinds["Built"] > 100 and kinds["IncomePaid"] > 0
    assert kinds["ParadoxRemoved"] > 0 and kinds["Downsized"] + kinds["Destroyed"] > 0
    assert pending > 0

"""The engine's fast paths give what the plain computations give, over every position of random games
(2–5 players, with and without Hold'em) and the positions one card action away from them: the domains
a board keeps and brings up to date (``rules.domains``) are those found from scratch, the same groups
in the same order, each walked in the same order (what a junction's questions are asked in, R60–R63); the
construction sites listed from the map's blocks (``rules.construct_sites``) are those a plain walk over
every origin finds (R27, R34–R43); an action applied with its decisions answered by their first
option in one run (``rules.apply_first``) reaches the state that answering them one by one reaches."""

from __future__ import annotations

import random

import pytest

from rules import (
    Age,
    Board,
    Cell,
    Choose,
    Construct,
    Demolish,
    Family,
    GameMap,
    GameState,
    Kind,
    Upgrade,
    apply,
    apply_first,
    construct_sites,
    domains,
    domains_afresh,
    legal_actions,
    load_map,
    ordered_groups,
    surcharge,
)
from tests.support.gameplay import random_game

#: (seed, players, Hold'em): every number of players, both variants
GAMES = [(seed, 2 + seed % 4, seed % 2 == 1) for seed in range(4)]


def assert_domains_as_found_afresh(board: Board, game_map: GameMap) -> None:
    """``domains`` of a copy of ``board`` (its kept domains and moves with it) are those of the plain
    scan: the same domains in the same order, each with the same first building, and walked in the
    same order (``ordered_group``)."""
    copy = board.clone()
    kept, fresh = domains(copy, game_map), domains_afresh(copy, game_map)
    assert [(g[0], set(g)) for g in kept.groups] == [(g[0], set(g)) for g in fresh.groups]
    assert all(len(g) == len(set(g)) for g in kept.groups)
    assert kept.of == fresh.of
    assert kept.starts == fresh.starts and kept.head == fresh.head
    walks = {g[0]: g for g in fresh.groups}
    assert all(walks.get(first) == walk for first, walk in kept.walked.items())
    assert ordered_groups(copy, game_map) == fresh.groups


def card_actions_after(s: GameState, r: random.Random, n: int) -> list[GameState]:
    """The positions after up to ``n`` card actions of the listing, drawn at random (each from ``s``)."""
    acts = [a for a in legal_actions(s, types=(Construct, Upgrade, Demolish), outline=True)]
    return [apply(s, a)[0] for a in r.sample(acts, min(n, len(acts)))]


@pytest.mark.parametrize(("seed", "players", "holdem"), GAMES)
def test_kept_domains_are_the_domains_found_afresh_in_every_position(seed: int, players: int, holdem: bool) -> None:
    r = random.Random(seed)
    checked = 0
    for step in random_game(seed, players, holdem):
        for s in (step.after, *card_actions_after(step.before, r, 3)):
            assert s.clone() == s
            for age in Age:
                assert_domains_as_found_afresh(s.boards[age], s.map)
                checked += 1
    assert checked > 300


def test_kept_domains_follow_every_building_put_and_taken_on_a_board() -> None:
    """Buildings put and taken one by one, the domains asked for now and then: always as found afresh."""
    seed, players, holdem = GAMES[1]
    last = [step.after for step in random_game(seed, players, holdem)][-1]
    for age in Age:
        full = last.boards[age]
        board = Board(age, {}, [0] * len(full.grid))
        r = random.Random(age)
        order = list(full.buildings.values())
        r.shuffle(order)
        for k, b in enumerate(order):
            board.put(b)
            if k % 3 == 0:
                assert_domains_as_found_afresh(board, last.map)
                domains(board, last.map)
        for k, b in enumerate(order):
            if k % 2:
                board.take(b.id)
                if k % 3 == 1:
                    assert_domains_as_found_afresh(board, last.map)
                    domains(board, last.map)
        assert_domains_as_found_afresh(board, last.map)


def plain_construct_sites(s: GameState, age: Age, kind: Kind) -> list[tuple[Cell, tuple[int, ...], int]]:
    """Every origin in reading order whose footprint fits on the board, is free, avoids the river unless
    the kind is a Town or City, and for a Military or Religious building touches at most one domain
    whose highest building of that family is lower (R34–R43); with the footprint and the surcharge."""
    board = s.boards[age]
    doms = domains_afresh(board, s.map)
    out = []
    for row in range(s.map.height):
        for col in range(s.map.width):
            cells = s.map.footprint(Cell(col, row), kind.level)
            if cells is None or any(board.grid[i] for i in cells):
                continue
            if not (kind.family is Family.CIVIL and kind.level >= 2) and any(i in s.map.river_cells for i in cells):
                continue
            if kind.is_mr:
                touched = {doms.of[board.grid[j]] for j in s.map.neighbours(cells) if board.grid[j]}
                if len(touched) >= 2:
                    continue
                if touched and max((board.buildings[i].level for i in doms.groups[touched.pop()]
                                    if board.buildings[i].kind.family is kind.family), default=0) == kind.level:
                    continue
            out.append((Cell(col, row), cells, surcharge(s, cells)))
    return out


@pytest.mark.parametrize(("seed", "players", "holdem"), GAMES)
@pytest.mark.parametrize("map_name", ["test", "default"])
def test_construction_sites_are_those_a_plain_walk_finds(seed: int, players: int, holdem: bool, map_name: str) -> None:
    """On the tests' map and on the default one (forest, mountain and river in many places)."""
    checked = 0
    for k, step in enumerate(random_game(seed, players, holdem, load_map() if map_name == "default" else None)):
        if k % 3:
            continue
        s = step.after
        for age in (Age.MIGHT, Age.FAITH):
            for kind in Kind:
                found = list(construct_sites(s, s.active, age, kind))
                assert found == plain_construct_sites(s, age, kind)
                checked += len(found)
    assert checked > 1000


def answered_one_by_one(s: GameState, limit: int = 40) -> GameState:
    """``s`` with its pending decisions answered by their first option, one ``apply`` each."""
    for _ in range(limit):
        if s.pending is None:
            break
        d = s.pending.decision
        s, _ = apply(s, Choose(d.player, d.options[0]))
    return s


@pytest.mark.parametrize(("seed", "players", "holdem"), GAMES)
def test_decisions_answered_in_one_run_reach_the_state_answered_one_by_one(seed: int, players: int,
                                                                          holdem: bool) -> None:
    asked = 0
    for k, step in enumerate(random_game(seed, players, holdem)):
        s = step.before
        if s.pending is not None:
            d = s.pending.decision
            assert apply_first(s, Choose(d.player, d.options[0]))[0] == answered_one_by_one(
                apply(s, Choose(d.player, d.options[0]))[0])
            continue
        if k % 2:
            continue
        for a in legal_actions(s, types=(Construct, Upgrade, Demolish)):
            after = apply(s, a)[0]
            asked += after.pending is not None
            assert apply_first(s, a)[0] == answered_one_by_one(after)
    assert asked >= 3
